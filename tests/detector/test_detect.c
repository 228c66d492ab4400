/* SPDX-License-Identifier: BSD-3-Clause */
/* test_detect.c — the detector engine on hand-made event streams: missing ends (fixed and
 * learned timeouts, late arrivals), subscriptions that start and clear on event time,
 * episodes grouping consecutive flags, bad lines counted and reported with their line
 * numbers while processing goes on, configuration errors with line and column, bounded
 * streams. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_num.h"
#include "nl_test.h"
#include "t_kinds.h"
#include "nld.h"
#include "nld_combine.h"
#include "nld_opts.h"
#include "nld_tail.h"

typedef struct run {
    const char *dir, *out_path;
    nld_cfg_t cfg;
    nl_log_t *out;
    nld_t *d;
    FILE *diag;
    t_readback_t rb;
} run_t;

static nld_seed_fn seed_fn; /* what the next run_start gives the engine as past values */
static void *seed_ctx;

/* What the report hook heard (test_reports_and_restore). */
typedef struct heard {
    int kind, phase;
    char id[256];
    size_t id_len;
    int64_t ts;
    char why[16];
    char event[32];
} heard_t;
static heard_t heard[64];
static int nheard;

static void on_report(void *ctx, const nld_report_t *rep)
{
    (void)ctx;
    assert_true(nheard < 64);
    heard_t *h = &heard[nheard++];
    h->kind = rep->kind;
    h->phase = rep->phase;
    assert_true(rep->id_len <= sizeof h->id);
    memcpy(h->id, rep->id, rep->id_len);
    h->id_len = rep->id_len;
    h->ts = rep->ts;
    snprintf(h->why, sizeof h->why, "%s", rep->why ? rep->why : "");
    const char *e = strstr(rep->line, " event=");
    assert_non_null(e);
    snprintf(h->event, sizeof h->event, "%.*s", (int)strcspn(e + 7, " "), e + 7);
    assert_true(rep->len > 0 && rep->line[rep->len - 1] == '\n');
}
static int hook_on; /* the next run_start installs on_report */

static void run_start(run_t *r, const char *conf)
{
    memset(r, 0, sizeof *r);
    r->dir = t_tmpdir();
    r->out_path = strdup(t_path(r->dir, "out.log"));
    nld_cfg_init(&r->cfg);
    char err[256] = "";
    int rc = nld_cfg_parse(&r->cfg, conf, "test.conf", err, sizeof err);
    if (rc) print_message("config: %s\n", err);
    assert_int_equal(rc, 0);
    char url[600];
    snprintf(url, sizeof url, "file://%s?buffer=0", r->out_path);
    assert_non_null(r->out = nl_open(url));
    nl_set_level(r->out, NL_LVL_TRACE); /* as nl-detect does: score lines are Debug */
    assert_non_null(r->diag = tmpfile());
    nld_opts_t o = {.diag = r->diag,
                    .diag_max = 3,
                    .seed = seed_fn,
                    .seed_ctx = seed_ctx,
                    .report = hook_on ? on_report : NULL};
    r->d = nld_new(&r->cfg, r->out, &o, err, sizeof err);
    assert_non_null(r->d);
}

static int feed(run_t *r, const char *line)
{
    static long n;
    return nld_line(r->d, line, strlen(line), "in.log", ++n);
}

/* Finish, close, read the output back (strictly parsed). */
static void run_end(run_t *r, nld_counts_t *c)
{
    nld_finish(r->d);
    nld_counts(r->d, c);
    nld_free(r->d);
    nl_close(r->out);
    t_rb_load(&r->rb, r->out_path);
}

static void run_free(run_t *r)
{
    t_rb_free(&r->rb);
    fclose(r->diag);
    nld_cfg_free(&r->cfg);
    t_rmtree(r->dir);
    free((void *)r->out_path);
}

/* Lines of the output whose event is `ev`. */
static int count_ev(run_t *r, const char *ev)
{
    int n = 0;
    for (size_t i = 0; i < r->rb.n; i++) n += !strcmp(t_field(t_rb_rec(&r->rb, i), "event"), ev);
    return n;
}

static nl_rec_t *nth_ev(run_t *r, const char *ev, int k)
{
    for (size_t i = 0; i < r->rb.n; i++) {
        nl_rec_t *rec = t_rb_rec(&r->rb, i);
        if (!strcmp(t_field(rec, "event"), ev) && k-- == 0) return rec;
    }
    fail_msg("no %s line", ev);
    return NULL;
}

static char *line_at(int sec, const char *rest)
{
    static char buf[8][512];
    static int i;
    char *b = buf[i++ % 8];
    snprintf(b, sizeof buf[0], "ts=2026-11-22T12:%02d:%02d.000000Z %s", sec / 60, sec % 60, rest);
    return b;
}

static void test_missing_fixed(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "missing xfer timeout=10\n");
    feed(&r, line_at(0, "event=xfer.start level=Info guid=g1 stream.id=1"));
    feed(&r, line_at(1, "event=xfer.start level=Info guid=g1 stream.id=2"));
    feed(&r, line_at(5, "event=xfer.end level=Info guid=g1 stream.id=2"));
    feed(&r, line_at(9, "event=other level=Info"));
    nld_counts_t c;
    nld_counts(r.d, &c);
    assert_int_equal(c.missing, 0); /* 9 s: not yet */
    feed(&r, line_at(12, "event=other level=Info"));
    feed(&r, line_at(15, "event=xfer.end level=Info guid=g1 stream.id=1")); /* late */
    feed(&r, line_at(16, "event=xfer.end level=Info guid=g9"));             /* orphan */
    run_end(&r, &c);
    assert_int_equal(c.missing, 1);
    assert_int_equal(c.late, 1);
    assert_int_equal(c.orphan_end, 1);
    nl_rec_t *m = nth_ev(&r, "nl.missing", 0);
    assert_string_equal(t_field(m, "ts"), "2026-11-22T12:00:10.000000Z"); /* start + timeout */
    assert_string_equal(t_field(m, "guid"), "g1");
    assert_string_equal(t_field(m, "stream.id"), "1");
    assert_string_equal(t_field(m, "activity"), "xfer");
    assert_true(t_num(m, "timeout") == 10);
    nl_rec_t *l = nth_ev(&r, "nl.missing.late", 0);
    assert_true(t_num(l, "dur") == 15 && t_num(l, "late") == 5);
    run_free(&r);
}

/* One start stamped 50 min ahead (a host with a wrong clock) neither reports every pending
 * start at once nor stops the clock for the rest: event time does not follow it, the
 * others are reported on time, and it is counted. A gap that NLD_CLOCK_CONFIRM events in a
 * row agree on is believed. */
/* A host with a clock a year ahead sends a burst (here 2, then NLD_CLOCK_CONFIRM - 1 lines
 * in a row) among 100 pending starts: no start is reported missing, no end is an orphan,
 * and the burst's lines are counted as outliers. (Two lines in a row once made event time
 * jump a year: 100 missing, 100 orphan ends.) */
static void test_missing_clock_burst(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "missing xfer timeout=600\n");
    char rest[128];
    for (int i = 0; i < 100; i++) {
        snprintf(rest, sizeof rest, "event=xfer.start level=Info guid=g%d", i);
        feed(&r, line_at(i, rest));
    }
    const int bursts[] = {2, NLD_CLOCK_CONFIRM - 1};
    for (int b = 0; b < 2; b++) {
        for (int k = 0; k < bursts[b]; k++) { /* a year ahead */
            snprintf(rest, sizeof rest,
                     "ts=2027-11-22T12:%02d:%02d.000000Z event=tick level=Info host=wrong", k / 60,
                     k % 60);
            feed(&r, rest);
        }
        for (int i = 0; i < 50; i++) {
            snprintf(rest, sizeof rest, "event=xfer.end level=Info guid=g%d", b * 50 + i);
            feed(&r, line_at(100 + b * 50 + i, rest));
        }
    }
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(c.missing, 0);
    assert_int_equal(c.orphan_end, 0);
    assert_int_equal(c.clock_outliers, 2 + NLD_CLOCK_CONFIRM - 1);
    run_free(&r);
}

static void test_missing_clock_outlier(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "missing xfer timeout=10\n");
    feed(&r, line_at(0, "event=xfer.start level=Info guid=a"));
    feed(&r, line_at(1, "event=xfer.start level=Info guid=b"));
    feed(&r, line_at(3000, "event=xfer.start level=Info guid=z")); /* 50 min ahead, alone */
    feed(&r, line_at(2, "event=tick level=Info"));
    nld_counts_t c;
    nld_counts(r.d, &c);
    assert_int_equal(c.missing, 0); /* not at 3000 s: a and b are only 2 s old */
    feed(&r, line_at(5, "event=xfer.end level=Info guid=b")); /* in time: not missing */
    feed(&r, line_at(50, "event=xfer.start level=Info guid=c"));
    for (int t = 51; t < 100; t += 5) feed(&r, line_at(t, "event=tick level=Info"));
    nld_counts(r.d, &c);
    assert_int_equal(c.missing, 2); /* a at 10 s, c at 60 s: the clock went on */
    assert_int_equal(c.clock_outliers, 1);
    /* a real gap: NLD_CLOCK_CONFIRM events in a row 40 min on; z (start 3000 s) is due at
     * 3010 s */
    for (int i = 0; i < NLD_CLOCK_CONFIRM; i++)
        feed(&r, line_at(2500 + 10 * i, "event=tick level=Info"));
    run_end(&r, &c);
    assert_int_equal(c.missing, 3);
    assert_int_equal(c.clock_outliers, 1);
    assert_string_equal(t_field(nth_ev(&r, "nl.missing", 0), "guid"), "a");
    assert_string_equal(t_field(nth_ev(&r, "nl.missing", 1), "guid"), "c");
    assert_string_equal(t_field(nth_ev(&r, "nl.missing", 1), "ts"), "2026-11-22T12:01:00.000000Z");
    assert_string_equal(t_field(nth_ev(&r, "nl.missing", 2), "guid"), "z");
    run_free(&r);
}

