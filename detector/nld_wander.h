/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_wander.h — a level that wanders holds few independent values (wander=N).
 *
 * A utilisation that drifts for hours and has no daily pattern (a queue's depth, a disk's
 * fill, a rounded CPU share that moves every hour or so) is at the edge of its last week
 * every few days: a history of 2000 values five minutes apart holds, for such a level,
 * about ten independent ones, and the edge of ten values is no rarer than one in ten. The
 * models judge it as one in two thousand, and so does a calibration of a few days of its
 * surprises, which wander too (bench-quiet's quantised walk at 5 minutes paged 0.30 times
 * a day for it).
 *
 * So each stream also keeps how many independent values its history holds: n = H (1 - r)
 * / (1 + r), for a history of H values and r the lag-1 autocorrelation of the values less
 * their time of day (each UTC hour's mean over that hour's last H / 24 values, so that a
 * daily pattern, which the seasonal baseline and recur= judge, is not taken for a
 * wandering level). Where n < N, a surprise keeps the share log(1 + n) / log(1 + N) of
 * itself: a claim of one in N becomes one of one in n + 1. Only where the history spans a
 * day or more: on faster streams (1-second summaries) it holds minutes, no time of day can
 * be told from it, and confirm= waits out a wandering level's lone flags instead.
 *
 * O(1) per value, NLD_WANDER_SLOTS doubles of memory. */
#ifndef NLKIT_NLD_WANDER_H
#define NLKIT_NLD_WANDER_H

#include <stdint.h>

#define NLD_WANDER_SLOTS 24       /* the hours of a UTC day */
#define NLD_WANDER_SPAN_S 86400.0 /* the history must span this much event time */
#define NLD_WANDER_MAX 1000000u   /* wander=N at most */

typedef struct nld_wander {
    double hour[NLD_WANDER_SLOTS]; /* each hour's mean value, recently */
    uint32_t hour_n[NLD_WANDER_SLOTS];
    double m, v, c; /* the residuals' mean, variance and lag-1 covariance, recently */
    double prev;    /* the last residual */
    uint64_t n;     /* values learnt */
    int64_t h0, h1; /* the event time [h0, h1) of the last value's hour ... */
    int hour_i;     /* ... and its slot (-1: none yet) */
} nld_wander_t;

void nld_wander_init(nld_wander_t *w);

/* The share in (0, 1] of its surprise a value keeps on a stream whose history holds
 * `hist` values (see above), under wander=n0, once at least `min` values are learnt;
 * 1 where `applies` is 0 (the history spans less than NLD_WANDER_SPAN_S). Then value x at
 * event time ts_usec (INT64_MIN: unknown, no time of day) is learnt. A value that is not
 * finite gets 1 and changes nothing. */
double nld_wander_step(nld_wander_t *w, double x, int64_t ts_usec, double hist, double n0,
                       uint32_t min, int applies);

/* How many independent values a history of `hist` values holds, by what w has learnt. */
double nld_wander_independent(const nld_wander_t *w, double hist);

#endif
