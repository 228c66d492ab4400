/* SPDX-License-Identifier: BSD-3-Clause */
/* test_summary.c — the summarizer end to end through nl_write, against hand-computed
 * expectations. Time comes from an injected clock and the flusher's work is run by the
 * test (nl__summ_tick), so every interval boundary is exact and nothing sleeps, except
 * the one test that proves the real flusher thread writes on time. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nl_hist.h"
#include "nl_test.h"
#include "nl_tsc.h"
#include "nlkit/nl.h"
#include "nls.h"
#include "nls_rules.h"
#include "summ_fixture.h"

/* One start/end pair of `ev` from start_ms to end_ms with the end's value. */
static void pair(nl_log_t *log, const char *act, int64_t start_ms, int64_t end_ms, long long v)
{
    char s[64], e[64];
    snprintf(s, sizeof s, "%s.start", act);
    snprintf(e, sizeof e, "%s.end", act);
    at(start_ms);
    assert_int_equal(nl_write(log, s, ""), 0);
    at(end_ms);
    assert_int_equal(nl_write(log, e, "value=l", v), 0);
}

static void test_pair_statistics(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    pair(f.log, "op", 100, 300, 100); /* 0.2 s, 100 -> rate 500 */
    pair(f.log, "op", 400, 500, 50);  /* 0.1 s,  50 -> rate 500 */
    pair(f.log, "op", 600, 900, 30);  /* 0.3 s,  30 -> rate 100 */
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    assert_int_equal(rb.n, 1); /* summary mode: no raw events */
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "event"), "op.summary");
    assert_string_equal(t_field(r, "ts"), "2001-09-09T01:46:41.000000Z");
    assert_string_equal(t_field(r, "guid"), nl_guid(f.log));
    assert_string_equal(t_field(r, "n"), "3");
    NEAR(t_num(r, "dur.min"), 0.1);
    NEAR(t_num(r, "dur.max"), 0.3);
    NEAR(t_num(r, "dur.sum"), 0.6);
    NEAR(t_num(r, "dur.sd"), 0.1); /* sample sd of .2 .1 .3 */
    NEAR(t_num(r, "v.min"), 30);
    NEAR(t_num(r, "v.max"), 100);
    NEAR(t_num(r, "v.sum"), 180);
    NEAR(t_num(r, "v.sd"), sqrt(1300.0)); /* ((40^2 + 10^2 + 30^2) / 2) */
    NEAR(t_num(r, "r.min"), 100);
    NEAR(t_num(r, "r.max"), 500);
    NEAR(t_num(r, "r.sum"), 1100);
    NEAR(t_num(r, "r.sd"), sqrt(160000.0 / 3)); /* mean 1100/3 */
    NEAR(t_num(r, "span"), 0.8);                /* 0.9 - 0.1 */
    assert_string_equal(t_field(r, "open"), "0");
    assert_string_equal(t_field(r, "int"), "1");
    assert_null(t_field(r, "orphan.start"));
    assert_null(t_field(r, "v.n"));
    t_rb_free(&rb);
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_int_equal(st.folded, 6);
    assert_int_equal(st.summaries, 1);
    close_fixture(&f);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank q-quantile of n sorted values. */
static double exact_q(const double *x, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n);
    return x[rank ? rank - 1 : 0];
}

/* Percentiles on summary lines: each interval's dur.p50/p90/p99 and v.p* within 2 % of
 * the exact percentiles of the pairs that ended in it (heavy-tailed durations from the
 * injected clock), and the intervals' dur.h merged is exactly one histogram of every
 * duration. */
static void test_percentiles(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    enum { N = 30000, IV = 4 };
    static double dur[IV][N], val[IV][N];
    size_t nd[IV] = {0};
    nl__hist_t all = {0};
    uint64_t rs = 42;
    int64_t t = MS(0), ticked = 0;
    for (int i = 0; i < N; i++) {
        double u = t_unit(&rs);
        if (u <= 0) u = 1e-9;
        int64_t d = (int64_t)(2e3 * pow(u, -1 / 1.5)); /* Pareto, from 2 us: a long tail */
        if (d > 50000000) d = 50000000;
        long long v = (long long)(t_rand(&rs) % 1000000);
        fake_now = t;
        if ((t - MS(0)) / 1000000000LL != ticked) { /* an interval just ended: on time */
            ticked = (t - MS(0)) / 1000000000LL;
            nl__summ_tick(f.log);
        }
        assert_int_equal(nl_write(f.log, "op.start", ""), 0);
        int64_t end = t + d;
        fake_now = end;
        int k = (int)((end - MS(0)) / 1000000000LL);
        if (k != ticked) {
            ticked = k;
            nl__summ_tick(f.log);
        }
        assert_int_equal(nl_write(f.log, "op.end", "value=l", v), 0);
        assert_true(k < IV);
        dur[k][nd[k]] = (double)d / 1e9;
        val[k][nd[k]++] = (double)v;
        nl__hist_add(&all, (double)d / 1e9);
        t = end + 100000 + (int64_t)(t_rand(&rs) % 50000);
    }
    fake_now = MS(1000 * IV);
    nl__summ_tick(f.log);
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    size_t idx[IV + 2];
    size_t lines = find(&rb, "op.summary", idx, IV + 2);
    nl__hist_t merged = {0};
    int checked = 0;
    for (size_t l = 0; l < lines; l++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[l]);
        const nl_field_t *ts = nl_rec_get(r, "ts"); /* the interval's end */
        int64_t usec;
        assert_int_equal(nl_ts_parse(ts->value, ts->value_len, &usec), 0);
        int k = (int)((usec * 1000 - MS(0)) / 1000000000LL) - 1;
        assert_true(k >= 0 && k < IV);
        assert_int_equal((size_t)strtoull(t_field(r, "n"), NULL, 10), nd[k]);
        qsort(dur[k], nd[k], sizeof(double), cmp_dbl);
        qsort(val[k], nd[k], sizeof(double), cmp_dbl);
        static const char *const dn[] = {"dur.p50", "dur.p90", "dur.p99"};
        static const char *const vn[] = {"v.p50", "v.p90", "v.p99"};
        static const double q[] = {0.5, 0.9, 0.99};
        for (int j = 0; j < 3; j++) {
            double e = exact_q(dur[k], nd[k], q[j]), g = t_num(r, dn[j]);
            if (fabs(g - e) > 0.02 * e)
                fail_msg("interval %d %s: %.9g, exact %.9g", k, dn[j], g, e);
            e = exact_q(val[k], nd[k], q[j]);
            g = t_num(r, vn[j]);
            if (fabs(g - e) > 0.02 * e)
                fail_msg("interval %d %s: %.9g, exact %.9g", k, vn[j], g, e);
        }
        const nl_field_t *h = nl_rec_get(r, "dur.h");
        assert_non_null(h);
        assert_int_equal(nl__hist_parse(&merged, h->value, h->value_len), 0);
        checked++;
    }
    assert_true(checked >= 3);
    assert_int_equal(merged.n, N);
    for (double q = 0; q <= 1.0; q += 0.001)
        if (nl__hist_quantile(&merged, q, 0, INFINITY) != nl__hist_quantile(&all, q, 0, INFINITY))
            fail_msg("q=%g: merged intervals differ from one histogram", q);
    nl__hist_free(&merged);
    nl__hist_free(&all);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* count mode: point events of one identity become one NAME.summary line per interval with
 * n, the first and last time, int, and the last event's fields as last.NAME; identities
 * (stream.id) apart; an interval without events says nothing; nl_close writes the rest. */
