/* SPDX-License-Identifier: BSD-3-Clause */
/* test_recur.c — what the stream did at this time of day lately is not news (nld_recur.h,
 * recur=): a daily spike at about the same time keeps NLD_RECUR_KEEP of its surprise, one
 * at another time of day all of it; leaving the envelope by less than a quarter of its
 * width keeps a share in proportion; the envelope forgets what is more than `days` days
 * old; an hourly stream's "same time" spans three of its values either side, a 5-minute
 * one's the hour of within=; values without a time, not finite or before 1970 change
 * nothing; in the bank, a
 * nightly backup's spike scores half with recur=3d while a spike at noon scores the same;
 * and the configuration reads recur= and recur.within= and refuses what they cannot be. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nld.h"
#include "nld_algo.h"
#include "nld_recur.h"
#include "nld_tail.h"
#include "t_bank.h"

#define MIN 60000000LL
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)

/* Days of one value every 5 minutes at 1, with a spike to 10 at 03:10 (3:20 on odd days). */
static void feed_days(nld_recur_t *r, int days)
{
    for (int64_t t = 0; t < days * DAY; t += 5 * MIN) {
        int64_t tod = t % DAY, at = (t / DAY) % 2 ? 3 * HOUR + 20 * MIN : 3 * HOUR + 10 * MIN;
        assert_true(nld_recur_step(r, tod == at ? 10 : 1, t) >= NLD_RECUR_KEEP);
    }
}

static void test_envelope(void **state)
{
    (void)state;
    nld_recur_t r;
    assert_int_equal(nld_recur_init(&r, 3, 3600), 0);
    /* the first day has nothing behind it */
    assert_true(nld_recur_step(&r, 10, 3 * HOUR) == 1);
    nld_recur_free(&r);
    assert_int_equal(nld_recur_init(&r, 3, 3600), 0);
    feed_days(&r, 2);
    int64_t d = 2 * DAY;
    /* the spike again, 40 minutes later than yesterday's: inside */
    assert_true(nld_recur_step(&r, 10, d + 3 * HOUR + 50 * MIN) == NLD_RECUR_KEEP);
    /* the same spike at noon: the envelope there is [1, 1], a flat one: news */
    assert_true(nld_recur_step(&r, 10, d + 12 * HOUR) == 1);
    /* at 03:15 the envelope is [1, 10]: 12.25 leaves it by a quarter of its width (all of
     * the surprise), 11.5 by 1.5 (1.5 / (0.25 * 9) of it), 0.5 below it by 0.5 (KEEP) */
    assert_true(nld_recur_step(&r, 12.25, d + 3 * HOUR + 15 * MIN) == 1);
    double w = nld_recur_step(&r, 11.5, d + 3 * HOUR + 16 * MIN);
    assert_true(fabs(w - 1.5 / (NLD_RECUR_SHARE * 9)) < 1e-6);
    assert_true(nld_recur_step(&r, 0.5, d + 3 * HOUR + 17 * MIN) == NLD_RECUR_KEEP);
    /* 2 hours after the spike's time: beyond within=1h, the envelope is [1, 1] */
    assert_true(nld_recur_step(&r, 10, d + 5 * HOUR + 20 * MIN) == 1);
    /* nothing known of a value without time, not finite, or before 1970 */
    assert_true(nld_recur_step(&r, 10, INT64_MIN) == 1);
    assert_true(nld_recur_step(&r, NAN, d + 3 * HOUR) == 1);
    assert_true(nld_recur_step(&r, INFINITY, d + 3 * HOUR) == 1);
    assert_true(nld_recur_step(&r, 10, -5 * MIN) == 1);
    /* values past a float's range are held at its edge, not converted */
    assert_true(nld_recur_step(&r, 1e300, d + 20 * HOUR) == 1);
    assert_true(nld_recur_step(&r, -1e300, d + 20 * HOUR + MIN) == 1);
    /* the end of time: the last slot, no overflow (UBSan would say) */
    assert_true(nld_recur_step(&r, 10, INT64_MAX) == 1);
    assert_true(nld_recur_step(&r, 10, INT64_MAX - 1) == 1);
    nld_recur_free(&r);
    assert_null(r.slot);
}

/* A spike on day 0 only: judged inside on day 3 (three days back), news on day 4. */
static void test_forget(void **state)
{
    (void)state;
    for (int day = 3; day <= 4; day++) {
        nld_recur_t r;
        assert_int_equal(nld_recur_init(&r, 3, 3600), 0);
        for (int64_t t = 0; t < day * DAY; t += 5 * MIN)
            nld_recur_step(&r, t == 3 * HOUR ? 10 : 1, t);
        double w = nld_recur_step(&r, 10, day * DAY + 3 * HOUR);
        assert_true(w == (day == 3 ? NLD_RECUR_KEEP : 1));
        nld_recur_free(&r);
    }
    /* and over many days the ring only ever holds the last ones */
    nld_recur_t r;
    assert_int_equal(nld_recur_init(&r, 2, 1800), 0);
    feed_days(&r, 20);
    assert_true(nld_recur_step(&r, 10, 20 * DAY + 3 * HOUR + 15 * MIN) == NLD_RECUR_KEEP);
    assert_true(nld_recur_step(&r, 10, 20 * DAY + 15 * HOUR) == 1);
    nld_recur_free(&r);
}

