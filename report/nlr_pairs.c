/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_pairs.c — the charts of activities logged in full: NAME.start and NAME.end paired by
 * GUID, so each pair's duration and the exact percentiles are known; and the one scan of the
 * window's events that finds those activities and the tools' report rows. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_map.h"
#include "nlkit/nl_bp.h"
#include "nlr_int.h"

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
    nlr__procs_t procs; /* a drawn chart's pairs by process (the end's prog and pid) */
} host_pairs_t;

/* A pair chart's figures from its durations (sorted afterwards for percentiles); its series
 * comes from a second reading if it is drawn (pairs_cols). */
static int pairs_chart(nlr_report_t *r, const char *activity, host_pairs_t *hp, nll_err_t *err)
{
    nlr_chart_t *c = nlr__chart_new(r, activity, hp->host, NLR_PAIRS);
    if (!c) return nlr__oom(err);
    c->metric = "dur";
    c->unit = "s";
    c->events = c->values = hp->n + hp->over;
    c->truncated = hp->over;
    c->slowest = hp->slow;
    c->slowest_guid = hp->slow_guid;
    hp->slow_guid = NULL;
    double sum = 0;
    for (int i = 0; i < hp->n; i++) sum += hp->p[i].dur;
    double *d = malloc(sizeof *d * (size_t)(hp->n > 0 ? hp->n : 1));
    if (!d) return nlr__oom(err);
    for (int i = 0; i < hp->n; i++) d[i] = hp->p[i].dur;
    qsort(d, (size_t)hp->n, sizeof *d, nlr__cmp_dbl);
    if (hp->n) {
        c->dur_mean = c->mean = sum / hp->n;
        c->dur_max = d[hp->n - 1];
        c->dur_p99 = nlr__quantile(d, hp->n, 0.99);
        c->busy = sum / (r->t1 - r->t0);
        c->base_from = NLR_BASE_WINDOW;
        c->base_n = hp->n;
        c->base_p5 = nlr__quantile(d, hp->n, 0.05);
        c->base_p50 = nlr__quantile(d, hp->n, 0.5);
        c->base_p95 = nlr__quantile(d, hp->n, 0.95);
    }
    free(d);
    return 0;
}

/* A drawn pair chart's window baseline again, without the pairs that ended inside its
 * anomaly episodes or alerts (the reports are laid by now): a baseline must not hold the
 * fault it is drawn against. */
static int pairs_rebase(nlr_chart_t *c, const host_pairs_t *hp, nll_err_t *err)
{
    int flagged = 0;
    for (int i = 0; i < hp->n; i++) flagged += nlr_chart_flagged(c, hp->p[i].t);
    if (!flagged || flagged == hp->n) return 0;
    double *d = malloc(sizeof *d * (size_t)hp->n);
    if (!d) return nlr__oom(err);
    int n = 0;
    for (int i = 0; i < hp->n; i++)
        if (!nlr_chart_flagged(c, hp->p[i].t)) d[n++] = hp->p[i].dur;
    qsort(d, (size_t)n, sizeof *d, nlr__cmp_dbl);
    c->base_flagged = flagged;
    c->base_n = n;
    c->base_p5 = nlr__quantile(d, n, 0.05);
    c->base_p50 = nlr__quantile(d, n, 0.5);
    c->base_p95 = nlr__quantile(d, n, 0.95);
    free(d);
    return 0;
}

/* A drawn pair chart's series: its pairs' durations per pixel column (min, mean, max), and
 * by process if two or more ended its pairs. */
static int pairs_cols(nlr_report_t *r, nlr_chart_t *c, host_pairs_t *hp, nll_err_t *err)
{
    if (c->base_from == NLR_BASE_WINDOW && pairs_rebase(c, hp, err)) return NL_ENOMEM;
    if (nlr__procs_finish(&hp->procs, c)) return nlr__oom(err);
    if (!(c->cols = calloc(NLR_COLS, sizeof *c->cols))) return nlr__oom(err);
    nlr_col_t *acc = calloc(NLR_COLS, sizeof *acc);
    if (!acc) return nlr__oom(err);
    for (int i = 0; i < hp->n; i++) {
        const pair_t *p = &hp->p[i];
        nlr__col_add(&acc[nlr__col_of(r, p->t)], p->t, p->dur);
    }
    c->ncols = nlr__cols_finish(acc, c->cols);
    free(acc);
    return 0;
}

