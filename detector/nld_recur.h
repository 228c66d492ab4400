/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_recur.h — what the stream did at this time of day lately is not news (recur=DAYS).
 *
 * Many real metrics have a peak at about the same time every day: a backup at 03:10, a
 * batch at the top of the morning, a daily report. The seasonal baseline (nld_season.h)
 * learns the mean of an hour, which a ten-minute spike hardly moves, and its phase drifts
 * across slot borders; so the spike stays rare under every model, and a calibrated rate
 * still lets it through once a day. An operator paged every night for the backup turns
 * the detector off.
 *
 * So each value is also held against the stream's envelope at its time of day: the lowest
 * and highest values it had within `within` seconds of the same time on each of the last
 * `days` days, or within NLD_RECUR_SPACINGS of the stream's typical spacing where that is
 * wider (an hourly series' "same time" must hold a few of its values: its peaks move by an
 * hour or two from day to day). A value inside that envelope keeps NLD_RECUR_KEEP of its surprise;
 * one outside keeps the share excess / (NLD_RECUR_SHARE * (hi - lo)) of it (at least KEEP, at most
 * all), so that leaving the envelope by a quarter of its width is news again. Before a value has a
 * day behind it, nothing changes.
 *
 * The envelope is kept in slots of NLD_RECUR_SLOT_S seconds of event time (UTC): a ring of
 * (days + 1) days of slots, each with its lowest and highest value; (days + 1) * 144 +
 * reach + 1 slots of 12 bytes (3 days: 7 KB). The envelope is gathered once per slot, in
 * O(days * reach); a value in the same slot as the one before costs O(1).
 *
 * On the two real labelled sets (bench-realdata) days = 3 and within = 1 h cut false
 * reports by 29% and 43% at the same rate, for 2 and 6 points fewer windows found; the
 * figures are in bench/README.md. */
#ifndef NLKIT_NLD_RECUR_H
#define NLKIT_NLD_RECUR_H

#include <stdint.h>

#define NLD_RECUR_SLOT_S 600   /* seconds of event time a slot covers */
#define NLD_RECUR_KEEP 0.5     /* the share of its surprise a value inside the envelope keeps */
#define NLD_RECUR_SHARE 0.25   /* leaving the envelope by this share of its width is news */
#define NLD_RECUR_DAYS_MAX 14u /* days remembered, at most */
#define NLD_RECUR_SPACINGS 3.0 /* the same time of day spans at least this many values */
#define NLD_RECUR_WITHIN_MAX 43200.0 /* ... and at most 12 hours either side */

typedef struct nld_recur_slot {
    uint32_t id;  /* its absolute slot number + 1 (0: empty) */
    float lo, hi; /* its lowest and highest value */
} nld_recur_slot_t;

typedef struct nld_recur {
    nld_recur_slot_t *slot; /* the ring (NULL while off) */
    uint32_t n;             /* ring slots */
    uint32_t days;          /* days looked back */
    uint32_t reach;         /* slots either side of the same time of day (within=) */
    uint32_t reach_max;     /* ... at most, by the stream's spacing */
    int64_t t_last;         /* event time of the last value (INT64_MIN: none) */
    double log_gaps;        /* sum of the logs of the gaps between values, in seconds */
    uint64_t gaps;          /* ... and how many */
    int64_t gap;            /* the last gap whose log was taken (a stream's gaps mostly repeat) */
    double log_gap;         /* ... and its log */
    uint64_t cur;           /* the slot of the last value (UINT64_MAX: none) ... */
    int64_t cur_t0, cur_t1; /* ... the event time it covers, [t0, t1) */
    uint32_t cur_i;         /* ... its place in the ring */
    int seen;               /* ... whether any day before had values near its time of day */
    double elo, ehi;        /* ... and their envelope */
} nld_recur_t;

/* Off (days 0) or an envelope over `days` days (1 .. NLD_RECUR_DAYS_MAX) within
 * `within_s` seconds (NLD_RECUR_SLOT_S .. 12 h) of the same time of day. 0, NL_EINVAL for
 * bounds outside those, or NL_ENOMEM. */
int nld_recur_init(nld_recur_t *r, uint32_t days, double within_s);
void nld_recur_free(nld_recur_t *r);

/* The share in [NLD_RECUR_KEEP, 1] of its surprise that value x at event time ts_usec
 * keeps (see above); then x joins its slot. 1, remembering nothing, when off, when x is
 * not finite or its time unknown (INT64_MIN) or before 1970. The stream's typical spacing
 * is the geometric mean of its gaps (each held to 1 s .. 1 day; a gap backwards left
 * out). */
double nld_recur_step(nld_recur_t *r, double x, int64_t ts_usec);

#endif
