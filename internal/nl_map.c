/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_map.c — see nl_map.h. */
#include "nl_map.h"

#include <stdlib.h>
#include <string.h>

#include "nl_hash.h"

void nl__map_init(nl__map_t *m, uint64_t seed) { *m = (nl__map_t){.seed = seed}; }

void nl__map_free(nl__map_t *m)
{
    for (size_t i = 0; i < m->nb; i++)
        for (nl__ment_t *e = m->b[i], *nx; e; e = nx) {
            nx = e->next;
            free(e);
        }
    free(m->b);
    *m = (nl__map_t){.seed = m->seed};
}

static nl__ment_t **slot(const nl__map_t *m, const void *key, size_t klen, uint64_t h)
{
    nl__ment_t **p = &m->b[h & (m->nb - 1)];
    while (*p && !((*p)->h == h && (*p)->klen == klen && !memcmp((*p)->key, key, klen)))
        p = &(*p)->next;
    return p;
}

void *nl__map_get(const nl__map_t *m, const void *key, size_t klen)
{
    if (!m->n) return NULL;
    nl__ment_t *e = *slot(m, key, klen, nl__hash(key, klen, m->seed));
    return e ? e->val : NULL;
}

static int grow(nl__map_t *m)
{
    size_t nb = m->nb ? m->nb * 2 : 64;
    nl__ment_t **b = calloc(nb, sizeof *b);
    if (!b) return -1;
    for (size_t i = 0; i < m->nb; i++)
        for (nl__ment_t *e = m->b[i], *nx; e; e = nx) {
            nx = e->next;
            e->next = b[e->h & (nb - 1)];
            b[e->h & (nb - 1)] = e;
        }
    free(m->b);
    m->b = b;
    m->nb = nb;
    return 0;
}

nl__ment_t *nl__map_put(nl__map_t *m, const void *key, size_t klen, void *val)
{
    if (m->n >= m->nb && grow(m)) return NULL;
    nl__ment_t *e = malloc(sizeof *e + klen + 1);
    if (!e) return NULL;
    e->h = nl__hash(key, klen, m->seed);
    e->val = val;
    e->klen = klen;
    memcpy(e->key, key, klen);
    e->key[klen] = 0;
    nl__ment_t **p = &m->b[e->h & (m->nb - 1)];
    e->next = *p;
    *p = e;
    m->n++;
    return e;
}

void *nl__map_del(nl__map_t *m, const void *key, size_t klen)
{
    if (!m->n) return NULL;
    nl__ment_t **p = slot(m, key, klen, nl__hash(key, klen, m->seed));
    nl__ment_t *e = *p;
    if (!e) return NULL;
    void *v = e->val;
    *p = e->next;
    free(e);
    m->n--;
    return v;
}
