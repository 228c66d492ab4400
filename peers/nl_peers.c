/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_peers.c — nl-peers: find the misbehaving host among identical peers from their
 * summary lines (the engine is nlp_run.c; the arithmetic nlp_score.c). Reads files or
 * standard input with the tools' shared line reader; optionally first a known-good run for
 * reference profiles and another (or the same) for the threshold. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_reader.h"
#include "nl_tool.h"
#include "nlp.h"
#include "nlp_score.h"

static void usage(FILE *f)
{
    fputs("usage: nl-peers [OPTION...] [FILE...]      (standard input if no FILE)\n"
          "Compares hosts running the same program (summary lines with host= and prog=):\n"
          "per window, each host's share of time per activity against its peers'.\n"
          "  -o, --output URL      where reports go ('-', the default: standard output)\n"
          "      --window S        window length in seconds (60)\n"
          "      --shift S         step between windows (30)\n"
          "      --metric LIST     dur, n and/or v: shares of time, counts, values (dur)\n"
          "      --distance D      manhattan or euclid (manhattan)\n"
          "      --rule R          kth: distance to the k-th nearest peer; median: median\n"
          "                        distance to the others (kth)\n"
          "      --k N             the k of the k-th nearest peer (hosts / 4, at least 1)\n"
          "      --faulty-k N      faulty when anomalous in N of the last 2N-1 windows (3)\n"
          "      --threshold X     anomalous above X (default: FACTOR x the window's median\n"
          "                        score, at least FLOOR; or learned with --train)\n"
          "      --factor F        (5)         --floor X         (0.05)\n"
          "      --train FILE      a fault-free run: threshold = 2 x the largest value in it\n"
          "      --reference FILE  a known-good run: a host is only as suspect as its distance\n"
          "                        to the nearest of its profiles (a master among workers)\n"
          "      --skew S          fail-stop clock-skew tolerance in seconds (10)\n"
          "      --host-field F    (host)      --group-field F   (prog)\n"
          "      --all             a suspect line for every host and window\n"
          "      --table           hosts ranked by their largest score, at the end\n"
          "      --stats           counters on standard error at the end\n"
          "Exit status: 0 done, 1 an input could not be read, 2 usage error.\n",
          f);
}

static int feed_line(void *p, const char *line, size_t len, const char *name, long lineno)
{
    nlp_line(p, line, len, name, lineno, stderr);
    return 0;
}

/* Feed one input to the engine; 0, or 1 if it could not be read. */
static int run_input(nlp_t *p, const char *path)
{
    nl__lines_t how = {.prog = "nl-peers", .timeout_ms = -1, .on_line = feed_line, .ctx = p};
    return nl__reader_each(path, &how);
}

static int parse_metrics(const char *s, int *m)
{
    *m = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "dur"))
            *m |= NLP_M_DUR;
        else if (!strcmp(t, "n"))
            *m |= NLP_M_N;
        else if (!strcmp(t, "v"))
            *m |= NLP_M_V;
        else
            return -1;
    }
    return *m ? 0 : -1;
}

static int num(const char *s, double *x)
{
    char *end;
    errno = 0;
    *x = strtod(s, &end);
    return errno || end == s || *end || !(*x >= 0) ? -1 : 0;
}

