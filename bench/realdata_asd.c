/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_asd.c — the Application Server Dataset's layout (../shared/datasets/server-asd,
 * see realdata_csv.h): omi-N.csv holds one row per 5 minutes of N's metrics, omi-N.labels
 * one anomaly a line (FIRST-LAST:METRICS); each non-constant metric is one series. */
#include "realdata_csv.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASD_METRICS_MAX 64

/* Servers are numbered omi-1 ... omi-12: numeric order, so omi-10 is not second. */
static int server_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int rd_is_asd(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        found = n > 7 && !strcmp(e->d_name + n - 7, ".labels");
    }
    closedir(d);
    return found;
}

/* The next comma-separated field of *p (an empty one is "", not skipped), or NULL at the
 * end of the line. */
static char *next_field(char **p)
{
    return *p ? strsep(p, ",") : NULL;
}

/* One server's matrix: rows of times and m columns of values. */
typedef struct asd_matrix {
    size_t n, cap;
    int m;
    int64_t *ts;
    double *v; /* row-major, n x m */
} asd_matrix_t;

static int read_matrix(const char *path, asd_matrix_t *x, char *err, size_t errlen)
{
    FILE *f = rd_fopen(path, err, errlen);
    if (!f) return -1;
    char *line = NULL;
    size_t lcap = 0;
    long ln = 0;
    int rc = 0;
    while (getline(&line, &lcap, f) > 0) {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        if (!*line) continue;
        char *rest = line, *tok = next_field(&rest);
        if (ln == 1) { /* header: TimeStamp,m01,...: count the metrics */
            x->m = 0;
            while ((tok = next_field(&rest))) x->m++;
            if (x->m < 1 || x->m > ASD_METRICS_MAX) {
                snprintf(err, errlen, "%s:1: expected TimeStamp and 1..%d metric columns", path,
                         ASD_METRICS_MAX);
                rc = -1;
                break;
            }
            continue;
        }
        if (x->n == x->cap) {
            size_t nc = x->cap ? 2 * x->cap : 4096;
            int64_t *ts = realloc(x->ts, nc * sizeof *ts);
            if (ts) x->ts = ts;
            double *v = realloc(x->v, nc * (size_t)x->m * sizeof *v);
            if (v) x->v = v;
            if (!ts || !v) {
                snprintf(err, errlen, "%s:%ld: out of memory", path, ln);
                rc = -1;
                break;
            }
            x->cap = nc;
        }
        if (!tok || rd_parse_ts(tok, &x->ts[x->n])) {
            snprintf(err, errlen, "%s:%ld: bad timestamp '%s'", path, ln, tok ? tok : "");
            rc = -1;
            break;
        }
        if (x->n && x->ts[x->n] <= x->ts[x->n - 1]) {
            snprintf(err, errlen, "%s:%ld: timestamp '%s' not after the row before", path, ln,
                     tok);
            rc = -1;
            break;
        }
        int j = 0;
        for (; j < x->m && (tok = next_field(&rest)); j++) {
            char *end;
            double v = strtod(tok, &end);
            if (end == tok || *end || !isfinite(v)) {
                snprintf(err, errlen, "%s:%ld: bad value '%s' in column %d", path, ln, tok, j + 2);
                rc = -1;
                break;
            }
            x->v[x->n * (size_t)x->m + (size_t)j] = v;
        }
        if (rc) break;
        if (j < x->m || next_field(&rest)) {
            snprintf(err, errlen, "%s:%ld: expected %d values", path, ln, x->m);
            rc = -1;
            break;
        }
        x->n++;
    }
    free(line);
    fclose(f);
    return rc;
}

/* The label lines: for each, set label[metric][row] over FIRST..LAST for every listed
 * metric (1-based in the file). */
