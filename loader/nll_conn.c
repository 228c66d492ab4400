/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_conn.c — a PostgreSQL connection string as libpq reads it, and its password kept out
 * of every message (nll_conn.h; nll_db_is_pg and nll_db_display_name in nll.h). The
 * keyword/value grammar is libpq's conninfo_parse (fe-connect.c): blanks between pairs,
 * blanks allowed around '=', a value bare (to the next blank, backslash escapes the next
 * byte) or in single quotes (backslash escapes within). */
#include "nll_conn.h"

#include <ctype.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nll.h"

int nll__conn_is_kv(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    if (!(isalpha((unsigned char)*s) || *s == '_')) return 0;
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    while (isspace((unsigned char)*s)) s++;
    return *s == '=';
}

int nll_db_is_pg(const char *path)
{
    return !strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11) ||
           nll__conn_is_kv(path);
}

typedef struct kv {
    const char *k, *v; /* the keyword; the value as written (quotes included) */
    size_t klen, vlen;
} kv_t;

/* The next pair of s from *at: 1 with it in *p (and *at past it), 0 at the end, -1 when
 * malformed with why (and *at where). Never reads past the NUL. */
static int kv_next(const char *s, size_t *at, kv_t *p, const char **why)
{
    const char *c = s + *at;
    while (isspace((unsigned char)*c)) c++;
    *at = (size_t)(c - s);
    if (!*c) return 0;
    p->k = c;
    while (*c && *c != '=' && !isspace((unsigned char)*c)) c++;
    p->klen = (size_t)(c - p->k);
    while (isspace((unsigned char)*c)) c++;
    if (*c != '=') {
        *why = "a word without '=' after it (a value with blanks must be in single quotes)";
        return -1;
    }
    c++;
    while (isspace((unsigned char)*c)) c++;
    p->v = c;
    if (*c == '\'') {
        for (c++;; c++) {
            if (!*c) {
                *at = (size_t)(p->v - s);
                *why = "a quoted value without its closing quote";
                return -1;
            }
            if (*c == '\\' && c[1])
                c++;
            else if (*c == '\'')
                break;
        }
        c++;
    } else {
        for (; *c && !isspace((unsigned char)*c); c++)
            if (*c == '\\' && c[1]) c++;
    }
    p->vlen = (size_t)(c - p->v);
    *at = (size_t)(c - s);
    return 1;
}

/* Whether the keyword (klen bytes; %XX decoded first when pct, as in a URI's query) is one
 * whose value is a secret: password, or sslpassword (the client key's). */
static int secret_key(const char *k, size_t klen, int pct)
{
    char d[16];
    size_t n = 0;
    for (size_t i = 0; i < klen; i++) {
        if (n == sizeof d) return 0;
        if (pct && k[i] == '%' && i + 2 < klen && isxdigit((unsigned char)k[i + 1]) &&
            isxdigit((unsigned char)k[i + 2])) {
            char hex[3] = {k[i + 1], k[i + 2], 0};
            d[n++] = (char)strtol(hex, NULL, 16);
            i += 2;
        } else {
            d[n++] = k[i];
        }
    }
    return (n == 8 && !memcmp(d, "password", 8)) || (n == 11 && !memcmp(d, "sslpassword", 11));
}

static int is_password(const kv_t *p) { return secret_key(p->k, p->klen, 0); }

/* A URI's query parameter of n bytes at p ("key=value"): the length of its key, and
 * whether that key names a secret. */
static int query_secret(const char *p, size_t n, size_t *klen)
{
    const char *eq = memchr(p, '=', n);
    *klen = eq ? (size_t)(eq - p) : n;
    return eq && secret_key(p, *klen, 1);
}

/* Whether libpq knows the keyword k (klen bytes). */
static int known_keyword(const char *k, size_t klen)
{
    PQconninfoOption *opts = PQconndefaults();
    int found = 0;
    for (PQconninfoOption *o = opts; o && o->keyword && !found; o++)
        found = strlen(o->keyword) == klen && !memcmp(o->keyword, k, klen);
    PQconninfoFree(opts);
    return found || !opts; /* without the list (no memory), libpq will say */
}

int nll__conn_kv_check(const char *s, char *why, size_t cap)
{
    size_t at = 0;
    kv_t p;
    const char *w = NULL;
    int r;
    while ((r = kv_next(s, &at, &p, &w)) > 0)
        if (!known_keyword(p.k, p.klen)) { /* not named: it may be part of a password */
            snprintf(why, cap, "byte %zu: not a libpq connection keyword (host, port, dbname, "
                     "user, password, sslmode, ...)", (size_t)(p.k - s) + 1);
            return -1;
        }
    if (r < 0) {
        snprintf(why, cap, "byte %zu: %s", at + 1, w);
        return -1;
    }
    return 0;
}

/* Append n bytes of s to out (cap bytes, *len used), cutting what does not fit. */
static void add(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len + 1 >= cap) return;
    if (n > cap - 1 - *len) n = cap - 1 - *len;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = 0;
}

/* The keyword form for messages: its pairs as written, one blank apart, a password's value
 * as ***; a malformed rest as " ..." (what it holds is not known to be no password). */
