/* SPDX-License-Identifier: BSD-3-Clause */
/* live.c — bench-live: what an operator gets from nl-detect on a service summarized each
 * second (tests/t_live.h): for each scenario and seed, the reports in the healthy hours,
 * how long after a fault's onset the first report came, whether its episode ended while the
 * fault lasted, and how long after the fault's end it did.
 *
 *   bench-live [--hours H] [--seeds N] [--on S] [--len S] [CONFIG-LINE ...]
 *   bench-live --lines KIND SEED [--hours H] [--on S] [--len S]
 *
 * The second form writes scenario KIND's (0-7, in the order of the table) summary lines to
 * standard output instead, to feed nl-detect itself.
 *
 * Each CONFIG-LINE is one nl-detect configuration (default: the three streams the docs
 * recommend, with nothing but their names, events and values). The faults begin at `--on`
 * seconds (default 3 h) and last `--len` (60 s); the run lasts `--hours` (6; the daily cycle
 * 3 days). Exits 0 after printing, 2 on bad arguments or configuration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_run.h"

int main(int argc, char **argv)
{
    double hours = 6;
    int seeds = 3;
    long on = 3 * 3600, len = 60;
    const char *confs[16];
    int nconf = 0, lines_kind = -1;
    uint64_t lines_seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hours") && i + 1 < argc)
            hours = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--on") && i + 1 < argc)
            on = atol(argv[++i]);
        else if (!strcmp(argv[i], "--len") && i + 1 < argc)
            len = atol(argv[++i]);
        else if (!strcmp(argv[i], "--lines") && i + 2 < argc) {
            lines_kind = atoi(argv[++i]);
            lines_seed = strtoull(argv[++i], NULL, 10);
        } else if (argv[i][0] != '-' && nconf < 16)
            confs[nconf++] = argv[i];
        else {
            fprintf(stderr, "usage: bench-live [--hours H] [--seeds N] [--on S] [--len S] "
                            "[CONFIG-LINE ...]\n");
            return 2;
        }
    }
    if (!(hours > 0) || seeds < 1 || on < 1 || len < 1) {
        fprintf(stderr, "bench-live: bad --hours, --seeds, --on or --len\n");
        return 2;
    }
    if (lines_kind >= 0) {
        if (lines_kind >= T_LIVE_KINDS) {
            fprintf(stderr, "bench-live: --lines KIND is 0 to %d\n", T_LIVE_KINDS - 1);
            return 2;
        }
        long secs = lines_kind == T_LIVE_DAILY ? 3 * 86400 : (long)(hours * 3600);
        t_live_t g;
        t_live_init(&g, lines_kind, secs, on, len, lines_seed);
        char line[1024];
        for (long s = 0; s < secs; s++) {
            size_t n = t_live_line(&g, s, line, sizeof line);
            if (n && fwrite(line, 1, n, stdout) != n) return 1;
        }
        return 0;
    }
    if (!nconf) confs[nconf++] = LIVE_DEFAULT_CONF;
    for (int c = 0; c < nconf; c++) {
        printf("\nconfiguration:\n%s\n", confs[c]);
        printf("| scenario | seed | reports before onset | first report after onset (s) | "
               "ended during fault | end after fault (s) | reports after | open at end |\n");
        printf("|---|---:|---:|---:|---|---:|---:|---:|\n");
        for (int k = 0; k < T_LIVE_KINDS; k++)
            for (int s = 1; s <= seeds; s++) {
                long secs = (long)(hours * 3600);
                if (k == T_LIVE_DAILY) secs = 3 * 86400;
                live_result_t r;
                char err[256];
                if (live_run(confs[c], k, secs, on, len, (uint64_t)s, &r, err, sizeof err)) {
                    fprintf(stderr, "bench-live: %s\n", err);
                    return 2;
                }
                printf("| %s | %d | %d | %s | %s | %s | %d | %d |\n", t_live_names[k], s,
                       r.before, live_fmt_delay(r.first_after), r.ended_during ? "yes" : "no",
                       live_fmt_delay(r.end_after), r.after, r.open_at_end);
            }
    }
    return 0;
}
