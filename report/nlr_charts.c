/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_charts.c — the report's charts from the archive: one per activity and host, for
 * summarized activities (the summary table, read in one pass and aggregated per pixel
 * column) and for activities logged in full as NAME.start/NAME.end pairs (paired by GUID
 * here, so durations and their exact percentiles are known). */
#include <fnmatch.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_map.h"
#include "nlkit/nl_bp.h"
#include "nlr.h"

static char *dup(const char *s) { return strdup(s ? s : ""); }

int nlr_grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return 0;
    int n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    void *q = realloc(*p, (size_t)n * size);
    if (!q) return NL_ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

static int oom(nll_err_t *err)
{
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return NL_ENOMEM;
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, nll_err_t *err)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK) return 0;
    return nll_db_fail(db, err, "reading the archive");
}

static int wanted(const nlr_opts_t *o, const char *activity, const char *event, const char *host)
{
    if (!strncmp(activity, "nl.", 3)) return 0; /* the tools' own reports are laid on charts */
    if (o->host_glob && fnmatch(o->host_glob, host, 0)) return 0;
    if (o->event_glob && fnmatch(o->event_glob, activity, 0) && fnmatch(o->event_glob, event, 0))
        return 0;
    return 1;
}

static nlr_chart_t *chart_new(nlr_report_t *r, const char *activity, const char *host, int kind)
{
    if (nlr_grow((void **)&r->charts, &r->capcharts, r->ncharts + 1, sizeof *r->charts)) return NULL;
    nlr_chart_t *c = &r->charts[r->ncharts];
    *c = (nlr_chart_t){.kind = kind,
                       .busy = NAN,
                       .dur_mean = NAN,
                       .dur_max = NAN,
                       .dur_p99 = NAN,
                       .mean = NAN,
                       .dev = NAN,
                       .base_p5 = NAN,
                       .base_p50 = NAN,
                       .base_p95 = NAN,
                       .slowest = -INFINITY};
    c->activity = dup(activity);
    c->host = dup(host);
    if (!c->activity || !c->host) {
        free(c->activity);
        free(c->host);
        return NULL;
    }
    r->ncharts++;
    return c;
}

nlr_chart_t *nlr_chart_find(nlr_report_t *r, const char *activity, const char *host)
{
    for (int i = 0; i < r->ncharts; i++)
        if (!strcmp(r->charts[i].activity, activity) && !strcmp(r->charts[i].host, host))
            return &r->charts[i];
    return NULL;
}

int nlr_chart_span(nlr_chart_t *c, int kind, double t0, double t1, int open, const char *label,
                   const char *detail)
{
    if (nlr_grow((void **)&c->spans, &c->capspans, c->nspans + 1, sizeof *c->spans)) return NL_ENOMEM;
    nlr_span_t *s = &c->spans[c->nspans];
    *s = (nlr_span_t){.kind = kind, .t0 = t0, .t1 = t1, .open = open};
    if (!(s->label = dup(label)) || !(s->detail = dup(detail))) {
        free(s->label);
        return NL_ENOMEM;
    }
    c->nspans++;
    return 0;
}

int nlr_chart_mark(nlr_chart_t *c, int kind, double t, double t_from, const char *label,
                   const char *detail)
{
    if (nlr_grow((void **)&c->marks, &c->capmarks, c->nmarks + 1, sizeof *c->marks)) return NL_ENOMEM;
    nlr_mark_t *m = &c->marks[c->nmarks];
    *m = (nlr_mark_t){.kind = kind, .t = t, .t_from = t_from};
    if (!(m->label = dup(label)) || !(m->detail = dup(detail))) {
        free(m->label);
        return NL_ENOMEM;
    }
    c->nmarks++;
    return 0;
}

/* The column a time falls in: the window is split into NLR_COLS equal parts. */
static int col_of(const nlr_report_t *r, double t)
{
    double span = r->t1 - r->t0; /* the same arithmetic as the SQL of summary_cols */
    int c = span > 0 ? (int)floor((t - r->t0) * (NLR_COLS / span)) : 0;
    return c < 0 ? 0 : c >= NLR_COLS ? NLR_COLS - 1 : c;
}

