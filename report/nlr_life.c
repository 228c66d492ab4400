/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_life.c — lifelines (NetLogger's nlv idea): every event of one GUID (or of one trace,
 * across its processes' GUIDs), across hosts, in time order. Which: the GUIDs asked for;
 * else the odd flows nl-flows reported, each beside the typical flow it was measured against
 * (what did this request do that the others did not?), and those of the window's
 * missing-end reports (what happened to the transfer that never ended?); else the slowest
 * pair's. A GUID's children (parent.guid) are read with it, and the events built into the
 * request's tree, in nlr_ltree.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_tree.h"
#include "nll_sql.h"
#include "nlr_int.h"

/* The events whose identity `name` (guid or trace.id) is `value`, in time order, appended to
 * l->ev (past NLR_LIFE_MAX: counted in l->more), each with its guid, parent.guid and span
 * ids for the tree. */
int nlr__life_events(nll_db_t *db, nlr_life_t *l, const char *name, const char *value,
                     nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db,
                             "SELECT e.ts, e.event, coalesce(h.value, s.host, ''), "
                             "coalesce(gg.value, ''), coalesce(pg.value, ''), "
                             "coalesce(sp.value, ''), coalesce(ps.value, '') FROM ident g "
                             "JOIN event e ON e.id = g.event_id "
                             "LEFT JOIN value h ON h.event_id = e.id AND h.name = 'host' "
                             "LEFT JOIN summary s ON s.event_id = e.id "
                             "LEFT JOIN ident gg ON gg.event_id = e.id AND gg.name = 'guid' "
                             "LEFT JOIN ident pg ON pg.event_id = e.id AND pg.name = 'parent.guid' "
                             "LEFT JOIN ident sp ON sp.event_id = e.id AND sp.name = 'span.id' "
                             "LEFT JOIN ident ps ON ps.event_id = e.id AND ps.name = 'parent.span.id' "
                             "WHERE g.name = ?2 AND g.value = ?1 ORDER BY e.ts, e.id",
                             &st, err);
    if (rc) return rc;
    nll_sql_context(st, "reading a lifeline");
    nll_sql_bind_text(st, 1, value, strlen(value));
    nll_sql_bind_text(st, 2, name, strlen(name));
    int cap = l->n;
    while ((rc = nll_sql_step(st, err)) == 1) {
        if (l->n >= NLR_LIFE_MAX) {
            l->more++;
            continue;
        }
        if (nlr_grow((void **)&l->ev, &cap, l->n + 1, sizeof *l->ev)) break;
        nlr_life_ev_t *e = &l->ev[l->n];
        memset(e, 0, sizeof *e);
        e->t = nll_sql_col_double(st, 0);
        size_t len;
        const char *sid = nll_sql_col_text(st, 5, &len);
        e->span = nl__tree_hex64(sid, len);
        const char *pid = nll_sql_col_text(st, 6, &len);
        e->pspan = nl__tree_hex64(pid, len);
        e->event = strdup(nll_sql_col_text(st, 1, NULL));
        e->host = strdup(nll_sql_col_text(st, 2, NULL));
        e->guid = strdup(nll_sql_col_text(st, 3, NULL));
        e->pguid = strdup(nll_sql_col_text(st, 4, NULL));
        e->pspan_id = strdup(pid);
        if (!e->event || !e->host || !e->guid || !e->pguid || !e->pspan_id) {
            nlr__life_ev_free(e);
            break;
        }
        l->n++;
    }
    nll_sql_finalize(st);
    if (rc == 1) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    return rc; /* 0, or a failed query: err says where and why */
}

void nlr__life_ev_free(nlr_life_ev_t *e)
{
    free(e->host), free(e->event), free(e->guid), free(e->pguid), free(e->pspan_id);
}

/* One lifeline: its GUID's events and its children's (or the trace's), then its tree. */
static int read_one(nll_db_t *db, nlr_life_t *l, nll_err_t *err)
{
    int rc = nlr__life_events(db, l, l->by_trace ? "trace.id" : "guid", l->guid, err);
    if (!rc && !l->by_trace) rc = nlr__life_children(db, l, err);
    if (!rc) rc = nlr__life_tree(db, l, err);
    return rc;
}

static int add_by(nlr_report_t *r, const char *guid, int by_trace, const char *why)
{
    for (int i = 0; i < r->nlife; i++)
        if (!strcmp(r->life[i].guid, guid) && r->life[i].by_trace == by_trace) return 0;
    if (r->nlife >= (int)(sizeof r->life / sizeof r->life[0])) return 0;
    nlr_life_t *l = &r->life[r->nlife];
    memset(l, 0, sizeof *l);
    l->guid = strdup(guid);
    l->why = strdup(why);
    l->by_trace = by_trace;
    if (!l->guid || !l->why) {
        free(l->guid), free(l->why);
        return NL_ENOMEM;
    }
    r->nlife++;
    return 0;
}

static int add(nlr_report_t *r, const char *guid, const char *why)
{
    return add_by(r, guid, 0, why);
}

