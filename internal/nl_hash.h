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

#endif
