/* SPDX-License-Identifier: BSD-3-Clause */
/* test_shape.c — a shape the stream has shown before is not news (nld_shape.h, shape=): a
 * spike that comes back every 3 hours keeps NLD_SHAPE_KEEP of its surprise from its second
 * time on, while a spike of a new height, a dip and a new level keep all of it; what is
 * more than len values old is forgotten and what is less than half an hour old is not yet
 * "before" (a 1-second stream's ring holds nothing that old: nothing changes); values not
 * finite change nothing and values past NLD_SHAPE_HOLD are held there (no NaN, and the
 * distances recover); in the bank, the recurring spikes score at most KEEP of their
 * surprise without shape= while a new one scores the same; and the configuration reads
 * shape= and shape.len= and refuses what they cannot be. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nld.h"
#include "nld_algo.h"
#include "nld_shape.h"
#include "nld_tail.h"
#include "t_bank.h"

#define SPACING 300.0 /* seconds: a 5-minute series */
#define EVERY 36      /* values between spikes: 3 hours */

/* Noise in [-1, 1] around 20 (a fixed sequence, so that a spike's neighbours differ). */
static double noise(uint64_t *rs) { return 20 + 2 * (t_unit(rs) - 0.5); }

/* A spike to 80 every 3 hours on a 5-minute series: the first keeps all its surprise,
 * each later one KEEP; a spike to 200, a dip to -40 and a step to 50 keep all. */
static void test_recurring(void **state)
{
    (void)state;
    nld_shape_t s;
    assert_int_equal(nld_shape_init(&s, 8, NLD_SHAPE_LEN), 0);
    uint64_t rs = 3;
    for (int i = 0; i < 5 * EVERY; i++) {
        int spike = i % EVERY == EVERY - 1 && i > EVERY;
        double w = nld_shape_step(&s, spike ? 80 : noise(&rs), SPACING);
        if (i < EVERY) continue;
        if (!spike) {
            assert_true(w >= NLD_SHAPE_KEEP && w <= 1);
            continue;
        }
        if (i / EVERY == 1)
            assert_true(w == 1); /* the first time: new */
        else
            assert_true(w == NLD_SHAPE_KEEP); /* the second time on: known */
    }
    for (int i = 0; i < EVERY - 1; i++) nld_shape_step(&s, noise(&rs), SPACING);
    assert_true(nld_shape_step(&s, 200, SPACING) == 1);
    for (int i = 0; i < EVERY - 1; i++) nld_shape_step(&s, noise(&rs), SPACING);
    assert_true(nld_shape_step(&s, -40, SPACING) == 1);
    for (int i = 0; i < EVERY - 1; i++) nld_shape_step(&s, noise(&rs), SPACING);
    for (int i = 0; i < 4; i++) assert_true(nld_shape_step(&s, 50 + t_unit(&rs), SPACING) == 1);
    nld_shape_free(&s);
    assert_null(s.buf);
}

/* The same spike len - 20 values after the first is known; 2 * len values after (the
 * ring has turned over) it is new again; 4 values after (20 minutes, not half an hour) it
 * is not yet "before"; and on a 1-second stream nothing in the ring is old enough. */
