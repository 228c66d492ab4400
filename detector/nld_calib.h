/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_calib.h — a threshold that means a false-alarm rate.
 *
 * An algorithm's raw surprise S = -log10 P (nld_tail.h) is P under the algorithm's own
 * model of normal: a normal tail, a robust one. Real series are heavy-tailed, bursty,
 * quantised and autocorrelated, so one P gives very different alarm rates on different
 * series. The calibration stage judges each raw surprise against the stream's own recent
 * raw surprises instead, as conformal p-values do (Vovk et al.): the calibrated P of s is
 * the share of the last `window` surprises at least as large. Alarms are asked for far in
 * that tail (1e-4 of values and less), beyond what a window of a few thousand holds, so
 * the top tenth of the window is modelled as a generalised Pareto tail of the surprises —
 * peaks over a threshold, as in SPOT (Siffer et al., KDD 2017), shape and scale from
 * Pickands' estimator: a model that is right has P(S >= u + x | S >= u) = 10^-x (shape 0,
 * scale 1 / ln 10), one with heavy tails a power-law decay, which is what is fitted. The
 * fit is shrunk towards the model's own tail by a prior worth `NLD_CALIB_PRIOR` tail
 * values, so a new stream starts from its model and moves to its data as they come; its
 * scale is never smaller than the model's. (The tail starts at the window's own top tenth,
 * so on a stream whose surprises are all small the same raw surprise can come out larger
 * than the model's: a stream that is quieter than its model is judged by its own quiet.)
 * Below the tail the calibrated surprise is a straight line from 0 to 1 (P = 0.1), never
 * an alarm. A surprise that comes out
 * rarer than 1 in 100 is learnt as the surprise of 1 in 100 (its number counts, its size
 * does not), so a long anomaly does not fill the tail and hide the next one; while such
 * values are more than a twentieth of the recent ones (a fault that recurs or lasts), they
 * are not learnt at all.
 *
 * Beyond the censor the fit extrapolates from the window's top tenth, and on a stream
 * whose far tail is heavier than its body (Student t, spikes of twice the level a day) it
 * claims P = 1e-20 for values that come daily: no budget removes those alarms. So the
 * stream keeps a record of its last NLD_CALIB_RECORD values beyond the censor (their raw
 * surprises and where they came), and once it holds NLD_CALIB_RECORD_MIN, a value beyond
 * the censor is claimed no rarer than its rank among them says: P = (1 + those at least
 * as surprising) / (values since the oldest of them), a conformal p-value over the far
 * tail alone. Beyond the largest of them the fit's shape still counts, from that one's
 * rank: the claim is its rank's plus what the fit adds from it to the value, so on a
 * stream whose model is right a value far beyond any before keeps what the fit says, and
 * a stream whose far values lie far back is hardly held back. The record never takes a
 * claim below its floor R (calib.record=; P = 10^-R): with R = 6 it corrects only claims
 * rarer than one in a million; with R = 2 every claim beyond 1 in 100 (calib.shrink=, when
 * on, can still raise a value to its own bound). A value the censor leaves out of the fit
 * (a fault that lasts) stays out of the record too; so does an infinite one.
 *
 * The calibrated surprise -log10 P_cal goes back on the same scale as before (score =
 * S / (S + 1)), so threshold=, combine= and the scores written mean what they did, only
 * now relative to the stream. O(log window) per value (an order-statistic multiset), and
 * O(NLD_CALIB_RECORD) for a value beyond the censor; the record, 0.5 KiB, is allocated
 * only where it is on. */
#ifndef NLKIT_NLD_CALIB_H
#define NLKIT_NLD_CALIB_H

#include <stdint.h>

#include "nld_hist.h"

#define NLD_CALIB_TAIL 0.1   /* the share of recent surprises modelled as the tail */
#define NLD_CALIB_PRIOR 10.0 /* the model's own scale weighs this many tail values */
#define NLD_CALIB_CENSOR 2.0 /* calibrated surprises above this (P < 1e-2) are learnt as it */
#define NLD_CALIB_RECUR 0.05  /* ... unless they come more often than this: then not at all */
#define NLD_CALIB_SPAN_S (12 * 3600.0) /* a window this long in event time: calib.shrink lifts */
#define NLD_CALIB_RECORD_TRUSTED 4.0 /* ... and the record's floor is at most this there */
#define NLD_CALIB_RECORD 32u    /* values beyond the censor the record keeps */
#define NLD_CALIB_RECORD_MIN 8u /* ... and holds before it bounds a claim */
#define NLD_CALIB_MIN 20u /* 2 / TAIL: fewer held and the model's own word stands */
#define NLD_CALIB_MAX 1000000u

/* The record of a stream's far tail: its last raw surprises beyond the censor. */
typedef struct nld_calib_rec {
    uint32_t n, next;               /* values held; the slot the next one takes */
    double s[NLD_CALIB_RECORD];     /* raw surprises ... */
    uint64_t at[NLD_CALIB_RECORD];  /* ... and when they came (in nld_calib_t.seen) */
} nld_calib_rec_t;

typedef struct nld_calib {
    nld_hist_t h;   /* the last `window` raw surprises (finite ones), with quantiles */
    uint32_t fresh; /* surprises added since the tail was fitted */
    double capped;  /* the recent share of surprises over the censor (a moving average) */
    double record;  /* > 0: the record bounds claims, never below this surprise (0: off; a
                       positive one may be changed between steps) */
    uint64_t seen;  /* surprises judged so far */
    uint64_t within; /* > 0: a value is familiar when the record holds one at least as
                        surprising among the last `within` values (0: never; may be changed
                        between steps) */
    int familiar;   /* the last value judged was familiar (nld_calib_step) */
    struct nld_calib_rec *rec; /* the record (allocated only with record > 0) */
    double u, xi, beta; /* the fitted tail, s >= u: P(S >= s) = TAIL (1 + xi (s - u) / beta)
                           ^ (-1 / xi), or TAIL exp(-(s - u) / beta) for xi = 0 */
} nld_calib_t;

/* Start with room for the last `window` (NLD_CALIB_MIN .. MAX) surprises; record > 0 turns
 * on the record of the far tail with that floor (a surprise, at least NLD_CALIB_CENSOR;
 * 0: off). 0 or NL_ENOMEM (nothing then to free). */
int nld_calib_init(nld_calib_t *c, uint32_t window, double record);
void nld_calib_free(nld_calib_t *c);
/* The calibrated surprise of raw surprise s (s >= 0; +inf stays +inf), judged against the
 * surprises before it; then s joins them. Returns it, or NAN (NL_ENOMEM). Sets
 * c->familiar: s lies beyond the censor, the record holds NLD_CALIB_RECORD_MIN values, and
 * one of them, among the last c->within values, is at least as surprising — a spike no
 * larger than one the stream had lately, which confirm= does not let page alone. */
double nld_calib_step(nld_calib_t *c, double s);

#endif