static void test_count_mode(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "app.retry", NL_SUMM_COUNT, 1, NULL), 0);
    for (int i = 0; i < 5; i++) {
        at(100 + 100 * i);
        assert_int_equal(nl_write(f.log, "app.retry", "stream.id=i code=i url=s", 1, 500 + i,
                                  i == 4 ? "/last one" : "/x"),
                         0);
    }
    at(700);
    nl_write(f.log, "app.retry", "stream.id=i code=i", 2, 7);
    at(1000);
    nl__summ_tick(f.log); /* interval 1 */
    at(2000);
    nl__summ_tick(f.log); /* nothing in interval 2 */
    at(2500);
    nl_write(f.log, "app.retry", "stream.id=i code=i", 2, 9);
    nl_close(f.log); /* the running interval, at close */
    f.log = NULL;
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    size_t idx[8];
    assert_int_equal(find(&rb, "app.retry", idx, 8), 0); /* no raw line */
    assert_int_equal(find(&rb, "app.retry.summary", idx, 8), 3);
    /* the two identities of interval 1 come in the table's order: find stream 1's */
    size_t one = strcmp(t_field(t_rb_rec(&rb, idx[0]), "stream.id"), "1") ? idx[1] : idx[0];
    size_t two = one == idx[0] ? idx[1] : idx[0];
    nl_rec_t *r = t_rb_rec(&rb, one);
    assert_string_equal(t_field(r, "stream.id"), "1");
    assert_string_equal(t_field(r, "n"), "5");
    assert_string_equal(t_field(r, "first"), "2001-09-09T01:46:40.100000Z");
    assert_string_equal(t_field(r, "last"), "2001-09-09T01:46:40.500000Z");
    assert_string_equal(t_field(r, "int"), "1");
    assert_string_equal(t_field(r, "last.code"), "504");
    assert_string_equal(t_field(r, "last.url"), "/last one");
    assert_null(t_field(r, "last.stream.id")); /* the identity's, not repeated */
    r = t_rb_rec(&rb, two);
    assert_string_equal(t_field(r, "stream.id"), "2");
    assert_string_equal(t_field(r, "n"), "1");
    assert_string_equal(t_field(r, "last.code"), "7");
    r = t_rb_rec(&rb, idx[2]);
    assert_string_equal(t_field(r, "n"), "1");
    assert_string_equal(t_field(r, "last.code"), "9");
    NEAR(t_num(r, "int"), 0.5); /* 2.0 s to the close at 2.5 s */
    t_rb_free(&rb);
    t_rmtree(f.dir);
}

/* dedup mode: the first of a run of identical events is written at once, the rest become
 * one line with repeat=N when something different comes, when the run has lasted an
 * interval, or at nl_close; a different level or field is a different event. */
