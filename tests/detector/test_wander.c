/* SPDX-License-Identifier: BSD-3-Clause */
/* test_wander.c — a level that wanders holds few independent values (nld_wander.h,
 * wander=): a 5-minute walk's history of 2000 values holds a few dozen at most, and its
 * surprises keep log(1 + n) / log(1 + N) of themselves; white noise holds about all of
 * them and keeps its surprises whole; a strong daily pattern is not taken for wandering
 * (each hour's mean is taken out), though the same values without event times are; the
 * share is 1 where the history spans less than a day, before `min` values, and for a
 * value that is not finite, which changes nothing; and the configuration reads wander=,
 * which combine=default turns on, and refuses what it cannot be. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nld.h"
#include "nld_algo.h"
#include "nld_tail.h"
#include "nld_wander.h"
#include "t_bank.h"
#include "t_kinds.h"

#define FIVE_MIN 300000000LL
#define HIST 2000.0
#define PI 3.14159265358979323846

enum { WALK, NOISE, DAILY };

/* 10 days of one kind, a row every 5 minutes from `base` (INT64_MIN: without event times):
 * the share the last value kept, and how many independent values the history holds before
 * it. */
static double feed_from(nld_wander_t *w, int kind, int64_t base, double *independent)
{
    uint64_t rs = 7;
    double level = 0.4, share = 1;
    nld_wander_init(w);
    for (int i = 0; i < 10 * 288; i++) {
        double x, hour = fmod(i / 12.0, 24);
        if (kind == WALK) { /* pulled to 0.4, forgetting in about 17 hours */
            if (t_unit(&rs) < 0.1)
                level += 0.02 * t_kinds_normal(t_unit, &rs) - 0.05 * (level - 0.4);
            x = round(level * 100) / 100;
        } else if (kind == NOISE) {
            x = 100 + 5 * t_kinds_normal(t_unit, &rs);
        } else { /* a daily swing of 50 around 100, noise of 2 */
            x = 100 + 50 * sin(2 * PI * hour / 24) + 2 * t_kinds_normal(t_unit, &rs);
        }
        *independent = nld_wander_independent(w, HIST);
        int64_t ts = base == INT64_MIN ? INT64_MIN : base + i * FIVE_MIN;
        share = nld_wander_step(w, x, ts, HIST, 100, 30, 1);
    }
    return share;
}

static double feed(nld_wander_t *w, int kind, int timed, double *independent)
{
    return feed_from(w, kind, timed ? 0 : INT64_MIN, independent);
}

static void test_kinds(void **state)
{
    (void)state;
    nld_wander_t w;
    double n;
    double s = feed(&w, WALK, 1, &n);
    print_message("walk: %.1f independent values of 2000, share %.3f\n", n, s);
    assert_true(n < 40);
    assert_true(fabs(s - log1p(n) / log1p(100)) < 1e-12);
    assert_true(s < 0.8);

    s = feed(&w, NOISE, 1, &n);
    print_message("white noise: %.1f independent values, share %.3f\n", n, s);
    assert_true(n > 1500);
    assert_true(s == 1);

    s = feed(&w, DAILY, 1, &n);
    double untimed, s2 = feed(&w, DAILY, 0, &untimed);
    print_message("daily pattern: %.1f independent values (share %.3f); without event times "
                  "%.1f (share %.3f)\n",
                  n, s, untimed, s2);
    assert_true(n > 500 && s == 1);
    double before1970; /* the same hours of the day, 30 days before 1970 */
    feed_from(&w, DAILY, -30 * 86400000000LL, &before1970);
    assert_true(before1970 == n);
    assert_true(untimed < 50 && s2 < 0.9);
}

/* The share is 1 where it does not apply, before `min` values and for a value that is not
 * finite; such a value leaves the state as it was. */
