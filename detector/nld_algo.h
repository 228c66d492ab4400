/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_algo.h — the paper's eight anomaly detection algorithms, the two beyond it
 * (nld_change.h: cusum, relent), and the bank that runs any subset of them over one stream
 * of values.
 *
 * For each new value x: s = EWMA(x) (alpha, first value s = x); each algorithm tests its
 * value v (s if smoothed, x if not) against its history H and then updates H:
 *   MSD  flags v if |v - mean(H)| > k sd(H)          (one-sided: below / above only)
 *   CDF  flags v if v < Q(p/2) or v > Q(1 - p/2)      (one-sided: v < Q(p) / v > Q(1-p))
 * with Q the empirical quantile of H (type 7). Static H = the first N values, frozen;
 * heuristic H = the last N values that were not flagged. Nothing is flagged until H holds
 * `min` values. With admit = A > 0, a run of at most A flagged values (an isolated outlier,
 * not a sustained anomaly) enters a heuristic history after all once the run ends: without
 * that, a CDF history loses both tails at every turn of its window and narrows until most
 * values are flagged. Names: msd|cdf - s(tatic)|h(euristic) s(moothed)|u(nsmoothed), e.g.
 * "msd-hu" = MSD, heuristic history, raw values. The two static histories (smoothed and
 * raw) are shared by the MSD and CDF algorithms that use them, since neither depends on
 * flags.
 *
 * Every algorithm also scores every value (nld_tail.h: S = -log10 of the probability of a
 * value at least as extreme under its model of H, score S / (S + 1)): MSD from the normal
 * tail of (v - mean) / sd, CDF from the normal tail of (v - median) / (IQR / 1.349) — robust,
 * and still ranking values beyond the history, where the empirical share is 0 for all of
 * them. With threshold = T > 0 a value is reported as flagged when its score reaches T
 * instead of by the algorithm's own rule (k, p, cusum.h, relent.p), so one knob means the
 * same for all; the histories still learn by the own rule, so scores do not depend on T. */
#ifndef NLKIT_NLD_ALGO_H
#define NLKIT_NLD_ALGO_H

#include <stdint.h>

#include "nld_calib.h"
#include "nld_jump.h"
#include "nld_wander.h"
#include "nld_recur.h"
#include "nld_shape.h"
#include "nld_change.h"
#include "nld_hist.h"
#include "nld_season.h"

#define NLD_ALGOS 10
#define NLD_ALL_ALGOS 0xffu   /* "all": the paper's eight, msd-ss ... cdf-hu */
#define NLD_EVERY_ALGO 0x3ffu /* ... and cusum, relent */
#define NLD_CUSUM 8
#define NLD_RELENT 9

enum nld_side { NLD_BOTH = 0, NLD_BELOW = 1, NLD_ABOVE = 2 };
enum nld_state { NLD_WARMUP = 0, NLD_NORMAL = 1, NLD_LOW = 2, NLD_HIGH = 3 };

/* Largest history; larger is a configuration error (memory is per stream). */
#define NLD_HIST_MAX 1000000u
/* Largest admit (the flagged values a heuristic history holds back per algorithm). */
#define NLD_ADMIT_MAX 16u

