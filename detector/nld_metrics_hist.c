/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics_hist.c — the activities' duration buckets (nld_metrics.h): coarse edges on
 * the summaries' own log-linear bucket edges (internal/nl_hist.h), one layout per activity
 * shared by its keys, widened as its durations reach further, and a summary's dur.h added
 * to an entry's counts. */
#include <stdlib.h>
#include <string.h>

#include "nld_metrics_int.h"

/* Edges within a power of two, as the top 5 bits of its mantissa plus 32 (so 32 is the power
 * of two itself): the nearest to a geometric series each count of edges allows. */
static const uint8_t edges1[] = {32}, edges2[] = {32, 45}, edges4[] = {32, 38, 45, 54},
                     edges8[] = {32, 35, 38, 41, 45, 49, 54, 59},
                     edges16[] = {32, 33, 35, 36, 38, 40, 41, 43, 45, 47, 49, 52, 54, 56, 59, 61};

static const uint8_t *edges_of(int per)
{
    switch (per) {
    case 1: return edges1;
    case 2: return edges2;
    case 4: return edges4;
    case 8: return edges8;
    case 16: return edges16;
    default: return NULL; /* 32: every one, 32 + j */
    }
}

static unsigned edge_mant(int per, int j)
{
    const uint8_t *e = edges_of(per);
    return e ? e[j] : 32u + (unsigned)j;
}

double nld_metrics_width(int per)
{
    if (per != 1 && per != 2 && per != 4 && per != 8 && per != 16 && per != 32) return 0;
    double w = 0;
    for (int j = 0; j < per; j++) {
        double a = edge_mant(per, j), b = j + 1 < per ? edge_mant(per, j + 1) : 64;
        if ((b - a) / a > w) w = (b - a) / a;
    }
    return w;
}

double nldm__edge(int per, int32_t g)
{
    uint64_t k = (uint64_t)(g / per) << 5 | (edge_mant(per, g % per) - 32u);
    uint64_t bits = k << 47;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* The grid edge at or below ll5 bucket k (k >= 32: not the zero bucket). */
static int32_t grid_of(int per, uint32_t k)
{
    unsigned mant = 32 + (k & 31);
    int j = per - 1;
    while (j > 0 && edge_mant(per, j) > mant) j--;
    return (int32_t)(k >> 5) * per + j;
}

nldm_act_t *nldm__act(nld_metrics_t *m, const char *name, size_t len)
{
    nldm_act_t *a = nl__map_get(&m->acts, name, len);
    if (a) return a;
    if (!(a = calloc(1, sizeof *a))) return NULL;
    if (!nl__map_put(&m->acts, name, len, a)) {
        free(a);
        return NULL;
    }
    return a;
}

/* Widen an activity's buckets to hold grid edges [gmin, gmax] (see nld_metrics.h): every
 * entry of it gets the new layout, its counts kept in their buckets. Once at
 * NLD_METRICS_OCTAVES_MAX the layout is frozen, so that "below the lowest edge" only ever
 * holds values that are below it for good. 0, or -1 out of memory (nothing changed). */
static int act_cover(nld_metrics_t *m, nldm_act_t *a, int32_t gmin, int32_t gmax)
{
    int per = m->o.per_octave;
    int32_t cap = NLD_METRICS_OCTAVES_MAX * per, olo = a->glo, ohi = a->glo + (int32_t)a->nb;
    if (a->frozen || (a->nb && gmin >= olo && gmax < ohi)) return 0;
    int32_t lo, hi;
    if (!a->nb) {
        lo = (gmin / per - NLD_METRICS_PAD_BELOW) * per;
        hi = (gmax / per + 1 + NLD_METRICS_PAD_ABOVE) * per;
    } else {
        lo = gmin < olo ? (gmin / per - 1) * per : olo;
        hi = gmax >= ohi ? (gmax / per + 2) * per : ohi;
    }
    if (lo < per) lo = per;               /* the smallest normal double */
    if (hi > 2047 * per) hi = 2047 * per; /* past the largest finite one */
    int frozen = 0;
    if (hi - lo >= cap) {
        frozen = 1;
        if (!a->nb) {
            hi = lo + cap;
        } else { /* keep the old buckets; widen up first (the tail), then down */
            if (hi > olo + cap) hi = olo + cap;
            if (lo < hi - cap) lo = hi - cap;
        }
    }
    uint32_t nb = (uint32_t)(hi - lo), shift = a->nb ? (uint32_t)(olo - lo) : 0;
    size_t n = 0;
    for (nldm_ent_t *e = a->ents; e; e = e->a_next) n++;
    uint64_t **c = calloc(n ? n : 1, sizeof *c);
    for (size_t i = 0; c && i < n; i++)
        if (!(c[i] = calloc(nb, sizeof **c))) {
            while (i) free(c[--i]);
            free(c);
            c = NULL;
        }
    if (!c) return -1;
    size_t i = 0;
    for (nldm_ent_t *e = a->ents; e; e = e->a_next, i++) {
        if (e->u.a.cnt) memcpy(c[i] + shift, e->u.a.cnt, a->nb * sizeof **c);
        free(e->u.a.cnt);
        e->u.a.cnt = c[i];
        size_t more = nb + 1 - (a->nb ? a->nb + 1 : 0);
        e->nseries += more;
        m->nseries += more;
        m->lbytes += more * e->llen;
        m->ncnt += nb - a->nb;
    }
    free(c);
    a->glo = lo;
    a->nb = nb;
    a->frozen = frozen;
    return 0;
}

void nldm__add_hist(nld_metrics_t *m, nldm_ent_t *e)
{
    nl__hist_t *h = &m->h;
    nldm_act_t *a = e->u.a.act;
    int per = m->o.per_octave;
    uint32_t kmin = UINT32_MAX, kmax = 0;
    for (uint32_t i = 0; i < h->cap; i++)
        if (h->cnt[i]) {
            if (kmin == UINT32_MAX) kmin = (uint32_t)h->lo + i;
            kmax = (uint32_t)h->lo + i;
        }
    if (kmin != UINT32_MAX && act_cover(m, a, grid_of(per, kmin), grid_of(per, kmax))) {
        m->oom++; /* the values stay in +Inf only: true, if coarse */
        return;
    }
    e->u.a.below += h->zero;
    for (uint32_t i = 0; i < h->cap; i++) {
        if (!h->cnt[i]) continue;
        int32_t g = grid_of(per, (uint32_t)h->lo + i) - a->glo;
        if (g < 0)
            e->u.a.below += h->cnt[i];
        else if (g < (int32_t)a->nb)
            e->u.a.cnt[g] += h->cnt[i];
        /* above the highest edge (frozen layout): in +Inf only */
    }
}
