/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_detect.c — the nl-detect program: options, inputs, live time, exit report. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nl_reader.h"
#include "nl_tool.h"
#include "nla.h"
#include "nld.h"
#include "nld_metrics.h"
#include "nld_seed_db.h"

_Static_assert((int)NLA_ANOMALY == (int)NLD_R_ANOMALY && (int)NLA_MISSING == (int)NLD_R_MISSING &&
                   (int)NLA_ALERT == (int)NLD_R_ALERT && (int)NLA_START == (int)NLD_R_START &&
                   (int)NLA_END == (int)NLD_R_END,
               "the alert layer and the detector name kinds and phases alike");

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *f)
{
    fputs(
        "Usage: nl-detect [OPTIONS] [FILE...]\n"
        "Read nlkit event lines (FILEs, or standard input if none or '-') and report\n"
        "anomalies, missing end events and subscription alerts as event lines.\n"
        "\n"
        "  -c, --config FILE     streams, missing rules, subscriptions (see nl-detect(1))\n"
        "  -o, --output URL      where reports go: a file, '-' (stdout, the default), or any\n"
        "                        nlkit destination (x-netlog://host, x-syslog://prog)\n"
        "  -e, --event GLOB      a stream on the command line: events to watch\n"
        "  -v, --value NAME      its value: a field, or rate, avgrate, busy, mean.dur\n"
        "  -k, --key F1,F2       fields that split it into one stream per key\n"
        "  -a, --algo LIST       msd-ss,msd-su,msd-hs,msd-hu,cdf-ss,cdf-su,cdf-hs,cdf-hu, all "
        "(those eight),\n"
        "                        cusum, relent\n"
        "                        (without it: combine=default, see --help-stream)\n"
        "      --history N       history size (300)       --min N     values before flagging (30)\n"
        "      --k K             MSD width in sd (2)      --p P       CDF tail, e.g. 5% (0.05)\n"
        "      --alpha A         EWMA weight (0.5)        --side S    both, below or above\n"
        "      --episode-min N   flags in a row that make an incident (10)\n"
        "      --admit N         shorter runs of flags still enter heuristic histories\n"
        "                        (episode-min - 1, at most 16)\n"
        "                        (the values in brackets are a stream's with --algo; without\n"
        "                        it, combine=default's: see --help-stream)\n"
        "      --each            also one nl.anomaly line per flagged value\n"
        "      --scores          also one nl.anomaly.score line per value: each algorithm's\n"
        "                        score in [0, 1] (how extreme it is against its history)\n"
        "      --lenient         accept damaged nlkit lines where possible\n"
        "      --netlogger       read lines as NetLogger's own reader does (logs written by\n"
        "                        NetLogger's tools: only \\\" is an escape there)\n"
        "      --live            also let time pass by the wall clock while input is idle,\n"
        "                        so a stall is reported (for live input, not for replays)\n"
        "      --db FILE         the archive (nl-load) that history.from=db and\n"
        "                        baseline.from=db read past values from (or set db=FILE)\n"
        "      --stats           print counters on standard error at exit\n"
        "      --metrics ADDR    serve Prometheus metrics at http://ADDR/metrics (HOST:PORT,\n"
        "                        [V6]:PORT, or PORT on loopback; see nl-detect(1), METRICS)\n"
        "      --metrics-keys F1,F2  summary fields that split an activity's series (host)\n"
        "      --metrics-buckets N   duration buckets per power of two: 1,2,4,8,16,32 (4)\n"
        "      --metrics-max-series N  the most series held (100000)\n"
        "      --metrics-hold    after the input ends, go on serving until SIGINT/SIGTERM\n"
        "  -h, --help            this text\n"
        "      --help-stream     every stream option (config file), its range and defaults\n"
        "      --version         version\n"
        "\n"
        "Time is the events' own ts, so replaying a file gives the same reports as live.\n"
        "Exit status: 0 done (bad input lines are reported and counted, not fatal),\n"
        "1 an input could not be read, 2 usage or configuration error.\n",
        f);
}

enum {
    O_HISTORY = 256,
    O_MIN,
    O_K,
    O_P,
    O_ALPHA,
    O_SIDE,
    O_EPMIN,
    O_ADMIT,
    O_EACH,
    O_SCORES,
    O_LENIENT,
    O_NETLOGGER,
    O_LIVE,
    O_STATS,
    O_DB,
    O_METRICS,
    O_MKEYS,
    O_MBUCKETS,
    O_MMAX,
    O_MHOLD,
    O_VERSION,
    O_HELP_STREAM
};

