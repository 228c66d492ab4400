/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_hash.h — private: a fast 64-bit hash for short keys (identities, event names).
 * Eight bytes per step, so a 40-byte key costs a handful of multiplications; seeded per log
 * so keys chosen by a hostile peer cannot be aimed at one chain in advance. */
#ifndef NLKIT_NL_HASH_H
#define NLKIT_NL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t nl__mix64(uint64_t h)
{
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return h;
}

static inline uint64_t nl__hash(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x94d049bb133111ebULL;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    return nl__mix64(h ^ w ^ ((uint64_t)n << 56));
}

/* Whether two keys of n bytes are equal: eight bytes per step and a last, overlapping word,
 * inline. An identity lookup compares ~40 bytes and a value field's name ~5; libc's memcmp
 * costs a call and its dispatch for each, together a tenth of a summarized call. */
static inline int nl__key_eq(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    if (n < 8) { /* field names: two overlapping four-byte words, or byte by byte */
        uint32_t p, q, r, t;
        if (n < 4) {
            unsigned d = 0;
            for (size_t i = 0; i < n; i++) d |= (unsigned)(x[i] ^ y[i]);
            return d == 0;
        }
        memcpy(&p, x, 4);
        memcpy(&q, y, 4);
        memcpy(&r, x + n - 4, 4);
        memcpy(&t, y + n - 4, 4);
        return ((p ^ q) | (r ^ t)) == 0;
    }
    uint64_t u, v, diff = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        memcpy(&u, x + i, 8);
        memcpy(&v, y + i, 8);
        diff |= u ^ v;
    }
    memcpy(&u, x + n - 8, 8);
    memcpy(&v, y + n - 8, 8);
    return (diff | (u ^ v)) == 0;
}

#endif
