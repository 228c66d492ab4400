/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_ltree.c — a lifeline's request tree: its GUID's children (events whose parent.guid is
 * it, recursively) read with it, and all its events built into the tree nl-flows builds
 * (internal/nl_tree.h: start/end pairs nested per GUID, a child GUID under its parent's
 * activity that encloses it in time), then laid out as rows, depth first, each child
 * under its parent. A GUID whose parent is not in the archive is an orphan: a root of its
 * own, said so, never dropped. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_map.h"
#include "nl_tree.h"
#include "nlr_int.h"

/* A string kept with the lifeline (its rows and dots point into these); NULL if out of
 * memory. */
static char *keep(nlr_life_t *l, const char *s)
{
    if (nlr_grow((void **)&l->strs, &l->capstrs, l->nstrs + 1, sizeof *l->strs)) return NULL;
    char *c = strdup(s);
    if (c) l->strs[l->nstrs++] = c;
    return c;
}

/* The child GUIDs of `parent` (events whose parent.guid is it; an identity field, so an
 * indexed lookup), each not yet in `seen` added to it and to the queue, and its events read
 * into the lifeline; past NLR_LIFE_GUIDS counted. */
static int children_of(nll_db_t *db, nll_stmt_t *st, nlr_life_t *l, const char *parent,
                       nl__map_t *seen, char ***queue, int *nq, int *capq, nll_err_t *err)
{
    nll_sql_reset(st);
    nll_sql_bind_text(st, 1, parent, strlen(parent));
    int rc, from = *nq;
    while ((rc = nll_sql_step(st, err)) == 1) {
        const char *g = nll_sql_col_text(st, 0, NULL);
        size_t gl = strlen(g);
        if (nl__map_get(seen, g, gl)) continue;
        if (l->children + (*nq - from) >= NLR_LIFE_GUIDS) {
            l->guids_more++;
            if (!nl__map_put(seen, g, gl, l)) return nlr__oom(err);
            continue;
        }
        if (nlr_grow((void **)queue, capq, *nq + 1, sizeof **queue) ||
            !((*queue)[*nq] = strdup(g)) || !nl__map_put(seen, g, gl, l))
            return nlr__oom(err);
        (*nq)++;
    }
    if (rc < 0) return rc; /* err says where and why */
    for (int i = from; i < *nq && !rc; i++) { /* after the step: one statement at a time */
        l->children++;
        rc = nlr__life_events(db, l, "guid", (*queue)[i], err);
    }
    return rc;
}

int nlr__life_children(nll_db_t *db, nlr_life_t *l, nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db,
                             "SELECT DISTINCT g.value FROM ident p "
                             "JOIN ident g ON g.event_id = p.event_id AND g.name = 'guid' "
                             "WHERE p.name = 'parent.guid' AND p.value = ?1 AND g.value <> ?1 "
                             "ORDER BY g.value",
                             &st, err);
    if (rc) return rc;
    nll_sql_context(st, "looking for a lifeline's child GUIDs");
    nl__map_t seen;
    nl__map_init(&seen, 0x5ee1);
    char **queue = NULL;
    int nq = 0, capq = 0;
    if (!nl__map_put(&seen, l->guid, strlen(l->guid), l)) rc = nlr__oom(err);
    /* breadth first from the lifeline's GUID: each child once (a loop of parents too) */
    if (!rc) rc = children_of(db, st, l, l->guid, &seen, &queue, &nq, &capq, err);
    for (int head = 0; head < nq && !rc; head++)
        rc = children_of(db, st, l, queue[head], &seen, &queue, &nq, &capq, err);
    nll_sql_finalize(st);
    for (int i = 0; i < nq; i++) free(queue[i]);
    free(queue);
    nl__map_free(&seen);
    return rc;
}

/* ---- the tree ----------------------------------------------------------------------------- */

typedef struct build {
    nlr_life_t *l;
    nl__map_t guids, acts;
    nl__tree_guid_t *gv;
    const char **gname, **gpspan; /* kept strings: its name, its parent.span.id as written */
    int ng, capg, capgn, capgs;
    const char **aname, **ahost; /* an activity: its name and host (kept strings) */
    int na, capa, capah;
} build_t;