static void print_stats(const nld_counts_t *c)
{
    fprintf(
        stderr,
        "nl-detect: lines=%llu events=%llu bad=%llu values=%llu novalue=%llu nonfinite=%llu "
        "clock.outliers=%llu "
        "flags=%llu episodes=%llu short=%llu streams=%llu expired=%llu evicted=%llu missing=%llu "
        "late=%llu orphan.end=%llu restarted=%llu pend.evicted=%llu alerts=%llu "
        "cleared=%llu out.errors=%llu oom=%llu seeded=%llu seed.errors=%llu fatigued=%llu "
        "escalated=%llu unconfirmed=%llu held=%llu beats=%llu learning=%llu unmatched=%llu "
        "base.skipped=%llu\n",
        (unsigned long long)c->lines, (unsigned long long)c->events, (unsigned long long)c->bad,
        (unsigned long long)c->values, (unsigned long long)c->novalue,
        (unsigned long long)c->nonfinite, (unsigned long long)c->clock_outliers,
        (unsigned long long)c->flags, (unsigned long long)c->episodes,
        (unsigned long long)c->short_runs, (unsigned long long)c->streams,
        (unsigned long long)c->expired, (unsigned long long)c->evicted,
        (unsigned long long)c->missing, (unsigned long long)c->late,
        (unsigned long long)c->orphan_end, (unsigned long long)c->restarted,
        (unsigned long long)c->pend_evicted, (unsigned long long)c->alerts,
        (unsigned long long)c->cleared, (unsigned long long)c->out_errors,
        (unsigned long long)c->oom, (unsigned long long)c->seeded,
        (unsigned long long)c->seed_errors, (unsigned long long)c->fatigued,
        (unsigned long long)c->escalated, (unsigned long long)c->unconfirmed,
        (unsigned long long)c->held, (unsigned long long)c->beats,
        (unsigned long long)c->learning,
        (unsigned long long)c->unmatched, (unsigned long long)c->base_skipped);
}

/* Who hears of the detector's starts and ends: the alert layer, the metrics, or both. */
typedef struct reports {
    nla_t *alerts;
    nld_metrics_t *metrics;
} reports_t;

/* The detector's starts and ends, handed to the alert layer and the metrics. */
static void to_alerts(void *ctx, const nld_report_t *r)
{
    reports_t *rs = ctx;
    if (rs->metrics) nld_metrics_report(rs->metrics, r);
    if (!rs->alerts) return;
    nla_report_t ar = {.kind = r->kind,
                       .phase = r->phase,
                       .id = r->id,
                       .id_len = r->id_len,
                       .line = r->line,
                       .len = r->len,
                       .why = r->why,
                       .ts = r->ts,
                       .level = r->level};
    nla_report(rs->alerts, &ar);
}

/* The engine's counters and event time, for the metrics' health series and expiry. */
static void publish(nld_t *d, nld_metrics_t *m)
{
    if (!m) return;
    nld_counts_t c;
    nld_counts(d, &c);
    nld_metrics_health(m, &c, nld_now(d));
}

/* An alert the last run left open: the engine takes it up when its key shows up. */
static void restore_one(void *ctx, const char *id, size_t len, int64_t start)
{
    if (nld_restore(ctx, id, len, start))
        fprintf(stderr, "nl-detect: out of memory restoring open alerts\n");
}

static void print_alert_stats(const nla_counts_t *c)
{
    fprintf(stderr,
            "nl-detect: alerts: opened=%llu resumed=%llu resolved=%llu unrouted=%llu "
            "silenced=%llu notifications=%llu delivered=%llu failures=%llu given.up=%llu "
            "dropped=%llu pending=%llu saved=%llu state.errors=%llu\n",
            (unsigned long long)c->opened, (unsigned long long)c->resumed,
            (unsigned long long)c->resolved, (unsigned long long)c->unrouted,
            (unsigned long long)c->silenced, (unsigned long long)c->notifications,
            (unsigned long long)c->delivered, (unsigned long long)c->failures,
            (unsigned long long)c->given_up, (unsigned long long)c->dropped,
            (unsigned long long)c->pending, (unsigned long long)c->saved,
            (unsigned long long)c->state_errors);
}