/* The odd flows of nl-flows' suspect reports in the window, the two of highest score, each
 * followed by its typical flow: by trace id where the report has one, else by root GUID. */
static int odd_flows(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(
        db,
        "SELECT coalesce(g.value, ''), coalesce(t.value, ''), coalesce(tg.value, ''), "
        "coalesce(tt.value, ''), coalesce(sc.num, 0), coalesce(CAST(p.value AS TEXT), ''), "
        "coalesce(CAST(rt.value AS TEXT), '') FROM event e "
        "LEFT JOIN ident g ON g.event_id = e.id AND g.name = 'guid' "
        "LEFT JOIN ident t ON t.event_id = e.id AND t.name = 'trace.id' "
        "LEFT JOIN value tg ON tg.event_id = e.id AND tg.name = 'typical.guid' "
        "LEFT JOIN ident tt ON tt.event_id = e.id AND tt.name = 'typical.trace.id' "
        "LEFT JOIN value sc ON sc.event_id = e.id AND sc.name = 'score' "
        "LEFT JOIN value p ON p.event_id = e.id AND p.name = 'path' "
        "LEFT JOIN value rt ON rt.event_id = e.id AND rt.name = 'root' "
        "WHERE e.event = 'nl.flow.suspect' AND e.ts >= ?1 AND e.ts <= ?2 "
        "ORDER BY sc.num IS NULL, sc.num DESC, e.ts LIMIT 2", /* NULLs last on both */
        &st, err);
    if (rc) return rc;
    nll_sql_context(st, "reading nl-flows' reports");
    nll_sql_bind_double(st, 1, r->t0);
    nll_sql_bind_double(st, 2, r->t1);
    int bad = 0;
    while (!bad && (rc = nll_sql_step(st, err)) == 1) {
        double score = nll_sql_col_double(st, 4); /* before the texts: no conversion after */
        const char *c[7];
        for (int i = 0; i < 7; i++) c[i] = i == 4 ? "" : nll_sql_col_text(st, i, NULL);
        char why[600];
        int odd_trace = c[1][0] != '\0', typ_trace = c[3][0] != '\0';
        if (!c[0][0] && !odd_trace) continue;
        snprintf(why, sizeof why, "an odd %s flow (nl-flows: score %.3g, differs most in %s)", c[6],
                 score, c[5]);
        bad = add_by(r, odd_trace ? c[1] : c[0], odd_trace, why);
        if (!bad && (typ_trace || c[2][0])) {
            snprintf(why, sizeof why,
                     "a typical %s flow, the one the odd flow above was measured "
                     "against",
                     c[6]);
            bad = add_by(r, typ_trace ? c[3] : c[2], typ_trace, why);
        }
    }
    nll_sql_finalize(st);
    if (bad) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    return rc < 0 ? rc : 0; /* a failed query: err says where and why */
}

/* Up to three GUIDs of the missing ends laid on the charts, earliest first: the hosts
 * asked for only, and no start the run's end cut off (they are no incident to follow). */
static int missing_guids(nlr_report_t *r)
{
    for (int k = 0; k < 3; k++) {
        const nlr_chart_t *best_c = NULL;
        const nlr_mark_t *best = NULL;
        for (int i = 0; i < r->ncharts; i++)
            for (int j = 0; j < r->charts[i].nmarks; j++) {
                const nlr_mark_t *m = &r->charts[i].marks[j];
                int taken = 0;
                for (int l = 0; m->guid && l < r->nlife; l++)
                    taken |= !strcmp(r->life[l].guid, m->guid);
                if (m->kind != NLR_MARK_MISSING || !m->guid || taken) continue;
                if (!best || m->t < best->t) best = m, best_c = &r->charts[i];
            }
        if (!best) return 0;
        char why[300];
        snprintf(why, sizeof why, "a %s that never ended (nl.missing)", best_c->activity);
        if (add(r, best->guid, why)) return NL_ENOMEM;
    }
    return 0;
}

int nlr_life_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err)
{
    int rc = 0;
    for (int i = 0; i < r->o->nguids && !rc; i++) rc = add(r, r->o->guids[i], "asked for");
    int asked = r->nlife > 0;
    if (!rc && !asked) rc = odd_flows(db, r, err);
    if (!rc && !asked) rc = missing_guids(r);
    if (!rc && !r->nlife) { /* the slowest pair of any chart */
        const nlr_chart_t *slow = NULL;
        for (int i = 0; i < r->ncharts; i++)
            if (r->charts[i].slowest_guid && (!slow || r->charts[i].slowest > slow->slowest))
                slow = &r->charts[i];
        if (slow) {
            char why[300];
            snprintf(why, sizeof why, "the slowest %s (%.3g s, on %s)", slow->activity,
                     slow->slowest, slow->host[0] ? slow->host : "no host");
            rc = add(r, slow->slowest_guid, why);
        }
    }
    if (rc == NL_ENOMEM) snprintf(err->msg, sizeof err->msg, "out of memory");
    for (int i = 0; i < r->nlife && !rc; i++) rc = read_one(db, &r->life[i], err);
    return rc;
}
