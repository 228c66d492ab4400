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

typedef nl_parse_ctx_t parse_ctx_t;

static int is_ctl(unsigned char ch) { return ch < 0x20 || ch == 0x7f; }

static int hexval(unsigned char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

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
