/* SPDX-License-Identifier: BSD-3-Clause */
/* test_tsc.c — the counter-based monotonic clock of internal/nl_tsc.h. Driven with made-up
 * samples: it calibrates from two samples, maps counter values to the clock, follows a clock
 * the kernel slews to within a couple of microseconds with no reading stepping back at an
 * update, gives way to clock_gettime when its map is too old, and withdraws for good when the
 * counter and the clock disagree or run backwards. Then, where this machine's kernel keeps
 * time with the counter, the real thing against clock_gettime. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_test.h"
#include "nl_tsc.h"

#define HZ 2.5e9 /* the made-up counter's rate: 0.4 ns per tick */

static int64_t read_ok(nl__tsc_t *c, uint64_t tsc)
{
    int64_t ns = -1;
    if (!nl__tsc_read_at(c, tsc, &ns))
        fail_msg("no reading at counter %llu", (unsigned long long)tsc);
    return ns;
}

static void test_calibrates_then_maps(void **state)
{
    (void)state;
    nl__tsc_t c = {0};
    nl__tsc_init(&c, 1);
    int64_t ns;
    assert_int_equal(nl__tsc_update_at(&c, 1000, 5000000000LL), NL_TSC_CALIBRATING);
    assert_false(nl__tsc_read_at(&c, 2000, &ns)); /* no rate yet: clock_gettime */
    assert_int_equal(nl__tsc_calibrate_at(&c), 5000000000LL + NL_TSC_PERIOD_MIN_NS);
    /* 50 ms later: too short a span to take a rate from */
    assert_int_equal(nl__tsc_update_at(&c, 1000 + 125000000, 5050000000LL), NL_TSC_CALIBRATING);
    assert_false(nl__tsc_read_at(&c, 1000 + 125000000, &ns));
    uint64_t t1 = 1000 + (uint64_t)HZ;
    assert_int_equal(nl__tsc_update_at(&c, t1, 6000000000LL), NL_TSC_ON);
    assert_int_equal(nl__tsc_calibrate_at(&c), 0); /* nothing more to wake for */
    assert_true(llabs(read_ok(&c, t1) - 6000000000LL) <= 1);
    assert_true(llabs(read_ok(&c, t1 + (uint64_t)(HZ / 2)) - 6500000000LL) <= 1);
    assert_true(llabs(read_ok(&c, t1 + 1) - 6000000000LL) <= 1);
    assert_false(nl__tsc_read_at(&c, t1 - 1, &ns)); /* behind the anchor: not this map's */
    /* past the staleness limit the map is not used */
    uint64_t stale = t1 + (uint64_t)((double)NL_TSC_STALE_NS / 1e9 * HZ) + 1000;
    assert_false(nl__tsc_read_at(&c, stale, &ns));
}

/* The true clock: rate r0 ns/tick until the counter reaches ts, then slewed by `ppm`. */
static double truth(double t, double ts, double ppm)
{
    double r0 = 1e9 / HZ;
    return t < ts ? t * r0 : ts * r0 + (t - ts) * r0 * (1 + ppm * 1e-6);
}

static void test_follows_a_slewed_clock(void **state)
{
    (void)state;
    nl__tsc_t c = {0};
    nl__tsc_init(&c, 1);
    double ts = 20.5 * HZ, ppm = 200; /* the kernel starts slewing 200 ppm fast mid-period */
    uint64_t rs = 11;
    int64_t last = 0;
    double worst_late = 0, worst_early = 0;
    for (int k = 0; k <= 60; k++) {
        double t = (k + 1) * HZ;
        /* between updates: readings near the truth, and never stepping back */
        if (k >= 2) {
            for (int j = 0; j < 100; j++) {
                double tj = t - HZ + j * (HZ / 100);
                int64_t r = read_ok(&c, (uint64_t)tj);
                assert_true(r >= last);
                last = r;
                double err = fabs((double)r - truth(tj, ts, ppm));
                if (tj < ts + HZ) continue; /* the period the slew begins in: not foreseen */
                if (tj < ts + 3 * HZ) {
                    if (err > worst_early) worst_early = err;
                } else if (err > worst_late) {
                    worst_late = err;
                }
            }
        }
        /* a sample whose clock reading is off by up to 50 ns (the two counter reads' spread) */
        double jitter = (double)(t_rand(&rs) % 101) - 50;
        int st = nl__tsc_update_at(&c, (uint64_t)t, (int64_t)(truth(t, ts, ppm) + jitter));
        assert_int_equal(st, k == 0 ? NL_TSC_CALIBRATING : NL_TSC_ON);
    }
    print_message("after the slew: worst gap %.0f ns in the next two periods, %.0f ns later\n",
                  worst_early, worst_late);
    assert_true(worst_early < 250000); /* 200 ppm of a second, steered off within two */
    assert_true(worst_late < 2000);
}

