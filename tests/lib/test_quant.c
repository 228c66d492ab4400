/* SPDX-License-Identifier: BSD-3-Clause */
/* test_quant.c — the order-statistic multiset agrees with a sorted array (the brute-force
 * answer) on 100k random adds and removes, with many duplicates; on sizes far past its
 * first guess and back down to nothing; on windows sliding over trending series; quantiles
 * follow R's type 7 on hand-computed cases; bad input is refused without changing
 * anything. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nlkit/nl_quant.h"

static void test_hand_computed(void **state)
{
    (void)state;
    nl_quant_t *q = nl_quant_new(0);
    assert_non_null(q);
    assert_true(isnan(nl_quant_quantile(q, 0.5)));
    assert_true(isnan(nl_quant_select(q, 0)));
    size_t below = 5;
    assert_true(isnan(nl_quant_quantile_below(q, 0.5, &below)) && below == 0);
    static const double v[] = {7, 1, 3, 3, 10};
    for (int i = 0; i < 5; i++) assert_int_equal(nl_quant_add(q, v[i]), 0);
    /* sorted: 1 3 3 7 10 */
    assert_int_equal(nl_quant_count(q), 5);
    assert_true(nl_quant_select(q, 0) == 1 && nl_quant_select(q, 2) == 3);
    assert_true(nl_quant_select(q, 4) == 10 && isnan(nl_quant_select(q, 5)));
    assert_int_equal(nl_quant_rank(q, 3), 1);
    assert_int_equal(nl_quant_rank(q, 3.5), 3);
    assert_int_equal(nl_quant_rank(q, 100), 5);
    assert_int_equal(nl_quant_rank(q, NAN), 5);  /* as the search always answered: all */
    assert_true(nl_quant_quantile(q, 0.5) == 3); /* h = 2 */
    assert_true(nl_quant_quantile(q, 0.0) == 1);
    assert_true(nl_quant_quantile(q, 1.0) == 10);
    assert_true(nl_quant_quantile(q, 0.875) == 8.5);            /* h = 3.5: 7 + .5 * 3 */
    assert_true(fabs(nl_quant_quantile(q, 0.1) - 1.8) < 1e-12); /* h = .4: 1 + .4 * 2 */
    assert_true(isnan(nl_quant_quantile(q, 1.5)) && isnan(nl_quant_quantile(q, NAN)));
    assert_int_equal(nl_quant_add(q, NAN), NL_EINVAL);
    assert_int_equal(nl_quant_remove(q, 4), NL_EINVAL);
    assert_int_equal(nl_quant_count(q), 5);
    assert_int_equal(nl_quant_remove(q, 3), 0);
    assert_int_equal(nl_quant_count(q), 4);
    assert_true(nl_quant_select(q, 1) == 3 && nl_quant_select(q, 2) == 7);
    nl_quant_clear(q);
    assert_int_equal(nl_quant_count(q), 0);
    assert_int_equal(nl_quant_add(q, -0.0), 0);
    assert_int_equal(nl_quant_remove(q, 0.0), 0); /* -0 == 0 */
    nl_quant_free(q);
    nl_quant_free(NULL);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Type 7 on a sorted array: the reference the structure must match exactly. */
static double ref_quantile(const double *s, size_t n, double u)
{
    double h = (double)(n - 1) * u, f = floor(h);
    size_t i = (size_t)f;
    if (i + 1 >= n || h == f) return s[i];
    return s[i] + (h - f) * (s[i + 1] - s[i]);
}

static void test_against_sort(void **state)
{
    (void)state;
    enum { OPS = 100000, MAXN = 3000 };
    double *ref = malloc(MAXN * sizeof *ref);
    assert_non_null(ref);
    size_t n = 0;
    uint64_t rs = 42;
    nl_quant_t *q = nl_quant_new(0);
    for (int op = 0; op < OPS; op++) {
        uint64_t r = t_rand(&rs);
        int do_add = n == 0 || (n < MAXN && (r % 100) < 55);
        if (do_add) {
            /* half the values from a small set, so duplicates are common */
            double x = (r >> 8) % 2 ? (double)((r >> 16) % 50)
                                    : ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 1e6;
            assert_int_equal(nl_quant_add(q, x), 0);
            ref[n++] = x;
        } else {
            size_t i = (size_t)((r >> 8) % n);
            assert_int_equal(nl_quant_remove(q, ref[i]), 0);
            ref[i] = ref[--n];
        }
        assert_int_equal(nl_quant_count(q), n);
        /* a handful of random probes per operation, a full check now and then */
        qsort(ref, n, sizeof *ref, cmp_d);
        uint64_t p = t_rand(&rs);
        if (n) {
            size_t k = (size_t)(p % n);
            assert_true(nl_quant_select(q, k) == ref[k]);
            double probe = ref[k] + ((p >> 40) % 3 == 0 ? 0.0 : 0.5);
            size_t lt = 0;
            while (lt < n && ref[lt] < probe) lt++;
            assert_int_equal(nl_quant_rank(q, probe), lt);
            double u = (double)(p >> 11) / 9007199254740992.0;
            assert_true(nl_quant_quantile(q, u) == ref_quantile(ref, n, u));
            /* with the count below it, at u and at a u that lands on an order statistic */
            for (int t = 0; t < 2; t++) {
                double uu = t ? (double)k / (double)(n > 1 ? n - 1 : 1) : u, qv;
                size_t below = 99;
                qv = nl_quant_quantile_below(q, uu, &below);
                assert_true(qv == ref_quantile(ref, n, uu));
                size_t lt2 = 0;
                while (lt2 < n && ref[lt2] < qv) lt2++;
                assert_int_equal(below, lt2);
            }
        }
        if (op % 5000 == 0)
            for (size_t k = 0; k < n; k++) assert_true(nl_quant_select(q, k) == ref[k]);
    }
    nl_quant_free(q);
    free(ref);
}

