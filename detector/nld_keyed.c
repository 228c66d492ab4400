/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_keyed.c — per-key state: one algorithm bank per (stream, key) with its anomaly
 * episodes, and one condition tracker per (subscription, key). Created on first sight,
 * kept in LRU order, dropped when idle for `expire` of event time or when max-streams
 * would be exceeded (counted; an open episode or alert is closed with a reason). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_list.h"
#include "nld_int.h"
#include "nld_tail.h"

#define KEY_MAX 4096 /* longest key text; longer keys are cut (they still separate) */

/* Who a line is about: stream and algorithm (slot >= 0: an algorithm, or NLD_ALGOS for the
 * combined verdict, named after its combine= mode) or the subscription's name, then the key
 * fields as kept in the map key after its kind/def prefix. */
static void put_ident(nld_t *d, const nld_keyed_t *k, int slot, nl_buf_t *b)
{
    if (k->kind == NLD_K_STREAM) {
        const nld_sdef_t *sd = &d->cfg->s[k->def];
        nl_enc_str(b, "stream", sd->name, strlen(sd->name));
        const char *algo = slot == NLD_ALGOS ? sd->comb.name
                           : slot >= 0       ? nld_algo_name(slot)
                                             : NULL;
        if (algo) nl_enc_str(b, "algo", algo, strlen(algo));
    } else {
        const char *name = d->cfg->w[k->def].name;
        nl_enc_str(b, "name", name, strlen(name));
    }
    nld__out_raw(b, k->ment->key + 2 * sizeof(int), k->ment->klen - 2 * sizeof(int));
}

/* Write an episode's nl.anomaly.end (it must be reported); the slot waits out its hold-off. */
static void episode_end(nld_t *d, nld_keyed_t *k, int algo, int64_t ts, const char *why)
{
    nld_episode_t *e = &k->u.s.ep[algo];
    char st[1024];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nld__out_begin(&b, ts, "nl.anomaly.end", NL_LVL_INFO, NULL, 0);
    size_t i0 = b.len;
    put_ident(d, k, algo, &b);
    size_t i1 = b.len;
    nl_enc_str(&b, "dir", e->dir == NLD_LOW ? "low" : "high", e->dir == NLD_LOW ? 3 : 4);
    nl_enc_u64(&b, "len", e->len);
    nl_enc_ts(&b, "start.ts", e->t0);
    nl_enc_dbl(&b, "dur", (double)(e->t_last - e->t0) / 1e6);
    nl_enc_dbl(&b, "x.min", e->xmin);
    nl_enc_dbl(&b, "x.max", e->xmax);
    if (why) nl_enc_i64(&b, why, 1);
    if (e->restored) nl_enc_i64(&b, "restored", 1);
    nld__out_emit(d, d->out, NL_LVL_INFO, &b);
    nld__out_report(d, NLD_R_ANOMALY, NLD_R_END, &b, i0, i1, NULL, 0, ts, NL_LVL_INFO, why);
    nl_buf_free(&b);
    e->reported = 0;
    e->ended = 1;
}

/* Close a slot for good (input ended, state dropped): an open episode's end is written with
 * the reason; a run too short to be one is counted. */
static void episode_close(nld_t *d, nld_keyed_t *k, int algo, int64_t ts, const char *why)
{
    nld_episode_t *e = &k->u.s.ep[algo];
    if (e->reported)
        episode_end(d, k, algo, ts, why);
    else if (e->run && !e->run_counted)
        d->n.short_runs++;
    *e = (nld_episode_t){0};
}

static void alert_end(nld_t *d, nld_keyed_t *k, int64_t ts, double x, const char *why);

/* A stream's memory: its bank and what confirm= keeps. */
static void stream_free(nld_keyed_t *k)
{
    nld_bank_free(&k->u.s.bank);
    free(k->u.s.cf);
    k->u.s.cf = NULL;
}

/* Forget a keyed state, closing what it has open. */
static void keyed_drop(nld_t *d, nld_keyed_t *k, const char *why)
{
    if (k->kind == NLD_K_STREAM) {
        for (int a = 0; a <= NLD_ALGOS; a++)
            if (k->u.s.ep[a].active || k->u.s.ep[a].run) episode_close(d, k, a, k->last, why);
        stream_free(k);
    } else if (k->u.w.alerted) {
        alert_end(d, k, k->last, NAN, why);
    }
    NL__DL_UNLINK(d->lru_head, d->lru_tail, k);
    nl__map_del(&d->keyed, k->ment->key, k->ment->klen);
    d->nkeyed--;
    free(k);
}

