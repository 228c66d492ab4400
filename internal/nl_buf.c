/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_buf.c — the growable line buffer (nl_buf_t, public in nlkit/nl_bp.h) that the encoder,
 * the summarizer and the tools' output build lines in: storage given by the caller first,
 * the heap once it outgrows it, never past its limit (one line, NL_LINE_MAX). */
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"

int nl__buf_grow(nl_buf_t *b, size_t n)
{
    if (b->err) return 0;
    size_t need = b->len + n;
    if (need > b->limit) {
        b->err = NL_ETOOBIG;
        return 0;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    if (cap > b->limit) cap = b->limit;
    char *p = b->heap ? realloc(b->p, cap) : malloc(cap);
    if (!p) {
        b->err = NL_ENOMEM;
        return 0;
    }
    if (!b->heap && b->len) memcpy(p, b->p, b->len);
    b->p = p;
    b->cap = cap;
    b->heap = 1;
    return 1;
}

void nl_buf_init(nl_buf_t *b, char *storage, size_t cap)
{
    b->p = storage;
    b->cap = storage ? cap : 0;
    b->len = 0;
    b->limit = (size_t)NL_LINE_MAX + 1;
    b->err = 0;
    b->heap = 0;
}

void nl_buf_free(nl_buf_t *b)
{
    if (b->heap) free(b->p);
    b->p = NULL;
    b->cap = b->len = 0;
    b->heap = 0;
}

void nl_buf_reset(nl_buf_t *b)
{
    b->len = 0;
    b->err = 0;
}
