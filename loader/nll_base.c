/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_base.c — baselines from the archive's summaries: the same numbers as the SQL views
 * (schemas/002-summary.sql), computed from one indexed range scan with the library's
 * statistics, for one event (and host, hour, weekday) over any period. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "nlkit/nl_moments.h"
#include "nlkit/nl_quant.h"
#include "nl_line.h"
#include "nl_hist.h"
#include "nll_sql.h"

void nll_base_q_init(nll_base_q_t *q, const char *event, const char *metric)
{
    *q = (nll_base_q_t){.event = event,
                        .metric = metric,
                        .since = -INFINITY,
                        .until = INFINITY,
                        .hour = -1,
                        .dow = -1};
}

const char *nll_base_column(const char *metric)
{
    static const char *const derived[][2] = {{"rate", "rate"},
                                             {"avgrate", "avgrate"},
                                             {"busy", "busy"},
                                             {"mean.dur", "mean_dur"},
                                             {"err.ratio", "err_ratio"}};
    if (!metric) return NULL;
    for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++)
        if (!strcmp(metric, derived[i][0])) return derived[i][1];
    for (int i = 0; i < NL_SF_COUNT; i++) /* a summary field with a column */
        if (nl__summary_fields[i].type != NL_COL_NONE &&
            !strcmp(metric, nl__summary_fields[i].name))
            return nl__summary_fields[i].column;
    return NULL;
}

/* Append the conditions of q on summary `s` (parameters ?1-?6) to sql. Parameters are
 * numbered by what they are, and PostgreSQL wants each one used: the ones q does not
 * constrain are still written, as conditions that always hold. */
static int where(nll_db_t *db, char *sql, size_t cap, int len, const nll_base_q_t *q)
{
    int pg = nll_db_backend(db) == NLL_PG;
    const char *hour = pg ? "CAST(extract(hour FROM to_timestamp(s.ts) AT TIME ZONE 'UTC') AS "
                            "integer)"
                          : "CAST(strftime('%H', s.ts, 'unixepoch') AS INTEGER)";
    const char *dow = pg ? "CAST(extract(dow FROM to_timestamp(s.ts) AT TIME ZONE 'UTC') AS "
                           "integer)"
                         : "CAST(strftime('%w', s.ts, 'unixepoch') AS INTEGER)";
    len +=
        snprintf(sql + len, cap - (size_t)len, " WHERE s.event = ?1 AND s.ts >= ?2 AND s.ts < ?3");
    len += snprintf(sql + len, cap - (size_t)len,
                    q->host ? " AND s.host = ?4" : " AND CAST(?4 AS text) IS NULL");
    if (q->hour >= 0)
        len += snprintf(sql + len, cap - (size_t)len, " AND %s = ?5", hour);
    else
        len += snprintf(sql + len, cap - (size_t)len, " AND CAST(?5 AS integer) IS NULL");
    if (q->dow >= 0)
        len += snprintf(sql + len, cap - (size_t)len, " AND %s = ?6", dow);
    else
        len += snprintf(sql + len, cap - (size_t)len, " AND CAST(?6 AS integer) IS NULL");
    return len;
}

static void bind_where(nll_stmt_t *st, const nll_base_q_t *q)
{
    nll_sql_bind_text(st, 1, q->event, strlen(q->event));
    nll_sql_bind_double(st, 2, isfinite(q->since) ? q->since : -1e300);
    nll_sql_bind_double(st, 3, isfinite(q->until) ? q->until : 1e300);
    if (q->host)
        nll_sql_bind_text(st, 4, q->host, strlen(q->host));
    else
        nll_sql_bind_null(st, 4);
    if (q->hour >= 0)
        nll_sql_bind_int64(st, 5, q->hour);
    else
        nll_sql_bind_null(st, 5);
    if (q->dow >= 0)
        nll_sql_bind_int64(st, 6, q->dow);
    else
        nll_sql_bind_null(st, 6);
}

/* With episodes to leave out, the row's host and the episodes' other key fields (a value
 * or an identity field of the summary), as columns after ts and x: parameters ?first... */
static int key_cols(const nll_base_q_t *q, char *sql, size_t cap, int len, int first)
{
    const char *const *names;
    int n = nll_eps_names(q->skip, &names);
    if (!q->skip) return len;
    len += snprintf(sql + len, cap - (size_t)len, ", s.host");
    for (int j = 0; j < n; j++)
        len += snprintf(sql + len, cap - (size_t)len,
                        ", COALESCE((SELECT CAST(kv.value AS text) FROM value kv WHERE "
                        "kv.event_id = s.event_id AND kv.name = ?%d), (SELECT ki.value FROM "
                        "ident ki WHERE ki.event_id = s.event_id AND ki.name = ?%d))",
                        first + j, first + j);
    return len;
}