void nld__keyed_expire(nld_t *d)
{
    if (!(d->cfg->expire > 0)) return; /* off: only max-streams bounds them */
    int64_t limit = d->now - (int64_t)(d->cfg->expire * 1e6);
    while (d->lru_head && d->lru_head->last < limit) {
        keyed_drop(d, d->lru_head, "expired");
        d->n.expired++;
    }
}

void nld__keyed_finish(nld_t *d)
{
    for (nld_keyed_t *k = d->lru_head; k; k = k->next) {
        if (k->kind == NLD_K_STREAM) {
            for (int a = 0; a <= NLD_ALGOS; a++)
                if (k->u.s.ep[a].active || k->u.s.ep[a].run) episode_close(d, k, a, d->now, "ongoing");
        } else if (k->u.w.alerted) {
            alert_end(d, k, d->now, NAN, "ongoing");
        }
    }
}

void nld__keyed_free(nld_t *d)
{
    for (nld_keyed_t *k = d->lru_head, *nx; k; k = nx) {
        nx = k->next;
        if (k->kind == NLD_K_STREAM) stream_free(k);
        free(k);
    }
    d->lru_head = d->lru_tail = NULL;
    nl__map_free(&d->keyed);
}

typedef struct seeding {
    nld_bank_t *bank;   /* a stream's, or */
    nl_moments_t *base; /* a subscription's baseline */
    uint64_t n;
} seeding_t;

/* A past value goes through the bank as if watched, at its own time, so the histories,
 * the calibration, the season, jump='s scale and recur='s envelope start from the
 * archive's days (the verdicts are not used). */
static void seed_add(void *ctx, double x, int64_t ts_usec)
{
    seeding_t *sd = ctx;
    sd->n++;
    if (sd->base) {
        nl_mom_add(sd->base, x);
        return;
    }
    nld_verdict_t v[NLD_ALGOS];
    int err;
    nld_bank_step_at(sd->bank, x, ts_usec, v, &err);
}

/* Start a new key from the archive's past values, when its definition asks to. */
static void seed(nld_t *d, nld_keyed_t *k, const nld_sel_t *sel, const nl_rec_t *r)
{
    int stream = k->kind == NLD_K_STREAM;
    if (!(stream ? d->cfg->s[k->def].seed : d->cfg->w[k->def].seed) || !d->opts.seed) return;
    double back = stream ? d->cfg->s[k->def].seed_since : d->cfg->w[k->def].seed_since;
    int64_t since = back > 0 ? r->ts_usec - (int64_t)(back * 1e6) : INT64_MIN;
    seeding_t sd = {.bank = stream ? &k->u.s.bank : NULL, .base = stream ? NULL : &k->u.w.base};
    uint32_t limit = stream ? k->u.s.bank.p.n : d->cfg->w[k->def].base_n;
    if (d->opts.seed(d->opts.seed_ctx, sel, r, limit, since, r->ts_usec, seed_add, &sd))
        d->n.seed_errors++;
    d->n.seeded += sd.n;
    /* A baseline the archive could fill is the reference as it stands: an anomaly at the
     * start of the live run must not drag it along. Too few past values: live ones complete
     * it as usual. */
    if (!stream && sd.n >= d->cfg->w[k->def].base_min) k->u.w.frozen = 1;
}

/* A new key whose episode or alert was open when a previous run stopped: take it up. */
static void restore(nld_t *d, nld_keyed_t *k)
{
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    int64_t t0;
    if (k->kind == NLD_K_SUB) {
        put_ident(d, k, -1, &b);
        if (!b.err && nld__restored_take(d, 'W', b.p, b.len, &t0)) {
            k->u.w.alerted = 1;
            k->u.w.restored = 1;
            k->u.w.since = t0;
        }
    } else {
        const nld_sdef_t *sd = &d->cfg->s[k->def];
        for (int a = 0; a <= NLD_ALGOS; a++) {
            if (a < NLD_ALGOS ? sd->comb.on || !(sd->p.algos >> a & 1) : !sd->comb.on) continue;
            nl_buf_reset(&b);
            put_ident(d, k, a, &b);
            if (!b.err && nld__restored_take(d, 'S', b.p, b.len, &t0))
                k->u.s.ep[a] = (nld_episode_t){.active = 1,
                                               .reported = 1,
                                               .restored = 1,
                                               .dir = NLD_LOW,
                                               .t0 = t0,
                                               .t_last = t0,
                                               .t_cnt = t0,
                                               .xmin = NAN,
                                               .xmax = NAN,
                                               .peak = INFINITY};
        }
    }
    nl_buf_free(&b);
}

