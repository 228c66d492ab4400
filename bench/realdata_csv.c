/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_csv.c — the labelled series' CSV files (see realdata_csv.h). */
#include "realdata_csv.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void rd_series_free(rd_series_t *s)
{
    free(s->name);
    free(s->ts);
    free(s->v);
    free(s->label);
    memset(s, 0, sizeof *s);
}

/* Cut the next comma-separated field from *p, without its quotes. */
static char *field(char **p)
{
    char *s = *p;
    if (!s) return NULL;
    char *c = strchr(s, ',');
    if (c) {
        *c = 0;
        *p = c + 1;
    } else {
        *p = NULL;
    }
    s[strcspn(s, "\r\n")] = 0;
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s[n - 1] = 0;
        s++;
    }
    return s;
}

int rd_parse_ts(const char *s, int64_t *usec)
{
    int y, mo, d, h, mi, sec, used = 0;
    char sep;
    if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi, &sec, &used) != 7 ||
        (sep != ' ' && sep != 'T'))
        return -1;
    const char *rest = s + used;
    if (*rest == 'Z' || *rest == 'z') rest++;
    if (*rest || y < 1900 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
        sec > 60 || h < 0 || mi < 0 || sec < 0)
        return -1;
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                    .tm_hour = h, .tm_min = mi, .tm_sec = sec};
    time_t t = timegm(&tm);
    if (t == (time_t)-1) return -1;
    *usec = (int64_t)t * 1000000;
    return 0;
}

static int grow(rd_series_t *s, size_t *cap)
{
    size_t nc = *cap ? *cap * 2 : 1024;
    int64_t *ts = realloc(s->ts, nc * sizeof *ts);
    if (ts) s->ts = ts;
    double *v = realloc(s->v, nc * sizeof *v);
    if (v) s->v = v;
    uint8_t *l = realloc(s->label, nc);
    if (l) s->label = l;
    if (!ts || !v || !l) return -1;
    *cap = nc;
    return 0;
}

FILE *rd_fopen(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return f;
}

int rd_csv_read(const char *path, rd_series_t *s, char *err, size_t errlen)
{
    FILE *f = rd_fopen(path, err, errlen);
    if (!f) return -1;
    char line[4096];
    long ln = 0;
    size_t cap = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (ln == 1) continue; /* header */
        if (line[strspn(line, " \r\n")] == 0) continue;
        char *p = line, *t = field(&p), *v = field(&p), *l = field(&p);
        if (!t || !v || !l) {
            snprintf(err, errlen, "%s:%ld: expected TimeStamp,Value,Label", path, ln);
            rc = -1;
            break;
        }
        if (s->n == cap && grow(s, &cap)) {
            snprintf(err, errlen, "%s:%ld: out of memory", path, ln);
            rc = -1;
            break;
        }
        if (rd_parse_ts(t, &s->ts[s->n])) {
            snprintf(err, errlen, "%s:%ld: bad timestamp '%s'", path, ln, t);
            rc = -1;
            break;
        }
        char *end;
        if (!*v) {
            s->v[s->n] = NAN;
            s->empty++;
        } else {
            s->v[s->n] = strtod(v, &end);
            if (*end || !isfinite(s->v[s->n])) {
                snprintf(err, errlen, "%s:%ld: bad value '%s'", path, ln, v);
                rc = -1;
                break;
            }
        }
        if (strcmp(l, "0") && strcmp(l, "1")) {
            snprintf(err, errlen, "%s:%ld: bad label '%s' (0 or 1)", path, ln, l);
            rc = -1;
            break;
        }
        s->label[s->n] = l[0] == '1';
        s->n++;
    }
    fclose(f);
    return rc;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir's entries that satisfy keep(); NULL on error. */
static char **list_dir(const char *dir, int (*keep)(const char *dir, const char *name), int *n)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **v = NULL;
    int cnt = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !keep(dir, e->d_name)) continue;
        if (cnt == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) break;
            v = nv;
        }
        v[cnt++] = strdup(e->d_name);
    }
    closedir(d);
    if (cnt) qsort(v, (size_t)cnt, sizeof *v, name_cmp);
    *n = cnt;
    return v ? v : calloc(1, sizeof *v);
}

static int is_dir(const char *dir, const char *name)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    DIR *d = opendir(p);
    if (d) closedir(d);
    return d != NULL;
}

static int is_csv(const char *dir, const char *name)
{
    (void)dir;
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".csv");
}

int rd_load_dir(const char *dir, rd_series_t **out, int *nfolders, char *err, size_t errlen)
{
    int nf = 0, count = 0, cap = 0, rc = 0;
    char **folders = list_dir(dir, is_dir, &nf);
    if (!folders) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    rd_series_t *all = NULL;
    for (int i = 0; i < nf && !rc; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, folders[i]);
        int nfile = 0;
        char **files = list_dir(sub, is_csv, &nfile);
        for (int j = 0; files && j < nfile && !rc; j++) {
            if (count == cap) {
                cap = cap ? cap * 2 : 64;
                rd_series_t *na = realloc(all, (size_t)cap * sizeof *na);
                if (!na) {
                    snprintf(err, errlen, "out of memory");
                    rc = -1;
                    break;
                }
                all = na;
            }
            rd_series_t *s = &all[count];
            memset(s, 0, sizeof *s);
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", sub, files[j]);
            if (rd_csv_read(path, s, err, errlen)) {
                rd_series_free(s);
                rc = -1;
                break;
            }
            size_t nl = strlen(folders[i]) + strlen(files[j]) + 2;
            s->name = malloc(nl);
            if (s->name) snprintf(s->name, nl, "%s/%s", folders[i], files[j]);
            s->folder = i;
            count++;
        }
        for (int j = 0; files && j < nfile; j++) free(files[j]);
        free(files);
    }
    for (int i = 0; i < nf; i++) free(folders[i]);
    free(folders);
    if (rc) {
        for (int k = 0; k < count; k++) rd_series_free(&all[k]);
        free(all);
        return -1;
    }
    *out = all;
    *nfolders = nf;
    return count;
}
