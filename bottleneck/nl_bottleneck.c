/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_bottleneck.c — the nl-bottleneck program: its command line, and the calls into the
 * gathering (nlb_run.h) that read the event lines of transfers (both endpoints' logs,
 * summarized or in full), add up what each transfer spent in each stage by guid (and, with
 * --interval, by interval), and write one verdict per transfer or interval: the limiting
 * stage by the rule of nlb.h. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nlb_run.h"
#include "nlkit/nl.h"

static void usage(FILE *f)
{
    fputs("Usage: nl-bottleneck [OPTIONS] [FILE...]\n"
          "Name the stage that limits each transfer — disk.read (the sender's disk), network,\n"
          "disk.write (the receiver's disk) — from both endpoints' event lines (FILEs, or\n"
          "standard input): summaries (X.summary) or start/end pairs, joined by guid. Stages\n"
          "are the activities disk.read, network.write, network.read and disk.write, or names\n"
          "ending in them (gridftp.disk.write).\n"
          "\n"
          "  -m, --margin M     how much more time a stage must take than the other stage of\n"
          "                     its end to count as the slower one (0.2: 20 %)\n"
          "  -i, --interval S   one verdict per S-second interval of each transfer (by the\n"
          "                     summaries' or the ends' time) instead of one per transfer\n"
          "  -p, --min-pairs N  a stage counts only with at least N pairs in the transfer or\n"
          "                     interval (3); fewer is \"missing data\"\n"
          "  -t, --table        a table instead of event lines\n"
          "      --lenient      accept damaged nlkit lines where possible\n"
          "      --netlogger    read lines as NetLogger's own reader does\n"
          "  -h, --help         this text\n"
          "      --version      version\n"
          "Exit status: 0, 1 an input could not be read, 2 usage error.\n",
          f);
}

enum { O_LENIENT = 256, O_NETLOGGER, O_VERSION };

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"margin", required_argument, NULL, 'm'},
        {"interval", required_argument, NULL, 'i'},
        {"table", no_argument, NULL, 't'},
        {"lenient", no_argument, NULL, O_LENIENT},
        {"netlogger", no_argument, NULL, O_NETLOGGER},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, O_VERSION},
        {0, 0, 0, 0},
    };
    nlb_run_t r;
    nlb_run_init(&r);
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "m:i:p:th", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
        case 'i': {
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0) || !isfinite(v) || (c == 'i' && v > 0 && v < 0.001)) {
                fprintf(stderr, "nl-bottleneck: --%s wants a number >= 0, not '%s'\n",
                        c == 'm' ? "margin" : "interval", optarg);
                return 2;
            }
            *(c == 'm' ? &r.margin : &r.interval) = v;
            break;
        }
        case 'p':
            r.min_pairs = strtoull(optarg, &end, 10);
            if (*end || !*optarg || *optarg == '-') {
                fprintf(stderr, "nl-bottleneck: --min-pairs wants a number >= 0, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 't': r.table = 1; break;
        case O_LENIENT: r.parse = NL_PARSE_LENIENT; break;
        case O_NETLOGGER: r.parse = NL_PARSE_NETLOGGER; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION: puts("nl-bottleneck (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-bottleneck --help' for the options.\n", stderr); return 2;
        }
    }
    int failed = 0;
    if (optind == argc) failed |= nlb_run_input(&r, "-") != 0;
    for (int i = optind; i < argc; i++) failed |= nlb_run_input(&r, argv[i]) != 0;
    nlb_run_write(&r, stdout);
    nlb_run_finish(&r, stderr);
    return failed ? 1 : 0;
}
