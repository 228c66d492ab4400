/* SPDX-License-Identifier: BSD-3-Clause */
/* test_hist.c — the summaries' log-linear histograms (internal/nl_hist.h) against exact
 * percentiles of a million random values of several distributions (within 2 %), merges
 * equal to one histogram of every value (also through the line form), the window's
 * bound, and malformed line forms refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_hist.h"
#include "nl_test.h"

enum { N = 1000000 };

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A value of distribution `kind`: seconds-like durations of very different shapes. */
static double draw(int kind, uint64_t *rs)
{
    double u = t_unit(rs);
    if (u <= 0) u = 1e-12;
    switch (kind) {
    case 0: return 1e-3 + u * 9e-3; /* uniform 1-10 ms */
    case 1: return -log(u) * 2e-4;  /* exponential, 200 us */
    case 2: {                       /* lognormal */
        double v = t_unit(rs), z = sqrt(-2 * log(u)) * cos(2 * M_PI * v);
        return exp(-7 + 1.5 * z);
    }
    case 3: return 1e-5 * pow(u, -1 / 1.2);                       /* Pareto: a heavy tail */
    case 4: return t_unit(rs) < 0.97 ? 5e-5 + u * 1e-5 : 0.5 + u; /* bimodal: rare stalls */
    default: return (double)(t_rand(rs) % 1000000);               /* integers, zero too */
    }
}

static const double qs[] = {0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 1};
#define NQ (sizeof qs / sizeof qs[0])

static void test_exact_percentiles(void **state)
{
    (void)state;
    double *x = malloc(N * sizeof *x);
    uint64_t rs = 2026;
    double worst = 0;
    for (int kind = 0; kind < 6; kind++) {
        nl__hist_t h = {0};
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < N; i++) {
            x[i] = draw(kind, &rs);
            assert_int_equal(nl__hist_add(&h, x[i]), 0);
            lo = fmin(lo, x[i]);
            hi = fmax(hi, x[i]);
        }
        assert_int_equal(h.n, N);
        assert_int_equal(h.refused, 0);
        qsort(x, N, sizeof *x, cmp_dbl);
        for (size_t k = 0; k < NQ; k++) {
            size_t rank = (size_t)ceil(qs[k] * N);
            double exact = x[rank ? rank - 1 : 0];
            double got = nl__hist_quantile(&h, qs[k], lo, hi);
            double err = exact == 0 ? fabs(got) : fabs(got - exact) / exact;
            if (err > 0.02)
                fail_msg("distribution %d, q=%g: %.9g, exact %.9g (%.2f %%)", kind, qs[k], got,
                         exact, 100 * err);
            if (err > worst) worst = err;
        }
        nl__hist_free(&h);
    }
    printf("worst relative error over 6 distributions x %zu quantiles: %.3f %%\n", NQ, 100 * worst);
    assert_true(worst <= 1.0 / 64 + 1e-12); /* the bound nl_hist.h states */
    free(x);
}

static void assert_same_quantiles(const nl__hist_t *a, const nl__hist_t *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t k = 0; k < NQ; k++) {
        double x = nl__hist_quantile(a, qs[k], -INFINITY, INFINITY);
        double y = nl__hist_quantile(b, qs[k], -INFINITY, INFINITY);
        if (x != y) fail_msg("q=%g: merged %.17g, single %.17g", qs[k], x, y);
    }
}

/* 50 "hosts" or "intervals" each with their own histogram, merged directly and through
 * the line form: the same percentiles as one histogram of all the values, exactly. */
