/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_quant.c — the order-statistic multiset behind nl_quant.h: a sorted list of blocks.
 *
 * The values sit in blocks of at most `bsize` doubles, each block sorted and every value of
 * a block <= every value of the next one. A directory keeps each block's first value (a
 * block is found by value by searching them: counted in runs of 8 up to 128 blocks, as a
 * place in a block is, binary search beyond) and a Fenwick tree of the block
 * sizes (a block is found by rank, and the values before a block counted, in
 * O(log blocks)). An add or a remove shifts at most one block with memmove.
 *
 * Why not a balanced tree (this was a treap until 2026-11): a tree spends 24 bytes on each
 * value and one dependent, unpredictable memory access per level, about 20 of them per
 * operation at 2,000 values. A keyed detector watching 50 hosts visits 50 such histories in
 * turn, so each access missed the cache; here a history is its values, packed, and an
 * operation touches a few cache lines of the directory and one block.
 *
 * A block that fills splits in two; one that falls under a quarter full merges with a
 * neighbour or takes values from it. Both rewrite the directory, O(blocks), at most once
 * in bsize / 4 updates of a block. When the directory outgrows bsize blocks, bsize
 * doubles (everything regrouped once, O(n)), so blocks and directory stay about sqrt(n)
 * long and no operation degrades as the multiset grows. Nothing is random: the same calls
 * build the same structure. */
#include "nlkit/nl_quant.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"

#define NLQ_MIN_BLOCK 64u
#define NLQ_MAX_BLOCK 65536u

struct nl_quant {
    double **blk;    /* blocks 0..nb-1 in order; nb..nalloc-1 spare, allocated */
    double *first;   /* first[i] == blk[i][0] */
    uint32_t *cnt;   /* values in block i; never 0 for a block in use */
    uint32_t *fen;   /* Fenwick tree over cnt, fen[1..nb] */
    uint32_t nb;     /* blocks in use */
    uint32_t nalloc; /* block buffers allocated (each bsize doubles) */
    uint32_t dcap;   /* directory entries allocated */
    uint32_t bsize;  /* most values in a block */
    uint32_t top;    /* the largest power of two <= nb (0 when nb == 0) */
    size_t n;        /* values held */
};

/* The smallest block size (a power of two) whose square covers about `n` values at the
 * three quarters full that blocks average. */
static uint32_t block_size_for(size_t n)
{
    uint32_t b = NLQ_MIN_BLOCK;
    while (b < NLQ_MAX_BLOCK && (double)b * b * 0.75 < (double)n) b *= 2;
    return b;
}

/* Make room for `want` directory entries. */
static int grow_dir(nl_quant_t *q, uint32_t want)
{
    if (want <= q->dcap) return 0;
    uint32_t nc = q->dcap ? q->dcap : 8;
    while (nc < want) nc *= 2;
    double **nb = realloc(q->blk, nc * sizeof *nb);
    if (!nb) return NL_ENOMEM;
    q->blk = nb;
    double *nf = realloc(q->first, nc * sizeof *nf);
    if (!nf) return NL_ENOMEM;
    q->first = nf;
    uint32_t *ncnt = realloc(q->cnt, nc * sizeof *ncnt);
    if (!ncnt) return NL_ENOMEM;
    q->cnt = ncnt;
    uint32_t *nfen = realloc(q->fen, (nc + 1) * sizeof *nfen);
    if (!nfen) return NL_ENOMEM;
    q->fen = nfen;
    q->dcap = nc;
    return 0;
}

/* Make sure a spare block exists past the ones in use, and a directory entry for it. */
static int want_spare(nl_quant_t *q)
{
    if (grow_dir(q, q->nb + 1)) return NL_ENOMEM;
    if (q->nalloc > q->nb) return 0;
    double *b = malloc((size_t)q->bsize * sizeof *b);
    if (!b) return NL_ENOMEM;
    q->blk[q->nalloc++] = b;
    return 0;
}

/* Rebuild the Fenwick tree from cnt: after the directory changed shape. */
static void fen_build(nl_quant_t *q)
{
    uint32_t nb = q->nb, *f = q->fen;
    for (uint32_t j = 1; j <= nb; j++) f[j] = q->cnt[j - 1];
    for (uint32_t j = 1; j <= nb; j++) {
        uint32_t p = j + (j & -j);
        if (p <= nb) f[p] += f[j];
    }
    q->top = 0;
    if (nb)
        for (q->top = 1; q->top * 2 <= nb;) q->top *= 2;
}