/* Find or create the state of (kind, def, key of line r); NULL when out of memory. */
static nld_keyed_t *lookup(nld_t *d, int kind, int def, const nld_sel_t *sel, const nl_rec_t *r)
{
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    b.limit = KEY_MAX;
    int hdr[2] = {kind, def};
    nld__out_raw(&b, (const char *)hdr, sizeof hdr);
    nld_sel_key(sel, r, &b);
    nld_keyed_t *k = NULL;
    if (b.err == NL_ENOMEM) goto out;
    k = nl__map_get(&d->keyed, b.p, b.len);
    if (k) {
        NL__DL_UNLINK(d->lru_head, d->lru_tail, k);
        NL__DL_APPEND(d->lru_head, d->lru_tail, k);
        k->last = d->now;
        goto out;
    }
    if (d->nkeyed >= d->cfg->max_streams && d->lru_head) {
        keyed_drop(d, d->lru_head, "evicted");
        d->n.evicted++;
    }
    k = calloc(1, sizeof *k);
    if (!k) goto out;
    k->kind = kind;
    k->def = def;
    k->last = d->now;
    if (kind == NLD_K_STREAM) {
        nld_params_t p = d->cfg->s[def].p;
        p.want_scores = d->cfg->scores || d->cfg->s[def].comb.on || d->opts.value;
        if (nld_bank_init(&k->u.s.bank, &p)) goto fail;
        if (d->cfg->s[def].confirm > 0 &&
            !(k->u.s.cf = calloc(NLD_ALGOS + 1, sizeof *k->u.s.cf)))
            goto fail;
    } else {
        nl_mom_init(&k->u.w.base);
        k->u.w.since = -1;
        k->u.w.clear_since = -1;
    }
    if (!(k->ment = nl__map_put(&d->keyed, b.p, b.len, k))) goto fail;
    NL__DL_APPEND(d->lru_head, d->lru_tail, k);
    d->nkeyed++;
    if (kind == NLD_K_STREAM) d->n.streams++;
    seed(d, k, sel, r);
    if (d->nrestored) restore(d, k);
    goto out;
fail:
    if (kind == NLD_K_STREAM) stream_free(k);
    free(k);
    k = NULL;
out:
    if (!k) d->n.oom++;
    nl_buf_free(&b);
    return k;
}

static const char *dir_name(int state) { return state == NLD_LOW ? "low" : "high"; }

/* nl.anomaly / nl.anomaly.start: the flagged value and what it was held to. */
static void flag_line(nld_t *d, nld_keyed_t *k, int algo, const nl_rec_t *r, const char *event,
                      double x, double s, const nld_verdict_t *v, const nld_episode_t *e,
                      unsigned agree)
{
    int level = strcmp(event, "nl.anomaly.escalate") ? NL_LVL_WARN : NL_LVL_ERROR;
    char st[1024];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    const nl_field_t *g = r->i_guid >= 0 ? &r->f[r->i_guid] : NULL;
    nld__out_begin(&b, r->ts_usec, event, level, g ? g->value : NULL, g ? g->value_len : 0);
    size_t i0 = b.len;
    put_ident(d, k, algo, &b);
    size_t i1 = b.len;
    const nl_field_t *ev = &r->f[r->i_event];
    nl_enc_str(&b, "trig.event", ev->value, ev->value_len);
    nl_enc_str(&b, "dir", dir_name(v->state), strlen(dir_name(v->state)));
    nl_enc_dbl(&b, "x", x);
    nl_enc_dbl(&b, "s", s);
    if (algo < NLD_ALGOS) { /* one algorithm's view; a combined verdict has no single one */
        nl_enc_dbl(&b, "v", v->v);
        nl_enc_dbl(&b, "centre", v->centre);
        nl_enc_dbl(&b, "lo", v->lo);
        nl_enc_dbl(&b, "hi", v->hi);
        nl_enc_u64(&b, "hist.n", v->hist_n);
    }
    nl_enc_dbl(&b, "score", v->score);
    /* what the score was held to: threshold=, or what the alarm budget means now, raised
     * by the stream's recent reports (fatigue=) for a start */
    if (e && e->bar > 0)
        nl_enc_dbl(&b, "threshold", e->bar);
    else if (k->kind == NLD_K_STREAM && k->u.s.bank.thr > 0)
        nl_enc_dbl(&b, "threshold", k->u.s.bank.thr);
    if (e && e->recent > 0) nl_enc_dbl(&b, "recent", e->recent);
    if (agree) { /* the combined verdict: which algorithms it stands on */
        char list[NLD_ALGOS * 7 + 1];
        size_t n = 0;
        for (int a = 0; a < NLD_ALGOS; a++)
            if (agree >> a & 1)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? "," : "",
                                      nld_algo_name(a));
        nl_enc_str(&b, "agree", list, n);
    }
    if (e) {
        nl_enc_ts(&b, "start.ts", e->t0);
        nl_enc_u64(&b, "len", e->len);
    }
    nld__out_emit(d, d->out, level, &b);
    if (e && level == NL_LVL_WARN) /* the start (nl.anomaly lines of set each=1 are not alerts,
                                      nor is an escalation: the alert stays as it is) */
        nld__out_report(d, NLD_R_ANOMALY, NLD_R_START, &b, i0, i1, NULL, 0, r->ts_usec, NL_LVL_WARN,
                        NULL);
    nl_buf_free(&b);
}