/* What the input loop feeds: the engine, its alert layer and metrics (each optional). */
typedef struct feed {
    nld_t *d;
    nla_t *a;
    nld_metrics_t *m;
    int live;
} feed_t;

static int feed_line(void *ctx, const char *line, size_t len, const char *name, long lineno)
{
    feed_t *f = ctx;
    nld_line(f->d, line, len, name, lineno);
    if (f->a) nla_tick(f->a, nld_now(f->d), 0);
    publish(f->d, f->m);
    return 0;
}

static void feed_toolong(void *ctx, const char *name, long lineno)
{
    feed_t *f = ctx;
    nld_reject(f->d, name, lineno, NL_ETOOBIG, "line longer than NL_LINE_MAX, skipped");
    publish(f->d, f->m);
}

/* No line for a second: event time follows the wall clock when live, groups go out. */
static void feed_idle(void *ctx)
{
    feed_t *f = ctx;
    if (f->live) nld_advance(f->d, nl_now_usec());
    if (f->a) nla_tick(f->a, nld_now(f->d), 1);
    publish(f->d, f->m);
}

/* Feed one input to the engine; returns 0, or 1 if it could not be read. With an alert
 * layer the reader wakes at least every second so that groups go out on time. */
static int run_input(nld_t *d, nla_t *a, nld_metrics_t *m, const char *path, int live)
{
    feed_t f = {d, a, m, live};
    nl__lines_t how = {.prog = "nl-detect",
                       .timeout_ms = live || a || m ? 1000 : -1,
                       .stop = &stop_requested,
                       .on_line = feed_line,
                       .on_toolong = feed_toolong,
                       .on_idle = feed_idle,
                       .ctx = &f};
    return nl__reader_each(path, &how);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"config", required_argument, 0, 'c'},
                                         {"output", required_argument, 0, 'o'},
                                         {"event", required_argument, 0, 'e'},
                                         {"value", required_argument, 0, 'v'},
                                         {"key", required_argument, 0, 'k'},
                                         {"algo", required_argument, 0, 'a'},
                                         {"history", required_argument, 0, O_HISTORY},
                                         {"min", required_argument, 0, O_MIN},
                                         {"k", required_argument, 0, O_K},
                                         {"p", required_argument, 0, O_P},
                                         {"alpha", required_argument, 0, O_ALPHA},
                                         {"side", required_argument, 0, O_SIDE},
                                         {"episode-min", required_argument, 0, O_EPMIN},
                                         {"admit", required_argument, 0, O_ADMIT},
                                         {"each", no_argument, 0, O_EACH},
                                         {"scores", no_argument, 0, O_SCORES},
                                         {"lenient", no_argument, 0, O_LENIENT},
                                         {"netlogger", no_argument, 0, O_NETLOGGER},
                                         {"live", no_argument, 0, O_LIVE},
                                         {"stats", no_argument, 0, O_STATS},
                                         {"db", required_argument, 0, O_DB},
                                         {"metrics", required_argument, 0, O_METRICS},
                                         {"metrics-keys", required_argument, 0, O_MKEYS},
                                         {"metrics-buckets", required_argument, 0, O_MBUCKETS},
                                         {"metrics-max-series", required_argument, 0, O_MMAX},
                                         {"metrics-hold", no_argument, 0, O_MHOLD},
                                         {"help", no_argument, 0, 'h'},
                                         {"help-stream", no_argument, 0, O_HELP_STREAM},
                                         {"version", no_argument, 0, O_VERSION},
                                         {0, 0, 0, 0}};
    nl__tool_env_clear(); /* the reports go where -o and the receivers say */

    const char *config = NULL, *output = "-", *db = NULL, *maddr = NULL;
    nld_metrics_opts_t mo = {.max_series = 100000, .per_octave = 4, .keys = "host"};
    int mhold = 0;
    char *words[16];
    int scores = 0, nwords = 0, each = 0, live = 0, stats = 0, have_event = 0;
    unsigned parse = NL_PARSE_STRICT;
    static char wbuf[16][1100];
    int c;
    while ((c = getopt_long(argc, argv, "c:o:e:v:k:a:h", opts, NULL)) != -1) {
        const char *key = NULL;
        switch (c) {
        case 'c': config = optarg; break;
        case 'o': output = optarg; break;
        case 'e':
            key = "event";
            have_event = 1;
            break;
        case 'v': key = "value"; break;
        case 'k': key = "key"; break;
        case 'a': key = "algo"; break;
        case O_HISTORY: key = "history"; break;
        case O_MIN: key = "min"; break;
        case O_K: key = "k"; break;
        case O_P: key = "p"; break;
        case O_ALPHA: key = "alpha"; break;
        case O_SIDE: key = "side"; break;
        case O_EPMIN: key = "episode.min"; break;
        case O_ADMIT: key = "admit"; break;
        case O_EACH: each = 1; break;
        case O_SCORES: scores = 1; break;
        case O_LENIENT: parse = NL_PARSE_LENIENT; break;
        case O_NETLOGGER: parse = NL_PARSE_NETLOGGER; break;
        case O_LIVE: live = 1; break;
        case O_STATS: stats = 1; break;
        case O_DB: db = optarg; break;
        case O_METRICS: maddr = optarg; break;
        case O_MKEYS: mo.keys = optarg; break;
        case O_MBUCKETS: mo.per_octave = atoi(optarg); break;
        case O_MMAX: mo.max_series = strtoul(optarg, NULL, 10); break;
        case O_MHOLD: mhold = 1; break;
        case 'h': usage(stdout); return 0;
        case O_HELP_STREAM: return nld_cfg_help_stream(stdout) ? 1 : 0;
        case O_VERSION: puts("nl-detect (nlkit) " NLKIT_VERSION); return 0;
        default: fputs("Try 'nl-detect --help' for the options.\n", stderr); return 2;
        }
        if (key) {
            if (nwords == 16 || strlen(optarg) > 1024) {
                fprintf(stderr, "nl-detect: too many or too long stream options\n");
                return 2;
            }
            snprintf(wbuf[nwords], sizeof wbuf[nwords], "%s=%s", key, optarg);
            words[nwords] = wbuf[nwords];
            nwords++;
        }
    }
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    nla_cfg_t acfg;
    nla_cfg_init(&acfg);
    char err[512];
    if (config && (nld_cfg_load(&cfg, config, err, sizeof err) ||
                   nla_cfg_load(&acfg, config, err, sizeof err))) {
        fprintf(stderr, "nl-detect: %s\n", err);
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    for (int i = 0; i < cfg.nw; i++)
        if (cfg.w[i].notify &&
            nla_cfg_notify(&acfg, cfg.w[i].name, cfg.w[i].notify, err, sizeof err)) {
            fprintf(stderr, "nl-detect: subscription %s: %s\n", cfg.w[i].name, err);
            nla_cfg_free(&acfg);
            nld_cfg_free(&cfg);
            return 2;
        }
    if (nwords && !have_event) {
        fprintf(stderr, "nl-detect: stream options given without --event\n");
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    if (nwords && nld_cfg_stream(&cfg, "cli", words, nwords, err, sizeof err)) {
        fprintf(stderr, "nl-detect: %s\n", err);
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    if (each) cfg.each = 1;
    if (scores) cfg.scores = 1;
    if (!cfg.ns && !cfg.nm && !cfg.nw) {
        if (config) /* a config with only receivers and routes: say what it lacks */
            fprintf(stderr,
                    "nl-detect: %s: nothing to watch: it has no stream, missing or when "
                    "directive (receivers and routes alone alert on nothing); add one, or give "
                    "--event GLOB\n",
                    config);
        else
            fprintf(stderr, "nl-detect: nothing to watch: give --config FILE or --event GLOB "
                            "(see --help)\n");
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    int seeds = 0;
    for (int i = 0; i < cfg.ns; i++) seeds += cfg.s[i].seed;
    for (int i = 0; i < cfg.nw; i++) seeds += cfg.w[i].seed;
    if (!db) db = cfg.db;
    if (seeds && !db) {
        fprintf(stderr, "nl-detect: history.from=db or baseline.from=db needs the archive: "
                        "--db FILE or 'set db=FILE'\n");
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    nld_seed_db_t *seed = NULL;
    if (seeds && !(seed = nld_seed_db_open(&cfg, db, err, sizeof err))) {
        fprintf(stderr, "nl-detect: %s\n", err);
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    int oerr = 0;
    nl_log_t *out = nl_open_ex(output, &oerr);
    if (!out) {
        fprintf(stderr, "nl-detect: cannot open output '%s': %s\n", output, nl_open_strerror(oerr));
        nld_seed_db_close(seed);
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    nl_set_level(out, NL_LVL_TRACE);
    signal(SIGPIPE, SIG_IGN); /* a receiver that goes away is an error to report, not a kill */
    nla_t *alerts = NULL;
    if (nla_cfg_active(&acfg) && !(alerts = nla_new(&acfg, out, stderr, err, sizeof err))) {
        fprintf(stderr, "nl-detect: %s\n", err);
        nl_close(out);
        nld_seed_db_close(seed);
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    int ok = 1; /* every selector's keys make distinct label names (nld_metrics_keys_ok) */
    for (int i = 0; maddr && ok && i < cfg.ns + cfg.nw; i++) {
        const nld_sel_t *sel = i < cfg.ns ? &cfg.s[i].sel : &cfg.w[i - cfg.ns].sel;
        char why[300];
        if ((ok = nld_metrics_keys_ok(sel->keys, sel->nkeys, why, sizeof why)) == 0)
            snprintf(err, sizeof err, "--metrics: %s %s: %s", i < cfg.ns ? "stream" : "when",
                     i < cfg.ns ? cfg.s[i].name : cfg.w[i - cfg.ns].name, why);
    }
    mo.expire = cfg.expire > 0 ? cfg.expire : 86400; /* idle series leave /metrics after a day */
    nld_metrics_t *metrics = NULL;
    nld_metrics_srv_t *srv = NULL;
    reports_t rs = {.alerts = alerts};
    ok = ok && (!maddr || ((metrics = rs.metrics = nld_metrics_new(&mo, err, sizeof err)) &&
                           (srv = nld_metrics_serve(metrics, maddr, err, sizeof err))));
    if (srv)
        fprintf(stderr, "nl-detect: metrics at http://%s/metrics\n", nld_metrics_srv_addr(srv));
    nld_opts_t o = {.parse = parse,
                    .seed = seed ? nld_seed_db : NULL,
                    .seed_ctx = seed,
                    .report = alerts || metrics ? to_alerts : NULL,
                    .report_ctx = &rs,
                    .event = metrics ? nld_metrics_event : NULL,
                    .value = metrics ? nld_metrics_value : NULL,
                    .watch_ctx = metrics};
    nld_t *d = ok ? nld_new(&cfg, out, &o, err, sizeof err) : NULL;
    if (!d) { /* what was set up, undone */
        fprintf(stderr, "nl-detect: %s\n", err);
        nld_metrics_srv_stop(srv);
        nld_metrics_free(metrics);
        nla_free(alerts);
        nl_close(out);
        nld_seed_db_close(seed);
        nla_cfg_free(&acfg);
        nld_cfg_free(&cfg);
        return 2;
    }
    if (alerts) nla_open_each(alerts, restore_one, d);
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int rc = 0;
    if (optind == argc) rc |= run_input(d, alerts, metrics, "-", live);
    for (int i = optind; i < argc && !stop_requested; i++)
        rc |= run_input(d, alerts, metrics, argv[i], live);
    nld_finish(d);
    publish(d, metrics);
    while (srv && mhold && !stop_requested) { /* the signal ends the sleep early */
        struct timespec t = {0, 200000000};
        nanosleep(&t, NULL);
    }
    nld_metrics_srv_stop(srv);
    nld_counts_t n;
    nld_counts(d, &n);
    if (stats) print_stats(&n);
    if (alerts) {
        nla_finish(alerts);
        nla_counts_t ac;
        nla_counts(alerts, &ac);
        if (stats || ac.given_up || ac.dropped || ac.pending || ac.state_errors)
            print_alert_stats(&ac);
        nla_free(alerts);
    }
    nld_free(d);
    nld_metrics_free(metrics);
    nl_stats_t os;
    nl_stats(out, &os);
    nl_close(out);
    if (os.dropped || n.out_errors)
        fprintf(stderr, "nl-detect: %llu report line(s) could not be written to '%s'\n",
                (unsigned long long)(os.dropped + n.out_errors), output);
    nld_seed_db_close(seed);
    nla_cfg_free(&acfg);
    nld_cfg_free(&cfg);
    return rc;
}
