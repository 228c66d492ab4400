/* SPDX-License-Identifier: BSD-3-Clause */
/* test_confirm.c — a lone spike on a stream that spikes waits for the next value
 * (nld_confirm.h, confirm=): the memory of recent surprises answers with the largest one
 * within the period and lets older ones go; a smaller later surprise does not hide a larger
 * earlier one while it lasts, and outlives it once it expires; surprises under the floor,
 * not finite or not above 0 are not kept; times that go back do not undo expiry; a full
 * memory forgets a small entry, never the largest; a flag waits only under F times the
 * threshold and with a recent surprise of at least LIKE of its own; and the configuration
 * reads confirm= and refuses what it cannot be (the engine's use: test_detect). And
 * young=, the other half of "not yet news": in the bank, a spike as a stream's 60th value
 * keeps 60/300 of its surprise with young=300 and the 400th all of it; young= as
 * nl-detect reads it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nld.h"
#include "nld_algo.h"
#include "nld_tail.h"
#include "nld_combine.h"
#include "nld_confirm.h"
#include "t_bank.h"

#define HOUR 3600000000LL
#define DAY (24 * HOUR)
#define W (3 * 86400.0)

static void test_sliding_max(void **state)
{
    (void)state;
    nld_confirm_t c = {0};
    assert_true(nld_confirm_recent(&c, 0, W) == 0);
    nld_confirm_add(&c, 0, 5, 1);
    nld_confirm_add(&c, 1 * DAY, 3, 1); /* smaller and later: kept behind the 5 */
    assert_true(nld_confirm_recent(&c, 2 * DAY, W) == 5);
    assert_true(nld_confirm_recent(&c, 3 * DAY, W) == 5);     /* exactly the period: still in */
    assert_true(nld_confirm_recent(&c, 3 * DAY + 1, W) == 3); /* the 5 expired: the 3 remains */
    assert_true(nld_confirm_recent(&c, 4 * DAY + 1, W) == 0);
    assert_int_equal(c.n, 0);

    /* a larger later surprise replaces the smaller ones before it */
    nld_confirm_add(&c, 5 * DAY, 2, 1);
    nld_confirm_add(&c, 5 * DAY + HOUR, 4, 1);
    assert_int_equal(c.n, 1);
    assert_true(nld_confirm_recent(&c, 5 * DAY + 2 * HOUR, W) == 4);

    /* under the floor, not finite, or not above 0: not kept */
    nld_confirm_t d = {0};
    nld_confirm_add(&d, 0, 0.5, 1);
    nld_confirm_add(&d, 0, NAN, 0);
    nld_confirm_add(&d, 0, -1, -5);
    nld_confirm_add(&d, 0, 0, 0);
    assert_int_equal(d.n, 0);
    nld_confirm_add(&d, 0, INFINITY, 1); /* an absurd value is a spike */
    assert_true(isinf(nld_confirm_recent(&d, 0, W)));
}

/* Times that go back are taken as the last one's, so an entry cannot live longer than the
 * one before it; a full memory drops the smallest older entry and keeps the largest. */
static void test_order_and_cap(void **state)
{
    (void)state;
    nld_confirm_t c = {0};
    nld_confirm_add(&c, 10 * DAY, 9, 1);
    nld_confirm_add(&c, 1 * DAY, 8, 1); /* a clock that went back: stamped 10 d */
    assert_true(nld_confirm_recent(&c, 13 * DAY, W) == 9);
    assert_true(nld_confirm_recent(&c, 13 * DAY + 1, W) == 0); /* both gone together */

    nld_confirm_t f = {0};
    for (int i = 0; i < NLD_CONFIRM_CAP + 10; i++) /* falling surprises: each one kept */
        nld_confirm_add(&f, i * HOUR, 100 - i, 1);
    assert_int_equal(f.n, NLD_CONFIRM_CAP);
    assert_true(nld_confirm_recent(&f, 30 * HOUR, W) == 100); /* the largest stays */
    /* the newest is always there: after the rest expire it answers */
    double last = 100 - (NLD_CONFIRM_CAP + 9);
    assert_true(nld_confirm_recent(&f, (NLD_CONFIRM_CAP + 8) * HOUR + 3 * DAY + 1, W) == last);
}

