/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_hist.h — internal: mergeable log-linear histograms of non-negative values (durations,
 * byte counts), the percentiles of a summary line.
 *
 * Buckets ("ll5"): the bucket of x >= 0 is the top 16 bits of its IEEE-754 double after the
 * sign bit: 11 exponent bits and 5 mantissa bits. Each power of two is cut into 32 buckets
 * of equal width, a bucket is at most 1/32 of its lower bound wide, and its midpoint is
 * within 1/64 (1.6 %) of every value in it. The buckets are the same on every host and in
 * every interval, so histograms merge by adding counts: the merge of any set of them is
 * exactly the histogram one would have made of all their values. Zero (and every value
 * below DBL_MIN) has a bucket of its own, 0, outside the window: a duration that the clock
 * could not tell from zero does not stretch it.
 *
 * On a line (the `dur.h` field of a summary): "B:C,G:C,..." — the first bucket B and its
 * count C, then for each further non-empty bucket its gap G from the previous one and its
 * count, in increasing order. Only characters that need no quoting. */
#ifndef NLKIT_NL_HIST_H
#define NLKIT_NL_HIST_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nl_buf.h"

/* Widest range of buckets one histogram spans: 64 powers of two (1 ns to 18e9 s, or 1
 * byte to 18 EB). Values that would widen it further are refused and counted. */
#define NL_HIST_SPAN_MAX 2048
/* Buckets in all (the 16 bits). */
#define NL_HIST_BUCKETS 65536

/* A histogram: a window of counters over buckets [lo, lo + cap), grown on demand. All zero
 * is an empty histogram that owns nothing. */
typedef struct nl__hist {
    uint32_t *cnt;
    int32_t lo;
    uint32_t cap;
    uint64_t n;       /* values counted, zeros included */
    uint64_t zero;    /* of which in bucket 0 (below DBL_MIN) */
    uint64_t refused; /* negative, not finite, or beyond NL_HIST_SPAN_MAX of the others */
} nl__hist_t;

/* The bucket of a finite x >= 0 (below 32: bucket 0, zero). */
static inline uint32_t nl__hist_bucket(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return (uint32_t)(b >> 47);
}

/* The midpoint of bucket k: what a value in it is reported as (0 for bucket 0). */
double nl__hist_mid(uint32_t k);

/* Count x. 0, or -1 if it was refused (counted in h->refused) or memory ran out (the same:
 * a refusal, never a wrong count). Growing the window is the only allocation, and rare. */
int nl__hist_add_slow(nl__hist_t *h, double x);
static inline int nl__hist_add(nl__hist_t *h, double x)
{
    uint32_t k = nl__hist_bucket(x);
    uint32_t i = k - (uint32_t)h->lo;
    if (x >= 0 && x <= DBL_MAX && i < h->cap) { /* unsigned: below lo wraps past cap */
        h->cnt[i]++;
        h->n++;
        return 0;
    }
    return nl__hist_add_slow(h, x);
}

/* Add every count of src to dst (the merge). 0 or -1 as nl__hist_add. */
int nl__hist_merge(nl__hist_t *dst, const nl__hist_t *src);

/* The q-quantile (0 <= q <= 1) by nearest rank: the midpoint of the bucket that holds the
 * ceil(q n)-th smallest value (the smallest for q = 0), clamped to [lo, hi] (the exact
 * extremes, when known; pass -INFINITY, INFINITY otherwise). NAN for an empty histogram. */
double nl__hist_quantile(const nl__hist_t *h, double q, double lo, double hi);

/* Empty it, keeping its storage. */
void nl__hist_clear(nl__hist_t *h);
/* Release its storage; it is an empty histogram again. */
void nl__hist_free(nl__hist_t *h);

/* Append the line form ("B:C,G:C,...") of a non-empty histogram. */
void nl__hist_put(nl_buf_t *b, const nl__hist_t *h);
/* Add the counts of a line form of len bytes to h. 0, or -1 if the text is malformed (a
 * bucket out of range or not increasing, a zero count) or memory ran out; h then holds
 * what was read before the problem, and the caller discards it. */
int nl__hist_parse(nl__hist_t *h, const char *s, size_t len);

#endif
