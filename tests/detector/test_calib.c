/* SPDX-License-Identifier: BSD-3-Clause */
/* test_calib.c — a threshold that means a false-alarm rate (nld_calib.h, alarms=, rate=,
 * floor=): on generated anomaly-free series of every kind a real metric has (white noise,
 * heavy tails, bursty counts, values rounded to 0.01 that sit still for hours, a daily
 * cycle whose phase is not the clock's, a stream quiet for weeks, level shifts that
 * last), combine=default and cusum raise about as many alarms as their budget allows, and
 * no more than a few times that; cusum's own P (no calibration, no resolution floor: what
 * combine=default was until 2026-11-26) raises several times more on heavy tails and
 * bursty counts. The budget itself is read the way the options say. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "t_kinds.h"
#include "nld.h"
#include "nld_algo.h"
#include "nld_calib.h"
#include "nld_combine.h"
#include "nld_tail.h"

#define MIN5 300000000LL
#define DAY 86400000000LL

enum kind { K_NOISE, K_HEAVY, K_BURSTY, K_QUANTISED, K_CYCLE, K_QUIET, K_SHIFTS, K_N };
static const char *const kind_name[K_N] = {"white noise", "heavy tails", "bursty counts",
                                           "quantised, runs of equal values",
                                           "daily cycle, phase 7h13m", "quiet for three weeks",
                                           "level shifts that last"};

static double normal(uint64_t *rs) { return t_kinds_normal(t_unit, rs); }

/* The i-th value of a series of kind k and its event time (5-minute rows). */
static double gen(int k, int i, uint64_t *rs, double *state, int64_t *ts)
{
    *ts = (int64_t)i * MIN5;
    switch (k) {
    case K_NOISE:
        return 100 + 5 * normal(rs);
    case K_HEAVY:
        return t_kinds_heavy(t_unit, rs);
    case K_BURSTY:
        return t_kinds_bursty(t_unit, rs);
    case K_QUANTISED:
        return t_kinds_quantised(t_unit, rs, state);
    case K_CYCLE:
        return t_kinds_cycle(t_unit, rs, (double)*ts / 3.6e9);
    case K_QUIET: /* 10 days, then nothing for 21, then on as before */
        if (i >= 2880) *ts += 21 * DAY;
        return 100 + 5 * normal(rs);
    case K_SHIFTS: /* a new level every 5 days, 8 sd from the last, kept */
        if (i && i % 1440 == 0) *state += (t_unit(rs) < 0.5 ? -40 : 40);
        return 100 + *state + 5 * normal(rs);
    }
    return 0;
}

/* Episode starts of a bank over n values of kind k: a value flagged by the stream's
 * threshold opens one unless it comes within `hold` of the last flagged one. The flagged
 * values in *flagged (when not NULL). */
static int alarms_of(const nld_params_t *p, int k, int n, int64_t hold, double *days,
                     int *flagged)
{
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, p), 0);
    uint64_t rs = 1000 + (uint64_t)k;
    double st = 0;
    int starts = 0;
    int64_t last = INT64_MIN / 2, t0 = 0, ts = 0;
    for (int i = 0; i < n; i++) {
        double x = gen(k, i, &rs, &st, &ts);
        if (!i) t0 = ts;
        nld_verdict_t v[NLD_ALGOS];
        int err;
        nld_bank_step_at(&b, x, ts, v, &err);
        assert_int_equal(err, 0);
        int flag = 0;
        for (int a = 0; a < NLD_ALGOS; a++)
            if ((p->algos >> a & 1) && (v[a].state == NLD_LOW || v[a].state == NLD_HIGH)) flag = 1;
        if (!flag) continue;
        if (flagged) ++*flagged;
        if (ts - last > hold) starts++;
        last = ts;
    }
    *days = (double)(ts - t0) / DAY - (k == K_QUIET ? 21 : 0);
    nld_bank_free(&b);
    return starts;
}

static int alarms(const nld_params_t *p, int k, int n, int64_t hold, double *days)
{
    return alarms_of(p, k, n, hold, days, NULL);
}

