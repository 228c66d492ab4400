/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_bank.c — scores from the algorithm bank and the starts they give (see
 * realdata_bank.h). */
#include "realdata_bank.h"

#include <math.h>
#include <stdlib.h>

#include "bench_util.h"
#include "nld_combine.h"
#include "nld_confirm.h"
#include "nld_tail.h"

int rd_bank_scores(const rd_series_t *s, const nld_params_t *p, double *out)
{
    nld_bank_t b;
    nld_params_t q = *p;
    q.want_scores = 1;
    if (nld_bank_init(&b, &q)) return -1;
    double last = NAN;
    for (size_t i = 0; i < s->n; i++) {
        if (!isnan(s->v[i])) last = s->v[i];
        out[i] = 0;
        if (isnan(last)) continue;
        nld_verdict_t v[NLD_ALGOS];
        int err;
        nld_bank_step_at(&b, last, s->ts[i], v, &err);
        if (err) {
            nld_bank_free(&b);
            return -1;
        }
        for (int a = 0; a < NLD_ALGOS; a++)
            if ((p->algos >> a & 1) && v[a].state != NLD_WARMUP && v[a].score > out[i])
                out[i] = v[a].score;
    }
    nld_bank_free(&b);
    return 0;
}

void rd_per_day(const rd_series_t *s, double *score)
{
    size_t first = 0;
    while (first < s->n && isnan(s->v[first])) first++;
    for (size_t i = 0; i < s->n; i++) {
        if (i <= first || s->ts[i] <= s->ts[first]) {
            score[i] = -INFINITY;
            continue;
        }
        double spacing = (double)(s->ts[i] - s->ts[first]) / 1e6 / (double)(i - first);
        score[i] = nld_surprise_of(score[i]) + log10(spacing / 86400);
    }
}

rd_ep_t rd_ep_hold(int64_t h) { return (rd_ep_t){h, 0, 0, 0}; }

rd_ep_t rd_ep_of(const nld_sdef_t *d)
{
    return (rd_ep_t){d->holdoff_s > 0 ? (int64_t)(d->holdoff_s * 1e6) : -(int64_t)d->holdoff_n,
                     d->fatigue_s, d->escalate, d->confirm};
}

rd_ep_t rd_ep_default(void)
{
    return (rd_ep_t){(int64_t)(NLD_DEFAULT_HOLDOFF_S * 1e6), NLD_DEFAULT_FATIGUE_S,
                     NLD_DEFAULT_ESCALATE, NLD_DEFAULT_CONFIRM};
}

/* rd_starts_at's body; svs, when not NULL, holds nld_surprise_of(score[i]) for every row
 * (a sweep computes it once for all its candidates instead of once per candidate). The
 * starts go to out (0/1 per row) when it is not NULL, and to rows (their rows, rising)
 * when that is not NULL; returns how many. */
static size_t starts_at(const double *score, const double *svs, const int64_t *ts, size_t n,
                        double t, rd_ep_t ep, double *out, size_t *rows)
{
    size_t nr = 0;
    if (out)
        for (size_t i = 0; i < n; i++) out[i] = 0;
    /* the engine's episode of one slot (nld_keyed.c, episode_step) with episode.min=1 */
    int active = 0, holding = 0;
    int64_t h0 = 0, fat_t = 0;
    double fat = 0, peak = 0, st = nld_surprise_of(t);
    nld_confirm_t cf = {0};
    for (size_t i = 0; i < n; i++) {
        int64_t now = ep.hold < 0 ? (int64_t)i : ts[i];
        int flag = score[i] >= t;
        double sv = svs ? svs[i] : nld_surprise_of(score[i]);
        if (ep.confirm > 0 && st > 0) { /* the engine's confirm_step */
            int confirmed = 0;
            if (cf.pending) {
                cf.pending = 0;
                if (!active && sv >= NLD_CONFIRM_NEXT * st) {
                    confirmed = flag = 1;
                    if (cf.pend_s > sv) sv = cf.pend_s;
                }
            }
            int wait = !confirmed && flag && !active &&
                       nld_confirm_wait(&cf, ts[i], sv, st, ep.confirm);
            nld_confirm_add(&cf, ts[i], sv, NLD_CONFIRM_LIKE * st);
            if (wait) {
                cf.pending = 1;
                cf.pend_s = sv;
                continue;
            }
        }
        if (flag) {
            double bar = 0, recent = 0;
            if (ep.fatigue_s > 0 && fat > 0) {
                double age = ts[i] > fat_t ? (double)(ts[i] - fat_t) / 1e6 : 0;
                recent = fat * exp2(-age / ep.fatigue_s);
            }
            if (ep.fatigue_s > 0) bar = st + log10(1 + recent);
            if (!active && sv < bar) continue;
            if (active && ep.escalate > 0 && sv >= peak + ep.escalate && sv >= bar) active = 0;
            if (!active) {
                if (out) out[i] = 1;
                if (rows) rows[nr] = i;
                nr++;
                peak = sv;
                fat = recent + 1;
                fat_t = ts[i];
            }
            if (sv > peak) peak = sv;
            active = 1;
            holding = 0;
            continue;
        }
        if (!active) continue;
        if (!holding) {
            holding = 1;
            h0 = now;
        }
        if (ep.hold < 0 ? now - h0 + 1 >= -ep.hold : now - h0 >= ep.hold) active = 0;
    }
    return nr;
}

