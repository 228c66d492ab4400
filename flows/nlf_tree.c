/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_tree.c — a completed flow's activity tree and its profiles: start/end pairs nest by
 * guid, a guid hangs under the activity of its parent guid (parent.guid, or the guid whose
 * span.id is its parent.span.id) that encloses it in time, and every activity's path is
 * the chain of names from the root. Time profile: each path's own time (its duration less
 * its children's) as a share of the flow's; value profile: each path's share of the value
 * field; coverage: the paths that occurred. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nlf_int.h"
#include "nlp_score.h"

typedef struct node {
    int64_t start, end;
    double dur, kids, val;
    uint32_t act, path, g, ldepth;
    int32_t parent;
    uint8_t open, point;
} node_t;

typedef struct gspan {
    uint32_t n0, n1;       /* its nodes */
    int64_t first, last;   /* its events' time */
    uint32_t parent;       /* resolved parent guid, or NLF_NONE */
    uint8_t orphan;        /* names a parent that never appeared */
} gspan_t;

static int by_guid_time(const void *x, const void *y)
{
    const nlf_ev_t *a = x, *b = y;
    if (a->g != b->g) return a->g < b->g ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

uint32_t nlf__path(nlf_t *f, uint32_t parent, uint32_t act)
{
    uint32_t k[2] = {parent, act};
    void *v = nl__map_get(&f->paths, k, sizeof k);
    if (v) return (uint32_t)((uintptr_t)v - 1);
    if (f->npath >= NLF_PATHS_MAX) { /* the path stays its parent's */
        f->n.path_overflow++;
        return NLF_NONE;
    }
    if (f->npath == f->cappath) {
        uint32_t c = f->cappath ? f->cappath * 2 : 256;
        nlf_path_t *np = realloc(f->path, c * sizeof *np);
        if (!np) return NLF_NONE;
        f->path = np;
        f->cappath = c;
    }
    if (!nl__map_put(&f->paths, k, sizeof k, (void *)(uintptr_t)(f->npath + 1))) return NLF_NONE;
    f->path[f->npath] = (nlf_path_t){parent, act, parent == NLF_NONE ? 1 : f->path[parent].depth + 1};
    return f->npath++;
}

size_t nlf__path_text(const nlf_t *f, uint32_t path, char *out, size_t cap)
{
    uint32_t chain[NLF_DEPTH_MAX + 1];
    int n = 0;
    for (uint32_t p = path; p != NLF_NONE && n <= NLF_DEPTH_MAX; p = f->path[p].parent)
        chain[n++] = p;
    size_t len = 0;
    out[0] = '\0';
    for (int i = n - 1; i >= 0; i--) {
        int w = snprintf(out + len, cap - len, "%s%s", i == n - 1 ? "" : "/",
                         f->act_name[f->path[chain[i]].act]);
        if (w < 0 || (size_t)w >= cap - len) return cap - 1;
        len += (size_t)w;
    }
    return len;
}

nlf_root_t *nlf__root(nlf_t *f, uint32_t path)
{
    nlf_root_t *r = nl__map_get(&f->roots, &path, sizeof path);
    if (r) return r;
    if (f->nroot >= NLF_ROOT_MAX) return NULL;
    nlf_root_t **nr = realloc(f->root, (f->nroot + 1) * sizeof *nr);
    if (!nr) return NULL;
    f->root = nr;
    if (!(r = calloc(1, sizeof *r))) return NULL;
    r->path = path;
    r->thr = NAN;
    nl__map_init(&r->slot_of, 0xf10e6 + path);
    if (!nl__map_put(&f->roots, &path, sizeof path, r)) {
        free(r);
        return NULL;
    }
    f->root[f->nroot++] = r;
    return r;
}

/* A path's slot in its root activity's profiles; the last slot takes the paths beyond. */
uint32_t nlf__slot(nlf_t *f, nlf_root_t *r, uint32_t path)
{
    void *v = nl__map_get(&r->slot_of, &path, sizeof path);
    if (v) return (uint32_t)((uintptr_t)v - 1);
    if (r->nslots >= NLF_SLOTS - 1) {
        f->n.path_overflow++;
        if (r->nslots == NLF_SLOTS - 1) r->slot_path[r->nslots++] = NLF_NONE; /* "other" */
        return NLF_SLOTS - 1;
    }
    if (!nl__map_put(&r->slot_of, &path, sizeof path, (void *)(uintptr_t)(r->nslots + 1)))
        return NLF_SLOTS - 1;
    r->slot_path[r->nslots] = path;
    return r->nslots++;
}

/* Nest one guid's events (sorted by time) into nodes: start pushes, end pops its start
 * (what was opened above it stays open), anything else is a point under the innermost. */
static void nest(nlf_t *f, const nlf_ev_t *ev, size_t n, node_t *nd, uint32_t *nn, int64_t last)
{
    int32_t stack[NLF_DEPTH_MAX * 4];
    int sp = 0;
    uint32_t n0 = *nn;
    for (size_t i = 0; i < n; i++) {
        const nlf_ev_t *e = &ev[i];
        if (e->kind == NL_KIND_END) {
            int j = sp - 1;
            while (j >= 0 && nd[stack[j]].act != e->act) j--;
            if (j >= 0) {
                for (int x = sp - 1; x > j; x--) nd[stack[x]].end = e->ts, nd[stack[x]].open = 1;
                node_t *s = &nd[stack[j]];
                s->end = e->ts;
                s->open = 0;
                s->dur = e->has & 2 ? e->dur : (double)(e->ts - s->start) / 1e6;
                if (e->has & 1) s->val = e->val;
                sp = j;
                continue;
            }
            f->n.unmatched_ends++; /* its start came before the input: a point */
        }
        node_t *x = &nd[(*nn)++];
        *x = (node_t){.start = e->ts, .end = e->ts, .act = e->act, .path = NLF_NONE,
                      .g = e->g, .ldepth = (uint32_t)sp, .parent = sp ? stack[sp - 1] : -1,
                      .point = e->kind != NL_KIND_START};
        if (e->kind == NL_KIND_END) {
            if (e->has & 2) x->dur = e->dur;
            if (e->has & 1) x->val = e->val;
        }
        if (e->kind == NL_KIND_START) {
            x->open = 1; /* until its end */
            if (sp < (int)(sizeof stack / sizeof *stack)) stack[sp++] = (int32_t)(x - nd);
            else f->n.too_deep++;
        }
    }
    for (int x = 0; x < sp; x++) nd[stack[x]].end = last;
    for (uint32_t i = n0; i < *nn; i++) {
        node_t *x = &nd[i];
        if (!x->open) continue;
        x->dur = (double)(x->end - x->start) / 1e6; /* cut at what came last */
        f->n.open_acts++;
    }
}

/* Which of the parent guid's activities a child guid hangs under: the deepest that
 * encloses it in time; with skew, the one it overlaps most, else the nearest. Counts the
 * skew when it is not enclosed. -1 if the parent has no activity. */
static int32_t attach(nlf_t *f, const node_t *nd, const gspan_t *p, const gspan_t *c)
{
    int32_t best = -1, over = -1, near = -1;
    int64_t bo = 0, bn = INT64_MAX;
    for (uint32_t i = p->n0; i < p->n1; i++) {
        const node_t *x = &nd[i];
        if (x->point) continue;
        if (x->start <= c->first && c->last <= x->end) {
            if (best < 0 || x->ldepth > nd[best].ldepth) best = (int32_t)i;
            continue;
        }
        int64_t lo = x->start > c->first ? x->start : c->first;
        int64_t hi = x->end < c->last ? x->end : c->last;
        if (hi - lo > bo) bo = hi - lo, over = (int32_t)i;
        int64_t gap = lo - hi;
        if (gap < bn) bn = gap, near = (int32_t)i;
    }
    if (best >= 0) return best;
    int32_t a = over >= 0 ? over : near;
    if (a >= 0) {
        int64_t s1 = nd[a].start - c->first, s2 = c->last - nd[a].end;
        double skew = (double)(s1 > s2 ? s1 : s2) / 1e6;
        f->n.skewed++;
        if (skew > f->n.skew_max) f->n.skew_max = skew;
    }
    return a;
}

/* A node's path, interning its ancestors' first: iteratively, up to the nearest ancestor
 * whose path is known (chain: room for every node), so each node is walked over once
 * whatever the depth. */
static uint32_t node_path(nlf_t *f, node_t *nd, int32_t i, int32_t *chain)
{
    uint32_t n = 0;
    while (i >= 0 && nd[i].path == NLF_NONE) {
        chain[n++] = i;
        i = nd[i].parent;
    }
    uint32_t p = i >= 0 ? nd[i].path : NLF_NONE;
    for (uint32_t j = n; j-- > 0;) {
        if (p != NLF_NONE && f->path[p].depth >= NLF_DEPTH_MAX) {
            f->n.too_deep++;
        } else {
            uint32_t q = nlf__path(f, p, nd[chain[j]].act);
            if (q != NLF_NONE) p = q;
        }
        nd[chain[j]].path = p;
    }
    return p;
}

/* Each guid's parent in gs: its parent.guid, else the first guid (but itself) whose span
 * is its parent span, found through a map of spans (a scan per guid made long span chains
 * quadratic); orphan when the one it names never appeared. 0, or -1 out of memory. */
static int parents(const nlf_flow_t *fl, gspan_t *gs)
{
    nl__map_t spans;
    int mapped = 0;
    for (uint32_t i = 0; i < fl->ng; i++) {
        const nlf_g_t *g = &fl->g[i];
        gs[i].parent = NLF_NONE;
        if (!g->nev) continue;
        if (g->parent != NLF_NONE) {
            if (fl->g[g->parent].nev) gs[i].parent = g->parent;
            else gs[i].orphan = 1;
            continue;
        }
        if (!g->pspan) continue;
        if (!mapped) { /* the spans, first guid of each, on first need */
            nl__map_init(&spans, 0xf10e7);
            mapped = 1;
            for (uint32_t j = 0; j < fl->ng; j++)
                if (fl->g[j].nev && fl->g[j].span &&
                    !nl__map_get(&spans, &fl->g[j].span, sizeof fl->g[j].span) &&
                    !nl__map_put(&spans, &fl->g[j].span, sizeof fl->g[j].span,
                                 (void *)(uintptr_t)(j + 1))) {
                    nl__map_free(&spans);
                    return -1;
                }
        }
        uintptr_t v = (uintptr_t)nl__map_get(&spans, &g->pspan, sizeof g->pspan);
        if (v && v - 1 != i) {
            gs[i].parent = (uint32_t)(v - 1);
        } else if (v) { /* its own span is its parent span: another guid of that span */
            for (uint32_t j = i + 1; j < fl->ng && gs[i].parent == NLF_NONE; j++)
                if (fl->g[j].nev && fl->g[j].span == g->pspan) gs[i].parent = j;
        }
        if (gs[i].parent == NLF_NONE) gs[i].orphan = 1;
    }
    if (mapped) nl__map_free(&spans);
    return 0;
}

/* A loop of parents: its first guid (by index) becomes a root, the rest hang under it.
 * Each guid is walked over once: a walk from an unseen guid stops at one an earlier walk
 * settled, or finds a loop when it meets one of its own (mark: 0 unseen, else the number
 * + 1 of the walk that saw it). */
static void cut_loops(gspan_t *gs, uint32_t ng)
{
    uint32_t *mark = calloc(ng, sizeof *mark);
    if (!mark) { /* no memory for the marks: the bounded walk of every guid, as before */
        for (uint32_t i = 0; i < ng; i++) {
            uint32_t p = gs[i].parent, steps = 0;
            while (p != NLF_NONE && p != i && steps++ <= ng) p = gs[p].parent;
            if (p == i) gs[i].parent = NLF_NONE;
        }
        return;
    }
    for (uint32_t i = 0; i < ng; i++) {
        if (mark[i]) continue;
        uint32_t p = i;
        while (p != NLF_NONE && !mark[p]) {
            mark[p] = i + 1;
            p = gs[p].parent;
        }
        if (p != NLF_NONE && mark[p] == i + 1) { /* a loop through p: cut at its first */
            uint32_t first = p;
            for (uint32_t q = gs[p].parent; q != p; q = gs[q].parent)
                if (q < first) first = q;
            gs[first].parent = NLF_NONE;
        }
    }
    free(mark);
}

static void add_hosts(const nlf_t *f, const nlf_flow_t *fl, nlf_done_t *d)
{
    size_t len = 0;
    uint32_t seen[16];
    int ns = 0;
    for (uint32_t i = 0; i < fl->ng && ns < 16; i++) {
        uint32_t h = fl->g[i].host;
        if (!h || !fl->g[i].nev) continue;
        int dup = 0;
        for (int j = 0; j < ns; j++) dup |= seen[j] == h;
        if (dup) continue;
        seen[ns++] = h;
        int w = snprintf(d->hosts + len, sizeof d->hosts - len, "%s%s", len ? "," : "",
                         f->host_name[h - 1]);
        if (w < 0 || (size_t)w >= sizeof d->hosts - len) break;
        len += (size_t)w;
    }
}

int nlf__profile(nlf_t *f, nlf_flow_t *fl, nlf_done_t *d)
{
    if (!fl->nev) return -1;
    qsort(fl->ev, fl->nev, sizeof *fl->ev, by_guid_time);
    node_t *nd = malloc(fl->nev * sizeof *nd);
    gspan_t *gs = calloc(fl->ng, sizeof *gs);
    int rc = -1;
    if (!nd || !gs) goto out;
    uint32_t nn = 0;
    for (size_t i = 0; i < fl->nev;) {
        size_t j = i;
        while (j < fl->nev && fl->ev[j].g == fl->ev[i].g) j++;
        gspan_t *g = &gs[fl->ev[i].g];
        g->n0 = nn;
        g->first = fl->ev[i].ts;
        g->last = fl->ev[j - 1].ts;
        nest(f, fl->ev + i, j - i, nd, &nn, g->last);
        g->n1 = nn;
        i = j;
    }
    if (parents(fl, gs)) goto out;
    cut_loops(gs, fl->ng);
    for (uint32_t i = 0; i < fl->ng; i++) {
        if (gs[i].parent == NLF_NONE || gs[i].n0 == gs[i].n1) continue;
        int32_t a = attach(f, nd, &gs[gs[i].parent], &gs[i]);
        if (a < 0) continue;
        for (uint32_t x = gs[i].n0; x < gs[i].n1; x++)
            if (nd[x].parent < 0) nd[x].parent = a;
    }
    /* the root: the earliest top-level activity of a guid with no parent in the flow */
    int32_t root = -1;
    for (int pass = 0; pass < 2 && root < 0; pass++)
        for (uint32_t i = 0; i < nn; i++) {
            if (nd[i].parent >= 0 || (!pass && nd[i].point)) continue;
            if (root < 0 || nd[i].start < nd[root].start) root = (int32_t)i;
        }
    if (root < 0) goto out;
    int32_t *chain = malloc(nn * sizeof *chain);
    if (!chain) goto out;
    for (uint32_t i = 0; i < nn; i++) node_path(f, nd, (int32_t)i, chain);
    free(chain);
    uint32_t rp = nd[root].path;
    nlf_root_t *r = rp == NLF_NONE ? NULL : nlf__root(f, rp);
    if (!r) {
        f->n.root_overflow++;
        goto out;
    }
    for (uint32_t i = 0; i < nn; i++)
        if (nd[i].parent >= 0 && !nd[i].point) nd[nd[i].parent].kids += nd[i].dur;
    d->slots = malloc(nn * sizeof *d->slots);
    if (!d->slots) goto out;
    uint8_t seen[NLF_SLOTS] = {0};
    for (uint32_t i = 0; i < nn; i++) {
        if (nd[i].path == NLF_NONE) continue;
        uint32_t s = nlf__slot(f, r, nd[i].path);
        double self = nd[i].dur - nd[i].kids;
        d->v[s] += self > 0 ? self : 0;
        if (f->o.value_field) d->v[NLF_SLOTS + s] += nd[i].val;
        if (!seen[s]) seen[s] = 1, d->slots[d->nslots++] = s;
        d->open |= nd[i].open;
    }
    nlp_normalize(d->v, NLF_SLOTS);
    if (f->o.value_field) nlp_normalize(d->v + NLF_SLOTS, NLF_SLOTS);
    d->root = rp;
    const nlf_g_t *rg = &fl->g[nd[root].g];
    snprintf(d->guid, sizeof d->guid, "%s", rg->id);
    snprintf(d->trace, sizeof d->trace, "%s", fl->trace);
    d->orphan = gs[nd[root].g].orphan;
    d->rdur = nd[root].dur;
    d->t0 = fl->first;
    d->t1 = fl->last;
    d->nev = (uint32_t)fl->nev;
    d->fid = f->flow_seq++ * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    d->fid ^= d->fid >> 29;
    d->fid *= 0xbf58476d1ce4e5b9ULL;
    add_hosts(f, fl, d);
    if (d->orphan) f->n.orphans++;
    if (d->open) f->n.open_flows++;
    rc = 0;
out:
    free(nd);
    free(gs);
    return rc;
}
