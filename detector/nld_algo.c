/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_algo.c — MSD and CDF tests over static and heuristic histories (see nld_algo.h). */
#include "nld_algo.h"

#include <math.h>
#include <string.h>

#include "nld_confirm.h"
#include "nld_tail.h"
#include "nlkit/nl_bp.h"

static const char *const algo_names[NLD_ALGOS] = {"msd-ss", "msd-su", "msd-hs", "msd-hu", "cdf-ss",
                                                  "cdf-su", "cdf-hs", "cdf-hu", "cusum",  "relent"};

/* The paper's eight are named by their bits; cusum and relent use raw values against a
 * heuristic history with order statistics, as cdf-hu does. */
#define IS_NEW(i) ((i) >= NLD_CUSUM)
#define IS_CDF(i) (IS_NEW(i) || (((i) >> 2) & 1))
#define IS_HEUR(i) (IS_NEW(i) || (((i) >> 1) & 1))
#define IS_RAW(i) (IS_NEW(i) || ((i)&1))

void nld_params_default(nld_params_t *p)
{
    /* chosen from bench-eval's runs (bench/README.md, "bench-eval") */
    *p = (nld_params_t){.algos = 0,
                        .k = 2.0,
                        .p = 0.05,
                        .alpha = 0.5,
                        .n = 300,
                        .min = 30,
                        .admit = 0,
                        .cusum_k = 0.5,
                        .cusum_h = 5,
                        .relent_w = 24,
                        .relent_bins = 6,
                        .relent_p = 0.001,
                        .season_slots = 24,
                        .season_alpha = 0.25,
                        .jump_halflife_s = 7 * 86400.0,
                        .recur_within_s = 3600,
                        .shape_len = NLD_SHAPE_LEN};
}

int nld_params_check(const nld_params_t *p, const char **why)
{
    const char *w = NULL;
    if (!(p->k > 0 && isfinite(p->k)))
        w = "k must be a positive number";
    else if (!(p->p > 0 && p->p < 1))
        w = "p must lie strictly between 0 and 1";
    else if (!(p->alpha > 0 && p->alpha <= 1))
        w = "alpha must lie in (0, 1]";
    else if (p->n < 2 || p->n > NLD_HIST_MAX)
        w = "history size must be between 2 and 1000000";
    else if (p->min < 2 || p->min > p->n)
        w = "min must be between 2 and the history size";
    else if (p->admit > NLD_ADMIT_MAX)
        w = "admit must be between 0 and 16";
    else if (p->side < NLD_BOTH || p->side > NLD_ABOVE)
        w = "side must be both, below or above";
    else if (p->algos & ~NLD_EVERY_ALGO)
        w = "unknown algorithm";
    else if (!(p->threshold >= 0 && p->threshold < 1))
        w = "threshold must lie in [0, 1)";
    else if (!(p->rate >= 0 && p->rate <= 0.5) || !(p->alarms_per_s >= 0 && p->alarms_per_s < 1e6))
        w = "rate must lie in (0, 0.5] and alarms= be a positive count per period";
    else if (!(p->cusum_k >= 0 && p->cusum_k < 4) || !(p->cusum_h > 0 && p->cusum_h < 1e6))
        w = "cusum.k must lie in [0, 4) and cusum.h in (0, 1e6)";
    else if (p->relent_w < 4 || p->relent_w > NLD_RELENT_W_MAX || p->relent_bins < 2 ||
             p->relent_bins > NLD_RELENT_B_MAX || !(p->relent_p > 0 && p->relent_p < 1))
        w = "relent.w must be 4..256, relent.bins 2..32, relent.p in (0, 1)";
    else if ((p->calib && p->calib < NLD_CALIB_MIN) || p->calib > NLD_CALIB_MAX)
        w = "calib must be off or a window of 20 to 1000000 values";
    else if (!(p->calib_shrink == 0 || (p->calib_shrink >= 1 && p->calib_shrink <= 1e6)))
        w = "calib.shrink must be off or a factor of 1 to 1000000";
    else if (!(p->calib_record == 0 ||
               (p->calib_record >= NLD_CALIB_CENSOR && p->calib_record <= 300)))
        w = "calib.record must be off or a surprise of 2 to 300";
    else if (!(p->season_s >= 0 && p->season_s <= 1e8) || p->season_slots < 2 ||
             p->season_slots > NLD_SEASON_SLOTS_MAX ||
             !(p->season_alpha > 0 && p->season_alpha <= 1))
        w = "season must be a period up to 1e8 s, season.slots 2..1440, season.alpha in (0, 1]";
    else if (!(p->jump >= 0 && p->jump <= 1) ||
             !(p->jump_halflife_s > 0 && p->jump_halflife_s <= 1e9))
        w = "jump must lie in [0, 1] and jump.halflife be a positive time up to 1e9 s";
    else if (p->recur_days > NLD_RECUR_DAYS_MAX ||
             !(p->recur_within_s >= NLD_RECUR_SLOT_S && p->recur_within_s <= NLD_RECUR_WITHIN_MAX))
        w = "recur must be off or 1 to 14 days, and recur.within 10 min to 12 h";
    else if ((p->shape_w && (p->shape_w < 2 || p->shape_w > NLD_SHAPE_W_MAX)) ||
             p->shape_len < NLD_SHAPE_LEN_MIN || p->shape_len > NLD_SHAPE_LEN_MAX ||
             (p->shape_w && p->shape_len < 4 * p->shape_w))
        w = "shape must be off or a window of 2 to 64 values, and shape.len 64 to 65536 values "
            "and at least 4 windows";
    else if (p->young > NLD_YOUNG_MAX)
        w = "young must be off or a count of values up to 1000000";
    else if (p->wander == 1 || p->wander > NLD_WANDER_MAX)
        w = "wander must be off or a count of values from 2 to 1000000";
    if (why) *why = w;
    return w ? NL_EINVAL : 0;
}