static void test_wait(void **state)
{
    (void)state;
    nld_confirm_t c = {0};
    /* no recent spike: a flag pages at once */
    assert_false(nld_confirm_wait(&c, DAY, 4.5, 4, 2, 0, 0));
    nld_confirm_add(&c, DAY, 4.5, 0.8 * 4);
    /* a like flag a day later waits; one 2x the threshold's does not; nor with f off */
    assert_true(nld_confirm_wait(&c, 2 * DAY, 4.6, 4, 2, 0, 0));
    assert_true(nld_confirm_wait(&c, 2 * DAY, 4.5 / NLD_CONFIRM_LIKE, 4, 2, 0, 0)); /* just alike */
    assert_false(nld_confirm_wait(&c, 2 * DAY, 4.5 / NLD_CONFIRM_LIKE + 0.01, 4, 2, 0, 0));
    assert_false(nld_confirm_wait(&c, 2 * DAY, 8, 4, 2, 0, 0));
    assert_false(nld_confirm_wait(&c, 2 * DAY, 4.6, 4, 0, 0, 0));
    assert_false(nld_confirm_wait(&c, 2 * DAY, 4.6, 0, 2, 0, 0));
    /* after the period the memory is empty again */
    assert_false(nld_confirm_wait(&c, 5 * DAY, 4.6, 4, 2, 0, 0));
    /* on a frequent stream (confirm.wait=) every lone flag under f waits, spike or not */
    nld_confirm_t fresh = {0};
    assert_true(nld_confirm_wait(&fresh, DAY, 4.5, 4, 2, 1, 0));
    assert_false(nld_confirm_wait(&fresh, DAY, 8, 4, 2, 1, 0));
    assert_false(nld_confirm_wait(&fresh, DAY, 4.5, 4, 0, 1, 0));
    /* ... and a familiar spike (as large as one within 3 days) waits however far beyond;
     * where lone flags wait only after a like spike, familiar changes nothing */
    assert_true(nld_confirm_wait(&fresh, DAY, 8, 4, 2, 1, 1));
    assert_false(nld_confirm_wait(&fresh, DAY, 8, 4, 2, 0, 1));
    assert_false(nld_confirm_wait(&fresh, DAY, 8, 4, 0, 1, 1)); /* confirm= off */
}

/* confirm.wait=DUR holds every lone flag only where values come at most DUR apart, and
 * never before the spacing is known or with the option off. */
static void test_every(void **state)
{
    (void)state;
    assert_true(nld_confirm_every(1, 600));
    assert_true(nld_confirm_every(600, 600));
    assert_false(nld_confirm_every(3600, 600));
    assert_false(nld_confirm_every(0, 600));
    assert_false(nld_confirm_every(60, 0));
}

/* The factor a lone flag must reach to page at once counts in event time where lone flags
 * wait: F itself at confirm.wait='s spacing, one decade of surprise more for ten times as
 * many values (st 2: half a step of F), two for a hundred; slower streams, an unknown
 * spacing and confirm=off keep F as given. */
static void test_factor(void **state)
{
    (void)state;
    assert_true(fabs(nld_confirm_factor(3, 2, 600, 600) - 3) < 1e-12);
    assert_true(fabs(nld_confirm_factor(3, 2, 60, 600) - 3.5) < 1e-12);
    assert_true(fabs(nld_confirm_factor(3, 2, 6, 600) - 4) < 1e-12);
    assert_true(nld_confirm_factor(3, 2, 3600, 600) == 3);
    assert_true(nld_confirm_factor(3, 2, 0, 600) == 3);
    assert_true(nld_confirm_factor(3, 2, 60, 0) == 3);
    assert_true(nld_confirm_factor(0, 2, 60, 600) == 0);
}

/* The bank's copy of when lone flags wait, which decides where calib.shrink= holds: set
 * from confirm= and confirm.wait= together, whether given or preset. */
static void test_settle(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        double wait_s;
    } cases[] = {
        {"combine=default", NLD_DEFAULT_CONFIRM_WAIT_S},
        {"combine=default confirm.wait=5m", 300},
        {"combine=default confirm=off", 0},
        {"combine=default confirm.wait=off", 0},
        {"algo=msd-hu threshold=0.8 confirm=2", 0},
        {"algo=msd-hu threshold=0.8 confirm=2 confirm.wait=1m", 60},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_cfg_t c;
        char err[256] = "";
        if (t_stream_words(&c, cases[i].words, err, sizeof err))
            fail_msg("%s: %s", cases[i].words, err);
        if (c.s[0].p.shrink_wait_s != cases[i].wait_s)
            fail_msg("%s: %g, not %g", cases[i].words, c.s[0].p.shrink_wait_s, cases[i].wait_s);
        nld_cfg_free(&c);
    }
    nld_params_t p;
    nld_params_default(&p);
    nld_default_params(&p); /* what the benches' fast path runs */
    assert_true(p.shrink_wait_s == NLD_DEFAULT_CONFIRM_WAIT_S);
}