static void test_dedup_mode(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "app.warn", NL_SUMM_DEDUP, 10, NULL), 0);
    for (int i = 0; i < 4; i++) {
        at(100 + i);
        nl_write(f.log, "app.warn", "msg=s", "disk full");
    }
    at(200);
    nl_write(f.log, "app.warn", "msg=s", "ok");
    for (int i = 0; i < 3; i++) {
        at(300 + i);
        nl_write(f.log, "app.warn", "msg=s", "disk full");
    }
    at(400);
    nl_writel(f.log, NL_LVL_ERROR, "app.warn", "msg=s", "disk full"); /* another level */
    at(20000);
    nl__summ_tick(f.log); /* nothing pending: no line */
    at(30000);            /* a run longer than the interval is written as it goes */
    nl_write(f.log, "app.warn", "msg=s", "again");
    at(31000);
    nl_write(f.log, "app.warn", "msg=s", "again");
    at(42000);
    nl__summ_tick(f.log); /* the run began 11 s ago: repeat=1 now */
    at(43000);
    nl_write(f.log, "app.warn", "msg=s", "again");
    nl_close(f.log);
    f.log = NULL;
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    static const struct {
        const char *msg, *repeat, *level, *ts;
    } want[] = {
        {"disk full", NULL, "Info", NULL}, /* in full: the wall clock, not the injected one */
        {"disk full", "3", "Info", "2001-09-09T01:46:40.103000Z"}, /* at the last repeat */
        {"ok", NULL, "Info", NULL},
        {"disk full", NULL, "Info", NULL},
        {"disk full", "2", "Info", "2001-09-09T01:46:40.302000Z"},
        {"disk full", NULL, "Error", NULL},
        {"again", NULL, "Info", NULL},
        {"again", "1", "Info", "2001-09-09T01:47:11.000000Z"}, /* at the tick */
        {"again", "1", "Info", "2001-09-09T01:47:23.000000Z"}, /* at nl_close */
    };
    size_t idx[16];
    size_t n = find(&rb, "app.warn", idx, 16);
    if (n != sizeof want / sizeof want[0]) fail_msg("%zu app.warn lines", n);
    for (size_t i = 0; i < n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[i]);
        assert_string_equal(t_field(r, "msg"), want[i].msg);
        assert_string_equal(t_field(r, "level"), want[i].level);
        if (want[i].repeat)
            assert_string_equal(t_field(r, "repeat"), want[i].repeat);
        else
            assert_null(t_field(r, "repeat"));
        if (want[i].ts) assert_string_equal(t_field(r, "ts"), want[i].ts);
    }
    t_rb_free(&rb);
    t_rmtree(f.dir);
}

typedef struct {
    nl_log_t *log;
    int id;
} point_arg_t;

static void *point_writer(void *p)
{
    point_arg_t *a = p;
    for (int i = 0; i < 20000; i++) {
        nl_write(a->log, "app.retry", "stream.id=i code=i", a->id, i);
        nl_write(a->log, "app.warn", "msg=s", "same");
    }
    return NULL;
}

/* 4 threads: each identity counts exactly its 20,000 events, and a run of 80,000
 * identical events from all of them is its first line(s) plus repeat= lines adding up. */
static void test_point_modes_threads(void **state)
{
    (void)state;
    unsetenv("NL_SUMMARY");
    const char *dir = t_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s", t_path(dir, "log"));
    nl_log_t *log = nl_open(path);
    assert_non_null(log);
    assert_int_equal(nl_summarize(log, "app.retry", NL_SUMM_COUNT, 0, NULL), 0);
    assert_int_equal(nl_summarize(log, "app.warn", NL_SUMM_DEDUP, 0.05, NULL), 0);
    pthread_t th[4];
    point_arg_t args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (point_arg_t){log, i};
        pthread_create(&th[i], NULL, point_writer, &args[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    size_t idx[4096];
    size_t n = find(&rb, "app.retry.summary", idx, 4096);
    assert_int_equal(n, 4);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[i]);
        assert_string_equal(t_field(r, "n"), "20000");
        assert_string_equal(t_field(r, "last.code"), "19999");
        seen |= 1 << atoi(t_field(r, "stream.id"));
    }
    assert_int_equal(seen, 15);
    n = find(&rb, "app.warn", idx, 4096);
    assert_true(n >= 2 && n < 4096);
    unsigned long long total = 0;
    int firsts = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = t_field(t_rb_rec(&rb, idx[i]), "repeat");
        if (rep)
            total += strtoull(rep, NULL, 10);
        else
            firsts++;
    }
    /* identical all along: written in full once, then counted in repeat= lines; but a run
     * whose writers get no CPU for two ticks (100 ms, under a sanitizer on loaded cores)
     * lets the idle identity go, and the next one is written in full again. Every event is
     * a first line or counted in a repeat=, whatever the scheduler did. */
    assert_true(firsts >= 1 && firsts < 100);
    assert_int_equal(total + (unsigned long long)firsts, 80000);
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* Values no statistic can take (inf, -inf, NaN, 1e300 whose square overflows) are refused
 * and counted: the pair counts in n, its value in v.refused, and v.* and r.* hold the
 * usable values only. Before, one inf made v.sum NaN and v.sd 0 for the interval. */
static void test_unusable_values_refused(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    const double vals[] = {100, INFINITY, -INFINITY, NAN, 1e300, -1e200, 50};
    for (int i = 0; i < 7; i++) {
        at(100 * i + 10);
        assert_int_equal(nl_write(f.log, "op.start", ""), 0);
        at(100 * i + 60);
        assert_int_equal(nl_write(f.log, "op.end", "value=d", vals[i]), 0);
    }
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    assert_int_equal(rb.n, 1);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "n"), "7");
    assert_string_equal(t_field(r, "v.n"), "2");
    assert_string_equal(t_field(r, "v.refused"), "5");
    NEAR(t_num(r, "v.sum"), 150);
    NEAR(t_num(r, "v.min"), 50);
    NEAR(t_num(r, "v.max"), 100);
    NEAR(t_num(r, "v.sd"), sqrt(1250.0));
    NEAR(t_num(r, "r.sum"), 3000); /* 100/0.05 + 50/0.05 */
    NEAR(t_num(r, "dur.sum"), 0.35);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* A pair straddling a boundary counts where it ends; the interval it started in shows it
 * open with n=0, written by the tick at the boundary though nothing else was written. */
