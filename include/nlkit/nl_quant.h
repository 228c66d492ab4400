/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nl_quant.h — an order-statistic multiset of doubles: add, remove, k-th smallest, rank and
 * empirical quantiles, each in O(log n). The detector's CDF algorithms keep their history
 * in one, so a sliding window of N values costs O(log N) per new value instead of a sort;
 * the missing-event tracker learns timeouts from one.
 *
 * It is a sorted list of blocks of about sqrt(n) values each, with a directory that finds
 * a block by value (binary search) or by rank (a Fenwick tree): O(log n) comparisons and
 * one memmove of at most a block per update, 8 bytes of memory per value, all of it
 * contiguous. Blocks are kept once allocated, so an update allocates nothing once the
 * structure has reached its working size. Nothing is random: the same sequence of calls
 * always builds the same structure. Not thread-safe: one owner at a time.
 */
#ifndef NLKIT_NL_QUANT_H
#define NLKIT_NL_QUANT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most values one structure holds (the array is indexed by 32-bit integers). */
#define NL_QUANT_MAX ((size_t)1 << 30)

/** An order-statistic multiset. Opaque. */
typedef struct nl_quant nl_quant_t;

/** A new, empty multiset sized for about `hint` values (its blocks' size; 0: small). It
 *  holds more if asked, regrouping into larger blocks as it grows; memory is taken as
 *  values arrive. Returns NULL if out of memory. */
nl_quant_t *nl_quant_new(size_t hint);

/** Free a multiset. NULL is allowed. */
void nl_quant_free(nl_quant_t *q);

/** Remove every value, keeping the storage. */
void nl_quant_clear(nl_quant_t *q);

/** Add one value (duplicates are kept). Returns 0, NL_EINVAL for NaN (it has no place in
 *  an order), or NL_ENOMEM (the multiset is unchanged). */
int nl_quant_add(nl_quant_t *q, double x);

/** Remove one occurrence of a value equal to x. Returns 0, or NL_EINVAL if there is none. */
int nl_quant_remove(nl_quant_t *q, double x);

/** Number of values held. */
size_t nl_quant_count(const nl_quant_t *q);

/** The k-th smallest value, k counted from 0; NaN if k >= count. */
double nl_quant_select(const nl_quant_t *q, size_t k);

/** How many values are strictly less than x. */
size_t nl_quant_rank(const nl_quant_t *q, double x);

/** The empirical u-quantile, 0 <= u <= 1, interpolated between order statistics as R's
 *  default (type 7) and numpy's: with the values sorted as v[0..n-1] and h = (n-1)u,
 *  v[floor(h)] + (h - floor(h)) (v[floor(h)+1] - v[floor(h)]). NaN when empty or u is out of
 *  range. */
double nl_quant_quantile(const nl_quant_t *q, double u);

/** The u-quantile, as nl_quant_quantile, and in *below how many values are strictly less
 *  than it (nl_quant_rank of the result; no second search when the quantile falls above
 *  its lower order statistic, as it does between two distinct values). */
double nl_quant_quantile_below(const nl_quant_t *q, double u, size_t *below);

#ifdef __cplusplus
}
#endif
#endif
