/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_flows.c — nl-flows: follow each request across processes and hosts, report the flows
 * unlike the others and the paths that tell them apart (the engine is nlf_*.c). Several
 * inputs (one per host, say) are read side by side, merged by event time, so a request's
 * events meet whatever file they are in; or the archive's raw events (-d, nlf_archive.c). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_num.h"
#include "nl_reader.h"
#include "nl_tool.h"
#include "nlf.h"
#include "nlf_archive.h"

static void usage(FILE *f)
{
    fputs("usage: nl-flows [OPTION...] [FILE...]      (standard input if no FILE)\n"
          "       nl-flows [OPTION...] -d ARCHIVE [--since T] [--until T]\n"
          "Joins events into flows (one per request) by guid, parent.guid and trace.id,\n"
          "profiles each flow by activity path and reports the flows unlike the others of\n"
          "their root activity, then the paths that tell anomalous flows from normal ones.\n"
          "  -o, --output URL       where reports go ('-', the default: standard output)\n"
          "  -d, --db ARCHIVE       read the raw events of nl-load's archive (SQLite file or\n"
          "                         postgresql:// URI) instead of files\n"
          "      --since T, --until T  the archive's time window (ISO-8601 or epoch seconds)\n"
          "      --reference FILE   a known-good run: score = distance to its nearest flow\n"
          "      --idle S           a flow is complete after S seconds without events (5)\n"
          "      --max-events N     events held in open flows at most (262144)\n"
          "      --flow-events N    events of one flow at most (65536)\n"
          "      --history N        recent normal flows kept per root activity (128)\n"
          "      --k N              score = distance to the k-th nearest flow (8)\n"
          "      --threshold X      suspect above X (default: FACTOR x median score, >= FLOOR)\n"
          "      --factor F         (5)          --floor X          (0.1)\n"
          "      --value-field F    communication profile from this end-event field\n"
          "      --dur-field F      an end event's own duration in seconds, if it has one\n"
          "      --host-field F     (host)\n"
          "      --top N            most unusual flows listed at the end (100)\n"
          "      --causes N         cause lines per root activity (5)\n"
          "      --all              a nl.flow.score line for every flow judged normal\n"
          "      --durations        a nl.flow.done line for every flow judged: its root\n"
          "                         activity's duration (dur=), for nl-detect\n"
          "      --stats            counters on standard error at the end\n"
          "Exit status: 0 done, 1 an input could not be read, 2 usage error.\n",
          f);
}

typedef struct input {
    nl__reader_t rd;
    const char *name;
    nl_rec_t rec;
    int has, done, open;
} input_t;

/* The input's next event into its record; 0, or 1 on a read error. */
static int advance(nlf_t *f, input_t *in)
{
    in->has = 0;
    while (!in->done) {
        const char *line;
        size_t len;
        int r = nl__reader_next(&in->rd, -1, &line, &len);
        if (r == NL_RD_LINE) {
            if (nlf_parse(f, &in->rec, line, len, in->name, in->rd.lineno, stderr) == 1)
                return in->has = 1, 0;
        } else if (r == NL_RD_TOOLONG) {
            fprintf(stderr, "nl-flows: %s:%ld: line longer than NL_LINE_MAX, skipped\n",
                    in->name, in->rd.lineno);
        } else if (r == NL_RD_EOF) {
            in->done = 1;
        } else if (r != NL_RD_AGAIN) {
            fprintf(stderr, "nl-flows: %s:%ld: read error: %s\n", in->name, in->rd.lineno + 1,
                    strerror(errno));
            in->done = 1;
            return 1;
        }
    }
    return 0;
}

