/* SPDX-License-Identifier: BSD-3-Clause */
/* test_quant.c — the order-statistic multiset agrees with a sorted array (the brute-force
 * answer) on 100k random adds and removes, with many duplicates; quantiles follow R's
 * type 7 on hand-computed cases; bad input is refused without changing anything. */
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
    static const double v[] = {7, 1, 3, 3, 10};
    for (int i = 0; i < 5; i++) assert_int_equal(nl_quant_add(q, v[i]), 0);
    /* sorted: 1 3 3 7 10 */
    assert_int_equal(nl_quant_count(q), 5);
    assert_true(nl_quant_select(q, 0) == 1 && nl_quant_select(q, 2) == 3);
    assert_true(nl_quant_select(q, 4) == 10 && isnan(nl_quant_select(q, 5)));
    assert_int_equal(nl_quant_rank(q, 3), 1);
    assert_int_equal(nl_quant_rank(q, 3.5), 3);
    assert_int_equal(nl_quant_rank(q, 100), 5);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed),
        cmocka_unit_test(test_against_sort),
        cmocka_unit_test(test_deterministic_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
