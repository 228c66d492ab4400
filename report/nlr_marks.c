/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_marks.c — what nl-detect and nl-peers reported, laid on the charts it concerns: an
 * anomaly episode (nl.anomaly.start ... nl.anomaly.end, one per algorithm) and an alert
 * (nl.alert.start ... nl.alert.end) as shaded spans, a missing end (nl.missing) and a peer
 * verdict (nl.peer.*) as marks. A report names its activity (trig.event, watch, activity,
 * culprit) and its host (key.host for the detector's keyed streams, host= for nl-peers, the
 * start's host, found by GUID, for a missing end); a report without a host concerns every
 * host of its activity. */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nlkit/nl_bp.h"
#include "nlr_int.h"

/* The fields of one report the page uses. */
typedef struct rep {
    int64_t id;
    double ts;
    char event[32];
    char f[17][160]; /* by the F_ index below (F_N of them: checked there) */
} rep_t;

enum {
    F_STREAM,
    F_ALGO,
    F_KEYHOST,
    F_TRIG,
    F_START,
    F_DIR,
    F_LEN,
    F_NAME,
    F_WATCH,
    F_SINCE,
    F_ACT,
    F_HOST,
    F_CULPRIT,
    F_SCORE,
    F_GUID,
    F_X,
    F_TIMEOUT,
    F_N
};
_Static_assert(F_N == sizeof((rep_t *)0)->f / sizeof((rep_t *)0)->f[0], "one slot a field");
static const char *const fname[F_N] = {
    "stream", "algo",     "key.host", "trig.event", "start.ts", "dir",  "len",   "name",   "watch",
    "since",  "activity", "host",     "culprit",    "score",    "guid", "x.min", "timeout"};

/* An open span: a start waiting for its end. */
typedef struct pend {
    rep_t r;
    int used;
} pend_t;

static double ts_of(const char *s)
{
    int64_t us;
    return s[0] && nl_ts_parse(s, strlen(s), &us) == 0 ? (double)us / 1e6 : NAN;
}

/* The activity of an event name: NAME of NAME.summary / .start / .end, else the name. */
static void activity_of(const char *ev, char *out, size_t cap)
{
    size_t alen;
    nl__event_kind(ev, strlen(ev), &alen);
    snprintf(out, cap, "%.*s", (int)alen, ev);
}

static int read_fields(nll_stmt_t *fv, nll_stmt_t *fi, int64_t id, rep_t *p, nll_err_t *err)
{
    for (int i = 0; i < F_N; i++) p->f[i][0] = 0;
    nll_stmt_t *s[2] = {fv, fi};
    for (int k = 0; k < 2; k++) {
        nll_sql_reset(s[k]);
        nll_sql_bind_int64(s[k], 1, id);
        int rc;
        while ((rc = nll_sql_step(s[k], err)) == 1) {
            const char *n = nll_sql_col_text(s[k], 0, NULL);
            const char *v = nll_sql_col_text(s[k], 1, NULL); /* "" for NULL */
            for (int i = 0; i < F_N; i++)
                if (!strcmp(n, fname[i])) snprintf(p->f[i], sizeof p->f[i], "%s", v);
        }
        if (rc < 0) return rc;
    }
    return 0;
}

/* Apply fn to every chart of `activity` (an exact name, or a glob with `glob`) on `host`
 * (every host if empty); how many charts it was laid on. */
static int each_chart(nlr_report_t *r, const char *activity, int glob, const char *host,
                      int (*fn)(nlr_chart_t *, const rep_t *, const void *), const rep_t *p,
                      const void *ctx, int *err)
{
    int n = 0;
    for (int i = 0; i < r->ncharts; i++) {
        nlr_chart_t *c = &r->charts[i];
        if (host[0] && strcmp(c->host, host)) continue;
        if (glob ? fnmatch(activity, c->activity, 0) != 0 : strcmp(activity, c->activity) != 0)
            continue;
        if (fn(c, p, ctx)) *err = NL_ENOMEM;
        n++;
    }
    return n;
}

typedef struct span_ctx {
    int kind;
    double t0, t1;
    int open;
} span_ctx_t;

static int put_span(nlr_chart_t *c, const rep_t *p, const void *ctx)
{
    const span_ctx_t *s = ctx;
    char label[200], detail[1024];
    if (s->kind == NLR_SPAN_EPISODE) {
        snprintf(label, sizeof label, "%s", p->f[F_ALGO][0] ? p->f[F_ALGO] : p->f[F_STREAM]);
        snprintf(detail, sizeof detail, "anomaly: stream %s, %s, %s%s%s", p->f[F_STREAM], label,
                 p->f[F_DIR][0] ? p->f[F_DIR] : "", p->f[F_LEN][0] ? ", values " : "", p->f[F_LEN]);
    } else { /* when it fired, not only the span of its condition (since= .. its end) */
        char fired[40];
        nlr_fmt_time(fired, sizeof fired, p->ts, 1);
        snprintf(label, sizeof label, "%s", p->f[F_NAME]);
        snprintf(detail, sizeof detail, "alert %s on %s: fired %s UTC; its condition held",
                 p->f[F_NAME], p->f[F_WATCH], fired);
    }
    return nlr_chart_span(c, s->kind, s->t0, s->t1, s->open, label, detail);
}

typedef struct mark_ctx {
    int kind;
    double t, t_from;
    const char *label, *detail;
} mark_ctx_t;

static int put_mark(nlr_chart_t *c, const rep_t *p, const void *ctx)
{
    const mark_ctx_t *m = ctx;
    int rc = nlr_chart_mark(c, m->kind, m->t, m->t_from, m->label, m->detail);
    if (!rc && m->kind == NLR_MARK_MISSING && p->f[F_GUID][0] &&
        !(c->marks[c->nmarks - 1].guid = nlr__dup(p->f[F_GUID])))
        rc = NL_ENOMEM;
    return rc;
}

/* 1 if a report about `host` concerns a host the options leave out (--host): neither drawn
 * nor counted (--host gw3 counted gw2's missing end). A report without a host concerns all. */
static int other_host(const nlr_report_t *r, const char *host)
{
    return host[0] && r->o->host_glob && fnmatch(r->o->host_glob, host, 0) != 0;
}

/* Lay a finished (or still open) episode or alert on its charts: how many, or -1 if it is
 * outside the window or on a host left out. */
static int lay_span(nlr_report_t *r, const rep_t *start, double t1, int open, int *err)
{
    span_ctx_t s = {start->f[F_WATCH][0] ? NLR_SPAN_ALERT : NLR_SPAN_EPISODE,
                    ts_of(start->f[start->f[F_WATCH][0] ? F_SINCE : F_START]), t1, open};
    if (isnan(s.t0)) s.t0 = start->ts;
    if (s.t1 < r->t0 || s.t0 > r->t1) return -1; /* outside the window */
    if (other_host(r, start->f[F_KEYHOST])) return -1;
    if (s.kind == NLR_SPAN_ALERT) {
        r->alerts++;
        return each_chart(r, start->f[F_WATCH], 1, start->f[F_KEYHOST], put_span, start, &s, err);
    }
    r->episodes++;
    char act[200];
    activity_of(start->f[F_TRIG], act, sizeof act);
    return each_chart(r, act, 0, start->f[F_KEYHOST], put_span, start, &s, err);
}

/* The host of a missing end: its start's host= field, found by GUID. */
static void start_host(nll_db_t *db, const rep_t *p, char *out, size_t cap)
{
    out[0] = 0;
    nll_stmt_t *st;
    nll_err_t err; /* no host found: the mark goes on every host's chart of the activity */
    if (nll_sql_prepare(db,
                        "SELECT h.value FROM ident g JOIN event s ON s.id = g.event_id "
                        "AND s.event = ?2 JOIN value h ON h.event_id = s.id AND h.name = "
                        "'host' WHERE g.name = 'guid' AND g.value = ?1 LIMIT 1",
                        &st, &err))
        return;
    char sev[200];
    snprintf(sev, sizeof sev, "%s.start", p->f[F_ACT]);
    nll_sql_bind_text(st, 1, p->f[F_GUID], strlen(p->f[F_GUID]));
    nll_sql_bind_text(st, 2, sev, strlen(sev));
    if (nll_sql_step(st, &err) == 1) snprintf(out, cap, "%s", nll_sql_col_text(st, 0, NULL));
    nll_sql_finalize(st);
}

/* Whether a missing end is a start the run's end cut off, not an incident: its host wrote
 * nothing after the start, and the archive ends within one timeout of the report (the run
 * stopped about when the end was due; a host hung alone goes on being silent while the
 * others log). A transfer that hangs while its host goes on logging is an incident. */
static int cut_off(nll_db_t *db, const nlr_report_t *r, const rep_t *p, const char *host,
                   double start)
{
    double timeout = p->f[F_TIMEOUT][0] ? strtod(p->f[F_TIMEOUT], NULL) : NAN;
    if (!host[0] || !isfinite(start) || !(timeout > 0) || r->t1 > p->ts + timeout) return 0;
    nll_stmt_t *st; /* a short scan: from the start to the archive's end, within 2 timeouts */
    nll_err_t err;
    if (nll_sql_prepare(db,
                        "SELECT 1 FROM event e JOIN value h ON h.event_id = e.id AND h.name "
                        "= 'host' AND h.value = ?1 WHERE e.ts > ?2 UNION ALL SELECT 1 FROM "
                        "summary WHERE host = ?1 AND ts > ?2 LIMIT 1",
                        &st, &err))
        return 0;
    nll_sql_bind_text(st, 1, host, strlen(host));
    nll_sql_bind_double(st, 2, start);
    int later = nll_sql_step(st, &err) == 1;
    nll_sql_finalize(st);
    return !later;
}

/* A missing end: a mark on its activity's chart for its host, made if that host completed
 * no pair at all (its only transfer hung) so the report is still seen; a start cut off by
 * the run's end gets a mark of its own, not counted as an incident. */
static int lay_missing(nll_db_t *db, nlr_report_t *r, const rep_t *p, int *err)
{
    if (p->ts < r->t0 || p->ts > r->t1) return 0;
    char host[160], detail[1024];
    start_host(db, p, host, sizeof host);
    if (other_host(r, host)) return -1; /* not counted, and not "unplaced" either */
    double start = ts_of(p->f[F_START]);
    int cut = cut_off(db, r, p, host, start);
    if (cut)
        r->cutoff++;
    else
        r->missing++;
    if (host[0] && !nlr_chart_find(r, p->f[F_ACT], host)) {
        int keep = 0;
        for (int i = 0; i < r->ncharts; i++) keep |= !strcmp(r->charts[i].activity, p->f[F_ACT]);
        if (keep && nlr__wanted(r->o, p->f[F_ACT], p->f[F_ACT], host)) {
            nlr_chart_t *c = nlr__chart_new(r, p->f[F_ACT], host, NLR_PAIRS);
            if (!c) return *err = NL_ENOMEM, 0;
            c->metric = "dur"; /* a pair chart with nothing plotted */
            c->unit = "s";
            c->ymin = 0;
            c->ymax = 1;
        }
    }
    if (cut)
        snprintf(detail, sizeof detail,
                 "cut off by the end of the run: %s started %s (guid %s); %s logged nothing "
                 "after it, and the archive ends within its timeout (%s s): no incident",
                 p->f[F_ACT], p->f[F_START], p->f[F_GUID], host, p->f[F_TIMEOUT]);
    else
        snprintf(detail, sizeof detail, "missing end: %s started %s (guid %s), not ended",
                 p->f[F_ACT], p->f[F_START], p->f[F_GUID]);
    mark_ctx_t m = {cut ? NLR_MARK_CUTOFF : NLR_MARK_MISSING, p->ts, start,
                    cut ? "cut off" : "missing", detail};
    return each_chart(r, p->f[F_ACT], 0, host, put_mark, p, &m, err);
}

/* A peer verdict: a row of the table, and a mark on the host's chart of the culprit
 * activity (every chart of the host if that activity has none). */
static int lay_peer(nlr_report_t *r, const rep_t *p, int *err)
{
    if (p->ts < r->t0 || p->ts > r->t1) return 0;
    if (other_host(r, p->f[F_HOST])) return -1;
    if (nlr_grow((void **)&r->peers, &r->cappeers, r->npeers + 1, sizeof *r->peers))
        return *err = NL_ENOMEM, 0;
    nlr_peer_t *v = &r->peers[r->npeers];
    v->t = p->ts;
    v->kind = strdup(p->event + 8); /* after "nl.peer." */
    v->host = strdup(p->f[F_HOST]);
    v->culprit = strdup(p->f[F_CULPRIT]);
    v->score = p->f[F_SCORE][0] ? strtod(p->f[F_SCORE], NULL) : NAN;
    if (!v->kind || !v->host || !v->culprit) {
        free(v->kind), free(v->host), free(v->culprit);
        return *err = NL_ENOMEM, 0;
    }
    r->npeers++;
    char act[160], detail[1024];
    snprintf(act, sizeof act, "%s", p->f[F_CULPRIT]);
    char *slash = strchr(act, '/');
    if (slash) *slash = 0;
    activity_of(act, act, sizeof act);
    snprintf(detail, sizeof detail, "nl-peers: %s %s%s%s", v->kind, v->host,
             v->culprit[0] ? ", culprit " : "", v->culprit);
    mark_ctx_t m = {NLR_MARK_PEER, p->ts, NAN, v->kind, detail};
    if (act[0] && each_chart(r, act, 0, v->host, put_mark, p, &m, err)) return 1;
    return each_chart(r, "*", 1, v->host, put_mark, p, &m, err);
}

static int by_time(const void *a, const void *b)
{
    const rep_t *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Match an end to its start: the same stream, algorithm (or alert name), key and start. */
static pend_t *match(pend_t *pend, int n, const rep_t *e)
{
    int alert = !strncmp(e->event, "nl.alert", 8);
    for (int i = n - 1; i >= 0; i--) {
        const rep_t *s = &pend[i].r;
        if (pend[i].used || strncmp(s->event, e->event, 8)) continue;
        if (alert ? strcmp(s->f[F_NAME], e->f[F_NAME]) || strcmp(s->f[F_SINCE], e->f[F_SINCE])
                  : strcmp(s->f[F_STREAM], e->f[F_STREAM]) || strcmp(s->f[F_ALGO], e->f[F_ALGO]) ||
                        strcmp(s->f[F_START], e->f[F_START]))
            continue;
        if (strcmp(s->f[F_KEYHOST], e->f[F_KEYHOST])) continue;
        return &pend[i];
    }
    return NULL;
}

int nlr_marks_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    nll_stmt_t *st = NULL, *fv = NULL, *fi = NULL;
    int rc = nll_sql_prepare(db, "SELECT id, ts, event FROM event WHERE id = ?1", &st, err);
    if (!rc)
        rc = nll_sql_prepare(db, "SELECT name, value FROM value WHERE event_id = ?1", &fv, err);
    if (!rc)
        rc = nll_sql_prepare(db, "SELECT name, value FROM ident WHERE event_id = ?1", &fi, err);
    if (rc) {
        nll_sql_finalize(st), nll_sql_finalize(fv), nll_sql_finalize(fi);
        return rc;
    }
    nll_sql_context(st, "reading reports");
    nll_sql_context(fv, "reading reports");
    nll_sql_context(fi, "reading reports");
    /* in time order, as they were written */
    rep_t *all = calloc((size_t)(r->nreports ? r->nreports : 1), sizeof *all);
    pend_t *pend = NULL;
    int npend = 0, cappend = 0, bad = all ? 0 : NL_ENOMEM, nall = 0;
    for (int i = 0; i < r->nreports && !bad; i++) {
        nll_sql_reset(st);
        nll_sql_bind_int64(st, 1, r->report_ids[i]);
        if ((rc = nll_sql_step(st, err)) != 1) break; /* 0: the row is gone (pruned since) */
        rep_t *p = &all[nall++];
        p->id = nll_sql_col_int64(st, 0);
        p->ts = nll_sql_col_double(st, 1);
        snprintf(p->event, sizeof p->event, "%s", nll_sql_col_text(st, 2, NULL));
        nll_sql_reset(st); /* PostgreSQL: one query at a time on a connection */
        if ((rc = read_fields(fv, fi, p->id, p, err))) break;
    }
    if (rc > 0) rc = 0;
    if (!bad && !rc) qsort(all, (size_t)nall, sizeof *all, by_time);
    for (int i = 0; i < nall && !bad && !rc; i++) {
        rep_t cur = all[i];
        const char *ev = cur.event;
        if (!strcmp(ev, "nl.anomaly.start") || !strcmp(ev, "nl.alert.start")) {
            if (nlr_grow((void **)&pend, &cappend, npend + 1, sizeof *pend)) {
                bad = NL_ENOMEM;
                break;
            }
            pend[npend++] = (pend_t){cur, 0};
        } else if (!strcmp(ev, "nl.anomaly.end") || !strcmp(ev, "nl.alert.end")) {
            pend_t *s = match(pend, npend, &cur);
            if (!s) {
                /* its start is older than the look back */
                if (cur.ts >= r->t0 && !other_host(r, cur.f[F_KEYHOST])) r->unplaced++;
                continue;
            }
            s->used = 1;
            if (lay_span(r, &s->r, cur.ts, 0, &bad) == 0 && !bad) r->unplaced++;
        } else if (!strcmp(ev, "nl.missing")) {
            if (!lay_missing(db, r, &cur, &bad) && !bad && cur.ts >= r->t0 && cur.ts <= r->t1)
                r->unplaced++;
        } else if (!lay_peer(r, &cur, &bad) && !bad && cur.ts >= r->t0) {
            r->unplaced++;
        }
    }
    /* starts not ended by the window's end: open spans */
    for (int i = 0; i < npend && !bad; i++)
        if (!pend[i].used && lay_span(r, &pend[i].r, r->t1, 1, &bad) == 0 && !bad) r->unplaced++;
    free(pend);
    free(all);
    nll_sql_finalize(st), nll_sql_finalize(fv), nll_sql_finalize(fi);
    if (bad) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    return rc; /* a failed query: err says where and why */
}