/* A stream's parameters as nl-detect reads them from its configuration words. */
static void params(const char *words, nld_params_t *p, double *hold_s)
{
    nld_cfg_t c;
    nld_cfg_init(&c);
    char text[512], err[256] = "";
    snprintf(text, sizeof text, "stream s event=m value=x %s\n", words);
    if (nld_cfg_parse(&c, text, "test", err, sizeof err)) fail_msg("%s: %s", words, err);
    *p = c.s[0].p;
    *hold_s = c.s[0].holdoff_s;
    nld_cfg_free(&c);
}

/* Every kind, 60 days of 5-minute values (17,280; the quiet one with three weeks without
 * any in the middle), a budget of 1 alarm a day: combine=default's bank (cdf-hu) and cusum
 * (over 300 values, alarms an hour apart: the default until 2026-11-26, but for its
 * threshold, and without jump=, recur= or young=, which came later), calibrated, stay
 * within three times the budget on every kind (the level shifts may each
 * give one more, the alarms they are for). The test can tell: cusum with the same budget
 * read as its model's own P (no calibration, no resolution floor) goes far over on heavy
 * tails and bursty counts. */
static void test_budget_holds_on_every_kind(void **state)
{
    (void)state;
    static const char *const words[3] = {
        "combine=default alarms=1/day",
        "combine=default algo=cusum history=300 holdoff=1h alarms=1/day jump=off recur=off "
        "young=off",
        "combine=default algo=cusum history=300 holdoff=1h alarms=1/day calib=off floor=0 "
        "jump=off recur=off young=off"};
    int n = 60 * 288;
    double per_day[3][K_N];
    for (int w = 0; w < 3; w++) {
        nld_params_t p;
        double hold;
        params(words[w], &p, &hold);
        print_message("%s:\n", words[w]);
        for (int k = 0; k < K_N; k++) {
            double days;
            int a = alarms(&p, k, n, (int64_t)(hold * 1e6), &days);
            per_day[w][k] = a / days;
            print_message("  %-32s %6.1f days: %4d alarms, %.2f a day\n", kind_name[k], days, a,
                          a / days);
            double allowed = 3 * days + (k == K_SHIFTS ? n / 1440 : 0);
            if (w < 2 && a > allowed)
                fail_msg("%s: %s: %d alarms in %.1f days, budget 1/day", words[w], kind_name[k],
                         a, days);
        }
    }
    assert_true(per_day[2][K_HEAVY] > 3 && per_day[2][K_BURSTY] > 3);
}

/* A smaller budget flags fewer values on the same series, never more, and on the
 * anomaly-free kinds raises fewer alarms. (Not on the level shifts: there a smaller budget
 * can leave wider gaps between one shift's flags, and so split it into more episodes.) */
static void test_budget_orders(void **state)
{
    (void)state;
    const char *budgets[] = {"alarms=10/day", "alarms=1/day", "alarms=1/week", "rate=1e-6"};
    for (int k = 0; k < K_N; k++) {
        int prev = 1 << 30, prev_f = 1 << 30;
        for (int j = 0; j < 4; j++) {
            char words[96];
            nld_params_t p;
            double hold, days;
            int f = 0;
            snprintf(words, sizeof words, "combine=default %s", budgets[j]);
            params(words, &p, &hold);
            int a = alarms_of(&p, k, 30 * 288, (int64_t)(hold * 1e6), &days, &f);
            if (f > prev_f) fail_msg("%s: %s flagged %d values, a larger budget %d",
                                     kind_name[k], budgets[j], f, prev_f);
            if (k != K_SHIFTS && a > prev)
                fail_msg("%s: %s gave %d alarms, a larger budget %d", kind_name[k], budgets[j],
                         a, prev);
            prev = a;
            prev_f = f;
        }
    }
}

/* The words: alarms=N/PERIOD per second of event time, rate= per value, calib=, floor=;
 * combine=default sets a budget only when neither threshold= nor a budget is given. */