/* Learned: 20 runs of 2 s, so the timeout is 3 x 2 = 6 s; a run left open is reported 6 s
 * after its start, and an activity no rule watches is ignored. */
static void test_missing_learned(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "missing job.* quantile=0.99 factor=3 min=20\n");
    int t = 0;
    char ev[128];
    for (int i = 0; i < 20; i++, t += 3) {
        snprintf(ev, sizeof ev, "event=job.run.start level=Info guid=r%d", i);
        feed(&r, line_at(t, ev));
        snprintf(ev, sizeof ev, "event=job.run.end level=Info guid=r%d", i);
        feed(&r, line_at(t + 2, ev));
    }
    feed(&r, line_at(t, "event=job.run.start level=Info guid=stuck"));
    feed(&r, line_at(t, "event=web.get.start level=Info guid=ignored"));
    feed(&r, line_at(t + 5, "event=tick level=Info"));
    nld_counts_t c;
    nld_counts(r.d, &c);
    assert_int_equal(c.missing, 0);
    feed(&r, line_at(t + 7, "event=tick level=Info"));
    run_end(&r, &c);
    assert_int_equal(c.missing, 1);
    nl_rec_t *m = nth_ev(&r, "nl.missing", 0);
    assert_string_equal(t_field(m, "guid"), "stuck");
    assert_true(fabs(t_num(m, "timeout") - 6.0) < 1e-9);
    assert_true(t_num(m, "learned") == 1);
    run_free(&r);
}

/* "below 50% of 100 for 30s": values at 1 s steps; the condition starts at t=10 and an
 * alert fires at t=40 (event time, however fast the lines come), once; it clears at t=50. */
static void test_subscription(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "when disk.write rate below 50% of 100 for 30s name=slow key=host\n");
    char ev[160];
    for (int t = 0; t < 60; t++) {
        double rate = t >= 10 && t < 50 ? 40 : 100;
        snprintf(ev, sizeof ev,
                 "event=disk.write.summary level=Info host=h1 n=1 v.sum=%g dur.sum=1 int=1", rate);
        feed(&r, line_at(t, ev));
        if (t == 39) {
            nld_counts_t c;
            nld_counts(r.d, &c);
            assert_int_equal(c.alerts, 0);
        }
    }
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(c.alerts, 1);
    assert_int_equal(c.cleared, 1);
    nl_rec_t *s = nth_ev(&r, "nl.alert.start", 0);
    assert_string_equal(t_field(s, "ts"), "2026-11-22T12:00:40.000000Z");
    assert_string_equal(t_field(s, "since"), "2026-11-22T12:00:10.000000Z");
    assert_string_equal(t_field(s, "name"), "slow");
    assert_string_equal(t_field(s, "key.host"), "h1");
    assert_true(t_num(s, "threshold") == 50 && t_num(s, "value") == 40);
    nl_rec_t *e = nth_ev(&r, "nl.alert.end", 0);
    assert_string_equal(t_field(e, "ts"), "2026-11-22T12:00:50.000000Z");
    assert_true(t_num(e, "held") == 40);
    run_free(&r);
}

/* Baseline subscription; a short dip (20 s < 30 s) does not fire. A notify destination is
 * the alert layer's (tests/alerts): the engine writes every alert to its output. */
static void test_subscription_baseline(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "when disk.write avgrate below 50% of baseline for 30s notify file:///nowhere "
                  "baseline.n=20 baseline.min=20\n");
    char ev[160];
    for (int t = 0; t < 200; t++) {
        double v = (t >= 50 && t < 70) || (t >= 100 && t < 150) ? 20 : 100 + (t % 2);
        snprintf(ev, sizeof ev, "event=disk.write.summary level=Info n=1 v.sum=%g dur.sum=1 int=1",
                 v);
        feed(&r, line_at(t, ev));
    }
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(c.alerts, 1);
    assert_int_equal(count_ev(&r, "nl.alert.start"), 1);
    assert_int_equal(count_ev(&r, "nl.alert.end"), 1);
    nl_rec_t *s = nth_ev(&r, "nl.alert.start", 0);
    assert_string_equal(t_field(s, "ts"), "2026-11-22T12:02:10.000000Z");
    assert_true(t_num(s, "reference") == 100.5); /* mean of the first 20 values */
    run_free(&r);
}

/* A subscription's baseline leaves out the values while a stream's anomaly episode of the
 * same key is open: a fault learnt while the baseline fills does not raise the reference
 * the next fault is held to. */
static void test_subscription_baseline_skips_episodes(void **state)
{
    (void)state;
    run_t r;
    run_start(
        &r, "stream s event=disk.write value=avgrate algo=msd-hu history=20 min=20 episode.min=1\n"
            "when disk.write avgrate below 50% of baseline for 5s baseline.n=40 "
            "baseline.min=40\n");
    char ev[160];
    for (int t = 0; t < 100; t++) { /* a fault at 30-39 s, a dip at 70-89 s */
        double v = t >= 30 && t < 40 ? 300 : t >= 70 && t < 90 ? 10 : 100 + (t % 2);
        snprintf(ev, sizeof ev, "event=disk.write.summary level=Info n=1 v.sum=%g dur.sum=1 int=1",
                 v);
        feed(&r, line_at(t, ev));
    }
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(count_ev(&r, "nl.anomaly.start"), 2);
    assert_int_equal(c.base_skipped, 10); /* the fault's values, while its episode was open */
    assert_int_equal(c.alerts, 1);
    nl_rec_t *s = nth_ev(&r, "nl.alert.start", 0);
    assert_true(t_num(s, "reference") == 100.5); /* the clean values only (it was 150.375) */
    run_free(&r);
}

/* One disturbance of five values is one episode (start + end), not five lines; with
 * each=1 every flag is also written. */
static void test_episodes(void **state)
{
    (void)state;
    for (int each = 0; each < 2; each++) {
        run_t r;
        run_start(&r,
                  each ? "stream s event=m value=x algo=msd-hu history=20 min=20 "
                         "episode.min=1\nset each=1\n"
                       : "stream s event=m value=x algo=msd-hu history=20 min=20 episode.min=1\n");
        char ev[96];
        for (int t = 0; t < 40; t++) {
            double x = t >= 30 && t < 35 ? 50 : 10 + (t % 2);
            snprintf(ev, sizeof ev, "event=m level=Info x=%g", x);
            feed(&r, line_at(t, ev));
        }
        nld_counts_t c;
        run_end(&r, &c);
        assert_int_equal(c.flags, 5);
        assert_int_equal(c.episodes, 1);
        assert_int_equal(count_ev(&r, "nl.anomaly.start"), 1);
        assert_int_equal(count_ev(&r, "nl.anomaly.end"), 1);
        assert_int_equal(count_ev(&r, "nl.anomaly"), each ? 5 : 0);
        nl_rec_t *e = nth_ev(&r, "nl.anomaly.end", 0);
        assert_true(t_num(e, "len") == 5 && t_num(e, "dur") == 4);
        assert_string_equal(t_field(e, "ts"), "2026-11-22T12:00:35.000000Z");
        assert_string_equal(t_field(e, "dir"), "high");
        run_free(&r);
    }
}

static void test_bad_lines(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "stream s event=m value=x algo=msd-hu history=10 min=10 episode.min=1\n");
    static long n = 0;
    const char *lines[] = {
        "ts=2026-11-22T12:00:00Z event=m level=Info x=1",
        "garbage without equals",
        "ts=2026-11-22T12:00:01Z event=m level=Info x=\"unterminated",
        "\x01\x02\xff binary",
        "ts=2026-11-22T12:00:02Z event=m level=Info x=notanumber",
        "ts=2026-11-22T12:00:03Z event=m level=Info",
        "ts=2026-13-22T12:00:04Z event=m level=Info x=3",
        "",
        "# a comment",
        "ts=2026-11-22T12:00:05Z event=m level=Info x=2",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        nld_line(r.d, lines[i], strlen(lines[i]), "in.log", ++n);
    nld_reject(r.d, "in.log", ++n, NL_ETOOBIG, "line longer than NL_LINE_MAX, skipped");
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(c.lines, 11);
    assert_int_equal(c.bad, 5);
    assert_int_equal(c.events, 4);
    assert_int_equal(c.values, 2);  /* processing went on after the bad lines */
    assert_int_equal(c.novalue, 2); /* not a number, absent */
    rewind(r.diag);
    char text[2048];
    size_t got = fread(text, 1, sizeof text - 1, r.diag);
    text[got] = 0;
    assert_non_null(strstr(text, "in.log:2:"));
    assert_non_null(strstr(text, "in.log:3:"));
    assert_non_null(strstr(text, "in.log:4:"));
    assert_null(strstr(text, "in.log:7:")); /* beyond diag_max: counted, not shown */
    assert_non_null(strstr(text, "further bad lines are counted"));
    assert_non_null(strstr(text, "5 bad input line(s) skipped"));
    run_free(&r);
}

