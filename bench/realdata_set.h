/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_set.h — one labelled data set of bench-realdata in memory: its series, their
 * NAB windows, the anchor's scores, and the sizes the tables divide by. bench-realdata
 * judges on two sets of different character (../shared/datasets/README.md) and chooses
 * across them (realdata_cross.c). */
#ifndef NLKIT_BENCH_REALDATA_SET_H
#define NLKIT_BENCH_REALDATA_SET_H

#include <stddef.h>

#include "nab.h"
#include "nld_algo.h"
#include "realdata_bank.h"
#include "realdata_csv.h"

typedef struct rd_set {
    char name[64];       /* the folder's last component, e.g. "server-asd" */
    rd_series_t *ser;
    int nser, nfold;
    nab_corpus_t corpus;
    double **wg;         /* the windowed Gaussian's scores, per series */
    unsigned char **fam; /* per series, the rows the last rd_set_bank marked familiar */
    size_t rows, scored; /* rows, and rows after probation */
    size_t scored_w;     /* windows that count */
    double scored_days;  /* stream-days after probation (each series' own spacing) */
    size_t empty;        /* rows with an empty value */
} rd_set_t;

/* Out of memory in bench-realdata: say so and exit 1 (a run that cannot hold a set's
 * arrays has nothing to measure). */
void rd_oom(void);
/* Read dir's series and derive everything above. Returns 1, 0 when dir is absent or holds
 * no series, or -1 with a reason in err. */
int rd_set_load(rd_set_t *set, const char *dir, char *err, size_t errlen);
void rd_set_free(rd_set_t *set);

/* Per-series score arrays of the set's sizes (exits on out of memory), and their free. */
double **rd_set_scores(const rd_set_t *set);
void rd_set_scores_free(const rd_set_t *set, double **sc);
/* Every series' bank scores under p (rd_bank_scores), and set->fam its familiar rows;
 * exits on out of memory. */
void rd_set_bank(const rd_set_t *set, const nld_params_t *p, double **sc);
/* A sweep of every series' scores sc and set->fam (rd_sweep_init; sc must outlive it,
 * unchanged, and rd_set_bank not run again while it is used); exits on out of memory. */
void rd_set_sweep(const rd_set_t *set, double **sc, rd_sweep_t *w);

/* The reports det makes on the series without any labelled anomaly, after probation
 * (every one is false there); their number in *nq and their days of rows in *days. With
 * who set and RD_PER_SERIES in the environment, each series' count goes to stderr. */
size_t rd_set_quiet(const rd_set_t *set, double *const *det, const char *who, int *nq,
                    double *days);

/* The days of rows after probation of the series without any labelled anomaly. */
double rd_set_quiet_days(const rd_set_t *set);
/* False reports per 1,000 scored rows, and per day of one stream. */
double rd_set_fp_per_1k(const rd_set_t *set, size_t fp);
double rd_set_fp_per_day(const rd_set_t *set, size_t fp);

/* The cross-set choice (realdata_cross.c): every configuration of its grid chosen on each
 * set (threshold swept there) and scored on the other; prints the cross table and the
 * configuration with the best worse-of-the-two. */
void rd_cross_choice(rd_set_t *sets, int nsets);

/* combine=default's bank at one rate for both sets, from 1 in 10 values to 1 in 10
 * million, under its own episode rule and under the cross choice's (holdoff=1h,
 * escalate=off): each set's profiles, windows found, false reports per 1,000 rows and on
 * its series without anomalies per 10 days, and the rates that meet issue 45's bars on
 * false reports, windows found and quiet series at once. */
void rd_default_rates(rd_set_t *sets, int nsets);

#endif