const char *nld_algo_name(int i) { return i >= 0 && i < NLD_ALGOS ? algo_names[i] : NULL; }

int nld_algo_parse(const char *list, unsigned *mask, const char **bad)
{
    unsigned m = 0;
    const char *s = list;
    while (*s) {
        size_t n = strcspn(s, ",");
        int found = -1;
        if (n == 3 && !strncmp(s, "all", 3)) {
            m = NLD_ALL_ALGOS;
            found = 0;
        }
        for (int i = 0; i < NLD_ALGOS && found < 0; i++)
            if (n == strlen(algo_names[i]) && !strncmp(s, algo_names[i], n)) {
                m |= 1u << i;
                found = i;
            }
        if (found < 0) {
            if (bad) *bad = s;
            return NL_EINVAL;
        }
        s += n;
        if (*s == ',') s++;
    }
    if (!m) {
        if (bad) *bad = list;
        return NL_EINVAL;
    }
    *mask = m;
    return 0;
}

int nld_bank_init(nld_bank_t *b, const nld_params_t *p)
{
    memset(b, 0, sizeof *b);
    b->p = *p;
    b->res = INFINITY;
    b->t_prev = INT64_MIN;
    b->thr = p->threshold;
    nld_jump_init(&b->jump);
    nld_wander_init(&b->wander);
    if (p->rate > 0) { /* rate= alone needs no per-value work (budget_threshold) */
        double t = nld_rate_threshold(p->rate);
        if (t > b->thr) b->thr = t;
    }
    nl_ewma_init(&b->ew, p->alpha);
    for (int raw = 0; raw < 2; raw++) {
        unsigned msd = 1u << (0 + raw), cdf = 1u << (4 + raw); /* msd-s?, cdf-s? */
        if ((p->algos & (msd | cdf)) &&
            nld_hist_init(&b->stat[raw], p->n, 0, (p->algos & cdf) != 0))
            goto oom;
    }
    for (int i = 0; i < NLD_ALGOS; i++)
        if ((p->algos >> i & 1) && IS_HEUR(i) && nld_hist_init(&b->heur[i], p->n, 1, IS_CDF(i)))
            goto oom;
    for (int i = NLD_CUSUM; i < NLD_ALGOS; i++)
        if ((p->algos >> i & 1) && nld_hist_init(&b->cal[i - NLD_CUSUM], p->n, 1, 1)) goto oom;
    if (nld_season_init(&b->season, p->season_s, p->season_slots, p->season_alpha)) goto oom;
    if (nld_recur_init(&b->recur, p->recur_days, p->recur_within_s)) goto oom;
    if (nld_shape_init(&b->shape, p->shape_w, p->shape_len)) goto oom;
    for (int i = 0; i < NLD_ALGOS; i++)
        if ((p->algos >> i & 1) && p->calib &&
            nld_calib_init(&b->calib[i], p->calib, p->calib_record))
            goto oom;
    return 0;
oom:
    nld_bank_free(b);
    return NL_ENOMEM;
}