/* The window: the options' bounds narrowed to the first and last event inside them (one
 * look each way along the ts index). */
static int read_window(sqlite3 *db, nlr_report_t *r, nll_err_t *err)
{
    sqlite3_stmt *st;
    /* two subqueries: each is one step along the ts index (min and max together scan) */
    int rc = prep(db,
                  "SELECT (SELECT min(ts) FROM event WHERE ts >= ?1 AND ts < ?2), "
                  "(SELECT max(ts) FROM event WHERE ts >= ?1 AND ts < ?2)",
                  &st, err);
    if (rc) return rc;
    sqlite3_bind_double(st, 1, isfinite(r->o->since) ? r->o->since : -1e300);
    sqlite3_bind_double(st, 2, isfinite(r->o->until) ? r->o->until : 1e300);
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = nll_db_fail(db, err, "reading the archive's time range");
        sqlite3_finalize(st);
        return rc;
    }
    int none = sqlite3_column_type(st, 0) == SQLITE_NULL;
    r->t0 = sqlite3_column_double(st, 0);
    r->t1 = sqlite3_column_double(st, 1);
    sqlite3_finalize(st);
    if (isfinite(r->o->since)) r->t0 = r->o->since;
    if (isfinite(r->o->until)) r->t1 = r->o->until;
    if (none && !(isfinite(r->o->since) && isfinite(r->o->until))) r->t0 = r->t1 = 0;
    if (r->t1 <= r->t0) r->t1 = r->t0 + 1; /* one instant: a one-second axis */
    return 0;
}

/* ---- summarized activities ------------------------------------------------------------ */

/* One candidate metric of a summary chart while the summaries are read: its columns (t
 * holds the sum of times, mean the sum of values, until finished) and its values for the
 * window's percentiles (all of them up to NLR_BASE_KEEP, then a uniform sample). */
typedef struct fam {
    nlr_col_t *cols;
    double *keep;
    int nkeep, capkeep;
    int64_t n;
    double sum;
} fam_t;

enum { F_RATE, F_MDUR };

typedef struct sacc {
    int chart;
    fam_t f[2];
    double dsum, isum;
    int has_dsum;
} sacc_t;

typedef struct spass {
    nlr_report_t *r;
    sacc_t *acc;
    int nacc, capacc;
    nl__map_t map; /* "event\0host" -> acc index + 1, or SKIP */
    uint64_t rng;
} spass_t;

#define SKIP ((void *)(intptr_t)-1)

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static int fam_add(spass_t *p, fam_t *f, int col, double t, double x)
{
    if (!f->cols && !(f->cols = calloc(NLR_COLS, sizeof *f->cols))) return NL_ENOMEM;
    nlr_col_t *k = &f->cols[col];
    if (!k->n || x < k->lo) k->lo = x;
    if (!k->n || x > k->hi) k->hi = x;
    k->mean += x;
    k->t += t;
    k->n++;
    f->n++;
    f->sum += x;
    if (f->nkeep < NLR_BASE_KEEP) {
        if (nlr_grow((void **)&f->keep, &f->capkeep, f->nkeep + 1, sizeof *f->keep)) return NL_ENOMEM;
        f->keep[f->nkeep++] = x;
    } else { /* reservoir sampling: every value kept with the same chance */
        uint64_t j = next_rand(&p->rng) % (uint64_t)f->n;
        if (j < NLR_BASE_KEEP) f->keep[j] = x;
    }
    return 0;
}