/* The drawn pair chart of this activity and host (among the first r->shown), or NULL. */
static nlr_chart_t *drawn(nlr_report_t *r, const char *activity, const char *host)
{
    for (int i = 0; i < r->shown; i++) {
        nlr_chart_t *c = &r->charts[i];
        if (c->kind == NLR_PAIRS && !strcmp(c->activity, activity) && !strcmp(c->host, host))
            return c;
    }
    return NULL;
}

static host_pairs_t *host_of(host_pairs_t **hs, int *n, int *cap, const char *host)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*hs)[i].host, host)) return &(*hs)[i];
    if (nlr_grow((void **)hs, cap, *n + 1, sizeof **hs)) return NULL;
    host_pairs_t *h = &(*hs)[*n];
    *h = (host_pairs_t){.slow = -INFINITY};
    if (!(h->host = nlr__dup(host))) return NULL;
    (*n)++;
    return h;
}

/* Pair one activity's starts and ends by GUID, in time order per GUID: an end closes the
 * latest open start (as nested calls would). Starts up to a day before the window are read
 * so that a pair ending in it is complete. First (fill 0) for every host's chart and its
 * figures; again (fill 1), once ranked, for the series of the hosts whose chart is drawn,
 * keeping only their pairs. */
static int read_pairs(nll_db_t *db, nlr_report_t *r, const char *activity, int fill, nll_err_t *err)
{
    char sev[600], eev[600];
    snprintf(sev, sizeof sev, "%s.start", activity);
    snprintf(eev, sizeof eev, "%s.end", activity);
    nll_stmt_t *st;
    int rc =
        nll_sql_prepare(db,
                        /* an end's process, for a drawn chart's series only (?5): two
                         * lookups a pair in every pass made the page 25% slower */
                        "SELECT g.value, e.ts, e.event = ?4, coalesce(h.value, ''), "
                        "CASE WHEN ?5 = 1 AND e.event = ?4 THEN (SELECT CAST(pr.value AS TEXT) "
                        "FROM value pr WHERE pr.event_id = e.id AND pr.name = 'prog') END, "
                        "CASE WHEN ?5 = 1 AND e.event = ?4 THEN (SELECT CAST(pd.value AS TEXT) "
                        "FROM value pd WHERE pd.event_id = e.id AND pd.name = 'pid') END "
                        "FROM event e JOIN ident g ON g.event_id = e.id AND g.name = 'guid' "
                        "LEFT JOIN value h ON h.event_id = e.id AND h.name = 'host' "
                        "WHERE e.ts >= ?1 AND e.ts <= ?2 AND e.event IN (?3, ?4) "
                        "ORDER BY g.value, e.ts, e.id",
                        &st, err);
    if (rc) return rc;
    nll_sql_context(st, "pairing events");
    nll_sql_bind_double(st, 1, r->t0 - 86400);
    nll_sql_bind_double(st, 2, r->t1);
    nll_sql_bind_text(st, 3, sev, strlen(sev));
    nll_sql_bind_text(st, 4, eev, strlen(eev));
    nll_sql_bind_int64(st, 5, fill);
    host_pairs_t *hs = NULL;
    int nh = 0, caph = 0;
    char guid[256] = "";
    double *open = NULL; /* the current GUID's unmatched start times */
    char **ohost = NULL;
    int nopen = 0, capopen = 0, capoh = 0;
    rc = 0;
    int step;
    while ((step = nll_sql_step(st, err)) == 1 && !rc) {
        const char *g = nll_sql_col_text(st, 0, NULL);
        double t = nll_sql_col_double(st, 1);
        int is_end = nll_sql_col_int64(st, 2) != 0; /* a boolean on PostgreSQL */
        const char *host = nll_sql_col_text(st, 3, NULL);
        if (strcmp(g, guid)) {
            snprintf(guid, sizeof guid, "%s", g);
            for (int i = 0; i < nopen; i++) free(ohost[i]);
            nopen = 0;
        }
        if (!is_end) {
            if (nlr_grow((void **)&open, &capopen, nopen + 1, sizeof *open) ||
                nlr_grow((void **)&ohost, &capoh, nopen + 1, sizeof *ohost) ||
                !(ohost[nopen] = nlr__dup(host))) {
                rc = nlr__oom(err);
                break;
            }
            open[nopen++] = t;
            continue;
        }
        if (!nopen || t < r->t0 ||
            !nlr__wanted(r->o, activity, eev, host[0] ? host : ohost[nopen - 1])) {
            if (nopen) free(ohost[--nopen]);
            continue;
        }
        nopen--;
        const char *ph = host[0] ? host : ohost[nopen];
        host_pairs_t *h = fill && !drawn(r, activity, ph) ? SKIP : host_of(&hs, &nh, &caph, ph);
        free(ohost[nopen]);
        if (h == SKIP) continue;
        if (!h) {
            rc = nlr__oom(err);
            break;
        }
        double dur = t - open[nopen];
        if (h->n >= NLR_PAIRS_MAX) {
            h->over++;
            continue;
        }
        if (nlr_grow((void **)&h->p, &h->cap, h->n + 1, sizeof *h->p)) {
            rc = nlr__oom(err);
            break;
        }
        h->p[h->n++] = (pair_t){t, dur};
        if (fill && nlr__procs_add(&h->procs, r, nll_sql_col_text(st, 4, NULL),
                                   nll_sql_col_text(st, 5, NULL), t, dur)) {
            rc = nlr__oom(err);
            break;
        }
        if (dur > h->slow) {
            free(h->slow_guid);
            h->slow = dur;
            h->slow_guid = nlr__dup(g);
        }
    }
    if (!rc && step < 0) rc = step; /* err says where and why */
    nll_sql_finalize(st);
    for (int i = 0; i < nopen; i++) free(ohost[i]);
    free(open);
    free(ohost);
    for (int i = 0; i < nh; i++) {
        nlr_chart_t *c = fill ? drawn(r, activity, hs[i].host) : NULL;
        if (!rc && c && !c->cols) rc = pairs_cols(r, c, &hs[i], err);
        if (!rc && !fill && (hs[i].n || hs[i].over)) rc = pairs_chart(r, activity, &hs[i], err);
        free(hs[i].host);
        free(hs[i].p);
        free(hs[i].slow_guid);
        nlr__procs_free(&hs[i].procs);
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
int nlr__pairs_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db, "SELECT id, ts, event FROM event WHERE ts >= ?1 AND ts <= ?2", &st,
                             err);
    if (rc) return rc;
    nll_sql_context(st, "scanning events");
    nll_sql_bind_double(st, 1, r->t0 - NLR_LOOKBACK);
    nll_sql_bind_double(st, 2, r->t1);
    nl__map_t names; /* event name -> 1 + index in acts, or SKIP */
    nl__map_init(&names, 0xace);
    char **acts = NULL;
    int n = 0, cap = 0, step;
    while (!rc && (step = nll_sql_step(st, err)) == 1) {
        double ts = nll_sql_col_double(st, 1);
        const char *ev = nll_sql_col_text(st, 2, NULL);
        if (ts >= r->t0) r->events_total++;
        if (ev[0] == 'n' && is_report(ev)) {
            if (nlr_grow((void **)&r->report_ids, &r->capreports, r->nreports + 1,
                         sizeof *r->report_ids))
                rc = NL_ENOMEM;
            else
                r->report_ids[r->nreports++] = nll_sql_col_int64(st, 0);
            continue;
        }
        size_t len = strlen(ev), alen;
        if (ts < r->t0 || nl__map_get(&names, ev, len)) continue;
        int pair = nl__event_kind(ev, len, &alen) == NL_KIND_END && strncmp(ev, "nl.", 3);
        if (pair &&
            (nlr_grow((void **)&acts, &cap, n + 1, sizeof *acts) || !(acts[n] = strndup(ev, alen))))
            rc = NL_ENOMEM;
        else if (!nl__map_put(&names, ev, len, pair ? (void *)(intptr_t)(++n) : SKIP))
            rc = NL_ENOMEM;
    }
    nll_sql_finalize(st);
    nl__map_free(&names);
    if (rc == NL_ENOMEM)
        nlr__oom(err);
    else if (step < 0)
        rc = step; /* err says where and why */
    for (int i = 0; i < n; i++) {
        if (!rc) rc = read_pairs(db, r, acts[i], 0, err);
        free(acts[i]);
    }
    free(acts);
    return rc;
}

int nlr__pairs_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    int rc = 0;
    for (int i = 0; i < r->shown && !rc; i++) {
        const nlr_chart_t *c = &r->charts[i];
        if (c->kind != NLR_PAIRS || !c->values || c->cols) continue;
        int again = 0; /* one reading per activity */
        for (int j = 0; j < i; j++)
            again |= r->charts[j].kind == NLR_PAIRS && r->charts[j].values &&
                     !strcmp(r->charts[j].activity, c->activity);
        if (!again) rc = read_pairs(db, r, c->activity, 1, err);
    }
    return rc;
}