static void test_merge_is_exact(void **state)
{
    (void)state;
    enum { PARTS = 50 };
    uint64_t rs = 7;
    nl__hist_t all = {0}, part[PARTS] = {{0}}, merged = {0}, via_text = {0};
    for (int i = 0; i < 200000; i++) {
        double v = draw(i % 5, &rs);
        nl__hist_add(&all, v);
        nl__hist_add(&part[t_rand(&rs) % PARTS], v);
    }
    for (int p = 0; p < PARTS; p++) {
        assert_int_equal(nl__hist_merge(&merged, &part[p]), 0);
        nl_buf_t b;
        nl_buf_init(&b, NULL, 0);
        nl__hist_put(&b, &part[p]);
        assert_int_equal(b.err, 0);
        for (size_t i = 0; i < b.len; i++) /* nothing that would need quoting */
            assert_true(b.p[i] == ',' || b.p[i] == ':' || (b.p[i] >= '0' && b.p[i] <= '9'));
        assert_int_equal(nl__hist_parse(&via_text, b.p, b.len), 0);
        nl_buf_free(&b);
        nl__hist_free(&part[p]);
    }
    assert_same_quantiles(&merged, &all);
    assert_same_quantiles(&via_text, &all);
    nl__hist_free(&all);
    nl__hist_free(&merged);
    nl__hist_free(&via_text);
}

static void test_window_and_refusals(void **state)
{
    (void)state;
    nl__hist_t h = {0};
    assert_int_equal(nl__hist_add(&h, 1e-9), 0);
    assert_int_equal(nl__hist_add(&h, 1e9), 0);   /* 60 powers of two: within the bound */
    assert_int_equal(nl__hist_add(&h, 1e12), -1); /* 70: refused, counted */
    assert_int_equal(nl__hist_add(&h, -1), -1);
    assert_int_equal(nl__hist_add(&h, NAN), -1);
    assert_int_equal(nl__hist_add(&h, INFINITY), -1);
    assert_int_equal(nl__hist_add(&h, 0), 0);      /* zero has its own bucket, outside the window */
    assert_int_equal(nl__hist_add(&h, 1e-310), 0); /* below DBL_MIN: zero as well */
    assert_int_equal(h.n, 4);
    assert_int_equal(h.zero, 2);
    assert_int_equal(h.refused, 4);
    assert_true(h.cap <= NL_HIST_SPAN_MAX);
    assert_true(nl__hist_quantile(&h, 0.5, 0, INFINITY) == 0);
    assert_true(nl__hist_quantile(&h, 0.75, 0, INFINITY) > 9e-10);
    nl__hist_clear(&h);
    assert_int_equal(h.n, 0);
    assert_int_equal(nl__hist_add(&h, 1e15), -1); /* the window stays where it was */
    nl__hist_free(&h);
    assert_int_equal(nl__hist_add(&h, 1e15), 0); /* a fresh one starts anywhere */
    nl__hist_free(&h);
    assert_true(isnan(nl__hist_quantile(&h, 0.5, 0, 1)));
}

static void test_line_form_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",        "1",       "1:",          ":1",           "1:0",  "1:2,0:3", "1:2,",
        "1:2;3:4", "65536:1", "65535:1,1:1", "1:4294967296", "-1:1", "1:2,3",   "x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nl__hist_t h = {0};
        if (nl__hist_parse(&h, bad[i], strlen(bad[i])) != -1) fail_msg("'%s' was read", bad[i]);
        nl__hist_free(&h);
    }
    nl__hist_t h = {0};
    const char *ok = "0:5,32704:3,1:2,64:1"; /* five zeros, then buckets 32704, 32705, 32769 */
    assert_int_equal(nl__hist_parse(&h, ok, strlen(ok)), 0);
    assert_int_equal(h.n, 11);
    assert_int_equal(h.zero, 5);
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl__hist_put(&b, &h);
    assert_int_equal(b.len, strlen(ok));
    assert_memory_equal(b.p, ok, b.len);
    nl_buf_free(&b);
    /* 1.0 is 0x3ff0000000000000: bucket 0x7fe0, [1, 1 + 1/32), reported as its midpoint */
    assert_int_equal(nl__hist_bucket(1.0), 0x7fe0);
    assert_true(nl__hist_mid(0x7fe0) == 1 + 1.0 / 64);
    assert_int_equal(nl__hist_bucket(1.0 + 1.0 / 32), 0x7fe1);
    nl__hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_percentiles),
        cmocka_unit_test(test_merge_is_exact),
        cmocka_unit_test(test_window_and_refusals),
        cmocka_unit_test(test_line_form_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
