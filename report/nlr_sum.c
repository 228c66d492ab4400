/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_sum.c — the charts of summarized activities: one pass over the window's summaries (a
 * table scan in the order they were loaded) gives every chart its figures and a bounded
 * sample of its values (NLR_RANK_KEEP), enough to rank it; then each chart's metric and
 * baseline. Once the charts are ranked, a second pass (nlr__sum_fill) reads the summaries
 * of the charts drawn only, for their pixel columns and their window values in full: the
 * series are held for the charts drawn, not for every activity and host (87 KB each, 1.75
 * GB for 20,000, before). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_hist.h"
#include "nl_line.h"
#include "nl_map.h"
#include "nlkit/nl_bp.h"
#include "nlr_int.h"

/* One candidate metric of a summary chart while the summaries are read: its values for the
 * window's percentiles (all of them up to `limit`, then a uniform sample), and, in the
 * second pass only, its columns (t holds the sum of times, mean the sum of values, until
 * finished). */
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

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* A value of a metric: into its sample of at most `limit` values, and into its columns if
 * `cols` (the second pass). */
static int fam_add(uint64_t *rng, fam_t *f, int limit, int cols, int col, double t, double x)
{
    if (cols) {
        if (!f->cols && !(f->cols = calloc(NLR_COLS, sizeof *f->cols))) return NL_ENOMEM;
        nlr__col_add(&f->cols[col], t, x);
    }
    f->n++;
    f->sum += x;
    if (f->nkeep < limit) {
        if (nlr_grow((void **)&f->keep, &f->capkeep, f->nkeep + 1, sizeof *f->keep))
            return NL_ENOMEM;
        f->keep[f->nkeep++] = x;
    } else { /* reservoir sampling: every value kept with the same chance */
        uint64_t j = next_rand(rng) % (uint64_t)f->n;
        if (j < (uint64_t)limit) f->keep[j] = x;
    }
    return 0;
}