static void test_config_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *where, *what;
    } cases[] = {
        {"stream s value=x\n", "c:1:8:", "needs event=GLOB"},
        {"\nstream s event=m algo=msd-hu,foo\n", "c:2:", "unknown algorithm"},
        {"stream s event=m k=-1\n", "c:1:8:", "k must be"},
        {"stream s event=m history=10 min=20\n", "c:1:8:", "min must be"},
        {"missing x timeout=soon\n", "c:1:11:", "bad value for timeout"},
        {"when a b sideways 3\n", "c:1:10:", "expected 'below' or 'above'"},
        {"when a b below 50% baseline\n", "c:1:20:", "expected 'of'"},
        {"when a b below 5 for ever\n", "c:1:22:", "bad duration"},
        {"frobnicate\n", "c:1:1:", "unknown directive"},
        {"set each=2\n", "c:1:5:", "bad value for each"},
        {"stream s event=m history.from=file\n", "c:1:18:", "bad value for history.from"},
        {"stream s event=m history.since=0\n", "c:1:18:", "bad value for history.since"},
        {"set max-streams=-4\n", "c:1:5:", "bad value for max-streams"}, /* fuzz_detect_cfg */
        {"set max-pending=1e9\n", "c:1:5:", "bad value for max-pending"},
        {"when a b below 5 baseline.from=db\n", "c:1:18:", "bad value for baseline.from"},
        {"set db=\n", "c:1:5:", "bad value for db"},
        {"stream s event=m threshold=1\n", "c:1:8:", "threshold must lie in [0, 1)"},
        {"stream s event=m threshold=x\n", "c:1:18:", "bad value for threshold"},
        {"stream s event=m relent.w=2\n", "c:1:8:", "relent.w must be 4..256"},
        {"stream s event=m relent.bins=64\n", "c:1:8:", "relent.bins 2..32"},
        {"stream s event=m cusum.h=0\n", "c:1:8:", "cusum.h in (0, 1e6)"},
        {"stream s event=m relearn=-1\n", "c:1:18:", "bad value for relearn"},
        {"stream s event=m algo=cusum,relentx\n", "c:1:", "unknown algorithm"},
        {"stream s event=m season=daily\n", "c:1:18:", "bad value for season"},
        {"stream s event=m season=1d season.slots=1\n", "c:1:8:", "season.slots 2..1440"},
        {"stream s event=m season=1d season.alpha=0\n", "c:1:8:", "season.alpha in (0, 1]"},
        {"stream s event=m algo=msd-hu,cusum combine=vote weights=msd-hu:0,cusum:0\n",
         "c:1:", "could never report"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_cfg_t c;
        nld_cfg_init(&c);
        char err[256] = "";
        assert_int_equal(nld_cfg_parse(&c, cases[i].text, "c", err, sizeof err), NL_EINVAL);
        if (!strstr(err, cases[i].where) || !strstr(err, cases[i].what))
            fail_msg("case %zu: got '%s'", i, err);
        nld_cfg_free(&c);
    }
    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[256];
    assert_int_equal(nld_cfg_load(&c, "/nonexistent/x.conf", err, sizeof err), NL_EIO);
    assert_non_null(strstr(err, "/nonexistent/x.conf"));
    assert_true(nl__parse_dur("30m") == 1800 && nl__parse_dur("250ms") == 0.25);
    assert_true(nl__parse_dur("2h") == 7200 && nl__parse_dur("5") == 5);
    assert_true(nl__parse_dur("5 minutes") < 0 && nl__parse_dur("-1s") < 0);
    assert_true(nl__parse_dur("2w") == 14 * 86400 && nl__parse_dur("d") < 0 &&
                nl__parse_dur("1.5.2h") < 0);
    nld_cfg_free(&c);
}

/* episode.min=3: runs of one and two flags are counted, not written; a run of four is
 * written once it reaches three, with the time of its first flag. */
/* A value that is not finite never reaches a statistic: one inf used to blind msd-hu (the
 * default) for good, and inf then -inf filled the oom counter; 1e300 is finite but its
 * square is not. Counted as nonfinite; the
 * spike after them is flagged as if they had never come. */
static void test_nonfinite_values_refused(void **state)
{
    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        run_t r;
        run_start(&r, pass
                          ? "stream s event=m value=x algo=msd-hu history=20 min=20 episode.min=1\n"
                          : "stream s event=m value=x history=20 min=20 episode.min=1 "
                            "algo=all\n");
        char ev[96];
        /* 1e300 and -1e200 are finite, but their squares overflow a variance */
        static const char *const junk[] = {"inf",    "1e400", "-inf",  "nan",
                                           "-1e999", "INF",   "1e300", "-1e200"};
        int t = 0;
        for (; t < 30; t++) {
            snprintf(ev, sizeof ev, "event=m level=Info x=%g", 10.0 + (t % 2));
            feed(&r, line_at(t, ev));
        }
        for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++, t++) {
            snprintf(ev, sizeof ev, "event=m level=Info x=%s", junk[j]);
            feed(&r, line_at(t, ev));
        }
        for (int k = 0; k < 10; k++, t++) {
            snprintf(ev, sizeof ev, "event=m level=Info x=%g", k == 5 ? 50.0 : 10.0 + (t % 2));
            feed(&r, line_at(t, ev));
        }
        nld_counts_t c;
        run_end(&r, &c);
        assert_int_equal(c.nonfinite, 8);
        assert_int_equal(c.values, 40);
        assert_int_equal(c.oom, 0);
        assert_true(c.flags >= 1); /* the spike is seen */
        assert_true(count_ev(&r, "nl.anomaly.start") >= 1);
        run_free(&r);
    }
}

static void test_episode_min(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "stream s event=m value=x algo=msd-hu history=20 min=20 episode.min=3\n");
    char ev[96];
    for (int t = 0; t < 60; t++) {
        int spike = t == 25 || t == 30 || t == 31 || (t >= 40 && t < 44);
        snprintf(ev, sizeof ev, "event=m level=Info x=%g", spike ? 50.0 : 10 + (t % 2));
        feed(&r, line_at(t, ev));
    }
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(c.flags, 7);
    assert_int_equal(c.short_runs, 2);
    assert_int_equal(c.episodes, 1);
    assert_int_equal(count_ev(&r, "nl.anomaly.start"), 1);
    nl_rec_t *s = nth_ev(&r, "nl.anomaly.start", 0);
    assert_string_equal(t_field(s, "ts"), "2026-11-22T12:00:42.000000Z");
    assert_string_equal(t_field(s, "start.ts"), "2026-11-22T12:00:40.000000Z");
    assert_true(t_num(nth_ev(&r, "nl.anomaly.end", 0), "len") == 4);
    run_free(&r);
}

/* max-streams bounds memory: the least recently used stream goes, counted; idle streams
 * expire on event time. */
static void test_stream_bounds(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "stream s event=m value=x algo=msd-hu key=host episode.min=1\nset max-streams=3 "
                  "expire=100s\n");
    char ev[96];
    for (int h = 0; h < 5; h++) {
        snprintf(ev, sizeof ev, "event=m level=Info host=h%d x=1", h);
        feed(&r, line_at(h, ev));
    }
    feed(&r, line_at(200, "event=other level=Info"));
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(c.streams, 5);
    assert_int_equal(c.evicted, 2);
    assert_int_equal(c.expired, 3);
    run_free(&r);
}

/* A stand-in archive: 100 past values 98..102 for whatever is asked, and what was asked. */
typedef struct fake_seed {
    int calls;
    uint32_t limit[4];
    int64_t since[4], until[4];
    char host[4][16];
} fake_seed_t;

static int fake_seed(void *ctx, const nld_sel_t *sel, const nl_rec_t *r, uint32_t limit,
                     int64_t since, int64_t until, void (*add)(void *, double, int64_t), void *actx)
{
    fake_seed_t *f = ctx;
    (void)sel;
    assert_true(f->calls < 4);
    f->limit[f->calls] = limit;
    f->since[f->calls] = since;
    f->until[f->calls] = until;
    snprintf(f->host[f->calls], sizeof f->host[0], "%s", t_field((nl_rec_t *)r, "host"));
    f->calls++;
    for (int i = 0; i < 100; i++) add(actx, 98 + i % 5, until - (100 - i) * 60000000LL);
    return 0;
}

/* A stand-in archive of four days of values every 5 minutes around 20, with a spike to 80
 * at the time of day of the first live line (a nightly job's). */
static int fake_days(void *ctx, const nld_sel_t *sel, const nl_rec_t *r, uint32_t limit,
                     int64_t since, int64_t until, void (*add)(void *, double, int64_t), void *actx)
{
    (void)ctx, (void)sel, (void)r, (void)since;
    const int64_t step = 300000000LL, n = 4 * 288;
    assert_true(limit >= n);
    for (int64_t i = 0; i < n; i++) {
        int64_t t = until - (n - i) * step;
        add(actx, (t - until) % 86400000000LL == 0 ? 80 : 20 + 0.1 * (double)(i % 3), t);
    }
    return 0;
}