static void bind_keys(nll_stmt_t *st, const nll_base_q_t *q, int first)
{
    const char *const *names;
    int n = nll_eps_names(q->skip, &names);
    for (int j = 0; j < n; j++) nll_sql_bind_text(st, first + j, names[j], strlen(names[j]));
}

/* Whether the current row (its key columns from column `col` on) is inside an episode. */
static int row_skipped(nll_stmt_t *st, const nll_base_q_t *q, double ts, int col)
{
    if (!q->skip) return 0;
    const char *const *names;
    const char *vals[NLL_EPS_NAMES];
    int n = nll_eps_names(q->skip, &names);
    for (int j = 0; j < n; j++) vals[j] = nll_sql_col_text(st, col + 1 + j, NULL);
    return nll_eps_covers(q->skip, q->event, ts, nll_sql_col_text(st, col, NULL), vals);
}

/* Build and bind the range query; the column name comes from the fixed map above, never
 * from the caller's text. A value past a double's range (a rate of 1e149 over 1e-300 s)
 * is left out, as nl-detect leaves it out. */
static int prepare(nll_db_t *db, const nll_base_q_t *q, int64_t limit, nll_stmt_t **st,
                   nll_err_t *err)
{
    const char *col = nll_base_column(q->metric);
    if (!col) {
        snprintf(err->msg, sizeof err->msg,
                 "unknown baseline metric '%s' (rate, avgrate, busy, mean.dur, err.ratio or a "
                 "summary field such as dur.sum, v.max, n)",
                 q->metric ? q->metric : "");
        return NL_EINVAL;
    }
    char sql[4096];
    int len = snprintf(sql, sizeof sql, "SELECT s.ts, s.%s", col);
    len = key_cols(q, sql, sizeof sql, len, limit > 0 ? 8 : 7);
    len += snprintf(sql + len, sizeof sql - (size_t)len, " FROM summary s");
    len = where(db, sql, sizeof sql, len, q);
    len += snprintf(
        sql + len, sizeof sql - (size_t)len,
        " AND s.%s IS NOT NULL AND abs(s.%s) <= CAST(1.7976931348623157e308 AS double precision)",
        col, col);
    if (limit > 0)
        snprintf(sql + len, sizeof sql - (size_t)len,
                 " ORDER BY s.ts DESC LIMIT ?7"); /* newest first; the caller reverses */
    else
        snprintf(sql + len, sizeof sql - (size_t)len, " ORDER BY s.ts");
    int rc = nll_sql_prepare(db, sql, st, err);
    if (rc) return rc;
    bind_where(*st, q);
    /* with episodes to leave out, the newest `limit` values outside them: rows are read
     * newest first until that many are kept (values() stops there) */
    if (limit > 0) nll_sql_bind_int64(*st, 7, q->skip ? INT64_MAX : limit);
    bind_keys(*st, q, limit > 0 ? 8 : 7);
    return 0;
}

typedef struct pair {
    double ts, x;
} pair_t;

