/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_buf.h — private: hot-path helpers of the encoder, shared by nl_enc.c and nl_log.c. */
#ifndef NLKIT_NL_BUF_H
#define NLKIT_NL_BUF_H

#include <stdarg.h>
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

/* 1 if c may appear in a field name: [A-Za-z0-9_.-]. */
static inline int nl__name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* Fill *err (if not NULL) with a position, a code and a formatted message. */
void nl__perr_vset(nl_perr_t *err, long line, int col, int code, const char *fmt, va_list ap);

/* 1 if name matches [A-Za-z0-9_.-]{1,NL_NAME_MAX}. */
int nl__name_ok(const char *name, size_t len);
/* Append " name=" without checking the name (callers have validated it once). */
void nl__enc_name(nl_buf_t *b, const char *name, size_t len);
/* Append a value, quoted and escaped as the format requires. */
void nl__enc_value(nl_buf_t *b, const char *v, size_t len);
/* Append a number's text (no name). */
void nl__enc_i64v(nl_buf_t *b, long long v);
void nl__enc_u64v(nl_buf_t *b, unsigned long long v);
void nl__enc_dblv(nl_buf_t *b, double v);
void nl__enc_tsv(nl_buf_t *b, int64_t usec);

#endif