typedef struct nld_params {
    unsigned algos;        /* bit i = algorithm i in name order (msd-ss ... cdf-hu) */
    double k;              /* MSD width in standard deviations (2) */
    double p;              /* CDF tail probability (0.05) */
    double alpha;          /* EWMA weight of the new value (0.5) */
    uint32_t n;            /* history size N (300) */
    uint32_t min;          /* history values needed before flagging (30, at most N) */
    uint32_t admit;        /* runs of at most this many flags still enter heuristic histories (0) */
    uint32_t relearn;      /* a run of flags longer than this enters them from then on (0: never) */
    double relearn_s;      /* ... or a run lasting longer than this in event time, seconds (0) */
    int side;              /* enum nld_side */
    double threshold;      /* > 0: flag values whose score reaches it (0: each algorithm's rule) */
    double rate;           /* > 0: an alarm budget, flagged values per value: the threshold is
                              the score of P = rate (with calib=, a share of the stream's own;
                              with threshold= too, the stricter of the two) */
    double alarms_per_s;   /* > 0: an alarm budget per second of event time: rate = this times
                              the stream's typical spacing of values (with rate= too, the
                              smaller of the two; with threshold= too, the stricter) */
    double cusum_k;        /* CUSUM allowance in robust sds (0.5) */
    double cusum_h;        /* CUSUM decision interval (5) */
    uint32_t relent_w;     /* relative entropy: window of values (24) */
    uint32_t relent_bins;  /* ... equal-frequency bins of the history (6) */
    double relent_p;       /* ... flags when the chi-square tail is below this (0.001) */
    double season_s;       /* seasonal baseline: the period in seconds of event time (0: off) */
    uint32_t season_slots; /* ... slots per period (24: hours of a day) */
    double season_alpha;   /* ... weight of a new value in its slot's level (0.25) */
    double res_floor;      /* > 0: no spread below this many steps of the data's resolution
                              (the smallest change seen between values; 0: off) */
    uint32_t calib;        /* > 0: each score judged against the stream's last `calib` raw
                              surprises (nld_calib.h; 0: the model's own, as before) */
    double calib_shrink;   /* > 0: calibration lowers a surprise at most this many times
                              (calib.shrink=; 0: without bound) */
    double shrink_wait_s;  /* > 0: calib.shrink= is not held to on a stream whose values come
                              at most this far apart (confirm.wait= with confirm= on, where
                              a lone flag waits) and whose calibration spans at least
                              NLD_CALIB_SPAN_S of event time (0: always held to) */
    double calib_record;   /* > 0: the stream's record of its far tail bounds what calibration
                              claims, never below this surprise (calib.record=; nld_calib.h;
                              0: off) */
    double jump;           /* > 0: a score keeps its surprise only where the value jumps at
                              least this share of the stream's largest recent jump, else
                              in proportion (nld_jump.h; 0: off) */
    double jump_halflife_s; /* ... the largest jump halves in this much event time (7 d) */
    double runs_s;          /* > 0: the event time a run of flags must span to count
                               (episode.for); on streams faster than that, jump= is off (a
                               jump's discount would hide a lasting fault's later values) and
                               the histories admit runs too short to count (below) */
    uint32_t runs_n;        /* ... or this many flags (episode.min), whichever is fewer */
    uint32_t recur_days;   /* > 0: a value within the stream's range at the same time of day
                              on each of this many days before keeps only part of its
                              surprise (nld_recur.h; 0: off) */
    double recur_within_s; /* ... "the same time of day": within this many seconds (1 h) */
    uint32_t shape_w;      /* > 0: a window of this many values that an earlier one (half an
                              hour or more before) matches keeps only part of its surprise
                              (nld_shape.h; 0: off) */
    uint32_t shape_len;    /* ... among the last this many values (1024) */
    uint32_t young;        /* > 0: the stream's n-th value of its first `young` keeps n/young
                              of its surprise: judged against little history (0: off) */
    uint32_t wander;       /* > 0: where the history holds n < wander independent values (a
                              level that wanders; a history spanning a day or more), a
                              surprise keeps log(1 + n) / log(1 + wander) of itself
                              (nld_wander.h; 0: off) */
    int want_scores;       /* score every value (else, for the paper's eight, only flagged
                              ones, unless threshold= needs them all): set by the engine when
                              scores are written or combined */
} nld_params_t;

#define NLD_YOUNG_MAX 1000000u

