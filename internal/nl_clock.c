/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_clock.c — the tools' clock readings and deadlines (nl_clock.h). */
#include "nl_clock.h"

double nl__mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int64_t nl__mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Carry the nanoseconds into the seconds, whichever way they overflowed. */
static struct timespec normalized(struct timespec t)
{
    while (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    while (t.tv_nsec < 0) {
        t.tv_sec--;
        t.tv_nsec += 1000000000L;
    }
    return t;
}

struct timespec nl__deadline_ms(clockid_t clock, long ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (ms % 1000) * 1000000L;
    return normalized(t);
}

/* Whole seconds by floor (not truncation), so the nanoseconds added are never negative and
 * a negative time lands before now by exactly that much. */
struct timespec nl__deadline_s(clockid_t clock, double secs)
{
    struct timespec t;
    clock_gettime(clock, &t);
    double whole = (double)(long long)secs;
    if (whole > secs) whole -= 1;
    t.tv_sec += (time_t)whole;
    t.tv_nsec += (long)((secs - whole) * 1e9);
    return normalized(t);
}