/* Past values from the archive come with their times: recur=, which needs the days
 * before, scores the first live spike at the spikes' usual time half of what the same
 * stream without it does (past values without times left recur= nothing to go by). */
static void test_history_times(void **state)
{
    (void)state;
    seed_fn = fake_days;
    seed_ctx = NULL;
    run_t r;
    nld_counts_t c;
    run_start(&r, "set scores=1\n"
                  "stream a event=x value=v algo=cdf-hu history=2000 calib=1000 recur=3d "
                  "history.from=db\n"
                  "stream b event=x value=v algo=cdf-hu history=2000 calib=1000 "
                  "history.from=db\n");
    feed(&r, line_at(0, "event=x level=Info v=80"));
    run_end(&r, &c);
    seed_fn = NULL;
    assert_int_equal(c.seeded, 2 * 4 * 288);
    double s[2] = {-1, -1};
    for (int k = 0; k < count_ev(&r, "nl.anomaly.score"); k++) {
        nl_rec_t *sl = nth_ev(&r, "nl.anomaly.score", k);
        const char *v = t_field(sl, "score.cdf-hu");
        if (v) s[strcmp(t_field(sl, "stream"), "a") != 0] = nld_surprise_of(atof(v));
    }
    print_message("the live spike's surprise: %.3f with recur=3d, %.3f without\n", s[0], s[1]);
    assert_true(s[1] > 1);
    assert_true(fabs(s[0] - 0.5 * s[1]) < 1e-6 * s[1]);
    run_free(&r);
}

/* The defaults chosen by bench-eval: fewer than 10 flags in a row are counted as a short
 * run, not reported; 10 make an episode. */
static void test_default_episode_min(void **state)
{
    (void)state;
    for (int len = 9; len <= 10; len++) {
        run_t r;
        run_start(&r, "stream s event=m value=x algo=msd-hu history=20 min=20\n");
        char ev[96];
        for (int t = 0; t < 60; t++) {
            double x = t >= 30 && t < 30 + len ? 50 : 10 + (t % 2);
            snprintf(ev, sizeof ev, "event=m level=Info x=%g", x);
            feed(&r, line_at(t, ev));
        }
        nld_counts_t c;
        run_end(&r, &c);
        assert_int_equal(c.flags, len);
        assert_int_equal(c.episodes, len == 10);
        assert_int_equal(c.short_runs, len == 9);
        run_free(&r);
    }
}

/* An episode ends when the stream is back (clear=), and a hold-off keeps the next one from
 * paging: three flags, a pause of two values, three flags. With clear=0 the first unflagged
 * value ends the first episode; held off for 3 values (or 3 s) the second run is followed
 * but not written (one report, one end, one held); with a hold-off of 2 (over by the second
 * onset) or none it is reported on its own. With clear=3s the pause does not end it: one
 * episode of six flags, whose end comes 3 s after its last flag. */
static void test_holdoff(void **state)
{
    (void)state;
    const char *hold[] = {"holdoff=3", "holdoff=3s", "holdoff=2", "holdoff=0", "clear=3s"};
    const int episodes[] = {1, 1, 2, 2, 1}, held[] = {1, 1, 0, 0, 0};
    for (int i = 0; i < 5; i++) {
        run_t r;
        char conf[160];
        snprintf(conf, sizeof conf,
                 "stream s event=m value=x algo=msd-hu history=20 min=20 episode.min=1 %s\n",
                 hold[i]);
        run_start(&r, conf);
        char ev[96];
        for (int t = 0; t < 40; t++) {
            int flag = (t >= 25 && t < 28) || (t >= 30 && t < 33);
            snprintf(ev, sizeof ev, "event=m level=Info x=%g", flag ? 50.0 : 10 + (t % 2));
            feed(&r, line_at(t, ev));
        }
        nld_counts_t c;
        run_end(&r, &c);
        assert_int_equal(c.flags, 6);
        assert_int_equal(c.episodes, episodes[i]);
        assert_int_equal(c.held, held[i]);
        assert_int_equal(count_ev(&r, "nl.anomaly.end"), episodes[i]);
        nl_rec_t *e = nth_ev(&r, "nl.anomaly.end", 0);
        if (i == 4) {
            assert_true(t_num(e, "len") == 6 && t_num(e, "dur") == 7); /* flags 25 .. 32 */
            assert_string_equal(t_field(e, "ts"), "2026-11-22T12:00:35.000000Z");
        } else {
            assert_true(t_num(e, "len") == 3); /* back at 28: it ends there */
            assert_string_equal(t_field(e, "ts"), "2026-11-22T12:00:28.000000Z");
        }
        run_free(&r);
    }
}

/* combine=default: the recommended setting as a whole (nld_combine.h: algorithm, history,
 * relearn, a daily season, calibration, resolution floor, an alarm budget, holdoff,
 * fatigue, escalation, a run that lasts 10 values or 10 s, clear=30s), each part
 * overridable. On a row a minute: one report for a spike (its first flag lasts a minute),
 * with the threshold its budget means and the combined score on nl.anomaly.score lines; it
 * ends when the stream is back; a far rarer value inside the hold-off pages again, its start
 * held to the bar the first report raised, and a value as rare as the first one there does
 * not page; ranking scores far into the tail. */
/* Mistakes said at once: an event= that matches nothing and a value= the matched events
 * never carry are said on the diagnostics stream once the engine has seen enough events
 * (each once, counted), not only in --stats; a well-written stream is not named; a level
 * with a duration's unit (20ms) is that many seconds. */
static void test_mistakes_said(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "stream typo event=request value=dur.p999 key=host\n"
                  "stream none event=requests value=n\n"
                  "stream good event=request value=n\n"
                  "when request n above 20ms name=unit\n");
    assert_true(fabs(r.cfg.w[0].fixed - 0.020) < 1e-12);
    char ev[128];
    for (int t = 0; t < 1500; t++) {
        snprintf(ev, sizeof ev, "event=request.summary level=Info host=a n=%d dur.p99=0.01",
                 100 + t % 7);
        feed(&r, line_at(t % 3600, ev));
        if (t == 150) { /* the value= mistake is said after 100 matches */
            fflush(r.diag);
            assert_true(ftell(r.diag) > 0);
        }
    }
    nld_counts_t c;
    run_end(&r, &c);
    assert_int_equal(c.unmatched, 2);
    rewind(r.diag);
    char text[4096];
    size_t got = fread(text, 1, sizeof text - 1, r.diag);
    text[got] = 0;
    print_message("%s", text);
    assert_non_null(strstr(text, "stream typo: value=dur.p999 is absent"));
    assert_non_null(strstr(text, "stream none: event=requests matched none of the first 1000"));
    assert_null(strstr(text, "stream good"));
    assert_null(strstr(text, "unit"));
    const char *first = strstr(text, "stream typo");
    assert_null(strstr(first + 1, "stream typo")); /* once */
    run_free(&r);
}

static char *line_day(double sec, const char *rest);

/* A stream that names neither algo= nor combine= gets what combine=default gives, every
 * option of the table alike; algo= alone still gives that algorithm with its own
 * defaults; weights= and quorum= still need combine= written. */
static void test_no_options_is_default(void **state)
{
    (void)state;
    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[256] = "";
    assert_int_equal(nld_cfg_parse(&c,
                                   "stream a event=m\n"
                                   "stream b event=m combine=default\n"
                                   "stream c event=m algo=msd-hu\n"
                                   "stream d event=m holdoff=5\n",
                                   "c", err, sizeof err),
                     0);
    for (int i = 0; i < nld_nopts; i++) {
        char a[64], b[64];
        nld_opt_format(&c.s[0], i, a, sizeof a);
        nld_opt_format(&c.s[1], i, b, sizeof b);
        if (strcmp(a, b))
            fail_msg("%s: %s without options, %s with combine=default", nld_opts[i].name, a, b);
    }
    assert_true(c.s[0].comb.on && !strcmp(c.s[0].comb.name, "default"));
    assert_true(c.s[0].p.runs_s == c.s[1].p.runs_s && c.s[0].p.runs_n == c.s[1].p.runs_n);
    assert_int_equal(c.s[0].p.algos, NLD_DEFAULT_ALGOS);
    /* algo=msd-hu alone: the paper's algorithm with the plain defaults, no combination */
    assert_int_equal(c.s[2].p.algos, 1u << 3);
    assert_false(c.s[2].comb.on);
    assert_true(c.s[2].p.n == 300 && c.s[2].p.calib == 0 && c.s[2].p.rate == 0);
    assert_true(c.s[2].holdoff_s == 0 && c.s[2].episode_min == 10 && c.s[2].p.admit == 9);
    /* one option given keeps the rest of the default */
    assert_true(c.s[3].holdoff_n == 5 && c.s[3].holdoff_s == 0);
    assert_true(c.s[3].p.calib == NLD_DEFAULT_CALIB && c.s[3].comb.on);
    nld_cfg_free(&c);
    nld_cfg_init(&c);
    assert_int_not_equal(
        nld_cfg_parse(&c, "stream e event=m weights=cdf-hu:2\n", "c", err, sizeof err), 0);
    assert_non_null(strstr(err, "need combine="));
    nld_cfg_free(&c);
}