/* The stages of a value's judgement, in the one order they run. Stages 1 to 4 are each
 * algorithm's, run by nld_bank_step_at (nld_algo.c, judge_stages, one function a stage),
 * each recording its output in the verdict; combine= then makes one verdict of the
 * algorithms' (nld_combine_judge), and stage 5 is the engine's, per episode slot
 * (nld_keyed.c, nld__stream_value then episode_step). docs/detecting.md, "The stages of a
 * verdict", says the same for operators.
 *   1 raw        the algorithm's surprise under its model of the history (season= judges the
 *                value less its slot's offset, floor= bounds the spread): verdict.raw, and
 *                its own rule's flag (own), which is what heuristic histories learn from
 *   2 calib      calib=: the surprise against the stream's own recent raw ones, lowered at
 *                most calib.shrink times, bounded by calib.record: verdict.calibrated
 *   3 discount   jump=, recur=, shape=, young=, wander=: the surprise keeps the product of
 *                their shares: verdict.score
 *   4 threshold  threshold=, rate=, alarms= (the stricter; verdict.thr): the score reaching
 *                it is reported (verdict.state); without one, the own rule is
 *   5 episode    confirm= (a lone flag waits for the next value), fatigue= (a new episode's
 *                bar), episode.min / episode.for (runs that count), escalate=, clear=,
 *                holdoff=: what is written */
enum nld_stage {
    NLD_STAGE_RAW = 1,
    NLD_STAGE_CALIB,
    NLD_STAGE_DISCOUNT,
    NLD_STAGE_THRESHOLD,
    NLD_STAGE_EPISODE
};

/* One algorithm's verdict on one value, with each stage's output (enum nld_stage). */
typedef struct nld_verdict {
    int state;       /* enum nld_state: what is reported (stage 4: by the threshold when one
                        is in force, else the own rule) */
    int own;         /* the algorithm's own rule (k, p, cusum.h, relent.p), which is what
                        its histories learn from, whatever threshold= reports */
    double v;        /* the value tested (smoothed or raw) */
    double centre;   /* mean (MSD) or median (CDF) of H; computed only when flagged */
    double lo, hi;   /* the bounds v was held to */
    double raw;        /* stage 1: how extreme v is against H, in [0, 1] (0 while warming
                          up, or when nothing needs it): S / (S + 1), S = -log10 P (see
                          nld_tail.h and above) */
    double calibrated; /* stage 2: the score with calib='s P (raw without calib=) */
    int familiar;      /* stage 2: a spike no larger than one the stream had within
                          NLD_CONFIRM_WITHIN_S, where the record is trusted (stage_calib) */
    double score;      /* stage 3: the calibrated score after discounts, which the
                          threshold is held to */
    double thr;        /* stage 4: the threshold in force (0: the own rule decides) */
    int side;        /* the side v lies on as a state (NLD_LOW, NLD_HIGH; NLD_NORMAL for
                        neither, or a side the stream does not watch) */
    uint32_t hist_n; /* values in H when tested */
} nld_verdict_t;

typedef struct nld_bank {
    nld_params_t p;
    nl_ewma_t ew;
    nld_hist_t stat[2];         /* static histories: [0] smoothed, [1] raw (used if cap != 0) */
    nld_hist_t heur[NLD_ALGOS]; /* heuristic histories, by algorithm (used if cap != 0) */
    double absmax;              /* largest |x| so far: the scale of last resort (nld_algo.c) */
    double res, prev;           /* the smallest change seen between values, and the last value */
    uint64_t seen;              /* values stepped */
    int64_t t_prev;             /* event time of the last value with one (INT64_MIN: none) */
    double log_gaps;            /* sum of the logs of the gaps between values, in seconds */
    uint64_t gaps;              /* ... and how many */
    double spacing;             /* the gaps' geometric mean (0: no gap yet), kept as they come:
                                   the calibration, the budget and the episodes ask it of
                                   every value */
    int64_t gap;                /* the last gap whose log was taken (a stream's gaps mostly
                                   repeat: one log per distinct gap, not per value) */
    double log_gap;             /* ... and its log */
    double thr;                 /* the threshold in force for this value (threshold= or a budget) */
    uint32_t admit;             /* flagged values a run may hold and still be learnt, now
                                   (admit=, raised on fast streams by runs_s) */
    int64_t now;                /* event time of the value being judged (INT64_MIN: unknown) */
    nld_hist_t cal[2];          /* cusum's and relent's recent statistics, to score against */
    int cal_err;
    nld_cusum_t cusum;
    nld_relent_t relent;
    nld_season_t season;
    nld_calib_t calib[NLD_ALGOS]; /* per algorithm, with calib= */
    nld_jump_t jump;              /* the stream's scale of jumps, with jump= */
    nld_recur_t recur;            /* its envelope at each time of day, with recur= */
    nld_shape_t shape;            /* its last values' windows, with shape= */
    struct { /* the current run of flags of a heuristic algorithm, held back */
        double v[NLD_ADMIT_MAX];
        uint32_t n;
        int long_run;   /* it outgrew admit: a sustained anomaly, kept out */
        int gap;        /* an unflagged value followed its last flag (fast streams) */
        uint32_t run;   /* its length so far */
        int64_t run_t0; /* event time of its first flag */
    } held[NLD_ALGOS];
    nld_wander_t wander; /* how many independent values its history holds, with wander= */
} nld_bank_t;

