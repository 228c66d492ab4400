/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_hist.h — one algorithm's history H: the values a new value is judged against.
 *
 * Static: the first `cap` values added, then frozen. Sliding (the heuristic history): the
 * last `cap` values added, the oldest leaving as a new one enters. Mean and standard
 * deviation are O(1) from compensated sums of (v - shift), re-based from the stored values
 * after every `cap` removals so a window that slides for days does not drift. Quantiles,
 * when asked for at init, come from an nl_quant order-statistic multiset: O(log cap) per
 * added value. Storage grows with the values actually held, up to cap. */
#ifndef NLKIT_NLD_HIST_H
#define NLKIT_NLD_HIST_H

#include <stdint.h>

#include "nlkit/nl_moments.h"
#include "nlkit/nl_quant.h"

typedef struct nld_hist {
    double *v;        /* values; once a sliding history is full, a ring from `head` */
    uint32_t cap;     /* most values held */
    uint32_t n;       /* values held */
    uint32_t alloc;   /* slots allocated at v */
    uint32_t head;    /* oldest value when full and sliding */
    uint32_t removed; /* removals since the sums were last re-based */
    int sliding;
    double shift;
    nl_ksum_t d1, d2; /* sums of (v - shift) and (v - shift)^2 */
    nl_quant_t *q;    /* order statistics, or NULL if not wanted */
} nld_hist_t;

/* Start an empty history of at most cap (>= 2) values. Returns 0 or NL_ENOMEM. */
int nld_hist_init(nld_hist_t *h, uint32_t cap, int sliding, int want_quantiles);
/* Empty it (a static history then fills again with the next values); storage is kept. */
void nld_hist_clear(nld_hist_t *h);
/* Free its storage. */
void nld_hist_free(nld_hist_t *h);
/* Add a value: a full static history ignores it, a full sliding one drops its oldest.
 * NaN is refused (NL_EINVAL). Returns 0, NL_EINVAL or NL_ENOMEM (history unchanged). */
int nld_hist_add(nld_hist_t *h, double v);
/* Mean of the values held (NaN when empty). */
double nld_hist_mean(const nld_hist_t *h);
/* Sample standard deviation (n - 1 denominator; 0 with fewer than 2 values). */
double nld_hist_sd(const nld_hist_t *h);
/* Empirical u-quantile (type 7, see nl_quant_quantile); NaN without quantiles or values. */
double nld_hist_quantile(const nld_hist_t *h, double u);
/* The share of the values held that are <= v (le) or >= v (ge); NaN without quantiles or
 * values. */
double nld_hist_share_le(const nld_hist_t *h, double v);
double nld_hist_share_ge(const nld_hist_t *h, double v);

#endif
