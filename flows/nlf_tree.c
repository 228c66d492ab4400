/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_tree.c — a completed flow's activity tree and its profiles. The tree is the shared
 * one (internal/nl_tree.c, which nl-report's lifelines draw too): start/end pairs nest by
 * guid, a guid hangs under the activity of its parent guid (parent.guid, or the guid whose
 * span.id is its parent.span.id) that encloses it in time. Here: every activity's path is
 * the chain of names from the root. Time profile: each path's own time (its duration less
 * its children's) as a share of the flow's; value profile: each path's share of the value
 * field; coverage: the paths that occurred. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_tree.h"
#include "nlf_int.h"
#include "nlp_score.h"

typedef nl__tree_node_t node_t;

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
    /* the tree nl-report's lifelines draw too (internal/nl_tree.c); its counters are ours */
    nl__tree_guid_t *gv = malloc(fl->ng * sizeof *gv);
    nl__tree_t t = {0};
    int rc = -1;
    if (!gv) goto out;
    for (uint32_t i = 0; i < fl->ng; i++)
        gv[i] = (nl__tree_guid_t){fl->g[i].parent, fl->g[i].span, fl->g[i].pspan, fl->g[i].nev};
    nl__tree_counts_t tc = {0};
    int built = nl__tree_build(&t, fl->ev, fl->nev, gv, fl->ng, &tc);
    f->n.unmatched_ends += tc.unmatched_ends;
    f->n.too_deep += tc.too_deep;
    f->n.open_acts += tc.open_acts;
    f->n.skewed += tc.skewed;
    if (tc.skew_max > f->n.skew_max) f->n.skew_max = tc.skew_max;
    if (built) goto out;
    node_t *nd = t.nd;
    const nl__tree_gspan_t *gs = t.gs;
    uint32_t nn = t.nn;
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
    nl__tree_free(&t);
    free(gv);
    return rc;
}