/* The accumulator of an event and host, made on first sight (SKIP if not wanted). */
static sacc_t *acc_of(spass_t *p, const char *event, const char *host, int *rc)
{
    char key[1024];
    size_t el = strlen(event), hl = strlen(host);
    if (el + hl + 2 > sizeof key) return NULL; /* longer than any chart's title: left out */
    memcpy(key, event, el + 1);
    memcpy(key + el + 1, host, hl + 1);
    void *v = nl__map_get(&p->map, key, el + hl + 2);
    if (v == SKIP) return NULL;
    if (v) return &p->acc[(intptr_t)v - 1];
    size_t alen;
    char activity[512];
    int ok = nl__event_kind(event, el, &alen) == NL_KIND_SUMMARY && alen < sizeof activity;
    if (ok) snprintf(activity, sizeof activity, "%.*s", (int)alen, event);
    if (!ok || !wanted(p->r->o, activity, event, host)) {
        if (!nl__map_put(&p->map, key, el + hl + 2, SKIP)) *rc = NL_ENOMEM;
        return NULL;
    }
    nlr_chart_t *c = chart_new(p->r, activity, host, NLR_SUMMARY);
    if (!c || nlr_grow((void **)&p->acc, &p->capacc, p->nacc + 1, sizeof *p->acc) ||
        !nl__map_put(&p->map, key, el + hl + 2, (void *)(intptr_t)(p->nacc + 1))) {
        *rc = NL_ENOMEM;
        return NULL;
    }
    sacc_t *a = &p->acc[p->nacc++];
    memset(a, 0, sizeof *a);
    a->chart = (int)(c - p->r->charts);
    return a;
}

/* Type-7 quantile of sorted values (as nl-baseline and the SQL views). */
static double quantile(const double *v, int n, double u)
{
    if (n == 0) return NAN;
    double h = (n - 1) * u;
    int i = (int)floor(h);
    return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[n - 1];
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void set_base(nlr_chart_t *c, double *v, int n, int64_t count, int from)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    c->base_from = n ? from : NLR_BASE_NONE;
    c->base_n = count;
    c->base_p5 = quantile(v, n, 0.05);
    c->base_p50 = quantile(v, n, 0.5);
    c->base_p95 = quantile(v, n, 0.95);
}

typedef struct hist {
    double *v;
    int n, cap, oom;
} hist_t;

static void hist_add(void *ctx, double ts, double x)
{
    (void)ts;
    hist_t *h = ctx;
    if (nlr_grow((void **)&h->v, &h->cap, h->n + 1, sizeof *h->v)) {
        h->oom = 1;
        return;
    }
    h->v[h->n++] = x;
}

/* A summary chart made final: the chosen metric's columns compacted and averaged, its
 * figures, and its baseline — the newest NLR_BASE_HIST summaries of the host before the
 * window when there are at least NLR_BASE_MIN of them, else the window's own values. */
static int summary_finish(sqlite3 *db, nlr_report_t *r, sacc_t *a, int fam, nll_err_t *err)
{
    nlr_chart_t *c = &r->charts[a->chart];
    fam_t *f = &a->f[fam];
    c->metric = fam == F_RATE ? "rate" : "mean.dur";
    c->unit = fam == F_RATE ? "/s" : "s";
    if (a->has_dsum && c->events > 0) c->dur_mean = a->dsum / (double)c->events;
    if (a->isum > 0) c->busy = a->dsum / a->isum;
    c->values = f->n;
    c->mean = f->n ? f->sum / (double)f->n : NAN;
    if (!(c->cols = calloc(NLR_COLS, sizeof *c->cols))) return oom(err);
    for (int i = 0; f->cols && i < NLR_COLS; i++)
        if (f->cols[i].n) {
            nlr_col_t k = f->cols[i];
            k.mean /= (double)k.n;
            k.t /= (double)k.n;
            c->cols[c->ncols++] = k;
        }
    char event[600];
    snprintf(event, sizeof event, "%s.summary", c->activity);
    nll_base_q_t q;
    nll_base_q_init(&q, event, c->metric);
    q.host = c->host[0] ? c->host : NULL;
    q.until = r->t0;
    hist_t h = {0};
    int rc = nll_base_values(db, &q, NLR_BASE_HIST, hist_add, &h, err);
    if (!rc && h.oom) rc = oom(err);
    if (!rc && h.n >= NLR_BASE_MIN)
        set_base(c, h.v, h.n, h.n, NLR_BASE_HISTORY);
    else if (!rc)
        set_base(c, f->keep, f->nkeep, f->n, NLR_BASE_WINDOW);
    free(h.v);
    return rc;
}