/* A guid's index, made on first sight (NL_TREE_NONE out of memory). */
static uint32_t guid_of(build_t *b, const char *g)
{
    size_t len = strlen(g);
    uintptr_t v = (uintptr_t)nl__map_get(&b->guids, g, len);
    if (v) return (uint32_t)(v - 1);
    const char *k = keep(b->l, g);
    if (!k || nlr_grow((void **)&b->gv, &b->capg, b->ng + 1, sizeof *b->gv) ||
        nlr_grow((void **)&b->gname, &b->capgn, b->ng + 1, sizeof *b->gname) ||
        nlr_grow((void **)&b->gpspan, &b->capgs, b->ng + 1, sizeof *b->gpspan) ||
        !nl__map_put(&b->guids, g, len, (void *)(uintptr_t)(b->ng + 1)))
        return NL_TREE_NONE;
    b->gv[b->ng] = (nl__tree_guid_t){.parent = NL_TREE_NONE};
    b->gname[b->ng] = k;
    b->gpspan[b->ng] = "";
    return (uint32_t)b->ng++;
}

/* An activity (name on a host) as one index: a start and its end share it. */
static uint32_t act_of(build_t *b, const char *name, size_t len, const char *host)
{
    char key[1200];
    size_t hl = strlen(host);
    if (len + hl + 1 >= sizeof key) len = sizeof key - hl - 2; /* names that long: cut */
    memcpy(key, name, len);
    key[len] = '\0';
    memcpy(key + len + 1, host, hl);
    uintptr_t v = (uintptr_t)nl__map_get(&b->acts, key, len + 1 + hl);
    if (v) return (uint32_t)(v - 1);
    const char *kn = keep(b->l, key), *kh = keep(b->l, host);
    if (!kn || !kh || nlr_grow((void **)&b->aname, &b->capa, b->na + 1, sizeof *b->aname) ||
        nlr_grow((void **)&b->ahost, &b->capah, b->na + 1, sizeof *b->ahost) ||
        !nl__map_put(&b->acts, key, len + 1 + hl, (void *)(uintptr_t)(b->na + 1)))
        return NL_TREE_NONE;
    b->aname[b->na] = kn;
    b->ahost[b->na] = kh;
    return (uint32_t)b->na++;
}

typedef struct at {
    double t;
    int i;
} at_t;

/* By time, then as read (each GUID's events came in time and row order). */
static int by_time(const void *x, const void *y)
{
    const at_t *a = x, *b = y;
    if (a->t != b->t) return (a->t > b->t) - (a->t < b->t);
    return (a->i > b->i) - (a->i < b->i);
}

/* Sort the events by time, stably. 0 or NL_ENOMEM. */
static int sort_events(nlr_life_t *l)
{
    at_t *at = malloc(sizeof *at * (size_t)l->n);
    nlr_life_ev_t *ev = malloc(sizeof *ev * (size_t)l->n);
    if (!at || !ev) {
        free(at), free(ev);
        return NL_ENOMEM;
    }
    for (int i = 0; i < l->n; i++) at[i] = (at_t){l->ev[i].t, i};
    qsort(at, (size_t)l->n, sizeof *at, by_time);
    for (int i = 0; i < l->n; i++) ev[i] = l->ev[at[i].i];
    free(l->ev);
    free(at);
    l->ev = ev;
    return 0;
}

/* 1 if the archive holds an event whose identity `name` (guid, span.id) is `value`, 0 if
 * not, < 0 a failed query. */
static int ident_known(nll_db_t *db, const char *name, const char *value, nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db, "SELECT 1 FROM ident WHERE name = ?2 AND value = ?1 LIMIT 1",
                             &st, err);
    if (rc) return rc;
    nll_sql_context(st, "looking for a lifeline's parent");
    nll_sql_bind_text(st, 1, value, strlen(value));
    nll_sql_bind_text(st, 2, name, strlen(name));
    rc = nll_sql_step(st, err);
    nll_sql_finalize(st);
    return rc;
}

/* What a GUID the tree calls an orphan lacks: a parent (its parent.guid, else the span its
 * parent.span.id names) missing from the archive (an orphan), or one that is there but
 * outside this lifeline (the lifeline of a child: not an orphan). The note is kept;
 * *orphan says which. */