static void test_words(void **state)
{
    (void)state;
    nld_params_t p;
    double hold;
    params("alarms=2/day algo=cusum", &p, &hold);
    assert_true(fabs(p.alarms_per_s - 2.0 / 86400) < 1e-15 && p.rate == 0);
    params("alarms=2/day rate=1e-3 algo=cusum", &p, &hold); /* both: the stricter applies */
    assert_true(fabs(p.alarms_per_s - 2.0 / 86400) < 1e-15 && p.rate == 1e-3);
    params("alarms=3/hour algo=cusum", &p, &hold);
    assert_true(fabs(p.alarms_per_s - 3.0 / 3600) < 1e-15);
    params("alarms=1/7d algo=cusum", &p, &hold);
    assert_true(fabs(p.alarms_per_s - 1.0 / 604800) < 1e-18);
    params("rate=0.01% algo=cusum calib=500 floor=2", &p, &hold);
    assert_true(fabs(p.rate - 1e-4) < 1e-18 && p.alarms_per_s == 0 && p.calib == 500 &&
                p.res_floor == 2);
    params("combine=default", &p, &hold);
    nld_params_t want;
    nld_params_default(&want);
    nld_default_params(&want);
    assert_true(p.rate == NLD_DEFAULT_RATE && p.alarms_per_s == 0 && p.threshold == 0 &&
                p.calib == NLD_DEFAULT_CALIB && p.res_floor == NLD_DEFAULT_FLOOR);
    assert_true(p.algos == want.algos && p.n == want.n && p.relearn_s == want.relearn_s &&
                p.season_s == want.season_s && p.rate == want.rate && p.calib == want.calib);
    params("combine=default threshold=0.9", &p, &hold);
    assert_true(p.rate == 0 && p.alarms_per_s == 0 && p.threshold == 0.9);
    params("combine=default alarms=1/day", &p, &hold);
    assert_true(p.rate == 0 && p.alarms_per_s > 0);
    params("combine=default calib=off", &p, &hold);
    assert_int_equal(p.calib, 0);
    assert_true(p.calib_shrink == NLD_DEFAULT_CALIB_SHRINK);
    params("combine=default calib.shrink=off", &p, &hold);
    assert_true(p.calib_shrink == 0);
    params("algo=cusum calib=100 calib.shrink=4", &p, &hold);
    assert_true(p.calib_shrink == 4);
    params("algo=cusum calib=100", &p, &hold);
    assert_true(p.calib_shrink == 0 && p.calib_record == 0);
    assert_true(want.calib_record == NLD_DEFAULT_CALIB_RECORD);
    params("combine=default", &p, &hold);
    assert_true(p.calib_record == NLD_DEFAULT_CALIB_RECORD);
    params("combine=default calib.record=off", &p, &hold);
    assert_true(p.calib_record == 0);
    params("algo=cusum calib=100 calib.record=2.5", &p, &hold);
    assert_true(p.calib_record == 2.5);
    /* the threshold a rate means: the score of P = rate */
    assert_true(fabs(nld_rate_threshold(1e-4) - 0.8) < 1e-12);
    const char *bad[] = {"alarms=1",  "alarms=0/day", "alarms=1/fortnight", "alarms=1e-320/day",
                         "rate=0.6",  "rate=0",       "calib=1",            "calib=19",
                         "floor=-1",  "calib.shrink=0.5", "calib.shrink=0", "calib.shrink=x",
                         "calib.record=1", "calib.record=0", "calib.record=301"};
    {
        nld_cfg_t c;
        nld_cfg_init(&c);
        char err[256] = "";
        assert_int_not_equal(nld_cfg_parse(&c, "stream s event=a\nstream t event=b\nstream s event=c\n",
                                           "t", err, sizeof err),
                             0);
        assert_non_null(strstr(err, "t:3:8: stream 's' defined twice"));
        nld_cfg_free(&c);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nld_cfg_t c;
        nld_cfg_init(&c);
        char text[128], err[256] = "";
        snprintf(text, sizeof text, "stream s event=m value=x algo=cusum %s\n", bad[i]);
        if (!nld_cfg_parse(&c, text, "t", err, sizeof err)) fail_msg("%s accepted", bad[i]);
        assert_non_null(strstr(err, "t:1:"));
        nld_cfg_free(&c);
    }
}

