/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_parse.c — the line parser: the only code that reads event lines. Strict by default,
 * lenient on request (see NL_PARSE_LENIENT in nl_bp.h for what it recovers), or as
 * NetLogger's own reader reads a line (NL_PARSE_NETLOGGER: nl_parse_netlogger.c). Values
 * are zero-copy unless they contain escapes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_num.h"
#include "nl_parse_int.h"
#include "nlkit/nl_bp.h"

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

typedef nl_parse_ctx_t parse_ctx_t;

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

static int is_ctl(unsigned char ch) { return ch < 0x20 || ch == 0x7f; }

static int hexval(unsigned char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
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

/* Decode the quoted value s[from, to) (escapes present) into scratch. */
static int unescape(parse_ctx_t *c, size_t from, size_t to, nl_field_t *f)
{
    char *o = nl__parse_scratch(c);
    if (!o) return nl__parse_fail(c, from, NL_ENOMEM, "out of memory");
    char *start = o;
    const unsigned char *s = (const unsigned char *)c->s;
    for (size_t i = from; i < to;) {
        if (s[i] != '\\') {
            *o++ = (char)s[i++];
            continue;
        }
        unsigned char e = i + 1 < to ? s[i + 1] : 0; /* 0: lone backslash at the end */
        switch (e) {
        case '"':
            *o++ = '"';
            i += 2;
            continue;
        case '\\':
            *o++ = '\\';
            i += 2;
            continue;
        case 'n':
            *o++ = '\n';
            i += 2;
            continue;
        case 'r':
            *o++ = '\r';
            i += 2;
            continue;
        case 't':
            *o++ = '\t';
            i += 2;
            continue;
        case 'x': {
            int hi = i + 2 < to ? hexval(s[i + 2]) : -1;
            int lo = i + 3 < to ? hexval(s[i + 3]) : -1;
            if (hi >= 0 && lo >= 0) {
                *o++ = (char)(hi * 16 + lo);
                i += 4;
                continue;
            }
            if (!c->lenient)
                return nl__parse_fail(c, i, NL_EPARSE, "bad \\x escape (needs two hex digits)");
            break;
        }
        default:
            if (!c->lenient)
                return nl__parse_fail(c, i, NL_EPARSE, "unknown escape '\\%c'", e ? e : ' ');
        }
        /* lenient: keep the backslash literally */
        c->rec->recovered++;
        *o++ = (char)s[i++];
    }
    f->value = start;
    f->value_len = (uint32_t)(o - start);
    nl__parse_scratch_used(c, (size_t)(o - start));
    return 0;
}

/* A quoted value starting at the '"' at *pi. */
static int quoted_value(parse_ctx_t *c, size_t *pi, nl_field_t *f)
{
    const unsigned char *s = (const unsigned char *)c->s;
    size_t open = *pi, i = open + 1;
    int esc = 0;
    while (i < c->len && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < c->len) {
            esc = 1;
            i += 2;
            continue;
        }
        if (is_ctl(s[i]) || s[i] == '\\') {
            if (!c->lenient) {
                if (s[i] == '\\') break; /* lone backslash at end: unterminated */
                return nl__parse_fail(c, i, NL_EPARSE, "control character 0x%02x in quoted value",
                                      s[i]);
            }
            c->rec->recovered++;
        }
        i++;
    }
    size_t end = i < c->len ? i : c->len;
    if (i >= c->len || s[i] != '"') {
        if (!c->lenient) return nl__parse_fail(c, open, NL_EPARSE, "unterminated quote");
        c->rec->recovered++;
    }
    if (esc) {
        int rc = unescape(c, open + 1, end, f);
        if (rc) return rc;
    } else {
        f->value = c->s + open + 1;
        f->value_len = (uint32_t)(end - open - 1);
    }
    i = i < c->len ? i + 1 : c->len; /* past the closing quote */
    if (i < c->len && s[i] != ' ') {
        if (!c->lenient) return nl__parse_fail(c, i, NL_EPARSE, "junk after quoted value");
        c->rec->recovered++;
        while (i < c->len && s[i] != ' ') i++; /* dropped */
    }
    *pi = i;
    return 0;
}