static int orphan_note(nll_db_t *db, build_t *b, uint32_t g, const char **note, int *orphan,
                       nll_err_t *err)
{
    char text[600];
    int by_guid = b->gv[g].parent != NL_TREE_NONE;
    const char *p = by_guid ? b->gname[b->gv[g].parent] : b->gpspan[g];
    const char *field = by_guid ? "parent.guid" : "parent.span.id";
    int known = ident_known(db, by_guid ? "guid" : "span.id", p, err);
    if (known < 0) return known;
    *orphan = !known;
    if (known)
        snprintf(text, sizeof text, "a child of %s %s, whose lifeline is not drawn here",
                 by_guid ? "guid" : "span", p);
    else
        snprintf(text, sizeof text, "orphan: its %s %s is not in the archive", field, p);
    return (*note = keep(b->l, text)) ? 0 : nlr__oom(err);
}

/* Rows, depth first: each node's children in start order under it; point events with no
 * activity around them get a row per GUID and name. Rows past NLR_LIFE_ROWS are counted. */
static int lay_out(nll_db_t *db, build_t *b, const nl__tree_t *t, nll_err_t *err)
{
    nlr_life_t *l = b->l;
    uint32_t nn = t->nn;
    size_t sz = sizeof(int32_t) * (nn + 1);
    int32_t *first = malloc(sz), *last = malloc(sz), *next = malloc(sz), *order = malloc(sz),
            *stack = malloc(sz), *row = malloc(sz), *lead = malloc(sz);
    int rc = 0, total = 0;
    if (!first || !last || !next || !order || !stack || !row || !lead) {
        rc = nlr__oom(err);
        goto out;
    }
    for (uint32_t i = 0; i <= nn; i++) first[i] = last[i] = -1;
    for (uint32_t i = 0; i < nn; i++) order[i] = lead[i] = (int32_t)i, row[i] = -1;
    for (uint32_t i = 1; i < nn; i++) /* by start, stable (insertion: nearly sorted) */
        for (uint32_t j = i; j > 0 && t->nd[order[j]].start < t->nd[order[j - 1]].start; j--) {
            int32_t x = order[j];
            order[j] = order[j - 1], order[j - 1] = x;
        }
    /* a point with no activity around it: its row leader is the first of its GUID and name */
    for (uint32_t a = 0; a < nn; a++) {
        const nl__tree_node_t *x = &t->nd[order[a]];
        if (!x->point || x->parent >= 0) continue;
        for (uint32_t c = 0; c < a; c++) {
            const nl__tree_node_t *y = &t->nd[order[c]];
            if (y->point && y->parent < 0 && y->g == x->g && y->act == x->act) {
                lead[order[a]] = lead[order[c]];
                break;
            }
        }
    }
    /* each row's children in start order (first/next); slot nn holds the roots */
    for (uint32_t a = 0; a < nn; a++) {
        int32_t i = order[a];
        const nl__tree_node_t *x = &t->nd[i];
        if (x->point && (x->parent >= 0 || lead[i] != i)) continue; /* a dot on another row */
        int32_t p = x->parent >= 0 ? x->parent : (int32_t)nn;
        next[i] = -1;
        if (last[p] >= 0) next[last[p]] = i;
        else first[p] = i;
        last[p] = i;
        total++;
    }
    int sp = 0, cap = 0;
    for (int32_t i = first[nn]; i >= 0; i = next[i]) sp++;
    for (int32_t i = first[nn], k = sp - 1; i >= 0; i = next[i], k--) stack[k] = i;
    while (sp > 0 && !rc && l->nrows < NLR_LIFE_ROWS) {
        int32_t i = stack[--sp];
        const nl__tree_node_t *x = &t->nd[i];
        if (nlr_grow((void **)&l->rows, &cap, l->nrows + 1, sizeof *l->rows)) {
            rc = nlr__oom(err);
            break;
        }
        row[i] = l->nrows;
        int parent = x->parent >= 0 ? row[x->parent] : -1;
        l->rows[l->nrows++] = (nlr_life_row_t){
            .t0 = (double)x->start / 1e6, .t1 = (double)x->end / 1e6,
            .name = (char *)b->aname[x->act], .host = (char *)b->ahost[x->act],
            .guid = (char *)b->gname[x->g], .open = x->open, .point = x->point,
            .parent = parent, .depth = parent >= 0 ? l->rows[parent].depth + 1 : 0};
        if (x->parent < 0 && t->gs[x->g].orphan) {
            const char *note = NULL;
            int orphan = 0;
            rc = orphan_note(db, b, x->g, &note, &orphan, err);
            l->rows[l->nrows - 1].note = (char *)note;
            l->rows[l->nrows - 1].orphan = orphan;
        }
        int nk = 0; /* its children, the earliest on top of the stack */
        for (int32_t c = first[i]; c >= 0; c = next[c]) nk++;
        for (int32_t c = first[i], k = sp + nk - 1; c >= 0; c = next[c], k--) stack[k] = c;
        sp += nk;
    }
    l->rows_more = total - l->nrows;
    /* the dots: a start and an end on its activity's row; a point on the row of the activity
     * around it, or on its leader's */
    int capd = 0;
    for (uint32_t i = 0; i < nn && !rc; i++) {
        const nl__tree_node_t *x = &t->nd[i];
        int r = !x->point ? row[i] : x->parent >= 0 ? row[x->parent] : row[lead[i]];
        if (r < 0) continue; /* its row is past NLR_LIFE_ROWS */
        if (nlr_grow((void **)&l->dots, &capd, l->ndots + 2, sizeof *l->dots)) {
            rc = nlr__oom(err);
            break;
        }
        l->dots[l->ndots++] = (nlr_life_dot_t){(double)x->start / 1e6, r,
                                               x->point ? NL_KIND_OTHER : NL_KIND_START,
                                               b->aname[x->act], b->ahost[x->act]};
        if (!x->point && !x->open) /* an open one's end is where it was cut: no event */
            l->dots[l->ndots++] = (nlr_life_dot_t){(double)x->end / 1e6, r, NL_KIND_END,
                                                   b->aname[x->act], b->ahost[x->act]};
    }
out:
    free(first), free(last), free(next), free(order), free(stack), free(row), free(lead);
    return rc;
}

