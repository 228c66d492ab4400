/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_json.c — JSON text for the webhook bodies. */
#include "nla_json.h"

#include <math.h>
#include <stdio.h>

#include "nl_buf.h"
#include "nl_num.h"
#include "nl_utf8.h"

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
        } else if (c >= 0x80 && nl__utf8_len(p + i, len - i)) {
            size_t l = nl__utf8_len(p + i, len - i);
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