static void fen_add(nl_quant_t *q, uint32_t i, int32_t d)
{
    for (uint32_t j = i + 1; j <= q->nb; j += j & -j) q->fen[j] += (uint32_t)d;
}

/* Values in blocks 0..i-1. */
static size_t fen_before(const nl_quant_t *q, uint32_t i)
{
    size_t s = 0;
    for (uint32_t j = i; j; j -= j & -j) s += q->fen[j];
    return s;
}

/* The block holding the k-th smallest value (k < n); *off its place in that block. */
static uint32_t fen_find(const nl_quant_t *q, size_t k, uint32_t *off)
{
    uint32_t pos = 0;
    for (uint32_t step = q->top; step; step >>= 1) {
        uint32_t nx = pos + step;
        if (nx <= q->nb && q->fen[nx] <= k) {
            pos = nx;
            k -= q->fen[nx];
        }
    }
    *off = (uint32_t)k;
    return pos;
}

/* A block or a directory of up to this many values is counted through rather than
 * binary-searched: the loads are independent of each other, so when the values are not in
 * the cache (a keyed detector visits 50 histories in turn) their misses overlap, where a
 * binary search waits for one miss after another. */
#define NLQ_SCAN_MAX 128u

/* How many of a[0..n-1] (sorted) are <= x (is_le), or < x (and all of them for NaN x):
 * first the first value of every run of 8 (64 bytes: about a cache line each), then the
 * values of the last run whose first value counts. A quarter of the comparisons of
 * counting every value, and the same independent loads. */
static uint32_t scan_count(const double *a, uint32_t n, double x, int is_le)
{
    uint32_t runs = 0;
    for (uint32_t i = 0; i < n; i += 8) runs += is_le ? a[i] <= x : !(x <= a[i]);
    if (!runs) return 0;
    uint32_t start = (runs - 1) * 8, end = start + 8 < n ? start + 8 : n, c = start;
    for (uint32_t i = start; i < end; i++) c += is_le ? a[i] <= x : !(x <= a[i]);
    return c;
}

/* How many of a[0..n-1] (sorted) are not >= x: the values < x, and all of them for NaN.
 * No branch on the data: the comparisons are as unpredictable as the values. */
static uint32_t count_below(const double *a, uint32_t n, double x)
{
    if (n <= NLQ_SCAN_MAX) return scan_count(a, n, x, 0);
    const double *p = a;
    while (n > 1) {
        uint32_t half = n / 2;
        p = !(x <= p[half - 1]) ? p + half : p;
        n -= half;
    }
    return (uint32_t)(p - a) + !(x <= *p);
}

/* How many of a[0..n-1] (sorted) are <= x. */
static uint32_t count_le(const double *a, uint32_t n, double x)
{
    if (n <= NLQ_SCAN_MAX) return scan_count(a, n, x, 1);
    const double *p = a;
    while (n > 1) {
        uint32_t half = n / 2;
        p = p[half - 1] <= x ? p + half : p;
        n -= half;
    }
    return (uint32_t)(p - a) + (*p <= x);
}

nl_quant_t *nl_quant_new(size_t hint)
{
    if (hint > NL_QUANT_MAX) hint = NL_QUANT_MAX;
    nl_quant_t *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->bsize = block_size_for(hint);
    if (grow_dir(q, (uint32_t)(hint / (q->bsize / 2) + 2))) {
        nl_quant_free(q);
        return NULL;
    }
    return q;
}

void nl_quant_free(nl_quant_t *q)
{
    if (!q) return;
    for (uint32_t i = 0; i < q->nalloc; i++) free(q->blk[i]);
    free(q->blk);
    free(q->first);
    free(q->cnt);
    free(q->fen);
    free(q);
}

void nl_quant_clear(nl_quant_t *q)
{
    q->nb = q->top = 0;
    q->n = 0;
}

size_t nl_quant_count(const nl_quant_t *q) { return q->n; }

/* Regroup every value into blocks twice as large, each half full, when the directory has
 * grown past the block size. Out of memory leaves the structure as it was (still correct,
 * only slower). */
