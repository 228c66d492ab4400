/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_change.h — the detectors beyond the paper's eight, each judged against the same
 * kind of history (the last N values that were not flagged, with order statistics):
 *
 *   cusum   Page's CUSUM (Page 1954; Basseville & Nikiforov 1993) for level shifts, on
 *           values standardised by the history's median and robust spread and clipped to
 *           +-4 (so one spike cannot hold an alarm): g+ = max(0, g+ + z - k),
 *           g- = max(0, g- - z - k); an alarm when max(g+, g-) > h, after which the sums
 *           start again (Page's restart) and the values are flagged for as long as they
 *           stay beyond k on the alarm's side, so a lasting shift is one episode. Its
 *           surprise is the log likelihood ratio of a 2k-sd shift, g / ln 10. O(log N).
 *   relent  the relative-entropy (metric distribution) test of Wang et al., "Online
 *           detection of utility cloud anomalies using metric distributions" (NOMS 2010):
 *           the last w values binned into B equal-frequency bins of the history; with
 *           counts c_j, G = 2 w KL(c/w || 1/B) is chi-square with B - 1 degrees of freedom
 *           when the window follows the history; flags when P(chi2 >= G) < relent.p.
 *           O(w + B log N) per value, w and B small constants.
 *
 * The robust reference (median m, spread = IQR / 1.349, or the sd when half the history
 * is one value) is also what the CDF algorithms' scores stand on. */
#ifndef NLKIT_NLD_CHANGE_H
#define NLKIT_NLD_CHANGE_H

#include <stdint.h>

#include "nld_hist.h"

#define NLD_RELENT_W_MAX 256
#define NLD_RELENT_B_MAX 32

typedef struct nld_cusum {
    double gp, gn;
    int alarm; /* +1 / -1 after an alarm, while values stay beyond k on that side; else 0 */
} nld_cusum_t;

typedef struct nld_relent {
    double *ring; /* the last w values, or NULL before the first */
    uint32_t w, n, head;
} nld_relent_t;

/* The history's median and robust spread; 0 if it has quantiles and values. The spread is
 * IQR / 1.349, or the sd when that is 0 (a count that is mostly one value); 0 only for a
 * constant history (the caller puts a floor under it). */
int nld_robust_ref(const nld_hist_t *h, double *m, double *spread);

/* One CUSUM step on the standardised value z; returns the statistic max(g+, g-) and sets
 * *dir to +1 (upward shift) or -1. */
double nld_cusum_step(nld_cusum_t *c, double z, double k, int *dir);

/* Keep x in the window (allocating it on first use); 0 or NL_ENOMEM. */
int nld_relent_push(nld_relent_t *r, uint32_t w, double x);
/* G of the window against h's equal-frequency bins (NaN while the window is not full);
 * *dir is +1 when the window's mean is above the history's median, else -1. */
double nld_relent_g(const nld_relent_t *r, const nld_hist_t *h, uint32_t bins, double m, int *dir);
void nld_relent_free(nld_relent_t *r);

#endif
