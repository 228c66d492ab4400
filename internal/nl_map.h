/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_map.h — a hash map from byte-string keys to pointers: streams by key, pending starts
 * by identity, activities by name. Keys are copied; values are the caller's. Seeded hash,
 * chains, doubling when the load passes 1, so lookups stay O(1) whatever the key set. */
#ifndef NLKIT_NL_MAP_H
#define NLKIT_NL_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct nl__ment {
    struct nl__ment *next;
    uint64_t h;
    void *val;
    size_t klen;
    char key[]; /* klen bytes, then a NUL */
} nl__ment_t;

typedef struct nl__map {
    nl__ment_t **b;
    size_t nb, n;
    uint64_t seed;
} nl__map_t;

/* Start an empty map. */
void nl__map_init(nl__map_t *m, uint64_t seed);
/* Free the map's own storage (not the values). */
void nl__map_free(nl__map_t *m);
/* The value stored for a key, or NULL. */
void *nl__map_get(const nl__map_t *m, const void *key, size_t klen);
/* Store a value for a key not yet present. Returns the entry (its key is a stable,
 * NUL-terminated copy) or NULL when out of memory. */
nl__ment_t *nl__map_put(nl__map_t *m, const void *key, size_t klen, void *val);
/* Remove a key; returns its value, or NULL if absent. */
void *nl__map_del(nl__map_t *m, const void *key, size_t klen);

#endif