void nld_bank_free(nld_bank_t *b)
{
    for (int i = 0; i < 2; i++) nld_hist_free(&b->stat[i]);
    for (int i = 0; i < NLD_ALGOS; i++) nld_hist_free(&b->heur[i]);
    for (int i = 0; i < 2; i++) nld_hist_free(&b->cal[i]);
    for (int i = 0; i < NLD_ALGOS; i++) nld_calib_free(&b->calib[i]);
    nld_relent_free(&b->relent);
    nld_season_free(&b->season);
    nld_recur_free(&b->recur);
    nld_shape_free(&b->shape);
}

/* A history of one repeated value has no spread, and every other value would be infinitely
 * surprising, all alike. A millionth of the largest magnitude the stream has shown keeps
 * them ranked by how far they are. */
static double floor_spread(const nld_bank_t *b, double sd)
{
    double f = 1e-6 * b->absmax;
    /* a quantised series (counts, values rounded to 0.01) that sits still for a while has
     * no spread at all, yet moves by its resolution as a matter of course */
    if (b->p.res_floor > 0 && isfinite(b->res) && b->res * b->p.res_floor > f)
        f = b->res * b->p.res_floor;
    return sd > f ? sd : f > 0 ? f : 1e-300;
}

/* The side a value lies on, as a state. */
static int side_state(const nld_params_t *p, double dev)
{
    if (dev < 0 && p->side != NLD_ABOVE) return NLD_LOW;
    if (dev > 0 && p->side != NLD_BELOW) return NLD_HIGH;
    return NLD_NORMAL;
}

/* The surprise of v against H for a paper algorithm: MSD standardises by mean and sd, CDF
 * by median and robust spread (see nld_algo.h). */
static double surprise_of(const nld_bank_t *b, int i, const nld_hist_t *h, double v, double *dev)
{
    double m, sd;
    if (!IS_CDF(i)) {
        m = nld_hist_mean(h);
        sd = nld_hist_sd(h);
    } else if (nld_robust_ref(h, &m, &sd)) {
        return 0;
    }
    sd = floor_spread(b, sd);
    *dev = v - m;
    return nld_surprise_normal((v - m) / sd, b->p.side);
}