/* nll_base_values, counting the values inside q->skip's episodes in *skipped. */
static int values(nll_db_t *db, const nll_base_q_t *q, int64_t limit,
                  void (*fn)(void *ctx, double ts, double x), void *ctx, int64_t *skipped,
                  nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = prepare(db, q, limit, &st, err);
    if (rc) return rc;
    pair_t *keep = NULL; /* with a limit, rows come newest first: hold them to reverse */
    int64_t n = 0;
    if (limit > 0 && !(keep = malloc(sizeof *keep * (size_t)limit))) {
        nll_sql_finalize(st);
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    while ((rc = nll_sql_step(st, err)) == 1) {
        pair_t p = {nll_sql_col_double(st, 0), nll_sql_col_double(st, 1)};
        if (row_skipped(st, q, p.ts, 2)) {
            ++*skipped;
            continue;
        }
        if (keep && n < limit)
            keep[n++] = p;
        else if (!keep)
            fn(ctx, p.ts, p.x);
        if (keep && n == limit) break;
    }
    rc = rc < 0 ? rc : 0;
    while (!rc && n > 0) {
        n--;
        fn(ctx, keep[n].ts, keep[n].x);
    }
    free(keep);
    nll_sql_finalize(st);
    return rc;
}

int nll_base_values(nll_db_t *db, const nll_base_q_t *q, int64_t limit,
                    void (*fn)(void *ctx, double ts, double x), void *ctx, int64_t *skipped,
                    nll_err_t *err)
{
    int64_t none = 0;
    return values(db, q, limit, fn, ctx, skipped ? skipped : &none, err);
}

typedef struct acc {
    nl_moments_t m;
    nl_quant_t *q;
    double first, last;
    int oom;
} acc_t;

static void add(void *ctx, double ts, double x)
{
    acc_t *a = ctx;
    if (!nl_mom_count(&a->m)) a->first = ts;
    a->last = ts;
    nl_mom_add(&a->m, x);
    if (nl_quant_add(a->q, x)) a->oom = 1;
}

int nll_base_get(nll_db_t *db, const nll_base_q_t *q, nll_base_t *out, nll_err_t *err)
{
    acc_t a = {.q = nl_quant_new(1024), .first = NAN, .last = NAN};
    nl_mom_init(&a.m);
    if (!a.q) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    int64_t skipped = 0;
    int rc = values(db, q, 0, add, &a, &skipped, err);
    if (!rc && a.oom) {
        snprintf(err->msg, sizeof err->msg, "out of memory computing quantiles");
        rc = NL_ENOMEM;
    }
    int64_t n = (int64_t)nl_mom_count(&a.m);
    *out = (nll_base_t){
        .n = n,
        .mean = n ? nl_mom_mean(&a.m) : NAN,
        .sd = n > 1 ? nl_mom_sd(&a.m) : NAN,
        .p5 = nl_quant_quantile(a.q, 0.05),
        .p50 = nl_quant_quantile(a.q, 0.5),
        .p95 = nl_quant_quantile(a.q, 0.95),
        .first_ts = a.first,
        .last_ts = a.last,
        .skipped = skipped,
    };
    nl_quant_free(a.q);
    return rc;
}

int nll_base_pct(nll_db_t *db, const nll_base_q_t *q, const char *series, nll_pct_t *out,
                 nll_err_t *err)
{
    int dur = !strcmp(series, "dur");
    if (!dur && strcmp(series, "v")) {
        snprintf(err->msg, sizeof err->msg, "percentiles of 'dur' or 'v', not '%s'", series);
        return NL_EINVAL;
    }
    memset(out, 0, sizeof *out);
    out->lo = INFINITY;
    out->hi = -INFINITY;
    char sql[4096];
    int len = snprintf(sql, sizeof sql, "SELECT v.value, s.%s, s.%s, s.ts",
                       dur ? "dur_min" : "v_min", dur ? "dur_max" : "v_max");
    len = key_cols(q, sql, sizeof sql, len, 7);
    len += snprintf(sql + len, sizeof sql - (size_t)len,
                    " FROM summary s JOIN value v ON v.event_id = s.event_id AND v.name = '%s'",
                    dur ? "dur.h" : "v.h");
    where(db, sql, sizeof sql, len, q);
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db, sql, &st, err);
    if (rc) return rc;
    bind_where(st, q);
    bind_keys(st, q, 7);
    while ((rc = nll_sql_step(st, err)) == 1) {
        if (row_skipped(st, q, nll_sql_col_double(st, 3), 4)) {
            out->skipped++;
            continue;
        }
        nl__hist_t one = {0};
        size_t tl;
        const char *text = nll_sql_col_text(st, 0, &tl);
        /* parsed apart first, so a damaged one leaves the merge untouched */
        if (nll_sql_col_type(st, 0) != NLL_T_TEXT || nl__hist_parse(&one, text, tl) ||
            nl__hist_merge(&out->h, &one)) {
            out->unreadable++;
        } else {
            out->summaries++;
            if (nll_sql_col_type(st, 1) != NLL_T_NULL)
                out->lo = fmin(out->lo, nll_sql_col_double(st, 1));
            if (nll_sql_col_type(st, 2) != NLL_T_NULL)
                out->hi = fmax(out->hi, nll_sql_col_double(st, 2));
        }
        nl__hist_free(&one);
    }
    nll_sql_finalize(st);
    if (rc < 0) {
        nl__hist_free(&out->h);
        return rc;
    }
    return 0;
}

/* One query, the rows copied out as they come (freed again on any failure). */
int nll_base_hosts(nll_db_t *db, const char *event, double since, double until, char ***hosts,
                   int *n, nll_err_t *err)
{
    nll_stmt_t *st;
    *hosts = NULL;
    *n = 0;
    int rc = nll_sql_prepare(db,
                             "SELECT DISTINCT host FROM summary WHERE event = ?1 AND host IS NOT "
                             "NULL AND ts >= ?2 AND ts < ?3 ORDER BY host",
                             &st, err);
    if (rc) return rc;
    nll_sql_bind_text(st, 1, event, strlen(event));
    nll_sql_bind_double(st, 2, isfinite(since) ? since : -1e300);
    nll_sql_bind_double(st, 3, isfinite(until) ? until : 1e300);
    while ((rc = nll_sql_step(st, err)) == 1) {
        char **grown = realloc(*hosts, sizeof **hosts * (size_t)(*n + 1));
        if (!grown) break;
        *hosts = grown;
        if (!((*hosts)[*n] = strdup(nll_sql_col_text(st, 0, NULL)))) break;
        (*n)++;
    }
    nll_sql_finalize(st);
    if (rc == 1) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        rc = NL_ENOMEM;
    }
    if (rc < 0) {
        for (int i = 0; i < *n; i++) free((*hosts)[i]);
        free(*hosts);
        *hosts = NULL;
        *n = 0;
        return rc;
    }
    return 0;
}