static void test_boundary_and_stall(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    at(800);
    nl_write(f.log, "op.start", "");
    at(1000);
    nl__summ_tick(f.log);
    at(2000);
    nl__summ_tick(f.log); /* still stalled: another open line */
    at(2400);
    nl_write(f.log, "op.end", "value=l", 16LL);
    at(2999);
    nl__summ_tick(f.log); /* not yet due: nothing */
    t_readback_t rb;
    tick_and_load(&f, 3000, &rb);
    assert_int_equal(rb.n, 3);
    const char *want_ts[] = {"01:46:41", "01:46:42", "01:46:43"};
    for (int i = 0; i < 3; i++) {
        nl_rec_t *r = t_rb_rec(&rb, (size_t)i);
        assert_non_null(strstr(t_field(r, "ts"), want_ts[i]));
        assert_string_equal(t_field(r, "n"), i < 2 ? "0" : "1");
        assert_string_equal(t_field(r, "open"), i < 2 ? "1" : "0");
        assert_string_equal(t_field(r, "int"), "1");
    }
    nl_rec_t *r = t_rb_rec(&rb, 2);
    NEAR(t_num(r, "dur.sum"), 1.6);
    NEAR(t_num(r, "span"), 1.6);
    NEAR(t_num(r, "r.sum"), 10);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* Writers that cross a boundary before the flusher runs still split the intervals. */
static void test_writer_crosses_boundary_first(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    pair(f.log, "op", 100, 500, 1);
    pair(f.log, "op", 1100, 1300, 2); /* no tick at 1000 */
    t_readback_t rb;
    tick_and_load(&f, 2000, &rb);
    assert_int_equal(rb.n, 2);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "v.sum"), "1");
    assert_non_null(strstr(t_field(t_rb_rec(&rb, 0), "ts"), "01:46:41.000000"));
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "v.sum"), "2");
    assert_non_null(strstr(t_field(t_rb_rec(&rb, 1), "ts"), "01:46:42.000000"));
    t_rb_free(&rb);
    close_fixture(&f);
}

/* nl_flush writes the running interval as a partial line; the rest follows at the
 * boundary with the remaining length. */
static void test_flush_partial(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    pair(f.log, "op", 100, 200, 1);
    at(250);
    assert_int_equal(nl_flush(f.log), 0);
    pair(f.log, "op", 300, 400, 2);
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    assert_int_equal(rb.n, 2);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "int"), "0.25");
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "v.sum"), "1");
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "int"), "0.75");
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "v.sum"), "2");
    t_rb_free(&rb);
    close_fixture(&f);
}

/* Interval 0: nothing until nl_close, then one line for the whole run. */
static void test_interval_zero(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "run", NL_SUMM_SUMMARY, 0, NULL), 0);
    for (int i = 0; i < 10; i++) {
        pair(f.log, "run", 1000LL * i + 100, 1000LL * i + 600, 10);
        nl__summ_tick(f.log);
    }
    at(9900);
    assert_int_equal(nl_flush(f.log), 0);
    struct stat st;
    assert_int_equal(stat(f.path, &st), 0);
    assert_int_equal(st.st_size, 0);
    at(10000);
    nl_close(f.log);
    f.log = NULL;
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    assert_int_equal(rb.n, 1);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "n"), "10");
    NEAR(t_num(r, "dur.sum"), 5.0);
    NEAR(t_num(r, "v.sum"), 100);
    NEAR(t_num(r, "span"), 9.5);
    NEAR(t_num(r, "int"), 9.9); /* from the first event to nl_close */
    t_rb_free(&rb);
    close_fixture(&f);
}

static void test_modes(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "a", NL_SUMM_FULL, 1, NULL), 0);
    assert_int_equal(nl_summarize(f.log, "b", NL_SUMM_SUMMARY, 1, NULL), 0);
    assert_int_equal(nl_summarize(f.log, "c", NL_SUMM_BOTH, 1, NULL), 0);
    assert_int_equal(nl_summarize(f.log, "d", NL_SUMM_OFF, 1, NULL), 0);
    assert_int_equal(nl_summarize(f.log, "e", 7, 1, NULL), NL_EINVAL);
    assert_int_equal(nl_summarize(f.log, "e", NL_SUMM_BOTH, -1, NULL), NL_EINVAL);
    assert_int_equal(nl_summarize(f.log, "e e", NL_SUMM_BOTH, 1, NULL), NL_ENAME);
    const char *acts[] = {"a", "b", "c", "d", "u"}; /* u: no rule */
    for (int i = 0; i < 5; i++) pair(f.log, acts[i], 100, 200, 5);
    at(150);
    nl_write(f.log, "b", ""); /* activity b, but not a start or end: written as it is */
    nl_write(f.log, "d", ""); /* mode off: not at all */
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[8];
    assert_int_equal(find(&rb, "a.start", idx, 8) + find(&rb, "a.end", idx, 8), 2);
    assert_int_equal(find(&rb, "a.summary", idx, 8), 0);
    assert_int_equal(find(&rb, "b.start", idx, 8) + find(&rb, "b.end", idx, 8), 0);
    assert_int_equal(find(&rb, "b.summary", idx, 8), 1);
    assert_int_equal(find(&rb, "b", idx, 8), 1);
    assert_int_equal(find(&rb, "c.start", idx, 8) + find(&rb, "c.end", idx, 8), 2);
    assert_int_equal(find(&rb, "c.summary", idx, 8), 1);
    assert_int_equal(find(&rb, "d.start", idx, 8) + find(&rb, "d.end", idx, 8), 0);
    assert_int_equal(find(&rb, "d.summary", idx, 8) + find(&rb, "d", idx, 8), 0);
    assert_int_equal(find(&rb, "u.start", idx, 8) + find(&rb, "u.end", idx, 8), 2);
    assert_int_equal(rb.n, 2 + 1 + 1 + 2 + 1 + 2);
    t_rb_free(&rb);
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_int_equal(st.filtered, 3); /* d.start, d.end, d */
    close_fixture(&f);
}

