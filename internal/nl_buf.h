/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_buf.h — internal: appending to a line buffer (nl_buf_t) on the hot path, for the
 * encoder, the summarizer and the tools' output lines. */
#ifndef NLKIT_NL_BUF_H
#define NLKIT_NL_BUF_H

#include <string.h>

#include "nlkit/nl_bp.h"

/* Make room for n more bytes; on failure sets b->err and returns 0. */
int nl__buf_grow(nl_buf_t *b, size_t n);

static inline int nl__buf_room(nl_buf_t *b, size_t n)
{
    if (b->err) return 0;
    if (b->len + n <= b->cap) return 1;
    return nl__buf_grow(b, n);
}

/* Copy n bytes, n up to 32 as two overlapping fixed-size moves. gcc expands a memcpy whose
 * size it can bound (a field name's uint8_t length, a key's) into rep movs, whose start-up
 * costs more than a short name takes to copy. */
static inline void nl__copy(char *d, const char *s, size_t n)
{
    if (n >= 16 && n <= 32) {
        memcpy(d, s, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8 && n < 16) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    } else {
        memcpy(d, s, n);
    }
}

static inline void nl__put(nl_buf_t *b, const char *s, size_t n)
{
    if (!nl__buf_room(b, n)) return;
    nl__copy(b->p + b->len, s, n);
    b->len += n;
}

static inline void nl__putc(nl_buf_t *b, char c)
{
    if (!nl__buf_room(b, 1)) return;
    b->p[b->len++] = c;
}

#endif
