/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_enc.h — private: the encoder's pieces (names, values, numbers, timestamps) and the
 * parse-error setter, shared by the encoder, the parser, the core and the summarizer. */
#ifndef NLKIT_NL_ENC_H
#define NLKIT_NL_ENC_H

#include <stdarg.h>
#include <stdint.h>

#include "nl_buf.h"

/* 1 if c may appear in a field name: [A-Za-z0-9_.-]. */
static inline int nl__name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* Fill *err (if not NULL) with a position, a code and a formatted message. */
void nl__perr_vset(nl_perr_t *err, long line, int col, int code, const char *fmt, va_list ap);

/* Length of the whitespace character at s (n bytes available) as NetLogger's reader
 * (Python's \s) sees it: ASCII space, \t \n \v \f \r, 0x1c-0x1f, or the UTF-8 of U+0085,
 * U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000; 0 if none. */
size_t nl__nlv_space(const unsigned char *s, size_t n);

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
