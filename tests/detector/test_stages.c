/* SPDX-License-Identifier: BSD-3-Clause */
/* test_stages.c — a value's judgement runs in the stages of enum nld_stage (nld_algo.h),
 * in that order, each recording its output in the verdict: the raw score (1), calibrated
 * against the stream's own raw surprises (2), discounted (3: young= here, the one discount
 * whose share a test can write down), held to the threshold (4). On a noisy stream with
 * spikes, every verdict is checked against the stages recomputed outside the bank; the
 * series is one where the order decides verdicts: values calibration takes below the
 * threshold, values only the discount takes below it, and values a discount applied
 * before calibration would judge otherwise. Swapping any two stages in judge_stages fails
 * here. */
#include <math.h>
#include <stdlib.h>

#include "nl_test.h"
#include "nld_algo.h"
#include "nld_calib.h"
#include "nld_tail.h"

#define SEC 1000000LL
#define N 3000
#define YOUNG 2400u
#define WINDOW 50u
#define THR 0.6 /* a surprise of 1.5: P = 0.03 */
#define MSD_HU 3

static double normal(uint64_t *rs)
{
    double u = t_unit(rs), v = t_unit(rs);
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static void test_order(void **state)
{
    (void)state;
    nld_params_t p;
    nld_params_default(&p);
    p.algos = 1u << MSD_HU;
    p.calib = WINDOW;
    p.young = YOUNG;
    p.threshold = THR;
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    /* calibration as stage 2 must do it (fed the raw surprises), and as it would be with
     * the discount first (fed the discounted ones) */
    nld_calib_t in_order, swapped;
    assert_int_equal(nld_calib_init(&in_order, WINDOW, 0), 0);
    assert_int_equal(nld_calib_init(&swapped, WINDOW, 0), 0);
    uint64_t rs = 61;
    int judged = 0, calib_lowered = 0, discount_lowered = 0, flagged = 0, order_decides = 0;
    for (int i = 0; i < N; i++) {
        /* noise, and now and then a spike of 2 to 6 sd */
        double x = 100 + 5 * normal(&rs);
        if (t_unit(&rs) < 0.04) x += 10 + 20 * t_unit(&rs);
        nld_verdict_t v[NLD_ALGOS];
        int err;
        nld_bank_step_at(&b, x, i * SEC, v, &err);
        assert_int_equal(err, 0);
        const nld_verdict_t *o = &v[MSD_HU];
        assert_true(o->thr == THR);
        if (o->state == NLD_WARMUP) {
            assert_true(o->raw == 0 && o->calibrated == 0 && o->score == 0);
            continue;
        }
        judged++;
        /* 1: the raw score, a surprise under the history's normal model */
        double raw = nld_surprise_of(o->raw);
        assert_true(raw >= 0 && isfinite(raw));
        /* 2: calibration of the raw surprise, not of a discounted one */
        double cal = nld_calib_step(&in_order, raw);
        assert_true(fabs(o->calibrated - nld_score_of(cal)) < 1e-12);
        /* 3: the discount of the calibrated surprise: the n-th value keeps n / young */
        double w = (double)(i + 1) < YOUNG ? (double)(i + 1) / YOUNG : 1;
        double want = w < 1 ? nld_score_of(cal * w) : o->calibrated;
        assert_true(fabs(o->score - want) < 1e-12);
        /* 4: the threshold holds the discounted score */
        int st = o->score >= THR ? o->side : NLD_NORMAL;
        assert_int_equal(o->state, st);
        /* where the order decides */
        if (o->raw >= THR && o->calibrated < THR) calib_lowered++;
        if (o->calibrated >= THR && o->score < THR) discount_lowered++;
        if (o->state != NLD_NORMAL) flagged++;
        double sw = nld_score_of(nld_calib_step(&swapped, raw * w));
        if ((sw >= THR) != (o->score >= THR)) order_decides++;
    }
    print_message("judged %d: %d flagged, %d lowered below the threshold by calibration, %d by "
                  "the discount; %d judged otherwise with the discount before calibration\n",
                  judged, flagged, calib_lowered, discount_lowered, order_decides);
    assert_int_equal(judged, N - (int)p.min);
    assert_true(flagged > 10);
    assert_true(calib_lowered > 10);
    assert_true(discount_lowered > 10);
    assert_true(order_decides > 10);
    nld_calib_free(&in_order);
    nld_calib_free(&swapped);
    nld_bank_free(&b);
}

/* Without a threshold the algorithm's own rule decides (stage 4 leaves it), whatever the
 * score; the stages still record theirs. */
static void test_own_rule(void **state)
{
    (void)state;
    nld_params_t p;
    nld_params_default(&p);
    p.algos = 1u << MSD_HU;
    p.calib = WINDOW;
    p.want_scores = 1;
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    uint64_t rs = 5;
    int own_flags = 0;
    for (int i = 0; i < 500; i++) {
        double x = 100 + 5 * normal(&rs) + (i % 50 == 49 ? 40 : 0);
        nld_verdict_t v[NLD_ALGOS];
        int err;
        nld_bank_step_at(&b, x, i * SEC, v, &err);
        const nld_verdict_t *o = &v[MSD_HU];
        assert_true(o->thr == 0);
        if (o->state == NLD_WARMUP) continue;
        assert_int_equal(o->state, o->own);
        assert_true(o->raw > 0 && o->calibrated > 0);
        assert_true(o->score == o->calibrated); /* no discount */
        if (o->own != NLD_NORMAL) own_flags++;
    }
    assert_true(own_flags >= 9);
    nld_bank_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_own_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
