/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_rec.c — a parsed line's record: filing fields (the duplicate rule), scratch space for
 * unescaped values, error reports, and reading fields back. Shared by the parser's two
 * readings (nl_parse.c, nl_parse_netlogger.c), which call in here and never each other's
 * way back. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_num.h"
#include "nl_parse_int.h"
#include "nlkit/nl_bp.h"

typedef nl_parse_ctx_t parse_ctx_t;

void nl_rec_init(nl_rec_t *rec)
{
    rec->n = 0;
    rec->i_ts = rec->i_event = rec->i_level = rec->i_guid = -1;
    rec->ts_usec = 0;
    rec->recovered = 0;
    rec->scratch = NULL;
    rec->scratch_cap = 0;
}

void nl_rec_free(nl_rec_t *rec)
{
    free(rec->scratch);
    rec->scratch = NULL;
    rec->scratch_cap = 0;
}

/* Messages quote input (a bad timestamp, a field name), and tools print them on a
 * terminal: a control byte from a log line (ESC, BEL, or a C1 control as UTF-8) would be a
 * terminal escape sequence there. Such bytes become \xHH, cut to whole escapes. */
static void copy_printable(char *dst, size_t cap, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
        int c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
        if (*p >= 0x20 && *p != 0x7f && !c1) {
            if (o + 1 >= cap) break;
            dst[o++] = (char)*p;
            continue;
        }
        int n = c1 ? 2 : 1;
        if (o + 4 * (size_t)n >= cap) break;
        for (int k = 0; k < n; k++) {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[p[k] >> 4];
            dst[o++] = hex[p[k] & 15];
        }
        p += n - 1;
    }
    dst[o] = '\0';
}

void nl__perr_vset(nl_perr_t *err, long line, int col, int code, const char *fmt, va_list ap)
{
    if (!err) return;
    err->line = line;
    err->col = col;
    err->code = code;
    char raw[sizeof err->msg];
    vsnprintf(raw, sizeof raw, fmt, ap);
    copy_printable(err->msg, sizeof err->msg, raw);
}

int nl__parse_fail(parse_ctx_t *c, size_t at, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nl__perr_vset(c->err, c->lineno, (int)(at + 1), code, fmt, ap);
    va_end(ap);
    return code;
}

/* Space for unescaped values: at most the line's length in all. Grown only before the
 * first escaped value of a line, so no pointer of this line into scratch is moved. */
char *nl__parse_scratch(parse_ctx_t *c)
{
    nl_rec_t *r = c->rec;
    if (c->scratch_used == 0 && r->scratch_cap < c->len) {
        char *p = realloc(r->scratch, c->len);
        if (!p) return NULL;
        r->scratch = p;
        r->scratch_cap = c->len;
    }
    return r->scratch + c->scratch_used;
}

void nl__parse_scratch_used(parse_ctx_t *c, size_t n) { c->scratch_used += n; }

static int name_is(const nl_field_t *f, const char *s, size_t n)
{
    return f->name_len == n && memcmp(f->name, s, n) == 0;
}

/* Index of an earlier field with the same name, or -1. */
static int find_dup(const nl_rec_t *r, const nl_field_t *f)
{
    for (int k = 0; k < r->n; k++)
        if (r->f[k].name_len == f->name_len && r->f[k].name[0] == f->name[0] &&
            memcmp(r->f[k].name, f->name, f->name_len) == 0)
            return k;
    return -1;
}

int nl__parse_add(parse_ctx_t *c, const nl_field_t *f, size_t at)
{
    nl_rec_t *r = c->rec;
    int k = find_dup(r, f);
    if (k >= 0) {
        if (!c->lenient)
            return nl__parse_fail(c, at, NL_EDUP, "duplicate field '%.*s'", (int)f->name_len,
                                  f->name);
        r->f[k].value = f->value;
        r->f[k].value_len = f->value_len;
        r->recovered++;
        return 0;
    }
    if (r->n >= NL_FIELDS_MAX)
        return nl__parse_fail(c, at, NL_EPARSE, "more than %d fields", NL_FIELDS_MAX);
    if (name_is(f, "ts", 2))
        r->i_ts = r->n;
    else if (name_is(f, "event", 5))
        r->i_event = r->n;
    else if (name_is(f, "level", 5))
        r->i_level = r->n;
    else if (name_is(f, "guid", 4))
        r->i_guid = r->n;
    r->f[r->n++] = *f;
    return 0;
}

const nl_field_t *nl_rec_get(const nl_rec_t *rec, const char *name)
{
    size_t n = strlen(name);
    for (int k = 0; k < rec->n; k++)
        if (name_is(&rec->f[k], name, n)) return &rec->f[k];
    return NULL;
}

int nl_field_is(const nl_field_t *f, const char *s)
{
    return f && strlen(s) == f->value_len && memcmp(f->value, s, f->value_len) == 0;
}

int nl_field_double(const nl_field_t *f, double *out)
{
    if (!f || !out) return NL_EINVAL;
    return nl__strtod(f->value, f->value_len, out) == 0 ? 0 : NL_EPARSE;
}
