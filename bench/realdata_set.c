/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_set.c — a labelled data set in memory (see realdata_set.h). */
#include "realdata_set.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realdata_anchor.h"
#include "realdata_bank.h"

void rd_oom(void)
{
    fprintf(stderr, "bench-realdata: out of memory\n");
    exit(1);
}

int rd_set_load(rd_set_t *set, const char *dir, char *err, size_t errlen)
{
    memset(set, 0, sizeof *set);
    DIR *d = opendir(dir);
    if (!d) return 0;
    closedir(d);
    const char *base = strrchr(dir, '/');
    snprintf(set->name, sizeof set->name, "%s", base && base[1] ? base + 1 : dir);
    set->nser = rd_is_asd(dir) ? rd_load_asd(dir, &set->ser, &set->nfold, err, errlen)
                               : rd_load_dir(dir, &set->ser, &set->nfold, err, errlen);
    if (set->nser <= 0) return set->nser;
    nab_corpus_init(&set->corpus);
    set->wg = rd_set_scores(set);
    if (!(set->fam = calloc((size_t)set->nser, sizeof *set->fam))) rd_oom();
    for (int k = 0; k < set->nser; k++) {
        rd_series_t *s = &set->ser[k];
        if (nab_corpus_add(&set->corpus, s->label, s->n)) rd_oom();
        const nab_series_t *ns = &set->corpus.s[k];
        set->rows += s->n;
        set->scored += s->n - ns->probation;
        set->empty += s->empty;
        if (s->n > ns->probation + 1)
            set->scored_days += (double)(s->ts[s->n - 1] - s->ts[ns->probation]) / 86400e6 *
                                (double)(s->n - ns->probation) /
                                (double)(s->n - ns->probation - 1);
        double *x = malloc((s->n ? s->n : 1) * sizeof *x), last = 0;
        if (!x) rd_oom();
        for (size_t i = 0; i < s->n; i++) x[i] = isnan(s->v[i]) ? last : (last = s->v[i]);
        if (rd_windowed_gaussian(x, s->n, set->wg[k])) rd_oom();
        if (!(set->fam[k] = calloc(s->n ? s->n : 1, 1))) rd_oom();
        free(x);
    }
    nab_corpus_windows(&set->corpus, &set->scored_w);
    return 1;
}

void rd_set_free(rd_set_t *set)
{
    if (set->wg) rd_set_scores_free(set, set->wg);
    for (int k = 0; set->fam && k < set->nser; k++) free(set->fam[k]);
    free(set->fam);
    if (set->nser > 0) nab_corpus_free(&set->corpus);
    for (int k = 0; k < set->nser; k++) rd_series_free(&set->ser[k]);
    free(set->ser);
    memset(set, 0, sizeof *set);
}

double **rd_set_scores(const rd_set_t *set)
{
    double **sc = calloc((size_t)set->nser, sizeof *sc);
    if (!sc) rd_oom();
    for (int k = 0; k < set->nser; k++)
        if (!(sc[k] = calloc(set->ser[k].n ? set->ser[k].n : 1, sizeof(double)))) rd_oom();
    return sc;
}

void rd_set_scores_free(const rd_set_t *set, double **sc)
{
    for (int k = 0; sc && k < set->nser; k++) free(sc[k]);
    free(sc);
}

void rd_set_bank(const rd_set_t *set, const nld_params_t *p, double **sc)
{
    for (int k = 0; k < set->nser; k++)
        if (rd_bank_scores(&set->ser[k], p, sc[k], set->fam[k])) rd_oom();
}

void rd_set_sweep(const rd_set_t *set, double **sc, rd_sweep_t *w)
{
    if (rd_sweep_init(w, &set->corpus, set->ser, set->nser, sc, set->fam, NULL)) rd_oom();
}

size_t rd_set_quiet(const rd_set_t *set, double *const *det, const char *who, int *nq,
                    double *days)
{
    size_t fp = 0;
    *nq = 0;
    for (int k = 0; k < set->nser; k++) {
        const nab_series_t *ns = &set->corpus.s[k];
        const rd_series_t *s = &set->ser[k];
        if (ns->nw) continue;
        ++*nq;
        size_t f0 = fp;
        for (size_t i = ns->probation; i < s->n; i++) fp += det[k][i] != 0;
        if (who && getenv("RD_PER_SERIES"))
            fprintf(stderr, "quiet %s %s: %zu false reports in %zu rows after probation\n", who,
                    s->name, fp - f0, s->n - ns->probation);
    }
    *days = rd_set_quiet_days(set);
    return fp;
}

double rd_set_quiet_days(const rd_set_t *set)
{
    double days = 0;
    for (int k = 0; k < set->nser; k++) {
        const nab_series_t *ns = &set->corpus.s[k];
        const rd_series_t *s = &set->ser[k];
        if (!ns->nw && s->n > ns->probation + 1)
            days += (double)(s->ts[s->n - 1] - s->ts[ns->probation]) / 86400e6;
    }
    return days;
}

double rd_set_fp_per_1k(const rd_set_t *set, size_t fp)
{
    return set->scored ? 1000.0 * (double)fp / (double)set->scored : 0;
}

double rd_set_fp_per_day(const rd_set_t *set, size_t fp)
{
    return set->scored_days > 0 ? (double)fp / set->scored_days : 0;
}
