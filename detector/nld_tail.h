/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_tail.h — how surprising a value is, on one scale for every algorithm.
 *
 * Each algorithm judges a value by the probability P, under its own model of the history,
 * of a value at least as extreme (a normal tail for MSD and CDF, a chi-square tail for the
 * relative-entropy test, a likelihood ratio for CUSUM). Its surprise is S = -log10 P (0
 * for an ordinary value, 3 for a one-in-a-thousand value, 20 for one in 1e20) and its score
 * S / (S + 1): 0.5 at P = 0.1, 0.9 at P = 1e-9, 0.99 at P = 1e-99. The log keeps ranking
 * values far into the tail: a probability itself is 1 - 1e-16 = 1.0 in double precision
 * from z ~ 8 on, so every large deviation would tie. */
#ifndef NLKIT_NLD_TAIL_H
#define NLKIT_NLD_TAIL_H

/* S of a standard normal deviate z: side 0 two-sided (P = P(|Z| >= |z|)), side 1 only
 * below (P = P(Z <= z)), side 2 only above (P = P(Z >= z)). Finite for finite z; +inf
 * for infinite z; 0 for NaN. */
double nld_surprise_normal(double z, int side);
/* S of a chi-square statistic g with dof degrees of freedom (P = P(X >= g)). */
double nld_surprise_chi2(double g, int dof);
/* The score of a surprise: S / (S + 1) in [0, 1] (1 for S = +inf). */
double nld_score_of(double s);
/* The surprise of a score (the inverse of nld_score_of; +inf for 1). */
double nld_surprise_of(double score);

#endif