/* The most specific rule wins whatever the order; on a tie the API beats NL_SUMMARY. */
static void test_precedence(void **state)
{
    (void)state;
    fixture_t f;
    setenv("NL_SUMMARY", "x.*=off;disk.*=summary:1", 1);
    f.dir = t_tmpdir();
    snprintf(f.path, sizeof f.path, "%s", t_path(f.dir, "log"));
    f.log = nl_open(f.path);
    unsetenv("NL_SUMMARY");
    assert_non_null(f.log);
    assert_int_equal(nl__set_clock(f.log, fake_clock, NULL), 0);
    assert_int_equal(nl_summarize(f.log, "disk.read", NL_SUMM_FULL, 1, NULL), 0);
    assert_int_equal(nl_summarize(f.log, "*", NL_SUMM_OFF, 1, NULL), 0);
    assert_int_equal(nl_summarize(f.log, "x.*", NL_SUMM_BOTH, 1, NULL), 0);
    const char *acts[] = {"disk.read", "disk.write", "net.read", "x.y"};
    for (int i = 0; i < 4; i++) pair(f.log, acts[i], 100, 200, 1);
    at(1000);
    nl_close(f.log);
    f.log = NULL;
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    size_t idx[8];
    assert_int_equal(find(&rb, "disk.read.start", idx, 8), 1); /* exact: full */
    assert_int_equal(find(&rb, "disk.read.summary", idx, 8), 0);
    assert_int_equal(find(&rb, "disk.write.summary", idx, 8), 1); /* disk.* beats * */
    assert_int_equal(find(&rb, "disk.write.start", idx, 8), 0);
    assert_int_equal(find(&rb, "net.read.start", idx, 8), 0); /* * = off */
    assert_int_equal(find(&rb, "x.y.start", idx, 8), 1);      /* API beats env */
    assert_int_equal(find(&rb, "x.y.summary", idx, 8), 1);
    assert_int_equal(rb.n, 2 + 1 + 2 + 1);
    t_rb_free(&rb);
    close_fixture(&f);
}

static void test_orphans(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    at(100);
    nl_write(f.log, "op.end", "value=l", 99LL); /* no start */
    at(200);
    nl_write(f.log, "op.start", "");
    at(300);
    nl_write(f.log, "op.start", ""); /* restarted: the first never ended */
    at(700);
    nl_write(f.log, "op.end", "value=l", 4LL);
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    assert_int_equal(rb.n, 1);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "n"), "1");
    NEAR(t_num(r, "dur.sum"), 0.4); /* from the second start */
    assert_string_equal(t_field(r, "v.sum"), "4");
    assert_string_equal(t_field(r, "orphan.start"), "1");
    assert_string_equal(t_field(r, "orphan.end"), "1");
    t_rb_free(&rb);
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_int_equal(st.orphans, 2);
    close_fixture(&f);
}

/* *.id fields split summaries, guids do not (they only match starts to ends); the value
 * field is configurable; ends without a value still count for durations. */
static void test_identities_and_value_field(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "xfer", NL_SUMM_SUMMARY, 1, "nbytes"), 0);
    nl_const_set(f.log, "host", "h1");
    const char *g1 = "11111111-1111-4111-8111-111111111111";
    const char *g2 = "22222222-2222-4222-8222-222222222222";
    at(100);
    nl_write(f.log, "xfer.start", "guid=s stream.id=i", g1, 1);
    nl_write(f.log, "xfer.start", "guid=s stream.id=i", g1, 2);
    nl_write(f.log, "xfer.start", "guid=s stream.id=i", g2, 1);
    at(300);
    nl_write(f.log, "xfer.end", "guid=s stream.id=i nbytes=u", g1, 2, 2000ULL);
    at(500);
    nl_write(f.log, "xfer.end", "guid=s stream.id=i nbytes=u", g1, 1, 4000ULL);
    at(600);
    nl_write(f.log, "xfer.end", "guid=s stream.id=i", g2, 1); /* no value */
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    assert_int_equal(rb.n, 2);
    int seen = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        const char *sid = t_field(r, "stream.id");
        assert_string_equal(t_field(r, "host"), "h1");
        assert_string_equal(t_field(r, "guid"), nl_guid(f.log)); /* the log's: many folded */
        if (!strcmp(sid, "1")) { /* g1's and g2's, each pair matched by its guid */
            assert_string_equal(t_field(r, "n"), "2");
            NEAR(t_num(r, "dur.min"), 0.4);
            NEAR(t_num(r, "dur.max"), 0.5);
            assert_string_equal(t_field(r, "v.n"), "1");
            assert_string_equal(t_field(r, "v.sum"), "4000");
            NEAR(t_num(r, "r.sum"), 10000);
            seen |= 1;
        } else {
            assert_string_equal(sid, "2");
            assert_string_equal(t_field(r, "n"), "1");
            NEAR(t_num(r, "dur.sum"), 0.2);
            assert_string_equal(t_field(r, "v.sum"), "2000");
            seen |= 2;
        }
    }
    assert_int_equal(seen, 3);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* A thread's last pair is found again from the guid alone (nls__ident_hot); guids one byte
 * apart, a prefix of another, one byte longer, the log's own, and the same guid with an
 * *.id field are six pairs, interleaved, each matched to its own start: five fold into one
 * summary, the op.id one into its own. */
