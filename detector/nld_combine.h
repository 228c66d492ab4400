/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_combine.h — one verdict per value from several algorithms (the paper: "robust
 * anomaly detection should use multiple algorithms in parallel"). A weighted vote: the
 * value is anomalous when the algorithms flagging it in the same direction carry at least
 * (or, for a majority, more than) `quorum` of the enabled algorithms' weight.
 *
 *   any        one algorithm is enough          all    every enabled algorithm
 *   majority   more than half of them           vote   weights= and quorum= as given
 *   presets (they also choose the algorithms, unless algo= is given):
 *   shifts     the static family (msd-ss, msd-su, cdf-ss, cdf-su), any of them
 *   transients the heuristic-smoothed family (msd-hs, cdf-hs), any of them
 *   default    the recommended setting for real metrics, chosen across two labelled data
 *              sets of different character by bench-realdata (chosen on one, scored on the
 *              other and the reverse; the best worse-of-the-two; bench/README.md): the
 *              NLD_DEFAULT_* values below, each set as its option unless given, by the
 *              option table (nld_opts.c; nl-detect --help-stream lists them). cdf-hu,
 *              scored as the largest of its algorithms' scores, like "any".
 *              (Until 2026-11-26: cusum over 300 values, threshold=0.86, holdoff=1h, no
 *              calibration, chosen on one data set; until 2026-11-23 a majority of the
 *              paper's eight: algo=all combine=majority.) */
#ifndef NLKIT_NLD_COMBINE_H
#define NLKIT_NLD_COMBINE_H

#include "nld_algo.h"

/* What combine=default sets, by option (nld_opts.c's table says which value is which
 * option's; nld_default_params sets the bank's part). */
#define NLD_DEFAULT_ALGOS (1u << 7) /* cdf-hu */
#define NLD_DEFAULT_HISTORY 2000
#define NLD_DEFAULT_RELEARN 0
#define NLD_DEFAULT_RELEARN_S 600.0
#define NLD_DEFAULT_HOLDOFF_S 10800.0
#define NLD_DEFAULT_EPISODE_MIN 10u
#define NLD_DEFAULT_EPISODE_FOR_S 10.0
#define NLD_DEFAULT_CLEAR_S 30.0
#define NLD_DEFAULT_SEASON_S 86400.0
#define NLD_DEFAULT_CALIB 1000u
#define NLD_DEFAULT_FLOOR 5.0
#define NLD_DEFAULT_RATE 0.0776
#define NLD_DEFAULT_FATIGUE_S 259200.0
#define NLD_DEFAULT_ESCALATE 3.0
#define NLD_DEFAULT_JUMP 0.5
#define NLD_DEFAULT_CALIB_SHRINK 10.0
#define NLD_DEFAULT_CALIB_RECORD 6.0
#define NLD_DEFAULT_RECUR_DAYS 3u
#define NLD_DEFAULT_CONFIRM 3.0
#define NLD_DEFAULT_CONFIRM_WAIT_S 600.0
#define NLD_DEFAULT_YOUNG 300u
#define NLD_DEFAULT_BEAT 2u
#define NLD_DEFAULT_WANDER 100u

/* What combine=default meant until 2026-11-26 (cusum over 300 values, threshold=0.86 as its
 * own P, no calibration), as stream words today: everything combine=default has added
 * since is turned off, so that benchmarks and tests compare against the old behaviour and
 * not a mix of old and new. */
#define NLD_BEFORE_WORDS                                                                           \
    "combine=default algo=cusum history=300 relearn=10m season=1d threshold=0.86 "                 \
    "holdoff=1h calib=off floor=0 jump=off recur=off young=off fatigue=off escalate=off "          \
    "confirm=off confirm.wait=off beat=off wander=off"

typedef struct nld_combine {
    int on;
    char name[16];            /* written as algo= on the combined verdict's lines */
    double weight[NLD_ALGOS]; /* 1 unless weights= says otherwise */
    double quorum;            /* share of the enabled weight that must agree */
    int strict;               /* more than quorum (majority), not at least */
} nld_combine_t;

/* The bank's parameters combine=default sets (the presets of nld_opts.c's table that are
 * fields of nld_params_t; threshold= and alarms= none), on top of p's others; the stream's
 * episode rule (hold-off, fatigue, escalation, confirm, episode.min, episode.for, clear) is
 * the engine's. Defined in nld_opts.c, from the table. */
void nld_default_params(nld_params_t *p);

/* Set c from a combine= value; a preset also sets *algos unless algos_given. Returns 0
 * or NL_EINVAL (unknown name). */
int nld_combine_parse(const char *spec, nld_combine_t *c, unsigned *algos, int algos_given);

/* weights=msd-ss:2,cdf-hs:0.5 (others keep 1). Returns 0, or NL_EINVAL with *bad at the
 * offending item. */
int nld_combine_weights(const char *list, nld_combine_t *c, const char **bad);

/* The combined verdict on one value: NLD_WARMUP while every enabled algorithm warms up,
 * else NLD_LOW / NLD_HIGH / NLD_NORMAL; *agree gets the algorithms flagging in the
 * verdict's direction (or the larger side when normal), *score: for "any" and "default" the largest
 * score of the enabled algorithms, for "all" the smallest, else their weighted mean (with
 * the stream's threshold=, "any" flags exactly the values whose largest score reaches it). */
int nld_combine_judge(const nld_combine_t *c, unsigned algos, const nld_verdict_t *v,
                      unsigned *agree, double *score);

/* Whether the combined verdict's spike is familiar (nld_verdict_t.familiar): as the first
 * enabled algorithm with the largest score says, the one "any" and "default" stand on.
 * The benchmarks' fast path asks it too, so both read a value alike. */
int nld_combine_familiar(unsigned algos, const nld_verdict_t *v);

#endif
