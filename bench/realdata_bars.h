/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_bars.h — issue 45's bars over the whole cross grid (realdata_cross.c): for every
 * configuration, at every budget of one ladder (1 in 10 values to 1 in 10 million), which of
 * the bars both sets meet at once:
 *   F  at most RD_BAR_FP_1K false reports per 1,000 rows on each set;
 *   W  at least RD_BAR_FOUND of the windows found on each;
 *   Q  at most RD_BAR_QUIET_10D report per 10 days on the series without anomalies of both;
 *   S  standard 15 and low-FP 10 over the windowed Gaussian (each at its best threshold on
 *      the set), and low-FP at least 40, on each.
 * Between the strictest budget of the ladder that holds W and the next one, which does not,
 * the edge of W is found by bisection: the fewest false and quiet reports a configuration
 * has while it still finds enough (as a budget gets stricter both fall, and so do the
 * windows found). The tally says how many ladder points meet each combination of bars, how
 * many configurations meet F or Q at their edge of W, and the nearest misses: the most
 * windows found where F and Q hold, the fewest quiet reports where F and W hold, the fewest
 * false reports where W and Q hold, and where W holds alone, the fewest false reports and
 * the fewest quiet ones. What a default could reach on these sets with the detectors of the
 * grid, not a choice. */
#ifndef NLKIT_BENCH_REALDATA_BARS_H
#define NLKIT_BENCH_REALDATA_BARS_H

#include <stddef.h>

#include "realdata_bank.h"
#include "realdata_set.h"

#define RD_BAR_FP_1K 1.0
#define RD_BAR_FOUND 0.75
#define RD_BAR_QUIET_10D 1.0
#define RD_LADDER 31 /* budgets in the ladder */

enum { RD_BAR_F = 1, RD_BAR_W = 2, RD_BAR_Q = 4, RD_BAR_S = 8 };

/* The j-th budget of the ladder (0 .. RD_LADDER-1) as -log10 of a rate per value (or of
 * alarms per day): 1.0 to 1.9 by 0.1, then 2 to 7 by 0.25. */
double rd_ladder(int j);
/* The score threshold of budget lg: per value, the surprise lg on the score scale
 * (lg / (lg + 1)); per day, lg itself (rd_per_day's scale). */
double rd_ladder_threshold(double lg, int per_day);

/* A point's figures on both sets. */
typedef struct rd_bar_pt {
    double lg;                /* -log10 of its budget */
    int per_day;              /* the budget is alarms per day, not a rate per value */
    double found[2], fp1k[2]; /* share of windows found (1 without windows), per 1,000 rows */
    double std[2], lowfp[2];  /* NAB scores, standard and low-FP */
    double quiet10;           /* reports per 10 days on the quiet series (NAN: none) */
    char desc[200];           /* the configuration */
} rd_bar_pt_t;

typedef struct rd_bars {
    double wg[2][2];      /* the windowed Gaussian's best score per set: standard, low-FP */
    double qdays;         /* days of rows of both sets' series without anomalies */
    size_t points, n[16]; /* ladder points tallied; by the bars they meet (RD_BAR_ bits) */
    size_t configs, edges, edge_f, edge_q; /* configurations; with an edge of W; F, Q there */
    int have[5];
    double key[5];       /* what each miss minimises, at the point kept */
    rd_bar_pt_t miss[5]; /* the nearest misses, in the order above */
} rd_bars_t;

/* The bars p meets (RD_BAR_ bits); b NULL leaves S out. */
int rd_bars_of(const rd_bars_t *b, const rd_bar_pt_t *p);
/* Start a tally for both sets: their anchor's scores and quiet days. */
void rd_bars_init(rd_bars_t *b, const rd_set_t *sets);
/* Tally one configuration (its sweeps on both sets, its episode rule, its budget per day
 * or per value) at every budget of the ladder and at its edge of W. */
void rd_bars_config(rd_bars_t *b, const rd_set_t *sets, const rd_sweep_t *sw, rd_ep_t ep,
                    int per_day, const char *desc);
/* Print the tally: the counts, then the nearest misses with their figures. */
void rd_bars_print(const rd_bars_t *b, const rd_set_t *sets);

#endif
