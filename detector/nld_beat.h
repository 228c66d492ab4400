/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_beat.h — a run of flags that comes on a beat is not news (issue 61: recurring is
 * not new).
 *
 * A cron job that makes requests slower for 20 s every hour, a nightly batch, a backup at
 * 02:00: each run is surprising to a model of the last half hour of values, and each would
 * page. What marks them as normal is their rhythm: the stream had runs of flags that lasted
 * one period and two periods before this one. With beat=N (combine=default: 2) a stream
 * keeps the starts of its last NLD_BEAT_CAP runs that counted; a new run starting at t is
 * on a beat when N of them began at t - P, t - 2P ... t - N P (each within NLD_BEAT_TOL of
 * its multiple of P), P between NLD_BEAT_MIN_S (and
 * ten of the stream's spacings, so that runs flickering through one lasting anomaly are
 * no beat) and NLD_BEAT_MAX_S. Such a run opens an episode that is held (counted, not
 * written) and never escalates: the first N runs page as anything new does (or are held
 * by the hold-off), the later ones do not. A job that is late, early or skipped breaks the beat and
 * pages again.
 *
 * The starts are event times; the ring costs 72 bytes an episode slot and a question at
 * most NLD_BEAT_CAP^2 comparisons, asked once a run. */
#ifndef NLKIT_NLD_BEAT_H
#define NLKIT_NLD_BEAT_H

#include <stdint.h>

#define NLD_RUN_GAP 2 /* unflagged values in a row that end a run of flags (nld_keyed.c) */
#define NLD_BEAT_CAP 8
#define NLD_BEAT_MIN_S 60.0          /* the shortest beat */
#define NLD_BEAT_SPACINGS 10.0       /* ... and at least this many of the stream's spacings */
#define NLD_BEAT_MAX_S (25 * 3600.0) /* the longest: a daily job, with an hour to spare */
#define NLD_BEAT_TOL 0.01            /* the share of P a start may miss its beat by */

typedef struct nld_beat {
    int64_t t[NLD_BEAT_CAP]; /* starts of the last runs that counted (event time, usec) */
    uint8_t next, n;
} nld_beat_t;

/* Remember a run that counted, begun at event time t. */
void nld_beat_add(nld_beat_t *b, int64_t t);

/* Whether a run begun at event time t is on a beat of the runs remembered (see above): one
 * began at each of t - P, t - 2P ... t - need P (need >= 1; combine=default: 2), on a
 * stream whose values come spacing_s seconds apart (0 or less: not known yet). */
int nld_beat_on(const nld_beat_t *b, int64_t t, double spacing_s, unsigned need);

#endif
