/* SPDX-License-Identifier: BSD-3-Clause */
/* nlp_score.h — the arithmetic of peer comparison (nl-peers), apart from reading lines:
 * profiles, distances, suspect scores, the culprit, the k-of-(2k-1) verdict and the
 * fail-stop rule. Mirgorodskiy, Maruyama & Miller (SC'06) and Kasick et al. (PVFS).
 *
 * A profile is a vector over activities: each component the share of the host's total
 * (time, count or value) spent in that activity during one window, so hosts doing the same
 * work look alike whatever their load. */
#ifndef NLKIT_NLP_SCORE_H
#define NLKIT_NLP_SCORE_H

#include <stddef.h>
#include <stdint.h>

enum nlp_dist { NLP_MANHATTAN = 0, NLP_EUCLID = 1 };

/* Turn raw sums x[0..n) into shares (each divided by the total); all zero stays zero. */
void nlp_normalize(double *x, size_t n);

/* Distance between two profiles of n components. */
double nlp_distance(const double *a, const double *b, size_t n, int kind);

/* The k-th smallest of d[0..n) except d[self] (k >= 1; capped at n - 1): a host's
 * distance to its k-th nearest peer. *which gets the index it belongs to. NAN (and -1) if
 * there is no other. */
double nlp_kth_nearest(const double *d, size_t n, size_t self, size_t k, int *which);

/* The median of x[0..n); NAN if n is 0. */
double nlp_median(const double *x, size_t n);

/* The median of d[0..n) except d[self]; NAN if there is no other. */
double nlp_median_other(const double *d, size_t n, size_t self);

/* The default k for `hosts` peers: max(1, hosts / 4). */
size_t nlp_default_k(size_t hosts);

/* The component with the largest |a - b|, the activity that explains a difference;
 * *diff gets a - b there. -1 if n is 0. */
int nlp_culprit(const double *a, const double *b, size_t n, double *diff);

/* A host's recent windows as bits, the newest lowest: is it faulty, anomalous in at
 * least k of the last 2k - 1 windows? */
int nlp_k_of_window(uint32_t history, int k);

/* The fail-stop rule over hosts' last event times (seconds): the host whose last event is
 * earliest is a fail-stop suspect if it is earlier than the mean of the others' by more
 * than `skew` seconds and by more than three standard deviations of theirs. Returns its
 * index, or -1. At least 3 hosts are needed. */
int nlp_failstop(const double *last, size_t n, double skew);

#endif