/* Two banks (cdf-hu, calibrated) over the same values, young=300 and off: a spike as the
 * 60th value scores 60/300 of the surprise, as the 400th the same. */
static void test_young(void **state)
{
    (void)state;
    double s60[2], s400[2];
    for (int on = 0; on < 2; on++) {
        nld_params_t p;
        t_bank_params(&p);
        p.young = on ? 300 : 0;
        nld_bank_t b;
        assert_int_equal(nld_bank_init(&b, &p), 0);
        for (int i = 1; i <= 400; i++) {
            double x = 100 + (i * 7 % 11) - 5;
            if (i == 60 || i == 400) x = 130;
            nld_verdict_t v[NLD_ALGOS];
            int err;
            nld_bank_step_at(&b, x, i * 60000000LL, v, &err);
            assert_int_equal(err, 0);
            if (i == 60) s60[on] = nld_surprise_of(v[7].score);
            if (i == 400) s400[on] = nld_surprise_of(v[7].score);
        }
        nld_bank_free(&b);
    }
    assert_true(s60[0] > 1 && s400[0] > 1);
    assert_true(fabs(s60[1] - s60[0] * 60 / 300) < 1e-6 * s60[0]);
    assert_true(s400[1] == s400[0]);
}

static void test_config(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        int ok;
        double confirm;
    } cases[] = {
        {"algo=msd-hu threshold=0.8", 1, 0},
        {"algo=msd-hu threshold=0.8 confirm=2", 1, 2},
        {"algo=msd-hu rate=1e-3 confirm=1.5", 1, 1.5},
        {"combine=default", 1, NLD_DEFAULT_CONFIRM},
        {"combine=default confirm=off", 1, 0},
        {"algo=msd-hu threshold=0.8 confirm=0.5", 0, 0},
        {"algo=msd-hu threshold=0.8 confirm=101", 0, 0},
        {"algo=msd-hu threshold=0.8 confirm=x", 0, 0},
        {"algo=msd-hu confirm=2", 0, 0}, /* no threshold to read it against */
        {"algo=msd-hu young=300", 1, 0},
        {"algo=msd-hu young=0", 2, 0},
        {"algo=msd-hu young=2.5", 2, 0},
        {"algo=msd-hu young=2000000", 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_cfg_t c;
        char err[256] = "";
        int rc = t_stream_words(&c, cases[i].words, err, sizeof err);
        if (cases[i].ok != 1) { /* 0: confirm= refused, 2: young= refused */
            if (!rc) fail_msg("%s: accepted", cases[i].words);
            assert_non_null(strstr(err, cases[i].ok ? "young" : "confirm"));
        } else {
            if (rc) fail_msg("%s: %s", cases[i].words, err);
            assert_true(c.s[0].confirm == cases[i].confirm);
            uint32_t young = strstr(cases[i].words, "young=300")         ? 300
                             : strstr(cases[i].words, "combine=default") ? NLD_DEFAULT_YOUNG
                                                                         : 0;
            assert_true(c.s[0].p.young == young);
        }
        nld_cfg_free(&c);
    }
}

/* Near flags that come in runs need more values to confirm one: a stream whose values are
 * near the threshold (NLD_CONFIRM_NEXT of its surprise) 0.5% of the time independently
 * needs one, as before; 2% of the time, two (one near value by chance is likelier than
 * NLD_CONFIRM_CHANCE, two are not); one whose near values come in runs (90% followed by another,
 * 2% of values near) needs k = log p / log q for the p and q it learnt (about 20), at most
 * what 5 minutes (or confirm.wait=) hold: five at a row a minute, ten at a row a second
 * with confirm.wait=10s, one at a row each 5 minutes and where lone flags do not all wait
 * (an hour apart). A flag no more surprising than one within the last 3 days waits for the
 * values of the whole confirm.wait= on that stream (not where near values come alone), until
 * a value beyond every recent one: k from that one on. The same counts learnt a row at a time or
 * with the rows between near ones passed over at once (as the benchmarks' sweep does) agree. */
