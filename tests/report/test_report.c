/* SPDX-License-Identifier: BSD-3-Clause */
/* test_report.c — nl-report's modules against real SQLite archives made by the loader:
 * per-column aggregation against a brute-force pass, start/end pairing and exact
 * percentiles, baselines from history or the window, the detector's and nl-peers' reports
 * laid on the right charts, lifelines, a page that escapes hostile names and fetches
 * nothing, bounded size on a large series; and the program's errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "nl_hist.h"
#include "nl_num.h"
#include "nl_test.h"
#include "nll.h"
#include "nlr.h"

static const char *report_prog;

/* |a - b| <= tol, saying both when not (cmocka 1.1 has no double assertion). */
#define assert_double_equal(a, b, tol) near_(a, b, tol, __FILE__, __LINE__)
static void near_(double a, double b, double tol, const char *file, int line)
{
    if (fabs(a - b) <= tol) return;
    fprintf(stderr, "%s:%d: %.17g != %.17g (tolerance %g)\n", file, line, a, b, tol);
    fail();
}

/* A copy of a path that outlives t_path's rotating buffers (a ring: each test keeps few). */
static const char *keep(const char *s)
{
    static char ring[16][4096];
    static int k;
    char *b = ring[k++ % 16];
    snprintf(b, sizeof ring[0], "%s", s);
    return b;
}

static nll_db_t *new_archive(const char *path)
{
    nll_db_t *db;
    nll_err_t err;
    int rc = nll_db_open(path, NLL_OPEN_WRITE, 0, &db, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    return db;
}

/* Store lines in one transaction, each strictly parsed. */
static void load(nll_db_t *db, char **lines, int n)
{
    nll_rows_t *r;
    nll_err_t err;
    nl_perr_t pe;
    assert_int_equal(nll_rows_new(db, NL_PARSE_STRICT, &r, &err), 0);
    assert_int_equal(nll_db_exec(db, "BEGIN", &err), 0);
    for (int i = 0; i < n; i++) {
        int rc = nll_rows_add(r, lines[i], strlen(lines[i]), i + 1, &pe, &err);
        if (rc != 1) fprintf(stderr, "line %d: %s / %s\n%s\n", i + 1, pe.msg, err.msg, lines[i]);
        assert_int_equal(rc, 1);
    }
    assert_int_equal(nll_db_exec(db, "COMMIT", &err), 0);
    nll_rows_free(r);
}

/* A growing list of lines. */
typedef struct lines {
    char **v;
    int n, cap;
} lines_t;

static void add(lines_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(lines_t *l, const char *fmt, ...)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
        assert_non_null(l->v);
    }
    va_list ap;
    va_start(ap, fmt);
    assert_true(vasprintf(&l->v[l->n++], fmt, ap) > 0);
    va_end(ap);
}

static void lines_free(lines_t *l)
{
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    *l = (lines_t){0};
}

/* An ISO-8601 timestamp of Unix seconds (to the microsecond). */
static const char *iso(double t)
{
    static char buf[8][40];
    static int k;
    char *b = buf[k++ % 8];
    assert_true(nl_ts_format((int64_t)llround(t * 1e6), b) > 0);
    return b;
}

#define T0 1795000000.0 /* 2026-11-18: any fixed time */