/* Defaults: all algorithms off, k 2, p 0.05, alpha 0.5, N 300, min 30, admit 0, both
 * sides (chosen by bench-eval; see bench/README.md; a stream's admit defaults to its
 * episode.min - 1); no threshold; cusum k 0.5 h 5; relent w 24, 6 bins, p 0.001; no
 * seasonal baseline (24 slots, weight 0.25 when a period is given). */
void nld_params_default(nld_params_t *p);
/* Check parameters; returns 0 or NL_EINVAL with a reason in *why. */
int nld_params_check(const nld_params_t *p, const char **why);

/* Name of algorithm i ("msd-ss"... "cusum", "relent"), or NULL. */
const char *nld_algo_name(int i);
/* Parse a comma-separated list of names, or "all" (the paper's eight, as always; cusum and
 * relent are named explicitly), into a bit mask. Returns 0, or
 * NL_EINVAL with *bad pointing at the offending name. */
int nld_algo_parse(const char *list, unsigned *mask, const char **bad);

/* Start a bank for the parameters (already checked). Returns 0 or NL_ENOMEM. */
int nld_bank_init(nld_bank_t *b, const nld_params_t *p);
void nld_bank_free(nld_bank_t *b);
/* The threshold an alarm budget of `rate` flagged values per value means: the score of
 * P = rate (nld_tail.h), so that with calib= a stream flags about that share of its values. */
double nld_rate_threshold(double rate);
/* The threshold in force on a stream whose values come spacing_s seconds apart (0 or less:
 * not known yet): the stricter of threshold=, rate= and alarms= (alarms per second times
 * the spacing, a rate held at 0.5); with alarms= alone and no spacing, 1 (nothing but an
 * infinite surprise reaches it). */
double nld_budget_threshold(const nld_params_t *p, double spacing_s);
/* The stream's typical spacing of values in seconds: the geometric mean of the gaps between
 * values with event time (each held to 1 us .. 30 days, a gap backwards left out), so one
 * wrong timestamp or one long silence moves it little; 0 until there has been a gap. */
double nld_bank_spacing(const nld_bank_t *b);

/* Run every enabled algorithm on x (not NaN), stages 1 to 4 (enum nld_stage): fills out[i]
 * for each enabled i and returns the EWMA value (with season=, of the values less their
 * offsets, given back as observed: plus the current offset). Histories are updated after
 * testing. Returns 0 or NL_ENOMEM in *err. */
double nld_bank_step(nld_bank_t *b, double x, nld_verdict_t out[NLD_ALGOS], int *err);
/* nld_bank_step for a value with its event time (usec), which relearn=DUR needs. */
double nld_bank_step_at(nld_bank_t *b, double x, int64_t ts_usec, nld_verdict_t out[NLD_ALGOS],
                        int *err);

#endif
