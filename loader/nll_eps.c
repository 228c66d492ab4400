/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_eps.c — the anomaly episodes nl-detect wrote into the archive (nl.anomaly.start and
 * nl.anomaly.end lines, stored as any event), so a baseline can leave out what the fault
 * did: an episode runs from its start.ts to its end line's time, or on without end while
 * its end is not (yet) in the archive, and concerns the values of its key (key.host=gw2:
 * the summaries of host gw2) and of the event that triggered it (trig.event, when its start
 * line is there). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"
#include "nll_sql.h"

typedef struct ep {
    double t0, t1; /* start.ts; the end line's ts, or INFINITY while open */
    char *event;   /* trig.event, or NULL (the start is not in the archive): any event */
    char *stream, *algo, *start; /* what pairs an end with its start */
    int nkeys;
    char **kname, **kval; /* key fields without their "key." prefix */
} ep_t;

struct nll_eps {
    ep_t *e;
    int n, cap;
    char *names[NLL_EPS_NAMES]; /* the key names other than host, each once */
    int nnames;
};

static void ep_free(ep_t *e)
{
    free(e->event), free(e->stream), free(e->algo), free(e->start);
    for (int i = 0; i < e->nkeys; i++) free(e->kname[i]), free(e->kval[i]);
    free(e->kname), free(e->kval);
}

void nll_eps_free(nll_eps_t *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) ep_free(&s->e[i]);
    for (int i = 0; i < s->nnames; i++) free(s->names[i]);
    free(s->e);
    free(s);
}

int nll_eps_count(const nll_eps_t *s) { return s ? s->n : 0; }

int nll_eps_names(const nll_eps_t *s, const char *const **names)
{
    *names = s ? (const char *const *)s->names : NULL;
    return s ? s->nnames : 0;
}

/* One report's fields (its value and ident rows) into e; 0, NL_ENOMEM or an archive error. */
static int read_ep(nll_stmt_t *const fq[2], int64_t id, ep_t *e, nll_err_t *err)
{
    for (int k = 0; k < 2; k++) {
        nll_sql_reset(fq[k]);
        nll_sql_bind_int64(fq[k], 1, id);
        int rc;
        while ((rc = nll_sql_step(fq[k], err)) == 1) {
            const char *n = nll_sql_col_text(fq[k], 0, NULL);
            const char *v = nll_sql_col_text(fq[k], 1, NULL); /* "" for NULL */
            char **to = !strcmp(n, "stream")       ? &e->stream
                        : !strcmp(n, "algo")       ? &e->algo
                        : !strcmp(n, "start.ts")   ? &e->start
                        : !strcmp(n, "trig.event") ? &e->event
                                                   : NULL;
            if (to) {
                if (!*to && !(*to = strdup(v))) return NL_ENOMEM;
                continue;
            }
            if (strncmp(n, "key.", 4) || !n[4]) continue;
            char **kn = realloc(e->kname, sizeof *kn * (size_t)(e->nkeys + 1));
            if (kn) e->kname = kn;
            char **kv = realloc(e->kval, sizeof *kv * (size_t)(e->nkeys + 1));
            if (kv) e->kval = kv;
            if (!kn || !kv) return NL_ENOMEM;
            if (!(e->kname[e->nkeys] = strdup(n + 4))) return NL_ENOMEM;
            if (!(e->kval[e->nkeys] = strdup(v))) {
                free(e->kname[e->nkeys]);
                return NL_ENOMEM;
            }
            e->nkeys++;
        }
        nll_sql_reset(fq[k]); /* PostgreSQL: one query at a time on a connection */
        if (rc < 0) return rc;
    }
    return 0;
}

