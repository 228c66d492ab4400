/* SPDX-License-Identifier: BSD-3-Clause */
/* test_eval_match.c — the evaluation's scoring on hand-made episodes: found / FP / FN,
 * the grace after an injection, weak injections, badness, precision, recall and how much
 * of a lasting fault the episodes cover. */
#include <math.h>

#include "eval_match.h"
#include "nl_test.h"

static const em_span_t two[] = {{100, 200, 0}, {300, 400, 0}};

static void test_found_fp_fn(void **state)
{
    (void)state;
    const em_span_t ep[] = {{150, 160, 0}, {500, 510, 0}};
    em_score_t s;
    em_score(two, 2, ep, 2, 0, 0, &s);
    assert_int_equal(s.correct, 1);
    assert_int_equal(s.fp, 1);
    assert_int_equal(s.fn, 1);
    assert_int_equal(s.ep_true, 1);
    assert_true(fabs(em_badness(&s) - 2.0) < 1e-12);
    assert_true(fabs(em_precision(&s) - 0.5) < 1e-12);
    assert_true(fabs(em_recall(&s) - 0.5) < 1e-12);
}

static void test_many_episodes_one_injection(void **state)
{
    (void)state;
    const em_span_t ep[] = {{110, 120, 0}, {130, 131, 0}, {199, 250, 0}};
    em_score_t s;
    em_score(two, 2, ep, 3, 0, 0, &s);
    assert_int_equal(s.correct, 1); /* found once, however many episodes */
    assert_int_equal(s.fn, 1);
    assert_int_equal(s.fp, 0);
    assert_int_equal(s.ep_true, 3);
}

static void test_one_episode_two_injections(void **state)
{
    (void)state;
    const em_span_t ep[] = {{190, 310, 0}};
    em_score_t s;
    em_score(two, 2, ep, 1, 0, 0, &s);
    assert_int_equal(s.correct, 2);
    assert_int_equal(s.fn, 0);
    assert_int_equal(s.fp, 0);
    assert_true(em_badness(&s) == 0);
}

static void test_edges_and_grace(void **state)
{
    (void)state;
    em_score_t s;
    const em_span_t ends_at_start[] = {{90, 100, 0}}; /* last flag at the injection's start */
    em_score(two, 1, ends_at_start, 1, 0, 0, &s);
    assert_int_equal(s.correct, 1);
    const em_span_t before[] = {{90, 99.5, 0}};
    em_score(two, 1, before, 1, 0, 0, &s);
    assert_int_equal(s.correct, 0);
    assert_int_equal(s.fp, 1);
    const em_span_t late[] = {{205, 230, 0}}; /* a smoothed algorithm, 5 s after the end */
    em_score(two, 1, late, 1, 0, 0, &s);
    assert_int_equal(s.correct, 0);
    assert_int_equal(s.fp, 1);
    assert_int_equal(s.fn, 1);
    em_score(two, 1, late, 1, 10, 0, &s);
    assert_int_equal(s.correct, 1);
    assert_int_equal(s.fp, 0);
    const em_span_t at_grace[] = {{210, 230, 0}}; /* exactly end + grace: outside */
    em_score(two, 1, at_grace, 1, 10, 0, &s);
    assert_int_equal(s.correct, 0);
}

static void test_weak(void **state)
{
    (void)state;
    const em_span_t inj[] = {{100, 200, 0}, {600, 700, 1}};
    const em_span_t ep[] = {{150, 150, 0}, {650, 660, 0}};
    em_score_t s;
    em_score(inj, 2, ep, 2, 0, 0, &s);
    assert_int_equal(s.correct, 1); /* the weak one is neither found nor missed */
    assert_int_equal(s.fn, 0);
    assert_int_equal(s.fp, 0); /* and its episode is no false positive */
    assert_int_equal(s.weak_found, 1);
    assert_int_equal(s.ep_true, 1);
    em_score(inj, 2, ep, 1, 0, 0, &s); /* weak one missed: still no FN */
    assert_int_equal(s.fn, 0);
    assert_int_equal(s.weak_found, 0);
    em_score(inj, 2, ep, 2, 0, 1, &s); /* counted */
    assert_int_equal(s.correct, 2);
    assert_int_equal(s.weak_found, 0);
    em_score(inj, 2, ep, 1, 0, 1, &s);
    assert_int_equal(s.fn, 1);
}

static void test_badness_edges(void **state)
{
    (void)state;
    em_score_t s = {0};
    assert_true(em_badness(&s) == 0);
    assert_true(isnan(em_recall(&s)));
    assert_true(isnan(em_precision(&s)));
    s.fn = 1;
    assert_true(isinf(em_badness(&s)));
    em_score(two, 2, NULL, 0, 0, 0, &s);
    assert_int_equal(s.fn, 2);
    assert_int_equal(s.correct, 0);
}

static void test_coverage(void **state)
{
    (void)state;
    const em_span_t inj = {0, 100, 0};
    const em_span_t ep[] = {{50, 59, 0}, {10, 19, 0}, {15, 20, 0}, {95, 130, 0}, {-20, -5, 0}};
    /* (9,19] U (14,20] = 11 s, (49,59] = 10 s, (94,100) = 6 s; the last one is before */
    assert_true(fabs(em_coverage(&inj, ep, 5, 1) - 0.27) < 1e-12);
    assert_true(em_coverage(&inj, ep, 0, 1) == 0);
    const em_span_t all[] = {{1, 100, 0}};
    assert_true(fabs(em_coverage(&inj, all, 1, 1) - 1.0) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_fp_fn),
        cmocka_unit_test(test_many_episodes_one_injection),
        cmocka_unit_test(test_one_episode_two_injections),
        cmocka_unit_test(test_edges_and_grace),
        cmocka_unit_test(test_weak),
        cmocka_unit_test(test_badness_edges),
        cmocka_unit_test(test_coverage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
