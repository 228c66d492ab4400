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

void rd_starts_at(const double *score, const int64_t *ts, size_t n, double t, rd_ep_t ep,
                  double *out)
{
    /* the engine's episode of one slot (nld_keyed.c, episode_step) with episode.min=1 */
    int active = 0, holding = 0;
    int64_t h0 = 0, fat_t = 0;
    double fat = 0, peak = 0, st = nld_surprise_of(t);
    nld_confirm_t cf = {0};
    for (size_t i = 0; i < n; i++) {
        int64_t now = ep.hold < 0 ? (int64_t)i : ts[i];
        out[i] = 0;
        int flag = score[i] >= t;
        double sv = nld_surprise_of(score[i]);
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
                out[i] = 1;
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
                               const nab_profile_t *prof, double **tmp, double *best)
{
    size_t total = 0, j = 0;
    for (int k = 0; k < nser; k++)
        if (!only || only[k]) total += s[k].n;
    double *all = malloc((total ? total : 1) * sizeof *all), bt = INFINITY;
    *best = -INFINITY;
    if (!all) return bt;
    for (int k = 0; k < nser; k++)
        if (!only || only[k])
            for (size_t i = 0; i < s[k].n; i++) all[j++] = score[k][i];
    qsort(all, total, sizeof *all, bench_cmp_d);
    double prev = NAN;
    /* candidates: the scores at quantiles 0.9 .. 0.99999, log-spaced in 1 - u */
    for (int q = 0; q < 200 && total; q++) {
        double u = 1.0 - pow(10, -1.0 - 4.0 * q / 200.0);
        double t = all[(size_t)(u * (double)(total - 1))];
        if (!(t > 0) || t == prev) continue;
        prev = t;
        nab_result_t r;
        double sc = rd_starts_score(c, s, nser, score, only, t, ep, prof, tmp, &r);
        if (sc > *best) {
            *best = sc;
            bt = t;
        }
    }
    free(all);
    return bt;
}
