/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_replay.c — a labelled series through nl-detect's engine (see realdata_replay.h). */
#include "realdata_replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nld.h"
#include "nlkit/nl.h"

void rd_cols_free(rd_cols_t *c)
{
    for (int i = 0; i < c->n; i++) free(c->v[i]);
    memset(c, 0, sizeof *c);
}

double *rd_col(const rd_cols_t *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->name[i], name)) return c->v[i];
    return NULL;
}

/* One output line of the engine, caused by row `row`. */
static void take(rd_cols_t *c, nl_rec_t *rec, const char *line, size_t len, size_t row)
{
    if (nl_parse(rec, line, len, 0, NL_PARSE_STRICT, NULL) != 1) return;
    const nl_field_t *ev = &rec->f[rec->i_event];
    if (nl_field_is(ev, "nl.anomaly.score")) {
        for (int i = 0; i < rec->n; i++) {
            const nl_field_t *f = &rec->f[i];
            if (f->name_len < 7 || memcmp(f->name, "score.", 6)) continue;
            char name[40];
            snprintf(name, sizeof name, "%.*s", (int)f->name_len, f->name);
            double *col = rd_col(c, name), x;
            if (col && !nl_field_double(f, &x)) col[row] = x;
        }
    } else if (nl_field_is(ev, "nl.anomaly.start") || nl_field_is(ev, "nl.anomaly.escalate")) {
        /* both page: a start, and an open episode raised by a much rarer value */
        const nl_field_t *a = nl_rec_get(rec, "algo");
        if (!a) return;
        char name[40];
        snprintf(name, sizeof name, "start.%.*s", (int)a->value_len, a->value);
        double *col = rd_col(c, name);
        if (col) col[row] = 1;
    }
}

int rd_replay(const rd_series_t *s, const char *words, const char *const *want, int nwant,
              const char *tmpdir, rd_cols_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nwant > RD_COLS_MAX) nwant = RD_COLS_MAX;
    for (int i = 0; i < nwant; i++) {
        snprintf(out->name[i], sizeof out->name[i], "%s", want[i]);
        if (!(out->v[i] = calloc(s->n ? s->n : 1, sizeof(double)))) {
            rd_cols_free(out);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        out->n++;
    }
    out->rows = s->n;
    char text[2048], path[4096];
    snprintf(text, sizeof text,
             "stream m event=rd.sample value=value %s\nset scores=1\n", words);
    snprintf(path, sizeof path, "%s/replay-%ld.log", tmpdir, (long)getpid());
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    int rc = -1;
    nl_log_t *log = NULL;
    nld_t *d = NULL;
    FILE *rf = NULL;
    char *line = NULL;
    size_t lcap = 0;
    nl_rec_t rec;
    nl_rec_init(&rec);
    if (nld_cfg_parse(&cfg, text, "bench-realdata", err, errlen)) goto done;
    if (!(log = nl_open(path))) {
        snprintf(err, errlen, "cannot open %s", path);
        goto done;
    }
    nl_set_level(log, NL_LVL_TRACE);
    if (!(rf = fopen(path, "r"))) {
        snprintf(err, errlen, "cannot read %s", path);
        goto done;
    }
    nld_opts_t o = {0};
    if (!(d = nld_new(&cfg, log, &o, err, errlen))) goto done;
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    double last = NAN;
    for (size_t i = 0; i < s->n; i++) {
        if (!isnan(s->v[i])) last = s->v[i];
        if (isnan(last)) continue;
        nl_buf_reset(&b);
        nl_enc_begin(&b, s->ts[i], "rd.sample", NL_LVL_INFO, NULL);
        nl_enc_dbl(&b, "value", last);
        nl_enc_end(&b);
        nld_line(d, b.p, b.len, s->name, (long)i + 2);
        nl_flush(log);
        ssize_t got;
        while ((got = getline(&line, &lcap, rf)) > 0) take(out, &rec, line, (size_t)got, i);
        clearerr(rf);
    }
    nl_buf_free(&b);
    rc = 0;
done:
    if (d) nld_free(d);
    if (log) nl_close(log);
    if (rf) fclose(rf);
    unlink(path);
    free(line);
    nl_rec_free(&rec);
    nld_cfg_free(&cfg);
    if (rc) rd_cols_free(out);
    return rc;
}
