/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_hist.c — static and sliding histories (see nld_hist.h). */
#include "nld_hist.h"

#include <math.h>
#include <stdlib.h>

#include "nlkit/nl_bp.h"

int nld_hist_init(nld_hist_t *h, uint32_t cap, int sliding, int want_quantiles)
{
    *h = (nld_hist_t){.cap = cap < 2 ? 2 : cap, .sliding = sliding};
    if (want_quantiles && !(h->q = nl_quant_new(h->cap))) return NL_ENOMEM;
    return 0;
}

void nld_hist_free(nld_hist_t *h)
{
    free(h->v);
    nl_quant_free(h->q);
    *h = (nld_hist_t){0};
}

/* Recompute the sums around the current mean from the stored values: removals by
 * subtraction leave rounding behind, and a shift far from the window's values would make
 * the squares cancel. */
static void rebase(nld_hist_t *h)
{
    double mean = nld_hist_mean(h);
    h->shift = mean;
    h->d1 = h->d2 = (nl_ksum_t){0};
    for (uint32_t i = 0; i < h->n; i++) {
        double d = h->v[i] - mean;
        nl_ksum_add(&h->d1, d);
        nl_ksum_add(&h->d2, d * d);
    }
    h->removed = 0;
}

int nld_hist_add(nld_hist_t *h, double v)
{
    if (isnan(v)) return NL_EINVAL;
    if (h->n == h->cap && !h->sliding) return 0;
    if (h->n < h->cap && h->n == h->alloc) {
        uint32_t na = h->alloc ? h->alloc * 2 : 16;
        if (na > h->cap) na = h->cap;
        double *nv = realloc(h->v, (size_t)na * sizeof *nv);
        if (!nv) return NL_ENOMEM;
        h->v = nv;
        h->alloc = na;
    }
    if (h->q && nl_quant_add(h->q, v)) return NL_ENOMEM;
    if (h->n == 0) {
        h->shift = v;
        h->d1 = h->d2 = (nl_ksum_t){0};
    }
    double d = v - h->shift;
    nl_ksum_add(&h->d1, d);
    nl_ksum_add(&h->d2, d * d);
    if (h->n < h->cap) {
        h->v[h->n++] = v;
        return 0;
    }
    double old = h->v[h->head], od = old - h->shift;
    h->v[h->head] = v;
    h->head = h->head + 1 == h->cap ? 0 : h->head + 1;
    nl_ksum_add(&h->d1, -od);
    nl_ksum_add(&h->d2, -(od * od));
    if (h->q) nl_quant_remove(h->q, old);
    if (++h->removed >= h->cap) rebase(h);
    return 0;
}

double nld_hist_mean(const nld_hist_t *h)
{
    return h->n ? h->shift + nl_ksum_value(&h->d1) / (double)h->n : NAN;
}

double nld_hist_sd(const nld_hist_t *h)
{
    if (h->n < 2) return 0.0;
    double n = (double)h->n, d1 = nl_ksum_value(&h->d1);
    double var = (nl_ksum_value(&h->d2) - d1 * d1 / n) / (n - 1.0);
    return var > 0 ? sqrt(var) : 0.0;
}

double nld_hist_quantile(const nld_hist_t *h, double u)
{
    return h->q ? nl_quant_quantile(h->q, u) : NAN;
}

double nld_hist_share_le(const nld_hist_t *h, double v)
{
    if (!h->q || !h->n) return NAN;
    return (double)nl_quant_rank(h->q, nextafter(v, INFINITY)) / h->n;
}

double nld_hist_share_ge(const nld_hist_t *h, double v)
{
    if (!h->q || !h->n) return NAN;
    return (double)(h->n - nl_quant_rank(h->q, v)) / h->n;
}

void nld_hist_clear(nld_hist_t *h)
{
    h->n = h->head = h->removed = 0;
    h->shift = 0;
    h->d1 = h->d2 = (nl_ksum_t){0};
    if (h->q) nl_quant_clear(h->q);
}
