/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_hist.c — log-linear histograms (nl_hist.h): growing the window, merging, quantiles,
 * and the line form. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nl_hist.h"

double nl__hist_mid(uint32_t k)
{
    uint64_t lo = (uint64_t)k << 47, hi = (uint64_t)(k + 1) << 47;
    double a, b;
    memcpy(&a, &lo, sizeof a);
    memcpy(&b, &hi, sizeof b);
    return k < 32 ? 0.0 : a + (b - a) / 2; /* below DBL_MIN: bucket 0, zero */
}

/* Make the window cover bucket k, keeping the counts. Grows in whole 64-bucket steps on
 * the side that needs it, so a slowly widening range reallocates rarely. */
static int cover(nl__hist_t *h, uint32_t k)
{
    int64_t lo = h->cap ? h->lo : (int64_t)(k & ~63u);
    int64_t hi = h->cap ? (int64_t)h->lo + h->cap : lo + 64; /* exclusive */
    int64_t nlo = (int64_t)k < lo ? (int64_t)(k & ~63u) : lo;
    int64_t nhi = (int64_t)k >= hi ? (int64_t)((k | 63u) + 1) : hi;
    if (nhi - nlo > NL_HIST_SPAN_MAX) {
        /* the widest span allowed that still holds the old window and k, if there is one */
        if ((int64_t)k < lo && hi - (int64_t)k <= NL_HIST_SPAN_MAX)
            nlo = hi - NL_HIST_SPAN_MAX;
        else if ((int64_t)k >= hi && (int64_t)k + 1 - lo <= NL_HIST_SPAN_MAX)
            nhi = lo + NL_HIST_SPAN_MAX;
        else
            return -1;
        if (nlo < 0) nlo = 0;
        if (nhi > NL_HIST_BUCKETS) nhi = NL_HIST_BUCKETS;
    }
    if (nhi > NL_HIST_BUCKETS) nhi = NL_HIST_BUCKETS;
    size_t ncap = (size_t)(nhi - nlo);
    uint32_t *p = realloc(h->cnt, ncap * sizeof *p);
    if (!p) return -1;
    size_t shift = (size_t)(lo - nlo);
    if (h->cap) memmove(p + shift, p, h->cap * sizeof *p);
    memset(p, 0, shift * sizeof *p);
    memset(p + shift + h->cap, 0, (ncap - shift - h->cap) * sizeof *p);
    h->cnt = p;
    h->lo = (int32_t)nlo;
    h->cap = (uint32_t)ncap;
    return 0;
}

int nl__hist_add_slow(nl__hist_t *h, double x)
{
    if (x >= 0 && x < DBL_MIN) {
        h->zero++;
        h->n++;
        return 0;
    }
    if (!(x >= 0 && x <= DBL_MAX) || cover(h, nl__hist_bucket(x))) {
        h->refused++;
        return -1;
    }
    h->cnt[nl__hist_bucket(x) - (uint32_t)h->lo]++;
    h->n++;
    return 0;
}

/* Add c values to bucket k. */
static int add_count(nl__hist_t *h, uint32_t k, uint64_t c)
{
    if (k < 32) {
        h->zero += c;
        h->n += c;
        return 0;
    }
    uint32_t i = k - (uint32_t)h->lo;
    if (i >= h->cap) {
        if (cover(h, k)) {
            h->refused += c;
            return -1;
        }
        i = k - (uint32_t)h->lo;
    }
    /* counts are 32-bit: an interval of 4 billion values in one bucket saturates there */
    uint64_t v = h->cnt[i] + c;
    if (v > UINT32_MAX) {
        h->refused += v - UINT32_MAX;
        c -= v - UINT32_MAX;
        v = UINT32_MAX;
    }
    h->cnt[i] = (uint32_t)v;
    h->n += c;
    return 0;
}

int nl__hist_merge(nl__hist_t *dst, const nl__hist_t *src)
{
    int rc = 0;
    for (uint32_t i = 0; i < src->cap; i++)
        if (src->cnt[i] && add_count(dst, (uint32_t)src->lo + i, src->cnt[i])) rc = -1;
    dst->zero += src->zero;
    dst->n += src->zero;
    dst->refused += src->refused;
    return rc;
}

double nl__hist_quantile(const nl__hist_t *h, double q, double lo, double hi)
{
    if (!h->n) return NAN;
    if (q < 0) q = 0;
    if (q > 1) q = 1;
    uint64_t rank = (uint64_t)ceil(q * (double)h->n);
    if (rank < 1) rank = 1;
    uint64_t seen = h->zero;
    double v = 0;
    for (uint32_t i = 0; seen < rank && i < h->cap; i++) {
        seen += h->cnt[i];
        if (seen >= rank) v = nl__hist_mid((uint32_t)h->lo + i);
    }
    return v < lo ? lo : v > hi ? hi : v;
}

void nl__hist_clear(nl__hist_t *h)
{
    if (h->cap) memset(h->cnt, 0, h->cap * sizeof *h->cnt);
    h->n = h->zero = h->refused = 0;
}

void nl__hist_free(nl__hist_t *h)
{
    free(h->cnt);
    memset(h, 0, sizeof *h);
}

void nl__hist_put(nl_buf_t *b, const nl__hist_t *h)
{
    char tmp[32];
    int64_t prev = -1;
    if (h->zero) {
        int n = snprintf(tmp, sizeof tmp, "0:%llu", (unsigned long long)h->zero);
        nl__put(b, tmp, (size_t)n);
        prev = 0;
    }
    for (uint32_t i = 0; i < h->cap; i++) {
        if (!h->cnt[i]) continue;
        int64_t k = (int64_t)h->lo + i;
        int n = snprintf(tmp, sizeof tmp, "%s%lld:%u", prev < 0 ? "" : ",",
                         (long long)(prev < 0 ? k : k - prev), h->cnt[i]);
        nl__put(b, tmp, (size_t)n);
        prev = k;
    }
}

/* A decimal number at s[*i] (no sign), at most `max`; -1 if none or too large. */
static int64_t number(const char *s, size_t len, size_t *i, int64_t max)
{
    size_t start = *i;
    int64_t v = 0;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        v = v * 10 + (s[*i] - '0');
        if (v > max) return -1;
        (*i)++;
    }
    return *i == start ? -1 : v;
}

int nl__hist_parse(nl__hist_t *h, const char *s, size_t len)
{
    size_t i = 0;
    int64_t k = -1;
    while (i < len) {
        if (k >= 0 && s[i++] != ',') return -1;
        int64_t g = number(s, len, &i, NL_HIST_BUCKETS);
        if (g < 0 || (k >= 0 && g == 0) || i >= len || s[i++] != ':') return -1;
        int64_t c = number(s, len, &i, UINT32_MAX);
        k = k < 0 ? g : k + g;
        if (c <= 0 || k >= NL_HIST_BUCKETS) return -1;
        if (add_count(h, (uint32_t)k, (uint64_t)c)) return -1;
    }
    return k < 0 ? -1 : 0;
}