static void test_withdraws_when_clocks_disagree(void **state)
{
    (void)state;
    nl__tsc_t c = {0};
    nl__tsc_init(&c, 1);
    int64_t ns;
    nl__tsc_update_at(&c, (uint64_t)HZ, 1000000000LL);
    assert_int_equal(nl__tsc_update_at(&c, (uint64_t)(2 * HZ), 2000000000LL), NL_TSC_ON);
    /* a second later the clock says 10 ms more than the counter: a migration, a reset */
    assert_int_equal(nl__tsc_update_at(&c, (uint64_t)(3 * HZ), 3010000000LL), NL_TSC_OFF);
    assert_false(nl__tsc_read_at(&c, (uint64_t)(3 * HZ), &ns));
    /* for good: agreeing samples do not bring it back */
    assert_int_equal(nl__tsc_update_at(&c, (uint64_t)(4 * HZ), 4010000000LL), NL_TSC_OFF);
    assert_false(nl__tsc_read_at(&c, (uint64_t)(4 * HZ), &ns));

    nl__tsc_init(&c, 1); /* a counter that runs backwards */
    nl__tsc_update_at(&c, (uint64_t)(5 * HZ), 1000000000LL);
    assert_int_equal(nl__tsc_update_at(&c, (uint64_t)(6 * HZ), 2000000000LL), NL_TSC_ON);
    assert_int_equal(nl__tsc_update_at(&c, (uint64_t)(4 * HZ), 3000000000LL), NL_TSC_OFF);
    assert_false(nl__tsc_read_at(&c, (uint64_t)(7 * HZ), &ns));

    nl__tsc_init(&c, 1); /* a counter that stands still while the clock moves */
    nl__tsc_update_at(&c, 5000, 1000000000LL);
    assert_int_equal(nl__tsc_update_at(&c, 5000, 2000000000LL), NL_TSC_OFF);

    nl__tsc_init(&c, 1); /* a rate no time-stamp counter has: 1 tick per 100 ns */
    nl__tsc_update_at(&c, 1000, 1000000000LL);
    assert_int_equal(nl__tsc_update_at(&c, 1000 + 10000000, 2000000000LL), NL_TSC_OFF);

    nl__tsc_init(&c, 0); /* not usable here: off from the start */
    assert_int_equal(nl__tsc_update_at(&c, 1000, 1000000000LL), NL_TSC_OFF);
    assert_int_equal(nl__tsc_update_at(&c, (uint64_t)HZ, 2000000000LL), NL_TSC_OFF);
    assert_false(nl__tsc_read_at(&c, (uint64_t)HZ, &ns));
}

static void test_stale_map_restarts_from_the_clock(void **state)
{
    (void)state;
    nl__tsc_t c = {0};
    nl__tsc_init(&c, 1);
    nl__tsc_update_at(&c, (uint64_t)HZ, 1000000000LL);
    assert_int_equal(nl__tsc_update_at(&c, (uint64_t)(2 * HZ), 2000000000LL), NL_TSC_ON);
    /* no update for 10 s (a late flusher), while the clock ran 3 ms more than the counter:
     * readers were on clock_gettime meanwhile, so the map starts again from it, not from
     * its own old rate, and is not withdrawn for a gap it never served */
    uint64_t t = (uint64_t)(12 * HZ);
    int64_t ns;
    assert_false(nl__tsc_read_at(&c, t, &ns));
    assert_int_equal(nl__tsc_update_at(&c, t, 12003000000LL), NL_TSC_ON);
    assert_true(llabs(read_ok(&c, t) - 12003000000LL) <= 1);
}

static void test_kernel_clock_asked_for(void **state)
{
    (void)state;
    const char *old = getenv("NL_CLOCK");
    char *keep = old ? strdup(old) : NULL;
    setenv("NL_CLOCK", "kernel", 1);
    assert_int_equal(nl__tsc_usable(), 0);
    if (keep) {
        setenv("NL_CLOCK", keep, 1);
        free(keep);
    } else {
        unsetenv("NL_CLOCK");
    }
}

/* Where the kernel keeps time with the counter: readings within 50 us of clock_gettime over
 * a second of updates every 100 ms, and never stepping back. */
static void test_real_counter_against_clock_gettime(void **state)
{
    (void)state;
    if (!nl__tsc_usable()) {
        print_message("the kernel here does not keep time with the TSC (or NL_CLOCK=kernel): "
                      "the counter clock is off, nothing to compare\n");
        skip();
    }
    nl__tsc_t c = {0};
    nl__tsc_init(&c, 1);
    assert_int_equal(nl__tsc_update(&c), NL_TSC_CALIBRATING);
    struct timespec nap = {0, 120000000};
    nanosleep(&nap, NULL);
    assert_int_equal(nl__tsc_update(&c), NL_TSC_ON);
    int64_t last = 0, worst = 0, start = t_mono_ns(), next = start + 100000000;
    long n = 0, fallbacks = 0;
    while (t_mono_ns() - start < 1000000000LL) {
        int64_t a = t_mono_ns(), r;
        int got = nl__tsc_now(&c, &r);
        int64_t b = t_mono_ns();
        if (!got) {
            fallbacks++; /* only while an update is being published */
            continue;
        }
        assert_true(r >= last);
        last = r;
        int64_t gap = r < a ? a - r : r > b ? r - b : 0;
        if (gap > worst) worst = gap;
        n++;
        if (b >= next) {
            assert_int_equal(nl__tsc_update(&c), NL_TSC_ON);
            next = b + 100000000;
        }
    }
    print_message("%ld readings, worst gap to clock_gettime %lld ns, %ld fallbacks\n", n,
                  (long long)worst, fallbacks);
    assert_true(n > 1000);
    assert_true(worst < 50000);
    assert_true(fallbacks < n / 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibrates_then_maps),
        cmocka_unit_test(test_follows_a_slewed_clock),
        cmocka_unit_test(test_withdraws_when_clocks_disagree),
        cmocka_unit_test(test_stale_map_restarts_from_the_clock),
        cmocka_unit_test(test_kernel_clock_asked_for),
        cmocka_unit_test(test_real_counter_against_clock_gettime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
