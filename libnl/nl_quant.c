/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_quant.c — the order-statistic treap behind nl_quant.h.
 *
 * Invariant: for every node, keys in its left subtree are <= its key <= keys in its right
 * subtree (equal keys may sit on either side, which keeps insert simple), and a parent's
 * priority is >= its children's. Node 0 is the empty tree (size 0), so children need no
 * NULL checks. Freed nodes form a list threaded through `l`. */
#include "nlkit/nl_quant.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "nlkit/nl_bp.h"

typedef struct nlq_node {
    double key;
    uint32_t l, r;
    uint32_t size; /* nodes in this subtree */
    uint32_t prio;
} nlq_node_t;

struct nl_quant {
    nlq_node_t *t;
    uint32_t cap;       /* nodes allocated, including node 0 */
    uint32_t used;      /* nodes ever handed out, including node 0 */
    uint32_t free_head; /* first freed node, or 0 */
    uint32_t root;
    uint64_t rng;
};

nl_quant_t *nl_quant_new(size_t hint)
{
    if (hint < 15) hint = 15;
    if (hint > NL_QUANT_MAX) hint = NL_QUANT_MAX;
    nl_quant_t *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->cap = (uint32_t)hint + 1;
    q->t = calloc(q->cap, sizeof *q->t);
    if (!q->t) {
        free(q);
        return NULL;
    }
    q->used = 1;
    q->rng = 0x9e3779b97f4a7c15ULL;
    return q;
}

void nl_quant_free(nl_quant_t *q)
{
    if (!q) return;
    free(q->t);
    free(q);
}

void nl_quant_clear(nl_quant_t *q)
{
    q->used = 1;
    q->free_head = 0;
    q->root = 0;
}

size_t nl_quant_count(const nl_quant_t *q) { return q->t[q->root].size; }

static uint32_t next_prio(nl_quant_t *q)
{
    q->rng ^= q->rng << 13;
    q->rng ^= q->rng >> 7;
    q->rng ^= q->rng << 17;
    return (uint32_t)(q->rng >> 32);
}

static void fix(nlq_node_t *t, uint32_t n) { t[n].size = t[t[n].l].size + t[t[n].r].size + 1; }

/* Split tree n into keys < key (left) and keys >= key (right). */
static void split(nlq_node_t *t, uint32_t n, double key, uint32_t *left, uint32_t *right)
{
    if (!n) {
        *left = *right = 0;
        return;
    }
    if (t[n].key < key) {
        split(t, t[n].r, key, &t[n].r, right);
        *left = n;
    } else {
        split(t, t[n].l, key, left, &t[n].l);
        *right = n;
    }
    fix(t, n);
}

/* Join two trees where every key of a is <= every key of b. */
static uint32_t merge(nlq_node_t *t, uint32_t a, uint32_t b)
{
    if (!a) return b;
    if (!b) return a;
    if (t[a].prio >= t[b].prio) {
        t[a].r = merge(t, t[a].r, b);
        fix(t, a);
        return a;
    }
    t[b].l = merge(t, a, t[b].l);
    fix(t, b);
    return b;
}

static uint32_t insert(nlq_node_t *t, uint32_t n, uint32_t m)
{
    if (!n) return m;
    if (t[m].prio > t[n].prio) {
        split(t, n, t[m].key, &t[m].l, &t[m].r);
        fix(t, m);
        return m;
    }
    if (t[m].key < t[n].key)
        t[n].l = insert(t, t[n].l, m);
    else
        t[n].r = insert(t, t[n].r, m);
    fix(t, n);
    return n;
}

int nl_quant_add(nl_quant_t *q, double x)
{
    if (isnan(x)) return NL_EINVAL;
    uint32_t m = q->free_head;
    if (m) {
        q->free_head = q->t[m].l;
    } else {
        if (q->used == q->cap) {
            if (q->cap > NL_QUANT_MAX) return NL_ENOMEM;
            size_t ncap = (size_t)q->cap * 2;
            nlq_node_t *nt = realloc(q->t, ncap * sizeof *nt);
            if (!nt) return NL_ENOMEM;
            q->t = nt;
            q->cap = (uint32_t)ncap;
        }
        m = q->used++;
    }
    q->t[m] = (nlq_node_t){.key = x, .size = 1, .prio = next_prio(q)};
    q->root = insert(q->t, q->root, m);
    return 0;
}

/* Remove one node whose key equals key from tree n; *gone gets the freed node or 0. */
static uint32_t erase(nlq_node_t *t, uint32_t n, double key, uint32_t *gone)
{
    if (!n) return 0;
    if (key == t[n].key) {
        *gone = n;
        return merge(t, t[n].l, t[n].r);
    }
    if (key < t[n].key)
        t[n].l = erase(t, t[n].l, key, gone);
    else
        t[n].r = erase(t, t[n].r, key, gone);
    if (*gone) fix(t, n);
    return n;
}

int nl_quant_remove(nl_quant_t *q, double x)
{
    if (isnan(x)) return NL_EINVAL;
    uint32_t gone = 0;
    q->root = erase(q->t, q->root, x, &gone);
    if (!gone) return NL_EINVAL;
    q->t[gone].l = q->free_head;
    q->free_head = gone;
    return 0;
}

double nl_quant_select(const nl_quant_t *q, size_t k)
{
    const nlq_node_t *t = q->t;
    uint32_t n = q->root;
    if (k >= t[n].size) return NAN;
    for (;;) {
        uint32_t ls = t[t[n].l].size;
        if (k < ls) {
            n = t[n].l;
        } else if (k == ls) {
            return t[n].key;
        } else {
            k -= ls + 1;
            n = t[n].r;
        }
    }
}

size_t nl_quant_rank(const nl_quant_t *q, double x)
{
    const nlq_node_t *t = q->t;
    size_t below = 0;
    for (uint32_t n = q->root; n;) {
        if (x <= t[n].key) {
            n = t[n].l;
        } else {
            below += (size_t)t[t[n].l].size + 1;
            n = t[n].r;
        }
    }
    return below;
}

double nl_quant_quantile(const nl_quant_t *q, double u)
{
    size_t n = nl_quant_count(q);
    if (n == 0 || !(u >= 0.0 && u <= 1.0)) return NAN;
    double h = (double)(n - 1) * u, f = floor(h);
    size_t i = (size_t)f;
    double lo = nl_quant_select(q, i);
    if (i + 1 >= n || h == f) return lo;
    return lo + (h - f) * (nl_quant_select(q, i + 1) - lo);
}
