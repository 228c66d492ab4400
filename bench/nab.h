/* SPDX-License-Identifier: BSD-3-Clause */
/* nab.h — scoring a streaming detector on labelled series the NAB way (Lavin & Ahmad 2015),
 * as ../shared/datasets/README.md specifies it: anomaly windows around each labelled run,
 * a probation period per series, one threshold for the whole corpus, the first detection
 * in a window rewarded by how early it came, detections outside windows charged by how far
 * they are from the last window, normalised so that 0 is "never detects" and 100 is
 * "detects every window at its first row and nothing else".
 *
 * A series of n rows with a labelled runs gets, per run, the window [m - w/2, m + w/2]
 * with w = floor(0.1 n / a) and m the run's middle row (integer division), widened to the
 * whole run, clipped to the series; overlapping windows merge. This reproduces the
 * README's counts (267 windows, 237 after probation) and its windowed Gaussian (37.4).
 *
 * Use: nab_corpus_add() each series' labels (windows are derived there), then
 * nab_score() with one score array per series, in the order they were added. */
#ifndef NLKIT_BENCH_NAB_H
#define NLKIT_BENCH_NAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct nab_profile {
    const char *name;
    double a_tp, a_fp, a_fn;
} nab_profile_t;

/* standard (1, 0.11, 1), reward-low-FP (1, 0.22, 1), reward-low-FN (1, 0.11, 2) */
extern const nab_profile_t nab_standard, nab_low_fp, nab_low_fn;

typedef struct nab_window {
    size_t s, e; /* first and last row, inclusive */
} nab_window_t;

typedef struct nab_series {
    size_t n;         /* rows */
    size_t probation; /* rows [0, probation) are not scored */
    nab_window_t *w;  /* windows, in order, not overlapping */
    size_t nw;
    size_t scored_w;  /* windows that end at or after probation (the ones that count) */
} nab_series_t;

typedef struct nab_corpus {
    nab_series_t *s;
    size_t n, cap;
} nab_corpus_t;

/* What a scoring found at its best threshold. */
typedef struct nab_result {
    double score;     /* normalised, 100 = perfect, 0 = never detects */
    double raw;       /* the summed weights at the threshold */
    double threshold; /* the chosen threshold (INFINITY: detecting nothing was best) */
    size_t windows;   /* scored windows */
    size_t found;     /* ... with a detection inside */
    size_t fp;        /* detections outside every window (scored rows only) */
    size_t rows;      /* scored rows (after probation) */
} nab_result_t;

/* The rows of a series of n rows that are for learning only: min(floor(0.15 n), 750). */
size_t nab_probation(size_t n);

void nab_corpus_init(nab_corpus_t *c);
void nab_corpus_free(nab_corpus_t *c);

/* Derive a series' windows from its labels (label[i] != 0: row i is anomalous) and add it.
 * Returns 0 or -1 when out of memory. */
int nab_corpus_add(nab_corpus_t *c, const uint8_t *label, size_t n);

/* Windows in the corpus, and how many of them count (end after probation). */
size_t nab_corpus_windows(const nab_corpus_t *c, size_t *scored);

/* Score the corpus: score[k][i] is the detector's score of row i of series k (any real
 * number; larger = more anomalous; NaN counts as never detected). Sweeps every distinct
 * score as the threshold (rows with score >= t are detections) and keeps the best.
 * `only` (may be NULL) restricts the scoring to the series k with only[k] != 0, e.g. one
 * half of a two-fold split. Returns 0 or -1 when out of memory. */
int nab_score(const nab_corpus_t *c, double *const *score, const unsigned char *only,
              const nab_profile_t *prof, nab_result_t *out);

/* Score at a given threshold (no sweep): for a threshold chosen on other series. */
void nab_score_at(const nab_corpus_t *c, double *const *score, const unsigned char *only,
                  const nab_profile_t *prof, double threshold, nab_result_t *out);

/* nab_score_at of scores that are 1 on the rows listed and 0 elsewhere, at threshold 0.5,
 * in time proportional to the rows listed: rows[k] holds series k's nrows[k] detections,
 * rising. The same sums in the same order, so the same result to the last bit. */
void nab_score_rows(const nab_corpus_t *c, size_t *const *rows, const size_t *nrows,
                    const unsigned char *only, const nab_profile_t *prof, nab_result_t *out);

#endif