/* Every option's value as the help writes it reads back as the same value (so what
 * --help-stream prints can be written in a config), alone and under combine=default. */
static void test_opts_format_reads_back(void **state)
{
    (void)state;
    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[256] = "";
    assert_int_equal(
        nld_cfg_parse(&c, "stream a event=m algo=msd-hu\nstream b event=m\n", "c", err, sizeof err),
        0);
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < nld_nopts; i++) {
            if (nld_opts[i].kind == NLD_OK_LATER) continue;
            char v[64], back[64];
            nld_opt_format(&c.s[s], i, v, sizeof v);
            if (!strcmp(v, "none") || !strcmp(v, "-")) continue; /* not written: nothing set */
            nld_sdef_t d = c.s[s];
            const char *where;
            if (nld_opt_set(&d, i, v, &where))
                fail_msg("%s=%s does not read back", nld_opts[i].name, v);
            nld_opt_format(&d, i, back, sizeof back);
            if (strcmp(v, back)) fail_msg("%s=%s reads back as %s", nld_opts[i].name, v, back);
        }
    nld_cfg_free(&c);
}

static void test_default_preset(void **state)
{
    (void)state;
    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[256] = "";
    assert_int_equal(nld_cfg_parse(&c,
                                   "stream a event=m combine=default\n"
                                   "stream b event=m combine=default history=40 threshold=0.5 "
                                   "holdoff=3 episode.min=2 algo=cdf-hu relearn=10m season=off\n"
                                   "stream c event=m season=1w season.slots=168\n",
                                   "c", err, sizeof err),
                     0);
    assert_int_equal(c.s[0].p.algos, NLD_DEFAULT_ALGOS);
    assert_int_equal(c.s[0].p.n, NLD_DEFAULT_HISTORY);
    assert_true(c.s[0].p.threshold == 0 && c.s[0].p.rate == NLD_DEFAULT_RATE);
    assert_true(c.s[0].p.calib == NLD_DEFAULT_CALIB && c.s[0].p.res_floor == NLD_DEFAULT_FLOOR);
    assert_true(c.s[0].holdoff_s == NLD_DEFAULT_HOLDOFF_S && c.s[0].holdoff_n == 0);
    assert_true(c.s[0].fatigue_s == NLD_DEFAULT_FATIGUE_S &&
                c.s[0].escalate == NLD_DEFAULT_ESCALATE);
    assert_true(c.s[1].fatigue_s == NLD_DEFAULT_FATIGUE_S); /* kept with threshold= */
    assert_int_equal(c.s[0].episode_min, NLD_DEFAULT_EPISODE_MIN);
    assert_true(c.s[0].episode_for_s == NLD_DEFAULT_EPISODE_FOR_S);
    assert_true(c.s[0].clear_s == NLD_DEFAULT_CLEAR_S && c.s[0].p.admit == 0);
    assert_true(c.s[0].p.runs_s == NLD_DEFAULT_EPISODE_FOR_S);
    assert_int_equal(c.s[0].p.runs_n, NLD_DEFAULT_EPISODE_MIN);
    assert_int_equal(c.s[0].p.relearn, NLD_DEFAULT_RELEARN);
    assert_true(c.s[0].p.season_s == NLD_DEFAULT_SEASON_S && NLD_DEFAULT_SEASON_S == 86400);
    assert_true(c.s[1].p.season_s == 0);                                         /* season=off */
    assert_true(c.s[2].p.season_s == 7 * 86400 && c.s[2].p.season_slots == 168); /* not default */
    assert_int_equal(c.s[1].p.algos, 1u << 7);
    assert_int_equal(c.s[1].p.n, 40);
    assert_true(c.s[1].p.threshold == 0.5 && c.s[1].holdoff_n == 3 && c.s[1].holdoff_s == 0);
    assert_int_equal(c.s[1].episode_min, 2);
    assert_true(c.s[1].p.relearn == 0 && c.s[1].p.relearn_s == 600);
    nld_cfg_free(&c);

    run_t r;
    run_start(&r, "stream s event=m value=x combine=default\nset scores=1\n");
    char ev[96];
    for (int t = 0; t < 300; t++) {
        double x = 100 + (t * 7 % 11) - 5;
        if (t == 250) x = 400; /* a spike: reported */
        if (t == 251) x = 300; /* still high: the same episode, which ends at 252 */
        if (t == 270) x = 1e9; /* within the hold-off, but far rarer: pages */
        if (t == 280) x = 400; /* as rare as the first, within the hold-off: not paged */
        snprintf(ev, sizeof ev, "event=m level=Info x=%.17g", x);
        feed(&r, line_day(60.0 * t, ev));
    }
    nld_counts_t n;
    run_end(&r, &n);
    assert_int_equal(n.episodes, 2);
    assert_int_equal(n.escalated, 1);
    nl_rec_t *e = nth_ev(&r, "nl.anomaly.start", 0);
    assert_non_null(e);
    assert_string_equal(t_field(e, "algo"), "default");
    assert_string_equal(t_field(e, "ts"), "2026-11-22T04:10:00.000000Z");
    /* the threshold the budget means, and the score reached it; no report before it */
    double thr = t_num(e, "threshold");
    assert_true(fabs(thr - nld_rate_threshold(NLD_DEFAULT_RATE)) < 1e-9);
    assert_true(t_num(e, "score") >= thr);
    assert_null(t_field(e, "recent"));
    /* the first episode ends when the stream is back (clear=30s: its next value) */
    nl_rec_t *end = nth_ev(&r, "nl.anomaly.end", 0);
    assert_string_equal(t_field(end, "ts"), "2026-11-22T04:12:00.000000Z");
    assert_true(t_num(end, "len") == 2);
    nl_rec_t *e2 = nth_ev(&r, "nl.anomaly.start", 1);
    assert_string_equal(t_field(e2, "ts"), "2026-11-22T04:30:00.000000Z");
    /* its bar: the budget's surprise plus log10(1 + the one recent report, 20 min old) */
    double recent = t_num(e2, "recent");
    assert_true(recent > 0.99 && recent < 1);
    double want = nld_score_of(nld_surprise_of(thr) + log10(1 + recent));
    assert_true(fabs(t_num(e2, "threshold") - want) < 1e-6);
    /* every value after warm-up has a combined score; the spike and the 1e9 rank apart;
     * each has its stages' scores (raw, calibrated, discounted: enum nld_stage) and the
     * threshold, and calibration moves some */
    double s250 = -1, s270 = -1, s100 = -1;
    int scored = 0, calibrated = 0;
    int nsl = count_ev(&r, "nl.anomaly.score");
    assert_int_equal(nsl, 300);
    for (int k = 0; k < nsl; k++) {
        nl_rec_t *sl = nth_ev(&r, "nl.anomaly.score", k);
        const char *v = t_field(sl, "score.default");
        if (!v) continue;
        scored++;
        assert_non_null(t_field(sl, "raw.cdf-hu"));
        assert_non_null(t_field(sl, "calib.cdf-hu"));
        assert_true(t_num(sl, "threshold") > 0);
        if (t_num(sl, "raw.cdf-hu") != t_num(sl, "calib.cdf-hu")) calibrated++;
        const char *ts = t_field(sl, "ts");
        if (!strcmp(ts, "2026-11-22T04:10:00.000000Z")) s250 = atof(v);
        if (!strcmp(ts, "2026-11-22T04:30:00.000000Z")) s270 = atof(v);
        if (!strcmp(ts, "2026-11-22T01:40:00.000000Z")) s100 = atof(v);
    }
    assert_int_equal(scored, 300 - 30);
    assert_true(calibrated > 0);
    assert_true(s100 >= 0 && s100 < 0.5);
    assert_true(s250 > 0.9 && s270 > s250 && s270 < 1);
    run_free(&r);
}

/* "2026-11-22T00:00:00Z" plus sec seconds, then rest: for runs of days. */
static char *line_day(double sec, const char *rest)
{
    static char buf[4][512];
    static int i;
    char *b = buf[i++ % 4];
    time_t t = 1795305600 + (time_t)sec; /* 2026-11-22T00:00:00Z */
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(b, sizeof buf[0], "ts=%04d-%02d-%02dT%02d:%02d:%02d.000000Z %s", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, rest);
    return b;
}

/* 5-minute values around 100 from event second t to `until` (a day's seconds from
 * 2026-11-22), with a spike to `spike` every two hours after a 4-hour warm-up (none if
 * spike is 0); the spikes fed are added to *spikes. Returns the next value's time. */
static int feed_5min(run_t *r, int t, int until, double spike, int *spikes)
{
    char ev[96];
    for (; t < until; t += 300) {
        double x = 100 + (t / 300 * 7 % 11) - 5;
        if (spike > 0 && t >= 4 * 3600 && t % 7200 == 0) x = spike, (*spikes)++;
        snprintf(ev, sizeof ev, "event=m level=Info x=%.17g", x);
        feed(r, line_day(t, ev));
    }
    return t;
}

/* One value x at event second t (of line_day). */
static void feed_one(run_t *r, int t, double x)
{
    char ev[96];
    snprintf(ev, sizeof ev, "event=m level=Info x=%.17g", x);
    feed(r, line_day(t, ev));
}

