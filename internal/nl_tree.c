/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_tree.c — a request's activity tree (the rules are in nl_tree.h): start/end pairs nest
 * per guid, each guid's parent is resolved (parent.guid, else parent.span.id), loops are
 * cut, and a child guid's top activities hang under the parent's activity that encloses it
 * in time. Moved here from nl-flows (flows/nlf_tree.c keeps its paths and profiles), so
 * nl-report's lifelines draw the tree nl-flows compares. */
#include "nl_tree.h"

#include <stdlib.h>

#include "nl_line.h"
#include "nl_map.h"

static int by_guid_time(const void *x, const void *y)
{
    const nl__tree_ev_t *a = x, *b = y;
    if (a->g != b->g) return a->g < b->g ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

uint64_t nl__tree_hex64(const char *s, size_t len)
{
    if (!s || !len || len > 16) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return 0;
        v = v << 4 | (uint64_t)d;
    }
    return v;
}

/* Nest one guid's events (sorted by time) into nodes: start pushes, end pops its start
 * (what was opened above it stays open), anything else is a point under the innermost. */
static void nest(nl__tree_counts_t *c, const nl__tree_ev_t *ev, size_t n, nl__tree_node_t *nd,
                 uint32_t *nn, int64_t last)
{
    int32_t stack[NL_TREE_STACK];
    int sp = 0;
    uint32_t n0 = *nn;
    for (size_t i = 0; i < n; i++) {
        const nl__tree_ev_t *e = &ev[i];
        if (e->kind == NL_KIND_END) {
            int j = sp - 1;
            while (j >= 0 && nd[stack[j]].act != e->act) j--;
            if (j >= 0) {
                for (int x = sp - 1; x > j; x--) nd[stack[x]].end = e->ts, nd[stack[x]].open = 1;
                nl__tree_node_t *s = &nd[stack[j]];
                s->end = e->ts;
                s->open = 0;
                s->dur = e->has & 2 ? e->dur : (double)(e->ts - s->start) / 1e6;
                if (e->has & 1) s->val = e->val;
                sp = j;
                continue;
            }
            c->unmatched_ends++; /* its start came before the input: a point */
        }
        nl__tree_node_t *x = &nd[(*nn)++];
        *x = (nl__tree_node_t){.start = e->ts, .end = e->ts, .act = e->act, .path = NL_TREE_NONE,
                               .g = e->g, .ldepth = (uint32_t)sp,
                               .parent = sp ? stack[sp - 1] : -1,
                               .point = e->kind != NL_KIND_START};
        if (e->kind == NL_KIND_END) {
            if (e->has & 2) x->dur = e->dur;
            if (e->has & 1) x->val = e->val;
        }
        if (e->kind == NL_KIND_START) {
            x->open = 1; /* until its end */
            if (sp < NL_TREE_STACK) stack[sp++] = (int32_t)(x - nd);
            else c->too_deep++;
        }
    }
    for (int x = 0; x < sp; x++) nd[stack[x]].end = last;
    for (uint32_t i = n0; i < *nn; i++) {
        nl__tree_node_t *x = &nd[i];
        if (!x->open) continue;
        x->dur = (double)(x->end - x->start) / 1e6; /* cut at what came last */
        c->open_acts++;
    }
}

/* Which of the parent guid's activities a child guid hangs under: the deepest that
 * encloses it in time; with skew, the one it overlaps most, else the nearest. Counts the
 * skew when it is not enclosed. -1 if the parent has no activity. */
static int32_t attach(nl__tree_counts_t *c, const nl__tree_node_t *nd, const nl__tree_gspan_t *p,
                      const nl__tree_gspan_t *ch)
{
    int32_t best = -1, over = -1, near = -1;
    int64_t bo = 0, bn = INT64_MAX;
    for (uint32_t i = p->n0; i < p->n1; i++) {
        const nl__tree_node_t *x = &nd[i];
        if (x->point) continue;
        if (x->start <= ch->first && ch->last <= x->end) {
            if (best < 0 || x->ldepth > nd[best].ldepth) best = (int32_t)i;
            continue;
        }
        int64_t lo = x->start > ch->first ? x->start : ch->first;
        int64_t hi = x->end < ch->last ? x->end : ch->last;
        if (hi - lo > bo) bo = hi - lo, over = (int32_t)i;
        int64_t gap = lo - hi;
        if (gap < bn) bn = gap, near = (int32_t)i;
    }
    if (best >= 0) return best;
    int32_t a = over >= 0 ? over : near;
    if (a >= 0) {
        int64_t s1 = nd[a].start - ch->first, s2 = ch->last - nd[a].end;
        double skew = (double)(s1 > s2 ? s1 : s2) / 1e6;
        c->skewed++;
        if (skew > c->skew_max) c->skew_max = skew;
    }
    return a;
}

/* Each guid's parent in gs: its parent.guid, else the first guid (but itself) whose span
 * is its parent span, found through a map of spans (a scan per guid made long span chains
 * quadratic); orphan when the one it names never appeared. 0, or -1 out of memory. */