/* Summarized activities: one pass over the window's summaries (a table scan in the order
 * they were loaded, not a lookup per row through an index) fills every chart's columns,
 * figures and window values at once. */
static int read_summaries(sqlite3 *db, nlr_report_t *r, nll_err_t *err)
{
    sqlite3_stmt *st;
    int rc = prep(db,
                  "SELECT event, coalesce(host, ''), ts, n, dur_sum, interval, dur_max, rate, "
                  "mean_dur FROM summary WHERE ts >= ?1 AND ts <= ?2",
                  &st, err);
    if (rc) return rc;
    sqlite3_bind_double(st, 1, r->t0);
    sqlite3_bind_double(st, 2, r->t1);
    spass_t p = {.r = r, .rng = 0x9e3779b97f4a7c15ULL};
    nl__map_init(&p.map, 0x5eed);
    int step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sacc_t *a = acc_of(&p, (const char *)sqlite3_column_text(st, 0),
                           (const char *)sqlite3_column_text(st, 1), &rc);
        if (!a) continue;
        nlr_chart_t *c = &r->charts[a->chart];
        double ts = sqlite3_column_double(st, 2);
        c->events += sqlite3_column_int64(st, 3);
        if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
            a->has_dsum = 1;
            a->dsum += sqlite3_column_double(st, 4);
            a->isum += sqlite3_column_double(st, 5);
        }
        if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
            double m = sqlite3_column_double(st, 6);
            if (isnan(c->dur_max) || m > c->dur_max) c->dur_max = m;
        }
        int col = col_of(r, ts);
        for (int k = 0; k < 2 && !rc; k++)
            if (sqlite3_column_type(st, 7 + k) != SQLITE_NULL)
                rc = fam_add(&p, &a->f[k], col, ts, sqlite3_column_double(st, 7 + k));
    }
    if (rc == NL_ENOMEM)
        oom(err);
    else if (step != SQLITE_DONE)
        rc = nll_db_fail(db, err, "reading summaries");
    sqlite3_finalize(st);
    /* one metric per activity, so its hosts' charts compare: rate if any host has values */
    for (int i = 0; i < p.nacc && !rc; i++) {
        int fam = F_MDUR;
        for (int j = 0; j < p.nacc; j++)
            if (p.acc[j].f[F_RATE].n &&
                !strcmp(r->charts[p.acc[i].chart].activity, r->charts[p.acc[j].chart].activity))
                fam = F_RATE;
        rc = summary_finish(db, r, &p.acc[i], fam, err);
    }
    for (int i = 0; i < p.nacc; i++)
        for (int k = 0; k < 2; k++) free(p.acc[i].f[k].cols), free(p.acc[i].f[k].keep);
    free(p.acc);
    nl__map_free(&p.map);
    return rc;
}

/* ---- activities logged in full: start/end pairs ----------------------------------------- */

typedef struct pair {
    double t, dur;
} pair_t;

typedef struct host_pairs {
    char *host;
    pair_t *p;
    int n, cap;
    int64_t over;
    char *slow_guid;
    double slow;
} host_pairs_t;