/* A run of one msd-hu stream at threshold 0.8 that pages on every flag (holdoff=1,
 * episode.min=1), with the episode words `extra` (fatigue=, confirm=). */
static void run_spiky(run_t *r, const char *extra)
{
    char conf[256];
    snprintf(conf, sizeof conf,
             "stream s event=m value=x algo=msd-hu history=200 threshold=0.8 holdoff=1 "
             "episode.min=1 %s\n",
             extra);
    run_start(r, conf);
}

/* confirm=2: a stream with a like spike every two hours (a little over the threshold)
 * pages for the first and counts the rest as unconfirmed, where confirm=off pages for
 * every one; two such values in a row page, the start written at the second with
 * start.ts the first's and len=2; a value far past the threshold pages at once; and after
 * three quiet days a lone spike pages again. */
static void test_confirm_spikes(void **state)
{
    (void)state;
    for (int on = 0; on <= 1; on++) {
        run_t r;
        run_spiky(&r, on ? "confirm=2" : "confirm=off");
        int spikes = 0, t = feed_5min(&r, 0, 2 * 86400, 113.5, &spikes); /* two days */
        int t_pair = t;
        for (int i = 0; i < 2; i++, t += 300) feed_one(&r, t, 113.5); /* twice in a row */
        t = feed_5min(&r, t, t + 12 * 300, 0, &spikes);
        feed_one(&r, t, 400);                              /* far past the threshold */
        t = feed_5min(&r, t + 300, 6 * 86400, 0, &spikes); /* three quiet days and more */
        feed_one(&r, t, 113.5);                            /* lone, after the quiet */
        feed_one(&r, t + 300, 100);
        nld_counts_t n;
        run_end(&r, &n);
        if (!on) {
            /* every spike, the pair (one episode: holdoff=1 joins them), 400, the last */
            assert_int_equal(n.episodes, spikes + 3);
            assert_int_equal(n.unconfirmed, 0);
        } else {
            assert_int_equal(n.episodes, 4); /* the first spike, the pair, 400, the last */
            assert_int_equal(n.unconfirmed, spikes - 1);
            nl_rec_t *pair = nth_ev(&r, "nl.anomaly.start", 1);
            char want[40];
            snprintf(want, sizeof want, "%.27s", line_day(t_pair + 300, "") + 3);
            assert_string_equal(t_field(pair, "ts"), want); /* written at the second */
            snprintf(want, sizeof want, "%.27s", line_day(t_pair, "") + 3);
            assert_string_equal(t_field(pair, "start.ts"), want); /* begun at the first */
            assert_true(t_num(pair, "len") == 2);
            assert_string_equal(t_field(pair, "dir"), "high");
            assert_true(t_num(nth_ev(&r, "nl.anomaly.start", 2), "x") == 400);
        }
        run_free(&r);
    }
}

/* confirm.wait=: on a stream of 5-minute values every lone spike waits, the first too and
 * the one after three quiet days (no recent spike needed); two in a row and one far past
 * the threshold still page. With confirm.wait shorter than the spacing, confirm=2 as
 * above: the first spike and the last page. */
static void test_confirm_wait(void **state)
{
    (void)state;
    for (int every = 0; every <= 1; every++) {
        run_t r;
        run_spiky(&r, every ? "confirm=2 confirm.wait=10m" : "confirm=2 confirm.wait=1m");
        int spikes = 0, t = feed_5min(&r, 0, 2 * 86400, 113.5, &spikes);
        for (int i = 0; i < 2; i++, t += 300) feed_one(&r, t, 113.5);
        t = feed_5min(&r, t, t + 12 * 300, 0, &spikes);
        feed_one(&r, t, 400);
        t = feed_5min(&r, t + 300, 6 * 86400, 0, &spikes);
        feed_one(&r, t, 113.5);
        feed_one(&r, t + 300, 100);
        nld_counts_t n;
        run_end(&r, &n);
        assert_true(spikes > 10);
        assert_int_equal(n.episodes, every ? 2 : 4); /* (the first spike,) the pair, 400 (, the last) */
        assert_int_equal(n.unconfirmed, every ? (uint64_t)spikes + 1 : (uint64_t)spikes - 1);
        run_free(&r);
    }
}

/* confirm.wait=: only a flag that begins a run waits. A run of four values a little over
 * the threshold, on a stream that needs four flags for an episode, opens it at the fourth
 * (len=4, begun at the first). When every flag of a run waited, each second one was taken
 * up confirming the one before and the run counted half its flags: a 1-second fault paged
 * 8 s late. */
static void test_confirm_run(void **state)
{
    (void)state;
    run_t r;
    run_start(&r, "stream s event=m value=x algo=msd-hu history=200 threshold=0.8 holdoff=1 "
                  "episode.min=4 confirm=2 confirm.wait=10m\n");
    int spikes = 0, t = feed_5min(&r, 0, 2 * 86400, 0, &spikes), t_run = t;
    for (int i = 0; i < 4; i++, t += 300) feed_one(&r, t, 113.5);
    feed_5min(&r, t, t + 12 * 300, 0, &spikes);
    nld_counts_t n;
    run_end(&r, &n);
    assert_int_equal(n.episodes, 1);
    nl_rec_t *e = nth_ev(&r, "nl.anomaly.start", 0);
    assert_non_null(e);
    char want[40];
    snprintf(want, sizeof want, "%.27s", line_day(t_run + 3 * 300, "") + 3);
    assert_string_equal(t_field(e, "ts"), want); /* at the fourth flag */
    snprintf(want, sizeof want, "%.27s", line_day(t_run, "") + 3);
    assert_string_equal(t_field(e, "start.ts"), want);
    assert_true(t_num(e, "len") == 4);
    run_free(&r);
}

/* Reports per day of one stream of `words` over `days` of values `every` seconds apart of
 * kind k (0 white noise around 100, sd 5; 1 bursty counts; 2 quantised runs; 3 heavy
 * tails, Student t with 3 df: tests/t_kinds.h). */
static double quiet_reports_every(const char *words, int k, int days, int every)
{
    char conf[512], ev[96];
    snprintf(conf, sizeof conf, "stream s event=m value=x %s\n", words);
    run_t r;
    run_start(&r, conf);
    uint64_t rs = 4242 + (uint64_t)k;
    double level = 0;
    for (int t = 0; t < days * 86400; t += every) {
        double x = k == 0   ? t_kinds_noise(t_unit, &rs)
                   : k == 1 ? t_kinds_bursty(t_unit, &rs)
                   : k == 2 ? t_kinds_quantised(t_unit, &rs, &level)
                            : t_kinds_heavy(t_unit, &rs);
        snprintf(ev, sizeof ev, "event=m level=Info x=%.17g", x);
        feed(&r, line_day(t, ev));
    }
    nld_counts_t n;
    run_end(&r, &n);
    run_free(&r);
    return (double)n.episodes / days;
}

/* ... of 5-minute values */
static double quiet_reports_per_day(const char *words, int k, int days)
{
    return quiet_reports_every(words, k, days, 300);
}

/* A utilisation that wanders and sits (quantised runs, a row a minute) is near the
 * threshold for minutes at a time, so the value after a lone flag confirms nothing: the
 * stream learns that its near flags come in runs and a lone flag waits for several
 * (nld_confirm_need). 20 days of it page at most twice (0.1 a day, bench-quiet's bar);
 * with one value to confirm, as before, they paged 9 times. */
static void test_confirm_persistent(void **state)
{
    (void)state;
    double a = quiet_reports_every("combine=default", 2, 20, 60);
    print_message("combine=default, quantised runs a minute apart: %.2f reports a day\n", a);
    assert_true(a <= 0.1);
}

/* The same walk a value a second: its near values come in runs (q about 0.9), and its
 * excursions to the edge of the day's range last minutes, longer than the k values (30 to
 * 60) a lone flag waits for. A lone flag no more surprising than one within the last 3
 * days waits for the whole confirm.wait= there (nld_confirm_need): 10 days of it (this
 * seed) page twice, 8 times with k alone; the bound lies between. */
static void test_confirm_walk_1s(void **state)
{
    (void)state;
    double a = quiet_reports_every("combine=default", 2, 10, 1);
    print_message("combine=default, quantised runs a second apart: %.2f reports a day\n", a);
    assert_true(a <= 0.3);
}

/* The same walk a row every 5 minutes moves about once an hour and takes most of a day to
 * forget where it was: a week of history holds about ten independent values of it, and
 * it reaches the edge of them every few days, with the next row, the same value,
 * confirming. wander= sees how few independent values the history holds (nld_wander.h)
 * and lowers the surprise to what they can claim. */
static void test_wander_walk_5min(void **state)
{
    (void)state;
    double on = quiet_reports_per_day("combine=default", 2, 180);
    double off = quiet_reports_per_day("combine=default wander=off", 2, 180);
    print_message("combine=default, quantised runs 5 minutes apart: %.3f reports a day, "
                  "%.3f with wander=off\n",
                  on, off);
    assert_true(on <= 0.1);
    assert_true(off > 0.15);
}