int nlr__life_tree(nll_db_t *db, nlr_life_t *l, nll_err_t *err)
{
    if (!l->n) return 0;
    if (sort_events(l)) return nlr__oom(err);
    build_t b = {.l = l};
    nl__map_init(&b.guids, 0x6e1d);
    nl__map_init(&b.acts, 0xac75);
    nl__tree_ev_t *tev = malloc(sizeof *tev * (size_t)l->n);
    int rc = tev ? 0 : NL_ENOMEM;
    for (int i = 0; i < l->n && !rc; i++) {
        const nlr_life_ev_t *e = &l->ev[i];
        uint32_t g = guid_of(&b, e->guid);
        size_t alen, len = strlen(e->event);
        int kind = nl__event_kind(e->event, len, &alen);
        if (kind == NL_KIND_SUMMARY) kind = NL_KIND_OTHER, alen = len; /* a point here */
        uint32_t a = g == NL_TREE_NONE ? g : act_of(&b, e->event, alen, e->host);
        if (a == NL_TREE_NONE) {
            rc = NL_ENOMEM;
            break;
        }
        nl__tree_guid_t *gv = &b.gv[g];
        gv->nev++;
        if (!gv->span) gv->span = e->span;
        if (!gv->pspan && e->pspan) {
            gv->pspan = e->pspan;
            if (!(b.gpspan[g] = keep(l, e->pspan_id))) {
                rc = NL_ENOMEM;
                break;
            }
        }
        if (e->pguid[0] && strcmp(e->pguid, e->guid) && gv->parent == NL_TREE_NONE) {
            uint32_t p = guid_of(&b, e->pguid); /* may move b.gv */
            if (p == NL_TREE_NONE) {
                rc = NL_ENOMEM;
                break;
            }
            b.gv[g].parent = p;
        }
        tev[i] = (nl__tree_ev_t){.ts = llround(e->t * 1e6), .g = g, .act = a,
                                 .seq = (uint32_t)i, .kind = (uint8_t)kind};
    }
    nl__tree_t t = {0};
    nl__tree_counts_t tc = {0};
    if (!rc && nl__tree_build(&t, tev, (size_t)l->n, b.gv, (uint32_t)b.ng, &tc)) rc = NL_ENOMEM;
    if (rc == NL_ENOMEM)
        nlr__oom(err);
    else
        rc = lay_out(db, &b, &t, err);
    nl__tree_free(&t);
    free(tev);
    free(b.gv), free(b.gname), free(b.gpspan), free(b.aname), free(b.ahost);
    nl__map_free(&b.guids);
    nl__map_free(&b.acts);
    return rc;
}

void nlr__life_free(nlr_life_t *l)
{
    free(l->guid);
    free(l->why);
    for (int j = 0; j < l->n; j++) nlr__life_ev_free(&l->ev[j]);
    free(l->ev);
    free(l->rows);
    free(l->dots);
    for (int j = 0; j < l->nstrs; j++) free(l->strs[j]);
    free(l->strs);
}