static void regroup(nl_quant_t *q)
{
    uint32_t nbs = q->bsize * 2, half = nbs / 2;
    uint32_t nnb = (uint32_t)((q->n + half - 1) / half);
    double **nbk = calloc(nnb, sizeof *nbk);
    if (!nbk) return;
    for (uint32_t i = 0; i < nnb; i++)
        if (!(nbk[i] = malloc((size_t)nbs * sizeof **nbk))) goto fail;
    uint32_t ob = 0, oo = 0; /* reading: old block, offset */
    for (uint32_t i = 0; i < nnb; i++) {
        uint32_t c = 0;
        while (c < half && ob < q->nb) {
            uint32_t take = q->cnt[ob] - oo;
            if (take > half - c) take = half - c;
            memcpy(nbk[i] + c, q->blk[ob] + oo, take * sizeof **nbk);
            c += take;
            oo += take;
            if (oo == q->cnt[ob]) ob++, oo = 0;
        }
        q->cnt[i] = c; /* i <= ob: the old counts at i are read already */
    }
    for (uint32_t i = 0; i < q->nalloc; i++) free(q->blk[i]);
    memcpy(q->blk, nbk, nnb * sizeof *nbk);
    free(nbk);
    for (uint32_t i = 0; i < nnb; i++) q->first[i] = q->blk[i][0];
    q->nb = q->nalloc = nnb;
    q->bsize = nbs;
    fen_build(q);
    return;
fail:
    for (uint32_t i = 0; i < nnb; i++) free(nbk[i]);
    free(nbk);
}

int nl_quant_add(nl_quant_t *q, double x)
{
    if (isnan(x)) return NL_EINVAL;
    if (q->n >= NL_QUANT_MAX) return NL_ENOMEM;
    if (q->nb == 0) {
        if (want_spare(q)) return NL_ENOMEM;
        q->blk[0][0] = q->first[0] = x;
        q->cnt[0] = 1;
        q->nb = 1;
        q->n = 1;
        fen_build(q);
        return 0;
    }
    uint32_t i = count_le(q->first, q->nb, x);
    i = i ? i - 1 : 0; /* the last block starting at or below x, or the first */
    uint32_t pos = count_le(q->blk[i], q->cnt[i], x);
    int split = q->cnt[i] == q->bsize;
    if (split) {
        if (want_spare(q)) return NL_ENOMEM;
        /* the upper half moves to a new block i + 1 */
        uint32_t h = q->bsize / 2, nb = q->nb;
        double *spare = q->blk[nb];
        memmove(q->blk + i + 2, q->blk + i + 1, (nb - i - 1) * sizeof *q->blk);
        memmove(q->first + i + 2, q->first + i + 1, (nb - i - 1) * sizeof *q->first);
        memmove(q->cnt + i + 2, q->cnt + i + 1, (nb - i - 1) * sizeof *q->cnt);
        q->blk[i + 1] = spare;
        memcpy(spare, q->blk[i] + h, (q->bsize - h) * sizeof *spare);
        q->cnt[i + 1] = q->bsize - h;
        q->first[i + 1] = spare[0];
        q->cnt[i] = h;
        q->nb = nb + 1;
        if (pos > h) {
            i++;
            pos -= h;
        }
    }
    double *b = q->blk[i];
    memmove(b + pos + 1, b + pos, (q->cnt[i] - pos) * sizeof *b);
    b[pos] = x;
    q->cnt[i]++;
    q->first[i] = b[0];
    q->n++;
    if (split) {
        fen_build(q);
        if (q->nb > q->bsize && q->bsize < NLQ_MAX_BLOCK) regroup(q);
    } else {
        fen_add(q, i, 1);
    }
    return 0;
}

/* Take block i out of the directory; its buffer becomes a spare. */
static void drop_block(nl_quant_t *q, uint32_t i)
{
    uint32_t nb = q->nb;
    double *b = q->blk[i];
    memmove(q->blk + i, q->blk + i + 1, (nb - i - 1) * sizeof *q->blk);
    memmove(q->first + i, q->first + i + 1, (nb - i - 1) * sizeof *q->first);
    memmove(q->cnt + i, q->cnt + i + 1, (nb - i - 1) * sizeof *q->cnt);
    q->blk[nb - 1] = b;
    q->nb = nb - 1;
}

/* Block i has fallen under a quarter full: merge it with its smaller neighbour when the
 * two fit in three quarters of a block, or else share their values evenly, so that every
 * block but a lone one stays at least a quarter full and the directory short. */
