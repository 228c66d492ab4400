/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_rules.c — parse and match summarization rules (see nls_rules.h). */
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nl_enc.h"
#include "nl_num.h"
#include "nls_rules.h"

static const char *const mode_names[] = {"full", "summary", "both", "off", "count", "dedup"};

const char *nls_mode_name(int mode)
{
    return mode >= 0 && mode <= NLS_MODE_LAST ? mode_names[mode] : NULL;
}

void nls_rules_init(nls_rules_t *rs) { *rs = (nls_rules_t){0}; }

void nls_rules_free(nls_rules_t *rs)
{
    free(rs->r);
    *rs = (nls_rules_t){0};
}

/* A glob is name characters plus '*' and '?'; returns its literal count, or -1. */
static int glob_literals(const char *g, size_t len, int *exact)
{
    int lit = 0;
    *exact = 1;
    if (len == 0 || len > NLS_GLOB_MAX) return -1;
    for (size_t i = 0; i < len; i++) {
        if (g[i] == '*' || g[i] == '?')
            *exact = 0;
        else if (nl__name_char((unsigned char)g[i]))
            lit++;
        else
            return -1;
    }
    return lit;
}

int nls_rules_append(nls_rules_t *rs, const nls_rule_t *proto)
{
    int exact, lit = glob_literals(proto->glob, strlen(proto->glob), &exact);
    if (lit < 0 || !nl__name_ok(proto->value_field, strlen(proto->value_field)) ||
        !nl__name_ok(proto->result_field, strlen(proto->result_field)) || proto->nkeys < 0 ||
        proto->nkeys > NLS_KEYS_MAX)
        return NL_ENAME;
    for (int k = 0; k < proto->nkeys; k++)
        if (!nl__name_ok(proto->keys[k], strlen(proto->keys[k]))) return NL_ENAME;
    if (proto->mode < NLS_FULL || proto->mode > NLS_MODE_LAST ||
        !(proto->interval >= 0 && proto->interval <= NLS_INTERVAL_MAX) ||
        (proto->interval > 0 && proto->interval < NLS_INTERVAL_MIN))
        return NL_EINVAL;
    if (rs->n == NLS_RULES_MAX) return NL_EINVAL;
    if (rs->n == rs->cap) {
        int cap = rs->cap ? rs->cap * 2 : 8;
        nls_rule_t *r = realloc(rs->r, (size_t)cap * sizeof *r);
        if (!r) return NL_ENOMEM;
        rs->r = r;
        rs->cap = cap;
    }
    nls_rule_t *r = &rs->r[rs->n++];
    *r = *proto;
    r->exact = exact;
    r->literals = lit;
    r->order = rs->next_order++;
    return 0;
}

/* A rule with the defaults: value field "value", result field "status", no key fields. */
static void rule_defaults(nls_rule_t *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->value_field, sizeof r->value_field, "value");
    snprintf(r->result_field, sizeof r->result_field, "status");
}

int nls_rules_add(nls_rules_t *rs, const char *glob, int mode, double interval,
                  const char *value_field)
{
    if (!glob || strlen(glob) > NLS_GLOB_MAX) return NL_ENAME;
    if (value_field && strlen(value_field) > NL_NAME_MAX) return NL_ENAME;
    nls_rule_t r;
    rule_defaults(&r);
    snprintf(r.glob, sizeof r.glob, "%s", glob);
    if (value_field) snprintf(r.value_field, sizeof r.value_field, "%s", value_field);
    r.mode = mode;
    r.interval = interval;
    return nls_rules_append(rs, &r);
}

/* Parser state over one text. */
typedef struct rparse {
    const char *s;
    size_t i;
    int line;
    size_t line_start;
    nl_perr_t *err;
} rparse_t;

static int perr(rparse_t *p, size_t at, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nl__perr_vset(p->err, p->line, (int)(at - p->line_start + 1), code, fmt, ap);
    va_end(ap);
    return code;
}

static void skip_blanks(rparse_t *p)
{
    while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r') p->i++;
}

/* A token of characters not in `stop`, without surrounding blanks. */
static size_t token(rparse_t *p, const char *stop, size_t *start)
{
    skip_blanks(p);
    *start = p->i;
    while (p->s[p->i] && !strchr(stop, p->s[p->i])) p->i++;
    size_t end = p->i;
    while (end > *start && (p->s[end - 1] == ' ' || p->s[end - 1] == '\t' || p->s[end - 1] == '\r'))
        end--;
    return end - *start;
}

/* The key fields of key=F,G (vl bytes at vs) into r. */
static int parse_keys(rparse_t *p, size_t vs, size_t vl, nls_rule_t *r)
{
    size_t at = vs, end = vs + vl;
    while (at <= end) {
        const char *c = memchr(p->s + at, ',', end - at);
        size_t fl = c ? (size_t)(c - (p->s + at)) : end - at;
        if (!nl__name_ok(p->s + at, fl))
            return perr(p, at, NL_ENAME, "bad key field name '%.*s'", (int)(fl > 40 ? 40 : fl),
                        p->s + at);
        if (r->nkeys == NLS_KEYS_MAX)
            return perr(p, at, NL_EINVAL, "more than %d key fields", NLS_KEYS_MAX);
        memcpy(r->keys[r->nkeys], p->s + at, fl);
        r->keys[r->nkeys++][fl] = '\0';
        at += fl + 1;
    }
    return 0;
}

