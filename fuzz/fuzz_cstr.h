/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_cstr.h — the fuzz input as a NUL-terminated string, for targets whose parser takes
 * one (a NUL inside ends it early, as it would for the real caller). */
#ifndef NLKIT_FUZZ_CSTR_H
#define NLKIT_FUZZ_CSTR_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of data[0, size) with a NUL after it; NULL if memory is short. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

#endif
