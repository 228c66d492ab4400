/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_moments.c — the parts of nl_moments.h that are not on the hot path. */
#include "nlkit/nl_moments.h"

void nl_mom_init(nl_moments_t *m)
{
    *m = (nl_moments_t){0};
    m->min = INFINITY;
    m->max = -INFINITY;
}

void nl_mom_merge(nl_moments_t *into, const nl_moments_t *from)
{
    if (from->n == 0) return;
    if (into->n == 0) {
        *into = *from;
        return;
    }
    /* Re-express from's shifted sums around into's shift:
     *   sum (x - a)   = sum (x - b) + n (b - a)
     *   sum (x - a)^2 = sum (x - b)^2 + 2 (b - a) sum (x - b) + n (b - a)^2 */
    double delta = from->shift - into->shift, n = (double)from->n;
    double fd1 = nl_ksum_value(&from->d1);
    nl_ksum_add(&into->d2, from->d2.s);
    nl_ksum_add(&into->d2, from->d2.c);
    nl_ksum_add(&into->d2, 2.0 * delta * fd1);
    nl_ksum_add(&into->d2, n * delta * delta);
    nl_ksum_add(&into->d1, from->d1.s);
    nl_ksum_add(&into->d1, from->d1.c);
    nl_ksum_add(&into->d1, n * delta);
    into->n += from->n;
    if (from->min < into->min) into->min = from->min;
    if (from->max > into->max) into->max = from->max;
}

/* n shift + d1: exact where the values are integers (n shift is, below 2^53), and within
 * two roundings of the true sum otherwise: a third compensated sum on the hot path bought
 * no more. */
double nl_mom_sum(const nl_moments_t *m)
{
    return m->n ? (double)m->n * m->shift + nl_ksum_value(&m->d1) : 0.0;
}

double nl_mom_mean(const nl_moments_t *m)
{
    return m->n ? m->shift + nl_ksum_value(&m->d1) / (double)m->n : NAN;
}

double nl_mom_sd(const nl_moments_t *m)
{
    if (m->n < 2) return 0.0;
    double n = (double)m->n, d1 = nl_ksum_value(&m->d1);
    double var = (nl_ksum_value(&m->d2) - d1 * d1 / n) / (n - 1.0);
    return var > 0 ? sqrt(var) : 0.0;
}

double nl_mom_min(const nl_moments_t *m) { return m->n ? m->min : NAN; }
double nl_mom_max(const nl_moments_t *m) { return m->n ? m->max : NAN; }