/* One rule at p->i; appends to rs. */
static int parse_rule(rparse_t *p, nls_rules_t *rs)
{
    size_t gs, gl = token(p, "=;\n#", &gs);
    char glob[NLS_GLOB_MAX + 1];
    int exact;
    if (gl == 0) return perr(p, gs, NL_ENAME, "missing activity name or glob before '='");
    if (glob_literals(p->s + gs, gl, &exact) < 0)
        return perr(p, gs, NL_ENAME, "bad glob '%.*s' (name characters, '*' and '?')",
                    (int)(gl > 40 ? 40 : gl), p->s + gs);
    memcpy(glob, p->s + gs, gl);
    glob[gl] = '\0';
    if (p->s[p->i] != '=') return perr(p, p->i, NL_EPARSE, "expected '=' after '%s'", glob);
    p->i++;
    size_t ms, ml = token(p, ":;\n#", &ms);
    int mode = -1;
    for (int k = 0; k <= NLS_MODE_LAST; k++)
        if (strlen(mode_names[k]) == ml && !strncasecmp(mode_names[k], p->s + ms, ml)) mode = k;
    if (mode < 0)
        return perr(p, ms, NL_EPARSE,
                    "unknown mode '%.*s' (full, summary, both, off, count, dedup)",
                    (int)(ml > 20 ? 20 : ml), p->s + ms);
    nls_rule_t r;
    rule_defaults(&r);
    memcpy(r.glob, glob, gl + 1);
    r.mode = mode;
    r.interval = 1.0;
    int positional = 0, have_key = 0, have_result = 0;
    while (p->s[p->i] == ':') {
        p->i++;
        size_t ts, tl = token(p, ":;\n#", &ts);
        const char *tok = p->s + ts, *eq = memchr(tok, '=', tl);
        if (eq) { /* an option: key=F,G or result=F */
            size_t nl = (size_t)(eq - tok), vs = ts + nl + 1, vl = tl - nl - 1;
            if (nl == 3 && !memcmp(tok, "key", 3) && !have_key) {
                have_key = 1;
                int rc = parse_keys(p, vs, vl, &r);
                if (rc) return rc;
            } else if (nl == 6 && !memcmp(tok, "result", 6) && !have_result) {
                have_result = 1;
                if (!nl__name_ok(p->s + vs, vl))
                    return perr(p, vs, NL_ENAME, "bad result field name '%.*s'",
                                (int)(vl > 40 ? 40 : vl), p->s + vs);
                memcpy(r.result_field, p->s + vs, vl);
                r.result_field[vl] = '\0';
            } else {
                return perr(p, ts, NL_EPARSE, "unknown or repeated option '%.*s' (key=, result=)",
                            (int)(nl > 20 ? 20 : nl), tok);
            }
        } else if (positional == 0) {
            positional++;
            if (nl__strtod(tok, tl, &r.interval) != 0 || !(r.interval >= 0) ||
                r.interval > NLS_INTERVAL_MAX || (r.interval > 0 && r.interval < NLS_INTERVAL_MIN))
                return perr(p, ts, NL_EPARSE,
                            "bad interval '%.*s' (seconds: 0 for once per run, or 0.01 to %d)",
                            (int)(tl > 20 ? 20 : tl), tok, NLS_INTERVAL_MAX);
        } else if (positional == 1) {
            positional++;
            if (!nl__name_ok(tok, tl))
                return perr(p, ts, NL_ENAME, "bad value field name '%.*s'",
                            (int)(tl > 40 ? 40 : tl), tok);
            memcpy(r.value_field, tok, tl);
            r.value_field[tl] = '\0';
        } else {
            return perr(p, ts, NL_EPARSE, "unexpected '%.*s' after the value field",
                        (int)(tl > 20 ? 20 : tl), tok);
        }
    }
    /* every token above runs to the rule's end (';', newline, '#', or the end) */
    int rc = nls_rules_append(rs, &r);
    if (rc) return perr(p, gs, rc, "%s", rc == NL_ENOMEM ? "out of memory" : "too many rules");
    return 0;
}

int nls_rules_parse(nls_rules_t *rs, const char *text, nl_perr_t *err)
{
    if (!rs || !text) return NL_EINVAL;
    rparse_t p = {text, 0, 1, 0, err};
    int before = rs->n, before_order = rs->next_order;
    for (;;) {
        skip_blanks(&p);
        char c = text[p.i];
        if (c == '\0') return 0;
        if (c == '#') {
            while (text[p.i] && text[p.i] != '\n') p.i++;
            continue;
        }
        if (c == ';') {
            p.i++;
            continue;
        }
        if (c == '\n') {
            p.i++;
            p.line++;
            p.line_start = p.i;
            continue;
        }
        int rc = parse_rule(&p, rs);
        if (rc) {
            rs->n = before; /* all or nothing */
            rs->next_order = before_order;
            return rc;
        }
    }
}

/* Does r take precedence over best? */
static int better(const nls_rule_t *r, const nls_rule_t *best)
{
    if (!best) return 1;
    if (r->exact != best->exact) return r->exact;
    if (r->literals != best->literals) return r->literals > best->literals;
    return r->order > best->order;
}

const nls_rule_t *nls_rules_match(const nls_rules_t *rs, const char *activity, size_t len)
{
    char name[NLS_GLOB_MAX * 2 + 1];
    if (!rs || len >= sizeof name) return NULL;
    memcpy(name, activity, len);
    name[len] = '\0';
    const nls_rule_t *best = NULL;
    for (int k = 0; k < rs->n; k++) {
        const nls_rule_t *r = &rs->r[k];
        int hit = r->exact ? strcmp(r->glob, name) == 0 : fnmatch(r->glob, name, 0) == 0;
        if (hit && better(r, best)) best = r;
    }
    return best;
}
