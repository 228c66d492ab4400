/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_cause.c — root cause by coverage (Mirgorodskiy & Miller): the paths present only in
 * anomalous flows (Δa) and only in normal ones (Δn), reduced to the shortest path of each
 * subtree wholly in Δ, paths that always occur together merged into one line, ranked by
 * the share of flows they explain, among the paths whose share of time differs most from
 * the anomalous flows' neighbours (ranked by that difference). Counted per slot as
 * flows are judged, so nothing of the flows themselves is kept. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlf_int.h"

void nlf__cover(nlf_t *f, nlf_root_t *r, const nlf_done_t *d, int anomalous, const double *nb)
{
    (void)f;
    if (anomalous) r->na++;
    else r->nn++;
    for (uint32_t i = 0; i < d->nslots; i++) {
        nlf_slotc_t *c = &r->c[d->slots[i]];
        if (anomalous) c->na++, c->fpa += d->fid;
        else c->nn++, c->fpn += d->fid;
    }
    if (anomalous && nb)
        for (uint32_t s = 0; s < r->nslots; s++) r->c[s].tdiff += d->v[s] - nb[s];
}

typedef struct item {
    int kind; /* 0 only anomalous, 1 only normal, 2 time */
    uint32_t slot, depth;
    double share; /* of the flows it explains; for time, the mean difference */
    uint64_t flows;
    char also[512];
} item_t;

static const char *const kind_name[3] = {"only.anomalous", "only.normal", "time"};

static int in_delta(const nlf_root_t *r, uint32_t s, int kind)
{
    const nlf_slotc_t *c = &r->c[s];
    return r->slot_path[s] != NLF_NONE && (kind ? c->nn && !c->na : c->na && !c->nn);
}

/* Whether a proper ancestor of the slot's path is in the same Δ: then the ancestor, the
 * shortest path of the subtree, stands for it. */
static int ancestor_in(const nlf_t *f, const nlf_root_t *r, uint32_t s, int kind)
{
    for (uint32_t p = f->path[r->slot_path[s]].parent; p != NLF_NONE; p = f->path[p].parent) {
        void *v = nl__map_get(&r->slot_of, &p, sizeof p);
        if (v && in_delta(r, (uint32_t)((uintptr_t)v - 1), kind)) return 1;
    }
    return 0;
}

static int by_share(const void *x, const void *y)
{
    const item_t *a = x, *b = y;
    double sa = fabs(a->share), sb = fabs(b->share);
    if (sa != sb) return sa > sb ? -1 : 1;
    if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

/* Δa or Δn of a root, reduced and merged, into it[]; returns how many. */
static size_t delta(nlf_t *f, const nlf_root_t *r, int kind, item_t *it)
{
    size_t n = 0;
    for (uint32_t s = 0; s < r->nslots; s++) {
        if (!in_delta(r, s, kind) || ancestor_in(f, r, s, kind)) continue;
        const nlf_slotc_t *c = &r->c[s];
        uint64_t cnt = kind ? c->nn : c->na, fp = kind ? c->fpn : c->fpa;
        uint32_t depth = f->path[r->slot_path[s]].depth;
        size_t j = 0; /* a path that always occurred with one already listed joins it */
        for (; j < n; j++) {
            const nlf_slotc_t *o = &r->c[it[j].slot];
            if ((kind ? o->nn : o->na) == cnt && (kind ? o->fpn : o->fpa) == fp) break;
        }
        if (j < n) {
            item_t *m = &it[j];
            uint32_t other = s;
            if (depth < m->depth) { /* the shorter path leads */
                other = m->slot;
                m->slot = s;
                m->depth = depth;
            }
            char text[512];
            size_t len = strlen(m->also);
            nlf__path_text(f, r->slot_path[other], text, sizeof text);
            snprintf(m->also + len, sizeof m->also - len, "%s%s", len ? "," : "", text);
            continue;
        }
        it[n++] = (item_t){.kind = kind, .slot = s, .depth = depth, .flows = cnt,
                           .share = (double)cnt / (double)(kind ? r->nn : r->na)};
    }
    return n;
}

static void out_item(nlf_t *f, const nlf_root_t *r, const item_t *it, int rank)
{
    char text[1024];
    nlf__out_begin(f, f->now, "nl.flow.cause", NL_LVL_WARN, NULL);
    size_t n = nlf__path_text(f, r->path, text, sizeof text);
    nl_enc_str(&f->b, "root", text, n);
    nl_enc_i64(&f->b, "rank", rank);
    nl_enc_str(&f->b, "kind", kind_name[it->kind], strlen(kind_name[it->kind]));
    n = nlf__path_text(f, r->slot_path[it->slot], text, sizeof text);
    nl_enc_str(&f->b, "path", text, n);
    nl_enc_dbl(&f->b, it->kind == 2 ? "diff" : "share", it->share);
    if (it->kind != 2) nl_enc_u64(&f->b, "flows", it->flows);
    nl_enc_u64(&f->b, "anomalous", r->na);
    nl_enc_u64(&f->b, "normal", r->nn);
    if (it->also[0]) nl_enc_str(&f->b, "also", it->also, strlen(it->also));
    nlf__out_end(f, NL_LVL_WARN);
}

void nlf__causes(nlf_t *f)
{
    item_t *cov = malloc(3 * NLF_SLOTS * sizeof *cov); /* Δa, Δn, time: each at most a slot each */
    if (!cov) return;
    for (uint32_t i = 0; i < f->nroot; i++) {
        const nlf_root_t *r = f->root[i];
        if (!r->na) continue;
        size_t nc = delta(f, r, 0, cov);
        nc += delta(f, r, 1, cov + nc);
        size_t nt = 0;
        for (uint32_t s = 0; s < r->nslots; s++) {
            double m = r->c[s].tdiff / (double)r->na;
            if (r->slot_path[s] == NLF_NONE || !(fabs(m) > 1e-9)) continue;
            cov[nc + nt++] = (item_t){.kind = 2, .slot = s,
                                      .depth = f->path[r->slot_path[s]].depth, .share = m};
        }
        /* one ranking: a coverage difference by the share of flows it explains, a time
         * difference by the share of time that moved; both fractions of one */
        qsort(cov, nc + nt, sizeof *cov, by_share);
        for (size_t j = 0; j < nc + nt && j < f->o.causes; j++) out_item(f, r, &cov[j], (int)j + 1);
    }
    free(cov);
}
