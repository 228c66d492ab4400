/* SPDX-License-Identifier: BSD-3-Clause */
/* nab.c — NAB-style scoring of per-row anomaly scores (see nab.h). */
#include "nab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const nab_profile_t nab_standard = {"standard", 1.0, 0.11, 1.0};
const nab_profile_t nab_low_fp = {"low-FP", 1.0, 0.22, 1.0};
const nab_profile_t nab_low_fn = {"low-FN", 1.0, 0.11, 2.0};

void nab_corpus_init(nab_corpus_t *c) { memset(c, 0, sizeof *c); }

void nab_corpus_free(nab_corpus_t *c)
{
    for (size_t k = 0; k < c->n; k++) free(c->s[k].w);
    free(c->s);
    memset(c, 0, sizeof *c);
}

size_t nab_probation(size_t n)
{
    size_t p = (size_t)floor(0.15 * (double)n);
    return p > 750 ? 750 : p;
}

int nab_corpus_add(nab_corpus_t *c, const uint8_t *label, size_t n)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 64;
        nab_series_t *ns = realloc(c->s, nc * sizeof *ns);
        if (!ns) return -1;
        c->s = ns;
        c->cap = nc;
    }
    nab_series_t *s = &c->s[c->n];
    memset(s, 0, sizeof *s);
    s->n = n;
    s->probation = nab_probation(n);
    size_t runs = 0;
    for (size_t i = 0; i < n; i++)
        if (label[i] && (i == 0 || !label[i - 1])) runs++;
    if (runs) {
        s->w = malloc(runs * sizeof *s->w);
        if (!s->w) return -1;
    }
    long width = runs ? (long)floor(0.1 * (double)n / (double)runs) : 0;
    for (size_t i = 0; i < n; i++) {
        if (!label[i] || (i > 0 && label[i - 1])) continue;
        size_t rs = i, re = i;
        while (re + 1 < n && label[re + 1]) re++;
        long mid = (long)(rs + re) / 2;
        long ws = mid - width / 2, we = mid + width / 2;
        if (ws > (long)rs) ws = (long)rs;
        if (we < (long)re) we = (long)re;
        if (ws < 0) ws = 0;
        if (we > (long)n - 1) we = (long)n - 1;
        if (s->nw && (size_t)ws <= s->w[s->nw - 1].e) { /* overlaps the previous: merge */
            if ((size_t)we > s->w[s->nw - 1].e) s->w[s->nw - 1].e = (size_t)we;
        } else {
            s->w[s->nw++] = (nab_window_t){(size_t)ws, (size_t)we};
        }
    }
    for (size_t j = 0; j < s->nw; j++)
        if (s->w[j].e >= s->probation) s->scored_w++;
    c->n++;
    return 0;
}

size_t nab_corpus_windows(const nab_corpus_t *c, size_t *scored)
{
    size_t all = 0, sc = 0;
    for (size_t k = 0; k < c->n; k++) {
        all += c->s[k].nw;
        sc += c->s[k].scored_w;
    }
    if (scored) *scored = sc;
    return all;
}

/* NAB's scaled sigmoid: 1 at y = -1 (relative), 0 at 0, towards -1 for y > 0. */
static double sigma(double y) { return 2.0 / (1.0 + exp(5.0 * y)) - 1.0; }

/* The reward for a window's first detection at row i: earlier is worth more. */
static double tp_weight(const nab_window_t *w, size_t i, const nab_profile_t *p)
{
    double width = (double)(w->e - w->s + 1);
    return p->a_tp * sigma(-(double)(w->e - i + 1) / width) / sigma(-1.0);
}

/* The cost of a detection at row i outside every window; prev is the latest window that
 * ended before i, or NULL. Just after a window costs little: a late but real detection. */
static double fp_weight(const nab_window_t *prev, size_t i, const nab_profile_t *p)
{
    if (!prev) return -p->a_fp;
    double wm1 = (double)(prev->e - prev->s);
    if (wm1 < 1) wm1 = 1;
    return p->a_fp * sigma((double)(i - prev->e) / wm1);
}

/* Walking a series' rows in order: the window that holds row i, or NULL; *prev becomes the
 * latest window that ended before i (what a false detection's cost is measured from). *wi
 * starts at 0 and only moves forward. */
static const nab_window_t *window_at(const nab_series_t *s, size_t i, size_t *wi,
                                     const nab_window_t **prev)
{
    while (*wi < s->nw && s->w[*wi].e < i) *prev = &s->w[(*wi)++];
    return *wi < s->nw && s->w[*wi].s <= i ? &s->w[*wi] : NULL;
}

typedef struct ev {
    double score, delta;
} ev_t;

static int ev_cmp(const void *a, const void *b)
{
    double x = ((const ev_t *)a)->score, y = ((const ev_t *)b)->score;
    return x > y ? -1 : x < y; /* descending */
}

/* The raw scores of never detecting and of detecting every window at its start. */
static void limits(const nab_profile_t *p, size_t windows, double *null, double *perfect)
{
    *null = -p->a_fn * (double)windows;
    *perfect = p->a_tp * (double)windows;
}

static void bounds(const nab_corpus_t *c, const unsigned char *only, const nab_profile_t *p,
                   double *null, double *perfect, size_t *windows)
{
    *windows = 0;
    for (size_t k = 0; k < c->n; k++) {
        if (only && !only[k]) continue;
        *windows += c->s[k].scored_w;
    }
    limits(p, *windows, null, perfect);
}

