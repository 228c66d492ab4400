/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_confirm.c — the recent spikes a lone flag is held against (see nld_confirm.h). */
#include "nld_confirm.h"

#include <math.h>

#define AT(c, i) (((c)->head + (i)) % NLD_CONFIRM_CAP)

double nld_confirm_recent(nld_confirm_t *c, int64_t now, double within_s)
{
    while (c->n && (double)now - (double)c->t[c->head] > within_s * 1e6) {
        c->head = (uint8_t)AT(c, 1);
        c->n--;
    }
    return c->n ? c->s[c->head] : 0;
}

void nld_confirm_add(nld_confirm_t *c, int64_t t, double s, double floor)
{
    if (!(s >= floor) || !(s > 0)) return;
    /* entries no larger than s can never again be the maximum: s outlives them */
    while (c->n && c->s[AT(c, c->n - 1)] <= s) c->n--;
    if (c->n && t < c->t[AT(c, c->n - 1)]) t = c->t[AT(c, c->n - 1)];
    if (c->n == NLD_CONFIRM_CAP) c->n--; /* full: the smallest older entry makes room */
    int i = AT(c, c->n);
    c->t[i] = t;
    c->s[i] = s;
    c->n++;
}

int nld_confirm_wait(nld_confirm_t *c, int64_t now, double sv, double st, double f, int every,
                     int familiar)
{
    if (!(st > 0) || !(f > 0) || (sv >= f * st && !(every && familiar))) return 0;
    return every || nld_confirm_recent(c, now, NLD_CONFIRM_WITHIN_S) >= NLD_CONFIRM_LIKE * sv;
}

double nld_confirm_factor(double f, double st, double spacing_s, double wait_s)
{
    if (!(f > 0) || !(st > 0) || !nld_confirm_every(spacing_s, wait_s)) return f;
    return f + log10(wait_s / spacing_s) / st;
}

int nld_confirm_every(double spacing_s, double wait_s)
{
    return wait_s > 0 && spacing_s > 0 && spacing_s <= wait_s;
}

void nld_confirm_learn(nld_confirm_t *c, double sv, double st, uint64_t rows)
{
    if (!rows) rows = 1;
    double a = 1 - 1 / NLD_CONFIRM_PERSIST_N, ar = rows == 1 ? a : pow(a, (double)rows);
    int near = sv >= NLD_CONFIRM_NEXT * st;
    /* the value after the last near one is this one (rows 1) or an earlier, not near */
    double after = c->near_last ? ar / a : 0;
    c->near_n = c->near_n * ar + (1 - ar) / (1 - a);
    c->near_hi = c->near_hi * ar + near;
    c->near_prev = c->near_prev * ar + after;
    c->near_both = c->near_both * ar + (c->near_last && rows == 1 && near);
    c->near_last = near;
}

uint32_t nld_confirm_need(const nld_confirm_t *c, double spacing_s, double wait_s, int seen)
{
    if (!nld_confirm_every(spacing_s, wait_s)) return 1;
    /* a new stream starts as one with NLD_CONFIRM_CHANCE of its values near, worth 100 */
    double p = (c->near_hi + 100 * NLD_CONFIRM_CHANCE) / (c->near_n + 100);
    double q = (c->near_both + NLD_CONFIRM_PRIOR * p) / (c->near_prev + NLD_CONFIRM_PRIOR);
    int whole = seen && q >= NLD_CONFIRM_RUNS;
    double within = whole || wait_s < NLD_CONFIRM_RUN_S ? wait_s : NLD_CONFIRM_RUN_S;
    double cap = floor(within / spacing_s + 1e-9);
    if (cap < 1) cap = 1;
    if (whole) return (uint32_t)fmin(cap, UINT32_MAX);
    /* independent values: as many in a row as make a chance under NLD_CONFIRM_CHANCE */
    double k = p > NLD_CONFIRM_CHANCE && p < 1 ? ceil(log(NLD_CONFIRM_CHANCE) / log(p) - 1e-9) : 1;
    /* persistent ones: q^k = p, as unlikely as one more independent value */
    if (q > p && p < 1) {
        double kq = q < 1 ? floor(log(p) / log(q) + 0.5) : cap;
        if (kq > k) k = kq;
    }
    if (!(k <= cap)) k = cap;
    return k < 1 ? 1 : (uint32_t)k;
}

void nld_confirm_hold(nld_confirm_t *c, int64_t t, double sv, double spacing_s, double wait_s)
{
    c->seen = nld_confirm_recent(c, t, NLD_CONFIRM_WITHIN_S);
    c->longer = c->seen >= sv;
    c->pending = 1;
    c->pend_t = t;
    c->pend_s = sv;
    c->need = nld_confirm_need(c, spacing_s, wait_s, c->longer);
    c->got = 0;
}

int nld_confirm_more(nld_confirm_t *c, double sv, double spacing_s, double wait_s)
{
    if (c->longer && sv > c->seen) { /* beyond the recent range: k from this value on */
        c->need = nld_confirm_need(c, spacing_s, wait_s, 0);
        c->got = 0;
        c->longer = 0;
    }
    if (++c->got >= c->need) return 0;
    if (sv > c->pend_s) c->pend_s = sv;
    return 1;
}

unsigned nld_confirm_step(nld_confirm_t *c, int64_t t, double x, double sv, double st, int dir,
                          int active, int run, double f, double spacing_s, double wait_s,
                          int familiar)
{
    unsigned out = 0;
    if (c->pending) {
        int near = !active && sv >= NLD_CONFIRM_NEXT * st;
        if (near && nld_confirm_more(c, sv, spacing_s, wait_s)) { /* one more of them */
            if (x < c->pend_lo) c->pend_lo = x;
            if (x > c->pend_hi) c->pend_hi = x;
            nld_confirm_add(c, t, sv, NLD_CONFIRM_LIKE * st);
            return NLD_CF_WAIT;
        }
        c->pending = 0;
        out = near ? NLD_CF_CONFIRMED : NLD_CF_DROPPED;
    }
    /* only a flag that begins a run is lone: one that goes on a run counts at once */
    int wait = !(out & NLD_CF_CONFIRMED) && dir && !active && !run &&
               nld_confirm_wait(c, t, sv, st, nld_confirm_factor(f, st, spacing_s, wait_s),
                                nld_confirm_every(spacing_s, wait_s), familiar);
    if (wait) {
        nld_confirm_hold(c, t, sv, spacing_s, wait_s);
        c->dir = dir;
        c->pend_lo = c->pend_hi = x;
        out |= NLD_CF_WAIT;
    }
    nld_confirm_add(c, t, sv, NLD_CONFIRM_LIKE * st);
    return out;
}