/* A pair chart's figures and series from its durations (sorted afterwards for percentiles). */
static int pairs_chart(nlr_report_t *r, const char *activity, host_pairs_t *hp, nll_err_t *err)
{
    nlr_chart_t *c = chart_new(r, activity, hp->host, NLR_PAIRS);
    if (!c || !(c->cols = calloc(NLR_COLS + 1, sizeof *c->cols))) return oom(err);
    c->metric = "dur";
    c->unit = "s";
    c->events = c->values = hp->n + hp->over;
    c->truncated = hp->over;
    c->slowest = hp->slow;
    c->slowest_guid = hp->slow_guid;
    hp->slow_guid = NULL;
    nlr_col_t acc[NLR_COLS];
    memset(acc, 0, sizeof acc);
    double sum = 0, tsum[NLR_COLS] = {0};
    for (int i = 0; i < hp->n; i++) {
        const pair_t *p = &hp->p[i];
        nlr_col_t *k = &acc[col_of(r, p->t)];
        if (!k->n || p->dur < k->lo) k->lo = p->dur;
        if (!k->n || p->dur > k->hi) k->hi = p->dur;
        k->mean += p->dur;
        tsum[col_of(r, p->t)] += p->t;
        k->n++;
        sum += p->dur;
    }
    for (int i = 0; i < NLR_COLS; i++)
        if (acc[i].n) {
            acc[i].mean /= (double)acc[i].n;
            acc[i].t = tsum[i] / (double)acc[i].n;
            c->cols[c->ncols++] = acc[i];
        }
    double *d = malloc(sizeof *d * (size_t)(hp->n ? hp->n : 1));
    if (!d) return oom(err);
    for (int i = 0; i < hp->n; i++) d[i] = hp->p[i].dur;
    qsort(d, (size_t)hp->n, sizeof *d, cmp_dbl);
    if (hp->n) {
        c->dur_mean = c->mean = sum / hp->n;
        c->dur_max = d[hp->n - 1];
        c->dur_p99 = quantile(d, hp->n, 0.99);
        c->busy = sum / (r->t1 - r->t0);
        c->base_from = NLR_BASE_WINDOW;
        c->base_n = hp->n;
        c->base_p5 = quantile(d, hp->n, 0.05);
        c->base_p50 = quantile(d, hp->n, 0.5);
        c->base_p95 = quantile(d, hp->n, 0.95);
    }
    free(d);
    return 0;
}

static host_pairs_t *host_of(host_pairs_t **hs, int *n, int *cap, const char *host)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*hs)[i].host, host)) return &(*hs)[i];
    if (nlr_grow((void **)hs, cap, *n + 1, sizeof **hs)) return NULL;
    host_pairs_t *h = &(*hs)[*n];
    *h = (host_pairs_t){.slow = -INFINITY};
    if (!(h->host = dup(host))) return NULL;
    (*n)++;
    return h;
}

/* Pair one activity's starts and ends by GUID, in time order per GUID: an end closes the
 * latest open start (as nested calls would). Starts up to a day before the window are read
 * so that a pair ending in it is complete. */