/* The smallest calibrated / raw surprise of any spike on a stream whose huge spikes recur
 * (a crash rate of 10 that goes to 2000 for four values in every 60), values `spacing`
 * usec apart, under calib.shrink=shrink (0: off) with lone flags waiting on streams of
 * values at most wait_s apart (shrink_wait_s; 0: never). */
static double spikes_least(double shrink, double wait_s, int64_t spacing)
{
    double least = INFINITY;
    nld_params_t p, q;
    nld_params_default(&p);
    p.algos = 1u << 7; /* cdf-hu */
    p.n = 2000;
    p.calib = 1000;
    p.calib_shrink = shrink;
    p.shrink_wait_s = wait_s;
    q = p;
    q.calib = 0; /* the raw surprises, side by side */
    q.calib_shrink = 0;
    nld_bank_t b, r;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    assert_int_equal(nld_bank_init(&r, &q), 0);
    uint64_t rs = 5;
    for (int i = 0; i < 1500; i++) {
        double x = 10 + 4 * t_unit(&rs);
        int spike = i >= 100 && i % 60 < 4;
        if (spike) x = 2000 + 100 * t_unit(&rs);
        nld_verdict_t v[NLD_ALGOS], w[NLD_ALGOS];
        int e1, e2;
        nld_bank_step_at(&b, x, (int64_t)i * spacing, v, &e1);
        nld_bank_step_at(&r, x, (int64_t)i * spacing, w, &e2);
        assert_int_equal(e1 | e2, 0);
        double sc = nld_surprise_of(v[7].score), sr = nld_surprise_of(w[7].score);
        if (spike && i % 60 == 0 && sr > 0 && sc / sr < least) least = sc / sr;
    }
    nld_bank_free(&b);
    nld_bank_free(&r);
    return least;
}

/* calib.shrink=R: such a stream teaches its calibration that huge surprises are usual;
 * without a bound a later spike's calibrated surprise falls below a tenth of its raw one,
 * with calib.shrink=10 it never does: on hourly values (slower than confirm.wait=, where a
 * lone value must page alone) and on 1-second ones (1000 values span 17 minutes, under
 * NLD_CALIB_SPAN_S). A value a minute, where lone flags wait and the window spans 17 hours,
 * is left to its calibration. */
static void test_calib_shrink(void **state)
{
    (void)state;
    const int64_t sec = 1000000, wait = 600;
    double off = spikes_least(0, wait, 3600 * sec), hourly = spikes_least(10, wait, 3600 * sec),
           second = spikes_least(10, wait, sec), minute = spikes_least(10, wait, 60 * sec),
           never = spikes_least(10, 0, 60 * sec);
    print_message("spikes' calibrated / raw surprise, at least: %.3g without a bound; with "
                  "calib.shrink=10 %.3g hourly, %.3g each second, %.3g each minute (%.3g when "
                  "lone flags never wait)\n",
                  off, hourly, second, minute, never);
    assert_true(off < 0.1);
    assert_true(hourly >= 0.1 * (1 - 1e-9));
    assert_true(second >= 0.1 * (1 - 1e-9));
    assert_true(minute < 0.1);
    assert_true(never >= 0.1 * (1 - 1e-9));
}

/* The calibrated surprise of a last value of 100 + last, after 3000 values `spacing` usec
 * apart of white noise with an outlier 100 + 40 .. 60 every 50th (a stream whose far tail
 * the record fills), under combine=default's calib= and lone flags waiting at 10 minutes. */
static double outlier_after(int64_t spacing, double last)
{
    nld_params_t p;
    nld_params_default(&p);
    p.algos = 1u << 7; /* cdf-hu */
    p.n = 2000;
    p.calib = 1000;
    p.calib_shrink = 10;
    p.calib_record = 6;
    p.shrink_wait_s = 600;
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    uint64_t rs = 9;
    double s = 0;
    for (int i = 0; i <= 3000; i++) {
        double x = 100 + 4 * (t_unit(&rs) - 0.5);
        if (i % 50 == 49) x = 140 + 20 * t_unit(&rs);
        if (i == 3000) x = 100 + last;
        nld_verdict_t v[NLD_ALGOS];
        int err;
        nld_bank_step_at(&b, x, (int64_t)i * spacing, v, &err);
        assert_int_equal(err, 0);
        s = nld_surprise_of(v[7].score);
    }
    nld_bank_free(&b);
    return s;
}