enum {
    O_FACTOR = 200,
    O_FLOOR,
    O_WINDOW = 256,
    O_SHIFT,
    O_METRIC,
    O_DIST,
    O_RULE,
    O_K,
    O_FK,
    O_THR,
    O_TRAIN,
    O_REF,
    O_SKEW,
    O_HOSTF,
    O_GROUPF,
    O_ALL,
    O_TABLE,
    O_STATS,
    O_VERSION
};

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"window", required_argument, 0, O_WINDOW},
                                         {"shift", required_argument, 0, O_SHIFT},
                                         {"metric", required_argument, 0, O_METRIC},
                                         {"distance", required_argument, 0, O_DIST},
                                         {"rule", required_argument, 0, O_RULE},
                                         {"k", required_argument, 0, O_K},
                                         {"faulty-k", required_argument, 0, O_FK},
                                         {"threshold", required_argument, 0, O_THR},
                                         {"train", required_argument, 0, O_TRAIN},
                                         {"factor", required_argument, 0, O_FACTOR},
                                         {"floor", required_argument, 0, O_FLOOR},
                                         {"reference", required_argument, 0, O_REF},
                                         {"skew", required_argument, 0, O_SKEW},
                                         {"host-field", required_argument, 0, O_HOSTF},
                                         {"group-field", required_argument, 0, O_GROUPF},
                                         {"all", no_argument, 0, O_ALL},
                                         {"table", no_argument, 0, O_TABLE},
                                         {"stats", no_argument, 0, O_STATS},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, O_VERSION},
                                         {0, 0, 0, 0}};
    nl__tool_env_clear(); /* the reports go where -o says */
    nlp_opts_t o;
    nlp_opts_default(&o);
    const char *output = "-", *train = NULL, *ref = NULL;
    int table = 0, stats = 0, c, bad = 0, li = -1;
    double x;
    while ((c = getopt_long(argc, argv, "o:h", opts, &li)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case O_WINDOW: bad |= num(optarg, &o.win); break;
        case O_SHIFT: bad |= num(optarg, &o.shift); break;
        case O_METRIC: bad |= parse_metrics(optarg, &o.metrics); break;
        case O_DIST:
            o.dist = !strcmp(optarg, "manhattan") ? NLP_MANHATTAN
                     : !strcmp(optarg, "euclid")  ? NLP_EUCLID
                                                  : (bad = 1, 0);
            break;
        case O_RULE:
            o.rule = !strcmp(optarg, "kth")      ? NLP_RULE_KTH
                     : !strcmp(optarg, "median") ? NLP_RULE_MEDIAN
                                                 : (bad = 1, 0);
            break;
        case O_K:
            bad |= num(optarg, &x) || x > 1000;
            o.k_peer = (unsigned)x;
            break;
        case O_FK:
            bad |= num(optarg, &x);
            o.k_faulty = (int)x;
            break;
        case O_THR: bad |= num(optarg, &o.threshold); break;
        case O_FACTOR: bad |= num(optarg, &o.auto_factor); break;
        case O_FLOOR: bad |= num(optarg, &o.auto_floor); break;
        case O_TRAIN: train = optarg; break;
        case O_REF: ref = optarg; break;
        case O_SKEW: bad |= num(optarg, &o.skew); break;
        case O_HOSTF: o.host_field = optarg; break;
        case O_GROUPF: o.group_field = optarg; break;
        case O_ALL: o.all = 1; break;
        case O_TABLE: table = 1; break;
        case O_STATS: stats = 1; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION: puts("nl-peers (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-peers --help' for the options.\n", stderr); return 2;
        }
        if (bad) {
            fprintf(stderr, "nl-peers: bad value for --%s: %s\n", li >= 0 ? opts[li].name : "?",
                    optarg);
            return 2;
        }
    }
    int oerr = 0;
    nl_log_t *out = nl_open_ex(output, &oerr);
    if (!out) {
        fprintf(stderr, "nl-peers: cannot open output '%s': %s\n", output, nl_open_strerror(oerr));
        return 2;
    }
    nl_set_level(out, NL_LVL_TRACE);
    char err[256];
    nlp_t *p = nlp_new(&o, out, err, sizeof err);
    if (!p) {
        fprintf(stderr, "nl-peers: %s\n", err);
        nl_close(out);
        return 2;
    }
    int rc = 0;
    if (ref) { /* first what known-good looks like, then what fault-free varies by */
        nlp_begin_phase(p, NLP_REFERENCE);
        rc |= run_input(p, ref);
        nlp_end_phase(p);
    }
    if (train) {
        nlp_begin_phase(p, NLP_TRAIN);
        rc |= run_input(p, train);
        nlp_end_phase(p);
        if (stats) fprintf(stderr, "nl-peers: learned threshold %.6g\n", nlp_threshold(p));
    }
    nlp_begin_phase(p, NLP_WATCH);
    if (optind == argc) rc |= run_input(p, "-");
    for (int i = optind; i < argc; i++) rc |= run_input(p, argv[i]);
    nlp_end_phase(p);
    nl_flush(out);
    if (table) nlp_table(p, stdout);
    nlp_counts_t n;
    nlp_counts(p, &n);
    if (stats)
        fprintf(stderr,
                "nl-peers: lines=%llu events=%llu bad=%llu used=%llu windows=%llu suspects=%llu "
                "faulty=%llu failstop=%llu refs=%llu\n",
                (unsigned long long)n.lines, (unsigned long long)n.events,
                (unsigned long long)n.bad, (unsigned long long)n.used,
                (unsigned long long)n.windows, (unsigned long long)n.suspects,
                (unsigned long long)n.faulty, (unsigned long long)n.failstop,
                (unsigned long long)n.refs);
    if (n.host_overflow)
        fprintf(stderr, "nl-peers: %llu summary line(s) of hosts beyond the first %d left out\n",
                (unsigned long long)n.host_overflow, NLP_HOST_MAX);
    if (n.act_overflow)
        fprintf(stderr,
                "nl-peers: %llu summary line(s) of activities beyond the first %d left out\n",
                (unsigned long long)n.act_overflow, NLP_ACT_MAX);
    if (n.out_errors)
        fprintf(stderr, "nl-peers: %llu verdict line(s) could not be written\n",
                (unsigned long long)n.out_errors);
    nlp_free(p);
    nl_close(out);
    return rc;
}