/* An unquoted value: runs to the next space. */
static int plain_value(parse_ctx_t *c, size_t *pi, nl_field_t *f)
{
    const unsigned char *s = (const unsigned char *)c->s;
    size_t i = *pi, start = i;
    for (; i < c->len && s[i] != ' '; i++) {
        if (is_ctl(s[i]) || s[i] == '"') {
            if (!c->lenient)
                return nl__parse_fail(c, i, NL_EPARSE, "%s in unquoted value",
                                      s[i] == '"' ? "quote" : "control character");
            c->rec->recovered++;
        }
    }
    f->value = c->s + start;
    f->value_len = (uint32_t)(i - start);
    *pi = i;
    return 0;
}

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

/* Skip a malformed token in lenient mode. */
static size_t skip_token(parse_ctx_t *c, size_t i)
{
    c->rec->recovered++;
    while (i < c->len && c->s[i] != ' ') i++;
    return i;
}

static int parse_fields(parse_ctx_t *c)
{
    const unsigned char *s = (const unsigned char *)c->s;
    size_t i = 0;
    for (;;) {
        while (i < c->len && s[i] == ' ') i++;
        if (i >= c->len) break;
        size_t ns = i;
        while (i < c->len && nl__name_char(s[i])) i++;
        if (i >= c->len || s[i] != '=') {
            if (i == ns && i < c->len && s[i] != ' ') {
                if (!c->lenient)
                    return nl__parse_fail(c, i, NL_ENAME, "bad character 0x%02x in field name",
                                          s[i]);
            } else if (!c->lenient) {
                return nl__parse_fail(c, ns, NL_EPARSE, "field without '='");
            }
            i = skip_token(c, i);
            continue;
        }
        if (i == ns) {
            if (!c->lenient) return nl__parse_fail(c, i, NL_ENAME, "empty field name");
            i = skip_token(c, i);
            continue;
        }
        if (i - ns > NL_NAME_MAX) {
            if (!c->lenient)
                return nl__parse_fail(c, ns, NL_ENAME, "field name longer than %d", NL_NAME_MAX);
            i = skip_token(c, i);
            continue;
        }
        nl_field_t f = {.name = c->s + ns, .name_len = (uint32_t)(i - ns)};
        i++; /* '=' */
        int rc = i < c->len && s[i] == '"' ? quoted_value(c, &i, &f) : plain_value(c, &i, &f);
        if (rc || (rc = nl__parse_add(c, &f, ns))) return rc;
    }
    return 0;
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

int nl_parse(nl_rec_t *rec, const char *line, size_t len, long lineno, unsigned flags,
             nl_perr_t *err)
{
    parse_ctx_t c = {rec, line, len, lineno, (flags & (NL_PARSE_LENIENT | NL_PARSE_NETLOGGER)) != 0,
                     err, 0};
    rec->n = 0;
    rec->i_ts = rec->i_event = rec->i_level = rec->i_guid = -1;
    rec->ts_usec = 0;
    rec->recovered = 0;
    if (!line) return nl__parse_fail(&c, 0, NL_EINVAL, "no line");
    if (c.len && line[c.len - 1] == '\n') c.len--;
    if (c.len && line[c.len - 1] == '\r') c.len--;
    if (c.len > NL_LINE_MAX)
        return nl__parse_fail(&c, NL_LINE_MAX, NL_ETOOBIG, "line longer than %d bytes",
                              NL_LINE_MAX);
    size_t i = 0;
    while (i < c.len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i == c.len || line[i] == '#') return 0;
    int rc = flags & NL_PARSE_NETLOGGER ? nl__parse_fields_netlogger(&c) : parse_fields(&c);
    if (rc) return rc;
    if (rec->i_ts < 0) return nl__parse_fail(&c, 0, NL_EMISSING, "missing ts");
    if (rec->i_event < 0) return nl__parse_fail(&c, 0, NL_EMISSING, "missing event");
    const nl_field_t *ts = &rec->f[rec->i_ts];
    if (nl_ts_parse(ts->value, ts->value_len, &rec->ts_usec) != 0) {
        if (c.lenient && nl__ts_parse_loose(ts->value, ts->value_len, &rec->ts_usec) == 0)
            return 1; /* a form NetLogger's reader takes: read, not a problem recovered */
        if (!c.lenient) {
            size_t at =
                ts->value >= line && ts->value < line + len ? (size_t)(ts->value - line) : 0;
            return nl__parse_fail(&c, at, NL_ETS, "bad timestamp '%.*s'",
                                  (int)(ts->value_len > 40 ? 40 : ts->value_len), ts->value);
        }
        rec->recovered++;
        rec->ts_usec = 0;
    }
    return 1;
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
