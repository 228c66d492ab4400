/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_map.h — a hash map from byte-string keys to pointers: streams by key, pending starts
 * by identity, activities by name. Keys are copied; values are the caller's. Seeded hash,
 * chains, doubling when the load passes 1, so lookups stay O(1) whatever the key set. */
#ifndef NLKIT_NLD_MAP_H
#define NLKIT_NLD_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct nld_ment {
    struct nld_ment *next;
    uint64_t h;
    void *val;
    size_t klen;
    char key[]; /* klen bytes, then a NUL */
} nld_ment_t;

typedef struct nld_map {
    nld_ment_t **b;
    size_t nb, n;
    uint64_t seed;
} nld_map_t;

/* Start an empty map. */
void nld_map_init(nld_map_t *m, uint64_t seed);
/* Free the map's own storage (not the values). */
void nld_map_free(nld_map_t *m);
/* The value stored for a key, or NULL. */
void *nld_map_get(const nld_map_t *m, const void *key, size_t klen);
/* Store a value for a key not yet present. Returns the entry (its key is a stable,
 * NUL-terminated copy) or NULL when out of memory. */
nld_ment_t *nld_map_put(nld_map_t *m, const void *key, size_t klen, void *val);
/* Remove a key; returns its value, or NULL if absent. */
void *nld_map_del(nld_map_t *m, const void *key, size_t klen);

#endif