static int read_pairs(sqlite3 *db, nlr_report_t *r, const char *activity, nll_err_t *err)
{
    char sev[600], eev[600];
    snprintf(sev, sizeof sev, "%s.start", activity);
    snprintf(eev, sizeof eev, "%s.end", activity);
    sqlite3_stmt *st;
    int rc = prep(db,
                  "SELECT g.value, e.ts, e.event = ?4, coalesce(h.value, '') FROM event e "
                  "JOIN ident g ON g.event_id = e.id AND g.name = 'guid' "
                  "LEFT JOIN value h ON h.event_id = e.id AND h.name = 'host' "
                  "WHERE e.ts >= ?1 AND e.ts <= ?2 AND e.event IN (?3, ?4) "
                  "ORDER BY g.value, e.ts, e.id",
                  &st, err);
    if (rc) return rc;
    sqlite3_bind_double(st, 1, r->t0 - 86400);
    sqlite3_bind_double(st, 2, r->t1);
    sqlite3_bind_text(st, 3, sev, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, eev, -1, SQLITE_STATIC);
    host_pairs_t *hs = NULL;
    int nh = 0, caph = 0;
    char guid[256] = "";
    double *open = NULL; /* the current GUID's unmatched start times */
    char **ohost = NULL;
    int nopen = 0, capopen = 0, capoh = 0;
    rc = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW && !rc) {
        const char *g = (const char *)sqlite3_column_text(st, 0);
        double t = sqlite3_column_double(st, 1);
        int is_end = sqlite3_column_int(st, 2);
        const char *host = (const char *)sqlite3_column_text(st, 3);
        if (strcmp(g, guid)) {
            snprintf(guid, sizeof guid, "%s", g);
            for (int i = 0; i < nopen; i++) free(ohost[i]);
            nopen = 0;
        }
        if (!is_end) {
            if (nlr_grow((void **)&open, &capopen, nopen + 1, sizeof *open) ||
                nlr_grow((void **)&ohost, &capoh, nopen + 1, sizeof *ohost) ||
                !(ohost[nopen] = dup(host))) {
                rc = oom(err);
                break;
            }
            open[nopen++] = t;
            continue;
        }
        if (!nopen || t < r->t0 || !wanted(r->o, activity, eev, host[0] ? host : ohost[nopen - 1])) {
            if (nopen) free(ohost[--nopen]);
            continue;
        }
        nopen--;
        host_pairs_t *h = host_of(&hs, &nh, &caph, host[0] ? host : ohost[nopen]);
        free(ohost[nopen]);
        if (!h) {
            rc = oom(err);
            break;
        }
        double dur = t - open[nopen];
        if (h->n >= NLR_PAIRS_MAX) {
            h->over++;
            continue;
        }
        if (nlr_grow((void **)&h->p, &h->cap, h->n + 1, sizeof *h->p)) {
            rc = oom(err);
            break;
        }
        h->p[h->n++] = (pair_t){t, dur};
        if (dur > h->slow) {
            free(h->slow_guid);
            h->slow = dur;
            h->slow_guid = dup(g);
        }
    }
    if (!rc && step != SQLITE_DONE && step != SQLITE_ROW) rc = nll_db_fail(db, err, "pairing events");
    sqlite3_finalize(st);
    for (int i = 0; i < nopen; i++) free(ohost[i]);
    free(open);
    free(ohost);
    for (int i = 0; i < nh; i++) {
        if (!rc && (hs[i].n || hs[i].over)) rc = pairs_chart(r, activity, &hs[i], err);
        free(hs[i].host);
        free(hs[i].p);
        free(hs[i].slow_guid);
    }
    free(hs);
    return rc;
}

/* The names of the tools' reports nlr_marks.c lays on the charts. */
static int is_report(const char *ev)
{
    static const char *const names[] = {"nl.anomaly.start", "nl.anomaly.end",  "nl.alert.start",
                                        "nl.alert.end",     "nl.missing",      "nl.peer.faulty",
                                        "nl.peer.suspect",  "nl.peer.failstop"};
    if (strncmp(ev, "nl.", 3)) return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(ev, names[i])) return 1;
    return 0;
}

/* One scan of the events from a day before the window to its end (the archive has no
 * index by name, and a scan counted here costs less than SQLite's grouping): how many are
 * in the window, the activities with ends in it (each then paired), and the rows of the
 * tools' reports, for nlr_marks_read. */