/* A peak at 10:00 on day 0 and 1 at 1 elsewhere, then the same peak at 12:30 on day 1:
 * two and a half hours late is the same time of day for an hourly stream (3 spacings
 * either side), not for one every 5 minutes (within=1h). */
static void test_spacing(void **state)
{
    (void)state;
    for (int hourly = 0; hourly < 2; hourly++) {
        int64_t step = hourly ? HOUR : 5 * MIN;
        nld_recur_t r;
        assert_int_equal(nld_recur_init(&r, 3, 3600), 0);
        for (int64_t t = 0; t < DAY + 12 * HOUR; t += step)
            nld_recur_step(&r, t == 10 * HOUR ? 10 : 1, t);
        double w = nld_recur_step(&r, 10, DAY + 12 * HOUR + 30 * MIN);
        assert_true(w == (hourly ? NLD_RECUR_KEEP : 1));
        nld_recur_free(&r);
    }
}

static void test_bounds(void **state)
{
    (void)state;
    nld_recur_t r;
    assert_int_equal(nld_recur_init(&r, 0, 3600), 0); /* off */
    assert_null(r.slot);
    assert_true(nld_recur_step(&r, 10, DAY) == 1);
    assert_int_equal(nld_recur_init(&r, NLD_RECUR_DAYS_MAX + 1, 3600), NL_EINVAL);
    assert_int_equal(nld_recur_init(&r, 3, 60), NL_EINVAL);
    assert_int_equal(nld_recur_init(&r, 3, 86400), NL_EINVAL);
    assert_int_equal(nld_recur_init(&r, 3, NAN), NL_EINVAL);
    assert_int_equal(nld_recur_init(&r, NLD_RECUR_DAYS_MAX, 43200), 0);
    nld_recur_free(&r);
}

/* Six days of one value every 5 minutes around 20 (noise of 1), a backup's spike to 80 at
 * 03:10 each night and, on the last day, one at noon: cdf-hu over 2000 values, calibrated,
 * scores the last three nights' spikes with recur=3d at most half their surprise without,
 * and the noon spike the same. */
static void test_bank_backup(void **state)
{
    (void)state;
    double nights[2] = {0, 0}, noon[2] = {0, 0};
    for (int on = 0; on < 2; on++) {
        nld_params_t p;
        t_bank_params(&p);
        p.recur_days = on ? 3 : 0;
        nld_bank_t b;
        assert_int_equal(nld_bank_init(&b, &p), 0);
        uint64_t rs = 7;
        for (int64_t t = 0; t < 6 * DAY; t += 5 * MIN) {
            int64_t tod = t % DAY;
            int night = tod == 3 * HOUR + 10 * MIN, lunch = t == 5 * DAY + 12 * HOUR;
            double x = 20 + 2 * (t_unit(&rs) - 0.5) + (night || lunch ? 60 : 0);
            nld_verdict_t v[NLD_ALGOS];
            int err;
            nld_bank_step_at(&b, x, t, v, &err);
            assert_int_equal(err, 0);
            double s = nld_surprise_of(v[7].score);
            if (night && t >= 3 * DAY) nights[on] += s;
            if (lunch) noon[on] = s;
        }
        nld_bank_free(&b);
    }
    print_message("nights: surprise %.2f without recur=, %.2f with; noon: %.2f, %.2f\n", nights[0],
                  nights[1], noon[0], noon[1]);
    assert_true(nights[0] > 3 && nights[1] <= nights[0] * NLD_RECUR_KEEP + 1e-9);
    assert_true(noon[0] > 1 && noon[1] == noon[0]);
}

/* recur= and recur.within= as nl-detect reads them. */
static void test_config(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        int ok;
        uint32_t days;
        double within;
    } cases[] = {
        {"algo=cdf-hu", 1, 0, 3600},
        {"algo=cdf-hu recur=3d recur.within=30m", 1, 3, 1800},
        {"algo=cdf-hu recur=1w", 1, 7, 3600},
        {"combine=default recur=off", 1, 0, 3600},
        {"combine=default recur=2d", 1, 2, 3600},
        {"algo=cdf-hu recur=1.5d", 0, 0, 0},
        {"algo=cdf-hu recur=15d", 0, 0, 0},
        {"algo=cdf-hu recur=0", 0, 0, 0},
        {"algo=cdf-hu recur=x", 0, 0, 0},
        {"algo=cdf-hu recur.within=5m", 0, 0, 0},
        {"algo=cdf-hu recur.within=13h", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_cfg_t c;
        if (!t_words_case(&c, cases[i].words, cases[i].ok, "recur")) continue;
        assert_true(c.s[0].p.recur_days == cases[i].days);
        assert_true(c.s[0].p.recur_within_s == cases[i].within);
        nld_cfg_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_envelope),    cmocka_unit_test(test_forget),
        cmocka_unit_test(test_spacing),     cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_bank_backup), cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
