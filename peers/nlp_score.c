/* SPDX-License-Identifier: BSD-3-Clause */
/* nlp_score.c — peer comparison arithmetic (see nlp_score.h). Host counts are small (tens
 * to hundreds), so selections copy and sort rather than keep clever structures. */
#include "nlp_score.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void nlp_normalize(double *x, size_t n)
{
    double t = 0;
    for (size_t i = 0; i < n; i++) t += x[i];
    if (t > 0)
        for (size_t i = 0; i < n; i++) x[i] /= t;
}

double nlp_distance(const double *a, const double *b, size_t n, int kind)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double d = a[i] - b[i];
        s += kind == NLP_EUCLID ? d * d : fabs(d);
    }
    return kind == NLP_EUCLID ? sqrt(s) : s;
}

typedef struct {
    double d;
    int i;
} idx_dist_t;

static int by_dist(const void *x, const void *y)
{
    const idx_dist_t *a = x, *b = y;
    if (a->d != b->d) return a->d < b->d ? -1 : 1;
    return a->i - b->i; /* ties: the lower index, so results never depend on qsort */
}

/* The others' distances, sorted; returns how many (n - 1), or 0. */
static size_t others_sorted(const double *d, size_t n, size_t self, idx_dist_t **out)
{
    *out = NULL;
    if (n < 2 || !(*out = malloc((n - 1) * sizeof **out))) return 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i != self) (*out)[m++] = (idx_dist_t){d[i], (int)i};
    qsort(*out, m, sizeof **out, by_dist);
    return m;
}

static int before(const idx_dist_t *a, const idx_dist_t *b)
{
    return a->d < b->d || (a->d == b->d && a->i < b->i);
}

/* Put the k-th smallest of o[0..m) (by distance, then index: the same as sorting) at
 * o[k - 1], in linear time on average: nl-flows asks this once per flow over a hundred
 * or more neighbours, where sorting them all was a third of its time. */
static void select_kth(idx_dist_t *o, size_t m, size_t k)
{
    size_t lo = 0, hi = m - 1, want = k - 1;
    while (lo < hi) {
        idx_dist_t pv = o[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (before(&o[i], &pv)) i++;
            while (before(&pv, &o[j])) j--;
            if (i <= j) {
                idx_dist_t t = o[i];
                o[i] = o[j];
                o[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (want <= j && j != (size_t)-1) hi = j;
        else if (want >= i) lo = i;
        else return;
    }
}

double nlp_kth_nearest(const double *d, size_t n, size_t self, size_t k, int *which)
{
    *which = -1;
    idx_dist_t *o = n >= 2 ? malloc((n - 1) * sizeof *o) : NULL;
    if (!o) return NAN;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (i != self) o[m++] = (idx_dist_t){d[i], (int)i};
    if (k < 1) k = 1;
    if (k > m) k = m;
    select_kth(o, m, k);
    *which = o[k - 1].i;
    double r = o[k - 1].d;
    free(o);
    return r;
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double nlp_median(const double *x, size_t n)
{
    double *s = n ? malloc(n * sizeof *s) : NULL;
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_dbl);
    double r = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return r;
}

double nlp_median_other(const double *d, size_t n, size_t self)
{
    idx_dist_t *o;
    size_t m = others_sorted(d, n, self, &o);
    if (!m) return NAN;
    double r = m % 2 ? o[m / 2].d : (o[m / 2 - 1].d + o[m / 2].d) / 2;
    free(o);
    return r;
}

size_t nlp_default_k(size_t hosts) { return hosts / 4 > 1 ? hosts / 4 : 1; }

int nlp_culprit(const double *a, const double *b, size_t n, double *diff)
{
    int best = -1;
    double bd = -1;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (d > bd) {
            bd = d;
            best = (int)i;
        }
    }
    *diff = best >= 0 ? a[best] - b[best] : 0;
    return best;
}

int nlp_k_of_window(uint32_t history, int k)
{
    if (k < 1) k = 1;
    if (k > 16) k = 16;
    uint32_t mask = (1u << (2 * k - 1)) - 1;
    return __builtin_popcount(history & mask) >= k;
}

int nlp_failstop(const double *last, size_t n, double skew)
{
    if (n < 3) return -1;
    size_t e = 0;
    for (size_t i = 1; i < n; i++)
        if (last[i] < last[e]) e = i;
    double mean = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        if (i != e) mean += last[i];
    mean /= (double)(n - 1);
    for (size_t i = 0; i < n; i++)
        if (i != e) ss += (last[i] - mean) * (last[i] - mean);
    double sd = n > 2 ? sqrt(ss / (double)(n - 2)) : 0;
    double gap = mean - last[e];
    return gap > skew && gap > 3 * sd ? (int)e : -1;
}
