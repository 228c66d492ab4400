/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_bank.h — the fast path of bench-realdata, for choosing settings: per-value
 * scores straight from nl-detect's algorithm bank (the same code the engine runs, without
 * its line parsing and output), and the episode starts that threshold=T episode.min=1
 * holdoff=H would report from them. bench-realdata checks that the engine gives the same. */
#ifndef NLKIT_BENCH_REALDATA_BANK_H
#define NLKIT_BENCH_REALDATA_BANK_H

#include <stddef.h>
#include <stdint.h>

#include "nab.h"
#include "nld_algo.h"
#include "nld_config.h"
#include "realdata_csv.h"

/* Scores of s's rows (the last value carried over an empty one; 0 before the first) under
 * p: with one algorithm in p->algos its score, with several the largest (what
 * combine=any scores); with fam, 1 on the rows whose spike is familiar
 * (nld_combine_familiar), else 0. Returns 0 or -1 when out of memory. */
int rd_bank_scores(const rd_series_t *s, const nld_params_t *p, double *out, unsigned char *fam);

/* Scores as an alarm budget in event time reads them (alarms=N/day): each row's surprise
 * (nld_tail.h) plus log10 of the stream's mean spacing so far in days, as the bank
 * computes it, so that a row reaches threshold t exactly when alarms=10^-t/day flags it.
 * In place; rows before the second value get -inf. */
void rd_per_day(const rd_series_t *s, double *score);

/* How reports are made of flags (the engine's episode_step, nld_keyed.c, episode.min=1):
 * hold is event time in usec (holdoff=DUR: an episode ends once its values have stayed
 * below the threshold that long), or, when negative, -hold values (holdoff=N; -1 and 0 both
 * end an episode at its first value below); fatigue_s the half-life of recent reports
 * (fatigue=, 0: off), escalate the decades of escalate= (0: off) and confirm the factor of
 * confirm= (0: off; a confirmed lone flag's start is the row of the value confirming it). */
typedef struct rd_ep {
    int64_t hold;
    double fatigue_s, escalate;
    double confirm; /* confirm=F (0: off) */
    double confirm_wait_s; /* confirm.wait=DUR (0: off) */
    uint32_t beat;         /* beat=N (0: off) */
} rd_ep_t;

/* combine=default's bank as the engine configures it for episode.min=1 (the reports the
 * benches score). */
void rd_default_params(nld_params_t *p);

/* The rule with hold-off h alone; combine=default's rule; a parsed stream's (its
 * holdoff=, fatigue=, escalate=, confirm=). */
rd_ep_t rd_ep_hold(int64_t h);
rd_ep_t rd_ep_default(void);
rd_ep_t rd_ep_of(const nld_sdef_t *d);

/* 1 on the rows where a report would open an episode (threshold=t, rule ep), else 0.
 * ts: the rows' times; fam: the rows rd_bank_scores marks familiar (NULL: none; then a lone
 * spike like a recent one pages at f times the threshold, as before 2026-11-29). Below,
 * fam is per series in the same way. */
void rd_starts_at(const double *score, const unsigned char *fam, const int64_t *ts, size_t n,
                  double t, rd_ep_t ep, double *out);

/* The threshold (from RD_CANDS candidates spread over the upper score quantiles of the
 * series with only[k] set, or all) whose starts under rule ep score best under prof on
 * those series; its score in *best (INFINITY and -INFINITY when out of memory). */
double rd_best_start_threshold(const nab_corpus_t *c, const rd_series_t *s, int nser,
                               double *const *score, unsigned char *const *fam,
                               const unsigned char *only, rd_ep_t ep,
                               const nab_profile_t *prof, double *best);

/* What rd_best_start_threshold sweeps, kept for as long as the scores stay the same: the
 * candidate thresholds (the scores at quantiles 0.9 .. 0.99999, log-spaced in 1 - u,
 * positive and each unlike the one before), each row's surprise (nld_surprise_of of its
 * score) and the rows that can flag or be remembered at the lowest candidate (the others
 * only let an episode's hold-off run out, passed over in one step). Choosing several
 * episode rules on one bank run sorts, divides and indexes once. */
#define RD_CANDS 200
typedef struct rd_sweep {
    const nab_corpus_t *c;
    const rd_series_t *s;
    int nser;
    double *const *score;
    unsigned char *const *fam; /* per series, the familiar rows (NULL: none) */
    const unsigned char *only; /* the series swept (NULL: all) */
    double **sv;               /* per series with only[k] set: each row's surprise */
    size_t **rows, *nrows;     /* scratch: one candidate's starts, per series */
    size_t **idx, *nidx;       /* per series: the rows any candidate needs read */
    size_t **work, *nwork;     /* scratch: those one candidate needs read */
    double floor0;             /* the surprise confirm= remembers from at cand[0] */
    double cand[RD_CANDS];
    int ncand;
} rd_sweep_t;

/* Prepare a sweep of score (the series with only[k] set, or all); score must not change
 * while it is used. Returns 0, or -1 when out of memory (nothing to free then). */
int rd_sweep_init(rd_sweep_t *w, const nab_corpus_t *c, const rd_series_t *s, int nser,
                  double *const *score, unsigned char *const *fam, const unsigned char *only);
void rd_sweep_free(rd_sweep_t *w);

/* rd_best_start_threshold for nprof profiles at once, from one computation of each
 * candidate's starts: bt[p] and best[p] are what rd_best_start_threshold gives for
 * prof[p] (ties to the first candidate, as there). */
void rd_sweep_best(const rd_sweep_t *w, rd_ep_t ep, const nab_profile_t *const *prof,
                   int nprof, double *bt, double *best);

/* rd_starts_score's result at threshold t on the swept series, from the sweep's index. */
double rd_sweep_score(const rd_sweep_t *w, double t, rd_ep_t ep, const nab_profile_t *prof,
                      nab_result_t *res);

/* Threshold t's starts under rule ep on the swept series, scored under nprof profiles at
 * once (res[p]), and *quiet: how many of them fall after probation on the series without
 * any window (every one a false report there). */
void rd_sweep_at(const rd_sweep_t *w, double t, rd_ep_t ep, const nab_profile_t *const *prof,
                 int nprof, nab_result_t *res, size_t *quiet);

/* The score of the starts at threshold t under rule ep on the series with only[k] set. */
double rd_starts_score(const nab_corpus_t *c, const rd_series_t *s, int nser,
                       double *const *score, unsigned char *const *fam,
                       const unsigned char *only, double t, rd_ep_t ep,
                       const nab_profile_t *prof, double **tmp, nab_result_t *res);

#endif
