/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_tsc.h — private: CLOCK_MONOTONIC read off the CPU's time-stamp counter, for the
 * summarizer's hot path, where the clock read is most of a call's cost.
 *
 * clock_gettime through the vDSO costs about twice a bare rdtsc (bench/README.md has the
 * figures): most of its time is its ordering fence (rdtscp or lfence), which a duration of
 * microseconds or more does not need. So the summarizer maps the counter to
 * CLOCK_MONOTONIC itself — a linear map, mono = ns0 + (tsc - tsc0) * mult / 2^32, that its
 * one updater (the flusher's tick, about once a second) re-anchors on a fresh
 * (counter, clock_gettime) sample — and only where that is sound:
 *   - the kernel itself keeps time with the counter (its clocksource is "tsc": it found the
 *     counter constant-rate and synchronised across CPUs, and watches that it stays so);
 *   - NL_CLOCK is not "kernel" (the switch to the kernel's clock alone, without rebuilding);
 *   - a map is at most NL_TSC_STALE_NS old: past that (a late or stopped flusher) a reader
 *     is told to call clock_gettime, so no reading relies on an old rate for long;
 *   - at every update the map agrees with clock_gettime to within NL_TSC_AGREE_NS: if it
 *     does not (a counter reset, a live migration to a host of another rate), the map is
 *     withdrawn for good and every reading comes from clock_gettime again.
 * Each update is continuous with the map before it (no reading steps back) and steers the
 * rate (measured over the last period, so it follows the kernel's own slewing) so that the
 * map meets clock_gettime again by the next update: the map follows CLOCK_MONOTONIC to
 * within a microsecond or so (tests/lib/test_tsc.c).
 *
 * The map is published under a sequence count: a reader that sees it change (an update in
 * progress, a few ns once a second) takes clock_gettime for that call. */
#ifndef NLKIT_NL_TSC_H
#define NLKIT_NL_TSC_H

#include <stdatomic.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define NL_TSC_STALE_NS 3000000000LL     /* a map older than this is not used */
#define NL_TSC_AGREE_NS 5000000LL        /* map and clock_gettime further apart: withdrawn */
#define NL_TSC_PERIOD_MIN_NS 100000000LL /* samples closer give no rate (nor update) */
#define NL_TSC_STEER_MAX 5e-4            /* the most the rate is steered: the kernel's own slew */

enum nl_tsc_state {
    NL_TSC_OFF = 0,         /* clock_gettime only: not usable here, or withdrawn */
    NL_TSC_CALIBRATING = 1, /* one sample so far: the rate is not known yet */
    NL_TSC_ON = 2           /* a map is published */
};

typedef struct nl__tsc {
    /* the published map; read by any thread (nl__tsc_now, nl__tsc_read_at) */
    _Atomic uint64_t seq; /* odd while the map is rewritten */
    _Atomic uint64_t tsc0, mult, lim;
    _Atomic int64_t ns0;
    _Atomic int64_t calibrate_at; /* while calibrating: when a sample can give the rate */
    /* the updater's own: one updater at a time (the caller serialises them) */
    int state;         /* enum nl_tsc_state */
    uint64_t prev_tsc; /* the last sample taken: the next rate is measured from it */
    int64_t prev_ns;
} nl__tsc_t;

/* 1 if this machine's kernel keeps time with the TSC and the environment does not ask for
 * the kernel's clock alone (NL_CLOCK=kernel). */
int nl__tsc_usable(void);

/* Start a clock, or start it again (readers see no map meanwhile): calibrating from a first
 * sample if `enable` (normally nl__tsc_usable()), else off for good. The memory must be
 * zeroed (or a clock) before the first call: the sequence count carries on. */
void nl__tsc_init(nl__tsc_t *c, int enable);

/* Take a sample (the counter read around clock_gettime) and update the map; a sample less
 * than 100 ms after the last one used changes nothing. Returns the state after it
 * (NL_TSC_OFF once withdrawn). One caller at a time. */
int nl__tsc_update(nl__tsc_t *c);

/* The same with the sample given: the counter `tsc` read when CLOCK_MONOTONIC read
 * `mono_ns`. What nl__tsc_update does once it has its sample; the tests drive it. */
int nl__tsc_update_at(nl__tsc_t *c, uint64_t tsc, int64_t mono_ns);

/* While calibrating, when (CLOCK_MONOTONIC ns) an update can first measure the rate, so the
 * owner may wake for it; else 0. Any thread. */
static inline int64_t nl__tsc_calibrate_at(nl__tsc_t *c)
{
    return atomic_load_explicit(&c->calibrate_at, memory_order_relaxed);
}

/* The counter now; 0 where there is none (then no map is ever published). */
static inline uint64_t nl__tsc_counter(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    return 0;
#endif
}

/* The published map, read whole under its sequence count: 1 with its anchor (*t0 ticks at
 * *n0 ns), rate (*mult, ns per tick << 32) and reach (*lim ticks), or 0 when there is none
 * or an update is under way. Any thread. */
static inline int nl__tsc_map(nl__tsc_t *c, uint64_t *t0, uint64_t *mult, uint64_t *lim,
                              int64_t *n0)
{
    uint64_t s1 = atomic_load_explicit(&c->seq, memory_order_acquire);
    *t0 = atomic_load_explicit(&c->tsc0, memory_order_relaxed);
    *mult = atomic_load_explicit(&c->mult, memory_order_relaxed);
    *lim = atomic_load_explicit(&c->lim, memory_order_relaxed);
    *n0 = atomic_load_explicit(&c->ns0, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return s1 == atomic_load_explicit(&c->seq, memory_order_relaxed) && !(s1 & 1) && *mult;
}

/* CLOCK_MONOTONIC in ns at counter value tsc, by the published map: 1 and *ns, or 0 when
 * the caller must read clock_gettime (no map, a map too old for tsc, an update under way). */
static inline int nl__tsc_read_at(nl__tsc_t *c, uint64_t tsc, int64_t *ns)
{
    uint64_t t0, mult, lim;
    int64_t n0;
    if (!nl__tsc_map(c, &t0, &mult, &lim, &n0)) return 0;
    uint64_t dt = tsc - t0; /* a counter behind the anchor wraps past lim */
    if (dt > lim) return 0;
    *ns = n0 + (int64_t)(((unsigned __int128)dt * mult) >> 32);
    return 1;
}

/* CLOCK_MONOTONIC in ns now, off the counter: 1 and *ns, or 0 when the caller must read
 * clock_gettime. Without a map the counter is not even read: where the counter clock is off,
 * a caller pays one load for asking. Inline: the summarizer's hot path. */
static inline int nl__tsc_now(nl__tsc_t *c, int64_t *ns)
{
    if (!atomic_load_explicit(&c->mult, memory_order_relaxed)) return 0;
    return nl__tsc_read_at(c, nl__tsc_counter(), ns);
}

#endif
