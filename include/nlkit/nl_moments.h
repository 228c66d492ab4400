/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nl_moments.h — running count, sum, min, max, mean and standard deviation of a series,
 * numerically careful and cheap to update, and an exponentially weighted moving average:
 * the statistics accumulators that the summarizer, the detector and the peers code share
 * (quantiles are in nl_quant.h).
 *
 * Sums are shifted by the first value and compensated (Neumaier), so a day of
 * nanosecond-scale durations, or values near 1e9 that differ by 1, neither drift nor cancel.
 * An update costs a few additions and multiplications and no division, which matters on
 * the summarizer's hot path. Accumulators of different threads merge exactly as if one had
 * seen every value.
 */
#ifndef NLKIT_NL_MOMENTS_H
#define NLKIT_NL_MOMENTS_H

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A compensated sum: the true sum is approximately s + c. */
typedef struct nl_ksum {
    double s, c;
} nl_ksum_t;

/** Add x to a compensated sum (Neumaier's variant of Kahan summation). */
static inline void nl_ksum_add(nl_ksum_t *k, double x)
{
    double t = k->s + x;
    if (fabs(k->s) >= fabs(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}

/** The value of a compensated sum. */
static inline double nl_ksum_value(const nl_ksum_t *k) { return k->s + k->c; }

/** Moments of a series. Initialise with nl_mom_init; all fields are private. */
typedef struct nl_moments {
    uint64_t n;
    double shift; /* the first value: sums of (x - shift) keep the variance exact */
    nl_ksum_t d1; /* sum of (x - shift); the sum of x is n shift + d1 */
    nl_ksum_t d2; /* sum of (x - shift)^2 */
    double min, max;
} nl_moments_t;

/** The largest magnitude a value may have to enter a statistic: its square (in a variance)
 *  and its squared deviations must stay finite. No operations metric comes near it. */
#define NL_MOM_ABS_MAX 1e150

/** 1 if x may enter a statistic: finite and within ±NL_MOM_ABS_MAX. One inf (or 1e300,
 *  whose square is inf) would otherwise make a running mean, sd or sum useless for good;
 *  callers refuse such values and count them. */
static inline int nl_mom_usable(double x) { return isfinite(x) && fabs(x) <= NL_MOM_ABS_MAX; }

/** Start an empty accumulator. */
void nl_mom_init(nl_moments_t *m);

/** Add one value. NaN values are ignored (they have no place in a sum or an extreme). */
static inline void nl_mom_add(nl_moments_t *m, double x)
{
    if (x != x) return;
    if (m->n == 0) m->shift = x;
    double d = x - m->shift;
    m->n++;
    nl_ksum_add(&m->d1, d);
    nl_ksum_add(&m->d2, d * d);
    if (x < m->min) m->min = x;
    if (x > m->max) m->max = x;
}

/** Fold `from` into `into`, as if `into` had also seen every value of `from`. */
void nl_mom_merge(nl_moments_t *into, const nl_moments_t *from);

/** Number of values added. */
static inline uint64_t nl_mom_count(const nl_moments_t *m) { return m->n; }
/** Sum of the values (0 when empty). */
double nl_mom_sum(const nl_moments_t *m);
/** Mean (NaN when empty). */
double nl_mom_mean(const nl_moments_t *m);
/** Sample standard deviation, with n - 1 in the denominator (0 with fewer than 2 values). */
double nl_mom_sd(const nl_moments_t *m);
/** Smallest / largest value (NaN when empty). */
double nl_mom_min(const nl_moments_t *m);
double nl_mom_max(const nl_moments_t *m);

/** An exponentially weighted moving average, s = alpha x + (1 - alpha) s_prev; the first
 *  value starts the average (s = x). Initialise with nl_ewma_init. */
typedef struct nl_ewma {
    double s, alpha;
    int primed; /* a value has been seen */
} nl_ewma_t;

/** Start an average with weight alpha (0 < alpha <= 1) for each new value. */
static inline void nl_ewma_init(nl_ewma_t *e, double alpha)
{
    e->s = 0.0;
    e->alpha = alpha;
    e->primed = 0;
}

/** Add a value and return the new average. NaN values are ignored (the average stays). */
static inline double nl_ewma_add(nl_ewma_t *e, double x)
{
    if (x != x) return e->primed ? e->s : x;
    e->s = e->primed ? e->alpha * x + (1.0 - e->alpha) * e->s : x;
    e->primed = 1;
    return e->s;
}

#ifdef __cplusplus
}
#endif
#endif