/* A heavy-tailed metric a row every 5 minutes (Student t, 3 df) has an outlier beyond
 * any model every day or two; the record of its far tail claims each at most 1 in 10^4
 * (NLD_CALIB_RECORD_TRUSTED), which was enough to page at once (confirm=3 at 5 minutes
 * asks 3.6 decades). A lone spike no larger than one the stream had within 3 days is
 * familiar and waits for the next value however far beyond (nld_confirm_wait); spikes
 * beyond every recent one still page at once. 180 days of it (this seed) page 0.13 times
 * a day, 0.21 without the rule; the bound lies between (bench-quiet, 3 seeds after
 * probation: 0.18 against 0.37, its bar 0.3). */
static void test_confirm_familiar(void **state)
{
    (void)state;
    double a = quiet_reports_per_day("combine=default", 3, 180);
    print_message("combine=default, Student t every 5 minutes: %.2f reports a day\n", a);
    assert_true(a <= 0.17);
}

/* combine=default on series with nothing wrong (bench-quiet measures every kind and
 * spacing): 30 days of 5-minute white noise, bursty counts and quantised runs page at
 * most about once a day or two (the bounds are about twice what it does), where the
 * default before 2026-11-26 paged for bursty counts several times a day. A change that
 * lets healthy metrics page again fails here. */
static void test_quiet_floor(void **state)
{
    (void)state;
    static const double most[3] = {1.0, 1.6, 0.6};
    static const char *const kind[3] = {"white noise", "bursty counts", "quantised runs"};
    for (int k = 0; k < 3; k++) {
        double a = quiet_reports_per_day("combine=default", k, 30);
        print_message("combine=default, %s: %.2f reports a day\n", kind[k], a);
        assert_true(a <= most[k]);
    }
    double old = quiet_reports_per_day(NLD_BEFORE_WORDS, 1, 30);
    print_message("the default before 2026-11-26, bursty counts: %.2f reports a day\n", old);
    assert_true(old > 2 * most[1]);
}

/* beat=2: a stream whose spike comes every two hours pages for the first two and holds the
 * rest (counted as beats), where beat=off pages for every one; one on the beat far past
 * the threshold is held too; a spike 40 minutes off the grid pages; spikes back on the
 * grid after a gap are held (a beat of 6 h or 10 h fits them); a new rhythm at odd hours
 * pages twice, then is held. */
static void test_beat(void **state)
{
    (void)state;
    for (int on = 0; on <= 1; on++) {
        run_t r;
        run_spiky(&r, on ? "beat=2 escalate=3" : "beat=off escalate=3");
        int spikes = 0, t = feed_5min(&r, 0, 86400, 113.5, &spikes); /* 4 h to 22 h: 10 */
        feed_one(&r, t, 400);                                          /* 24 h, on the beat */
        t = feed_5min(&r, t + 300, 26 * 3600 + 2400, 0, &spikes);
        feed_one(&r, t, 113.5); /* 26 h 40 m: off the grid */
        t = feed_5min(&r, t + 300, 30 * 3600, 0, &spikes);
        for (; t < 41 * 3600; t += 300) /* 30, 34, 36, 38 h (32 h skipped) */
            feed_one(&r, t, t % 7200 == 0 && t != 32 * 3600 && t < 40 * 3600 ? 113.5 : 100);
        for (int i = 0; i < 4; i++, t += 7200) { /* 41, 43, 45, 47 h: a new rhythm */
            feed_one(&r, t, 113.5);
            feed_5min(&r, t + 300, t + 7200, 0, &spikes);
        }
        nld_counts_t n;
        run_end(&r, &n);
        assert_int_equal(spikes, 10);
        if (!on) {
            assert_int_equal(n.episodes, 10 + 1 + 1 + 4 + 4); /* every one */
            assert_int_equal(n.beats, 0);
        } else {
            assert_int_equal(n.episodes, 2 + 1 + 2); /* 4 h, 6 h, 26 h 40 m, 41 h, 43 h */
            assert_int_equal(n.beats, 8 + 1 + 4 + 2);  /* 8-22 h, 24 h, 30-38 h, 45 h, 47 h */
            assert_int_equal(n.escalated, 0);
        }
        run_free(&r);
    }
}

/* fatigue=: a stream whose identical spikes (a little over the threshold) come every two
 * hours pages for the first few, then only as the count wears off (each other one counted
 * as fatigued), while the same stream without fatigue pages for every one; after a quiet week the
 * spike pages again, its bar back near the threshold. Escalation needs a value the given decades
 * rarer than the episode's peak. And fatigue without a threshold to raise is refused. */
static void test_fatigue_escalate(void **state)
{
    (void)state;
    int reports[2];
    for (int fat = 0; fat <= 1; fat++) {
        run_t r;
        run_spiky(&r, fat ? "fatigue=1d" : "fatigue=off");
        int spikes = 0, t = feed_5min(&r, 0, 3 * 86400, 113.5, &spikes); /* three days */
        t = feed_5min(&r, t, 10 * 86400, 0, &spikes);                    /* a quiet week */
        feed_one(&r, t, 113.5);
        nld_counts_t n;
        run_end(&r, &n);
        reports[fat] = (int)n.episodes;
        if (!fat) {
            assert_int_equal(n.episodes, spikes + 1); /* every spike, and the last */
            assert_int_equal(n.fatigued, 0);
        } else {
            /* the spikes' surprise S clears S_thr + log10(1 + recent) only while recent is
             * small: a handful pages, the rest are counted */
            /* with S about 0.7 decades over the threshold's, a report needs fewer than
             * 10^0.7 - 1 = 4 recent ones: five at first, then one whenever a day's
             * half-life has worn the count down (about every 7 h); 13 of 35 */
            assert_true(n.episodes >= 8 && n.episodes <= 16);
            assert_int_equal(n.episodes + n.fatigued, (uint64_t)spikes + 1);
            nl_rec_t *last = nth_ev(&r, "nl.anomaly.start", (int)n.episodes - 1);
            char want[40];
            snprintf(want, sizeof want, "%.27s", line_day(t, "") + 3);
            assert_string_equal(t_field(last, "ts"), want);
            assert_true(t_num(last, "recent") < 0.06); /* ~5 worn by 7 half-lives: 5 / 128 */
        }
        run_free(&r);
    }
    assert_true(reports[1] * 2 < reports[0]);

    /* escalate=2: a long episode; a value 10x rarer continues it, 1000x rarer restarts it */
    run_t r;
    run_start(&r, "stream s event=m value=x algo=msd-hu history=200 threshold=0.5 holdoff=30 "
                  "episode.min=1 escalate=2 fatigue=off\n");
    char ev[96];
    for (int t = 0; t < 400; t++) {
        double x = 100 + (t * 7 % 11) - 5;
        if (t >= 300 && t < 320) x = 112; /* just flagged: an open episode */
        if (t == 330) x = 113;            /* a little rarer: the same episode */
        if (t == 340) x = 1e6;            /* far rarer: escalates */
        snprintf(ev, sizeof ev, "event=m level=Info x=%.17g", x);
        feed(&r, line_at(t, ev));
    }
    nld_counts_t n;
    run_end(&r, &n);
    assert_int_equal(n.escalated, 1);
    assert_int_equal(n.episodes, 2);
    assert_string_equal(t_field(nth_ev(&r, "nl.anomaly.start", 1), "ts"),
                        "2026-11-22T12:05:40.000000Z");
    run_free(&r);

    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[256] = "";
    assert_int_not_equal(
        nld_cfg_parse(&c, "stream a event=m algo=msd-hu fatigue=1d\n", "c", err, sizeof err), 0);
    assert_non_null(strstr(err, "fatigue= needs threshold="));
    nld_cfg_free(&c);
    nld_cfg_init(&c);
    assert_int_not_equal(
        nld_cfg_parse(&c, "stream a event=m threshold=0.9 escalate=0\n", "c", err, sizeof err), 0);
    nld_cfg_free(&c);
}

static void test_history_from_archive(void **state)
{
    (void)state;
    const char *conf =
        "stream s event=x value=v key=host algo=msd-su history=50 min=30 episode.min=1 "
        "history.from=db "
        "history.since=1h\n"
        "when x v below 50% of baseline key=host baseline.from=db baseline.n=40 name=w\n";
    for (int seeded = 0; seeded <= 1; seeded++) {
        fake_seed_t f = {0};
        seed_fn = seeded ? fake_seed : NULL;
        seed_ctx = &f;
        run_t r;
        nld_counts_t c;
        run_start(&r, conf);
        /* the first live value is far below what the archive knows */
        feed(&r, line_at(0, "event=x level=Info host=a v=40"));
        feed(&r, line_at(1, "event=x level=Info host=a v=100"));
        run_end(&r, &c);
        seed_fn = NULL;
        seed_ctx = NULL;
        /* with history: flagged and alerted at once; without: still warming up */
        assert_int_equal(count_ev(&r, "nl.anomaly.start"), seeded);
        assert_int_equal(count_ev(&r, "nl.alert.start"), seeded);
        if (seeded) {
            assert_int_equal(f.calls, 2); /* once per new key, not per value */
            assert_int_equal(f.limit[0], 50);
            assert_int_equal(f.limit[1], 40);
            int64_t t0 = 1795348800000000LL; /* 2026-11-22T12:00:00Z: the first line */
            assert_true(f.until[0] == t0 && f.until[1] == t0);
            assert_true(f.since[0] == t0 - 3600000000LL && f.since[1] == INT64_MIN);
            assert_string_equal(f.host[0], "a");
            assert_int_equal(c.seeded, 200);
            nl_rec_t *a = nth_ev(&r, "nl.alert.start", 0);
            assert_true(t_num(a, "reference") == 100);
            nl_rec_t *e = nth_ev(&r, "nl.anomaly.start", 0);
            assert_true(t_num(e, "hist.n") == 50);
        } else {
            assert_int_equal(c.seeded, 0);
        }
        run_free(&r);
    }
}