/* nl.anomaly.score: every value's score under each algorithm (set scores=1), to plot
 * and to choose thresholds from; on a stream that calibrates or discounts, each stage's
 * score too (raw., calib.; enum nld_stage), and the threshold in force. */
static void score_line(nld_t *d, nld_keyed_t *k, const nl_rec_t *r, double x, double s,
                       const nld_verdict_t *v, unsigned algos, const nld_verdict_t *cv)
{
    const nld_params_t *p = &d->cfg->s[k->def].p;
    int staged = p->calib || p->jump > 0 || p->recur_days || p->shape_w || p->young || p->wander;
    char st[1024];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nld__out_begin(&b, r->ts_usec, "nl.anomaly.score", NL_LVL_DEBUG, NULL, 0);
    put_ident(d, k, -1, &b);
    nl_enc_dbl(&b, "x", x);
    nl_enc_dbl(&b, "s", s);
    for (int a = 0; a < NLD_ALGOS; a++) {
        if (!(algos >> a & 1) || v[a].state == NLD_WARMUP) continue;
        char name[16];
        if (staged) {
            snprintf(name, sizeof name, "raw.%s", nld_algo_name(a));
            nl_enc_dbl(&b, name, v[a].raw);
            snprintf(name, sizeof name, "calib.%s", nld_algo_name(a));
            nl_enc_dbl(&b, name, v[a].calibrated);
        }
        snprintf(name, sizeof name, "score.%s", nld_algo_name(a));
        nl_enc_dbl(&b, name, v[a].score);
    }
    if (k->u.s.bank.thr > 0) nl_enc_dbl(&b, "threshold", k->u.s.bank.thr);
    if (cv && cv->state != NLD_WARMUP) { /* the combined verdict's, under its mode's name */
        char name[32];
        snprintf(name, sizeof name, "score.%s", d->cfg->s[k->def].comb.name);
        nl_enc_dbl(&b, name, cv->score);
    }
    nld__out_emit(d, d->out, NL_LVL_DEBUG, &b);
    nl_buf_free(&b);
}

/* The stream's recent reports in this slot as of event time ts: each counts 2^-(age /
 * half-life), so a burst of reports weighs for days and is forgotten in a few weeks. */
static double fatigue_now(const nld_sdef_t *sd, const nld_keyed_t *k, int slot, int64_t ts)
{
    double f = k->u.s.fat[slot];
    if (!(f > 0) || !(sd->fatigue_s > 0)) return 0;
    double age = ts > k->u.s.fat_t[slot] ? (double)(ts - k->u.s.fat_t[slot]) / 1e6 : 0;
    return f * exp2(-age / sd->fatigue_s);
}

/* The surprise a new episode's first flag must reach (fatigue=): the threshold's, plus
 * log10 of one more than the stream's recent reports. Read as odds: each recent report
 * cuts the odds that the next alarm of this stream is worth a page, so a stream that
 * keeps alarming must be that much more surprising to page again, while one quiet for
 * weeks pages at the threshold. 0 without fatigue (the verdict's state decides). */
static double start_bar(const nld_sdef_t *sd, const nld_keyed_t *k, int slot, int64_t ts,
                        double *recent)
{
    *recent = fatigue_now(sd, k, slot, ts);
    double thr = k->u.s.bank.thr;
    if (!(sd->fatigue_s > 0) || !(thr > 0)) return 0;
    return nld_surprise_of(thr) + log10(1 + *recent);
}

