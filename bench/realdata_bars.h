/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_bars.h — issue 45's bars over the whole cross grid (realdata_cross.c): for every
 * configuration, at every budget of one ladder (1 in 10 values to 1 in 10 million), which of
 * the bars both sets meet at once:
 *   F  at most RD_BAR_FP_1K false reports per 1,000 rows on each set;
 *   W  at least RD_BAR_FOUND of the windows found on each;
 *   Q  at most RD_BAR_QUIET_10D report per 10 days on the series without anomalies of both;
 *   S  standard 15 and low-FP 10 over the windowed Gaussian (each at its best threshold on
 *      the set), and low-FP at least 40, on each.
 * The tally says how many (configuration, budget) points meet each combination, and where
 * none meets all, the nearest misses: the most windows found where F and Q hold, the
 * fewest quiet reports where F and W hold, the fewest false reports where W and Q hold,
 * and where W holds alone, the fewest false reports and the fewest quiet ones.
 * What a default could reach on these sets with the detectors of the grid, not a choice. */
#ifndef NLKIT_BENCH_REALDATA_BARS_H
#define NLKIT_BENCH_REALDATA_BARS_H

#include <stddef.h>

#include "realdata_bank.h"
#include "realdata_set.h"

#define RD_BAR_FP_1K 1.0
#define RD_BAR_FOUND 0.75
#define RD_BAR_QUIET_10D 1.0
#define RD_LADDER 31 /* budgets in the ladder */

/* The j-th budget of the ladder (0 .. RD_LADDER-1) as -log10 of a rate per value: 1.0 to
 * 1.9 by 0.1, then 2 to 7 by 0.25. */
double rd_ladder(int j);

/* A point's figures on both sets. */
typedef struct rd_bar_pt {
    double lg;              /* -log10 of its budget */
    double found[2], fp1k[2], std[2], lowfp[2], quiet10;
    char desc[200];         /* the configuration */
} rd_bar_pt_t;

typedef struct rd_bars {
    double wg[2][2];        /* the windowed Gaussian's best score per set: standard, low-FP */
    double qdays;           /* days of rows of both sets' series without anomalies */
    size_t points, n[16];   /* points tallied; by the bars they meet (bit 1 F, 2 W, 4 Q, 8 S) */
    int have_fq, have_fw, have_wq, have_wf, have_wqq;
    rd_bar_pt_t fq, fw, wq; /* the nearest misses (see above) */
    rd_bar_pt_t wf, wqq;    /* where W holds: the fewest false reports, the fewest quiet */
} rd_bars_t;

/* Start a tally for both sets: their anchor's scores and quiet days. */
void rd_bars_init(rd_bars_t *b, const rd_set_t *sets);
/* Tally one configuration (its sweeps on both sets, its episode rule, its budget per day
 * or per value) at every budget of the ladder. */
void rd_bars_config(rd_bars_t *b, const rd_set_t *sets, const rd_sweep_t *sw, rd_ep_t ep,
                    int per_day, const char *desc);
void rd_bars_print(const rd_bars_t *b, const rd_set_t *sets);

#endif