/* Read a whole report as nl-report does. */
static void read_report(nll_db_t *db, nlr_report_t *r, const nlr_opts_t *o)
{
    nll_err_t err;
    *r = (nlr_report_t){.o = o, .archive = db};
    int rc = nlr_charts_read(db, r, &err);
    if (!rc) rc = nlr_marks_read(db, r, &err);
    if (!rc) nlr_charts_rank(r), rc = nlr_charts_fill(db, r, &err);
    if (!rc) rc = nlr_life_read(db, r, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
}

static nlr_opts_t opts(const char *db)
{
    return (nlr_opts_t){.db = db,
                        .since = -INFINITY,
                        .until = INFINITY,
                        .max_charts = NLR_MAX_CHARTS,
                        .title = "t"};
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double q7(double *v, int n, double u)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    double h = (n - 1) * u;
    int i = (int)floor(h);
    return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* 3000 summaries on two hosts over 1000 s: more values than pixel columns, so each column's
 * min, mean and max must be what a brute-force pass over the same values finds. */
static void test_summary_columns(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    uint64_t rs = 11;
    enum { N = 3000 };
    static double ts[N], rate[N], dsum[N], vsum[N];
    static long long n[N];
    for (int i = 0; i < N; i++) {
        ts[i] = round((T0 + i / 3.0) * 1e6) / 1e6; /* as stored: to the microsecond */
        n[i] = 1 + (long long)(t_unit(&rs) * 9);
        dsum[i] = 0.01 + t_unit(&rs) * 0.2;
        rate[i] = 1e6 * (1 + t_unit(&rs)) * (i % 2 ? 0.5 : 1); /* h2 runs at half */
        /* shortest texts, so the archive types them as numbers and holds these doubles */
        char d[32], v[32];
        vsum[i] = rate[i] * dsum[i];
        nl__dtoa(dsum[i], d);
        nl__dtoa(vsum[i], v);
        add(&l,
            "ts=%s event=app.read.summary level=Info host=h%d n=%lld dur.sum=%s v.sum=%s int=0.5",
            iso(ts[i]), 1 + i % 2, n[i], d, v);
    }
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    nlr_report_t r;
    read_report(db, &r, &o);
    assert_int_equal(r.ncharts, 2);
    assert_double_equal(r.t0, ts[0], 1e-6);
    assert_double_equal(r.t1, ts[N - 1], 1e-6);
    for (int h = 0; h < 2; h++) {
        char host[8];
        snprintf(host, sizeof host, "h%d", h + 1);
        nlr_chart_t *c = nlr_chart_find(&r, "app.read", host);
        assert_non_null(c);
        assert_int_equal(c->kind, NLR_SUMMARY);
        assert_string_equal(c->metric, "rate");
        /* brute force: the same column rule, over this host's values */
        static double lo[NLR_COLS], hi[NLR_COLS], sum[NLR_COLS], all[N];
        static long long cnt[NLR_COLS];
        memset(cnt, 0, sizeof cnt);
        long long pairs = 0;
        double dtot = 0, itot = 0, rtot = 0;
        int m = 0;
        for (int i = h; i < N; i += 2) {
            double rr = vsum[i] / dsum[i];
            int k = (int)floor((ts[i] - r.t0) * (NLR_COLS / (r.t1 - r.t0)));
            if (k >= NLR_COLS) k = NLR_COLS - 1;
            if (!cnt[k] || rr < lo[k]) lo[k] = rr;
            if (!cnt[k] || rr > hi[k]) hi[k] = rr;
            sum[k] = (cnt[k] ? sum[k] : 0) + rr;
            cnt[k]++;
            pairs += n[i];
            dtot += dsum[i];
            itot += 0.5;
            rtot += rr;
            all[m++] = rr;
        }
        int j = 0;
        for (int k = 0; k < NLR_COLS; k++) {
            if (!cnt[k]) continue;
            assert_true(j < c->ncols);
            assert_int_equal(c->cols[j].n, cnt[k]);
            assert_double_equal(c->cols[j].lo, lo[k], 1e-6 * lo[k]);
            assert_double_equal(c->cols[j].hi, hi[k], 1e-6 * hi[k]);
            assert_double_equal(c->cols[j].mean, sum[k] / cnt[k], 1e-6 * hi[k]);
            j++;
        }
        assert_int_equal(j, c->ncols);
        assert_true(c->ncols <= NLR_COLS);
        assert_int_equal(c->events, pairs);
        assert_int_equal(c->values, m);
        assert_double_equal(c->busy, dtot / itot, 1e-9);
        assert_double_equal(c->mean, rtot / m, 1e-6 * c->mean);
        assert_int_equal(c->base_from, NLR_BASE_WINDOW); /* no history before the window */
        assert_double_equal(c->base_p50, q7(all, m, 0.5), 1e-6 * c->base_p50);
        assert_double_equal(c->dev, c->mean / c->base_p50 - 1, 1e-9);
        assert_true(isnan(c->dur_p99)); /* summaries carry no percentiles */
    }
    nlr_report_free(&r);

    /* the last 100 s: each host has 150 summaries of history before it, so the baseline is
     * that history's */
    o.since = T0 + 900;
    read_report(db, &r, &o);
    nlr_chart_t *c = nlr_chart_find(&r, "app.read", "h1");
    assert_non_null(c);
    assert_int_equal(c->base_from, NLR_BASE_HISTORY);
    double hist[N];
    int m = 0;
    for (int i = 0; i < N; i += 2)
        if (ts[i] < T0 + 900) hist[m++] = vsum[i] / dsum[i];
    assert_int_equal(c->base_n, m);
    assert_double_equal(c->base_p50, q7(hist, m, 0.5), 1e-6 * c->base_p50);
    assert_true(r.t0 == T0 + 900);
    nlr_report_free(&r);

    /* --host and --event narrow the charts */
    o = opts(path);
    o.host_glob = "h2";
    read_report(db, &r, &o);
    assert_int_equal(r.ncharts, 1);
    assert_string_equal(r.charts[0].host, "h2");
    nlr_report_free(&r);
    o = opts(path);
    o.event_glob = "other.*";
    read_report(db, &r, &o);
    assert_int_equal(r.ncharts, 0);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Activities logged in full: starts and ends paired by GUID, nested ones under one GUID
 * too; the p99 is the exact one; a pair that began before the window is complete; an end
 * without a start is no pair. */
static void test_pairs(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    uint64_t rs = 5;
    enum { N = 400 };
    double dur[N];
    for (int i = 0; i < N; i++) {
        double t = T0 + 10 + i * 2.0;
        dur[i] = 0.05 + t_unit(&rs) * (i == 123 ? 30 : 1.5); /* one very slow */
        add(&l, "ts=%s event=xfer.start level=Info guid=g-%d host=a", iso(t), i);
        add(&l, "ts=%s event=xfer.end level=Info guid=g-%d host=a", iso(t + dur[i]), i);
    }
    /* nested under one guid on host b: outer 0..10, inner 2..3 */
    add(&l, "ts=%s event=xfer.start level=Info guid=nest host=b", iso(T0 + 0));
    add(&l, "ts=%s event=xfer.start level=Info guid=nest host=b", iso(T0 + 2));
    add(&l, "ts=%s event=xfer.end level=Info guid=nest host=b", iso(T0 + 3));
    add(&l, "ts=%s event=xfer.end level=Info guid=nest host=b", iso(T0 + 10));
    add(&l, "ts=%s event=xfer.end level=Info guid=stray host=b", iso(T0 + 11)); /* no start */
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    nlr_report_t r;
    read_report(db, &r, &o);
    nlr_chart_t *a = nlr_chart_find(&r, "xfer", "a"), *b = nlr_chart_find(&r, "xfer", "b");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->kind, NLR_PAIRS);
    assert_int_equal(a->events, N);
    double sorted[N], sum = 0;
    for (int i = 0; i < N; i++) sum += dur[i];
    memcpy(sorted, dur, sizeof sorted);
    double p99 = q7(sorted, N, 0.99);
    assert_double_equal(a->dur_p99, p99, 1e-5);
    assert_double_equal(a->dur_max, sorted[N - 1], 1e-5);
    assert_double_equal(a->dur_mean, sum / N, 1e-5);
    assert_double_equal(a->base_p50, q7(sorted, N, 0.5), 1e-5);
    assert_string_equal(a->slowest_guid, "g-123");
    assert_int_equal(b->events, 2);
    assert_double_equal(b->dur_max, 10, 1e-5);
    assert_double_equal(b->dur_mean, (1 + 10) / 2.0, 1e-5);
    /* the lifeline: no missing ends, so the slowest pair's GUID */
    assert_int_equal(r.nlife, 1);
    assert_string_equal(r.life[0].guid, "g-123");
    assert_int_equal(r.life[0].n, 2);
    assert_string_equal(r.life[0].ev[0].event, "xfer.start");
    nlr_report_free(&r);

    /* a window that begins after the 100th pair's start but before its end keeps it */
    o.since = T0 + 10 + 100 * 2.0 + dur[100] / 2;
    read_report(db, &r, &o);
    a = nlr_chart_find(&r, "xfer", "a");
    assert_non_null(a);
    assert_int_equal(a->events, N - 100);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* nl-flows' odd flows, loaded as its lines: each drawn by trace id across its processes and
 * hosts, beside the typical flow it was measured against; the higher score first. */
static char *page_of(const nlr_report_t *r, const char *dir, size_t *len);

static void test_odd_flows(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    static const char *const tr[3] = {"aaaa", "bbbb", "cccc"};
    for (int i = 0; i < 3; i++) { /* a request: client on cl, its handler on fe */
        double t = T0 + 10 * i;
        add(&l, "ts=%s event=request.start level=Info guid=c%d host=cl trace.id=%s", iso(t), i, tr[i]);
        add(&l, "ts=%s event=fe.handle.start level=Info guid=f%d host=fe trace.id=%s", iso(t + 0.1),
            i, tr[i]);
        add(&l, "ts=%s event=fe.handle.end level=Info guid=f%d host=fe trace.id=%s", iso(t + 0.2),
            i, tr[i]);
        add(&l, "ts=%s event=request.end level=Info guid=c%d host=cl trace.id=%s", iso(t + 0.3), i,
            tr[i]);
    }
    add(&l,
        "ts=%s event=nl.flow.suspect level=Warn guid=c1 trace.id=bbbb root=request score=0.4 "
        "threshold=0.1 path=request/fe.handle diff=0.3 hosts=cl,fe typical.guid=c0 "
        "typical.trace.id=aaaa",
        iso(T0 + 11));
    add(&l,
        "ts=%s event=nl.flow.suspect level=Warn guid=c2 trace.id=cccc root=request score=0.9 "
        "threshold=0.1 path=request diff=0.3 hosts=cl,fe typical.guid=c0 typical.trace.id=aaaa",
        iso(T0 + 21));
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    nlr_report_t r;
    read_report(db, &r, &o);
    assert_int_equal(r.nlife, 3); /* cccc, its typical aaaa, bbbb (aaaa once) */
    assert_string_equal(r.life[0].guid, "cccc");
    assert_int_equal(r.life[0].by_trace, 1);
    assert_non_null(strstr(r.life[0].why, "odd request flow"));
    assert_int_equal(r.life[0].n, 5); /* across both processes' GUIDs, and the report */
    assert_string_equal(r.life[0].ev[1].host, "fe");
    assert_string_equal(r.life[0].ev[4].event, "nl.flow.suspect");
    size_t len;
    char *page = page_of(&r, dir, &len); /* the report by its tool, not "nl-detect" */
    assert_non_null(strstr(page, ">nl.flow.suspect \xc2\xb7 nl-flows</text>"));
    assert_non_null(strstr(page, "nl.flow.suspect by nl-flows"));
    assert_null(strstr(page, "nl.flow.suspect by nl-detect"));
    free(page);
    assert_string_equal(r.life[1].guid, "aaaa");
    assert_non_null(strstr(r.life[1].why, "typical"));
    assert_string_equal(r.life[2].guid, "bbbb");
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

static int spans_of(const nlr_chart_t *c, int kind)
{
    int n = 0;
    for (int i = 0; i < c->nspans; i++) n += c->spans[i].kind == kind;
    return n;
}

/* nl-detect's and nl-peers' lines, as they write them, laid where they belong. */
static void test_reports_placed(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    for (int i = 0; i < 100; i++)
        for (int h = 1; h <= 3; h++)
            add(&l,
                "ts=%s event=app.read.summary level=Info host=h%d n=4 dur.sum=0.1 v.sum=1000 "
                "int=1",
                iso(T0 + i), h);
    /* an episode on h2 from 20 to 30 s, by two algorithms */
    const char *algos[] = {"msd-hu", "cdf-su"};
    for (int a = 0; a < 2; a++) {
        add(&l,
            "ts=%s event=nl.anomaly.start level=Warn stream=disk algo=%s key.host=h2 "
            "trig.event=app.read.summary dir=low x=1 s=1 score=0.99 start.ts=%s len=6",
            iso(T0 + 21.5), algos[a], iso(T0 + 20));
        add(&l,
            "ts=%s event=nl.anomaly.end level=Info stream=disk algo=%s key.host=h2 dir=low "
            "len=10 start.ts=%s dur=10 x.min=1 x.max=2",
            iso(T0 + 30), algos[a], iso(T0 + 20));
    }
    /* still open at the end, on h3 */
    add(&l,
        "ts=%s event=nl.anomaly.start level=Warn stream=disk algo=msd-hu key.host=h3 "
        "trig.event=app.read.summary dir=high x=1 s=1 score=0.99 start.ts=%s len=6",
        iso(T0 + 91), iso(T0 + 90));
    /* an end whose start is not in the archive */
    add(&l,
        "ts=%s event=nl.anomaly.end level=Info stream=disk algo=msd-hu key.host=h1 dir=low "
        "len=10 start.ts=%s dur=10 x.min=1 x.max=2",
        iso(T0 + 50), iso(T0 - 3 * 86400));
    /* an alert on h1 from 40 to 55 s, its watch a glob */
    add(&l,
        "ts=%s event=nl.alert.start level=Warn name=slow key.host=h1 watch=app.* what=rate "
        "cond=below value=1 threshold=2 reference=4 since=%s held=3 for=3",
        iso(T0 + 43), iso(T0 + 40));
    add(&l,
        "ts=%s event=nl.alert.end level=Info name=slow key.host=h1 watch=app.* what=rate "
        "cond=below value=5 since=%s held=15 for=3",
        iso(T0 + 55), iso(T0 + 40));
    /* a transfer on h4 that never ended: h4 has no other chart */
    add(&l, "ts=%s event=xfer.start level=Info guid=lost-1 host=h4 file=/x", iso(T0 + 60));
    add(&l, "ts=%s event=xfer.start level=Info guid=ok-1 host=h1", iso(T0 + 61));
    add(&l, "ts=%s event=xfer.end level=Info guid=ok-1 host=h1", iso(T0 + 62));
    add(&l,
        "ts=%s event=nl.missing level=Warn guid=lost-1 activity=xfer start.ts=%s timeout=15 "
        "learned=0",
        iso(T0 + 75), iso(T0 + 60));
    /* nl-peers: h3 faulty, blamed on app.read's counts */
    add(&l,
        "ts=%s event=nl.peer.faulty level=Warn prog=app host=h3 since=%s culprit=app.read/n k=3",
        iso(T0 + 80), iso(T0 + 60));
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    nlr_report_t r;
    read_report(db, &r, &o);
    nlr_chart_t *h1 = nlr_chart_find(&r, "app.read", "h1"),
                *h2 = nlr_chart_find(&r, "app.read", "h2"),
                *h3 = nlr_chart_find(&r, "app.read", "h3"), *x4 = nlr_chart_find(&r, "xfer", "h4");
    assert_non_null(h1);
    assert_non_null(h2);
    assert_non_null(h3);
    assert_non_null(x4); /* made for the missing end */
    assert_int_equal(spans_of(h2, NLR_SPAN_EPISODE), 2);
    for (int i = 0; i < h2->nspans; i++) {
        assert_double_equal(h2->spans[i].t0, T0 + 20, 1e-6);
        assert_double_equal(h2->spans[i].t1, T0 + 30, 1e-6);
        assert_false(h2->spans[i].open);
    }
    assert_int_equal(spans_of(h3, NLR_SPAN_EPISODE), 1);
    assert_true(h3->spans[0].open);
    assert_double_equal(h3->spans[0].t1, r.t1, 1e-6);
    assert_int_equal(spans_of(h1, NLR_SPAN_EPISODE), 0);
    assert_int_equal(spans_of(h1, NLR_SPAN_ALERT), 1);
    assert_double_equal(h1->spans[0].t0, T0 + 40, 1e-6);
    assert_double_equal(h1->spans[0].t1, T0 + 55, 1e-6);
    assert_int_equal(x4->nmarks, 1);
    assert_int_equal(x4->marks[0].kind, NLR_MARK_MISSING);
    assert_double_equal(x4->marks[0].t_from, T0 + 60, 1e-6);
    assert_int_equal(nlr_chart_find(&r, "xfer", "h1")->nmarks, 0);
    assert_int_equal(h3->nmarks, 1);
    assert_int_equal(h3->marks[0].kind, NLR_MARK_PEER);
    assert_int_equal(r.npeers, 1);
    assert_string_equal(r.peers[0].host, "h3");
    assert_string_equal(r.peers[0].kind, "faulty");
    assert_int_equal(r.episodes, 3);
    assert_int_equal(r.alerts, 1);
    assert_int_equal(r.missing, 1);
    assert_int_equal(r.unplaced, 1); /* the end without its start */
    /* ranked: the charts with the most reports first */
    assert_ptr_equal(&r.charts[0], nlr_chart_find(&r, "app.read", "h2"));
    /* the lifeline follows the missing end */
    assert_int_equal(r.nlife, 1);
    assert_string_equal(r.life[0].guid, "lost-1");
    assert_int_equal(r.life[0].n, 2); /* its start, and the report */
    assert_string_equal(r.life[0].ev[1].event, "nl.missing");

    /* an alert's tooltip says when it fired (43 s), not only its condition's span */
    char fired[40];
    nlr_fmt_time(fired, sizeof fired, T0 + 43, 1);
    assert_non_null(strstr(h1->spans[0].detail, "fired"));
    assert_non_null(strstr(h1->spans[0].detail, fired));
    nlr_report_free(&r);

    /* --host h2: what other hosts reported is neither drawn nor counted (h4's missing end
     * was counted, and its lifeline drawn, under --host gw3) */
    o.host_glob = "h2";
    read_report(db, &r, &o);
    assert_int_equal(r.episodes, 2);
    assert_int_equal(r.alerts, 0);
    assert_int_equal(r.missing, 0);
    assert_int_equal(r.npeers, 0);
    assert_int_equal(r.unplaced, 0);
    for (int i = 0; i < r.nlife; i++) assert_string_not_equal(r.life[i].guid, "lost-1");
    nlr_report_free(&r);
    o.host_glob = NULL;

    /* a window after the episode: not drawn there, not counted */
    o.since = T0 + 31;
    read_report(db, &r, &o);
    assert_int_equal(nlr_chart_find(&r, "app.read", "h2")->nspans, 0);
    assert_int_equal(r.episodes, 1); /* h3's open one */
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

static char *page_of(const nlr_report_t *r, const char *dir, size_t *len)
{
    const char *p = t_path(dir, "page.html");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    assert_int_equal(nlr_page_write(f, r), 0);
    assert_int_equal(fclose(f), 0);
    return t_slurp(p, len);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* A lifeline's children and rows are bounded: 300 child GUIDs give NLR_LIFE_GUIDS read and
 * the rest counted, NLR_LIFE_ROWS rows drawn and the rest counted, and the page says both. */
static void test_life_bounded(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    add(&l, "ts=%s event=batch.start level=Info guid=top host=h", iso(T0));
    for (int i = 0; i < 300; i++) {
        add(&l, "ts=%s event=item.start level=Info guid=c%03d parent.guid=top host=h",
            iso(T0 + 1 + i * 0.01), i);
        add(&l, "ts=%s event=item.end level=Info guid=c%03d parent.guid=top host=h",
            iso(T0 + 1.005 + i * 0.01), i);
    }
    add(&l, "ts=%s event=batch.end level=Info guid=top host=h", iso(T0 + 10));
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    o.guids[0] = "top";
    o.nguids = 1;
    nlr_report_t r;
    read_report(db, &r, &o);
    const nlr_life_t *a = &r.life[0];
    assert_int_equal(a->children, NLR_LIFE_GUIDS);
    assert_int_equal(a->guids_more, 300 - NLR_LIFE_GUIDS);
    assert_int_equal(a->n, 2 + 2 * NLR_LIFE_GUIDS);
    assert_int_equal(a->nrows, NLR_LIFE_ROWS);
    assert_int_equal(a->rows_more, 1 + NLR_LIFE_GUIDS - NLR_LIFE_ROWS);
    assert_string_equal(a->rows[0].name, "batch");
    for (int i = 1; i < a->nrows; i++) assert_int_equal(a->rows[i].parent, 0);
    size_t len;
    char *page = page_of(&r, dir, &len);
    char want[200];
    snprintf(want, sizeof want, "(and %d more child GUIDs, not read)", 300 - NLR_LIFE_GUIDS);
    assert_non_null(strstr(page, want));
    snprintf(want, sizeof want, "(and %d more rows, not drawn)",
             1 + NLR_LIFE_GUIDS - NLR_LIFE_ROWS);
    assert_non_null(strstr(page, want));
    free(page);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Times to the nearest millisecond: a lifeline's tick at 0.6 s, computed as 0.59999..., read
 * ".599" on the axis. */
static void test_time_rounded(void **state)
{
    (void)state;
    char b[40];
    nlr_fmt_time(b, sizeof b, nextafter(T0 + 0.6, 0), 1);
    assert_string_equal(b + 19, ".600");
    nlr_fmt_time(b, sizeof b, T0 + 19.9996, 1); /* T0 is at 06:40: into the next minute */
    assert_string_equal(b + 14, "07:00.000");
    nlr_fmt_time(b, sizeof b, T0 + 0.0004, 1);
    assert_string_equal(b + 14, "06:40.000");
    nlr_fmt_time(b, sizeof b, T0 + 0.9, 0); /* without: the second it is in */
    assert_string_equal(b + 14, "06:40");
}

/* The chart of this activity and host, or fail. */
static const nlr_chart_t *chart_of(nlr_report_t *r, const char *activity, const char *host)
{
    const nlr_chart_t *c = nlr_chart_find(r, activity, host);
    assert_non_null(c);
    return c;
}

/* Several processes on one host: a line each on its chart, by program, and by pid where one
 * program ran as several (the legend says which); one process alone keeps its one series.
 * Summaries and pairs alike. Each series holds its own process's values only. */
static void test_series_by_process(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    for (int i = 0; i < 40; i++) {
        double t = T0 + i;
        /* h1: two programs, alpha at 1 s of busy time per 0.5-s interval... */
        add(&l, "ts=%s event=app.read.summary level=Info host=h1 prog=alpha pid=7 n=2 "
                "dur.sum=0.1 v.sum=100 int=0.5", iso(t));
        add(&l, "ts=%s event=app.read.summary level=Info host=h1 prog=beta pid=8 n=2 "
                "dur.sum=0.1 v.sum=300 int=0.5", iso(t + 0.25));
        /* h2: one program restarted (two pids); h3: one process */
        add(&l, "ts=%s event=app.read.summary level=Info host=h2 prog=gamma pid=%d n=2 "
                "dur.sum=0.1 v.sum=%d int=0.5", iso(t), i < 20 ? 10 : 11, i < 20 ? 100 : 200);
        add(&l, "ts=%s event=app.read.summary level=Info host=h3 prog=delta pid=5 n=2 "
                "dur.sum=0.1 v.sum=100 int=0.5", iso(t));
        /* pairs on h1 from two programs: front's take 0.1 s, back's 0.3 s */
        add(&l, "ts=%s event=rpc.start level=Info guid=f%d host=h1 prog=front pid=3", iso(t), i);
        add(&l, "ts=%s event=rpc.end level=Info guid=f%d host=h1 prog=front pid=3", iso(t + 0.1),
            i);
        add(&l, "ts=%s event=rpc.start level=Info guid=b%d host=h1 prog=back pid=4", iso(t), i);
        add(&l, "ts=%s event=rpc.end level=Info guid=b%d host=h1 prog=back pid=4", iso(t + 0.3),
            i);
    }
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    nlr_report_t r;
    read_report(db, &r, &o);
    const nlr_chart_t *c = chart_of(&r, "app.read", "h1");
    assert_int_equal(c->nseries, 2);
    assert_string_equal(c->series[0].label, "alpha");
    assert_string_equal(c->series[1].label, "beta");
    assert_string_equal(c->series[1].prog, "beta");
    assert_string_equal(c->series[1].pid, "8");
    assert_int_equal(c->series[0].values, 40);
    for (int k = 0; k < 2; k++) /* rate: v.sum / dur.sum, each process its own */
        for (int i = 0; i < c->series[k].ncols; i++)
            assert_double_equal(c->series[k].cols[i].mean, k ? 3000 : 1000, 1e-6);
    c = chart_of(&r, "app.read", "h2");
    assert_int_equal(c->nseries, 2);
    assert_string_equal(c->series[0].label, "gamma[10]");
    assert_string_equal(c->series[1].label, "gamma[11]");
    assert_int_equal(c->series[1].values, 20);
    c = chart_of(&r, "app.read", "h3");
    assert_int_equal(c->nseries, 0); /* one process: its one series, as before */
    assert_true(c->ncols > 0);
    c = chart_of(&r, "rpc", "h1");
    assert_int_equal(c->nseries, 2);
    assert_string_equal(c->series[0].label, "back");
    assert_string_equal(c->series[1].label, "front");
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < c->series[k].ncols; i++)
            assert_double_equal(c->series[k].cols[i].mean, k ? 0.1 : 0.3, 1e-5);
    /* the page: a line each, and the legend naming them */
    size_t len;
    char *page = page_of(&r, dir, &len);
    assert_non_null(strstr(page, "class=\"series s0\" data-points=\"40\" data-prog=\"alpha\" "
                                 "data-pid=\"7\" data-label=\"alpha\""));
    assert_non_null(strstr(page, "data-prog=\"gamma\" data-pid=\"11\" data-label=\"gamma[11]\""));
    assert_non_null(strstr(page, "2 processes on this host, a line each:"));
    assert_non_null(strstr(page, "<i class=\"s1\"></i>beta (40)</span>"));
    free(page);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* The row of a lifeline with this activity (the first), or -1. */
static int row_of(const nlr_life_t *l, const char *name)
{
    for (int i = 0; i < l->nrows; i++)
        if (!strcmp(l->rows[i].name, name)) return i;
    return -1;
}

/* A GUID's lifeline draws its child spans: GUIDs whose parent.guid is it, recursively, each
 * activity under the one of its parent that holds it in time (the tree nl-flows builds),
 * labelled with its name; a GUID whose parent is not in the archive is an orphan, said so;
 * one whose parent is there but not drawn is not. */
static void test_life_children(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    /* req-1 on fe: a request with a parse step; its child db-1 (on be) a query inside the
     * parse, with a grandchild io-1 (a disk read inside the query); an unrelated request */
    add(&l, "ts=%s event=request.start level=Info guid=req-1 host=fe prog=front", iso(T0));
    add(&l, "ts=%s event=parse.start level=Info guid=req-1 host=fe prog=front", iso(T0 + 0.1));
    add(&l, "ts=%s event=db.query.start level=Info guid=db-1 parent.guid=req-1 host=be prog=db",
        iso(T0 + 0.2));
    add(&l, "ts=%s event=disk.read.start level=Info guid=io-1 parent.guid=db-1 host=be prog=db",
        iso(T0 + 0.3));
    add(&l, "ts=%s event=disk.read.end level=Info guid=io-1 parent.guid=db-1 host=be prog=db",
        iso(T0 + 0.4));
    add(&l, "ts=%s event=cache.miss level=Info guid=db-1 parent.guid=req-1 host=be prog=db",
        iso(T0 + 0.45));
    add(&l, "ts=%s event=db.query.end level=Info guid=db-1 parent.guid=req-1 host=be prog=db",
        iso(T0 + 0.5));
    add(&l, "ts=%s event=parse.end level=Info guid=req-1 host=fe prog=front", iso(T0 + 0.6));
    add(&l, "ts=%s event=request.end level=Info guid=req-1 host=fe prog=front", iso(T0 + 0.9));
    add(&l, "ts=%s event=request.start level=Info guid=req-2 host=fe", iso(T0 + 0.2));
    add(&l, "ts=%s event=request.end level=Info guid=req-2 host=fe", iso(T0 + 0.3));
    /* by span: one whose parent span is req-1's (a child), one whose parent span is nowhere */
    add(&l, "ts=%s event=sub.start level=Info guid=sp-1 parent.span.id=00f067aa0ba902b7 host=be",
        iso(T0 + 3));
    add(&l, "ts=%s event=sub.start level=Info guid=sp-2 parent.span.id=000000000000abcd host=be",
        iso(T0 + 3));
    add(&l, "ts=%s event=mark level=Info guid=req-1 span.id=00f067aa0ba902b7 host=fe",
        iso(T0 + 0.05));
    /* an orphan: its parent never logged anything */
    add(&l, "ts=%s event=job.start level=Info guid=orph-1 parent.guid=gone-9 host=be",
        iso(T0 + 1));
    add(&l, "ts=%s event=job.end level=Info guid=orph-1 parent.guid=gone-9 host=be", iso(T0 + 2));
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    o.guids[0] = "req-1";
    o.guids[1] = "orph-1";
    o.guids[2] = "db-1";
    o.guids[3] = "sp-1";
    o.guids[4] = "sp-2";
    o.nguids = 5;
    nlr_report_t r;
    read_report(db, &r, &o);
    assert_int_equal(r.nlife, 5);
    assert_false(r.life[3].rows[0].orphan);
    assert_string_equal(r.life[3].rows[0].note,
                        "a child of span 00f067aa0ba902b7, whose lifeline is not drawn here");
    assert_true(r.life[4].rows[0].orphan);
    assert_string_equal(r.life[4].rows[0].note,
                        "orphan: its parent.span.id 000000000000abcd is not in the archive");
    assert_true(r.life[4].rows[0].open);
    const nlr_life_t *a = &r.life[0];
    assert_int_equal(a->n, 10); /* its own 5 events, db-1's 3 and io-1's 2, not req-2's */
    assert_int_equal(a->children, 2);
    assert_int_equal(a->nrows, 4);
    int req = row_of(a, "request"), parse = row_of(a, "parse"), q = row_of(a, "db.query"),
        io = row_of(a, "disk.read");
    assert_int_equal(req, 0); /* depth first: each child right under its parent */
    assert_int_equal(parse, 1);
    assert_int_equal(q, 2);
    assert_int_equal(io, 3);
    assert_int_equal(a->rows[req].depth, 0);
    assert_int_equal(a->rows[req].parent, -1);
    assert_int_equal(a->rows[parse].parent, req);
    assert_int_equal(a->rows[q].parent, parse); /* the query ran inside the parse */
    assert_int_equal(a->rows[q].depth, 2);
    assert_string_equal(a->rows[q].guid, "db-1");
    assert_string_equal(a->rows[q].host, "be");
    assert_int_equal(a->rows[io].parent, q);
    assert_int_equal(a->rows[io].depth, 3);
    assert_double_equal(a->rows[q].t0, T0 + 0.2, 1e-6);
    assert_double_equal(a->rows[q].t1, T0 + 0.5, 1e-6);
    assert_false(a->rows[req].orphan);
    assert_null(a->rows[req].note);
    assert_int_equal(a->ndots, 10); /* every event a dot: the point on its query's row */
    int on_q = 0;
    for (int i = 0; i < a->ndots; i++) on_q += a->dots[i].row == q;
    assert_int_equal(on_q, 3);
    const nlr_life_t *b = &r.life[1];
    assert_int_equal(b->nrows, 1);
    assert_true(b->rows[0].orphan);
    assert_non_null(b->rows[0].note);
    assert_non_null(strstr(b->rows[0].note, "gone-9 is not in the archive"));
    const nlr_life_t *c = &r.life[2]; /* a child asked for: its parent is in the archive */
    assert_int_equal(c->nrows, 2); /* db.query, disk.read under it; no row of its parent */
    assert_false(c->rows[0].orphan);
    assert_non_null(strstr(c->rows[0].note, "a child of guid req-1"));
    assert_int_equal(c->rows[row_of(c, "disk.read")].parent, 0);
    /* the page: rows indented by depth, labelled, the orphan said so */
    size_t len;
    char *page = page_of(&r, dir, &len);
    assert_non_null(strstr(page, "data-depth=\"3\" data-t0="));
    assert_non_null(strstr(page, ">disk.read \xc2\xb7 be<"));
    assert_non_null(strstr(page, "<title>orphan: its parent.guid gone-9 is not in the archive"));
    assert_non_null(strstr(page, ">job \xc2\xb7 be (orphan)</text>"));
    assert_non_null(strstr(page, ">cache.miss</text>")); /* a point named on its row */
    assert_non_null(strstr(page, ">sub \xc2\xb7 be (orphan) (no end)</text>"));
    assert_non_null(strstr(page, "with 2 child GUIDs (parent.guid)"));
    assert_non_null(strstr(page, "1 orphan: its parent is not in the archive"));
    free(page);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Hostile names are text on the page; nothing is fetched; the chart count is bounded. */
static void test_page(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    const char *hosts[] = {"\"<script>alert(1)</script>", "a&b'c", "plain"};
    for (int i = 0; i < 20; i++)
        for (int h = 0; h < 3; h++)
            add(&l, "ts=%s event=w<b>.summary level=Info host=%s n=2 dur.sum=0.5 int=1",
                iso(T0 + i), h == 0 ? "\"\\\"<script>alert(1)</script>\"" : hosts[h]);
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    o.title = "<b>title</b>";
    nlr_report_t r;
    read_report(db, &r, &o);
    assert_int_equal(r.ncharts, 3);
    assert_non_null(nlr_chart_find(&r, "w<b>", hosts[0]));
    assert_string_equal(r.charts[0].metric, "mean.dur"); /* no values: durations */
    size_t len;
    char *page = page_of(&r, dir, &len);
    assert_int_equal(count(page, "<script"), 0);
    assert_int_equal(count(page, "<b>"), 4); /* only the page's own bold figures */
    assert_true(count(page, "&lt;script&gt;alert(1)&lt;/script&gt;") >= 2);
    assert_true(count(page, "a&amp;b&#39;c") >= 2);
    assert_true(count(page, "w&lt;b&gt;") >= 3);
    /* nothing fetched: the only URL is the SVG namespace */
    assert_int_equal(count(page, "://"), count(page, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_int_equal(count(page, "src="), 0);
    assert_int_equal(count(page, "<svg class=\"chart\""), 3);
    free(page);
    nlr_report_free(&r);

    /* a host name too long to chart: left out, and said */
    char longhost[1100];
    memset(longhost, 'x', sizeof longhost - 1);
    longhost[sizeof longhost - 1] = 0;
    l = (lines_t){0};
    add(&l, "ts=%s event=w<b>.summary level=Info host=%s n=2 dur.sum=0.5 int=1", iso(T0 + 30),
        longhost);
    load(db, l.v, l.n);
    lines_free(&l);
    read_report(db, &r, &o);
    assert_int_equal(r.ncharts, 3);
    assert_int_equal(r.left_out, 1);
    page = page_of(&r, dir, &len);
    assert_non_null(strstr(page, "1 summary left out"));
    free(page);
    nlr_report_free(&r);

    o.max_charts = 1;
    read_report(db, &r, &o);
    page = page_of(&r, dir, &len);
    assert_int_equal(count(page, "<svg class=\"chart\""), 1);
    assert_non_null(strstr(page, "2 more charts not drawn"));
    assert_int_equal(count(page, "<tr class=\"dev-"), 3); /* the overview lists them all */
    free(page);
    nlr_report_free(&r);
    nll_db_close(db);

    /* an empty archive: a page that says so */
    const char *empty = keep(t_path(dir, "empty.db"));
    db = new_archive(empty);
    o = opts(empty);
    read_report(db, &r, &o);
    assert_int_equal(r.ncharts, 0);
    page = page_of(&r, dir, &len);
    assert_non_null(strstr(page, "No summarized or start/end activity in this window"));
    assert_non_null(strstr(page, "</html>"));
    free(page);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* What the page must not hide or invent: a summarized activity's p99 from its histograms
 * (the page showed "—"); a window baseline without the values inside an anomaly episode
 * (its p5 was the dip itself); a start cut off by the end of the run apart from a missing
 * end; --since far before the data narrowed to the data; units in the overview's headers. */
static void test_page_tells_truth(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "t.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    uint32_t fast = nl__hist_bucket(0.01), slow = nl__hist_bucket(1.0);
    for (int i = 0; i < 100; i++) {
        /* h1: 10 pairs of 10 ms a second, 1 s each in 5 of them (50 of 1050 pairs): a rate
         * of 1000/s, 100/s from 40 to 59 s, inside the episode laid below */
        int dip = i >= 40 && i < 60, long_ = i % 20 == 7;
        double d = long_ ? 1.0 : 0.01;
        add(&l,
            "ts=%s event=app.read.summary level=Info host=h1 n=10 dur.sum=%g dur.min=%g "
            "dur.max=%g v.sum=%g int=1 dur.h=%u:10",
            iso(T0 + i), 10 * d, d, d, (dip ? 100 : 1000) * 10 * d, long_ ? slow : fast);
        /* h2: no histograms */
        add(&l, "ts=%s event=app.read.summary level=Info host=h2 n=10 dur.sum=0.1 v.sum=100 int=1",
            iso(T0 + i));
    }
    add(&l,
        "ts=%s event=nl.anomaly.start level=Warn stream=s algo=msd-hu key.host=h1 "
        "trig.event=app.read.summary dir=low x=1 s=1 score=0.99 start.ts=%s len=6",
        iso(T0 + 41), iso(T0 + 40));
    add(&l,
        "ts=%s event=nl.anomaly.end level=Info stream=s algo=msd-hu key.host=h1 dir=low len=20 "
        "start.ts=%s dur=19.5 x.min=1 x.max=2",
        iso(T0 + 59.5), iso(T0 + 40));
    /* h3 starts a transfer at 95 s and logs nothing after: the run ended (99 s) before its
     * learned timeout could pass twice; a cut-off, not an incident */
    add(&l, "ts=%s event=xfer.start level=Info guid=ok-1 host=h1", iso(T0 + 10));
    add(&l, "ts=%s event=xfer.end level=Info guid=ok-1 host=h1", iso(T0 + 12));
    add(&l, "ts=%s event=xfer.start level=Info guid=cut-1 host=h3", iso(T0 + 95));
    add(&l,
        "ts=%s event=nl.missing level=Warn guid=cut-1 activity=xfer start.ts=%s timeout=2 "
        "learned=1",
        iso(T0 + 97), iso(T0 + 95));
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    o.since = T0 - 7200; /* two hours asked for, 100 s of data */
    nlr_report_t r;
    read_report(db, &r, &o);
    assert_double_equal(r.t0, T0, 1e-6); /* the axis spans the data, not the two hours */
    assert_double_equal(r.t1, T0 + 99, 1e-6);
    nlr_chart_t *h1 = nlr_chart_find(&r, "app.read", "h1"),
                *h2 = nlr_chart_find(&r, "app.read", "h2");
    assert_non_null(h1);
    assert_non_null(h2);
    /* p99 of the 1050 pairs: the 1040th is one of the 50 of 1 s (clamped to dur.max) */
    assert_double_equal(h1->dur_p99, 1.0, 1e-9);
    assert_true(isnan(h2->dur_p99));
    /* the baseline: this window without the 20 values inside the episode */
    assert_int_equal(h1->base_from, NLR_BASE_WINDOW);
    assert_int_equal(h1->base_flagged, 20);
    assert_int_equal(h1->base_n, 80);
    assert_double_equal(h1->base_p5, 1000, 1e-6);
    assert_double_equal(h1->base_p50, 1000, 1e-6);
    assert_int_equal(h2->base_flagged, 0);
    /* the cut-off transfer: marked as such, not counted as a missing end, no lifeline */
    nlr_chart_t *x3 = nlr_chart_find(&r, "xfer", "h3");
    assert_non_null(x3);
    assert_int_equal(x3->nmarks, 1);
    assert_int_equal(x3->marks[0].kind, NLR_MARK_CUTOFF);
    assert_int_equal(r.missing, 0);
    assert_int_equal(r.cutoff, 1);
    for (int i = 0; i < r.nlife; i++) assert_string_not_equal(r.life[i].guid, "cut-1");
    size_t len;
    char *page = page_of(&r, dir, &len);
    assert_non_null(strstr(page, "<th>p99 dur (s)</th>"));
    assert_non_null(strstr(page, "<th>mean dur (s)</th>"));
    assert_non_null(strstr(page, "mean (value/s | s)</th>"));
    assert_non_null(strstr(page, "<th>baseline p50 (value/s | s)</th>"));
    assert_non_null(strstr(page, "<td>1s</td>"));   /* h1's p99, with its unit */
    assert_non_null(strstr(page, "<td>1k/s</td>")); /* h1's baseline median, with its unit */
    assert_non_null(strstr(page, "this window without the 20 values inside anomaly episodes"));
    assert_non_null(strstr(page, "data-from=\"window-unflagged\""));
    assert_non_null(strstr(page, "1 start cut off by the end of the run"));
    assert_non_null(strstr(page, "<g class=\"cutoff\""));
    assert_null(strstr(page, "<g class=\"missing\""));
    free(page);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Latency and errors beside the rate: each drawn summary chart's columns carry the p50,
 * p90 and p99 of the pairs its summaries folded (their dur.h merged: within 1/64 of the
 * exact nearest-rank value of the raw durations in that column, clamped to dur.min and
 * dur.max) and the share that failed (err.n over n, exactly); a host whose summaries carry
 * neither has no such strip. A 5-minute slowdown of 4 times shows in p99. */
static void test_durations_and_errors(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "d.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    uint64_t rs = 5;
    enum { N = 1600, K = 20 };
    static double dur[N][K], ts[N];
    static int errs[N];
    for (int i = 0; i < N; i++) {
        ts[i] = T0 + i * 0.5;
        nl__hist_t h = {0};
        double sum = 0, lo = INFINITY, hi = 0;
        for (int k = 0; k < K; k++) {
            double d = (0.005 + 0.045 * t_unit(&rs)) * (i >= 800 && i < 1000 ? 4 : 1);
            char txt[32];
            nl__dtoa(d, txt);
            d = strtod(txt, NULL); /* as the line holds it */
            dur[i][k] = d;
            assert_int_equal(nl__hist_add(&h, d), 0);
            sum += d, lo = fmin(lo, d), hi = fmax(hi, d);
        }
        errs[i] = (int)(t_unit(&rs) * 4);
        nl_buf_t b;
        nl_buf_init(&b, NULL, 0);
        nl__hist_put(&b, &h);
        char s_[32], lo_[32], hi_[32];
        nl__dtoa(sum, s_), nl__dtoa(lo, lo_), nl__dtoa(hi, hi_);
        add(&l,
            "ts=%s event=api.call.summary level=Info host=h1 n=%d dur.sum=%s dur.min=%s "
            "dur.max=%s int=0.5 err.n=%d dur.h=%.*s",
            iso(ts[i]), K, s_, lo_, hi_, errs[i], (int)b.len, b.p);
        add(&l, "ts=%s event=api.call.summary level=Info host=h2 n=%d dur.sum=0.2 int=0.5",
            iso(ts[i]), K);
        nl_buf_free(&b);
        nl__hist_free(&h);
    }
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    nlr_report_t r;
    read_report(db, &r, &o);
    nlr_chart_t *c = nlr_chart_find(&r, "api.call", "h1"), *c2 = nlr_chart_find(&r, "api.call", "h2");
    assert_non_null(c);
    assert_non_null(c2);
    /* brute force: the columns' raw durations, sorted, and their errors */
    int j = 0, k0 = 0;
    long long e_all = 0;
    double slow99 = 0, fast99 = 0;
    for (int i = 0; i < N; i++) e_all += errs[i];
    while (k0 < N) {
        int col = (int)floor((ts[k0] - r.t0) * (NLR_COLS / (r.t1 - r.t0)));
        if (col >= NLR_COLS) col = NLR_COLS - 1;
        int k1 = k0;
        static double v[N * K];
        int nv = 0;
        long long en = 0, ep = 0;
        double tsum = 0;
        for (;; k1++) {
            int c1 = k1 < N ? (int)floor((ts[k1] - r.t0) * (NLR_COLS / (r.t1 - r.t0))) : -1;
            if (k1 < N && c1 >= NLR_COLS) c1 = NLR_COLS - 1;
            if (k1 == N || c1 != col) break;
            for (int k = 0; k < K; k++) v[nv++] = dur[k1][k];
            en += errs[k1], ep += K, tsum += ts[k1];
        }
        qsort(v, (size_t)nv, sizeof *v, cmp_dbl);
        assert_true(j < c->ndcols);
        const nlr_dcol_t *d = &c->dcols[j];
        assert_double_equal(d->t, tsum / (k1 - k0), 1e-6);
        const double q[3] = {0.5, 0.9, 0.99}, got[3] = {d->p50, d->p90, d->p99};
        for (int m = 0; m < 3; m++) {
            double want = v[(int)ceil(q[m] * nv) - 1];
            assert_double_equal(got[m], want, want / 64 + 1e-12);
        }
        assert_double_equal(d->err, (double)en / (double)ep, 1e-12);
        if (k0 >= 800 && k1 <= 1000) slow99 = fmax(slow99, d->p99);
        if (k1 <= 800) fast99 = fmax(fast99, d->p99);
        j++;
        k0 = k1;
    }
    assert_int_equal(j, c->ndcols);
    assert_true(slow99 > 3 * 0.045 && fast99 <= 0.05 * (1 + 1.0 / 64)); /* the slowdown shows */
    assert_int_equal(c->err_n, e_all);
    assert_int_equal(c->err_pairs, (int64_t)N * K);
    assert_int_equal(c->hist_bad, 0);
    assert_int_equal(c2->err_pairs, 0);
    assert_true(c2->dmax == 0 && c2->emax == 0);
    size_t len;
    char *page = page_of(&r, dir, &len);
    assert_int_equal(count(page, "<svg class=\"durations\""), 1); /* h1's: h2 has neither */
    assert_int_equal(count(page, "<path class=\"pct p99\""), 1);
    assert_int_equal(count(page, "<path class=\"pct p50\""), 1);
    assert_int_equal(count(page, "<path class=\"errratio\""), 1);
    char cell[64];
    snprintf(cell, sizeof cell, "<td class=\"errors\">%.3g%%</td>", 100.0 * e_all / (N * K));
    assert_non_null(strstr(page, cell));
    assert_non_null(strstr(page, "<th title=\"err.n / n of the summaries that counted outcomes\">"
                                 "errors (%)</th>"));
    free(page);
    nlr_report_free(&r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* 200,000 summaries of one host: the page stays the size of one chart of NLR_COLS columns. */
static void test_size_bounded(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    size_t sizes[2];
    for (int round = 0; round < 2; round++) {
        lines_t l = {0};
        int n = round ? 200000 : 2000;
        for (int i = 0; i < n; i++)
            add(&l, "ts=%s event=a.summary level=Info host=h n=1 dur.sum=%g v.sum=10 int=1",
                iso(T0 + round * 1e6 + i), 0.1 + (i % 97) * 0.001);
        load(db, l.v, l.n);
        lines_free(&l);
        nlr_opts_t o = opts(path);
        o.since = T0 + round * 1e6;
        o.until = o.since + n;
        nlr_report_t r;
        read_report(db, &r, &o);
        assert_int_equal(r.ncharts, 1);
        assert_int_equal(r.charts[0].values, n);
        assert_true(r.charts[0].ncols <= NLR_COLS);
        char *page = page_of(&r, dir, &sizes[round]);
        free(page);
        nlr_report_free(&r);
    }
    /* 100 times the values, at most 100 points more of path text; never 100 times the page */
    fprintf(stderr, "page: %zu bytes for 2,000 summaries, %zu for 200,000\n", sizes[0], sizes[1]);
    assert_true(sizes[1] < sizes[0] * 2);
    assert_true(sizes[1] < 200000);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Memory follows the charts drawn, not the activities x hosts of the archive: nl-report over
 * 400 and then 4,000 hosts' summaries (3 each, an activity per host); its peak resident
 * memory (getrusage of the child) must grow far less than tenfold, and by less than
 * NLR_RANK_KEEP's bound per series. Before, each activity x host held about 87 KB of
 * columns whether drawn or not (1.75 GB for 20,000). */
static void test_memory_bounded(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    long rss[2];
    const int hosts[2] = {400, 4000};
    for (int round = 0; round < 2; round++) {
        char name[32];
        snprintf(name, sizeof name, "m%d.db", round);
        const char *path = keep(t_path(dir, name));
        nll_db_t *db = new_archive(path);
        lines_t l = {0};
        for (int h = 0; h < hosts[round]; h++)
            for (int i = 0; i < 3; i++)
                add(&l, "ts=%s event=a%d.summary level=Info host=h%05d n=1 dur.sum=%g v.sum=10 int=1",
                    iso(T0 + i), h % 3, h, 0.1 + (h % 7) * 0.01 + i * 0.001);
        load(db, l.v, l.n);
        lines_free(&l);
        nll_db_close(db);
        const char *out = keep(t_path(dir, "m.html")), *err = keep(t_path(dir, "m.err"));
        t_child_t c = {.err = err};
        const char *args[] = {"-d", path, "-o", out, NULL};
        pid_t pid = t_spawn(report_prog, &c, args);
        int st;
        struct rusage ru;
        assert_int_equal(wait4(pid, &st, 0, &ru), pid);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
        size_t n;
        char *said = t_slurp(err, &n), want[64];
        snprintf(want, sizeof want, "%d activities x hosts, 60 drawn", hosts[round]);
        if (!strstr(said, want)) fprintf(stderr, "%s", said);
        assert_non_null(strstr(said, want));
        free(said);
        rss[round] = ru.ru_maxrss; /* KiB */
    }
    long per = (rss[1] - rss[0]) * 1024 / (hosts[1] - hosts[0]);
    fprintf(stderr, "    peak RSS %ld KiB for %d series, %ld KiB for %d: %ld bytes per series more\n",
            rss[0], hosts[0], rss[1], hosts[1], per);
    assert_true(rss[1] < rss[0] * 3);             /* ten times the series */
    assert_true(per < 2 * NLR_RANK_KEEP * 8 + 4096); /* the samples' bound, and the row */
    t_rmtree(dir);
}

/* Extreme values (one negative value repeated, rates near a double's limit, a window of a
 * microsecond): a page, every coordinate a number. */
static void test_extremes(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    for (int i = 0; i < 5; i++) {
        add(&l, "ts=%s event=neg.summary level=Info host=h n=1 dur.sum=-1e+20 int=1", iso(T0 + i));
        add(&l, "ts=%s event=big.summary level=Info host=h n=1 dur.sum=1e-300 v.sum=1e+149 int=1",
            iso(T0 + i));
    }
    load(db, l.v, l.n);
    lines_free(&l);
    nlr_opts_t o = opts(path);
    nlr_report_t r;
    for (int round = 0; round < 2; round++) {
        if (round) o.since = T0 + 1, o.until = T0 + 1.000001;
        read_report(db, &r, &o);
        size_t len;
        char *page = page_of(&r, dir, &len);
        assert_non_null(strstr(page, "</html>"));
        assert_null(strstr(page, "nan"));
        assert_null(strstr(page, "inf\""));
        if (!round) assert_non_null(strstr(page, "5 derived values (rate or mean duration)"));
        free(page);
        nlr_report_free(&r);
    }
    nll_db_close(db);
    t_rmtree(dir);
}

/* The program: a page renamed into place, and clear errors that leave nothing behind. */
static void test_program(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = keep(t_path(dir, "a.db"));
    nll_db_t *db = new_archive(path);
    lines_t l = {0};
    add(&l, "ts=%s event=a.summary level=Info host=h n=1 dur.sum=0.1 v.sum=10 int=1", iso(T0));
    load(db, l.v, l.n);
    lines_free(&l);
    nll_db_close(db);
    const char *out = keep(t_path(dir, "r.html")), *err = keep(t_path(dir, "err.txt"));
    t_child_t c = {.err = err};
    const char *ok[] = {"-d", path, "-o", out, NULL};
    assert_int_equal(t_run(report_prog, &c, ok), 0);
    struct stat sb;
    assert_int_equal(stat(out, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0644);
    size_t n;
    char *text = t_slurp(err, &n);
    assert_non_null(strstr(text, "wrote"));
    free(text);

    const char *missing = keep(t_path(dir, "nope.db"));
    const char *bad_db[] = {"-d", missing, "-o", out, NULL};
    assert_int_equal(t_run(report_prog, &c, bad_db), 1);
    text = t_slurp(err, &n);
    assert_non_null(strstr(text, "nope.db")); /* says which archive */
    free(text);

    const char *bad_when[] = {"-d", path, "--since", "yesterday-ish", NULL};
    assert_int_equal(t_run(report_prog, &c, bad_when), 2);
    text = t_slurp(err, &n);
    assert_non_null(strstr(text, "--since"));
    free(text);

    const char *nodir = keep(t_path(dir, "no/such/dir/r.html"));
    const char *bad_out[] = {"-d", path, "-o", nodir, NULL};
    assert_int_equal(t_run(report_prog, &c, bad_out), 1);
    text = t_slurp(err, &n);
    assert_non_null(strstr(text, "no/such/dir/r.html"));
    free(text);

    /* a junk file as the archive */
    const char *junk = keep(t_path(dir, "junk.db"));
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    for (int i = 0; i < 4096; i++) fputc((i * 7919) & 0xff, f);
    fclose(f);
    const char *bad_junk[] = {"-d", junk, "-o", out, NULL};
    assert_int_equal(t_run(report_prog, &c, bad_junk), 1);
    text = t_slurp(err, &n);
    assert_non_null(strstr(text, "junk.db"));
    free(text);
    t_rmtree(dir);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s NL-REPORT\n", argv[0]);
        return 2;
    }
    report_prog = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_columns),  cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_odd_flows),        cmocka_unit_test(test_reports_placed),
        cmocka_unit_test(test_page),             cmocka_unit_test(test_page_tells_truth),
        cmocka_unit_test(test_size_bounded),     cmocka_unit_test(test_memory_bounded),
        cmocka_unit_test(test_extremes),         cmocka_unit_test(test_durations_and_errors),
        cmocka_unit_test(test_program),          cmocka_unit_test(test_life_children),
        cmocka_unit_test(test_series_by_process), cmocka_unit_test(test_life_bounded),
        cmocka_unit_test(test_time_rounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
