/* SPDX-License-Identifier: BSD-3-Clause */
/* eval_match.h — scoring anomaly episodes against injected faults, as the paper did.
 *
 * An injection is found (Correct) when an episode overlaps it; one that no episode
 * overlaps is a false negative (FN). An episode that overlaps no injection is a false
 * positive (FP). Overlap allows `grace` seconds after an injection's end, since smoothed
 * algorithms flag a little late. Weak injections count as neither found nor missed, and an
 * episode overlapping only weak ones is not an FP, unless count_weak is set (then they are
 * ordinary injections). Badness = (FP + FN) / Correct. */
#ifndef NLKIT_BENCH_EVAL_MATCH_H
#define NLKIT_BENCH_EVAL_MATCH_H

#include <stddef.h>

typedef struct em_span {
    double t0, t1; /* seconds, t0 <= t1; for an injection [t0, t1), for an episode the times
                      of its first and last flagged value */
    int weak;      /* injections only */
} em_span_t;

typedef struct em_score {
    int correct, fp, fn;
    int weak_found; /* weak injections an episode overlapped (reported, never scored
                       unless count_weak) */
    int ep_true;    /* episodes that overlapped a scored injection */
} em_score_t;

/* Score episodes ep[0..nep) against injections inj[0..ninj). */
void em_score(const em_span_t *inj, size_t ninj, const em_span_t *ep, size_t nep, double grace,
              int count_weak, em_score_t *out);

/* (FP + FN) / Correct; INFINITY when nothing was found but something was wrong, 0 when
 * nothing was found and nothing was wrong. */
double em_badness(const em_score_t *s);

/* Correct / (Correct + FN), and ep_true / (ep_true + FP); NAN when undefined. */
double em_recall(const em_score_t *s);
double em_precision(const em_score_t *s);

/* The share of injection `inj` during which an episode was open: a value at time t
 * stands for the interval (t - step, t], so an episode from t0 to t1 covers
 * (t0 - step, t1]. 0 for an empty injection. Tells an algorithm that keeps flagging a
 * lasting fault from one that flags its onset and then learns it as normal. */
double em_coverage(const em_span_t *inj, const em_span_t *ep, size_t nep, double step);

#endif