static void test_identities_by_guid_alone(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    const char *g[4] = {"11111111-1111-4111-8111-111111111111",
                        "11111111-1111-4111-8111-111111111112", "11111111",
                        "11111111-1111-4111-8111-1111111111110"};
    for (int k = 0; k < 6; k++) { /* starts at 100 ms, ends at 200 + 100 k ms, value k */
        at(100);
        if (k < 4) nl_write(f.log, "op.start", "guid=s", g[k]);
        if (k == 4) nl_write(f.log, "op.start", "");
        if (k == 5) nl_write(f.log, "op.start", "guid=s op.id=i", g[0], 7);
    }
    for (int k = 5; k >= 0; k--) {
        at(200 + 100 * k);
        if (k < 4) nl_write(f.log, "op.end", "guid=s value=i", g[k], k);
        if (k == 4) nl_write(f.log, "op.end", "value=i", k);
        if (k == 5) nl_write(f.log, "op.end", "guid=s op.id=i value=i", g[0], 7, k);
    }
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[8];
    assert_int_equal(find(&rb, "op.summary", idx, 8), 2);
    int seen = 0;
    for (int i = 0; i < 2; i++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[i]);
        assert_string_equal(t_field(r, "guid"), nl_guid(f.log));
        assert_null(t_field(r, "orphan.start"));
        assert_null(t_field(r, "orphan.end"));
        if (t_field(r, "op.id")) {
            assert_string_equal(t_field(r, "op.id"), "7");
            assert_string_equal(t_field(r, "n"), "1");
            NEAR(t_num(r, "dur.sum"), 0.6);
            assert_string_equal(t_field(r, "v.sum"), "5");
            seen |= 1;
        } else { /* value k took 0.1 + 0.1 k s: every end met its own start */
            assert_string_equal(t_field(r, "n"), "5");
            NEAR(t_num(r, "dur.min"), 0.1);
            NEAR(t_num(r, "dur.max"), 0.5);
            NEAR(t_num(r, "dur.sum"), 1.5);
            assert_string_equal(t_field(r, "v.sum"), "10");
            NEAR(t_num(r, "r.min"), 0); /* value 0 in 0.1 s */
            NEAR(t_num(r, "r.max"), 8); /* value 4 in 0.5 s */
            seen |= 2;
        }
    }
    assert_int_equal(seen, 3);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* Identities beyond NLS_IDENT_MAX are written in full and counted, never lost. */
static void test_identity_cap(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "job", NL_SUMM_SUMMARY, 1, NULL), 0);
    const int total = NLS_IDENT_MAX + 500;
    at(100);
    for (int i = 0; i < total; i++) nl_write(f.log, "job.start", "job.id=i", i);
    at(1000);
    nl__summ_tick(f.log);
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_true(st.overflow >= 500);
    assert_int_equal(st.summaries + st.overflow, (uint64_t)total);
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    size_t idx[1];
    size_t raw = 0, notes = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        const char *ev = t_field(r, "event");
        if (!strcmp(ev, "job.start")) raw++;
        if (!strcmp(ev, "nl.summary.overflow")) {
            notes++;
            assert_string_equal(t_field(r, "level"), "Warn");
            assert_int_equal((uint64_t)t_num(r, "total"), st.overflow);
        }
    }
    (void)idx;
    assert_int_equal(raw, st.overflow);
    assert_int_equal(notes, 1);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* A thread keeps the identity it used last; once the flusher has evicted it as idle, the
 * next pair must go into a live identity and be reported, not into the evicted entry. */