static int read_labels(const char *path, const asd_matrix_t *x, uint8_t **label, char *err,
                       size_t errlen)
{
    FILE *f = rd_fopen(path, err, errlen);
    if (!f) return -1;
    char *line = NULL;
    size_t lcap = 0;
    long ln = 0;
    int rc = 0;
    while (!rc && getline(&line, &lcap, f) > 0) {
        ln++;
        if (line[strspn(line, " \r\n")] == 0) continue;
        long first, last;
        int used = 0;
        if (sscanf(line, "%ld-%ld:%n", &first, &last, &used) != 2 || !used || first < 0 ||
            last < first || (size_t)last >= x->n) {
            snprintf(err, errlen, "%s:%ld: expected FIRST-LAST:METRICS within %zu rows", path, ln,
                     x->n);
            rc = -1;
            break;
        }
        char *p = line + used;
        while (*p && *p != '\n' && *p != '\r') {
            char *end;
            long m = strtol(p, &end, 10);
            if (end == p || m < 1 || m > x->m) {
                snprintf(err, errlen, "%s:%ld: bad metric number near '%.12s' (1..%d)", path,
                         ln, p, x->m);
                rc = -1;
                break;
            }
            for (long r = first; r <= last; r++) label[m - 1][r] = 1;
            p = end + (*end == ',');
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* Append server `srv`'s non-constant metrics as series to *all. */
static int add_server(const char *dir, int srv, int folder, rd_series_t **all, int *count,
                      int *cap, char *err, size_t errlen)
{
    char path[4096];
    asd_matrix_t x = {0};
    uint8_t *label[ASD_METRICS_MAX] = {0};
    int rc = -1;
    snprintf(path, sizeof path, "%s/omi-%d.csv", dir, srv);
    if (read_matrix(path, &x, err, errlen)) goto done;
    for (int j = 0; j < x.m; j++)
        if (!(label[j] = calloc(x.n ? x.n : 1, 1))) goto oom;
    snprintf(path, sizeof path, "%s/omi-%d.labels", dir, srv);
    if (read_labels(path, &x, label, err, errlen)) goto done;
    for (int j = 0; j < x.m; j++) {
        int constant = 1;
        for (size_t i = 1; i < x.n && constant; i++)
            constant = x.v[i * (size_t)x.m + (size_t)j] == x.v[(size_t)j];
        if (constant) continue;
        if (*count == *cap) {
            int nc = *cap ? *cap * 2 : 256;
            rd_series_t *na = realloc(*all, (size_t)nc * sizeof *na);
            if (!na) goto oom;
            *all = na;
            *cap = nc;
        }
        rd_series_t *s = &(*all)[*count];
        memset(s, 0, sizeof *s);
        s->n = x.n;
        s->folder = folder;
        s->ts = malloc(x.n * sizeof *s->ts);
        s->v = malloc(x.n * sizeof *s->v);
        s->label = label[j];
        label[j] = NULL;
        s->name = malloc(32);
        if (!s->ts || !s->v || !s->name) {
            rd_series_free(s);
            goto oom;
        }
        snprintf(s->name, 32, "omi-%d/m%02d", srv, j + 1);
        memcpy(s->ts, x.ts, x.n * sizeof *s->ts);
        for (size_t i = 0; i < x.n; i++) s->v[i] = x.v[i * (size_t)x.m + (size_t)j];
        (*count)++;
    }
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "%s: out of memory", dir);
done:
    for (int j = 0; j < ASD_METRICS_MAX; j++) free(label[j]);
    free(x.ts);
    free(x.v);
    return rc;
}

int rd_load_asd(const char *dir, rd_series_t **out, int *nfolders, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int srv[256], ns = 0;
    struct dirent *e;
    while ((e = readdir(d)) && ns < 256) {
        int k, used = 0;
        if (sscanf(e->d_name, "omi-%d.csv%n", &k, &used) == 1 && used &&
            !e->d_name[used])
            srv[ns++] = k;
    }
    closedir(d);
    qsort(srv, (size_t)ns, sizeof *srv, server_cmp);
    for (int i = 1; i < ns; i++)
        if (srv[i] == srv[i - 1]) { /* omi-1.csv and omi-01.csv */
            snprintf(err, errlen, "%s: two files for server omi-%d", dir, srv[i]);
            return -1;
        }
    rd_series_t *all = NULL;
    int count = 0, cap = 0;
    for (int i = 0; i < ns; i++)
        if (add_server(dir, srv[i], i, &all, &count, &cap, err, errlen)) {
            for (int k = 0; k < count; k++) rd_series_free(&all[k]);
            free(all);
            return -1;
        }
    *out = all;
    *nfolders = ns;
    return count;
}
