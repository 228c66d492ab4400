/* SPDX-License-Identifier: BSD-3-Clause */
/* bp_cases.c — reader for the conformance cases, with the small JSON subset their
 * expectations use: an array of [name, value] string pairs, or objects whose values are
 * strings or objects of strings. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_cases.h"
#include "nl_test.h"

static void put_utf8(char **o, unsigned cp)
{
    char *p = *o;
    if (cp < 0x80)
        *p++ = (char)cp;
    else if (cp < 0x800)
        *p++ = (char)(0xc0 | cp >> 6), *p++ = (char)(0x80 | (cp & 0x3f));
    else if (cp < 0x10000)
        *p++ = (char)(0xe0 | cp >> 12), *p++ = (char)(0x80 | ((cp >> 6) & 0x3f)),
        *p++ = (char)(0x80 | (cp & 0x3f));
    else
        *p++ = (char)(0xf0 | cp >> 18), *p++ = (char)(0x80 | ((cp >> 12) & 0x3f)),
        *p++ = (char)(0x80 | ((cp >> 6) & 0x3f)), *p++ = (char)(0x80 | (cp & 0x3f));
    *o = p;
}

static unsigned hex4(const char *p)
{
    unsigned cp = 0;
    for (int k = 0; k < 4 && p[k]; k++) {
        char c = p[k];
        cp = cp * 16 + (unsigned)(c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
    }
    return cp;
}

/* A JSON string at *s (pointing at the opening quote); returns malloc'd bytes. */
static char *json_string(const char **s, size_t *len)
{
    const char *p = *s;
    if (*p != '"') return NULL;
    p++;
    char *out = malloc(strlen(p) * 4 + 1), *o = out;
    while (*p && *p != '"') {
        if (*p != '\\') {
            *o++ = *p++;
            continue;
        }
        p++;
        switch (*p) {
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case '/': *o++ = '/'; break;
        case '\\': *o++ = '\\'; break;
        case '"': *o++ = '"'; break;
        case 'u': {
            unsigned cp = hex4(p + 1);
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p[1] == '\\' && p[2] == 'u') {
                unsigned lo = hex4(p + 3); /* a surrogate pair: one character */
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
            put_utf8(&o, cp);
            break;
        }
        default: free(out); return NULL;
        }
        p++;
    }
    if (*p != '"') {
        free(out);
        return NULL;
    }
    *s = p + 1;
    *len = (size_t)(o - out);
    *o = '\0';
    return out;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ',') p++;
    return p;
}

static int parse_pairs(const char *text, bp_case_t *c)
{
    const char *p = skip_ws(text);
    if (*p++ != '[') return -1;
    for (;;) {
        p = skip_ws(p);
        if (*p == ']') return 0;
        if (*p++ != '[' || c->npairs == BP_PAIRS_MAX) return -1;
        size_t nl, vl;
        p = skip_ws(p);
        char *n = json_string(&p, &nl);
        p = skip_ws(p);
        char *v = n ? json_string(&p, &vl) : NULL;
        p = skip_ws(p);
        if (!v || *p++ != ']') {
            free(n);
            free(v);
            return -1;
        }
        c->pname[c->npairs] = n;
        c->pvalue[c->npairs] = v;
        c->pvalue_len[c->npairs++] = vl;
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const bp_case_t *)a)->name, ((const bp_case_t *)b)->name);
}

int bp_cases_load(const char *dir, int valid, bp_case_t **out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, valid ? "valid" : "invalid");
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "bp-cases: cannot open %s\n", path);
        return -1;
    }
    bp_case_t *cs = calloc(256, sizeof *cs);
    int n = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".line") || l - 5 >= 48) continue;
        bp_case_t *c = &cs[n++];
        snprintf(c->name, sizeof c->name, "%s/%.*s", valid ? "valid" : "invalid", (int)(l - 5),
                 e->d_name);
        snprintf(path, sizeof path, "%s/%s/%s", dir, valid ? "valid" : "invalid", e->d_name);
        c->line = t_slurp(path, &c->line_len);
        path[strlen(path) - 5] = '\0';
        strcat(path, valid ? ".json" : ".why");
        size_t jl;
        char *side = t_slurp(path, &jl);
        if (!c->line || !side) {
            fprintf(stderr, "bp-cases: cannot read %s\n", path);
            bad = 1;
        } else if (valid) {
            if (parse_pairs(side, c)) {
                fprintf(stderr, "bp-cases: malformed %s\n", path);
                bad = 1;
            }
            free(side);
        } else {
            c->why = side;
        }
    }
    closedir(d);
    qsort(cs, (size_t)n, sizeof *cs, by_name);
    if (bad) {
        bp_cases_free(cs, n);
        return -1;
    }
    *out = cs;
    return n;
}

