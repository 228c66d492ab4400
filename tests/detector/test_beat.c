/* SPDX-License-Identifier: BSD-3-Clause */
/* test_beat.c — runs of flags on a beat (nld_beat.h, beat=): a run one and two periods
 * after earlier runs is on the beat, within 1% of the period and not beyond; one earlier run
 * is no beat; need=3 asks for three; periods under a minute, under ten of the stream's
 * spacings or over 25 hours are none; the ring forgets its oldest start past its size.
 * (The engine's use, held and never escalating: test_detect; the benchmarks' fast path
 * against the engine: test_ep_engine.) */
#include <stdint.h>

#include "nl_test.h"
#include "nld_beat.h"

#define S 1000000LL /* a second in usec */
#define H (3600 * S)

static nld_beat_t at(const int64_t *t, int n)
{
    nld_beat_t b = {0};
    for (int i = 0; i < n; i++) nld_beat_add(&b, t[i]);
    return b;
}

static void test_on_the_beat(void **state)
{
    (void)state;
    const int64_t t[] = {10 * H, 11 * H};
    nld_beat_t b = at(t, 2);
    assert_true(nld_beat_on(&b, 12 * H, 1, 2));
    assert_true(nld_beat_on(&b, 12 * H + 30 * S, 1, 2));  /* 30 s late: within 1% of an hour */
    assert_false(nld_beat_on(&b, 12 * H + 90 * S, 1, 2)); /* 90 s late: not */
    assert_false(nld_beat_on(&b, 12 * H - 90 * S, 1, 2));
    assert_false(nld_beat_on(&b, 13 * H, 1, 2)); /* 11:00 skipped a beat of 1 h ... */
    const int64_t one[] = {11 * H};
    nld_beat_t c = at(one, 1);
    assert_false(nld_beat_on(&c, 12 * H, 1, 2)); /* one run before is no beat */
    assert_true(nld_beat_on(&c, 12 * H, 1, 1));  /* ... unless one is asked for */
    assert_false(nld_beat_on(&b, 12 * H, 1, 3)); /* three asked, two there */
    const int64_t three[] = {9 * H, 10 * H, 11 * H};
    nld_beat_t d = at(three, 3);
    assert_true(nld_beat_on(&d, 12 * H, 1, 3));
    const int64_t gap[] = {8 * H, 10 * H, 11 * H}; /* 9:00 missing */
    nld_beat_t e = at(gap, 3);
    assert_false(nld_beat_on(&e, 12 * H, 1, 3));
    assert_true(nld_beat_on(&e, 12 * H, 1, 2));
}

static void test_periods_bounded(void **state)
{
    (void)state;
    const int64_t fast[] = {0, 30 * S}; /* every 30 s: under a minute */
    nld_beat_t b = at(fast, 2);
    assert_false(nld_beat_on(&b, 60 * S, 1, 2));
    const int64_t min[] = {0, 60 * S}; /* every minute: a beat at 1 s, not at 10 s spacing */
    b = at(min, 2);
    assert_true(nld_beat_on(&b, 120 * S, 1, 2));
    assert_false(nld_beat_on(&b, 120 * S, 10, 2));
    const int64_t day[] = {0, 24 * H};
    b = at(day, 2);
    assert_true(nld_beat_on(&b, 48 * H, 60, 2));
    const int64_t two[] = {0, 26 * H}; /* every 26 h: over 25 */
    b = at(two, 2);
    assert_false(nld_beat_on(&b, 52 * H, 60, 2));
}

static void test_ring_forgets_oldest(void **state)
{
    (void)state;
    nld_beat_t b = {0};
    nld_beat_add(&b, 0); /* a beat of 10 h: 0, 10 h, then many runs between */
    nld_beat_add(&b, 10 * H);
    assert_true(nld_beat_on(&b, 20 * H, 1, 2));
    for (int i = 0; i < NLD_BEAT_CAP - 1; i++) nld_beat_add(&b, 11 * H + i * 7 * 60 * S);
    assert_int_equal(b.n, NLD_BEAT_CAP);
    assert_false(nld_beat_on(&b, 20 * H, 1, 2)); /* 0:00 is forgotten, 10:00 kept */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_the_beat),
        cmocka_unit_test(test_periods_bounded),
        cmocka_unit_test(test_ring_forgets_oldest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
