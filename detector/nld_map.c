/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_map.c — see nld_map.h. */
#include "nld_map.h"

#include <stdlib.h>
#include <string.h>

#include "nl_hash.h"

void nld_map_init(nld_map_t *m, uint64_t seed) { *m = (nld_map_t){.seed = seed}; }

void nld_map_free(nld_map_t *m)
{
    for (size_t i = 0; i < m->nb; i++)
        for (nld_ment_t *e = m->b[i], *nx; e; e = nx) {
            nx = e->next;
            free(e);
        }
    free(m->b);
    *m = (nld_map_t){.seed = m->seed};
}

static nld_ment_t **slot(const nld_map_t *m, const void *key, size_t klen, uint64_t h)
{
    nld_ment_t **p = &m->b[h & (m->nb - 1)];
    while (*p && !((*p)->h == h && (*p)->klen == klen && !memcmp((*p)->key, key, klen)))
        p = &(*p)->next;
    return p;
}

void *nld_map_get(const nld_map_t *m, const void *key, size_t klen)
{
    if (!m->n) return NULL;
    nld_ment_t *e = *slot(m, key, klen, nl__hash(key, klen, m->seed));
    return e ? e->val : NULL;
}

static int grow(nld_map_t *m)
{
    size_t nb = m->nb ? m->nb * 2 : 64;
    nld_ment_t **b = calloc(nb, sizeof *b);
    if (!b) return -1;
    for (size_t i = 0; i < m->nb; i++)
        for (nld_ment_t *e = m->b[i], *nx; e; e = nx) {
            nx = e->next;
            e->next = b[e->h & (nb - 1)];
            b[e->h & (nb - 1)] = e;
        }
    free(m->b);
    m->b = b;
    m->nb = nb;
    return 0;
}

nld_ment_t *nld_map_put(nld_map_t *m, const void *key, size_t klen, void *val)
{
    if (m->n >= m->nb && grow(m)) return NULL;
    nld_ment_t *e = malloc(sizeof *e + klen + 1);
    if (!e) return NULL;
    e->h = nl__hash(key, klen, m->seed);
    e->val = val;
    e->klen = klen;
    memcpy(e->key, key, klen);
    e->key[klen] = 0;
    nld_ment_t **p = &m->b[e->h & (m->nb - 1)];
    e->next = *p;
    *p = e;
    m->n++;
    return e;
}

void *nld_map_del(nld_map_t *m, const void *key, size_t klen)
{
    if (!m->n) return NULL;
    nld_ment_t **p = slot(m, key, klen, nl__hash(key, klen, m->seed));
    nld_ment_t *e = *p;
    if (!e) return NULL;
    void *v = e->val;
    *p = e->next;
    free(e);
    m->n--;
    return v;
}
