/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_season.h — a seasonal baseline learned from the stream (season=DUR): the period
 * (a day, a week) is cut into slots by the event time of each value (UTC); each slot
 * keeps the mean of the normal values that fell in it during the current period and, from
 * the periods before, a level: the exponentially weighted average of those means, one
 * step per period (so a slot of an hour weighs days alike whether the stream has one
 * value an hour or one a second), as the seasonal part of Holt-Winters' additive method
 * does (Winters 1960; Hyndman & Athanasopoulos, "Forecasting: principles and practice",
 * ch. 8). The bank judges
 * x - offset instead of x, offset = the slot's level minus the mean level of all slots: a
 * daily peak that comes every day is no longer an anomaly, a peak at an hour that is
 * quiet every other day still is, and a shift of the whole level still shows.
 *
 * Many metrics have no season worth the name (a crash count), and there the levels
 * differ only by noise: taking them off would add that noise to every value. So the
 * offsets are shrunk towards 0 by how much of the levels' spread across slots is noise
 * (an empirical-Bayes / James-Stein factor w = max(0, 1 - noise / spread), with the noise
 * of a level estimated from how far each period's mean strays from it): w is near 1 for a
 * clear daily cycle and 0 for none. O(1) per value, O(slots) once per slot and period. */
#ifndef NLKIT_NLD_SEASON_H
#define NLKIT_NLD_SEASON_H

#include <stdint.h>

#define NLD_SEASON_SLOTS_MAX 1440u /* a day in minutes */

typedef struct nld_season_slot {
    double level;     /* weighted mean over the past periods */
    double dev2;      /* weighted mean square of a period's mean from the level */
    uint32_t periods; /* periods folded in */
    double sum;       /* of this period's values */
    uint32_t n;       /* ... and how many */
    int filled;       /* level is set */
    int64_t period;   /* the period the sum belongs to */
} nld_season_slot_t;

typedef struct nld_season {
    nld_season_slot_t *slot; /* per slot (NULL while off) */
    uint32_t slots, nfilled;
    double sum; /* of the filled slots' levels */
    double w;   /* the shrinkage factor in [0, 1] */
    int64_t period_us;
    double alpha;
    uint32_t cur;       /* the slot of the value being judged (UINT32_MAX: none) */
    int64_t cur_period; /* ... and its period */
    uint32_t run;       /* the current run of flagged values, as for relearn= */
    int64_t run_t0;
} nld_season_t;

/* Off (period 0) or slots levels over period_s seconds; 0 or NL_ENOMEM. */
int nld_season_init(nld_season_t *s, double period_s, uint32_t slots, double alpha);
void nld_season_free(nld_season_t *s);
/* The seasonal offset of a value at event time ts_usec (INT64_MIN: unknown, offset 0): w
 * times its slot's level less the mean of the filled slots' levels; 0 while fewer than
 * half the slots have a level (a slot has one once a period it had values in is over) or
 * before any slot has seen two periods. Remembers the slot for nld_season_learn. */
double nld_season_offset(nld_season_t *s, int64_t ts_usec);
/* Take x (as observed, offset not removed) into the slot of the last nld_season_offset. */
void nld_season_learn(nld_season_t *s, double x);

#endif