/* Where calibration is trusted (a value a minute: lone flags wait, 1000 values span 17
 * hours) the record corrects claims from 1 in 10^4 on (NLD_CALIB_RECORD_TRUSTED), not only
 * beyond calib.record=6: an outlier like the record's, which the fit calls far rarer, is
 * claimed at that floor; hourly, where calib.shrink holds, the same value keeps 6 or more. */
static void test_calib_record_trusted(void **state)
{
    (void)state;
    const int64_t sec = 1000000;
    double minute = outlier_after(60 * sec, 50), hourly = outlier_after(3600 * sec, 50);
    print_message("an outlier like the record's: calibrated surprise %.3g each minute, "
                  "%.3g hourly\n", minute, hourly);
    assert_true(fabs(minute - NLD_CALIB_RECORD_TRUSTED) < 1e-9);
    assert_true(hourly >= 6);
}

/* A value is familiar when the record holds one at least as surprising among the last
 * `within` values: a spike no larger than the stream's recent ones, which confirm= then
 * holds for the next value however far beyond the threshold (nld_confirm_wait). A spike
 * beyond them is not, nor one whose like came longer ago, nor any with `within` 0 (where
 * calib.shrink bounds the stream, stage_calib sets it so). */
static void test_calib_familiar(void **state)
{
    (void)state;
    nld_calib_t c;
    assert_int_equal(nld_calib_init(&c, 200, 4), 0);
    c.within = 100;
    uint64_t rs = 21;
    for (int i = 0; i < 2000; i++) { /* a right model, and a spike of 8 every 50th value */
        double u = t_unit(&rs);
        nld_calib_step(&c, i % 50 == 49 ? 8 : fmin(-log10(u > 1e-300 ? u : 1e-300), 6));
    }
    nld_calib_step(&c, 7);
    assert_true(c.familiar);
    nld_calib_step(&c, 8);
    assert_true(c.familiar); /* as large is familiar */
    nld_calib_step(&c, 9);
    assert_false(c.familiar); /* beyond every one */
    nld_calib_step(&c, 1);
    assert_false(c.familiar); /* not beyond the censor */
    for (int i = 0; i < 150; i++) nld_calib_step(&c, 0.5);
    nld_calib_step(&c, 7);
    assert_false(c.familiar); /* the last like it more than 100 values back */
    c.within = 1000;
    nld_calib_step(&c, 7);
    assert_true(c.familiar);
    c.within = 0;
    nld_calib_step(&c, 7);
    assert_false(c.familiar);
    nld_calib_free(&c);
}

/* The calibration stage alone: a model that is right (P(S >= s) = 10^-s) is left nearly
 * as it is; one whose surprises run ten times too large is brought back to scale. */
static void test_calib_scale(void **state)
{
    (void)state;
    for (int scale = 1; scale <= 10; scale += 9) {
        nld_calib_t c;
        assert_int_equal(nld_calib_init(&c, 2000, 0), 0);
        uint64_t rs = 5;
        int over3 = 0, n = 200000;
        for (int i = 0; i < n; i++) {
            double u = t_unit(&rs);
            double s = -log10(u > 1e-300 ? u : 1e-300) * scale; /* P(S >= s) = 10^(-s/scale) */
            double out = nld_calib_step(&c, s);
            assert_false(isnan(out));
            if (i > 2000) over3 += out >= 3;
        }
        /* a calibrated surprise of 3 is about one value in a thousand */
        double share = (double)over3 / (n - 2001);
        print_message("scale %d: share of calibrated surprises >= 3: %.5f\n", scale, share);
        assert_true(share > 0.0003 && share < 0.002);
        nld_calib_free(&c);
    }
}

/* Surprises whose body the model gets right (P(S >= s) = 10^-s) but one value in 200 of
 * which is absurd under it (30 to 230: spikes that come every few hours). The fit, made on
 * the body, claims those are rarer than one in 1e20; they are one in 200. */