/* confirm= (nld_confirm.h) before the episode sees value x: 0 when a lone flag on a stream
 * that spikes waits for the next value (the episode sees nothing now); else 1, with *v
 * turned into a flag when x confirms a waiting one (*pend then that flag), or as it was. */
static int confirm_step(nld_t *d, nld_keyed_t *k, int slot, const nl_rec_t *r, double x,
                        nld_verdict_t *v, const nld_confirm_t **pend)
{
    const nld_sdef_t *sd = &d->cfg->s[k->def];
    nld_confirm_t *c = &k->u.s.cf[slot];
    double thr = k->u.s.bank.thr, st = thr > 0 ? nld_surprise_of(thr) : 0;
    double sv = v->state == NLD_WARMUP ? 0 : nld_surprise_of(v->score);
    int flag = v->state == NLD_LOW || v->state == NLD_HIGH, active = k->u.s.ep[slot].active;
    if (r->ts_usec == INT64_MIN || !(st > 0)) return 1; /* no event time or no threshold */
    double sp = nld_bank_spacing(&k->u.s.bank);
    nld_confirm_learn(c, sv, st, 1);
    unsigned cf = nld_confirm_step(c, r->ts_usec, x, sv, st, flag ? v->state : 0, active,
                                   k->u.s.ep[slot].run != 0, sd->confirm, sp, sd->confirm_wait_s,
                                   v->familiar);
    if (cf & NLD_CF_DROPPED) d->n.unconfirmed++;
    if (cf & NLD_CF_WAIT) return 0;
    if (cf & NLD_CF_CONFIRMED) {
        if (!flag) v->state = c->dir;
        if (c->pend_s > sv) v->score = nld_score_of(c->pend_s);
        *pend = c;
    }
    return 1;
}

/* Flags a run needs before it is an episode: episode.min, or fewer once they span
 * episode.for of event time at the stream's spacing (so a row a minute opens one at its first
 * flag, 1-second summaries after 10 s). */
static uint64_t run_needed(const nld_sdef_t *sd, const nld_keyed_t *k)
{
    uint64_t need = sd->episode_min;
    double sp = nld_bank_spacing(&k->u.s.bank);
    if (sd->episode_for_s > 0 && sp > 0) {
        double n = ceil(sd->episode_for_s / sp - 1e-9);
        if (n < (double)need) need = n < 1 ? 1 : (uint64_t)n;
    }
    return need;
}

/* A page (a start or an escalation) counts towards the stream's recent reports (fatigue=). */
static void count_page(const nld_sdef_t *sd, nld_keyed_t *k, int slot, int64_t ts)
{
    k->u.s.fat[slot] = fatigue_now(sd, k, slot, ts) + 1;
    k->u.s.fat_t[slot] = ts;
}

/* Whether the hold-off after the last flag that counted has run out. */
static int holdoff_over(const nld_sdef_t *sd, const nld_episode_t *e, int64_t ts)
{
    if (!sd->holdoff_n && !(sd->holdoff_s > 0)) return 1;
    return (sd->holdoff_n && e->hold_n >= sd->holdoff_n) ||
           (sd->holdoff_s > 0 && (double)(ts - e->hold_t0) >= sd->holdoff_s * 1e6);
}

/* A flag that counts (its run has lasted): the slot's episode opens, is held, or goes on. */
static void episode_counts(nld_t *d, nld_keyed_t *k, int slot, const nl_rec_t *r, double x,
                           double s, const nld_verdict_t *v, unsigned agree)
{
    const nld_sdef_t *sd = &d->cfg->s[k->def];
    nld_episode_t *e = &k->u.s.ep[slot];
    if (!e->run_counted && sd->beat) nld_beat_add(&e->beat, e->run_t0);
    if (!e->active || e->ended) { /* the run opens an episode, written unless held */
        int held = (e->ended && !e->esc) || e->run_beat;
        if (e->run_beat) d->n.beats++;
        if (e->ended && e->esc) d->n.escalated++;
        e->active = 1;
        e->ended = 0;
        e->held = held;
        e->len = e->run;
        e->t0 = e->run_t0;
        if (held) {
            d->n.held++;
        } else if (!e->restored) {
            e->reported = 1;
            d->n.episodes++;
            count_page(sd, k, slot, r->ts_usec);
            flag_line(d, k, slot, r, "nl.anomaly.start", x, s, v, e, agree);
        }
    }
    e->esc = 0;
    e->holding = 0;
    e->run_counted = 1;
    e->t_cnt = r->ts_usec;
}

