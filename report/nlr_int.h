/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_int.h — what nlr_charts.c, nlr_sum.c and nlr_pairs.c share to make charts. Private to
 * report/ (prefix nlr__). */
#ifndef NLKIT_NLR_INT_H
#define NLKIT_NLR_INT_H

#include <stdint.h>

#include "nll_sql.h"
#include "nlr.h"

/* A map value meaning "seen, and not wanted". */
#define SKIP ((void *)(intptr_t)-1)

/* strdup, with NULL read as "". */
char *nlr__dup(const char *s);
/* Fill err with "out of memory" and return NL_ENOMEM. */
int nlr__oom(nll_err_t *err);
/* 1 if the options ask for this activity (or event) on this host; never the tools' own nl.*
 * reports, which are laid on the charts instead. */
int nlr__wanted(const nlr_opts_t *o, const char *activity, const char *event, const char *host);
/* A new chart at the end of r->charts (which may move), or NULL if out of memory. */
nlr_chart_t *nlr__chart_new(nlr_report_t *r, const char *activity, const char *host, int kind);
/* A value x at time t into a pixel column being accumulated (t and mean holding sums until
 * nlr__cols_finish), its lo and hi kept. */
void nlr__col_add(nlr_col_t *k, double t, double x);
/* Pixel columns accumulated (t and mean holding sums) into out, the non-empty ones in order
 * with their means: how many. */
int nlr__cols_finish(const nlr_col_t *acc, nlr_col_t *out);
/* The pixel column a time falls in (0 .. NLR_COLS-1). */
int nlr__col_of(const nlr_report_t *r, double t);
/* Type-7 quantile of n sorted values (as nl-baseline and the SQL views); NAN if n is 0. */
double nlr__quantile(const double *v, int n, double u);
/* qsort's comparison of doubles. */
int nlr__cmp_dbl(const void *a, const void *b);

/* Summarized activities' charts (nlr_sum.c). */
int nlr__sum_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err);
/* Start/end activities' charts and the report rows, from one scan of the events (nlr_pairs.c). */
int nlr__pairs_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err);
/* The series of the drawn charts (the first r->shown), read again once ranked. */
int nlr__sum_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err);
int nlr__pairs_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err);
/* The drawn summary charts' durations and outcomes per column (nlr_dur.c). */
int nlr__dur_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err);
/* Lifelines (nlr_life.c): the events whose identity `name` (guid, trace.id) is `value`,
 * appended to l->ev with their guid, parent.guid and span ids; and one event's strings freed. */
int nlr__life_events(nll_db_t *db, nlr_life_t *l, const char *name, const char *value,
                     nll_err_t *err);
void nlr__life_ev_free(nlr_life_ev_t *e);
/* A lifeline's child GUIDs (parent.guid, recursively, at most NLR_LIFE_GUIDS), their events
 * read into it (nlr_ltree.c). */
int nlr__life_children(nll_db_t *db, nlr_life_t *l, nll_err_t *err);
/* A lifeline's events (in any order) sorted by time and built into rows and dots: the
 * request's tree (internal/nl_tree.h), orphans looked up in the archive (nlr_ltree.c). */
int nlr__life_tree(nll_db_t *db, nlr_life_t *l, nll_err_t *err);
/* Free what a lifeline holds. */
void nlr__life_free(nlr_life_t *l);
/* A drawn chart's values by process (nlr_who.c): program and pid, each with its pixel
 * columns, the first NLR_SERIES_MAX processes; the values of more counted. */
typedef struct nlr__procs {
    struct nlr__proc {
        char *prog, *pid;
        nlr_col_t *acc; /* NLR_COLS: t and mean hold sums until finished */
        int64_t n;
    } w[NLR_SERIES_MAX];
    int n;
    int64_t more;
} nlr__procs_t;
/* A value x at time t of the process (prog, pid): 0 or NL_ENOMEM. */
int nlr__procs_add(nlr__procs_t *p, const nlr_report_t *r, const char *prog, const char *pid,
                   double t, double x);
/* The chart's series, if its values came from two processes or more (labelled by program,
 * and pid where a program has several); p is emptied. 0 or NL_ENOMEM. */
int nlr__procs_finish(nlr__procs_t *p, nlr_chart_t *c);
void nlr__procs_free(nlr__procs_t *p);
/* Sort charts as nlr_charts_rank does. */
void nlr__rank_sort(nlr_chart_t *c, int n);

#endif