static int far_tail(nld_calib_t *c, int n, int *over_at, const double *levels, int nlev)
{
    uint64_t rs = 11;
    for (int j = 0; j < nlev; j++) over_at[j] = 0;
    for (int i = 0; i < n; i++) {
        double u = t_unit(&rs);
        double s = t_unit(&rs) < 1.0 / 200 ? 30 + 200 * u : -log10(u);
        double out = nld_calib_step(c, s);
        if (isnan(out)) return -1;
        for (int j = 0; j < nlev && i > 20000; j++) over_at[j] += out >= levels[j];
    }
    return 0;
}

/* calib.record=: the record of the far tail takes back what the fit claims beyond it. With
 * a floor of 2 a calibrated surprise of 3 comes about as often as it says (one value in a
 * thousand, here within three times that) where without the record every spike claims
 * more than 6; with the default floor of 6 no claim moves below 6, so exactly as many
 * values reach 6 as without, but hardly any goes beyond. */
static void test_calib_record(void **state)
{
    (void)state;
    static const double lev[3] = {3, 6, 7};
    int n = 200000, off[3], r2[3], r6[3];
    nld_calib_t c;
    assert_int_equal(nld_calib_init(&c, 1000, 0), 0);
    assert_int_equal(far_tail(&c, n, off, lev, 3), 0);
    nld_calib_free(&c);
    assert_int_equal(nld_calib_init(&c, 1000, 2), 0);
    assert_int_equal(far_tail(&c, n, r2, lev, 3), 0);
    nld_calib_free(&c);
    assert_int_equal(nld_calib_init(&c, 1000, 6), 0);
    assert_int_equal(far_tail(&c, n, r6, lev, 3), 0);
    nld_calib_free(&c);
    double scored = n - 20001;
    print_message("values claimed >= 3, 6, 7: without the record %d %d %d; floor 2: %d %d %d; "
                  "floor 6: %d %d %d (of %.0f)\n",
                  off[0], off[1], off[2], r2[0], r2[1], r2[2], r6[0], r6[1], r6[2], scored);
    assert_true(off[1] > scored / 400); /* most of the one-in-200 spikes claim beyond 1e-6 */
    assert_true(r2[0] < 3 * scored / 1000 && r2[1] < off[1] / 20);
    assert_int_equal(r6[1], off[1]);
    assert_true(r6[2] < off[2] / 20);
}

/* The record does not dull what it has not seen: on a stream whose model is right, a value
 * far beyond anything in the record keeps the fit's claim above its largest (the shape
 * from the fit, the level from the record), so a first anomaly of 1e-1000 claims about what
 * the fit does (within a decade and a half, and more than 4: the fit compresses, being made
 * on a window), not the one in a few thousand a rank among the record alone could say (32
 * values of 1 in 100: under 4). An infinite surprise stays infinite, and does not take the
 * fit's shape from the values after it. */
static void test_calib_record_first_spike(void **state)
{
    (void)state;
    nld_calib_t on, off;
    assert_int_equal(nld_calib_init(&on, 1000, 2), 0);
    assert_int_equal(nld_calib_init(&off, 1000, 0), 0);
    uint64_t rs = 7;
    for (int i = 0; i < 50000; i++) {
        double u = t_unit(&rs), s = -log10(u);
        assert_false(isnan(nld_calib_step(&on, s)) || isnan(nld_calib_step(&off, s)));
    }
    assert_true(on.rec->n == NLD_CALIB_RECORD); /* the body's own 1 in 100 fill it */
    double a = nld_calib_step(&on, 1000), b = nld_calib_step(&off, 1000);
    print_message("a surprise of 1000 after 50,000 right ones: %.2f with the record, %.2f "
                  "without\n", a, b);
    assert_true(a > 4 && a > b - 1.5 && a <= b + 1e-9);
    assert_true(isinf(nld_calib_step(&on, INFINITY)) && isinf(nld_calib_step(&off, INFINITY)));
    a = nld_calib_step(&on, 1e6); /* a rank alone: under 4 */
    print_message("then +inf, then 1e6: %.2f with the record\n", a);
    assert_true(a > 5);
    nld_calib_free(&on);
    nld_calib_free(&off);
}