/* cusum and relent: their statistic, surprise, bounds and verdict. */
static void judge_new(nld_bank_t *b, int i, const nld_hist_t *h, double v, nld_verdict_t *out)
{
    const nld_params_t *p = &b->p;
    double m, sd, s;
    int dir;
    out->own = out->state = NLD_NORMAL;
    if (nld_robust_ref(h, &m, &sd)) return;
    sd = floor_spread(b, sd);
    double z = (v - m) / sd; /* the value, standardised against the history */
    out->centre = m;
    nld_hist_t *cal = &b->cal[i - NLD_CUSUM];
    int flag;
    if (i == NLD_CUSUM) {
        double g = nld_cusum_step(&b->cusum, z, p->cusum_k, &dir);
        s = 2 * p->cusum_k * g / M_LN10; /* the log10 likelihood ratio of a 2k-sd shift */
        out->lo = m - p->cusum_h * sd;   /* what the statistic is held to, in value units */
        out->hi = m + p->cusum_h * sd;
        if (g > p->cusum_h) { /* an alarm: Page's restart, and the alarm holds ... */
            flag = 1;
            b->cusum = (nld_cusum_t){.alarm = dir};
        } else if (b->cusum.alarm && z * b->cusum.alarm > p->cusum_k) {
            flag = 1; /* ... while values stay beyond the allowance on its side */
            dir = b->cusum.alarm;
        } else {
            flag = 0;
            b->cusum.alarm = 0;
        }
    } else {
        double g = nld_relent_g(&b->relent, h, p->relent_bins, m, &dir);
        if (isnan(g)) {
            out->own = out->state = NLD_WARMUP;
            return;
        }
        s = nld_surprise_chi2(g, (int)p->relent_bins - 1);
        out->lo = out->hi = NAN;
        flag = -1; /* decided on the calibrated surprise below */
    }
    /* Neither statistic is calibrated on real metrics (autocorrelated windows make the
     * chi-square tail tiny most of the time), and a window or sum is slow to show a single
     * wild value: the score is the larger of the value's own surprise (a Shewhart test, as
     * in Lucas' combined Shewhart-CUSUM scheme) and the statistic's surprise against its own
     * recent values. */
    double cs = 0, cm, csd;
    if (cal->n >= p->min && !nld_robust_ref(cal, &cm, &csd))
        cs = nld_surprise_normal((s - cm) / fmax(csd, 1e-3), NLD_ABOVE);
    if (nld_hist_add(cal, s)) b->cal_err = 1;
    if (flag < 0) flag = cs > -log10(p->relent_p);
    double vs = nld_surprise_normal(z, p->side);
    if (vs > cs) cs = vs;
    out->side = side_state(p, dir);
    out->own = out->state = flag ? out->side : NLD_NORMAL;
    out->score = nld_score_of(cs);
}

/* Stage 1 (NLD_STAGE_RAW): test v against H for algorithm i by its own rule, and score it
 * (the CDF centre waits for the verdict: judge_stages). */
static void stage_raw(nld_bank_t *b, int i, const nld_hist_t *h, double v, nld_verdict_t *out)
{
    const nld_params_t *p = &b->p;
    out->v = v;
    out->hist_n = h->n;
    out->centre = out->lo = out->hi = NAN;
    out->score = 0;
    out->side = NLD_NORMAL;
    if (h->n < p->min) {
        out->own = out->state = NLD_WARMUP;
        return;
    }
    if (IS_NEW(i)) {
        judge_new(b, i, h, v, out);
        return;
    }
    if (!IS_CDF(i)) {
        double m = nld_hist_mean(h), w = p->k * nld_hist_sd(h);
        out->lo = m - w;
        out->hi = m + w;
        out->centre = m;
    } else {
        double tail = p->side == NLD_BOTH ? p->p / 2 : p->p;
        out->lo = nld_hist_quantile(h, tail);
        out->hi = nld_hist_quantile(h, 1.0 - tail);
    }
    int low = v < out->lo && p->side != NLD_ABOVE;
    int high = v > out->hi && p->side != NLD_BELOW;
    out->own = out->state = low ? NLD_LOW : high ? NLD_HIGH : NLD_NORMAL;
    /* the score costs a tail and, for CDF, three more tree descents: only when it is used
     * (threshold=, scores wanted, or a flag to report) */
    if (b->thr > 0 || p->want_scores || p->calib || out->own != NLD_NORMAL) {
        double dev = 0;
        double sv = surprise_of(b, i, h, v, &dev);
        out->side = side_state(p, dev);
        out->score = nld_score_of(sv);
    }
}