static int same(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* Whether end e closes start s: the same stream, algorithm, first flag and key. */
static int pairs(const ep_t *s, const ep_t *e)
{
    if (!same(s->stream, e->stream) || !same(s->algo, e->algo) || !same(s->start, e->start) ||
        s->nkeys != e->nkeys)
        return 0;
    for (int i = 0; i < s->nkeys; i++)
        if (strcmp(s->kname[i], e->kname[i]) || strcmp(s->kval[i], e->kval[i])) return 0;
    return 1;
}

/* Remember key name n (other than host) for the value queries; NL_EINVAL past the limit. */
static int add_name(nll_eps_t *s, const char *n, nll_err_t *err)
{
    if (!strcmp(n, "host")) return 0;
    for (int i = 0; i < s->nnames; i++)
        if (!strcmp(s->names[i], n)) return 0;
    if (s->nnames == NLL_EPS_NAMES) {
        snprintf(err->msg, sizeof err->msg,
                 "anomaly episodes: more than %d key fields other than host (key.%s)",
                 NLL_EPS_NAMES, n);
        return NL_EINVAL;
    }
    return (s->names[s->nnames++] = strdup(n)) ? 0 : NL_ENOMEM;
}

typedef struct row {
    int64_t id;
    double ts;
    int end;
} row_t;

static int by_time(const void *a, const void *b)
{
    const row_t *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts ? 1 : (x->id > y->id) - (x->id < y->id);
}

/* The reports first (one query at a time on PostgreSQL), then each one's fields; starts
 * paired with their ends in time order. The archive has no index by event name: this is
 * one scan of the event table. */
int nll_eps_read(nll_db_t *db, nll_eps_t **out, nll_err_t *err)
{
    nll_stmt_t *st = NULL, *fq[2] = {NULL, NULL};
    row_t *rows = NULL;
    int nrows = 0, caprows = 0, rc, bad = 0;
    nll_eps_t *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) goto oom;
    rc = nll_sql_prepare(db,
                         "SELECT id, ts, event FROM event WHERE event = 'nl.anomaly.start' OR "
                         "event = 'nl.anomaly.end'",
                         &st, err);
    if (rc) goto fail;
    nll_sql_context(st, "reading anomaly episodes");
    while ((rc = nll_sql_step(st, err)) == 1) {
        if (nrows == caprows) {
            int cap = caprows ? 2 * caprows : 64;
            row_t *g = realloc(rows, sizeof *g * (size_t)cap);
            if (!g) {
                bad = 1;
                break;
            }
            rows = g, caprows = cap;
        }
        rows[nrows++] = (row_t){nll_sql_col_int64(st, 0), nll_sql_col_double(st, 1),
                                !strcmp(nll_sql_col_text(st, 2, NULL), "nl.anomaly.end")};
    }
    nll_sql_finalize(st);
    if (bad) goto oom;
    if (rc < 0) goto fail;
    if (nrows) qsort(rows, (size_t)nrows, sizeof *rows, by_time);
    if ((rc = nll_sql_prepare(db, "SELECT name, value FROM value WHERE event_id = ?1", &fq[0],
                              err)) ||
        (rc =
             nll_sql_prepare(db, "SELECT name, value FROM ident WHERE event_id = ?1", &fq[1], err)))
        goto fail;
    nll_sql_context(fq[0], "reading anomaly episodes");
    nll_sql_context(fq[1], "reading anomaly episodes");
    for (int i = 0; i < nrows; i++) {
        ep_t e = {.t1 = INFINITY};
        if ((rc = read_ep(fq, rows[i].id, &e, err))) {
            ep_free(&e);
            if (rc == NL_ENOMEM) goto oom;
            goto fail;
        }
        int64_t us;
        if (!e.start || nl_ts_parse(e.start, strlen(e.start), &us)) { /* not nl-detect's */
            ep_free(&e);
            continue;
        }
        e.t0 = (double)us / 1e6;
        if (rows[i].end) { /* closes the newest open start it pairs with */
            ep_t *open = NULL;
            for (int j = s->n - 1; j >= 0 && !open; j--)
                if (isinf(s->e[j].t1) && pairs(&s->e[j], &e)) open = &s->e[j];
            if (open) {
                open->t1 = rows[i].ts;
                ep_free(&e);
                continue;
            }
            e.t1 = rows[i].ts; /* its start is not in the archive: any event of the key */
            free(e.event);
            e.event = NULL;
        }
        for (int k = 0; k < e.nkeys; k++)
            if ((rc = add_name(s, e.kname[k], err))) {
                ep_free(&e);
                if (rc == NL_ENOMEM) goto oom;
                goto fail;
            }
        if (s->n == s->cap) {
            int cap = s->cap ? 2 * s->cap : 16;
            ep_t *g = realloc(s->e, sizeof *g * (size_t)cap);
            if (!g) {
                ep_free(&e);
                goto oom;
            }
            s->e = g, s->cap = cap;
        }
        s->e[s->n++] = e;
    }
    nll_sql_finalize(fq[0]), nll_sql_finalize(fq[1]);
    free(rows);
    *out = s;
    return 0;
oom:
    snprintf(err->msg, sizeof err->msg, "out of memory reading anomaly episodes");
    rc = NL_ENOMEM;
fail:
    nll_sql_finalize(fq[0]), nll_sql_finalize(fq[1]);
    free(rows);
    nll_eps_free(s);
    return rc;
}

int nll_eps_covers(const nll_eps_t *s, const char *event, double ts, const char *host,
                   const char *const *vals)
{
    for (int i = 0; s && i < s->n; i++) {
        const ep_t *e = &s->e[i];
        if (ts < e->t0 || ts > e->t1 || (e->event && event && strcmp(e->event, event))) continue;
        int k = 0;
        for (; k < e->nkeys; k++) {
            const char *v = NULL;
            if (!strcmp(e->kname[k], "host")) {
                v = host;
            } else {
                for (int j = 0; j < s->nnames; j++)
                    if (!strcmp(s->names[j], e->kname[k])) v = vals ? vals[j] : NULL;
            }
            if (!same(v, e->kval[k])) break; /* a field the value lacks is "" in the key */
        }
        if (k == e->nkeys) return 1;
    }
    return 0;
}