void rd_starts_at(const double *score, const int64_t *ts, size_t n, double t, rd_ep_t ep,
                  double *out)
{
    starts_at(score, NULL, ts, n, t, ep, out, NULL);
}

double rd_starts_score(const nab_corpus_t *c, const rd_series_t *s, int nser,
                       double *const *score, const unsigned char *only, double t, rd_ep_t ep,
                       const nab_profile_t *prof, double **tmp, nab_result_t *res)
{
    for (int k = 0; k < nser; k++)
        if (!only || only[k]) rd_starts_at(score[k], s[k].ts, s[k].n, t, ep, tmp[k]);
    nab_score_at(c, tmp, only, prof, 0.5, res);
    return res->score;
}

double rd_best_start_threshold(const nab_corpus_t *c, const rd_series_t *s, int nser,
                               double *const *score, const unsigned char *only, rd_ep_t ep,
                               const nab_profile_t *prof, double *best)
{
    rd_sweep_t w;
    double bt = INFINITY;
    *best = -INFINITY;
    if (rd_sweep_init(&w, c, s, nser, score, only)) return bt;
    rd_sweep_best(&w, ep, &prof, 1, &bt, best);
    rd_sweep_free(&w);
    return bt;
}

/* The candidates: the scores at quantiles 0.9 .. 0.99999 of the swept rows, log-spaced in
 * 1 - u; a threshold that is not positive or repeats the one before is left out. */
static int sweep_cands(rd_sweep_t *w)
{
    size_t total = 0, j = 0;
    for (int k = 0; k < w->nser; k++)
        if (!w->only || w->only[k]) total += w->s[k].n;
    double *all = malloc((total ? total : 1) * sizeof *all), prev = NAN;
    if (!all) return -1;
    for (int k = 0; k < w->nser; k++)
        if (!w->only || w->only[k])
            for (size_t i = 0; i < w->s[k].n; i++) all[j++] = w->score[k][i];
    qsort(all, total, sizeof *all, bench_cmp_d);
    w->ncand = 0;
    for (int q = 0; q < RD_CANDS && total; q++) {
        double u = 1.0 - pow(10, -1.0 - 4.0 * q / 200.0);
        double t = all[(size_t)(u * (double)(total - 1))];
        if (!(t > 0) || t == prev) continue;
        prev = t;
        w->cand[w->ncand++] = t;
    }
    free(all);
    return 0;
}

int rd_sweep_init(rd_sweep_t *w, const nab_corpus_t *c, const rd_series_t *s, int nser,
                  double *const *score, const unsigned char *only)
{
    *w = (rd_sweep_t){.c = c, .s = s, .nser = nser, .score = score, .only = only};
    size_t ns = nser > 0 ? (size_t)nser : 1;
    w->sv = calloc(ns, sizeof *w->sv);
    w->rows = calloc(ns, sizeof *w->rows);
    w->nrows = calloc(ns, sizeof *w->nrows);
    if (!w->sv || !w->rows || !w->nrows) {
        rd_sweep_free(w);
        return -1;
    }
    for (int k = 0; k < nser; k++) {
        if (only && !only[k]) continue;
        size_t n = s[k].n ? s[k].n : 1;
        w->sv[k] = malloc(n * sizeof *w->sv[k]);
        w->rows[k] = malloc(n * sizeof *w->rows[k]);
        if (!w->sv[k] || !w->rows[k]) {
            rd_sweep_free(w);
            return -1;
        }
        for (size_t i = 0; i < s[k].n; i++) w->sv[k][i] = nld_surprise_of(score[k][i]);
    }
    if (sweep_cands(w)) {
        rd_sweep_free(w);
        return -1;
    }
    return 0;
}

void rd_sweep_free(rd_sweep_t *w)
{
    for (int k = 0; k < w->nser; k++) {
        if (w->sv) free(w->sv[k]);
        if (w->rows) free(w->rows[k]);
    }
    free(w->sv);
    free(w->rows);
    free(w->nrows);
    w->sv = NULL;
    w->rows = NULL;
    w->nrows = NULL;
}

void rd_sweep_best(const rd_sweep_t *w, rd_ep_t ep, const nab_profile_t *const *prof,
                   int nprof, double *bt, double *best)
{
    for (int p = 0; p < nprof; p++) {
        bt[p] = INFINITY;
        best[p] = -INFINITY;
    }
    for (int j = 0; j < w->ncand; j++) {
        double t = w->cand[j];
        for (int k = 0; k < w->nser; k++)
            if (!w->only || w->only[k])
                w->nrows[k] = starts_at(w->score[k], w->sv[k], w->s[k].ts, w->s[k].n, t, ep,
                                        NULL, w->rows[k]);
        for (int p = 0; p < nprof; p++) {
            nab_result_t r;
            nab_score_rows(w->c, w->rows, w->nrows, w->only, prof[p], &r);
            if (r.score > best[p]) {
                best[p] = r.score;
                bt[p] = t;
            }
        }
    }
}
