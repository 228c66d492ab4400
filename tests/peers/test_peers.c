/* SPDX-License-Identifier: BSD-3-Clause */
/* test_peers.c — nl-peers' arithmetic on hand-made profiles (exact distances and k-th
 * neighbour scores, medians, culprit, k-of-(2k-1), fail-stop with and without skew), and
 * its engine on hand-made summary lines: a slowed host is named with its culprit, a
 * known-good reference keeps a master among workers from being suspected, the learned
 * threshold, and bad lines are counted, not fatal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nlkit/nl.h"
#include "nlp.h"
#include "nlp_score.h"

static void test_distances(void **state)
{
    (void)state;
    double a[4] = {0.5, 0.25, 0.25, 0}, b[4] = {0.25, 0.25, 0.25, 0.25};
    assert_true(fabs(nlp_distance(a, b, 4, NLP_MANHATTAN) - 0.5) < 1e-15);
    assert_true(fabs(nlp_distance(a, b, 4, NLP_EUCLID) - sqrt(0.125)) < 1e-15);
    double raw[3] = {2, 6, 0};
    nlp_normalize(raw, 3);
    assert_true(raw[0] == 0.25 && raw[1] == 0.75 && raw[2] == 0);
    double zero[2] = {0, 0};
    nlp_normalize(zero, 2); /* nothing to share: stays zero, no NaN */
    assert_true(zero[0] == 0 && zero[1] == 0);
}

static void test_kth_nearest_and_median(void **state)
{
    (void)state;
    /* distances from host 2 to hosts 0..5 (itself 0) */
    double d[6] = {0.4, 0.1, 0, 0.3, 0.2, 0.9};
    int who;
    assert_true(nlp_kth_nearest(d, 6, 2, 1, &who) == 0.1 && who == 1);
    assert_true(nlp_kth_nearest(d, 6, 2, 2, &who) == 0.2 && who == 4);
    assert_true(nlp_kth_nearest(d, 6, 2, 4, &who) == 0.4 && who == 0);
    assert_true(nlp_kth_nearest(d, 6, 2, 99, &who) == 0.9 && who == 5); /* capped at n - 1 */
    assert_true(nlp_median_other(d, 6, 2) == 0.3);                      /* of .1 .2 .3 .4 .9 */
    double e[4] = {0, 0.2, 0.4, 0.8};
    assert_true(fabs(nlp_median_other(e, 4, 0) - 0.4) < 1e-15);
    assert_true(fabs(nlp_median(e, 4) - 0.3) < 1e-15);
    double one[1] = {0};
    assert_true(isnan(nlp_kth_nearest(one, 1, 0, 1, &who)) && who == -1);
    assert_int_equal(nlp_default_k(16), 4);
    assert_int_equal(nlp_default_k(3), 1);
    assert_int_equal(nlp_default_k(9), 2);
}

/* The k-th nearest by selection is what sorting gives, index included, ties and all. */
static void test_kth_nearest_selects_as_sorting_would(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int round = 0; round < 2000; round++) {
        size_t n = 2 + t_rand(&seed) % 60, self = t_rand(&seed) % n;
        double d[64], s[64];
        int idx[64];
        for (size_t i = 0; i < n; i++) d[i] = (double)(t_rand(&seed) % 8) / 8; /* many ties */
        size_t m = 0;
        for (size_t i = 0; i < n; i++) /* insertion sort by (distance, index) */
            if (i != self) {
                size_t j = m++;
                while (j > 0 && s[j - 1] > d[i]) s[j] = s[j - 1], idx[j] = idx[j - 1], j--;
                s[j] = d[i];
                idx[j] = (int)i;
            }
        size_t k = 1 + t_rand(&seed) % m;
        int who;
        assert_true(nlp_kth_nearest(d, n, self, k, &who) == s[k - 1]);
        assert_int_equal(who, idx[k - 1]);
    }
}

static void test_culprit(void **state)
{
    (void)state;
    double a[4] = {0.10, 0.40, 0.22, 0.28}, b[4] = {0.14, 0.21, 0.30, 0.35}, diff;
    assert_int_equal(nlp_culprit(a, b, 4, &diff), 1);
    assert_true(fabs(diff - 0.19) < 1e-15);
    assert_int_equal(nlp_culprit(b, a, 4, &diff), 1); /* the sign says which way */
    assert_true(fabs(diff + 0.19) < 1e-15);
}

