/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_clock.h — internal: clock readings and timed-wait deadlines, written once for the
 * library and the tools (the monotonic clock in seconds or milliseconds for timeouts and
 * pacing; an absolute deadline some time from now for pthread_cond_timedwait and friends).
 * Not the summarizer's hot-path clock: that is nl_tsc.h. */
#ifndef NLKIT_NL_CLOCK_H
#define NLKIT_NL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds: for elapsed times and timeouts, never for dates. */
double nl__mono_s(void);

/* CLOCK_MONOTONIC in whole milliseconds (truncated): for poll()-style timeouts. */
int64_t nl__mono_ms(void);

/* The reading of `clock` `ms` milliseconds from now, normalized (0 <= tv_nsec < 1e9):
 * with CLOCK_REALTIME, the absolute deadline pthread_cond_timedwait takes. ms >= 0. */
struct timespec nl__deadline_ms(clockid_t clock, long ms);

/* The same for a time in seconds, fractions kept to the nanosecond; secs may be negative
 * (a deadline already past). */
struct timespec nl__deadline_s(clockid_t clock, double secs);

#endif