static double normalise(double raw, double null, double perfect)
{
    return perfect > null ? 100.0 * (raw - null) / (perfect - null) : 0.0;
}

int nab_score(const nab_corpus_t *c, double *const *score, const unsigned char *only,
              const nab_profile_t *p, nab_result_t *out)
{
    size_t cap = 0;
    for (size_t k = 0; k < c->n; k++)
        if (!only || only[k]) cap += c->s[k].n;
    ev_t *ev = malloc((cap ? cap : 1) * sizeof *ev);
    size_t *rec = malloc((cap ? cap : 1) * sizeof *rec);
    if (!ev || !rec) {
        free(ev);
        free(rec);
        return -1;
    }
    size_t nev = 0;
    for (size_t k = 0; k < c->n; k++) {
        if (only && !only[k]) continue;
        const nab_series_t *s = &c->s[k];
        const double *x = score[k];
        size_t wi = 0;
        const nab_window_t *prev = NULL;
        for (size_t i = s->probation; i < s->n;) {
            const nab_window_t *w = window_at(s, i, &wi, &prev);
            if (w) {
                /* A window: only its records (a score above every earlier one in it) can
                 * be its first detection at some threshold; from the latest record down,
                 * each lowers the threshold at which the window is found, earlier. */
                size_t nr = 0;
                double best = -INFINITY;
                for (size_t j = i; j <= w->e; j++)
                    if (!isnan(x[j]) && x[j] > best) {
                        best = x[j];
                        rec[nr++] = j;
                    }
                double val = -p->a_fn;
                for (size_t r = nr; r-- > 0;) {
                    double tw = tp_weight(w, rec[r], p);
                    ev[nev++] = (ev_t){x[rec[r]], tw - val};
                    val = tw;
                }
                i = w->e + 1;
                continue;
            }
            if (!isnan(x[i])) ev[nev++] = (ev_t){x[i], fp_weight(prev, i, p)};
            i++;
        }
    }
    qsort(ev, nev, sizeof *ev, ev_cmp);
    double null, perfect;
    size_t windows;
    bounds(c, only, p, &null, &perfect, &windows);
    double raw = null, best = null, thr = INFINITY;
    for (size_t a = 0; a < nev;) {
        size_t b = a;
        while (b < nev && ev[b].score == ev[a].score) raw += ev[b++].delta;
        if (raw > best + 1e-12) {
            best = raw;
            thr = ev[a].score;
        }
        a = b;
    }
    free(ev);
    free(rec);
    nab_score_at(c, score, only, p, thr, out);
    return 0;
}

/* The start of a scoring at one threshold (nab_score_at, nab_score_rows): out cleared and
 * its windows counted; returns the raw score of detecting nothing, where the sum starts. */
static double at_begin(const nab_corpus_t *c, const unsigned char *only,
                       const nab_profile_t *p, nab_result_t *out)
{
    double null, perfect;
    memset(out, 0, sizeof *out);
    bounds(c, only, p, &null, &perfect, &out->windows);
    for (size_t k = 0; k < c->n; k++)
        if (!only || only[k]) out->rows += c->s[k].n - c->s[k].probation;
    return null;
}

/* Its end: the summed weights raw, normalised (the windows at_begin counted). */
static void at_end(const nab_profile_t *p, double raw, double thr, nab_result_t *out)
{
    double null, perfect;
    limits(p, out->windows, &null, &perfect);
    out->raw = raw;
    out->threshold = thr;
    out->score = normalise(raw, null, perfect);
}

void nab_score_at(const nab_corpus_t *c, double *const *score, const unsigned char *only,
                  const nab_profile_t *p, double thr, nab_result_t *out)
{
    double raw = at_begin(c, only, p, out);
    for (size_t k = 0; k < c->n; k++) {
        if (only && !only[k]) continue;
        const nab_series_t *s = &c->s[k];
        const double *x = score[k];
        size_t wi = 0;
        const nab_window_t *prev = NULL;
        for (size_t i = s->probation; i < s->n;) {
            const nab_window_t *w = window_at(s, i, &wi, &prev);
            if (w) {
                for (size_t j = i; j <= w->e; j++)
                    if (x[j] >= thr) {
                        raw += tp_weight(w, j, p) + p->a_fn;
                        out->found++;
                        break;
                    }
                i = w->e + 1;
                continue;
            }
            if (x[i] >= thr) {
                raw += fp_weight(prev, i, p);
                out->fp++;
            }
            i++;
        }
    }
    at_end(p, raw, thr, out);
}

void nab_score_rows(const nab_corpus_t *c, size_t *const *rows, const size_t *nrows,
                    const unsigned char *only, const nab_profile_t *p, nab_result_t *out)
{
    double raw = at_begin(c, only, p, out);
    for (size_t k = 0; k < c->n; k++) {
        if (only && !only[k]) continue;
        const nab_series_t *s = &c->s[k];
        size_t wi = 0;
        const nab_window_t *prev = NULL, *found = NULL;
        for (size_t j = 0; j < nrows[k]; j++) {
            size_t i = rows[k][j];
            if (i < s->probation) continue;
            const nab_window_t *w = window_at(s, i, &wi, &prev);
            if (w) { /* only a window's first detection counts, as in nab_score_at */
                if (w == found) continue;
                found = w;
                raw += tp_weight(w, i, p) + p->a_fn;
                out->found++;
                continue;
            }
            raw += fp_weight(prev, i, p);
            out->fp++;
        }
    }
    at_end(p, raw, 0.5, out);
}