/* Whether calib.shrink= bounds the calibration of this stream now. It keeps a value absurd
 * under the model an alarm where the calibration cannot be left to judge alone: where a
 * lone value must page by itself (values further apart than shrink_wait_s: hourly crash
 * counts whose lone spikes people label), or where its window spans less than
 * NLD_CALIB_SPAN_S of event time (1-second summaries: 1000 values are 17 minutes, and a
 * fault's first minutes would explain themselves away). Between (a value a minute to one
 * every confirm.wait=) the window has seen the stream's day and a lone flag waits for the
 * next value: there the bound only made heavy-tailed healthy series page (bench-quiet, Student
 * t at 1 and 5 minutes: 1.84 and 0.80 reports a day with it). */
static int shrink_bounds(const nld_bank_t *b)
{
    double sp = nld_bank_spacing(b);
    return !(nld_confirm_every(sp, b->p.shrink_wait_s) &&
             (double)b->p.calib * sp >= NLD_CALIB_SPAN_S);
}

/* Stage 2 (NLD_STAGE_CALIB): the score judged against the stream's own recent surprises
 * (calib=), lowered at most calib.shrink times (shrink_bounds); without calib= it stays the
 * raw one. Where calib.shrink does not bound it, the record of the far tail (calib.record=)
 * corrects claims from 1 in 10^NLD_CALIB_RECORD_TRUSTED on, not only beyond its floor: a
 * Student t outlier beyond the window's top, which the fit called 1 in a million and the
 * record's rank 1 in a few thousand values, no longer paged at once (bench-quiet at a value
 * a minute, 0.40 -> 0.18 a day). Of the floors 2 to 6 tried there, 4 is the one chosen on
 * either labelled set that holds on the other (server set: 60.7, 59.7, 59.5 and 58.4 at
 * 4, 3.5, 3 and 2; cloud: 61.5, 61.5, 61.5 and 61.2). There too a value the record holds
 * one as large as within NLD_CONFIRM_WITHIN_S of event time is familiar, and confirm= does
 * not let it page alone (nld_confirm_wait): the floor of 4 is over a 5-minute stream's
 * bar for that (3.6), and a Student t outlier paged at once 0.37 times a day. */
static void stage_calib(nld_bank_t *b, int i, nld_verdict_t *out, int *err)
{
    if (b->p.calib) {
        int bounded = shrink_bounds(b);
        double sp = nld_bank_spacing(b);
        if (b->p.calib_record > 0) {
            b->calib[i].record = bounded ? b->p.calib_record
                                         : fmin(b->p.calib_record, NLD_CALIB_RECORD_TRUSTED);
            b->calib[i].within = bounded || !(sp > 0) ? 0 : (uint64_t)(NLD_CONFIRM_WITHIN_S / sp);
        }
        double raw = nld_surprise_of(out->score), s = nld_calib_step(&b->calib[i], raw);
        out->familiar = b->calib[i].familiar;
        if (isnan(s)) {
            *err = NL_ENOMEM; /* the raw score goes on */
        } else {
            /* a value absurd under the model stays an alarm on a stream used to outliers */
            if (b->p.calib_shrink > 0 && s < raw / b->p.calib_shrink && bounded)
                s = raw / b->p.calib_shrink;
            out->score = nld_score_of(s);
        }
    }
    out->calibrated = out->score;
}

/* Stage 3 (NLD_STAGE_DISCOUNT): jump=, recur=, shape=, young= and wander= leave the calibrated
 * surprise the share jw of itself (discount_share); the own rule stays. */
static void stage_discount(nld_verdict_t *out, double jw)
{
    if (jw < 1) out->score = jw > 0 ? nld_score_of(nld_surprise_of(out->score) * jw) : 0;
}

/* Stage 4 (NLD_STAGE_THRESHOLD): with a threshold in force (threshold=, rate=, alarms=:
 * budget_threshold) the discounted score decides what is reported; without one, the own
 * rule. The histories learn by the own rule either way. */