static void test_persistent(void **state)
{
    (void)state;
    nld_confirm_t ind = {0}, few = {0}, run = {0}, skip = {0};
    uint64_t rs = 99;
    int in_run = 0;
    uint64_t since = 0;
    for (int i = 0; i < 200000; i++) {
        double u = t_unit(&rs), v = t_unit(&rs);
        nld_confirm_learn(&ind, u < 0.02 ? 2.0 : 0.1, 2.0, 1);
        nld_confirm_learn(&few, u < 0.005 ? 2.0 : 0.1, 2.0, 1);
        /* a two-state chain: a near run goes on with 0.9, begins with 0.02 * 0.1 / 0.9 */
        in_run = in_run ? v < 0.9 : v < 0.02 * 0.1 / 0.98;
        nld_confirm_learn(&run, in_run ? 2.0 : 0.1, 2.0, 1);
        since++;
        if (in_run) {
            nld_confirm_learn(&skip, 2.0, 2.0, since);
            since = 0;
        }
    }
    assert_int_equal(nld_confirm_need(&few, 60, 600, 0), 1);
    assert_int_equal(nld_confirm_need(&ind, 60, 600, 0), 2);
    assert_int_equal(nld_confirm_need(&ind, 300, 600, 0), 1); /* 5-minute rows: one */
    /* below the cap: k itself, from the learnt p and q (q under 0.9: the prior) */
    double p = (run.near_hi + 100 * NLD_CONFIRM_CHANCE) / (run.near_n + 100);
    double q = (run.near_both + NLD_CONFIRM_PRIOR * p) / (run.near_prev + NLD_CONFIRM_PRIOR);
    assert_true(q > 0.75 && q < 0.92);
    assert_true(p > 0.01 && p < 0.03);
    uint32_t k = (uint32_t)floor(log(p) / log(q) + 0.5);
    assert_true(k > 10 && k < 60);
    assert_int_equal(nld_confirm_need(&run, 1, 600, 0), k);
    assert_int_equal(nld_confirm_need(&run, 60, 600, 0), 5);
    assert_int_equal(nld_confirm_need(&run, 1, 10, 0), 10); /* confirm.wait= shorter */
    assert_int_equal(nld_confirm_need(&run, 300, 600, 0), 1);
    assert_int_equal(nld_confirm_need(&run, 3600, 600, 0), 1);
    assert_int_equal(nld_confirm_need(&run, 60, 0, 0), 1);
    /* a flag like a recent one, where near values come in runs: the whole wait */
    assert_int_equal(nld_confirm_need(&run, 1, 600, 1), 600);
    assert_int_equal(nld_confirm_need(&run, 60, 600, 1), 10);
    assert_int_equal(nld_confirm_need(&run, 300, 600, 1), 2);
    assert_int_equal(nld_confirm_need(&run, 3600, 600, 1), 1); /* lone flags do not all wait */
    assert_int_equal(nld_confirm_need(&ind, 60, 600, 1), 2);   /* near values alone: k */
    assert_int_equal(nld_confirm_need(&few, 1, 600, 1), 1);
    /* a flag begins to wait: the whole wait if no more surprising than a recent one */
    nld_confirm_t h = run;
    nld_confirm_add(&h, 0, 3.0, 1);
    nld_confirm_hold(&h, 3600 * (int64_t)1000000, 2.5, 1, 600);
    assert_true(h.pending && h.longer && h.seen == 3.0 && h.got == 0);
    assert_int_equal(h.need, 600);
    for (int i = 1; i < 100; i++) assert_int_equal(nld_confirm_more(&h, 2.0, 1, 600), 1);
    assert_true(h.pend_s == 2.5);
    /* a value beyond every recent one: k from it on, it the first */
    assert_int_equal(nld_confirm_more(&h, 3.5, 1, 600), 1);
    assert_true(h.need == k && h.got == 1 && !h.longer && h.pend_s == 3.5);
    for (uint32_t i = 2; i < k; i++) assert_int_equal(nld_confirm_more(&h, 2.0, 1, 600), 1);
    assert_int_equal(nld_confirm_more(&h, 2.0, 1, 600), 0);
    /* one beyond the recent ones waits for k from the start; so does one three days on */
    nld_confirm_hold(&h, 3600 * (int64_t)1000000, 3.5, 1, 600);
    assert_false(h.longer);
    assert_int_equal(h.need, k);
    nld_confirm_hold(&h, (3 * 86400 + 1) * (int64_t)1000000, 2.5, 1, 600);
    assert_true(!h.longer && h.seen == 0);
    assert_int_equal(h.need, k);
    /* passed over or learnt one by one: the same counts */
    nld_confirm_learn(&skip, 0.1, 2.0, since ? since : 1);
    if (!since) { /* the last row was near: learn one more quiet row on both */
        nld_confirm_learn(&run, 0.1, 2.0, 1);
    }
    assert_true(fabs(skip.near_n - run.near_n) < 1e-6 * run.near_n);
    assert_true(fabs(skip.near_hi - run.near_hi) < 1e-6 * run.near_hi);
    assert_true(fabs(skip.near_prev - run.near_prev) < 1e-6 * run.near_prev);
    assert_true(fabs(skip.near_both - run.near_both) < 1e-6 * run.near_both);
    /* nothing learnt yet: independence, one value */
    nld_confirm_t none = {0};
    assert_int_equal(nld_confirm_need(&none, 1, 600, 0), 1);
}

