/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_read.c — reading the archive into charts: the window, the summarized activities
 * (nlr_sum.c) and the start/end pairs (nlr_pairs.c), then each chart's deviation and
 * vertical range. Kept apart from nlr_charts.c, whose helpers the two readers use, so the
 * calls run one way. */
#include <math.h>

#include "nlr_int.h"

/* The window: the options' bounds narrowed to the first and last event inside them (one
 * look each way along the ts index), so the charts' axes span the data. */
static int read_window(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    nll_stmt_t *st;
    /* two subqueries: each is one step along the ts index (min and max together scan) */
    int rc = nll_sql_prepare(db,
                             "SELECT (SELECT min(ts) FROM event WHERE ts >= ?1 AND ts < ?2), "
                             "(SELECT max(ts) FROM event WHERE ts >= ?1 AND ts < ?2)",
                             &st, err);
    if (rc) return rc;
    nll_sql_context(st, "reading the archive's time range");
    nll_sql_bind_double(st, 1, isfinite(r->o->since) ? r->o->since : -1e300);
    nll_sql_bind_double(st, 2, isfinite(r->o->until) ? r->o->until : 1e300);
    if ((rc = nll_sql_step(st, err)) < 0) {
        nll_sql_finalize(st);
        return rc;
    }
    int none = rc == 0 || nll_sql_col_type(st, 0) == NLL_T_NULL; /* an aggregate: one row */
    r->t0 = rc ? nll_sql_col_double(st, 0) : 0;
    r->t1 = rc ? nll_sql_col_double(st, 1) : 0;
    nll_sql_finalize(st);
    /* the axis covers the events, not the whole of what was asked: --since 2h on 45 s of
     * data drew them as a sliver at the right edge; with no event, what was asked */
    if (none && isfinite(r->o->since) && isfinite(r->o->until)) {
        r->t0 = r->o->since;
        r->t1 = r->o->until;
    } else if (none) {
        r->t0 = r->t1 = 0;
    }
    if (r->t1 <= r->t0) r->t1 = r->t0 + 1; /* one instant: a one-second axis */
    return 0;
}

/* A chart's vertical range: its values and its baseline band, from 0 when all are positive
 * (a rate's dip reads as a dip only against zero). */
static void y_range(nlr_chart_t *c)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < c->ncols; i++) {
        if (c->cols[i].lo < lo) lo = c->cols[i].lo;
        if (c->cols[i].hi > hi) hi = c->cols[i].hi;
    }
    if (isfinite(c->base_p95) && c->base_p95 > hi) hi = c->base_p95;
    if (isfinite(c->base_p5) && c->base_p5 < lo) lo = c->base_p5;
    if (!isfinite(lo)) lo = 0, hi = 1;
    if (lo > 0) lo = 0;
    if (!(hi > lo)) hi = lo + (fabs(lo) > 1 ? fabs(lo) : 1); /* one value: a visible range */
    c->ymin = lo;
    c->ymax = hi + (hi - lo) * 0.05;
}

/* How far a chart's mean is from its baseline's median (NAN when either is unknown). */
static void dev_of(nlr_chart_t *c)
{
    c->dev = NAN;
    if (isfinite(c->mean) && isfinite(c->base_p50) && c->base_p50 != 0)
        c->dev = c->mean / c->base_p50 - 1;
}

int nlr_charts_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    int rc;
    if ((rc = read_window(db, r, err)) || (rc = nlr__sum_read(db, r, err)) ||
        (rc = nlr__pairs_read(db, r, err)))
        return rc;
    for (int i = 0; i < r->ncharts; i++) dev_of(&r->charts[i]);
    return 0;
}

int nlr_charts_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    int rc;
    if ((rc = nlr__sum_fill(db, r, err)) || (rc = nlr__dur_fill(db, r, err)) ||
        (rc = nlr__pairs_fill(db, r, err)))
        return rc;
    /* a window baseline from all the values may move a drawn chart among the drawn */
    for (int i = 0; i < r->shown; i++) dev_of(&r->charts[i]);
    nlr__rank_sort(r->charts, r->shown);
    for (int i = 0; i < r->ncharts; i++) /* not a missing end's empty chart (0 to 1) */
        if (r->charts[i].kind != NLR_PAIRS || r->charts[i].values) y_range(&r->charts[i]);
    return 0;
}
