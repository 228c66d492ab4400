/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_anchor.h — the anchor row of bench-realdata: NAB's windowed Gaussian (mean and
 * population sd of the last 6400 values, all while fewer, refreshed every 100 new values
 * once full; score 1 - Q(|x - m| / sd), Q the standard normal upper tail; 0 for the first
 * row), as ../shared/datasets/README.md defines it. */
#ifndef NLKIT_BENCH_REALDATA_ANCHOR_H
#define NLKIT_BENCH_REALDATA_ANCHOR_H

#include <stddef.h>

/* Scores of x[0..n) (no NaN) into score[0..n). Returns 0 or -1 when out of memory. */
int rd_windowed_gaussian(const double *x, size_t n, double *score);

#endif