static void kv_display(const char *s, char *out, size_t cap)
{
    size_t len = 0, at = 0;
    kv_t p;
    const char *why;
    int r;
    out[0] = 0;
    while ((r = kv_next(s, &at, &p, &why)) > 0) {
        if (len) add(out, cap, &len, " ", 1);
        add(out, cap, &len, p.k, p.klen);
        add(out, cap, &len, "=", 1);
        if (is_password(&p))
            add(out, cap, &len, "***", 3);
        else
            add(out, cap, &len, p.v, p.vlen);
    }
    if (r < 0) add(out, cap, &len, len ? " ..." : "...", len ? 4 : 3);
}

void nll_db_display_name(const char *path, char *out, size_t cap)
{
    if (!cap) return;
    if (nll__conn_is_kv(path)) {
        kv_display(path, out, cap);
        return;
    }
    const char *scheme = nll_db_is_pg(path) ? strstr(path, "://") : NULL;
    if (!scheme) {
        snprintf(out, cap, "%s", path);
        return;
    }
    size_t len = 0;
    out[0] = 0;
    const char *auth = scheme + 3, *auth_end = auth + strcspn(auth, "/?");
    const char *at = NULL, *q = strchr(path, '?'), *end = q ? q : path + strlen(path);
    for (const char *p = auth; p < auth_end; p++)
        if (*p == '@') at = p; /* the last: a password's own '@' should be %40, may not be */
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon) { /* user:password@ */
        add(out, cap, &len, path, (size_t)(colon + 1 - path));
        add(out, cap, &len, "***", 3);
        add(out, cap, &len, at, (size_t)(end - at));
    } else {
        add(out, cap, &len, path, (size_t)(end - path));
    }
    for (const char *p = q; p && *p;) { /* ?k=v&k=v: password=*** */
        size_t n = strcspn(p + 1, "&"), klen;
        add(out, cap, &len, p, 1);
        if (query_secret(p + 1, n, &klen)) {
            add(out, cap, &len, p + 1, klen);
            add(out, cap, &len, "=***", 4);
        } else {
            add(out, cap, &len, p + 1, n);
        }
        p += 1 + n;
    }
}

/* The first occurrence of the n bytes at w in the string s, or NULL (memmem is GNU's). */
static const char *find(const char *s, const char *w, size_t n)
{
    for (; *s; s++)
        if (*s == *w && !strncmp(s, w, n) && strnlen(s, n) == n) return s;
    return NULL;
}

/* Replace every occurrence of the n bytes at secret in msg by "***" (in one pass: what is
 * put in is not searched again). */
static void scrub_one(char *msg, size_t cap, const char *secret, size_t n)
{
    if (!n) return;
    char *tmp = malloc(cap);
    if (!tmp) { /* no room to rewrite it: say nothing rather than the password */
        if (find(msg, secret, n)) snprintf(msg, cap, "(message withheld)");
        return;
    }
    size_t len = 0;
    tmp[0] = 0;
    for (const char *m = msg, *hit; *m; m = hit + n) {
        if (!(hit = find(m, secret, n))) {
            add(tmp, cap, &len, m, strlen(m));
            break;
        }
        add(tmp, cap, &len, m, (size_t)(hit - m));
        add(tmp, cap, &len, "***", 3);
    }
    memcpy(msg, tmp, len + 1);
    free(tmp);
}

/* The raw secret, and again as libpq reads it when that differs (quotes and backslashes of
 * the keyword form, %XX of a URI). */
static void scrub_both(char *msg, size_t cap, const char *raw, size_t n, int kv)
{
    scrub_one(msg, cap, raw, n);
    char *plain = malloc(n + 1);
    if (!plain) return;
    size_t m = 0;
    const char *r = raw, *end = raw + n;
    if (kv && n >= 2 && *r == '\'' && end[-1] == '\'') r++, end--;
    for (; r < end; r++) {
        if (kv && *r == '\\' && r + 1 < end)
            r++;
        else if (!kv && *r == '%' && end - r >= 3 && isxdigit((unsigned char)r[1]) &&
                 isxdigit((unsigned char)r[2])) {
            char hex[3] = {r[1], r[2], 0};
            plain[m++] = (char)strtol(hex, NULL, 16);
            r += 2;
            continue;
        }
        plain[m++] = *r;
    }
    if (m != n || memcmp(plain, raw, n)) scrub_one(msg, cap, plain, m);
    free(plain);
}

void nll__conn_scrub(const char *conn, char *msg, size_t cap)
{
    if (nll__conn_is_kv(conn)) {
        size_t at = 0;
        kv_t p;
        const char *why;
        while (kv_next(conn, &at, &p, &why) > 0)
            if (is_password(&p)) scrub_both(msg, cap, p.v, p.vlen, 1);
        return;
    }
    const char *scheme = strstr(conn, "://");
    if (!scheme) return;
    const char *auth = scheme + 3, *auth_end = auth + strcspn(auth, "/?"), *at = NULL;
    for (const char *p = auth; p < auth_end; p++)
        if (*p == '@') at = p;
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon) scrub_both(msg, cap, colon + 1, (size_t)(at - colon - 1), 0);
    for (const char *p = strchr(conn, '?'); p && *p;) {
        size_t n = strcspn(p + 1, "&"), klen;
        if (query_secret(p + 1, n, &klen)) scrub_both(msg, cap, p + 2 + klen, n - klen - 1, 0);
        p += 1 + n;
    }
}