static void test_memory(void **state)
{
    (void)state;
    static const struct {
        uint32_t after;
        double spacing, want;
    } cases[] = {
        {64 - 20, SPACING, NLD_SHAPE_KEEP}, {2 * 64, SPACING, 1}, {4, SPACING, 1}, {30, 1, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        nld_shape_t s;
        assert_int_equal(nld_shape_init(&s, 4, 64), 0);
        uint64_t rs = 5;
        for (int i = 0; i < 20; i++) nld_shape_step(&s, noise(&rs), cases[c].spacing);
        assert_true(nld_shape_step(&s, 80, cases[c].spacing) == 1);
        for (uint32_t i = 1; i < cases[c].after; i++)
            nld_shape_step(&s, noise(&rs), cases[c].spacing);
        double w = nld_shape_step(&s, 80, cases[c].spacing);
        if (w != cases[c].want) fail_msg("case %zu: %g, not %g", c, w, cases[c].want);
        nld_shape_free(&s);
    }
}

static void test_bounds(void **state)
{
    (void)state;
    nld_shape_t s;
    assert_int_equal(nld_shape_init(&s, 0, NLD_SHAPE_LEN), 0); /* off */
    assert_null(s.buf);
    assert_true(nld_shape_step(&s, 10, SPACING) == 1);
    assert_int_equal(nld_shape_init(&s, 1, NLD_SHAPE_LEN), NL_EINVAL);
    assert_int_equal(nld_shape_init(&s, NLD_SHAPE_W_MAX + 1, NLD_SHAPE_LEN), NL_EINVAL);
    assert_int_equal(nld_shape_init(&s, 8, NLD_SHAPE_LEN_MIN - 1), NL_EINVAL);
    assert_int_equal(nld_shape_init(&s, 8, NLD_SHAPE_LEN_MAX + 1), NL_EINVAL);
    assert_int_equal(nld_shape_init(&s, 32, 127), NL_EINVAL); /* fewer than 4 windows */
    assert_int_equal(nld_shape_init(&s, 32, 128), 0);
    nld_shape_free(&s);
    /* not finite: nothing remembered; no spacing: nothing judged */
    assert_int_equal(nld_shape_init(&s, 4, 64), 0);
    assert_true(nld_shape_step(&s, NAN, SPACING) == 1);
    assert_true(nld_shape_step(&s, INFINITY, SPACING) == 1);
    assert_true(s.n == 0);
    assert_true(nld_shape_step(&s, 1, 0) == 1 && s.n == 1);
    assert_true(nld_shape_step(&s, 1, NAN) == 1 && s.n == 2);
    /* past NLD_SHAPE_HOLD: held there, every share a number, and once the huge values
     * have left the ring the distances are exact again (a spike is known once more) */
    uint64_t rs = 9;
    for (int i = 0; i < 40; i++) {
        double w = nld_shape_step(&s, i % 7 ? (i % 2 ? 1e300 : -1e300) : 1, SPACING);
        assert_true(w >= NLD_SHAPE_KEEP && w <= 1);
    }
    for (int i = 0; i < 200; i++) nld_shape_step(&s, noise(&rs), SPACING);
    assert_true(nld_shape_step(&s, 80, SPACING) == 1);
    for (int i = 0; i < 30; i++) nld_shape_step(&s, noise(&rs), SPACING);
    assert_true(nld_shape_step(&s, 80, SPACING) == NLD_SHAPE_KEEP);
    nld_shape_free(&s);
}

/* Six days of a 5-minute series around 20, a spike to 80 every 3 hours and, at the end,
 * one to 140: cdf-hu over 2000 values, calibrated, scores the spikes of the last three
 * days with shape=8 at most KEEP of their surprise without it, and the new one the same. */
static void test_bank_cron(void **state)
{
    (void)state;
    double spikes[2] = {0, 0}, last[2] = {0, 0};
    const int64_t step = 300 * 1000000LL;
    for (int on = 0; on < 2; on++) {
        nld_params_t p;
        t_bank_params(&p);
        p.shape_w = on ? 8 : 0;
        nld_bank_t b;
        assert_int_equal(nld_bank_init(&b, &p), 0);
        uint64_t rs = 7;
        int n = 6 * 288;
        for (int i = 0; i < n; i++) {
            int spike = i % EVERY == EVERY - 1, end = i == n - 10;
            double x = noise(&rs) + (spike ? 60 : end ? 120 : 0);
            nld_verdict_t v[NLD_ALGOS];
            int err;
            nld_bank_step_at(&b, x, i * step, v, &err);
            assert_int_equal(err, 0);
            double sv = nld_surprise_of(v[7].score);
            if (spike && i >= 3 * 288) spikes[on] += sv;
            if (end) last[on] = sv;
        }
        nld_bank_free(&b);
    }
    print_message("spikes: surprise %.2f without shape=, %.2f with; new one: %.2f, %.2f\n",
                  spikes[0], spikes[1], last[0], last[1]);
    assert_true(spikes[0] > 3 && spikes[1] <= spikes[0] * NLD_SHAPE_KEEP + 1e-9);
    assert_true(last[0] > 1 && last[1] == last[0]);
}

/* shape= and shape.len= as nl-detect reads them. */
static void test_config(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        int ok;
        uint32_t w, len;
    } cases[] = {
        {"algo=cdf-hu", 1, 0, NLD_SHAPE_LEN},
        {"algo=cdf-hu shape=8", 1, 8, NLD_SHAPE_LEN},
        {"combine=default shape=32 shape.len=4096", 1, 32, 4096},
        {"combine=default shape=off", 1, 0, NLD_SHAPE_LEN},
        {"algo=cdf-hu shape=1", 0, 0, 0},
        {"algo=cdf-hu shape=65", 0, 0, 0},
        {"algo=cdf-hu shape=0", 0, 0, 0},
        {"algo=cdf-hu shape=x", 0, 0, 0},
        {"algo=cdf-hu shape=8 shape.len=63", 0, 0, 0},
        {"algo=cdf-hu shape=8 shape.len=65537", 0, 0, 0},
        {"algo=cdf-hu shape=64 shape.len=200", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_cfg_t c;
        if (!t_words_case(&c, cases[i].words, cases[i].ok, "shape")) continue;
        assert_true(c.s[0].p.shape_w == cases[i].w);
        assert_true(c.s[0].p.shape_len == cases[i].len);
        nld_cfg_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recurring), cmocka_unit_test(test_memory),
        cmocka_unit_test(test_bounds),    cmocka_unit_test(test_bank_cron),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