static void test_k_of_window(void **state)
{
    (void)state;
    /* k = 3: at least 3 of the last 5 windows */
    assert_true(nlp_k_of_window(0x7, 3));   /* 00111 */
    assert_true(nlp_k_of_window(0x15, 3));  /* 10101 */
    assert_false(nlp_k_of_window(0x11, 3)); /* 10001: two */
    assert_false(nlp_k_of_window(0x38, 3)); /* 111000: all older than 5 */
    assert_true(nlp_k_of_window(0x1c, 3));  /* 11100 */
    assert_true(nlp_k_of_window(0x1, 1));   /* k = 1: the last window */
    assert_false(nlp_k_of_window(0x2, 1));
}

static void test_failstop(void **state)
{
    (void)state;
    double last[5] = {100, 100.5, 99.8, 100.2, 70};
    assert_int_equal(nlp_failstop(last, 5, 10), 4);
    assert_int_equal(nlp_failstop(last, 5, 40), -1); /* within the clock-skew tolerance */
    double spread[5] = {100, 60, 140, 75, 50};       /* the others disagree too much */
    assert_int_equal(nlp_failstop(spread, 5, 10), -1);
    double two[2] = {100, 10};
    assert_int_equal(nlp_failstop(two, 2, 1), -1); /* too few to tell */
}

/* ---- the engine, on hand-made lines ---- */

typedef struct run {
    const char *dir, *out;
    nl_log_t *log;
    nlp_t *p;
} run_t;

static void run_start(run_t *r, const nlp_opts_t *o)
{
    r->dir = t_tmpdir();
    r->out = t_path(r->dir, "out.log");
    r->log = nl_open(r->out);
    assert_non_null(r->log);
    char err[128];
    r->p = nlp_new(o, r->log, err, sizeof err);
    assert_non_null(r->p);
}

static char *run_end(run_t *r)
{
    nl_close(r->log);
    char *text = t_slurp(r->out, NULL);
    assert_non_null(text);
    nlp_free(r->p);
    t_rmtree(r->dir);
    return text;
}

/* One second of summary lines for a host: time shares of four activities. */
static void second(nlp_t *p, int s, const char *host, const double share[4])
{
    static const char *const act[4] = {"disk.read", "disk.write", "net.read", "net.write"};
    for (int a = 0; a < 4; a++) {
        char line[256];
        int n = snprintf(line, sizeof line,
                         "ts=2026-01-05T00:%02d:%02d.000000Z event=%s.summary level=Info "
                         "host=%s prog=srv n=10 dur.sum=%.4f v.sum=1000 int=1",
                         s / 60, s % 60, act[a], host, share[a]);
        assert_int_equal(nlp_line(p, line, (size_t)n, "t", s, NULL), 1);
    }
}

static const double normal[4] = {0.1, 0.2, 0.3, 0.4};
static const double slow[4] = {0.1, 0.6, 0.3, 0.4};   /* disk.write takes longer */
static const double master[4] = {0.4, 0.1, 0.1, 0.4}; /* unlike the workers, by design */

/* 8 workers (w0 slowed from second 200 on), up to 9 minutes */
static void pool(nlp_t *p, int secs, int with_master)
{
    for (int s = 0; s < secs; s++) {
        for (int h = 0; h < 8; h++) {
            char name[8];
            snprintf(name, sizeof name, "w%d", h);
            /* a little difference between hosts, so distances are not all zero */
            double x[4];
            for (int a = 0; a < 4; a++)
                x[a] = (h == 0 && s >= 200 ? slow : normal)[a] * (1 + 0.01 * ((h + a) % 3));
            second(p, s, name, x);
        }
        if (with_master) second(p, s, "master", master);
    }
}

static void test_engine_names_slowed_host(void **state)
{
    (void)state;
    nlp_opts_t o;
    nlp_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    nlp_begin_phase(r.p, NLP_WATCH);
    pool(r.p, 540, 0);
    nlp_end_phase(r.p);
    nlp_counts_t c;
    nlp_counts(r.p, &c);
    char *t = run_end(&r);
    /* windows [0,60) [30,90) ...; slowed from 200 s: the window [150,210) already holds 10
     * slow seconds, enough above these near-identical hosts (threshold: the 0.05 floor), so
     * anomalous at 210, 240, 270: faulty at 270, since 150 */
    assert_non_null(strstr(t, "ts=2026-01-05T00:04:30.000000Z event=nl.peer.faulty level=Warn "
                              "prog=srv host=w0 since=2026-01-05T00:02:30.000000Z "
                              "culprit=disk.write k=3"));
    assert_null(strstr(t, "host=w1 ")); /* nobody else */
    assert_int_equal(c.faulty, 1);
    assert_int_equal(c.failstop, 0);
    assert_int_equal(c.windows, 16); /* ending at 60, 90 ... 510: the last line is at 539 */
    free(t);
}

