/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_bank.c — scores from the algorithm bank and the starts they give (see
 * realdata_bank.h). */
#include "realdata_bank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "nld_combine.h"
#include "nld_beat.h"
#include "nld_confirm.h"
#include "nld_tail.h"

int rd_bank_scores(const rd_series_t *s, const nld_params_t *p, double *out, unsigned char *fam)
{
    nld_bank_t b;
    nld_params_t q = *p;
    q.want_scores = 1;
    if (nld_bank_init(&b, &q)) return -1;
    double last = NAN;
    for (size_t i = 0; i < s->n; i++) {
        if (!isnan(s->v[i])) last = s->v[i];
        out[i] = 0;
        if (fam) fam[i] = 0;
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
        if (fam) fam[i] = (unsigned char)nld_combine_familiar(p->algos, v);
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

rd_ep_t rd_ep_hold(int64_t h) { return (rd_ep_t){h, 0, 0, 0, 0, 0}; }

rd_ep_t rd_ep_of(const nld_sdef_t *d)
{
    return (rd_ep_t){d->holdoff_s > 0 ? (int64_t)(d->holdoff_s * 1e6) : -(int64_t)d->holdoff_n,
                     d->fatigue_s, d->escalate, d->confirm, d->confirm_wait_s, d->beat};
}

void rd_default_params(nld_params_t *p)
{
    nld_params_default(p);
    nld_default_params(p);
    p->admit = 0; /* episode.min=1's */
}

rd_ep_t rd_ep_default(void)
{
    return (rd_ep_t){(int64_t)(NLD_DEFAULT_HOLDOFF_S * 1e6), NLD_DEFAULT_FATIGUE_S,
                     NLD_DEFAULT_ESCALATE, NLD_DEFAULT_CONFIRM, NLD_DEFAULT_CONFIRM_WAIT_S,
                     NLD_DEFAULT_BEAT};
}

/* The share of the threshold's surprise from which confirm= reads a row: it remembers
 * rows from NLD_CONFIRM_LIKE and learns from NLD_CONFIRM_NEXT which are near
 * (nld_confirm_learn), so a sweep must visit every row above the lower of the two. */
#define RD_CONFIRM_READS (NLD_CONFIRM_NEXT < NLD_CONFIRM_LIKE ? NLD_CONFIRM_NEXT : NLD_CONFIRM_LIKE)

/* The engine's episode of one slot (nld_keyed.c, episode_step) with episode.min=1 at
 * threshold t under rule ep, advanced one row at a time by ep_row. */
typedef struct ep_run {
    rd_ep_t ep;
    double t, st; /* the threshold and its surprise */
    int active, holding;
    int64_t h0, fat_t;
    double fat, peak;
    nld_confirm_t cf;
    uint64_t run;  /* flags in the current run (the engine's runs: NLD_RUN_GAP ends one) */
    uint32_t gap;  /* unflagged rows since its last flag */
    int run_beat;  /* ... which came on the beat of the earlier runs (nld_beat.h) */
    nld_beat_t beat;
    size_t learnt; /* rows confirm= has learnt from (nld_confirm_learn) */
} ep_run_t;

static void ep_run_init(ep_run_t *e, double t, rd_ep_t ep)
{
    memset(e, 0, sizeof *e);
    e->ep = ep;
    e->t = t;
    e->st = nld_surprise_of(t);
}

/* Row i's time as the hold-off counts it: its event time, or its index (holdoff=N). */
static inline int64_t ep_now(const ep_run_t *e, const int64_t *ts, size_t i)
{
    return e->ep.hold < 0 ? (int64_t)i : ts[i];
}

/* A row that is not flagged: only the hold-off moves (it ends an episode that has been
 * quiet long enough). The ending is monotone in now, so calling it for the first and the
 * last row of a run of such rows, times rising, does what calling it for each would. */
static inline void ep_quiet(ep_run_t *e, int64_t now)
{
    if (!e->active) return;
    if (!e->holding) {
        e->holding = 1;
        e->h0 = now;
    }
    if (e->ep.hold < 0 ? now - e->h0 + 1 >= -e->ep.hold : now - e->h0 >= e->ep.hold)
        e->active = 0;
}

/* `rows` unflagged rows in a row: the engine's run of flags ends after NLD_RUN_GAP. */
static inline void ep_gap(ep_run_t *e, size_t rows)
{
    if (e->run && (e->gap += (uint32_t)(rows < NLD_RUN_GAP ? rows : NLD_RUN_GAP)) >= NLD_RUN_GAP)
        e->run = 0;
}

/* The stream's spacing at row i, as confirm.wait= and the beat ask it: the engine's is
 * the geometric mean of its gaps; the mean gap so far is the same on the regular series
 * the benches read. */
static inline double ep_spacing(const int64_t *ts, size_t i)
{
    return i ? (double)(ts[i] - ts[0]) / 1e6 / (double)i : 0;
}

/* Row i of score `score`, surprise sv, at event time ts and hold-off time now, the stream's
 * spacing sp (ep_spacing); 1 when a report would open an episode there. */
static inline int ep_row(ep_run_t *e, size_t row, double score, double sv, int fam, int64_t ts,
                         int64_t now, double sp)
{
    int flag = score >= e->t;
    int64_t t0 = ts; /* the run's start, if this flag begins one */
    double st = e->st;
    if (e->ep.confirm > 0 && st > 0) { /* the engine's confirm_step */
        nld_confirm_learn(&e->cf, sv, st, row + 1 - e->learnt);
        e->learnt = row + 1;
        unsigned cf = nld_confirm_step(&e->cf, ts, 0, sv, st, flag, e->active, e->run != 0,
                                       e->ep.confirm, sp, e->ep.confirm_wait_s, fam);
        if (cf & NLD_CF_WAIT) return 0;
        if (cf & NLD_CF_CONFIRMED) {
            flag = 1;
            t0 = e->cf.pend_t;
            if (e->cf.pend_s > sv) sv = e->cf.pend_s;
        }
    }
    if (!flag) {
        ep_gap(e, 1);
        ep_quiet(e, now);
        return 0;
    }
    double bar = 0, recent = 0;
    int start = 0;
    if (e->ep.fatigue_s > 0 && e->fat > 0) {
        double age = ts > e->fat_t ? (double)(ts - e->fat_t) / 1e6 : 0;
        recent = e->fat * exp2(-age / e->ep.fatigue_s);
    }
    if (e->ep.fatigue_s > 0) bar = st + log10(1 + recent);
    if (!e->active && sv < bar) return 0;
    if (!e->run && e->ep.beat) { /* a new run (which counts at once: one flag a run) */
        e->run_beat = nld_beat_on(&e->beat, t0, sp, e->ep.beat);
        nld_beat_add(&e->beat, t0);
    }
    e->run++;
    e->gap = 0;
    if (e->active && !e->run_beat && e->ep.escalate > 0 && sv >= e->peak + e->ep.escalate &&
        sv >= bar)
        e->active = 0;
    if (!e->active) {
        e->peak = sv;
        if (!e->run_beat) { /* one on a beat is held: no page, no fatigue */
            start = 1;
            e->fat = recent + 1;
            e->fat_t = ts;
        }
    }
    if (sv > e->peak) e->peak = sv;
    e->active = 1;
    e->holding = 0;
    return start;
}

void rd_starts_at(const double *score, const unsigned char *fam, const int64_t *ts, size_t n,
                  double t, rd_ep_t ep, double *out)
{
    ep_run_t e;
    ep_run_init(&e, t, ep);
    for (size_t i = 0; i < n; i++)
        out[i] = ep_row(&e, i, score[i], nld_surprise_of(score[i]), fam && fam[i], ts[i],
                        ep_now(&e, ts, i), ep_spacing(ts, i));
}

double rd_starts_score(const nab_corpus_t *c, const rd_series_t *s, int nser, double *const *score,
                       unsigned char *const *fam, const unsigned char *only, double t, rd_ep_t ep,
                       const nab_profile_t *prof, double **tmp, nab_result_t *res)
{
    for (int k = 0; k < nser; k++)
        if (!only || only[k])
            rd_starts_at(score[k], fam ? fam[k] : NULL, s[k].ts, s[k].n, t, ep, tmp[k]);
    nab_score_at(c, tmp, only, prof, 0.5, res);
    return res->score;
}

double rd_best_start_threshold(const nab_corpus_t *c, const rd_series_t *s, int nser,
                               double *const *score, unsigned char *const *fam,
                               const unsigned char *only, rd_ep_t ep, const nab_profile_t *prof,
                               double *best)
{
    rd_sweep_t w;
    double bt = INFINITY;
    *best = -INFINITY;
    if (rd_sweep_init(&w, c, s, nser, score, fam, only)) return bt;
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

/* Series k's index: the rows that matter at some candidate, i.e. flagged at the lowest or
 * with a surprise confirm= would read there (the rows between only move the hold-off).
 * A series whose times go back is not indexed (NULL: every row is read). */
static int sweep_index(rd_sweep_t *w, int k)
{
    const rd_series_t *s = &w->s[k];
    const double *score = w->score[k], *sv = w->sv[k];
    size_t m = 0;
    for (size_t i = 1; i < s->n; i++)
        if (s->ts[i] < s->ts[i - 1]) return 0;
    for (int pass = 0; pass < 2; pass++) {
        m = 0;
        for (size_t i = 0; i < s->n; i++)
            if (score[i] >= w->cand[0] || sv[i] >= w->floor0) {
                if (pass) w->idx[k][m] = i;
                m++;
            }
        if (!pass && (!(w->idx[k] = malloc((m ? m : 1) * sizeof *w->idx[k])) ||
                      !(w->work[k] = malloc((m ? m : 1) * sizeof *w->work[k]))))
            return -1;
    }
    w->nidx[k] = m;
    return 0;
}

int rd_sweep_init(rd_sweep_t *w, const nab_corpus_t *c, const rd_series_t *s, int nser,
                  double *const *score, unsigned char *const *fam, const unsigned char *only)
{
    *w = (rd_sweep_t){.c = c, .s = s, .nser = nser, .score = score, .fam = fam, .only = only};
    size_t ns = nser > 0 ? (size_t)nser : 1;
    w->sv = calloc(ns, sizeof *w->sv);
    w->rows = calloc(ns, sizeof *w->rows);
    w->nrows = calloc(ns, sizeof *w->nrows);
    w->idx = calloc(ns, sizeof *w->idx);
    w->nidx = calloc(ns, sizeof *w->nidx);
    w->work = calloc(ns, sizeof *w->work);
    w->nwork = calloc(ns, sizeof *w->nwork);
    if (!w->sv || !w->rows || !w->nrows || !w->idx || !w->nidx || !w->work || !w->nwork) {
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
    if (!w->ncand) return 0;
    w->floor0 = RD_CONFIRM_READS * nld_surprise_of(w->cand[0]);
    for (int k = 0; k < nser; k++)
        if ((!only || only[k]) && sweep_index(w, k)) {
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
        if (w->idx) free(w->idx[k]);
        if (w->work) free(w->work[k]);
    }
    free(w->work);
    free(w->nwork);
    free(w->sv);
    free(w->rows);
    free(w->nrows);
    free(w->idx);
    free(w->nidx);
    *w = (rd_sweep_t){0}; /* freed again, or made again, it is empty */
}

/* Candidate t's starts on series k, into w->rows[k]: ep_row on the rows idx (nidx of
 * them, rising) and on the row after a lone flag that waits for it, the runs of rows
 * between passed over with ep_quiet at their first and last row. rd_starts_at's rows
 * exactly when no row left out of idx is flagged at t or remembered by confirm= at t
 * (sweep_narrow); idx NULL reads every row. */
static size_t sweep_starts(const rd_sweep_t *w, int k, double t, rd_ep_t ep,
                           const size_t *idx, size_t nidx)
{
    const double *score = w->score[k], *sv = w->sv[k];
    const unsigned char *fam = w->fam ? w->fam[k] : NULL;
    const int64_t *ts = w->s[k].ts;
    size_t n = w->s[k].n, *rows = w->rows[k], nr = 0, next = 0, j = 0;
    ep_run_t e;
    ep_run_init(&e, t, ep);
    if (!idx) {
        for (size_t i = 0; i < n; i++)
            if (ep_row(&e, i, score[i], sv[i], fam && fam[i], ts[i], ep_now(&e, ts, i),
                       ep_spacing(ts, i)))
                rows[nr++] = i;
        return nr;
    }
    for (;;) {
        size_t i;
        if (e.cf.pending && next < n)
            i = next;
        else if (j < nidx)
            i = idx[j];
        else
            break;
        if (i > next) {
            ep_gap(&e, i - next);
            ep_quiet(&e, ep_now(&e, ts, next));
            ep_quiet(&e, ep_now(&e, ts, i - 1));
        }
        if (ep_row(&e, i, score[i], sv[i], fam && fam[i], ts[i], ep_now(&e, ts, i),
                   ep_spacing(ts, i)))
            rows[nr++] = i;
        if (j < nidx && idx[j] == i) j++;
        next = i + 1;
    }
    return nr;
}

/* The rows of from (nfrom, rising) that threshold t reads under a rule with confirm= on
 * or off: flagged (score >= t) or, with confirm=, remembered (surprise >= floor, t's).
 * Into w->work[k] (from may be it); returns how many. A higher threshold's rows are among
 * a lower one's, so a sweep narrows one index as it climbs. */
static size_t sweep_narrow(const rd_sweep_t *w, int k, const size_t *from, size_t nfrom,
                           double t, int confirm, double floor)
{
    const double *score = w->score[k], *sv = w->sv[k];
    size_t m = 0, *to = w->work[k];
    for (size_t j = 0; j < nfrom; j++) {
        size_t i = from[j];
        if (score[i] >= t || (confirm && sv[i] >= floor)) to[m++] = i;
    }
    return m;
}

/* Where a sweep's climb stands: the last candidate whose index was narrowed, if any. */
typedef struct sweep_pos {
    int narrowed;
    double t, floor;
} sweep_pos_t;

/* Threshold t's starts under rule ep on every swept series, into w->rows: from the index
 * narrowed for the threshold before (pos, when t and its floor are not below its), else
 * from the one made for the lowest candidate, else reading every row. */
static void sweep_rows(const rd_sweep_t *w, double t, rd_ep_t ep, sweep_pos_t *pos)
{
    int confirm = ep.confirm > 0;
    double floor = RD_CONFIRM_READS * nld_surprise_of(t);
    int from_work = pos->narrowed && t >= pos->t && floor >= pos->floor;
    int from_base = w->ncand > 0 && t >= w->cand[0] && floor >= w->floor0;
    for (int k = 0; k < w->nser; k++) {
        if (w->only && !w->only[k]) continue;
        const size_t *idx = NULL;
        size_t nidx = 0;
        if (w->idx[k] && (from_work || from_base)) {
            if (from_work)
                w->nwork[k] = sweep_narrow(w, k, w->work[k], w->nwork[k], t, confirm, floor);
            else
                w->nwork[k] = sweep_narrow(w, k, w->idx[k], w->nidx[k], t, confirm, floor);
            idx = w->work[k];
            nidx = w->nwork[k];
        }
        w->nrows[k] = sweep_starts(w, k, t, ep, idx, nidx);
    }
    *pos = (sweep_pos_t){from_work || from_base, t, floor};
}

void rd_sweep_best(const rd_sweep_t *w, rd_ep_t ep, const nab_profile_t *const *prof,
                   int nprof, double *bt, double *best)
{
    for (int p = 0; p < nprof; p++) {
        bt[p] = INFINITY;
        best[p] = -INFINITY;
    }
    sweep_pos_t pos = {0, 0, 0};
    for (int j = 0; j < w->ncand; j++) {
        double t = w->cand[j];
        sweep_rows(w, t, ep, &pos);
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

double rd_sweep_score(const rd_sweep_t *w, double t, rd_ep_t ep, const nab_profile_t *prof,
                      nab_result_t *res)
{
    sweep_pos_t pos = {0, 0, 0};
    sweep_rows(w, t, ep, &pos);
    nab_score_rows(w->c, w->rows, w->nrows, w->only, prof, res);
    return res->score;
}

void rd_sweep_at(const rd_sweep_t *w, double t, rd_ep_t ep, const nab_profile_t *const *prof,
                 int nprof, nab_result_t *res, size_t *quiet)
{
    sweep_pos_t pos = {0, 0, 0};
    sweep_rows(w, t, ep, &pos);
    for (int p = 0; p < nprof; p++)
        nab_score_rows(w->c, w->rows, w->nrows, w->only, prof[p], &res[p]);
    *quiet = 0;
    for (int k = 0; k < w->nser; k++) {
        const nab_series_t *ns = &w->c->s[k];
        if ((w->only && !w->only[k]) || ns->nw) continue;
        for (size_t j = 0; j < w->nrows[k]; j++) *quiet += w->rows[k][j] >= ns->probation;
    }
}