static void stage_threshold(const nld_bank_t *b, nld_verdict_t *out)
{
    out->thr = b->thr;
    if (b->thr > 0) out->state = out->score >= b->thr ? out->side : NLD_NORMAL;
}

/* Algorithm i's judgement of v: stages 1 to 4 of nld_stage, in that order and only here,
 * each recording its output in *out (raw, calibrated, score, thr and state). A CDF's centre
 * is computed only for a reported value, as only reports need it (a median costs two more
 * tree descents). */
static void judge_stages(nld_bank_t *b, int i, const nld_hist_t *h, double v, double jw,
                         nld_verdict_t *out, int *err)
{
    out->raw = out->calibrated = 0;
    out->familiar = 0;
    out->thr = b->thr;
    stage_raw(b, i, h, v, out);
    out->raw = out->score;
    if (out->state == NLD_WARMUP) return; /* too little history: no judgement yet */
    stage_calib(b, i, out, err);
    stage_discount(out, jw);
    stage_threshold(b, out);
    if (!IS_NEW(i) && IS_CDF(i) && out->state != NLD_NORMAL)
        out->centre = nld_hist_quantile(h, 0.5);
}

/* Count a value into a run of flags (or end it); whether the run has outlasted relearn
 * (values, or event time since its first flag). */
static int run_outlasts(const nld_bank_t *b, uint32_t *run, int64_t *t0, int state)
{
    if (state != NLD_LOW && state != NLD_HIGH) {
        *run = 0;
        return 0;
    }
    if ((*run)++ == 0) *t0 = b->now;
    if (b->p.relearn && *run > b->p.relearn) return 1;
    return b->p.relearn_s > 0 && b->now != INT64_MIN &&
           (double)(b->now - *t0) > b->p.relearn_s * 1e6;
}

/* v joins the run of flags held back from algorithm i's history (a flag, or on a fast
 * stream the one unflagged value a run survives); once the run outgrows admit it can never
 * be learnt, so its values are no longer kept, only that it outgrew. */
static void hold_flag(nld_bank_t *b, int i, double v)
{
    if (b->held[i].n < b->admit)
        b->held[i].v[b->held[i].n++] = v;
    else
        b->held[i].long_run = 1;
}

/* A heuristic history takes v if it was not flagged; a flagged v is held back until its
 * run of flags ends, and goes in then if the run was no longer than admit. With relearn =
 * R > 0, a run that outlasts R values is a new normal rather than an anomaly: from then on
 * its values enter the history, which otherwise would keep judging a changed level
 * against the old one for ever. */
static int heur_update(nld_bank_t *b, int i, double v, int state)
{
    int rc = 0;
    if (run_outlasts(b, &b->held[i].run, &b->held[i].run_t0, state))
        return nld_hist_add(&b->heur[i], v);
    if (state == NLD_WARMUP || state == NLD_NORMAL) {
        /* on a fast stream a run survives one unflagged value, as the engine's runs do: a
         * fault's values do not all cross the bound, and must not be learnt piecemeal */
        if (b->admit > b->p.admit && b->held[i].n && !b->held[i].gap) {
            b->held[i].gap = 1;
            hold_flag(b, i, v);
            return 0;
        }
        b->held[i].gap = 0;
        if (!b->held[i].long_run)
            for (uint32_t j = 0; j < b->held[i].n && !rc; j++)
                rc = nld_hist_add(&b->heur[i], b->held[i].v[j]);
        b->held[i].n = 0;
        b->held[i].long_run = 0;
        return rc ? rc : nld_hist_add(&b->heur[i], v);
    }
    b->held[i].gap = 0;
    hold_flag(b, i, v);
    return 0;
}

/* The seasonal levels learn from values no algorithm flagged by its own rule, and from a
 * flagged run once it outlasts relearn (a new normal, as for the histories); reports show
 * values and bounds as observed, so the offset goes back on. */