/* One value's verdict for one episode slot (an algorithm, or the combined verdict), in the
 * order an operator reads an episode (nld_episode_t):
 *   1. flags make runs; a run that lasts (run_needed) counts: it opens an episode, or keeps
 *      the open one going; shorter runs are counted and forgotten;
 *   2. escalate=D: a flag D decades rarer than the open episode's peak raises it (an
 *      nl.anomaly.escalate line; the episode goes on, nothing says resolved);
 *   3. it ends once no flag has counted for clear= of event time (at least one value);
 *   4. until the hold-off has passed after its last counting flag, a new run is held:
 *      followed and counted, not written, unless a flag in it escalates over the last peak;
 *   5. a run on the beat of the stream's earlier runs (nld_beat.h) is held as well, and
 *      never escalates.
 * With fatigue=, a run starts only if its first flag clears the bar the stream's recent
 * reports raised (start_bar). */
static void episode_step(nld_t *d, nld_keyed_t *k, int slot, const nl_rec_t *r, double x, double s,
                         const nld_verdict_t *v, unsigned agree)
{
    const nld_sdef_t *sd = &d->cfg->s[k->def];
    nld_episode_t *e = &k->u.s.ep[slot];
    nld_verdict_t vc = *v; /* the verdict as the episode reads it (a confirmed lone flag) */
    const nld_confirm_t *pend = NULL;
    if (k->u.s.cf && !confirm_step(d, k, slot, r, x, &vc, &pend)) return;
    v = &vc;
    if (v->state == NLD_LOW || v->state == NLD_HIGH) {
        double sv = nld_surprise_of(v->score), recent, bar = start_bar(sd, k, slot, r->ts_usec, &recent);
        if (!e->run) /* a new run: does it come on the beat of the stream's earlier runs? */
            e->run_beat = sd->beat && nld_beat_on(&e->beat, pend ? pend->pend_t : r->ts_usec,
                                                  nld_bank_spacing(&k->u.s.bank), sd->beat);
        if (!e->active && !e->run && sv < bar) { /* a stream that keeps alarming: not news */
            d->n.fatigued++;
            return;
        }
        int worse = sd->escalate > 0 && e->active && !e->run_beat && sv >= e->peak + sd->escalate &&
                    sv >= bar;
        if (worse && e->reported) { /* 2: the open episode got worse */
            d->n.escalated++;
            e->peak = sv;
            count_page(sd, k, slot, r->ts_usec);
            flag_line(d, k, slot, r, "nl.anomaly.escalate", x, s, v, e, agree);
        }
        if (worse && e->ended) e->esc = 1;
        if (worse && e->held && !e->ended) { /* a held episode got worse: it pages now */
            d->n.escalated++;
            e->held = 0;
            e->reported = 1;
            e->peak = sv;
            d->n.episodes++;
            count_page(sd, k, slot, r->ts_usec);
            flag_line(d, k, slot, r, "nl.anomaly.start", x, s, v, e, agree);
        }
        if (!e->run) { /* a new run */
            e->run_t0 = pend ? pend->pend_t : r->ts_usec;
            if (!e->active || e->ended) { /* ... which may open an episode: its figures */
                double peak = e->active ? e->peak : 0;
                e->dir = v->state;
                e->xmin = e->xmax = x;
                e->bar = bar > 0 ? nld_score_of(bar) : 0;
                e->recent = recent;
                e->peak = e->ended && !e->esc ? peak : sv;
                if (pend) {
                    e->run = 1; /* it began with the lone flag the value confirmed (the
                                   values between, near but maybe not flags, do not count) */
                    if (pend->pend_lo < e->xmin) e->xmin = pend->pend_lo;
                    if (pend->pend_hi > e->xmax) e->xmax = pend->pend_hi;
                }
            }
        }
        if (e->restored && e->len == 0) { /* the restored episode goes on: its direction now */
            e->dir = v->state;
            e->xmin = e->xmax = x;
        }
        e->run++;
        e->gap = 0;
        if (sv > e->peak) e->peak = sv;
        if (e->active && !e->ended) e->len++;
        e->t_last = r->ts_usec;
        if (x < e->xmin) e->xmin = x;
        if (x > e->xmax) e->xmax = x;
        if (e->run >= run_needed(sd, k)) episode_counts(d, k, slot, r, x, s, v, agree); /* 1 */
        if (d->cfg->each) flag_line(d, k, slot, r, "nl.anomaly", x, s, v, NULL, agree);
        return;
    }
    if (e->run && ++e->gap >= NLD_RUN_GAP) { /* the run is over */
        if (!e->run_counted) d->n.short_runs++;
        e->run = 0;
        e->run_counted = 0;
        e->esc = 0;
    }
    if (!e->active) return;
    if (e->restored && v->state == NLD_WARMUP) return; /* no verdict yet: it stays open */
    if (!e->holding) {
        e->holding = 1;
        e->hold_n = 0;
        e->hold_t0 = r->ts_usec;
    }
    e->hold_n++;
    if (!e->ended && (double)(r->ts_usec - e->t_cnt) >= sd->clear_s * 1e6) { /* 3 */
        if (e->reported) episode_end(d, k, slot, r->ts_usec, NULL);
        e->ended = 1;
        e->held = 0;
    }
    if (e->ended && holdoff_over(sd, e, r->ts_usec)) { /* 4: over */
        e->active = 0;
        e->ended = 0;
    }
}

