/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_dur.c — a drawn summary chart's durations and outcomes per pixel column: the p50, p90
 * and p99 of the pairs its summaries folded (their dur.h histograms merged, as nl-baseline
 * --percentiles does, so a column's p99 is the p99 of every pair in it, within 1.6 %) and
 * the share that failed (err.n over n). A rate alone hides a latency fault; these show it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_hist.h"
#include "nlr_int.h"

/* The column being gathered: the summaries come in time order, so one at a time. */
typedef struct dacc {
    int col;
    int64_t rows;
    double tsum, lo, hi; /* lo, hi: the exact extremes (dur.min, dur.max) the quantiles clamp to */
    nl__hist_t h;
    int64_t err_n, err_pairs;
} dacc_t;

/* Close the column gathered in a into the chart's next dcol, and empty a. */
static void flush(nlr_chart_t *c, dacc_t *a)
{
    if (!a->rows) return;
    nlr_dcol_t *d = &c->dcols[c->ndcols++];
    d->t = a->tsum / (double)a->rows;
    /* extremes unknown (no dur.min, dur.max on the lines): no clamp */
    double lo = isfinite(a->lo) ? a->lo : -INFINITY, hi = isfinite(a->hi) ? a->hi : INFINITY;
    d->p50 = a->h.n ? nl__hist_quantile(&a->h, 0.50, lo, hi) : NAN;
    d->p90 = a->h.n ? nl__hist_quantile(&a->h, 0.90, lo, hi) : NAN;
    d->p99 = a->h.n ? nl__hist_quantile(&a->h, 0.99, lo, hi) : NAN;
    d->err = a->err_pairs ? (double)a->err_n / (double)a->err_pairs : NAN;
    if (d->p99 > c->dmax) c->dmax = d->p99;
    if (d->err > c->emax) c->emax = d->err;
    nl__hist_clear(&a->h);
    a->rows = a->err_n = a->err_pairs = 0;
    a->tsum = 0;
    a->lo = INFINITY;
    a->hi = -INFINITY;
}

/* One chart: its summaries in the window, in time order (the event, host, ts index), one
 * histogram held at a time. */
static int fill_one(nll_db_t *db, nlr_report_t *r, nlr_chart_t *c, nll_err_t *err)
{
    char sql[512], event[600];
    snprintf(sql, sizeof sql,
             "SELECT s.ts, s.n, s.err_n, v.value, s.dur_min, s.dur_max FROM summary s "
             "LEFT JOIN value v ON v.event_id = s.event_id AND v.name = 'dur.h' "
             "WHERE s.event = ?1 AND s.ts >= ?2 AND s.ts <= ?3 AND %s ORDER BY s.ts, s.event_id",
             c->host[0] ? "s.host = ?4" : "s.host IS NULL");
    snprintf(event, sizeof event, "%s.summary", c->activity);
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db, sql, &st, err);
    if (rc) return rc;
    nll_sql_context(st, "reading summaries' durations");
    nll_sql_bind_text(st, 1, event, strlen(event));
    nll_sql_bind_double(st, 2, r->t0);
    nll_sql_bind_double(st, 3, r->t1);
    if (c->host[0]) nll_sql_bind_text(st, 4, c->host, strlen(c->host));
    dacc_t a = {.col = -1, .lo = INFINITY, .hi = -INFINITY};
    c->dmax = c->emax = 0;
    int step = 0, oom = 0;
    if (!(c->dcols = calloc(NLR_COLS, sizeof *c->dcols))) oom = 1;
    while (!oom && (step = nll_sql_step(st, err)) == 1) {
        double ts = nll_sql_col_double(st, 0);
        int col = nlr__col_of(r, ts);
        if (col != a.col) flush(c, &a);
        a.col = col;
        a.rows++;
        a.tsum += ts;
        if (nll_sql_col_type(st, 2) != NLL_T_NULL) {
            a.err_n += nll_sql_col_int64(st, 2);
            a.err_pairs += nll_sql_col_int64(st, 1);
        }
        if (nll_sql_col_type(st, 3) == NLL_T_NULL) continue; /* no histogram: no percentiles */
        nl__hist_t one = {0};
        size_t tl;
        const char *text = nll_sql_col_text(st, 3, &tl);
        /* parsed apart first, so a damaged one leaves the column's merge untouched */
        if (nll_sql_col_type(st, 3) != NLL_T_TEXT || nl__hist_parse(&one, text, tl) ||
            nl__hist_merge(&a.h, &one)) {
            c->hist_bad++;
        } else {
            if (nll_sql_col_type(st, 4) != NLL_T_NULL)
                a.lo = fmin(a.lo, nll_sql_col_double(st, 4));
            if (nll_sql_col_type(st, 5) != NLL_T_NULL)
                a.hi = fmax(a.hi, nll_sql_col_double(st, 5));
        }
        nl__hist_free(&one);
    }
    if (!oom) flush(c, &a);
    nl__hist_free(&a.h);
    nll_sql_finalize(st);
    if (oom) return nlr__oom(err);
    return step < 0 ? step : 0; /* err says where and why */
}

int nlr__dur_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    int rc = 0;
    for (int i = 0; i < r->shown && !rc; i++)
        if (r->charts[i].kind == NLR_SUMMARY) rc = fill_one(db, r, &r->charts[i], err);
    return rc;
}
