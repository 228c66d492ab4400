/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_utf8.h — internal: whether bytes are valid UTF-8, for writers into places that accept
 * nothing else (JSON webhook bodies, a PostgreSQL database in UTF8). */
#ifndef NLKIT_NL_UTF8_H
#define NLKIT_NL_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence of a non-ASCII lead byte at s (at most n bytes), or
 * 0 if it does not begin one (a stray continuation byte, an overlong form, a surrogate,
 * beyond U+10FFFF, cut short). */
static inline size_t nl__utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c >= 0xf0 && c <= 0xf4  ? 4
                 : c >= 0xe0 && c < 0xf0 ? 3
                 : c >= 0xc2 && c < 0xe0 ? 2
                                         : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) return 0;
    if (len == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0;
    return len;
}

#endif
