/* SPDX-License-Identifier: BSD-3-Clause */
/* test_season.c — the seasonal baseline (nld_season.h): it learns a daily cycle whatever
 * the sampling rate, stays out of the way of a metric without one, and in the bank a peak
 * that comes every day at noon stops being an anomaly while the same peak at 3 a.m. still
 * is one; without event times it changes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nld_algo.h"
#include "nld_season.h"

#define HOUR 3600000000LL
#define DAY (24 * HOUR)
#define PI 3.14159265358979323846

/* 100 + 50 sin(2 pi h / 24) + noise in +-2, one value every step_s seconds for days; then
 * the offset of each hour is the cycle (the mean level is 100). */
static void learn_cycle(int step_s)
{
    nld_season_t s;
    assert_int_equal(nld_season_init(&s, 86400, 24, 0.25), 0);
    uint64_t rs = 7;
    int64_t step = (int64_t)step_s * 1000000;
    for (int64_t t = 0; t < 8 * DAY; t += step) {
        double h = (double)(t % DAY) / HOUR;
        nld_season_offset(&s, t);
        nld_season_learn(&s, 100 + 50 * sin(2 * PI * h / 24) + 4 * (t_unit(&rs) - 0.5));
    }
    assert_true(s.w > 0.95);
    for (int h = 0; h < 24; h++) {
        /* a slot's level is the mean of the values in its hour */
        double want = 0;
        int per = 3600 / step_s;
        for (int k = 0; k < per; k++) want += 50 * sin(2 * PI * (h + (double)k / per) / 24) / per;
        double got = nld_season_offset(&s, 8 * DAY + h * HOUR + HOUR / 2);
        if (fabs(got - want) > 2.5) fail_msg("step %d s, hour %d: offset %g, want %g", step_s, h, got, want);
    }
    nld_season_free(&s);
}

static void test_cycle_hourly(void **state)
{
    (void)state;
    learn_cycle(3600);
}

/* one value a minute: the level weighs days, not values (with a per-value weight, a
 * slot's level would be its last few minutes of yesterday) */
static void test_cycle_minutes(void **state)
{
    (void)state;
    learn_cycle(60);
}

/* No cycle: the levels differ by noise only, and the offsets shrink to (almost) nothing. */
static void test_no_cycle(void **state)
{
    (void)state;
    nld_season_t s;
    assert_int_equal(nld_season_init(&s, 86400, 24, 0.25), 0);
    uint64_t rs = 11;
    for (int64_t t = 0; t < 30 * DAY; t += HOUR) {
        nld_season_offset(&s, t);
        nld_season_learn(&s, 100 + 20 * (t_unit(&rs) - 0.5)); /* sd 5.8 */
    }
    assert_true(s.w < 0.5);
    double worst = 0;
    for (int h = 0; h < 24; h++) worst = fmax(worst, fabs(nld_season_offset(&s, 30 * DAY + h * HOUR)));
    assert_true(worst < 2.0);
    nld_season_free(&s);
}

/* Off, or without a time: no offset ever. */
static void test_off(void **state)
{
    (void)state;
    nld_season_t s;
    assert_int_equal(nld_season_init(&s, 0, 24, 0.25), 0);
    assert_true(nld_season_offset(&s, 5 * DAY) == 0);
    nld_season_learn(&s, 3); /* harmless */
    nld_season_free(&s);
    assert_int_equal(nld_season_init(&s, 86400, 24, 0.25), 0);
    for (int64_t t = 0; t < 5 * DAY; t += HOUR) {
        nld_season_offset(&s, t);
        nld_season_learn(&s, t % DAY < 12 * HOUR ? 0 : 100);
    }
    assert_true(fabs(nld_season_offset(&s, 5 * DAY) + 50) < 1e-9); /* night: 0 - 50 */
    assert_true(nld_season_offset(&s, INT64_MIN) == 0);
    nld_season_free(&s);
}

/* Hourly values at 100 +- 3 with a peak of 200 every day from 12:00 to 14:00, then on day
 * 10 the usual peak and the same peak at 03:00. Returns how many of the noon and the
 * 3 a.m. values msd-hu flagged on day 10 (with its reports in observed units). */
static void peaks(double season_s, int with_time, int *noon, int *night)
{
    nld_params_t p;
    nld_params_default(&p);
    p.algos = 1u << 3; /* msd-hu */
    p.n = 100;
    p.min = 20;
    p.season_s = season_s;
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    uint64_t rs = 5;
    nld_verdict_t v[NLD_ALGOS];
    *noon = *night = 0;
    for (int64_t t = 0; t < 11 * DAY; t += HOUR) {
        int64_t h = t % DAY / HOUR, day = t / DAY;
        int peak = (h >= 12 && h < 14) || (day == 10 && h >= 3 && h < 5);
        double x = (peak ? 200 : 100) + 6 * (t_unit(&rs) - 0.5);
        int err;
        double sm = nld_bank_step_at(&b, x, with_time ? t : INT64_MIN, v, &err);
        assert_int_equal(err, 0);
        assert_true(v[3].v == x); /* reported as observed, the smoothed value too */
        if (day == 10 && h == 13 && !(sm > 160 && sm < 200)) fail_msg("smoothed %g at the peak", sm);
        int flagged = v[3].state == NLD_HIGH;
        if (day == 10 && h >= 12 && h < 14) *noon += flagged;
        if (day == 10 && h >= 3 && h < 5) *night += flagged;
    }
    nld_bank_free(&b);
}

static void test_bank_peaks(void **state)
{
    (void)state;
    int noon, night;
    peaks(0, 1, &noon, &night); /* no season: both peaks are anomalies */
    assert_int_equal(noon, 2);
    assert_int_equal(night, 2);
    peaks(86400, 1, &noon, &night); /* a day: the noon peak is expected, 3 a.m. is not */
    assert_int_equal(noon, 0);
    assert_int_equal(night, 2);
    peaks(86400, 0, &noon, &night); /* no event times: as without a season */
    assert_int_equal(noon, 2);
    assert_int_equal(night, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycle_hourly), cmocka_unit_test(test_cycle_minutes),
        cmocka_unit_test(test_no_cycle),     cmocka_unit_test(test_off),
        cmocka_unit_test(test_bank_peaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