/* One value at a time, as nl-detect and the benchmarks' fast path both take it: a lone flag
 * on a stream of values a minute apart (every lone flag waits) is taken up, the next near
 * value confirms it (the flag's direction and the larger surprise), one that is not near
 * lets it go, and may itself begin to wait; a flag while an episode is open or a run goes
 * on, and a value that is not a flag, go to the episode as they are. */
static void test_step(void **state)
{
    (void)state;
    const double st = 1.11, f = 3, sp = 60, w = 600;
    nld_confirm_t c = {0};
    int64_t t = 0, m = 60 * (int64_t)1000000;
    assert_int_equal(nld_confirm_step(&c, t += m, 5, 0.2, st, 0, 0, 0, f, sp, w, 0), 0);
    assert_int_equal(nld_confirm_step(&c, t += m, 9, 1.5, st, 3, 0, 0, f, sp, w, 0), NLD_CF_WAIT);
    assert_true(c.pending && c.dir == 3 && c.pend_lo == 9 && c.pend_hi == 9);
    assert_true(c.pend_t == t && c.pend_s == 1.5 && c.need == 1);
    /* the next value, near (0.7 of the threshold's surprise) though not a flag: confirmed */
    assert_int_equal(nld_confirm_step(&c, t += m, 8, 0.8, st, 0, 0, 0, f, sp, w, 0),
                     NLD_CF_CONFIRMED);
    assert_false(c.pending);
    assert_true(c.pend_s == 1.5 && c.pend_t == t - m);
    /* a flag while the episode is open, or while a run goes on: at once */
    assert_int_equal(nld_confirm_step(&c, t += m, 9, 1.5, st, 3, 1, 0, f, sp, w, 0), 0);
    assert_int_equal(nld_confirm_step(&c, t += m, 9, 1.5, st, 3, 0, 1, f, sp, w, 0), 0);
    /* a lone flag the next value does not confirm, which is itself a lone flag */
    assert_int_equal(nld_confirm_step(&c, t += 60 * m, 1, 1.6, st, 2, 0, 0, f, sp, w, 0),
                     NLD_CF_WAIT);
    assert_int_equal(nld_confirm_step(&c, t += m, 5, 0.1, st, 0, 0, 0, f, sp, w, 0),
                     NLD_CF_DROPPED);
    assert_int_equal(nld_confirm_step(&c, t += m, 2, 1.2, st, 2, 0, 0, f, sp, w, 0), NLD_CF_WAIT);
    assert_int_equal(nld_confirm_step(&c, t += m, 3, 1.3, st, 3, 0, 0, f, sp, w, 0),
                     NLD_CF_CONFIRMED);
    assert_true(c.dir == 2); /* the waiting flag's direction, not the confirming value's */
    /* a near value while an episode is open does not confirm */
    assert_int_equal(nld_confirm_step(&c, t += 60 * m, 1, 1.6, st, 2, 0, 0, f, sp, w, 0),
                     NLD_CF_WAIT);
    assert_int_equal(nld_confirm_step(&c, t += m, 1, 1.6, st, 2, 1, 0, f, sp, w, 0),
                     NLD_CF_DROPPED);
    /* hourly values: a lone flag without a recent spike as large pages at once */
    nld_confirm_t h = {0};
    assert_int_equal(nld_confirm_step(&h, 0, 9, 1.5, st, 3, 0, 0, f, 3600, w, 0), 0);
    assert_false(h.pending);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliding_max), cmocka_unit_test(test_order_and_cap),
        cmocka_unit_test(test_wait),        cmocka_unit_test(test_every),
        cmocka_unit_test(test_factor),      cmocka_unit_test(test_persistent),
        cmocka_unit_test(test_step),        cmocka_unit_test(test_settle),
        cmocka_unit_test(test_young),       cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
