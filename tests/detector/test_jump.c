/* SPDX-License-Identifier: BSD-3-Clause */
/* test_jump.c — a flag must be news at the stream's own scale (nld_jump.h, jump=): a
 * value's jump is its distance from the median of the previous five; after a jump of 100
 * a jump of 10 keeps 10 / (F * 100) of its surprise, one of at least F * 100 all of it;
 * the scale halves every half-life of event time and does not decay without event times;
 * the level is the median of the five values before, whatever their order;
 * values that are not finite change nothing; in the bank, the blips after an outage's
 * spike score lower with jump= than without while the spike itself scores the same; and
 * the configuration reads jump= and jump.halflife= and refuses what they cannot be. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nld.h"
#include "nld_algo.h"
#include "nld_jump.h"
#include "nld_tail.h"
#include "t_bank.h"

#define MIN 60000000LL
#define DAY 86400000000LL

/* A flat stream at 10 (jumps of 0: the scale stays 0, nothing is weighed), then a spike of
 * +100, then smaller ones. */
static void test_factor(void **state)
{
    (void)state;
    nld_jump_t j;
    nld_jump_init(&j);
    for (int i = 0; i < 10; i++) assert_true(nld_jump_step(&j, 10, i * MIN, 0.5, 7 * 86400.0) == 1);
    assert_true(nld_jump_step(&j, 110, 10 * MIN, 0.5, 7 * 86400.0) == 1); /* the first jump */
    assert_true(fabs(j.scale - 100) < 1e-9);
    /* back to 10: the level (median of 10,10,10,10,110) is 10, so a jump of 0 */
    assert_true(nld_jump_step(&j, 10, 11 * MIN, 0.5, 7 * 86400.0) < 1e-9);
    double w = nld_jump_step(&j, 20, 12 * MIN, 0.5, 7 * 86400.0); /* a jump of 10 */
    assert_true(fabs(w - 10 / (0.5 * 100 * exp2(-2.0 / (7 * 1440)))) < 1e-6);
    assert_true(nld_jump_step(&j, 70, 13 * MIN, 0.5, 7 * 86400.0) == 1); /* 60 >= 50 */
    /* not finite: 1, and the state is as it was */
    nld_jump_t before = j;
    assert_true(nld_jump_step(&j, NAN, 14 * MIN, 0.5, 7 * 86400.0) == 1);
    assert_true(nld_jump_step(&j, INFINITY, 14 * MIN, 0.5, 7 * 86400.0) == 1);
    assert_memory_equal(&before, &j, sizeof j);
}

/* The scale halves every half-life; without event times it keeps its size. */
static void test_decay(void **state)
{
    (void)state;
    nld_jump_t j;
    nld_jump_init(&j);
    for (int i = 0; i < 5; i++) nld_jump_step(&j, 0, i * MIN, 0.5, 86400.0);
    nld_jump_step(&j, 100, 5 * MIN, 0.5, 86400.0);
    for (int i = 6; i < 11; i++) nld_jump_step(&j, 0, i * MIN, 0.5, 86400.0);
    /* two days (and 5 minutes) after the spike the scale is a quarter of 100: a jump of 10
     * keeps 10 / (0.5 * 25) */
    double w = nld_jump_step(&j, 10, 10 * MIN + 2 * DAY, 0.5, 86400.0);
    assert_true(fabs(w - 10 / (0.5 * 100 * exp2(-(2 + 5.0 / 1440)))) < 1e-9);
    nld_jump_t k;
    nld_jump_init(&k);
    for (int i = 0; i < 5; i++) nld_jump_step(&k, 0, INT64_MIN, 0.5, 86400.0);
    nld_jump_step(&k, 100, INT64_MIN, 0.5, 86400.0);
    for (int i = 0; i < 5; i++) nld_jump_step(&k, 0, INT64_MIN, 0.5, 86400.0);
    assert_true(fabs(nld_jump_step(&k, 10, INT64_MIN, 0.5, 86400.0) - 10 / 50.0) < 1e-12);
    /* the level is the median of the five before, in any order, ties too */
    static const double rings[][5] = {{5, 1, 9, 3, 7}, {9, 7, 5, 3, 1}, {1, 5, 5, 9, 5},
                                      {3, 3, 1, 5, 5}};
    static const double level[] = {5, 5, 5, 3};
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 5; i++) nld_jump_step(&k, rings[r][i], INT64_MIN, 0.5, 86400.0);
        double w = nld_jump_step(&k, 12, INT64_MIN, 0.5, 86400.0);
        if (fabs(w - (12 - level[r]) / 50.0) > 1e-12)
            fail_msg("ring %d: weight %g, want %g", r, w, (12 - level[r]) / 50.0);
    }
}

/* One value a minute around 100 (noise of 1) for two days, a spike to 400 for one value,
 * then blips of +8 every two hours: cdf-hu over 2000 values, calibrated, scores each blip
 * with jump=0.5 at most a fifth of its surprise without, and the spike the same. */
static void test_bank_blips(void **state)
{
    (void)state;
    double spike[2] = {0, 0}, blips[2] = {0, 0};
    for (int on = 0; on < 2; on++) {
        nld_params_t p;
        t_bank_params(&p);
        p.jump = on ? 0.5 : 0;
        nld_bank_t b;
        assert_int_equal(nld_bank_init(&b, &p), 0);
        uint64_t rs = 11;
        for (int i = 0; i < 4 * 1440; i++) {
            double x = 100 + 2 * (t_unit(&rs) - 0.5);
            if (i == 2 * 1440) x = 400;
            if (i > 2 * 1440 && i % 120 == 0) x += 8;
            nld_verdict_t v[NLD_ALGOS];
            int err;
            nld_bank_step_at(&b, x, i * MIN, v, &err);
            assert_int_equal(err, 0);
            double s = nld_surprise_of(v[7].score);
            if (i == 2 * 1440) spike[on] = s;
            if (i > 2 * 1440 && i % 120 == 0) blips[on] += s;
        }
        nld_bank_free(&b);
    }
    print_message("spike: surprise %.2f without jump=, %.2f with; blips: %.2f, %.2f in all\n",
                  spike[0], spike[1], blips[0], blips[1]);
    assert_true(spike[0] > 3 && spike[1] == spike[0]);
    assert_true(blips[0] > 10 && blips[1] <= blips[0] / 5);
}

/* jump= and jump.halflife= as nl-detect reads them; combine=default turns it on. */
static void test_config(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        int ok;
        double jump, halflife;
    } cases[] = {
        {"algo=cdf-hu", 1, 0, 7 * 86400.0},
        {"algo=cdf-hu jump=0.3 jump.halflife=2d", 1, 0.3, 2 * 86400.0},
        {"combine=default", 1, 0.5, 7 * 86400.0},
        {"combine=default jump=off", 1, 0, 7 * 86400.0},
        {"algo=cdf-hu jump=0", 0, 0, 0},
        {"algo=cdf-hu jump=1.5", 0, 0, 0},
        {"algo=cdf-hu jump=x", 0, 0, 0},
        {"algo=cdf-hu jump.halflife=0", 0, 0, 0},
        {"algo=cdf-hu jump.halflife=-3h", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_cfg_t c;
        if (!t_words_case(&c, cases[i].words, cases[i].ok, "jump")) continue;
        assert_true(c.s[0].p.jump == cases[i].jump);
        assert_true(c.s[0].p.jump_halflife_s == cases[i].halflife);
        nld_cfg_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factor),
        cmocka_unit_test(test_decay),
        cmocka_unit_test(test_bank_blips),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
