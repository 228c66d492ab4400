/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_change.c — CUSUM and the relative-entropy test (see nld_change.h). */
#include "nld_change.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"

int nld_robust_ref(const nld_hist_t *h, double *m, double *spread)
{
    if (!h->q || !h->n) return -1;
    *m = nld_hist_quantile(h, 0.5);
    double s = (nld_hist_quantile(h, 0.75) - nld_hist_quantile(h, 0.25)) / 1.349;
    if (!(s > 0)) s = nld_hist_sd(h); /* mostly one value (a count that is usually 0) */
    *spread = s;
    return 0;
}

double nld_cusum_step(nld_cusum_t *c, double z, double k, int *dir)
{
    if (z > 4) z = 4;
    if (z < -4) z = -4;
    c->gp = fmax(0.0, c->gp + z - k);
    c->gn = fmax(0.0, c->gn - z - k);
    *dir = c->gp >= c->gn ? 1 : -1;
    return fmax(c->gp, c->gn);
}

int nld_relent_push(nld_relent_t *r, uint32_t w, double x)
{
    if (!r->ring) {
        if (!(r->ring = malloc((size_t)w * sizeof *r->ring))) return NL_ENOMEM;
        r->w = w;
    }
    if (r->n < r->w) {
        r->ring[r->n++] = x;
        return 0;
    }
    r->ring[r->head] = x;
    r->head = r->head + 1 == r->w ? 0 : r->head + 1;
    return 0;
}

typedef double nld_v2d __attribute__((vector_size(16)));
typedef long long nld_v2l __attribute__((vector_size(16)));

/* How many of v[0..n-1] are >= e (NaN never is), two at a time: the window is counted once
 * per edge for every value judged, and one compare a value and edge, unvectorized, was an
 * eighth of relent's instructions. */
static uint32_t count_ge(const double *v, uint32_t n, double e)
{
    nld_v2d ev = {e, e};
    nld_v2l acc = {0, 0};
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        nld_v2d x;
        memcpy(&x, v + i, sizeof x);
        acc -= (nld_v2l)(x >= ev); /* a true lane is -1 */
    }
    uint32_t c = (uint32_t)(acc[0] + acc[1]);
    if (i < n) c += v[i] >= e;
    return c;
}

double nld_relent_g(const nld_relent_t *r, const nld_hist_t *h, uint32_t bins, double m, int *dir)
{
    *dir = 1;
    if (!r->ring || r->n < r->w || !h->q || h->n < 2) return NAN;
    /* equal-frequency edges of the history, without repeats (a history that is mostly one
     * value has fewer bins); a bin's reference share is what the history really holds */
    double edge[NLD_RELENT_B_MAX];
    size_t under[NLD_RELENT_B_MAX]; /* the history's values < edge[j] */
    uint32_t ne = 0;
    for (uint32_t j = 1; j < bins; j++) {
        size_t below;
        double e = nl_quant_quantile_below(h->q, (double)j / bins, &below);
        if (!ne || e > edge[ne - 1]) {
            under[ne] = below;
            edge[ne++] = e;
        }
    }
    /* the window's values in each bin: those at or above an edge, less those at or above
     * the next (the edges rise strictly); a NaN is at or above none, so in bin 0 */
    uint32_t nb = ne + 1, cnt[NLD_RELENT_B_MAX + 1], upper = r->n;
    for (uint32_t j = 0; j < ne; j++) {
        uint32_t ge = count_ge(r->ring, r->n, edge[j]);
        cnt[j] = upper - ge;
        upper = ge;
    }
    cnt[ne] = upper;
    double sum = 0;
    for (uint32_t i = 0; i < r->n; i++) sum += r->ring[i];
    *dir = sum / r->n >= m ? 1 : -1;
    double n = (double)h->n, wn = (double)r->n, g = 0, prev = 0;
    for (uint32_t j = 0; j < nb; j++) {
        double below = j < ne ? (double)under[j] : n;
        double ref = (below - prev + 0.5) / (n + 0.5 * nb);
        prev = below;
        double p = (cnt[j] + 0.5) / (wn + 0.5 * nb);
        g += p * log(p / ref);
    }
    return 2.0 * wn * g;
}

void nld_relent_free(nld_relent_t *r)
{
    free(r->ring);
    *r = (nld_relent_t){0};
}