static void test_reference_clears_master(void **state)
{
    (void)state;
    nlp_opts_t o;
    nlp_opts_default(&o);
    for (int with_ref = 0; with_ref < 2; with_ref++) {
        run_t r;
        run_start(&r, &o);
        if (with_ref) { /* a known-good run: workers and the master, nobody slowed */
            nlp_begin_phase(r.p, NLP_REFERENCE);
            pool(r.p, 150, 1);
            nlp_end_phase(r.p);
        }
        nlp_begin_phase(r.p, NLP_WATCH);
        pool(r.p, 540, 1);
        nlp_end_phase(r.p);
        nlp_counts_t c;
        nlp_counts(r.p, &c);
        char *t = run_end(&r);
        /* without a reference the master looks faulty; with one it does not, and the
         * slowed worker still does */
        assert_true((strstr(t, "event=nl.peer.faulty level=Warn prog=srv host=master ") != NULL) ==
                    !with_ref);
        assert_non_null(strstr(t, "event=nl.peer.faulty level=Warn prog=srv host=w0 "));
        if (with_ref) assert_true(c.refs > 0);
        free(t);
    }
}

static void test_train_and_failstop(void **state)
{
    (void)state;
    nlp_opts_t o;
    nlp_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    nlp_begin_phase(r.p, NLP_TRAIN);
    pool(r.p, 180, 0); /* slowed only from 200 s: fault-free here */
    nlp_end_phase(r.p);
    double thr = nlp_threshold(r.p);
    assert_true(thr > 0 && thr < 0.2);
    nlp_begin_phase(r.p, NLP_WATCH);
    for (int s = 0; s < 300; s++) /* w7 stops at 120 s */
        for (int h = 0; h < 8; h++) {
            char name[8];
            snprintf(name, sizeof name, "w%d", h);
            if (!(h == 7 && s >= 120)) second(r.p, s, name, normal);
        }
    assert_int_equal(nlp_line(r.p, "this is no event", 16, "t", 1, NULL), NL_EPARSE);
    nlp_end_phase(r.p);
    nlp_counts_t c;
    nlp_counts(r.p, &c);
    char *t = run_end(&r);
    assert_non_null(strstr(t, "event=nl.peer.failstop level=Warn prog=srv host=w7 "
                              "last.ts=2026-01-05T00:01:59.000000Z"));
    assert_int_equal(c.failstop, 1);
    assert_int_equal(c.faulty, 0);
    assert_int_equal(c.bad, 1);
    free(t);
}

/* More activities or hosts than the engine tells apart: left out, and counted. */
static void test_overflow_counted(void **state)
{
    (void)state;
    nlp_opts_t o;
    nlp_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    nlp_begin_phase(r.p, NLP_WATCH);
    for (int a = 0; a < NLP_ACT_MAX + 6; a++) {
        char line[256];
        int n = snprintf(line, sizeof line,
                         "ts=2026-01-05T00:00:01.000000Z event=act%d.summary level=Info "
                         "host=h0 prog=srv n=1 dur.sum=0.5",
                         a);
        assert_int_equal(nlp_line(r.p, line, (size_t)n, "t", a + 1, NULL), 1);
    }
    for (int h = 0; h < NLP_HOST_MAX + 3; h++) {
        char line[256];
        int n = snprintf(line, sizeof line,
                         "ts=2026-01-05T00:00:02.000000Z event=act0.summary level=Info "
                         "host=x%d prog=srv n=1 dur.sum=0.5",
                         h);
        assert_int_equal(nlp_line(r.p, line, (size_t)n, "t", h + 1, NULL), 1);
    }
    nlp_end_phase(r.p);
    nlp_counts_t c;
    nlp_counts(r.p, &c);
    assert_int_equal(c.act_overflow, 6);
    assert_int_equal(c.host_overflow, 4); /* h0 was the first host */
    free(run_end(&r));
}

static void test_bad_options(void **state)
{
    (void)state;
    nlp_opts_t o;
    nlp_opts_default(&o);
    o.win = 10;
    o.shift = 30;
    char err[128] = "";
    assert_null(nlp_new(&o, NULL, err, sizeof err));
    assert_non_null(strstr(err, "window"));
    nlp_opts_default(&o);
    o.metrics = 0;
    assert_null(nlp_new(&o, NULL, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distances),
        cmocka_unit_test(test_kth_nearest_and_median),
        cmocka_unit_test(test_kth_nearest_selects_as_sorting_would),
        cmocka_unit_test(test_culprit),
        cmocka_unit_test(test_k_of_window),
        cmocka_unit_test(test_failstop),
        cmocka_unit_test(test_engine_names_slowed_host),
        cmocka_unit_test(test_reference_clears_master),
        cmocka_unit_test(test_train_and_failstop),
        cmocka_unit_test(test_overflow_counted),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