void bp_cases_free(bp_case_t *cs, int n)
{
    for (int i = 0; i < n; i++) {
        free(cs[i].line);
        free(cs[i].why);
        free(cs[i].nlv_error);
        for (int k = 0; k < cs[i].npairs; k++) {
            free(cs[i].pname[k]);
            free(cs[i].pvalue[k]);
        }
    }
    free(cs);
}

/* Pairs of a JSON object of strings at *s (pointing at '{') appended to c. */
static int object_pairs(const char **s, bp_case_t *c)
{
    const char *p = skip_ws(*s);
    if (*p++ != '{') return -1;
    for (;;) {
        p = skip_ws(p);
        if (*p == '}') break;
        if (c->npairs == BP_PAIRS_MAX) return -1;
        size_t nl, vl;
        char *n = json_string(&p, &nl);
        p = n ? skip_ws(p) : p;
        char *v = n && *p++ == ':' ? (p = skip_ws(p), json_string(&p, &vl)) : NULL;
        if (!v) {
            free(n);
            return -1;
        }
        c->pname[c->npairs] = n;
        c->pvalue[c->npairs] = v;
        c->pvalue_len[c->npairs++] = vl;
    }
    *s = p + 1;
    return 0;
}

/* One case from a JSON object line. */
static int nlv_case(const char *text, bp_case_t *c)
{
    const char *p = skip_ws(text);
    if (*p++ != '{') return -1;
    for (;;) {
        p = skip_ws(p);
        if (*p == '}') return c->line ? 0 : -1;
        size_t kl, vl;
        char *k = json_string(&p, &kl);
        p = k ? skip_ws(p) : p;
        if (!k || *p++ != ':') {
            free(k);
            return -1;
        }
        p = skip_ws(p);
        int rc = 0;
        if (!strcmp(k, "netlogger_fields")) {
            rc = object_pairs(&p, c);
        } else {
            char *v = json_string(&p, &vl);
            if (!v)
                rc = -1;
            else if (!strcmp(k, "line"))
                c->line = v, c->line_len = vl;
            else if (!strcmp(k, "netlogger_error"))
                c->nlv_error = v;
            else {
                if (!strcmp(k, "source")) c->nlv_written = !strncmp(v, "written by NetLogger", 20);
                free(v);
            }
        }
        free(k);
        if (rc) return rc;
    }
}

int bp_nlv_load(const char *path, bp_case_t **out)
{
    size_t len;
    char *text = t_slurp(path, &len);
    if (!text) {
        fprintf(stderr, "bp-cases: cannot read %s\n", path);
        return -1;
    }
    int cap = 1;
    for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
    bp_case_t *cs = calloc((size_t)cap, sizeof *cs);
    int n = 0, lineno = 0;
    for (char *l = text, *nl; l < text + len; l = nl + 1) {
        nl = strchr(l, '\n');
        if (!nl) nl = text + len;
        *nl = '\0';
        lineno++;
        if (!*skip_ws(l)) continue;
        bp_case_t *c = &cs[n++];
        snprintf(c->name, sizeof c->name, "nlv/%03d", lineno);
        if (nlv_case(l, c)) {
            fprintf(stderr, "bp-cases: malformed case at %s:%d\n", path, lineno);
            bp_cases_free(cs, n);
            free(text);
            return -1;
        }
    }
    free(text);
    *out = cs;
    return n;
}

size_t bp_nlv_write_value(char *o, const char *v, size_t n)
{
    int q =
        n == 0 || memchr(v, ' ', n) || memchr(v, '\t', n) || memchr(v, '=', n) || memchr(v, '"', n);
    size_t k = 0;
    if (q) o[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (q && v[i] == '"') o[k++] = '\\';
        o[k++] = v[i];
    }
    if (q) o[k++] = '"';
    return k;
}
