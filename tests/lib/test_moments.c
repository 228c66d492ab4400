/* SPDX-License-Identifier: BSD-3-Clause */
/* test_moments.c — the shared statistics accumulator: exact on hand-computed series,
 * no cancellation near large offsets, no drift over ten million nanosecond durations, and
 * merging per-thread accumulators gives the single-accumulator result. */
#include <math.h>
#include <stdlib.h>

#include "nl_test.h"
#include "nlkit/nl_moments.h"

static void test_known_series(void **state)
{
    (void)state;
    nl_moments_t m;
    nl_mom_init(&m);
    static const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
    for (int i = 0; i < 8; i++) nl_mom_add(&m, v[i]);
    assert_int_equal(nl_mom_count(&m), 8);
    assert_true(nl_mom_sum(&m) == 40.0);
    assert_true(nl_mom_mean(&m) == 5.0);
    assert_true(fabs(nl_mom_sd(&m) - sqrt(32.0 / 7.0)) < 1e-15);
    assert_true(nl_mom_min(&m) == 2.0 && nl_mom_max(&m) == 9.0);
    nl_mom_add(&m, NAN); /* ignored */
    assert_int_equal(nl_mom_count(&m), 8);
}

static void test_empty_and_single(void **state)
{
    (void)state;
    nl_moments_t m;
    nl_mom_init(&m);
    assert_true(nl_mom_sum(&m) == 0.0);
    assert_true(isnan(nl_mom_mean(&m)) && isnan(nl_mom_min(&m)) && isnan(nl_mom_max(&m)));
    assert_true(nl_mom_sd(&m) == 0.0);
    nl_mom_add(&m, -3.5);
    assert_true(nl_mom_mean(&m) == -3.5 && nl_mom_sd(&m) == 0.0);
    assert_true(nl_mom_min(&m) == -3.5 && nl_mom_max(&m) == -3.5);
}

/* Values near 1e9 that differ by 1: sum-of-squares formulas cancel to garbage here. */
static void test_large_offset(void **state)
{
    (void)state;
    nl_moments_t m;
    nl_mom_init(&m);
    for (int i = 1; i <= 4; i++) nl_mom_add(&m, 1e9 + i);
    assert_true(fabs(nl_mom_sd(&m) - sqrt(5.0 / 3.0)) < 1e-9);
    assert_true(nl_mom_mean(&m) == 1e9 + 2.5);
    /* and a series whose first value is far from the rest */
    nl_mom_init(&m);
    nl_mom_add(&m, 0.0);
    for (int i = 0; i < 1000; i++) nl_mom_add(&m, 1e8 + (i % 2));
    double mean = (1000 * 1e8 + 500) / 1001.0;
    assert_true(fabs(nl_mom_mean(&m) - mean) < 1e-6);
}

/* Ten million durations of 1..1000 ns: the compensated sum stays exact to the last digits,
 * where naive summation drifts. */
static void test_no_drift(void **state)
{
    (void)state;
    nl_moments_t m;
    nl_mom_init(&m);
    double naive = 0;
    long long ticks = 0;
    const long n = 10000000;
    for (long i = 0; i < n; i++) {
        long k = 1 + (i * 7919) % 1000;
        double x = (double)k * 1e-9;
        ticks += k;
        naive += x;
        nl_mom_add(&m, x);
    }
    double exact = (double)ticks * 1e-9;
    double ours = fabs(nl_mom_sum(&m) - exact) / exact, theirs = fabs(naive - exact) / exact;
    print_message("relative error over %ld values: compensated %.3g, naive %.3g\n", n, ours,
                  theirs);
    assert_true(ours < 1e-15);
    assert_true(theirs > ours); /* the test would notice a plain sum */
    assert_true(fabs(nl_mom_mean(&m) - exact / (double)n) < 1e-20);
}

static void test_merge_equals_single(void **state)
{
    (void)state;
    uint64_t seed = 11;
    enum { PARTS = 8, N = 100000 };
    nl_moments_t all, part[PARTS];
    nl_mom_init(&all);
    for (int p = 0; p < PARTS; p++) nl_mom_init(&part[p]);
    for (int i = 0; i < N; i++) {
        double x = (double)(t_rand(&seed) % 1000000) + (i < 10 ? 5e6 : 0); /* integers */
        nl_mom_add(&all, x);
        nl_mom_add(&part[(i * 31) % PARTS], x);
    }
    nl_moments_t merged;
    nl_mom_init(&merged);
    for (int p = 0; p < PARTS; p++) nl_mom_merge(&merged, &part[p]);
    assert_int_equal(nl_mom_count(&merged), N);
    assert_true(nl_mom_sum(&merged) == nl_mom_sum(&all)); /* integer data: exact */
    assert_true(nl_mom_min(&merged) == nl_mom_min(&all));
    assert_true(nl_mom_max(&merged) == nl_mom_max(&all));
    assert_true(fabs(nl_mom_mean(&merged) - nl_mom_mean(&all)) < 1e-9);
    assert_true(fabs(nl_mom_sd(&merged) / nl_mom_sd(&all) - 1) < 1e-12);
    /* merging into an empty accumulator, and merging an empty one, change nothing */
    nl_moments_t e;
    nl_mom_init(&e);
    nl_mom_merge(&merged, &e);
    assert_int_equal(nl_mom_count(&merged), N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_series),        cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_large_offset),        cmocka_unit_test(test_no_drift),
        cmocka_unit_test(test_merge_equals_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
