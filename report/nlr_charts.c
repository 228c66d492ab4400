/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_charts.c — the report's charts: what every chart is made of (the helpers nlr_sum.c
 * and nlr_pairs.c share), and the order on the page. */
#include <fnmatch.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"
#include "nlr_int.h"

char *nlr__dup(const char *s) { return strdup(s ? s : ""); }

int nlr_grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return 0;
    int n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    void *q = realloc(*p, (size_t)n * size);
    if (!q) return NL_ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

int nlr__oom(nll_err_t *err)
{
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return NL_ENOMEM;
}

int nlr__wanted(const nlr_opts_t *o, const char *activity, const char *event, const char *host)
{
    if (!strncmp(activity, "nl.", 3)) return 0; /* the tools' own reports are laid on charts */
    if (o->host_glob && fnmatch(o->host_glob, host, 0)) return 0;
    if (o->event_glob && fnmatch(o->event_glob, activity, 0) && fnmatch(o->event_glob, event, 0))
        return 0;
    return 1;
}

nlr_chart_t *nlr__chart_new(nlr_report_t *r, const char *activity, const char *host, int kind)
{
    if (nlr_grow((void **)&r->charts, &r->capcharts, r->ncharts + 1, sizeof *r->charts))
        return NULL;
    nlr_chart_t *c = &r->charts[r->ncharts];
    *c = (nlr_chart_t){.kind = kind,
                       .busy = NAN,
                       .dur_mean = NAN,
                       .dur_max = NAN,
                       .dur_p99 = NAN,
                       .mean = NAN,
                       .dev = NAN,
                       .base_p5 = NAN,
                       .base_p50 = NAN,
                       .base_p95 = NAN,
                       .slowest = -INFINITY};
    c->activity = nlr__dup(activity);
    c->host = nlr__dup(host);
    if (!c->activity || !c->host) {
        free(c->activity);
        free(c->host);
        return NULL;
    }
    r->ncharts++;
    return c;
}

nlr_chart_t *nlr_chart_find(nlr_report_t *r, const char *activity, const char *host)
{
    for (int i = 0; i < r->ncharts; i++)
        if (!strcmp(r->charts[i].activity, activity) && !strcmp(r->charts[i].host, host))
            return &r->charts[i];
    return NULL;
}

int nlr_chart_span(nlr_chart_t *c, int kind, double t0, double t1, int open, const char *label,
                   const char *detail)
{
    if (nlr_grow((void **)&c->spans, &c->capspans, c->nspans + 1, sizeof *c->spans))
        return NL_ENOMEM;
    nlr_span_t *s = &c->spans[c->nspans];
    *s = (nlr_span_t){.kind = kind, .t0 = t0, .t1 = t1, .open = open};
    if (!(s->label = nlr__dup(label)) || !(s->detail = nlr__dup(detail))) {
        free(s->label);
        return NL_ENOMEM;
    }
    c->nspans++;
    return 0;
}

int nlr_chart_mark(nlr_chart_t *c, int kind, double t, double t_from, const char *label,
                   const char *detail)
{
    if (nlr_grow((void **)&c->marks, &c->capmarks, c->nmarks + 1, sizeof *c->marks))
        return NL_ENOMEM;
    nlr_mark_t *m = &c->marks[c->nmarks];
    *m = (nlr_mark_t){.kind = kind, .t = t, .t_from = t_from, .guid = NULL};
    if (!(m->label = nlr__dup(label)) || !(m->detail = nlr__dup(detail))) {
        free(m->label);
        return NL_ENOMEM;
    }
    c->nmarks++;
    return 0;
}

int nlr_chart_flagged(const nlr_chart_t *c, double t)
{
    for (int i = 0; i < c->nspans; i++)
        if (t >= c->spans[i].t0 && t <= c->spans[i].t1) return 1;
    return 0;
}

/* The column a time falls in: the window is split into NLR_COLS equal parts. */
void nlr__col_add(nlr_col_t *k, double t, double x)
{
    if (!k->n || x < k->lo) k->lo = x;
    if (!k->n || x > k->hi) k->hi = x;
    k->mean += x;
    k->t += t;
    k->n++;
}

int nlr__cols_finish(const nlr_col_t *acc, nlr_col_t *out)
{
    int n = 0;
    for (int j = 0; j < NLR_COLS; j++)
        if (acc[j].n) {
            nlr_col_t k = acc[j];
            k.mean /= (double)k.n;
            k.t /= (double)k.n;
            out[n++] = k;
        }
    return n;
}

int nlr__col_of(const nlr_report_t *r, double t)
{
    double span = r->t1 - r->t0; /* the same arithmetic as the SQL of summary_cols */
    int c = span > 0 ? (int)floor((t - r->t0) * (NLR_COLS / span)) : 0;
    return c < 0 ? 0 : c >= NLR_COLS ? NLR_COLS - 1 : c;
}

/* Type-7 quantile of sorted values (as nl-baseline and the SQL views). */
double nlr__quantile(const double *v, int n, double u)
{
    if (n == 0) return NAN;
    double h = (n - 1) * u;
    int i = (int)floor(h);
    return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[n - 1];
}

int nlr__cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int rank_cmp(const void *a, const void *b)
{
    const nlr_chart_t *x = a, *y = b;
    int rx = x->nspans + x->nmarks, ry = y->nspans + y->nmarks;
    if (rx != ry) return ry - rx;
    double dx = isnan(x->dev) ? -1 : fabs(x->dev), dy = isnan(y->dev) ? -1 : fabs(y->dev);
    if (dx != dy) return dy > dx ? 1 : -1;
    int c = strcmp(x->activity, y->activity);
    return c ? c : strcmp(x->host, y->host);
}

void nlr__rank_sort(nlr_chart_t *c, int n)
{
    if (n > 1) qsort(c, (size_t)n, sizeof *c, rank_cmp);
}

void nlr_charts_rank(nlr_report_t *r)
{
    nlr__rank_sort(r->charts, r->ncharts);
    r->shown = r->ncharts < r->o->max_charts ? r->ncharts : r->o->max_charts;
}

void nlr_report_free(nlr_report_t *r)
{
    for (int i = 0; i < r->ncharts; i++) {
        nlr_chart_t *c = &r->charts[i];
        free(c->activity);
        free(c->host);
        free(c->cols);
        for (int j = 0; j < c->nseries; j++) {
            nlr_series_t *w = &c->series[j];
            free(w->prog), free(w->pid), free(w->label), free(w->cols);
        }
        free(c->series);
        free(c->dcols);
        free(c->slowest_guid);
        for (int j = 0; j < c->nspans; j++) free(c->spans[j].label), free(c->spans[j].detail);
        for (int j = 0; j < c->nmarks; j++)
            free(c->marks[j].label), free(c->marks[j].detail), free(c->marks[j].guid);
        free(c->spans);
        free(c->marks);
    }
    free(r->charts);
    free(r->report_ids);
    for (int i = 0; i < r->npeers; i++) {
        free(r->peers[i].kind);
        free(r->peers[i].host);
        free(r->peers[i].culprit);
    }
    free(r->peers);
    for (int i = 0; i < r->nlife; i++) nlr__life_free(&r->life[i]);
}