/* Feed the inputs to the engine merged by event time (each in its own order). */
static int run_inputs(nlf_t *f, char **paths, int n)
{
    input_t *in = calloc((size_t)n, sizeof *in);
    if (!in) {
        fprintf(stderr, "nl-flows: out of memory\n");
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        nl_rec_init(&in[i].rec);
        if (nl__reader_open(&in[i].rd, "nl-flows", paths[i], &in[i].name)) {
            in[i].done = 1;
            rc = 1;
            continue;
        }
        in[i].open = 1;
        rc |= advance(f, &in[i]);
    }
    for (;;) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (in[i].has && (best < 0 || in[i].rec.ts_usec < in[best].rec.ts_usec)) best = i;
        if (best < 0) break;
        nlf_event(f, &in[best].rec, in[best].name, in[best].rd.lineno);
        rc |= advance(f, &in[best]);
    }
    for (int i = 0; i < n; i++) {
        if (in[i].open) nl__reader_close(&in[i].rd);
        nl_rec_free(&in[i].rec);
    }
    free(in);
    return rc;
}

/* A non-negative number option (the internal library's C-locale reading). */
static int num(const char *s, double *x)
{
    return nl__strtod(s, strlen(s), x) || !(*x >= 0) ? -1 : 0;
}

/* A time: ISO-8601 or epoch seconds, as the line format's ts. */
static int when(const char *s, double *t)
{
    int64_t us;
    if (nl_ts_parse(s, strlen(s), &us)) return -1;
    *t = (double)us / 1e6;
    return 0;
}

static int count(const char *s, size_t *x)
{
    double d;
    if (num(s, &d) || d != (double)(size_t)d) return -1;
    *x = (size_t)d;
    return 0;
}