static int read_full(sqlite3 *db, nlr_report_t *r, nll_err_t *err)
{
    sqlite3_stmt *st;
    int rc = prep(db, "SELECT id, ts, event FROM event WHERE ts >= ?1 AND ts <= ?2", &st, err);
    if (rc) return rc;
    sqlite3_bind_double(st, 1, r->t0 - NLR_LOOKBACK);
    sqlite3_bind_double(st, 2, r->t1);
    nl__map_t names; /* event name -> 1 + index in acts, or SKIP */
    nl__map_init(&names, 0xace);
    char **acts = NULL;
    int n = 0, cap = 0, step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        double ts = sqlite3_column_double(st, 1);
        const char *ev = (const char *)sqlite3_column_text(st, 2);
        if (ts >= r->t0) r->events_total++;
        if (ev[0] == 'n' && is_report(ev)) {
            if (nlr_grow((void **)&r->report_ids, &r->capreports, r->nreports + 1,
                         sizeof *r->report_ids))
                rc = NL_ENOMEM;
            else
                r->report_ids[r->nreports++] = sqlite3_column_int64(st, 0);
            continue;
        }
        size_t len = strlen(ev), alen;
        if (ts < r->t0 || nl__map_get(&names, ev, len)) continue;
        int pair = nl__event_kind(ev, len, &alen) == NL_KIND_END && strncmp(ev, "nl.", 3);
        if (pair && (nlr_grow((void **)&acts, &cap, n + 1, sizeof *acts) ||
                     !(acts[n] = strndup(ev, alen))))
            rc = NL_ENOMEM;
        else if (!nl__map_put(&names, ev, len, pair ? (void *)(intptr_t)(++n) : SKIP))
            rc = NL_ENOMEM;
    }
    sqlite3_finalize(st);
    nl__map_free(&names);
    if (rc == NL_ENOMEM)
        oom(err);
    else if (step != SQLITE_DONE)
        rc = nll_db_fail(db, err, "scanning events");
    for (int i = 0; i < n; i++) {
        if (!rc) rc = read_pairs(db, r, acts[i], err);
        free(acts[i]);
    }
    free(acts);
    return rc;
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
    if (hi <= lo) hi = lo + 1;
    c->ymin = lo;
    c->ymax = hi + (hi - lo) * 0.05;
}

int nlr_charts_read(sqlite3 *db, nlr_report_t *r, nll_err_t *err)
{
    int rc;
    if ((rc = read_window(db, r, err)) || (rc = read_summaries(db, r, err)) ||
        (rc = read_full(db, r, err)))
        return rc;
    for (int i = 0; i < r->ncharts; i++) {
        nlr_chart_t *c = &r->charts[i];
        if (isfinite(c->mean) && isfinite(c->base_p50) && c->base_p50 != 0)
            c->dev = c->mean / c->base_p50 - 1;
        y_range(c);
    }
    return 0;
}

static int rank_cmp(const void *a, const void *b)
{
    const nlr_chart_t *x = a, *y = b;
    int rx = x->nspans + x->nmarks, ry = y->nspans + y->nmarks;
    if (rx != ry) return ry - rx;
    double dx = isnan(x->dev) ? -1 : fabs(x->dev), dy = isnan(y->dev) ? -1 : fabs(y->dev);
    if (dx != dy) return dy > dx ? 1 : -1;
    int c = strcmp(x->activity, y->activity);
    return c ? c : strcmp(x->host, y->host);
}

void nlr_charts_rank(nlr_report_t *r)
{
    qsort(r->charts, (size_t)r->ncharts, sizeof *r->charts, rank_cmp);
    r->shown = r->ncharts < r->o->max_charts ? r->ncharts : r->o->max_charts;
}

void nlr_report_free(nlr_report_t *r)
{
    for (int i = 0; i < r->ncharts; i++) {
        nlr_chart_t *c = &r->charts[i];
        free(c->activity);
        free(c->host);
        free(c->cols);
        free(c->slowest_guid);
        for (int j = 0; j < c->nspans; j++) free(c->spans[j].label), free(c->spans[j].detail);
        for (int j = 0; j < c->nmarks; j++) free(c->marks[j].label), free(c->marks[j].detail);
        free(c->spans);
        free(c->marks);
    }
    free(r->charts);
    free(r->report_ids);
    for (int i = 0; i < r->npeers; i++) {
        free(r->peers[i].kind);
        free(r->peers[i].host);
        free(r->peers[i].culprit);
    }
    free(r->peers);
    for (int i = 0; i < r->nlife; i++) {
        free(r->life[i].guid);
        free(r->life[i].why);
        for (int j = 0; j < r->life[i].n; j++) free(r->life[i].ev[j].host), free(r->life[i].ev[j].event);
        free(r->life[i].ev);
    }
}