static void test_bounds(void **state)
{
    (void)state;
    nld_wander_t w;
    double n;
    feed(&w, WALK, 1, &n);
    nld_wander_t before = w;
    assert_true(nld_wander_step(&w, 0.4, 3000 * FIVE_MIN, HIST, 100, 30, 0) == 1);
    w = before;
    assert_true(nld_wander_step(&w, NAN, 3000 * FIVE_MIN, HIST, 100, 30, 1) == 1);
    assert_true(nld_wander_step(&w, INFINITY, 3000 * FIVE_MIN, HIST, 100, 30, 1) == 1);
    assert_true(w.n == before.n && w.m == before.m && w.v == before.v && w.c == before.c &&
                w.prev == before.prev && w.hour_i == before.hour_i);
    assert_memory_equal(w.hour, before.hour, sizeof w.hour);
    assert_memory_equal(w.hour_n, before.hour_n, sizeof w.hour_n);
    /* as many independent values as N or more (16.7 against 2): whole */
    assert_true(nld_wander_step(&w, 0.4, 3000 * FIVE_MIN, HIST, 2, 30, 1) == 1);

    nld_wander_init(&w);
    for (int i = 0; i < 29; i++) /* a straight climb: as wandering as can be */
        assert_true(nld_wander_step(&w, i, INT64_MIN, HIST, 100, 30, 1) == 1);
    double s = 1;
    for (int i = 29; i < 1000; i++) s = nld_wander_step(&w, i, INT64_MIN, HIST, 100, 30, 1);
    print_message("a straight climb: share %.3f\n", s);
    assert_true(s < 0.5);
    /* a constant: no spread, nothing wanders */
    nld_wander_init(&w);
    for (int i = 0; i < 100; i++) nld_wander_step(&w, 5, i * FIVE_MIN, HIST, 100, 30, 1);
    assert_true(nld_wander_independent(&w, HIST) == HIST);
}

/* In the bank: the walk's surprises are lower with wander= than without, only on a stream
 * whose history spans a day (a row every 5 minutes, not every second). */
static double walk_surprise(const char *words, int64_t every)
{
    nld_cfg_t c;
    char err[256] = "";
    if (t_stream_words(&c, words, err, sizeof err)) fail_msg("%s: %s", words, err);
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &c.s[0].p), 0);
    nld_verdict_t v[NLD_ALGOS];
    uint64_t rs = 7;
    double level = 0.4, sum = 0;
    int err2;
    for (int i = 0; i < 20 * 288; i++) {
        if (t_unit(&rs) < 0.1) level += 0.02 * t_kinds_normal(t_unit, &rs) - 0.05 * (level - 0.4);
        nld_bank_step_at(&b, round(level * 100) / 100, i * every, v, &err2);
        if (i >= 10 * 288) sum += nld_surprise_of(v[7].score); /* cdf-hu */
    }
    nld_bank_free(&b);
    nld_cfg_free(&c);
    return sum;
}

static void test_bank(void **state)
{
    (void)state;
    double on = walk_surprise("combine=default", FIVE_MIN);
    double off = walk_surprise("combine=default wander=off", FIVE_MIN);
    print_message("5 minutes: surprise %.1f with wander=, %.1f without\n", on, off);
    assert_true(on < 0.8 * off);
    on = walk_surprise("combine=default", 1000000);
    off = walk_surprise("combine=default wander=off", 1000000);
    print_message("1 second: surprise %.1f with wander=, %.1f without\n", on, off);
    assert_true(on == off);
}

/* wander= as nl-detect reads it; combine=default turns it on. */
static void test_config(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        int ok;
        uint32_t wander;
    } cases[] = {
        {"algo=cdf-hu", 1, 0},
        {"algo=cdf-hu wander=50", 1, 50},
        {"combine=default", 1, NLD_DEFAULT_WANDER},
        {"combine=default wander=off", 1, 0},
        {"combine=default wander=2", 1, 2},
        {"algo=cdf-hu wander=1", 0, 0},
        {"algo=cdf-hu wander=0", 0, 0},
        {"algo=cdf-hu wander=2000000", 0, 0},
        {"algo=cdf-hu wander=x", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_cfg_t c;
        if (!t_words_case(&c, cases[i].words, cases[i].ok, "wander")) continue;
        assert_int_equal(c.s[0].p.wander, cases[i].wander);
        nld_cfg_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_bank),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
