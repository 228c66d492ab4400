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

static inline void nl__put(nl_buf_t *b, const char *s, size_t n)
{
    if (!nl__buf_room(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void nl__putc(nl_buf_t *b, char c)
{
    if (!nl__buf_room(b, 1)) return;
    b->p[b->len++] = c;
}

#endif