enum {
    O_SINCE = 200, O_UNTIL,
    O_REF = 256, O_IDLE, O_MAXEV, O_FLOWEV, O_HIST, O_K, O_THR, O_FACTOR, O_FLOOR, O_VALUE,
    O_DUR, O_HOSTF, O_TOP, O_CAUSES, O_ALL, O_DURS, O_STATS, O_VERSION
};

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"db", required_argument, 0, 'd'},
                                         {"since", required_argument, 0, O_SINCE},
                                         {"until", required_argument, 0, O_UNTIL},
                                         {"reference", required_argument, 0, O_REF},
                                         {"idle", required_argument, 0, O_IDLE},
                                         {"max-events", required_argument, 0, O_MAXEV},
                                         {"flow-events", required_argument, 0, O_FLOWEV},
                                         {"history", required_argument, 0, O_HIST},
                                         {"k", required_argument, 0, O_K},
                                         {"threshold", required_argument, 0, O_THR},
                                         {"factor", required_argument, 0, O_FACTOR},
                                         {"floor", required_argument, 0, O_FLOOR},
                                         {"value-field", required_argument, 0, O_VALUE},
                                         {"dur-field", required_argument, 0, O_DUR},
                                         {"host-field", required_argument, 0, O_HOSTF},
                                         {"top", required_argument, 0, O_TOP},
                                         {"causes", required_argument, 0, O_CAUSES},
                                         {"all", no_argument, 0, O_ALL},
                                         {"durations", no_argument, 0, O_DURS},
                                         {"stats", no_argument, 0, O_STATS},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, O_VERSION},
                                         {0, 0, 0, 0}};
    nl__tool_env_clear(); /* the reports go where -o says */
    nlf_opts_t o;
    nlf_opts_default(&o);
    const char *output = "-", *ref = NULL, *db = NULL;
    double since = NAN, until = NAN;
    int stats = 0, c, bad = 0, li = -1;
    size_t z;
    while ((c = getopt_long(argc, argv, "o:d:h", opts, &li)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'd': db = optarg; break;
        case O_SINCE: bad |= when(optarg, &since); break;
        case O_UNTIL: bad |= when(optarg, &until); break;
        case O_REF: ref = optarg; break;
        case O_IDLE: bad |= num(optarg, &o.idle); break;
        case O_MAXEV: bad |= count(optarg, &o.max_events); break;
        case O_FLOWEV: bad |= count(optarg, &o.max_flow_events); break;
        case O_HIST: bad |= count(optarg, &z) || z > 100000, o.history = (unsigned)z; break;
        case O_K: bad |= count(optarg, &z) || z > 1000, o.k = (unsigned)z; break;
        case O_THR: bad |= num(optarg, &o.threshold); break;
        case O_FACTOR: bad |= num(optarg, &o.factor); break;
        case O_FLOOR: bad |= num(optarg, &o.floor); break;
        case O_VALUE: o.value_field = optarg; break;
        case O_DUR: o.dur_field = optarg; break;
        case O_HOSTF: o.host_field = optarg; break;
        case O_TOP: bad |= count(optarg, &z) || z > 10000, o.top = (unsigned)z; break;
        case O_CAUSES: bad |= count(optarg, &z) || z > 1000, o.causes = (unsigned)z; break;
        case O_ALL: o.all = 1; break;
        case O_DURS: o.durations = 1; break;
        case O_STATS: stats = 1; break;
        case 'h': usage(stdout); return 0;
        case O_VERSION: puts("nl-flows (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-flows --help' for the options.\n", stderr); return 2;
        }
        if (bad) {
            fprintf(stderr, "nl-flows: bad value for --%s: %s\n", li >= 0 ? opts[li].name : "?",
                    optarg);
            return 2;
        }
    }
    if (db && optind < argc) {
        fprintf(stderr, "nl-flows: -d reads the archive; files too are not allowed\n");
        return 2;
    }
    int oerr = 0;
    nl_log_t *out = nl_open_ex(output, &oerr);
    if (!out) {
        fprintf(stderr, "nl-flows: cannot open output '%s': %s\n", output, nl_open_strerror(oerr));
        return 2;
    }
    nl_set_level(out, NL_LVL_TRACE);
    char err[256];
    nlf_t *f = nlf_new(&o, out, err, sizeof err);
    if (!f) {
        fprintf(stderr, "nl-flows: %s\n", err);
        nl_close(out);
        return 2;
    }
    int rc = 0;
    if (ref) { /* first what normal flows look like */
        nlf_begin_phase(f, NLF_REFERENCE);
        char *r1[1] = {(char *)ref};
        rc |= run_inputs(f, r1, 1);
        nlf_end_phase(f);
    }
    nlf_begin_phase(f, NLF_WATCH);
    char *dash[1] = {"-"};
    if (db) rc |= nlf_archive_read(f, db, since, until, stderr);
    else if (optind == argc) rc |= run_inputs(f, dash, 1);
    else rc |= run_inputs(f, argv + optind, argc - optind);
    nlf_end_phase(f);
    nl_flush(out);
    nlf_counts_t n;
    nlf_counts(f, &n);
    if (stats)
        fprintf(stderr,
                "nl-flows: lines=%llu events=%llu flows=%llu judged=%llu suspects=%llu "
                "orphans=%llu open=%llu skewed=%llu (max %.6gs) evicted=%llu unjudged=%llu "
                "bad=%llu noguid=%llu ambiguous=%llu shared.keys=%llu refs=%llu\n",
                (unsigned long long)n.lines, (unsigned long long)n.events,
                (unsigned long long)n.flows, (unsigned long long)n.judged,
                (unsigned long long)n.suspects, (unsigned long long)n.orphans,
                (unsigned long long)n.open_flows, (unsigned long long)n.skewed, n.skew_max,
                (unsigned long long)n.evicted, (unsigned long long)n.warm_left,
                (unsigned long long)n.bad, (unsigned long long)n.noguid,
                (unsigned long long)n.ambiguous, (unsigned long long)n.shared_keys,
                (unsigned long long)n.refs);
    if (n.out_errors)
        fprintf(stderr, "nl-flows: %llu report line(s) could not be written\n",
                (unsigned long long)n.out_errors);
    nlf_free(f);
    nl_close(out);
    return rc;
}