static int parents(const nl__tree_guid_t *gv, uint32_t ng, nl__tree_gspan_t *gs)
{
    nl__map_t spans;
    int mapped = 0;
    for (uint32_t i = 0; i < ng; i++) {
        const nl__tree_guid_t *g = &gv[i];
        gs[i].parent = NL_TREE_NONE;
        if (!g->nev) continue;
        if (g->parent != NL_TREE_NONE) {
            if (gv[g->parent].nev) gs[i].parent = g->parent;
            else gs[i].orphan = 1;
            continue;
        }
        if (!g->pspan) continue;
        if (!mapped) { /* the spans, first guid of each, on first need */
            nl__map_init(&spans, 0xf10e7);
            mapped = 1;
            for (uint32_t j = 0; j < ng; j++)
                if (gv[j].nev && gv[j].span && !nl__map_get(&spans, &gv[j].span, sizeof gv[j].span) &&
                    !nl__map_put(&spans, &gv[j].span, sizeof gv[j].span,
                                 (void *)(uintptr_t)(j + 1))) {
                    nl__map_free(&spans);
                    return -1;
                }
        }
        uintptr_t v = (uintptr_t)nl__map_get(&spans, &g->pspan, sizeof g->pspan);
        if (v && v - 1 != i) {
            gs[i].parent = (uint32_t)(v - 1);
        } else if (v) { /* its own span is its parent span: another guid of that span */
            for (uint32_t j = i + 1; j < ng && gs[i].parent == NL_TREE_NONE; j++)
                if (gv[j].nev && gv[j].span == g->pspan) gs[i].parent = j;
        }
        if (gs[i].parent == NL_TREE_NONE) gs[i].orphan = 1;
    }
    if (mapped) nl__map_free(&spans);
    return 0;
}

/* A loop of parents: its first guid (by index) becomes a root, the rest hang under it.
 * Each guid is walked over once: a walk from an unseen guid stops at one an earlier walk
 * settled, or finds a loop when it meets one of its own (mark: 0 unseen, else the number
 * + 1 of the walk that saw it). */
static void cut_loops(nl__tree_gspan_t *gs, uint32_t ng)
{
    uint32_t *mark = calloc(ng, sizeof *mark);
    if (!mark) { /* no memory for the marks: the bounded walk of every guid, as before */
        for (uint32_t i = 0; i < ng; i++) {
            uint32_t p = gs[i].parent, steps = 0;
            while (p != NL_TREE_NONE && p != i && steps++ <= ng) p = gs[p].parent;
            if (p == i) gs[i].parent = NL_TREE_NONE;
        }
        return;
    }
    for (uint32_t i = 0; i < ng; i++) {
        if (mark[i]) continue;
        uint32_t p = i;
        while (p != NL_TREE_NONE && !mark[p]) {
            mark[p] = i + 1;
            p = gs[p].parent;
        }
        if (p != NL_TREE_NONE && mark[p] == i + 1) { /* a loop through p: cut at its first */
            uint32_t first = p;
            for (uint32_t q = gs[p].parent; q != p; q = gs[q].parent)
                if (q < first) first = q;
            gs[first].parent = NL_TREE_NONE;
        }
    }
    free(mark);
}

int nl__tree_build(nl__tree_t *t, nl__tree_ev_t *ev, size_t nev, const nl__tree_guid_t *g,
                   uint32_t ng, nl__tree_counts_t *n)
{
    *t = (nl__tree_t){0};
    if (nev) qsort(ev, nev, sizeof *ev, by_guid_time);
    t->nd = malloc((nev ? nev : 1) * sizeof *t->nd);
    t->gs = calloc(ng ? ng : 1, sizeof *t->gs);
    t->ng = ng;
    if (!t->nd || !t->gs) goto fail;
    for (size_t i = 0; i < nev;) {
        size_t j = i;
        while (j < nev && ev[j].g == ev[i].g) j++;
        nl__tree_gspan_t *s = &t->gs[ev[i].g];
        s->n0 = t->nn;
        s->first = ev[i].ts;
        s->last = ev[j - 1].ts;
        nest(n, ev + i, j - i, t->nd, &t->nn, s->last);
        s->n1 = t->nn;
        i = j;
    }
    if (parents(g, ng, t->gs)) goto fail;
    cut_loops(t->gs, ng);
    for (uint32_t i = 0; i < ng; i++) {
        if (t->gs[i].parent == NL_TREE_NONE || t->gs[i].n0 == t->gs[i].n1) continue;
        int32_t a = attach(n, t->nd, &t->gs[t->gs[i].parent], &t->gs[i]);
        if (a < 0) continue;
        for (uint32_t x = t->gs[i].n0; x < t->gs[i].n1; x++)
            if (t->nd[x].parent < 0) t->nd[x].parent = a;
    }
    return 0;
fail:
    nl__tree_free(t);
    return -1;
}

void nl__tree_free(nl__tree_t *t)
{
    free(t->nd);
    free(t->gs);
    *t = (nl__tree_t){0};
}