/* Tell the value hook (nl-detect's metrics) of the scores of the slots episodes follow. */
static void watch_value(nld_t *d, const nld_sdef_t *sd, const nl_rec_t *r, double x,
                        const nld_verdict_t *v, const nld_verdict_t *cv)
{
    nld_value_t w = {.stream = sd->name, .sel = &sd->sel, .rec = r, .now = d->now, .x = x};
    for (int a = 0; a < NLD_ALGOS && !cv; a++)
        if (sd->p.algos >> a & 1) {
            w.algo[w.n] = nld_algo_name(a);
            w.score[w.n++] = v[a].state == NLD_WARMUP ? NAN : v[a].score;
        }
    if (cv) {
        w.algo[w.n] = sd->comb.name;
        w.score[w.n++] = cv->state == NLD_WARMUP ? NAN : cv->score;
    }
    d->opts.value(d->opts.watch_ctx, &w);
}

/* A stream's value judged in the stages of enum nld_stage (nld_algo.h), in that order: 1-4
 * each algorithm's (raw, calib, discount, threshold: nld_bank_step_at), then combine='s one
 * verdict, then 5, the episode of each slot followed (episode_step). */
void nld__stream_value(nld_t *d, int def, const nl_rec_t *r, double x)
{
    nld_keyed_t *k = lookup(d, NLD_K_STREAM, def, &d->cfg->s[def].sel, r);
    if (!k) return;
    d->n.values++;
    nld_verdict_t v[NLD_ALGOS];
    int err;
    double s = nld_bank_step_at(&k->u.s.bank, x, r->ts_usec, v, &err);
    if (err) d->n.oom++;
    const nld_sdef_t *sd = &d->cfg->s[def];
    unsigned m = sd->p.algos, agree = 0;
    nld_verdict_t cv = {.v = x, .centre = NAN, .lo = NAN, .hi = NAN};
    /* one verdict for the stream, standing on the algorithms that agree */
    if (sd->comb.on) {
        cv.state = nld_combine_judge(&sd->comb, m, v, &agree, &cv.score);
        cv.familiar = nld_combine_familiar(m, v);
    }
    if (d->cfg->scores) score_line(d, k, r, x, s, v, m, sd->comb.on ? &cv : NULL);
    for (int a = 0; a < NLD_ALGOS; a++) {
        if (!(m >> a & 1)) continue;
        if (v[a].state == NLD_LOW || v[a].state == NLD_HIGH) d->n.flags++;
        if (!sd->comb.on) episode_step(d, k, a, r, x, s, &v[a], 0);
    }
    if (sd->comb.on) episode_step(d, k, NLD_ALGOS, r, x, s, &cv, agree);
    if (d->opts.value) watch_value(d, sd, r, x, v, sd->comb.on ? &cv : NULL);
}

/* ---- subscriptions ------------------------------------------------------------------------ */