/* The same calls build the same structure: replaying a log gives the same answers. */
static void test_deterministic_growth(void **state)
{
    (void)state;
    nl_quant_t *a = nl_quant_new(1), *b = nl_quant_new(1);
    for (int i = 0; i < 100000; i++) {
        double x = (double)((i * 7919) % 100003);
        assert_int_equal(nl_quant_add(a, x), 0);
        assert_int_equal(nl_quant_add(b, x), 0);
    }
    for (int i = 0; i < 100000; i += 1000)
        assert_true(nl_quant_select(a, (size_t)i) == nl_quant_select(b, (size_t)i));
    assert_true(nl_quant_quantile(a, 0.5) == nl_quant_quantile(b, 0.5));
    nl_quant_free(a);
    nl_quant_free(b);
}

/* Insert x into the sorted ref[0..*n-1]. */
static void ref_insert(double *ref, size_t *n, double x)
{
    size_t i = *n;
    while (i > 0 && ref[i - 1] > x) i--;
    memmove(ref + i + 1, ref + i, (*n - i) * sizeof *ref);
    ref[i] = x;
    (*n)++;
}

/* Remove ref[i] from the sorted ref. */
static void ref_erase(double *ref, size_t *n, size_t i)
{
    memmove(ref + i, ref + i + 1, (*n - i - 1) * sizeof *ref);
    (*n)--;
}

static void check_all(const nl_quant_t *q, const double *ref, size_t n)
{
    assert_int_equal(nl_quant_count(q), n);
    for (size_t k = 0; k < n; k++) assert_true(nl_quant_select(q, k) == ref[k]);
    assert_true(isnan(nl_quant_select(q, n)));
}

/* Sizes far past the structure's first guess (blocks regroup as it grows), then down to
 * nothing (blocks merge and share as it shrinks), and windows that slide over trending
 * values (every add at one end, every remove at the other): each against a sorted array. */
static void test_grow_shrink_slide(void **state)
{
    (void)state;
    enum { BIG = 40000 };
    double *ref = malloc(BIG * 2 * sizeof *ref);
    assert_non_null(ref);
    uint64_t rs = 7;
    for (int hint = 0; hint <= 2000; hint += 2000) {
        nl_quant_t *q = nl_quant_new((size_t)hint);
        size_t n = 0;
        for (int phase = 0; phase < 2; phase++) {
            for (long op = 0; phase == 0 ? n < BIG : n > 0; op++) {
                uint64_t r = t_rand(&rs);
                int add = (r % 100) < (phase == 0 ? 80u : 20u) || n == 0;
                if (add) {
                    double x = (r >> 8) % 3 ? (double)((r >> 16) % 1000) : (double)(r >> 20);
                    assert_int_equal(nl_quant_add(q, x), 0);
                    ref_insert(ref, &n, x);
                } else {
                    size_t i = (size_t)((r >> 8) % n);
                    assert_int_equal(nl_quant_remove(q, ref[i]), 0);
                    ref_erase(ref, &n, i);
                }
                assert_int_equal(nl_quant_count(q), n);
                if (n) {
                    size_t k = (size_t)((r >> 24) % n);
                    assert_true(nl_quant_select(q, k) == ref[k]);
                    size_t lt = k;
                    while (lt > 0 && ref[lt - 1] == ref[k]) lt--;
                    assert_int_equal(nl_quant_rank(q, ref[k]), lt);
                }
                if (op % 7919 == 0) check_all(q, ref, n);
            }
            check_all(q, ref, n);
        }
        /* a sliding window of 3000 over a rising, then a falling, then a flat series */
        enum { W = 3000 };
        double *win = ref + BIG; /* the window in arrival order */
        for (int trend = 1; trend >= -1; trend--) {
            nl_quant_clear(q);
            for (long i = 0; i < 20000; i++) {
                double x = (double)(trend * i) + (double)(t_rand(&rs) % 10);
                if (i >= W) assert_int_equal(nl_quant_remove(q, win[i % W]), 0);
                assert_int_equal(nl_quant_add(q, x), 0);
                win[i % W] = x;
                if (i % 2500 == 2499) {
                    n = i + 1 < W ? (size_t)i + 1 : W;
                    memcpy(ref, win, n * sizeof *ref);
                    qsort(ref, n, sizeof *ref, cmp_d);
                    check_all(q, ref, n);
                    assert_true(nl_quant_quantile(q, 0.95) == ref_quantile(ref, n, 0.95));
                }
            }
        }
        nl_quant_free(q);
    }
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed),
        cmocka_unit_test(test_against_sort),
        cmocka_unit_test(test_deterministic_growth),
        cmocka_unit_test(test_grow_shrink_slide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
