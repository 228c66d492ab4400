/* SPDX-License-Identifier: BSD-3-Clause */
/* test_clock.c — the tools' clock and deadlines (internal/nl_clock.h). No timing: every
 * reading is bracketed by clock_gettime calls before and after, so a busy machine only
 * widens the bracket, and a wrong carry, unit or sign still falls outside it. */
#include <stdint.h>
#include <time.h>

#include "nl_clock.h"
#include "nl_test.h"

static int64_t ns_of(struct timespec t) { return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec; }

static int64_t now_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return ns_of(t);
}

static void test_mono_readings_lie_between_the_clock_reads(void **state)
{
    (void)state;
    for (int i = 0; i < 1000; i++) {
        int64_t a = now_ns(CLOCK_MONOTONIC);
        double s = nl__mono_s();
        int64_t ms = nl__mono_ms();
        int64_t b = now_ns(CLOCK_MONOTONIC);
        /* seconds as a double: within a microsecond of the bracket (rounding of ~1e6 s) */
        assert_true(s * 1e9 >= (double)a - 1e3);
        assert_true(s * 1e9 <= (double)b + 1e3);
        /* milliseconds truncated */
        assert_true(ms >= a / 1000000);
        assert_true(ms <= b / 1000000);
    }
}

/* A deadline `add_ns` ahead lies in [before + add, after + add] and is normalized. */
static void check_deadline(clockid_t c, int64_t before, struct timespec d, int64_t after,
                           int64_t add_ns)
{
    assert_true(d.tv_nsec >= 0);
    assert_true(d.tv_nsec < 1000000000L);
    int64_t v = ns_of(d);
    if (v < before + add_ns || v > after + add_ns)
        fail_msg("clock %d: deadline %lld outside [%lld, %lld] + %lld", (int)c, (long long)v,
                 (long long)before, (long long)after, (long long)add_ns);
}

static void test_deadline_ms_carries_into_seconds(void **state)
{
    (void)state;
    static const long ms[] = {0, 1, 999, 1000, 1001, 1999, 2500, 86400000L};
    clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC};
    for (int c = 0; c < 2; c++)
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
            for (int rep = 0; rep < 200; rep++) { /* some land just before a second's end */
                int64_t a = now_ns(clocks[c]);
                struct timespec d = nl__deadline_ms(clocks[c], ms[i]);
                int64_t b = now_ns(clocks[c]);
                check_deadline(clocks[c], a, d, b, (int64_t)ms[i] * 1000000);
            }
}

static void test_deadline_s_keeps_fractions_and_signs(void **state)
{
    (void)state;
    static const double secs[] = {0, 0.25, 0.999999, 1.5, 30, -0.5, -2.75};
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++)
        for (int rep = 0; rep < 200; rep++) {
            int64_t a = now_ns(CLOCK_REALTIME);
            struct timespec d = nl__deadline_s(CLOCK_REALTIME, secs[i]);
            int64_t b = now_ns(CLOCK_REALTIME);
            /* the fraction is truncated to the nanosecond: allow one */
            check_deadline(CLOCK_REALTIME, a - 1, d, b + 1, (int64_t)(secs[i] * 1e9));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mono_readings_lie_between_the_clock_reads),
        cmocka_unit_test(test_deadline_ms_carries_into_seconds),
        cmocka_unit_test(test_deadline_s_keeps_fractions_and_signs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