static void rebalance(nl_quant_t *q, uint32_t i)
{
    uint32_t a;
    if (i == 0)
        a = 0;
    else if (i + 1 == q->nb)
        a = i - 1;
    else
        a = q->cnt[i - 1] <= q->cnt[i + 1] ? i - 1 : i;
    uint32_t b = a + 1, ca = q->cnt[a], cb = q->cnt[b], tot = ca + cb;
    double *pa = q->blk[a], *pb = q->blk[b];
    if (tot <= q->bsize / 4 * 3) {
        memcpy(pa + ca, pb, cb * sizeof *pa);
        q->cnt[a] = tot;
        drop_block(q, b);
    } else if (ca < tot / 2) {
        uint32_t m = tot / 2 - ca; /* from b's front to a's end */
        memcpy(pa + ca, pb, m * sizeof *pa);
        memmove(pb, pb + m, (cb - m) * sizeof *pb);
        q->cnt[a] += m;
        q->cnt[b] -= m;
    } else {
        uint32_t m = ca - tot / 2; /* from a's end to b's front */
        memmove(pb + m, pb, cb * sizeof *pb);
        memcpy(pb, pa + ca - m, m * sizeof *pb);
        q->cnt[a] -= m;
        q->cnt[b] += m;
    }
    if (b < q->nb) q->first[b] = q->blk[b][0];
    fen_build(q);
}

int nl_quant_remove(nl_quant_t *q, double x)
{
    if (isnan(x) || q->nb == 0) return NL_EINVAL;
    uint32_t i = count_below(q->first, q->nb, x), pos;
    if (i < q->nb && q->first[i] == x) {
        pos = 0;
    } else {
        if (i == 0) return NL_EINVAL;
        i--;
        pos = count_below(q->blk[i], q->cnt[i], x);
        if (pos == q->cnt[i] || q->blk[i][pos] != x) return NL_EINVAL;
    }
    double *b = q->blk[i];
    uint32_t c = --q->cnt[i];
    memmove(b + pos, b + pos + 1, (c - pos) * sizeof *b);
    q->n--;
    if (c == 0) {
        drop_block(q, i);
        fen_build(q);
        return 0;
    }
    q->first[i] = b[0];
    if (c < q->bsize / 4 && q->nb > 1)
        rebalance(q, i);
    else
        fen_add(q, i, -1);
    return 0;
}

double nl_quant_select(const nl_quant_t *q, size_t k)
{
    if (k >= q->n) return NAN;
    uint32_t off, i = fen_find(q, k, &off);
    return q->blk[i][off];
}

size_t nl_quant_rank(const nl_quant_t *q, double x)
{
    uint32_t i = count_below(q->first, q->nb, x);
    if (i == 0) return 0;
    i--;
    return fen_before(q, i) + count_below(q->blk[i], q->cnt[i], x);
}

/* The u-quantile; *k and *lo the order statistic it starts from (lo NaN when none), *blk
 * and *off where that one sits. */
static double quantile_at(const nl_quant_t *q, double u, size_t *k, double *lo, uint32_t *blk,
                          uint32_t *off)
{
    size_t n = q->n;
    *k = 0;
    *lo = NAN;
    if (n == 0 || !(u >= 0.0 && u <= 1.0)) return NAN;
    /* h >= 0 and far below 2^53: truncation is floor, without libm's general floor */
    double h = (double)(n - 1) * u;
    *k = (size_t)h;
    double f = (double)*k;
    uint32_t i = fen_find(q, *k, off);
    *blk = i;
    *lo = q->blk[i][*off];
    if (*k + 1 >= n || h == f) return *lo;
    /* the next order statistic: in the same block, or first in the next */
    double hi = *off + 1 < q->cnt[i] ? q->blk[i][*off + 1] : q->first[i + 1];
    return *lo + (h - f) * (hi - *lo);
}

double nl_quant_quantile(const nl_quant_t *q, double u)
{
    size_t k;
    double lo;
    uint32_t i, off;
    return quantile_at(q, u, &k, &lo, &i, &off);
}

double nl_quant_quantile_below(const nl_quant_t *q, double u, size_t *below)
{
    size_t k;
    double lo;
    uint32_t i, off;
    double r = quantile_at(q, u, &k, &lo, &i, &off);
    if (isnan(lo)) {
        *below = 0;
    } else if (r > lo) { /* above lo (so at most the next one): the values up to lo */
        *below = k + 1;
    } else { /* r is lo: the k before it, unless the one before is lo too (then count) */
        double prev = off ? q->blk[i][off - 1] : i ? q->blk[i - 1][q->cnt[i - 1] - 1] : -INFINITY;
        *below = r == lo && (k == 0 || prev < lo) ? k : nl_quant_rank(q, r);
    }
    return r;
}
