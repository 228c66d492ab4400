/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_words.c — splitting configuration texts into words; reading them whole. */
#include "nl_words.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_file.h"
#include "nlkit/nl.h"

int nl__words_each(const char *text, nl_words_fn fn, void *ctx, long *bad_line, int *bad_col)
{
    const char *p = text;
    char *line = NULL;
    long lineno = 0;
    int rc = 0;
    while (*p && !rc) {
        size_t len = strcspn(p, "\n");
        lineno++;
        free(line);
        if (!(line = strndup(p, len))) return NL_ENOMEM;
        p += len + (p[len] == '\n');
        nl__word_t w[NL_WORDS_MAX];
        int n = 0;
        for (char *s = line; *s;) {
            while (*s == ' ' || *s == '\t' || *s == '\r') *s++ = 0;
            if (!*s || *s == '#') break;
            if (n == NL_WORDS_MAX) {
                if (bad_line) *bad_line = lineno;
                if (bad_col) *bad_col = (int)(s - line) + 1;
                rc = NL_EINVAL;
                break;
            }
            w[n].s = s;
            w[n].col = (int)(s - line) + 1;
            n++;
            while (*s && *s != ' ' && *s != '\t' && *s != '\r') s++;
        }
        if (!rc && n) rc = fn(ctx, lineno, w, n);
    }
    free(line);
    return rc;
}

int nl__read_text(const char *path, size_t max, char **text_out, char *err, size_t errlen)
{
    *text_out = NULL;
    int fd, rc = nl__open_regular(path, &fd, err, errlen);
    if (rc) return rc;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return NL_EIO;
    }
    char *text = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *nt = realloc(text, cap = cap * 2 + 8192);
            if (!nt) {
                snprintf(err, errlen, "%s: out of memory", path);
                rc = NL_ENOMEM;
                break;
            }
            text = nt;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (len > max) { /* on what was read, not on the buffer's size */
            if (max % ((size_t)1 << 20) == 0)
                snprintf(err, errlen, "%s: larger than %zu MiB", path, max >> 20);
            else
                snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
            rc = NL_ETOOBIG;
            break;
        }
        if (got == 0) break;
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        rc = NL_EIO;
    }
    fclose(f);
    if (!rc) {
        text[len] = 0;
        if (memchr(text, 0, len)) {
            snprintf(err, errlen, "%s: contains a NUL byte (not a text file?)", path);
            rc = NL_EINVAL;
        }
    }
    if (rc) {
        free(text);
        return rc;
    }
    *text_out = text;
    return 0;
}

int nl__cfg_vfail(char *err, size_t errlen, const char *src, long line, int col, const char *fmt,
                  va_list ap)
{
    int n = snprintf(err, errlen, "%s:%ld:%d: ", src, line, col);
    if (n >= 0 && (size_t)n < errlen) vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    return NL_EINVAL;
}

int nl__cfg_grow(void **arr, int n, size_t size, int max)
{
    if (n >= max) return NL_EINVAL;
    void *p = realloc(*arr, (size_t)(n + 1) * size);
    if (!p) return NL_ENOMEM;
    *arr = p;
    memset((char *)p + (size_t)n * size, 0, size);
    return 0;
}

int nl__cfg_fail(const nl__cfg_at_t *at, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nl__cfg_vfail(at->err, at->errlen, at->src, at->line, col, fmt, ap);
    va_end(ap);
    return NL_EINVAL;
}

typedef struct cfg_walk {
    nl__cfg_at_t *at;
    nl__cfg_line_fn fn;
    void *ctx;
} cfg_walk_t;

static int cfg_line(void *ctx, long line, nl__word_t *w, int n)
{
    cfg_walk_t *k = ctx;
    k->at->line = line;
    return k->fn(k->ctx, w, n);
}

int nl__cfg_each(const char *text, nl__cfg_at_t *at, nl__cfg_line_fn fn, void *ctx)
{
    cfg_walk_t k = {at, fn, ctx};
    long bl = 0;
    int bc = 0;
    int rc = nl__words_each(text, cfg_line, &k, &bl, &bc);
    if (rc == NL_EINVAL && bl) {
        at->line = bl;
        return nl__cfg_fail(at, bc, "more than %d words", NL_WORDS_MAX);
    }
    return rc;
}

int nl__cfg_load(const char *path, nl__cfg_parse_fn parse, void *obj, char *err, size_t errlen)
{
    char *text;
    int rc = nl__read_text(path, (size_t)16 << 20, &text, err, errlen);
    if (rc) return rc;
    rc = parse(obj, text, path, err, errlen);
    free(text);
    return rc;
}

int nl__cfg_set_str(char **dst, const char *v)
{
    free(*dst);
    return (*dst = strdup(v)) ? 0 : NL_ENOMEM;
}

int nl__cfg_name_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    return n && n <= max &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

int nl__cfg_names(const nl__cfg_at_t *at, int col, const char *v, char **names, int *n, int max,
                  size_t name_max, const char *many, const char *one)
{
    for (int i = 0; i < *n; i++) free(names[i]);
    *n = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n == max) return nl__cfg_fail(at, col, "at most %d %s", max, many);
        if (!nl__cfg_name_ok(t, name_max)) return nl__cfg_fail(at, col, "bad %s '%s'", one, t);
        if (!(names[(*n)++] = strdup(t))) return NL_ENOMEM;
    }
    return 0;
}
