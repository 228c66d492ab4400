/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_json.c — JSON text for the webhook bodies. */
#include "nla_json.h"

#include <math.h>
#include <stdio.h>

#include "nl_buf.h"
#include "nl_num.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) return 0;
    if (len == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0;
    return len;
}

void nla__json_str(nl_buf_t *b, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    nl__putc(b, '"');
    for (size_t i = 0; i < len;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            nl__putc(b, '\\');
            nl__putc(b, (char)c);
            i++;
        } else if (c >= 0x20 && c < 0x7f) {
            nl__putc(b, (char)c);
            i++;
        } else if (c >= 0x80 && utf8_len(p + i, len - i)) {
            size_t l = utf8_len(p + i, len - i);
            nl__put(b, s + i, l);
            i += l;
        } else {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            nl__put(b, esc, 6);
            i++;
        }
    }
    nl__putc(b, '"');
}

void nla__json_key(nl_buf_t *b, const char *name, int first)
{
    if (!first) nl__putc(b, ',');
    nla__json_str(b, name, strlen(name));
    nl__putc(b, ':');
}

void nla__json_num(nl_buf_t *b, double v)
{
    if (!isfinite(v)) {
        nl__put(b, "null", 4);
        return;
    }
    char t[40];
    int n = nl__dtoa(v, t);
    nl__put(b, t, (size_t)n);
}

void nla__json_ts(nl_buf_t *b, int64_t usec)
{
    if (usec == INT64_MIN) {
        nl__put(b, "null", 4);
        return;
    }
    char t[40];
    int n = nl_ts_format(usec, t);
    nl__putc(b, '"');
    nl__put(b, t, (size_t)n);
    nl__putc(b, '"');
}

void nla__json_fields(nl_buf_t *b, const nl_rec_t *r)
{
    nl__putc(b, '{');
    for (int i = 0; i < r->n; i++) {
        if (i) nl__putc(b, ',');
        nla__json_str(b, r->f[i].name, r->f[i].name_len);
        nl__putc(b, ':');
        nla__json_str(b, r->f[i].value, r->f[i].value_len);
    }
    nl__putc(b, '}');
}