static void test_cached_identity_after_eviction(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
    pair(f.log, "op", 100, 200, 1);
    for (int s = 1; s <= 3; s++) { /* reported, then idle twice: evicted */
        at(s * 1000);
        nl__summ_tick(f.log);
    }
    pair(f.log, "op", 3100, 3300, 2);
    t_readback_t rb;
    tick_and_load(&f, 4000, &rb);
    size_t idx[4];
    assert_int_equal(find(&rb, "op.summary", idx, 4), 2);
    assert_string_equal(t_field(t_rb_rec(&rb, idx[1]), "n"), "1");
    assert_string_equal(t_field(t_rb_rec(&rb, idx[1]), "v.sum"), "2");
    NEAR(t_num(t_rb_rec(&rb, idx[1]), "dur.sum"), 0.2);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* Logs opened one after another (often at the same address) never share a cached
 * identity: each file gets exactly its own pairs. */
static void test_cached_identity_per_log(void **state)
{
    (void)state;
    for (int round = 1; round <= 3; round++) {
        fixture_t f;
        open_log(&f);
        assert_int_equal(nl_summarize(f.log, "op", NL_SUMM_SUMMARY, 1, NULL), 0);
        for (int k = 0; k < round; k++) pair(f.log, "op", 100 + k * 100, 150 + k * 100, round);
        at(1000);
        nl__summ_tick(f.log);
        t_readback_t rb;
        t_rb_load(&rb, f.path);
        size_t idx[2];
        assert_int_equal(find(&rb, "op.summary", idx, 2), 1);
        assert_int_equal((int)t_num(t_rb_rec(&rb, idx[0]), "n"), round);
        assert_int_equal((int)t_num(t_rb_rec(&rb, idx[0]), "v.sum"), round * round);
        t_rb_free(&rb);
        close_fixture(&f);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* A rules file: errors point at line and column and change nothing; a rewrite is picked
 * up by the flusher's check. */
static void test_rules_file(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    const char *rules = t_path(f.dir, "rules");
    write_file(rules, "# summaries\nop=summary:1\nother=bogus:1\n");
    nl_perr_t err;
    assert_int_equal(nl_summary_file(f.log, rules, &err), NL_EPARSE);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.col, 7);
    pair(f.log, "op", 100, 200, 1); /* nothing applied: written in full */
    write_file(rules, "# summaries\nop=summary:1\n");
    assert_int_equal(nl_summary_file(f.log, rules, &err), 0);
    pair(f.log, "op", 300, 400, 1);
    write_file(rules, "op=off\n");
    struct timespec later[2] = {{0, UTIME_OMIT}, {time(NULL) + 10, 0}};
    assert_int_equal(utimensat(AT_FDCWD, rules, later, 0), 0);
    int rc; /* what the flusher does each second: */
    nls_config_check(nl__hook_attach(f.log, &nls_hook_ops, NULL, &rc));
    pair(f.log, "op", 500, 600, 1);
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[4];
    assert_int_equal(find(&rb, "op.start", idx, 4), 1);
    assert_int_equal(find(&rb, "op.summary", idx, 4), 1);
    assert_string_equal(t_field(t_rb_rec(&rb, idx[0]), "n"), "1");
    assert_int_equal(rb.n, 3);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* A bad NL_SUMMARY is reported in the log with its position, and nothing is applied. */
static void test_env_error_reported(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path = t_path(dir, "log");
    setenv("NL_SUMMARY", "op=summary:1;op2=summary:x", 1);
    nl_log_t *log = nl_open(path);
    unsetenv("NL_SUMMARY");
    assert_non_null(log);
    nl_write(log, "op.start", "");
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 2);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "event"), "nl.summary.config");
    assert_string_equal(t_field(r, "level"), "Error");
    assert_non_null(strstr(t_field(r, "msg"), "NL_SUMMARY:1:26:"));
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "event"), "op.start");
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* The case: NL_SUMMARY mistyped, NL_DEST sending the log to a file. The mistake
 * was a line inside that file only, the terminal said nothing and the program logged in
 * full. Now it is said on standard error too, once, with the variable, its text, where,
 * and what was expected. */
static void test_env_error_said(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s", t_path(dir, "log"));
    setenv("NL_SUMMARY", "request=sumary:1", 1);
    setenv("NL_DEST", path, 1);
    t_opened_t o = {"-", NULL};
    char *said = t_stderr_of(t_open_into, &o);
    assert_non_null(o.log);
    assert_string_equal(said, "nlkit: NL_SUMMARY='request=sumary:1': at 1:9: unknown mode "
                              "'sumary' (full, summary, both, off, count, dedup); none of its "
                              "rules apply\n");
    free(said);
    t_opened_t again = {"-", NULL}; /* every log reads the variable: said once all the same */
    said = t_stderr_of(t_open_into, &again);
    assert_string_equal(said, "");
    free(said);
    nl_close(again.log);
    unsetenv("NL_SUMMARY");
    unsetenv("NL_DEST");
    nl_close(o.log);
    t_readback_t rb; /* and in the log, as before */
    t_rb_load(&rb, path);
    assert_true(rb.n >= 1);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "event"), "nl.summary.config");
    assert_non_null(strstr(t_field(t_rb_rec(&rb, 0), "msg"), "NL_SUMMARY:1:9: unknown mode"));
    t_rb_free(&rb);
    /* a rules file named by NL_SUMMARY_FILE: its path, line and column */
    char rules[512];
    snprintf(rules, sizeof rules, "%s", t_path(dir, "rules"));
    FILE *f = fopen(rules, "w");
    assert_non_null(f);
    fputs("# the transfer service\nrequest=summary:1\nxfer=both:often\n", f);
    fclose(f);
    setenv("NL_SUMMARY_FILE", rules, 1);
    t_opened_t fo = {path, NULL};
    said = t_stderr_of(t_open_into, &fo);
    unsetenv("NL_SUMMARY_FILE");
    char want[1200];
    snprintf(want, sizeof want,
             "nlkit: NL_SUMMARY_FILE=%s:3:11: bad interval 'often' (seconds: 0 for once per "
             "run, or 0.01 to %d); none of its rules apply until it is fixed\n",
             rules, NLS_INTERVAL_MAX);
    assert_string_equal(said, want);
    free(said);
    nl_close(fo.log);
    t_rmtree(dir);
}

/* A log to the file "log" in dir, unbuffered, with the URL options `more` ("&flush=100"),
 * for the tests that run the real flusher thread and clock. */
static nl_log_t *open_real(const char *dir, const char *more, const char **path)
{
    *path = t_path(dir, "log");
    char url[600];
    snprintf(url, sizeof url, "file://%s?buffer=0%s", *path, more);
    return nl_open(url);
}

/* The real flusher thread, real clock: a stalled activity shows up on time as open=1 n=0
 * without any further call from the program. "On time" is each summary's ts on its 0.1 s
 * boundary; how soon the thread gets the CPU on busy cores is not this test's business, so
 * it waits up to 60 s for three (a flusher that never writes them still fails). */