static void season_step(nld_bank_t *b, double x_obs, double off, nld_verdict_t out[NLD_ALGOS])
{
    int flagged = NLD_NORMAL;
    for (int i = 0; i < NLD_ALGOS; i++)
        if ((b->p.algos >> i & 1) && (out[i].own == NLD_LOW || out[i].own == NLD_HIGH))
            flagged = out[i].own;
    if (run_outlasts(b, &b->season.run, &b->season.run_t0, flagged) || flagged == NLD_NORMAL)
        nld_season_learn(&b->season, x_obs);
    if (off == 0) return;
    for (int i = 0; i < NLD_ALGOS; i++) {
        if (!(b->p.algos >> i & 1)) continue;
        out[i].v = IS_RAW(i) ? x_obs : out[i].v + off;
        out[i].centre += off;
        out[i].lo += off;
        out[i].hi += off;
    }
}

double nld_rate_threshold(double rate)
{
    double s = -log10(rate);
    return s / (s + 1);
}

double nld_budget_threshold(const nld_params_t *p, double spacing_s)
{
    double r = p->rate > 0 ? p->rate : 1;
    int budget = p->rate > 0;
    if (p->alarms_per_s > 0 && spacing_s > 0) {
        double a = p->alarms_per_s * spacing_s;
        if (a < r) r = a;
        budget = 1;
    }
    /* alarms= alone before the stream's spacing is known: nothing but an infinite surprise
     * reaches it (never the algorithms' own rules, which flag far more) */
    if (!budget) return p->alarms_per_s > 0 && !(p->threshold > 0) ? 1 : p->threshold;
    double t = nld_rate_threshold(r < 0.5 ? r : 0.5);
    return t > p->threshold ? t : p->threshold;
}

/* The threshold an alarm budget means for this value: alarms= in event time as a share of
 * values that depends on how often the stream has them: its typical spacing, the geometric
 * mean of the gaps between its values (each held to 1 us .. 30 days, a gap backwards left
 * out), so that one wrong timestamp or one long silence moves it little. Until a stream
 * has had one gap, and for a value without event time, rate= or threshold= alone. */
static void budget_threshold(nld_bank_t *b)
{
    /* the spacing is kept on every stream: episodes read it too (nld_bank_spacing) */
    if (b->now != INT64_MIN) {
        if (b->t_prev != INT64_MIN && b->now > b->t_prev) {
            if (b->now - b->t_prev != b->gap || !b->gaps) {
                double gap = (double)(b->now - b->t_prev) / 1e6;
                b->gap = b->now - b->t_prev;
                b->log_gap = log(gap < 1e-6 ? 1e-6 : gap > 30 * 86400.0 ? 30 * 86400.0 : gap);
            }
            b->log_gaps += b->log_gap;
            b->gaps++;
            b->spacing = exp(b->log_gaps / (double)b->gaps);
        }
        b->t_prev = b->now;
    }
    if (!(b->p.alarms_per_s > 0)) return; /* rate= and threshold= are set at init */
    b->thr = nld_budget_threshold(&b->p, b->now != INT64_MIN ? nld_bank_spacing(b) : 0);
}

double nld_bank_spacing(const nld_bank_t *b) { return b->spacing; }

/* The share of its surprise value x keeps in stage 3 (NLD_STAGE_DISCOUNT), the product of
 * each discount's: jump= (unless `jumps` is 0: a fast stream), recur=, shape=, young=,
 * wander=. Their state learns from every value, judged or not. */
