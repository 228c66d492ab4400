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

int nld_confirm_wait(nld_confirm_t *c, int64_t now, double sv, double st, double f, int every)
{
    if (!(st > 0) || !(f > 0) || sv >= f * st) return 0;
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