/* floor=: a history that sits still has no spread; a step of the data's resolution is
 * then not a billion-sigma surprise. */
static void test_resolution_floor(void **state)
{
    (void)state;
    for (int fl = 0; fl <= 1; fl++) {
        nld_params_t p;
        double hold;
        params(fl ? "algo=cdf-hu floor=3" : "algo=cdf-hu floor=0", &p, &hold);
        p.want_scores = 1;
        nld_bank_t b;
        assert_int_equal(nld_bank_init(&b, &p), 0);
        nld_verdict_t v[NLD_ALGOS];
        int err;
        /* it moved in steps of 0.01, then sat still for a whole history */
        for (int i = 0; i < 100; i++) nld_bank_step(&b, 0.40 + 0.01 * (i % 4), v, &err);
        for (int i = 0; i < 400; i++) nld_bank_step(&b, 0.42, v, &err);
        nld_bank_step(&b, 0.43, v, &err);
        double s = nld_surprise_of(v[7].score);
        print_message("floor=%d: a step of 0.01 after a still history: S = %g\n", fl, s);
        if (fl)
            assert_true(s < 2);
        else
            assert_true(s > 100);
        nld_bank_free(&b);
    }
}

/* The bank's threshold after n values of white noise every 5 minutes, the first stamped
 * `first_off` usec away from where it belongs. */
static double thr_after(const char *words, int n, int64_t first_off)
{
    nld_params_t p;
    double hold;
    params(words, &p, &hold);
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    uint64_t rs = 3;
    for (int i = 0; i < n; i++) {
        nld_verdict_t v[NLD_ALGOS];
        int err;
        nld_bank_step_at(&b, 100 + normal(&rs), (int64_t)i * MIN5 + (i ? 0 : first_off), v, &err);
    }
    double t = b.thr;
    nld_bank_free(&b);
    return t;
}

/* The budget's edges: more alarms than values is held at half of them, not dropped (which
 * would leave the algorithms' own rules, flagging a third of all values); a first timestamp
 * far off (a year ahead, or 1970) moves the stream's spacing little; threshold= with a
 * budget keeps the stricter; alarms= before the spacing is known flags nothing. */
static void test_budget_edges(void **state)
{
    (void)state;
    double half = nld_rate_threshold(0.5), day = nld_rate_threshold(300.0 / 86400);
    assert_true(fabs(thr_after("algo=cdf-hu alarms=1000/day", 100, 0) - half) < 1e-12);
    assert_true(fabs(thr_after("algo=cdf-hu alarms=1/day", 1000, 0) - day) < 1e-9);
    /* one wrong first stamp among 1000 values: the threshold within 2% of the right one */
    int64_t year = 365 * DAY;
    for (int sign = -1; sign <= 1; sign += 2) {
        double t = thr_after("algo=cdf-hu alarms=1/day", 1000, sign * year);
        print_message("first stamp %+d year: threshold %.4f, right %.4f\n", sign, t, day);
        assert_true(fabs(t - day) < 0.02 * day);
    }
    assert_true(thr_after("algo=cdf-hu threshold=0.95 rate=0.01", 50, 0) == 0.95);
    assert_true(fabs(thr_after("algo=cdf-hu threshold=0.5 rate=0.01", 50, 0) -
                     nld_rate_threshold(0.01)) < 1e-12);
    assert_true(thr_after("algo=cdf-hu alarms=1/day", 1, 0) == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_calib_scale),
        cmocka_unit_test(test_calib_record),
        cmocka_unit_test(test_calib_record_first_spike),
        cmocka_unit_test(test_calib_shrink),
        cmocka_unit_test(test_calib_record_trusted),
        cmocka_unit_test(test_calib_familiar),
        cmocka_unit_test(test_resolution_floor),
        cmocka_unit_test(test_budget_orders),
        cmocka_unit_test(test_budget_edges),
        cmocka_unit_test(test_budget_holds_on_every_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