/* A configuration file over 16 MiB is refused on what was read (24 MiB passed: the check
 * was on the buffer before each doubling). */
static void test_config_size_limit(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s", t_path(dir, "big.conf"));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    static char comment[4096];
    memset(comment, '#', sizeof comment - 1);
    comment[sizeof comment - 2] = '\n';
    for (int i = 0; i < (17 << 20) / (int)(sizeof comment - 1) + 1; i++) fputs(comment, f);
    assert_int_equal(fclose(f), 0);
    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[256] = "";
    assert_int_equal(nld_cfg_load(&c, path, err, sizeof err), NL_ETOOBIG);
    assert_non_null(strstr(err, "larger than 16 MiB"));
    nld_cfg_free(&c);
    t_rmtree(dir);
}

/* A value hovering at the threshold: without a clear level every crossing is an alert;
 * with `clear above` (hysteresis) or clear.for it stays one alert until clearly back. */
static void test_hysteresis(void **state)
{
    (void)state;
    const char *confs[] = {"when m x below 50 name=w\n",
                           "when m x below 50 clear above 60 name=w\n",
                           "when m x below 50 clear.for 10s name=w\n",
                           "when m x below 50% of 100 clear above 60% of 100 name=w\n"};
    int want_alerts[] = {10, 1, 1, 1};
    for (int c = 0; c < 4; c++) {
        run_t r;
        run_start(&r, confs[c]);
        char ev[64];
        int t = 0;
        for (; t < 20; t++) feed(&r, line_at(t, "event=m level=Info x=100"));
        for (int i = 0; i < 20; i++, t++) { /* hovering: 48, 52, 48, ... every 2 s */
            snprintf(ev, sizeof ev, "event=m level=Info x=%d", i % 2 ? 52 : 48);
            feed(&r, line_at(t, ev));
            feed(&r, line_at(++t, ev));
        }
        for (int i = 0; i < 20; i++, t++) feed(&r, line_at(t, "event=m level=Info x=100"));
        nld_counts_t n;
        run_end(&r, &n);
        assert_int_equal(n.alerts, want_alerts[c]);
        assert_int_equal(n.cleared, want_alerts[c]);
        if (c) { /* one alert, ended once the value was clear (and, with clear.for, 10 s later) */
            nl_rec_t *e = nth_ev(&r, "nl.alert.end", 0);
            char want[32];
            snprintf(want, sizeof want, "2026-11-22T12:01:%02d.000000Z",
                     c == 2 ? 8 : 0); /* clear since 58 s */
            assert_string_equal(t_field(e, "ts"), want);
        }
        run_free(&r);
    }
    /* the clear level must lie on the other side */
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    char err[256] = "";
    assert_int_equal(
        nld_cfg_parse(&cfg, "when m x below 50 clear below 40\n", "t", err, sizeof err), NL_EINVAL);
    assert_non_null(strstr(err, "t:1:25:"));
    nld_cfg_free(&cfg);
}

static const heard_t *heard_find(const char *event)
{
    for (int i = 0; i < nheard; i++)
        if (!strcmp(heard[i].event, event)) return &heard[i];
    return NULL;
}

/* Every start and end reaches the report hook with one id; a run that stops with them open
 * (ongoing) and a next run told of them by nld_restore continues them: no second start, an
 * end (resolved) once they end — a subscription alert, an anomaly episode that survives its
 * stream's warm-up, and a missing end whose late end arrives. */
static void test_reports_and_restore(void **state)
{
    (void)state;
    const char *conf =
        "when m x below 50 name=w key=host\n"
        "stream s event=m value=x algo=msd-hu key=host history=20 min=20 episode.min=3\n"
        "missing xfer timeout=5\n";
    hook_on = 1;
    nheard = 0;
    run_t r;
    run_start(&r, conf);
    int t = 0;
    for (; t < 30; t++) feed(&r, line_at(t, "event=m level=Info host=a x=100"));
    feed(&r, line_at(t++, "event=xfer.start level=Info guid=g1"));
    for (; t < 40; t++) feed(&r, line_at(t, "event=m level=Info host=a x=10"));
    nld_counts_t n;
    run_end(&r, &n);
    run_free(&r);
    assert_int_equal(n.alerts, 1);
    assert_int_equal(n.missing, 1);
    heard_t w = *heard_find("nl.alert.start"), s = *heard_find("nl.anomaly.start"),
            m = *heard_find("nl.missing");
    assert_int_equal(w.kind, NLD_R_ALERT);
    assert_int_equal(s.kind, NLD_R_ANOMALY);
    assert_int_equal(m.kind, NLD_R_MISSING);
    assert_int_equal(w.phase, NLD_R_START);
    const heard_t *we = heard_find("nl.alert.end"), *se = heard_find("nl.anomaly.end");
    assert_non_null(we);
    assert_non_null(se);
    assert_string_equal(we->why, "ongoing"); /* input ended with it open */
    assert_string_equal(se->why, "ongoing");
    assert_int_equal(we->id_len, w.id_len);
    assert_memory_equal(we->id, w.id, w.id_len);
    assert_memory_equal(se->id, s.id, s.id_len);

    /* the next run */
    nheard = 0;
    run_start(&r, conf);
    assert_int_equal(nld_restore(r.d, w.id, w.id_len, w.ts), 0);
    assert_int_equal(nld_restore(r.d, s.id, s.id_len, s.ts), 0);
    int64_t base;
    assert_int_equal(nl_ts_parse("2026-11-22T12:00:30Z", 20, &base), 0);
    assert_int_equal(nld_restore(r.d, m.id, m.id_len, base), 0);
    t = 40;
    for (; t < 45; t++) feed(&r, line_at(t, "event=m level=Info host=a x=10"));
    assert_null(heard_find("nl.alert.start")); /* still low: the same alert, not another */
    feed(&r, line_at(t++, "event=xfer.end level=Info guid=g1"));
    for (; t < 100; t++) feed(&r, line_at(t, "event=m level=Info host=a x=100"));
    run_end(&r, &n);
    assert_int_equal(n.restored, 3);
    assert_int_equal(n.alerts, 0);
    assert_int_equal(n.cleared, 1);
    assert_null(heard_find("nl.alert.start"));
    we = heard_find("nl.alert.end");
    assert_non_null(we);
    assert_string_equal(we->why, "");
    assert_memory_equal(we->id, w.id, w.id_len);
    assert_int_equal(t_num(nth_ev(&r, "nl.alert.end", 0), "restored"), 1);
    /* the episode outlived the warm-up (20 values from t=40 on) and then ended */
    se = heard_find("nl.anomaly.end");
    assert_non_null(se);
    assert_string_equal(se->why, "");
    assert_true(t_num(nth_ev(&r, "nl.anomaly.end", 0), "restored") == 1);
    int64_t t0;
    assert_int_equal(nl_ts_parse("2026-11-22T12:00:00Z", 20, &t0), 0);
    assert_true(se->ts - t0 >= 59 * 1000000LL); /* after t=59 */
    const heard_t *me = heard_find("nl.missing.late");
    assert_non_null(me);
    assert_int_equal(me->phase, NLD_R_END);
    assert_memory_equal(me->id, m.id, m.id_len);
    assert_int_equal(n.orphan_end, 0);
    run_free(&r);
    hook_on = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_fixed),
        cmocka_unit_test(test_missing_clock_outlier),
        cmocka_unit_test(test_missing_clock_burst),
        cmocka_unit_test(test_missing_learned),
        cmocka_unit_test(test_subscription),
        cmocka_unit_test(test_subscription_baseline),
        cmocka_unit_test(test_subscription_baseline_skips_episodes),
        cmocka_unit_test(test_episodes),
        cmocka_unit_test(test_episode_min),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_stream_bounds),
        cmocka_unit_test(test_default_episode_min),
        cmocka_unit_test(test_holdoff),
        cmocka_unit_test(test_nonfinite_values_refused),
        cmocka_unit_test(test_config_size_limit),
        cmocka_unit_test(test_default_preset),
        cmocka_unit_test(test_no_options_is_default),
        cmocka_unit_test(test_opts_format_reads_back),
        cmocka_unit_test(test_fatigue_escalate),
        cmocka_unit_test(test_confirm_spikes),
        cmocka_unit_test(test_confirm_wait),
        cmocka_unit_test(test_confirm_run),
        cmocka_unit_test(test_confirm_persistent),
        cmocka_unit_test(test_confirm_walk_1s),
        cmocka_unit_test(test_wander_walk_5min),
        cmocka_unit_test(test_confirm_familiar),
        cmocka_unit_test(test_beat),
        cmocka_unit_test(test_quiet_floor),
        cmocka_unit_test(test_mistakes_said),
        cmocka_unit_test(test_history_from_archive),
        cmocka_unit_test(test_history_times),
        cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_reports_and_restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