/* The accumulator of an event and host, made on first sight (SKIP if not wanted). */
static sacc_t *acc_of(spass_t *p, const char *event, const char *host, int *rc)
{
    char key[1024];
    size_t el = strlen(event), hl = strlen(host);
    if (el + hl + 2 > sizeof key) { /* longer than any chart's title: left out, counted */
        p->r->left_out++;
        return NULL;
    }
    memcpy(key, event, el + 1);
    memcpy(key + el + 1, host, hl + 1);
    void *v = nl__map_get(&p->map, key, el + hl + 2);
    if (v == SKIP) return NULL;
    if (v) return &p->acc[(intptr_t)v - 1];
    size_t alen;
    char activity[512];
    int ok = nl__event_kind(event, el, &alen) == NL_KIND_SUMMARY && alen < sizeof activity;
    if (ok) snprintf(activity, sizeof activity, "%.*s", (int)alen, event);
    if (!ok || !nlr__wanted(p->r->o, activity, event, host)) {
        if (!nl__map_put(&p->map, key, el + hl + 2, SKIP)) *rc = NL_ENOMEM;
        return NULL;
    }
    nlr_chart_t *c = nlr__chart_new(p->r, activity, host, NLR_SUMMARY);
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

static void set_base(nlr_chart_t *c, double *v, int n, int64_t count, int from)
{
    if (n > 1) qsort(v, (size_t)n, sizeof *v, nlr__cmp_dbl);
    c->base_from = n ? from : NLR_BASE_NONE;
    c->base_n = count;
    c->base_p5 = nlr__quantile(v, n, 0.05);
    c->base_p50 = nlr__quantile(v, n, 0.5);
    c->base_p95 = nlr__quantile(v, n, 0.95);
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

/* A summary chart's p99 duration over the window: its summaries' histograms (dur.h) merged,
 * as nl-baseline --percentiles does, so it is the p99 of every pair, within 1.6 %; NAN when
 * none carries a histogram (written before they existed). The page showed none at all. */
static int summary_p99(nlr_report_t *r, nlr_chart_t *c, const char *event, nll_err_t *err)
{
    nll_base_q_t q;
    nll_base_q_init(&q, event, "n");
    q.host = c->host[0] ? c->host : NULL;
    q.since = r->t0;
    q.until = nextafter(r->t1, INFINITY); /* the window holds its last instant */
    nll_pct_t p;
    int rc = nll_base_pct(r->archive, &q, "dur", &p, err);
    if (rc) return rc;
    c->dur_p99 = p.h.n ? nl__hist_quantile(&p.h, 0.99, p.lo, p.hi) : NAN;
    nl__hist_free(&p.h);
    return 0;
}

/* A summary chart's figures and its baseline — the newest NLR_BASE_HIST summaries of the
 * host before the window when there are at least NLR_BASE_MIN of them, else the window's
 * own values (their sample of NLR_RANK_KEEP here; all of them, up to NLR_BASE_KEEP, once
 * nlr__sum_fill reads a drawn chart again). */
static int summary_finish(nll_db_t *db, nlr_report_t *r, sacc_t *a, int fam, nll_err_t *err)
{
    nlr_chart_t *c = &r->charts[a->chart];
    fam_t *f = &a->f[fam];
    c->metric = fam == F_RATE ? "rate" : "mean.dur";
    c->unit = fam == F_RATE ? "/s" : "s";
    if (a->has_dsum && c->events > 0) c->dur_mean = a->dsum / (double)c->events;
    if (a->isum > 0) c->busy = a->dsum / a->isum;
    c->values = f->n;
    c->mean = f->n ? f->sum / (double)f->n : NAN;
    char event[600];
    snprintf(event, sizeof event, "%s.summary", c->activity);
    nll_base_q_t q;
    nll_base_q_init(&q, event, c->metric);
    q.host = c->host[0] ? c->host : NULL;
    q.until = r->t0;
    hist_t h = {0};
    (void)db;
    int rc = summary_p99(r, c, event, err);
    if (!rc) rc = nll_base_values(r->archive, &q, NLR_BASE_HIST, hist_add, &h, NULL, err);
    if (!rc && h.oom) rc = nlr__oom(err);
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
int nlr__sum_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    nll_stmt_t *st;
    /* in load order on either database (SQLite's rowid: no sort), so the samples are the same */
    int rc = nll_sql_prepare(
        db,
        "SELECT event, coalesce(host, ''), ts, n, dur_sum, interval, dur_max, rate, "
        "mean_dur, err_n FROM summary WHERE ts >= ?1 AND ts <= ?2 ORDER BY event_id",
        &st, err);
    if (rc) return rc;
    nll_sql_context(st, "reading summaries");
    nll_sql_bind_double(st, 1, r->t0);
    nll_sql_bind_double(st, 2, r->t1);
    spass_t p = {.r = r, .rng = 0x9e3779b97f4a7c15ULL};
    nl__map_init(&p.map, 0x5eed);
    int step;
    while (!rc && (step = nll_sql_step(st, err)) == 1) {
        sacc_t *a = acc_of(&p, nll_sql_col_text(st, 0, NULL), nll_sql_col_text(st, 1, NULL), &rc);
        if (!a) continue;
        nlr_chart_t *c = &r->charts[a->chart];
        double ts = nll_sql_col_double(st, 2);
        c->events += nll_sql_col_int64(st, 3);
        if (nll_sql_col_type(st, 9) != NLL_T_NULL) { /* outcomes counted: an error ratio */
            c->err_n += nll_sql_col_int64(st, 9);
            c->err_pairs += nll_sql_col_int64(st, 3);
        }
        if (nll_sql_col_type(st, 4) != NLL_T_NULL) {
            a->has_dsum = 1;
            a->dsum += nll_sql_col_double(st, 4);
            a->isum += nll_sql_col_double(st, 5);
        }
        if (nll_sql_col_type(st, 6) != NLL_T_NULL) {
            double m = nll_sql_col_double(st, 6);
            if (isnan(c->dur_max) || m > c->dur_max) c->dur_max = m;
        }
        for (int k = 0; k < 2 && !rc; k++) {
            if (nll_sql_col_type(st, 7 + k) == NLL_T_NULL) continue;
            double x = nll_sql_col_double(st, 7 + k);
            if (!isfinite(x)) { /* a ratio past a double's range: no place on an axis */
                r->nonfinite++;
                continue;
            }
            rc = fam_add(&p.rng, &a->f[k], NLR_RANK_KEEP, 0, 0, ts, x); /* columns: later */
        }
    }
    if (rc == NL_ENOMEM)
        nlr__oom(err);
    else if (step < 0)
        rc = step; /* err says where and why */
    nll_sql_finalize(st);
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

/* The drawn summary charts' series: a second pass over the window's summaries, keeping only
 * the rows of the first r->shown charts, each in its chart's metric: its pixel columns, and
 * its window values (all up to NLR_BASE_KEEP, then a uniform sample) for a window baseline.
 * Memory: NLR_COLS columns and those values per drawn chart, whatever the archive holds. */
int nlr__sum_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    int want = 0;
    for (int i = 0; i < r->shown; i++) want |= r->charts[i].kind == NLR_SUMMARY;
    if (!want) return 0;
    nl__map_t map; /* "event\0host" -> chart index + 1 */
    nl__map_init(&map, 0xf111);
    fam_t *fams = calloc((size_t)r->shown, sizeof *fams);
    nlr__procs_t *procs = calloc((size_t)r->shown, sizeof *procs); /* its series by process */
    int rc = fams && procs ? 0 : NL_ENOMEM;
    for (int i = 0; i < r->shown && !rc; i++) {
        nlr_chart_t *c = &r->charts[i];
        if (c->kind != NLR_SUMMARY) continue;
        char key[1200];
        int kl = snprintf(key, sizeof key, "%s.summary%c%s", c->activity, 0, c->host);
        if (kl < 0 || (size_t)kl >= sizeof key ||
            !nl__map_put(&map, key, (size_t)kl + 1, (void *)(intptr_t)(i + 1)))
            rc = NL_ENOMEM;
    }
    nll_stmt_t *st = NULL;
    if (rc ||
        (rc = nll_sql_prepare(
             db,
             "SELECT s.event, coalesce(s.host, ''), s.ts, s.rate, s.mean_dur, "
             "coalesce(CAST(pr.value AS TEXT), ''), coalesce(CAST(pd.value AS TEXT), '') "
             "FROM summary s LEFT JOIN value pr ON pr.event_id = s.event_id AND pr.name = 'prog' "
             "LEFT JOIN value pd ON pd.event_id = s.event_id AND pd.name = 'pid' "
             "WHERE s.ts >= ?1 AND s.ts <= ?2 ORDER BY s.event_id",
             &st, err))) {
        if (rc == NL_ENOMEM) nlr__oom(err);
        free(fams);
        free(procs);
        nl__map_free(&map);
        return rc;
    }
    nll_sql_context(st, "reading summaries");
    nll_sql_bind_double(st, 1, r->t0);
    nll_sql_bind_double(st, 2, r->t1);
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int step;
    while (!rc && (step = nll_sql_step(st, err)) == 1) {
        const char *ev = nll_sql_col_text(st, 0, NULL);
        const char *host = nll_sql_col_text(st, 1, NULL);
        char key[1200];
        size_t el = strlen(ev), hl = strlen(host);
        if (el + hl + 2 > sizeof key) continue;
        memcpy(key, ev, el + 1);
        memcpy(key + el + 1, host, hl + 1);
        void *v = nl__map_get(&map, key, el + hl + 2);
        if (!v) continue;
        int i = (int)(intptr_t)v - 1;
        int k = strcmp(r->charts[i].metric, "rate") ? 4 : 3;
        if (nll_sql_col_type(st, k) == NLL_T_NULL) continue;
        double x = nll_sql_col_double(st, k), ts = nll_sql_col_double(st, 2);
        if (!isfinite(x)) continue; /* counted in the first pass */
        /* a window baseline leaves out what the detector flagged: the fault is not normal */
        int flagged =
            r->charts[i].base_from == NLR_BASE_WINDOW && nlr_chart_flagged(&r->charts[i], ts);
        r->charts[i].base_flagged += flagged;
        rc = fam_add(&rng, &fams[i], flagged ? 0 : NLR_BASE_KEEP, 1, nlr__col_of(r, ts), ts, x);
        if (!rc)
            rc = nlr__procs_add(&procs[i], r, nll_sql_col_text(st, 5, NULL),
                                nll_sql_col_text(st, 6, NULL), ts, x);
    }
    if (rc == NL_ENOMEM)
        nlr__oom(err);
    else if (step < 0)
        rc = step; /* err says where and why */
    nll_sql_finalize(st);
    for (int i = 0; i < r->shown && !rc; i++) {
        nlr_chart_t *c = &r->charts[i];
        fam_t *f = &fams[i];
        if (c->kind != NLR_SUMMARY || !f->n) continue;
        if (!(c->cols = calloc(NLR_COLS, sizeof *c->cols))) {
            rc = nlr__oom(err);
            break;
        }
        c->ncols = nlr__cols_finish(f->cols, c->cols);
        if (c->base_from == NLR_BASE_WINDOW)
            set_base(c, f->keep, f->nkeep, f->n - c->base_flagged, NLR_BASE_WINDOW);
        if (nlr__procs_finish(&procs[i], c)) rc = nlr__oom(err);
    }
    for (int i = 0; i < r->shown; i++) {
        free(fams[i].cols), free(fams[i].keep);
        if (procs) nlr__procs_free(&procs[i]);
    }
    free(fams);
    free(procs);
    nl__map_free(&map);
    return rc;
}