static double discount_share(nld_bank_t *b, double x, int64_t ts_usec, int jumps)
{
    double jw = jumps ? nld_jump_step(&b->jump, x, ts_usec, b->p.jump, b->p.jump_halflife_s) : 1;
    if (b->recur.slot) jw *= nld_recur_step(&b->recur, x, ts_usec);
    if (b->shape.buf) jw *= nld_shape_step(&b->shape, x, nld_bank_spacing(b));
    /* young=: a stream's first values are judged against little history (a cdf of a few
     * dozen values, a calibration barely begun), and their rarest look rarer than they
     * are; their surprise grows with the values seen (the archive's seeds count) */
    if (b->p.young && b->seen < b->p.young) jw *= (double)b->seen / b->p.young;
    if (b->p.wander) {
        double sp = nld_bank_spacing(b);
        int spans = sp > 0 && (double)b->p.n * sp >= NLD_WANDER_SPAN_S;
        jw *= nld_wander_step(&b->wander, x, ts_usec, b->p.n, b->p.wander, b->p.min, spans);
    }
    return jw;
}

double nld_bank_step(nld_bank_t *b, double x, nld_verdict_t out[NLD_ALGOS], int *err)
{
    return nld_bank_step_at(b, x, INT64_MIN, out, err);
}

double nld_bank_step_at(nld_bank_t *b, double x, int64_t ts_usec, nld_verdict_t out[NLD_ALGOS],
                        int *err)
{
    b->now = ts_usec;
    unsigned m = b->p.algos;
    if (fabs(x) > b->absmax && isfinite(x)) b->absmax = fabs(x);
    if (b->seen++) {
        double d = fabs(x - b->prev);
        if (d > 0 && !(d >= b->res)) b->res = d;
    }
    b->prev = x;
    budget_threshold(b);
    /* with a seasonal baseline the algorithms judge the value less its slot's offset */
    double x_obs = x, off = nld_season_offset(&b->season, ts_usec);
    int fast = b->p.runs_s > 0 && b->gaps && nld_bank_spacing(b) < b->p.runs_s;
    int jumps = b->p.jump > 0 && !fast;
    b->admit = b->p.admit;
    if (fast) { /* a run shorter than one that counts is normal variation: admitted */
        double n = ceil(b->p.runs_s / nld_bank_spacing(b) - 1e-9);
        if (b->p.runs_n && n > b->p.runs_n) n = b->p.runs_n;
        if (n - 1 > b->admit) b->admit = n - 1 < NLD_ADMIT_MAX ? (uint32_t)(n - 1) : NLD_ADMIT_MAX;
    }
    double jw = discount_share(b, x, ts_usec, jumps);
    x -= off;
    double s = nl_ewma_add(&b->ew, x);
    *err = 0;
    b->cal_err = 0;
    for (int i = 0; i < NLD_ALGOS; i++) {
        if (!(m >> i & 1)) continue;
        double v = IS_RAW(i) ? x : s;
        const nld_hist_t *h = IS_HEUR(i) ? &b->heur[i] : &b->stat[IS_RAW(i)];
        if (i == NLD_RELENT && nld_relent_push(&b->relent, b->p.relent_w, x)) *err = NL_ENOMEM;
        judge_stages(b, i, h, v, jw, &out[i], err);
        if (IS_HEUR(i) && heur_update(b, i, v, out[i].own)) *err = NL_ENOMEM;
    }
    if (b->cal_err) *err = NL_ENOMEM;
    /* Static histories after every test, so a value is never judged against itself. With
     * relearn, a run of flags of either algorithm using one that outlasts relearn values
     * restarts it: the next N values are the new reference. */
    for (int raw = 0; raw < 2; raw++) {
        if (!b->stat[raw].cap) continue;
        if (b->p.relearn || b->p.relearn_s > 0) {
            int msd = raw, cdf = 4 + raw, over = 0;
            for (int a = msd; a <= cdf; a += 4)
                if (m >> a & 1)
                    over |= run_outlasts(b, &b->held[a].run, &b->held[a].run_t0, out[a].own);
            if (over) {
                nld_hist_clear(&b->stat[raw]);
                b->held[msd].run = b->held[cdf].run = 0;
            }
        }
        if (nld_hist_add(&b->stat[raw], raw ? x : s)) *err = NL_ENOMEM;
    }
    if (b->season.slot) season_step(b, x_obs, off, out);
    return s + off; /* as observed, like the verdicts */
}