static void alert_line(nld_t *d, nld_keyed_t *k, const char *event, int level, int64_t ts, double x,
                       double thr, double ref, const char *why)
{
    const nld_wdef_t *w = &d->cfg->w[k->def];
    char st[1024];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nld__out_begin(&b, ts, event, level, NULL, 0);
    size_t i0 = b.len;
    put_ident(d, k, -1, &b);
    size_t i1 = b.len;
    nl_enc_str(&b, "watch", w->sel.glob, strlen(w->sel.glob));
    nl_enc_str(&b, "what", w->sel.value, strlen(w->sel.value));
    nl_enc_str(&b, "cond", w->below ? "below" : "above", 5);
    if (!isnan(x)) nl_enc_dbl(&b, "value", x);
    if (!isnan(thr)) nl_enc_dbl(&b, "threshold", thr);
    if (!isnan(ref)) nl_enc_dbl(&b, "reference", ref);
    nl_enc_ts(&b, "since", k->u.w.since);
    nl_enc_dbl(&b, "held", (double)(ts - k->u.w.since) / 1e6);
    nl_enc_dbl(&b, "for", w->hold);
    if (why) nl_enc_i64(&b, why, 1);
    if (k->u.w.restored) nl_enc_i64(&b, "restored", 1);
    nld__out_emit(d, d->out, level, &b);
    nld__out_report(d, NLD_R_ALERT, level == NL_LVL_WARN ? NLD_R_START : NLD_R_END, &b, i0, i1,
                    NULL, 0, ts, level, why);
    nl_buf_free(&b);
}

static void alert_end(nld_t *d, nld_keyed_t *k, int64_t ts, double x, const char *why)
{
    alert_line(d, k, "nl.alert.end", NL_LVL_INFO, ts, x, NAN, NAN, why);
    k->u.w.alerted = 0;
    k->u.w.restored = 0;
    d->n.cleared++;
}

/* Whether a stream that takes line r has an anomaly episode open (its start written, its end
 * not yet) on r's key: a subscription's baseline leaves such values out, so that a fault
 * does not become the reference the next one is held to. Streams run first on a line. */
static int episode_open(nld_t *d, const nl_rec_t *r)
{
    for (int i = 0; i < d->cfg->ns; i++) {
        const nld_sel_t *s = &d->cfg->s[i].sel;
        if (!nld_sel_match(s, r)) continue;
        char st[512];
        nl_buf_t b;
        nl_buf_init(&b, st, sizeof st);
        b.limit = KEY_MAX;
        int hdr[2] = {NLD_K_STREAM, i};
        nld__out_raw(&b, (const char *)hdr, sizeof hdr);
        nld_sel_key(s, r, &b);
        nld_keyed_t *k = b.err == NL_ENOMEM ? NULL : nl__map_get(&d->keyed, b.p, b.len);
        nl_buf_free(&b);
        for (int a = 0; k && a <= NLD_ALGOS; a++)
            if (k->u.s.ep[a].reported) return 1;
    }
    return 0;
}

void nld__sub_value(nld_t *d, int def, const nl_rec_t *r, double x)
{
    const nld_wdef_t *w = &d->cfg->w[def];
    nld_keyed_t *k = lookup(d, NLD_K_SUB, def, &w->sel, r);
    if (!k) return;
    d->n.values++;
    double ref = w->fixed;
    if (w->baseline) {
        nl_moments_t *m = &k->u.w.base;
        ref = nl_mom_count(m) >= w->base_min ? nl_mom_mean(m) : NAN;
        if (!k->u.w.frozen && nl_mom_count(m) < w->base_n) {
            if (episode_open(d, r))
                d->n.base_skipped++;
            else
                nl_mom_add(m, x);
        }
        if (isnan(ref)) return; /* no baseline yet: no verdict */
    }
    double thr = isnan(w->pct) ? ref : ref * w->pct / 100.0;
    int holds = w->below ? x < thr : x > thr;
    int64_t ts = r->ts_usec;
    if (!k->u.w.alerted) {
        if (!holds) {
            k->u.w.since = -1;
            return;
        }
        if (k->u.w.since < 0) k->u.w.since = ts;
        if (ts - k->u.w.since >= (int64_t)(w->hold * 1e6)) {
            alert_line(d, k, "nl.alert.start", NL_LVL_WARN, ts, x, thr, ref, NULL);
            k->u.w.alerted = 1;
            k->u.w.clear_since = -1;
            d->n.alerts++;
        }
        return;
    }
    /* Alerted: it ends when the value is clear — past the clear level if one is given (so a
     * value hovering at the threshold stays one alert), for clear.for if given. */
    int clear = !holds;
    if (w->clear) {
        double cref = w->clear_baseline ? ref : w->clear_fixed;
        double cl = isnan(w->clear_pct) ? cref : cref * w->clear_pct / 100.0;
        clear = w->below ? x > cl : x < cl;
    }
    if (!clear) {
        k->u.w.clear_since = -1;
        return;
    }
    if (k->u.w.clear_since < 0) k->u.w.clear_since = ts;
    if (ts - k->u.w.clear_since < (int64_t)(w->clear_for * 1e6)) return;
    alert_end(d, k, ts, x, NULL);
    k->u.w.since = -1;
    k->u.w.clear_since = -1;
}
