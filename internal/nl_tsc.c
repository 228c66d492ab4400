/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_tsc.c — the counter-to-CLOCK_MONOTONIC map's updater and the check that it may be
 * used here (see nl_tsc.h). */
#include "nl_tsc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLE_TRIES 8
/* Ticks between the two counter reads of a good sample: a clean one takes ~100-200 (the
 * clock read, 30-60 ns); an interrupt between them widens it, and half the spread is how far
 * the map may be anchored off. 20000 ticks is 4-10 us at this era's counter rates. */
#define SAMPLE_SPREAD_MAX 20000u

int nl__tsc_usable(void)
{
#if defined(__x86_64__)
    const char *env = getenv("NL_CLOCK");
    if (env && !strcmp(env, "kernel")) return 0;
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (!f) return 0;
    char name[32] = "";
    int ok = fgets(name, sizeof name, f) && !strcmp(name, "tsc\n");
    fclose(f);
    return ok;
#else
    return 0;
#endif
}

/* Publish a map (mult 0: none) under the sequence count. */
static void publish(nl__tsc_t *c, uint64_t tsc0, int64_t ns0, uint64_t mult, uint64_t lim)
{
    uint64_t s = atomic_load_explicit(&c->seq, memory_order_relaxed) | 1; /* odd: rewriting */
    atomic_store_explicit(&c->seq, s, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&c->tsc0, tsc0, memory_order_relaxed);
    atomic_store_explicit(&c->ns0, ns0, memory_order_relaxed);
    atomic_store_explicit(&c->mult, mult, memory_order_relaxed);
    atomic_store_explicit(&c->lim, lim, memory_order_relaxed);
    atomic_store_explicit(&c->seq, s + 1, memory_order_release);
}

static void withdraw(nl__tsc_t *c)
{
    c->state = NL_TSC_OFF;
    atomic_store_explicit(&c->calibrate_at, 0, memory_order_relaxed);
    publish(c, 0, 0, 0, 0);
}

/* A sample: the counter just before and just after clock_gettime, their midpoint taken;
 * a sample whose two reads lie far apart (the thread was preempted between them) is taken
 * again. The fences keep the counter reads in their place around the clock's. */
static int sample(uint64_t *tsc, int64_t *ns)
{
#if defined(__x86_64__)
    for (int i = 0; i < SAMPLE_TRIES; i++) {
        struct timespec ts;
        _mm_lfence();
        uint64_t a = __rdtsc();
        _mm_lfence();
        clock_gettime(CLOCK_MONOTONIC, &ts);
        _mm_lfence();
        uint64_t b = __rdtsc();
        _mm_lfence();
        if (b >= a && b - a <= SAMPLE_SPREAD_MAX) {
            *tsc = a + (b - a) / 2;
            *ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
            return 1;
        }
    }
#else
    (void)tsc;
    (void)ns;
#endif
    return 0;
}

void nl__tsc_init(nl__tsc_t *c, int enable)
{
    /* field by field, the published ones atomically: a clock restarted while in use (a
     * test's) is seen by readers as no map, never as a torn one */
    publish(c, 0, 0, 0, 0);
    atomic_store_explicit(&c->calibrate_at, 0, memory_order_relaxed);
    c->prev_tsc = 0;
    c->prev_ns = 0;
    c->state = enable ? NL_TSC_CALIBRATING : NL_TSC_OFF;
}

int nl__tsc_update(nl__tsc_t *c)
{
    if (c->state == NL_TSC_OFF) return NL_TSC_OFF;
    uint64_t tsc;
    int64_t ns;
    if (!sample(&tsc, &ns)) return c->state; /* try again at the next update */
    return nl__tsc_update_at(c, tsc, ns);
}

/* The map's fixed-point rate for `rate` ns per tick, and how many ticks it may serve. */
static void map_for(double rate, uint64_t *mult, uint64_t *lim)
{
    *mult = (uint64_t)llround(rate * 4294967296.0);
    *lim = (uint64_t)((double)NL_TSC_STALE_NS / rate);
}

/* The calibration's and every update's arithmetic. The rate is measured between this sample
 * and the one before (at least NL_TSC_PERIOD_MIN_NS apart), so it follows the kernel's slewing one
 * period late; the map is anchored where the readers' last map says it is now (continuous:
 * no reading steps back) and its rate steered by that map's gap to clock_gettime, so the
 * two meet again by the next update. */
int nl__tsc_update_at(nl__tsc_t *c, uint64_t tsc, int64_t ns)
{
    if (c->state == NL_TSC_OFF) return NL_TSC_OFF;
    if (!c->prev_tsc) { /* the first sample */
        c->prev_tsc = tsc ? tsc : 1;
        c->prev_ns = ns;
        atomic_store_explicit(&c->calibrate_at, ns + NL_TSC_PERIOD_MIN_NS, memory_order_relaxed);
        return c->state;
    }
    if (tsc < c->prev_tsc || ns < c->prev_ns) { /* a counter or a clock gone backwards */
        withdraw(c);
        return NL_TSC_OFF;
    }
    int64_t span = ns - c->prev_ns;
    if (span < NL_TSC_PERIOD_MIN_NS) return c->state; /* too soon to measure a rate on */
    if (tsc == c->prev_tsc) {                         /* a counter that stopped */
        withdraw(c);
        return NL_TSC_OFF;
    }
    double rate = (double)span / (double)(tsc - c->prev_tsc);
    if (!(rate > 0.05 && rate < 20.0)) { /* 50 MHz .. 20 GHz: not a time-stamp counter */
        withdraw(c);
        return NL_TSC_OFF;
    }
    c->prev_tsc = tsc;
    c->prev_ns = ns;
    uint64_t mult, lim;
    if (c->state == NL_TSC_CALIBRATING) {
        map_for(rate, &mult, &lim);
        c->state = NL_TSC_ON;
        atomic_store_explicit(&c->calibrate_at, 0, memory_order_relaxed);
        publish(c, tsc, ns, mult, lim);
        return NL_TSC_ON;
    }
    uint64_t t0 = atomic_load_explicit(&c->tsc0, memory_order_relaxed);
    int64_t n0 = atomic_load_explicit(&c->ns0, memory_order_relaxed);
    uint64_t old_mult = atomic_load_explicit(&c->mult, memory_order_relaxed);
    uint64_t old_lim = atomic_load_explicit(&c->lim, memory_order_relaxed);
    if (tsc < t0) {
        withdraw(c);
        return NL_TSC_OFF;
    }
    uint64_t dt = tsc - t0;
    if (dt > old_lim) { /* the readers have been on clock_gettime: start again from it */
        map_for(rate, &mult, &lim);
        publish(c, tsc, ns, mult, lim);
        return NL_TSC_ON;
    }
    int64_t at = n0 + (int64_t)(((unsigned __int128)dt * old_mult) >> 32);
    int64_t gap = ns - at;
    if (gap > NL_TSC_AGREE_NS || gap < -NL_TSC_AGREE_NS) {
        withdraw(c);
        return NL_TSC_OFF;
    }
    double steer = (double)gap / (double)span;
    if (steer > NL_TSC_STEER_MAX) steer = NL_TSC_STEER_MAX;
    if (steer < -NL_TSC_STEER_MAX) steer = -NL_TSC_STEER_MAX;
    map_for(rate * (1.0 + steer), &mult, &lim);
    publish(c, tsc, at, mult, lim);
    return NL_TSC_ON;
}