static void test_flusher_thread_on_time(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path;
    setenv("NL_SUMMARY", "stuck=summary:0.1", 1);
    nl_log_t *log = open_real(dir, "", &path);
    unsetenv("NL_SUMMARY");
    assert_non_null(log);
    nl_write(log, "stuck.start", "");
    size_t lines = 0;
    for (int waited = 0; waited < 60000 && lines < 3; waited += 20) {
        t_sleep_ms(20);
        char *text = t_slurp(path, NULL);
        lines = 0;
        for (char *p = text; p && (p = strstr(p, "event=stuck.summary")); p++) lines++;
        free(text);
    }
    assert_true(lines >= 3);
    t_readback_t rb;
    t_rb_load(&rb, path);
    for (size_t i = 0; i < 3; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        assert_string_equal(t_field(r, "n"), "0");
        assert_string_equal(t_field(r, "open"), "1");
        assert_string_equal(t_field(r, "int"), "0.1");
        const char *ts = t_field(r, "ts"); /* on a boundary: .x00000 */
        assert_string_equal(ts + strlen(ts) - 6, "00000Z");
    }
    t_rb_free(&rb);
    nl_close(log);
    t_rmtree(dir);
}

/* The real clock once the flusher has had its ticks (where the kernel keeps time with the
 * TSC, the summarizer reads the counter by then: internal/nl_tsc.h): each pair around a
 * 3 ms sleep lasts at least the sleep and at most what clock_gettime saw around the two
 * calls, within the 50 us the counter's map is allowed. */
static void test_real_clock_durations(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path;
    nl_log_t *log = open_real(dir, "&flush=100", &path);
    assert_non_null(log);
    assert_int_equal(nl_summarize(log, "nap", NL_SUMM_SUMMARY, 0, NULL), 0);
    t_sleep_ms(350); /* three ticks: the counter's rate is measured by the second */
    int64_t outer_max = 0, outer_sum = 0;
    for (int i = 0; i < 10; i++) {
        int64_t a = t_mono_ns();
        nl_write(log, "nap.start", "");
        t_sleep_ms(3);
        nl_write(log, "nap.end", "");
        int64_t d = t_mono_ns() - a;
        outer_sum += d;
        if (d > outer_max) outer_max = d;
    }
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 1);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "n"), "10");
    print_message("dur.min %s dur.max %s (outer max %.6f)\n", t_field(r, "dur.min"),
                  t_field(r, "dur.max"), (double)outer_max / 1e9);
    assert_true(t_num(r, "dur.min") >= 0.003 - 50e-6);
    assert_true(t_num(r, "dur.max") <= (double)outer_max / 1e9 + 50e-6);
    assert_true(t_num(r, "dur.sum") <= (double)outer_sum / 1e9 + 10 * 50e-6);
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* A counter clock that leaves the kernel's clock is withdrawn and said so once, by an
 * nl.summary.clock Warn line, and pairs go on being timed (by clock_gettime). Made-up
 * samples through the test hook; the log's own clock starts off (NL_CLOCK=kernel) and its
 * flusher sleeps an hour, so no real sample comes between them. */
static void test_counter_clock_withdrawn_said_once(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path;
    nl_log_t *log = open_real(dir, "&flush=3600000", &path);
    assert_non_null(log);
    setenv("NL_CLOCK", "kernel", 1);
    assert_int_equal(nl_summarize(log, "op", NL_SUMM_SUMMARY, 0, NULL), 0);
    unsetenv("NL_CLOCK");
    const int64_t far = 4000000000000000000LL; /* made-up times, far from the real clock */
    assert_int_equal(nl__summ_clock_sample(log, 1, 1000, far), NL_TSC_CALIBRATING);
    assert_int_equal(nl__summ_clock_sample(log, 0, 1000 + 2500000000ULL, far + 1000000000),
                     NL_TSC_ON);
    /* a second later the clock is 10 ms ahead of the counter's map */
    assert_int_equal(nl__summ_clock_sample(log, 0, 1000 + 5000000000ULL, far + 2010000000),
                     NL_TSC_OFF);
    assert_int_equal(nl__summ_clock_sample(log, 0, 1000 + 7500000000ULL, far + 3010000000),
                     NL_TSC_OFF);
    nl_write(log, "op.start", "");
    t_sleep_ms(2);
    nl_write(log, "op.end", "");
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    size_t notes = 0, summaries = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        if (!strcmp(t_field(r, "event"), "nl.summary.clock")) {
            assert_string_equal(t_field(r, "level"), "Warn");
            notes++;
        } else if (!strcmp(t_field(r, "event"), "op.summary")) {
            assert_string_equal(t_field(r, "n"), "1");
            assert_true(t_num(r, "dur.min") >= 0.002);
            assert_true(t_num(r, "dur.min") < 1.0);
            summaries++;
        }
    }
    assert_int_equal(notes, 1);
    assert_int_equal(summaries, 1);
    t_rb_free(&rb);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_statistics),
        cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_count_mode),
        cmocka_unit_test(test_dedup_mode),
        cmocka_unit_test(test_point_modes_threads),
        cmocka_unit_test(test_unusable_values_refused),
        cmocka_unit_test(test_boundary_and_stall),
        cmocka_unit_test(test_writer_crosses_boundary_first),
        cmocka_unit_test(test_flush_partial),
        cmocka_unit_test(test_interval_zero),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_orphans),
        cmocka_unit_test(test_identities_and_value_field),
        cmocka_unit_test(test_identities_by_guid_alone),
        cmocka_unit_test(test_identity_cap),
        cmocka_unit_test(test_cached_identity_after_eviction),
        cmocka_unit_test(test_cached_identity_per_log),
        cmocka_unit_test(test_rules_file),
        cmocka_unit_test(test_env_error_reported),
        cmocka_unit_test(test_env_error_said),
        cmocka_unit_test(test_flusher_thread_on_time),
        cmocka_unit_test(test_real_clock_durations),
        cmocka_unit_test(test_counter_clock_withdrawn_said_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
