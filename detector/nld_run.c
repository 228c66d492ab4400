/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_run.c — the engine's entry points: parse a line, move event time, route the event to
 * the missing-end tracker, the streams and the subscriptions that select it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nld_int.h"

nld_t *nld_new(const nld_cfg_t *cfg, nl_log_t *out, const nld_opts_t *opts, char *err,
               size_t errlen)
{
    nld_t *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->cfg = cfg;
    d->out = out;
    if (cfg->ns + cfg->nw && !(d->seen = calloc((size_t)(cfg->ns + cfg->nw), sizeof *d->seen))) {
        free(d);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (opts) d->opts = *opts;
    if (!d->opts.diag) d->opts.diag = stderr;
    if (d->opts.diag_max <= 0) d->opts.diag_max = 20;
    d->now = INT64_MIN;
    nl_rec_init(&d->rec);
    nl__map_init(&d->keyed, 0x6b65796564ULL);
    nl__map_init(&d->acts, 0x61637473ULL);
    nl__map_init(&d->pend, 0x70656e64ULL);
    nl__map_init(&d->restored, 0x72657374ULL);
    return d;
}

void nld_free(nld_t *d)
{
    if (!d) return;
    nld__keyed_free(d);
    nld__missing_free(d);
    for (size_t i = 0; i < d->restored.nb; i++)
        for (nl__ment_t *e = d->restored.b[i]; e; e = e->next) free(e->val);
    nl__map_free(&d->restored);
    nl_rec_free(&d->rec);
    free(d->seen);
    free(d);
}

/* Say once that definition i (streams first, then subscriptions) looks like a mistake: its
 * event= matched none of the events so far, or its value= was in none of those it matched.
 * `final`: the input ended (say it for fewer events than NLD_MISTAKE_EVENTS too). */
static void say_mistake(nld_t *d, int i, int final)
{
    nld_seen_t *sn = &d->seen[i];
    if (sn->said) return;
    int stream = i < d->cfg->ns;
    const nld_sel_t *s = stream ? &d->cfg->s[i].sel : &d->cfg->w[i - d->cfg->ns].sel;
    const char *name = stream ? d->cfg->s[i].name : d->cfg->w[i - d->cfg->ns].name;
    const char *what = stream ? "stream" : "subscription";
    if (!sn->matched && (final || d->n.events >= NLD_MISTAKE_EVENTS) && d->n.events) {
        fprintf(d->opts.diag,
                "nl-detect: %s %s: event=%s matched none of the first %llu events (an event "
                "name, or a glob such as 'request.*'; summaries match without '.summary')\n",
                what, name ? name : "", s->glob, (unsigned long long)d->n.events);
    } else if (sn->matched && !sn->valued &&
               (final || sn->matched >= NLD_MISTAKE_MATCHES)) {
        fprintf(d->opts.diag,
                "nl-detect: %s %s: value=%s is absent or not a number in all %llu event(s) "
                "event=%s matched: nothing to judge (check the field's name)\n",
                what, name ? name : "", s->value, (unsigned long long)sn->matched, s->glob);
    } else {
        return;
    }
    sn->said = 1;
    d->n.unmatched++;
}

static void move_now(nld_t *d, int64_t t)
{
    if (t <= d->now) return;
    d->now = t;
    nld__missing_advance(d);
    nld__keyed_expire(d);
}

/* Event time follows the events, but lines stamped far ahead (a wrong clock) must not drag
 * it there: every pending start would be reported missing at once, and the clock would then
 * stand still for everything stamped right. A wrong clock sends bursts (every line of that
 * host), so a jump of more than NLD_CLOCK_JUMP_US is believed only when NLD_CLOCK_CONFIRM
 * events in a row lie beyond it (a real gap in the input); an event back within reach ends
 * the run: its events are counted as outliers and time goes on from the others. */
static void set_now(nld_t *d, int64_t t)
{
    if (d->now != INT64_MIN && t > d->now && t - d->now > NLD_CLOCK_JUMP_US) {
        if (!d->jump_n || t < d->jump_at) d->jump_at = t;
        if (++d->jump_n < NLD_CLOCK_CONFIRM) return;
        int64_t to = d->jump_at; /* they agree: the gap is real */
        d->jump_at = 0;
        d->jump_n = 0;
        move_now(d, to);
        move_now(d, t);
        return;
    }
    d->n.clock_outliers += d->jump_n; /* the lines that jumped were a burst */
    d->jump_at = 0;
    d->jump_n = 0;
    move_now(d, t);
}

void nld_advance(nld_t *d, int64_t now_usec) { move_now(d, now_usec); }

/* A rejected line: counted always, shown for the first diag_max. */
static void bad_line(nld_t *d, const char *src, const nl_perr_t *e)
{
    d->n.bad++;
    if (d->diag_shown >= (uint64_t)d->opts.diag_max) return;
    d->diag_shown++;
    fprintf(d->opts.diag, "nl-detect: %s:%ld:%d: %s (%s)\n", src, e->line, e->col, e->msg,
            nl_strerror(e->code));
    if (d->diag_shown == (uint64_t)d->opts.diag_max)
        fprintf(d->opts.diag, "nl-detect: further bad lines are counted, not shown\n");
}

void nld_reject(nld_t *d, const char *src, long lineno, int code, const char *msg)
{
    d->n.lines++;
    nl_perr_t e = {.line = lineno, .col = 1, .code = code};
    snprintf(e.msg, sizeof e.msg, "%s", msg);
    bad_line(d, src, &e);
}

int nld_line(nld_t *d, const char *line, size_t len, const char *src, long lineno)
{
    d->n.lines++;
    nl_perr_t e;
    int rc = nl_parse(&d->rec, line, len, lineno, d->opts.parse, &e);
    if (rc <= 0) {
        if (rc < 0) bad_line(d, src, &e);
        return rc;
    }
    nl_rec_t *r = &d->rec;
    if (d->opts.parse != NL_PARSE_STRICT && r->ts_usec == 0) {
        e = (nl_perr_t){.line = lineno, .col = 1, .code = NL_ETS};
        snprintf(e.msg, sizeof e.msg, "unreadable timestamp: event time unknown");
        bad_line(d, src, &e);
        return NL_ETS;
    }
    d->n.events++;
    set_now(d, r->ts_usec);
    if (d->opts.event) d->opts.event(d->opts.watch_ctx, r, d->now);
    if (d->cfg->nm) nld__missing_event(d, r);
    double x;
    for (int i = 0; i < d->cfg->ns; i++) {
        const nld_sel_t *s = &d->cfg->s[i].sel;
        if (!nld_sel_match(s, r)) continue;
        d->seen[i].matched++;
        if (nld_sel_value(s, r, &x))
            d->n.novalue++;
        else if (!nl_mom_usable(x)) /* one inf would blind a stream's statistics for good */
            d->n.nonfinite++;
        else
            d->seen[i].valued++, nld__stream_value(d, i, r, x);
    }
    for (int i = 0; i < d->cfg->nw; i++) {
        const nld_sel_t *s = &d->cfg->w[i].sel;
        if (!nld_sel_match(s, r)) continue;
        d->seen[d->cfg->ns + i].matched++;
        if (nld_sel_value(s, r, &x))
            d->n.novalue++;
        else if (!nl_mom_usable(x))
            d->n.nonfinite++;
        else
            d->seen[d->cfg->ns + i].valued++, nld__sub_value(d, i, r, x);
    }
    /* a mistake in a definition is said once, early: cheap checks, until each is settled */
    if (d->n.events <= NLD_MISTAKE_EVENTS || d->n.events % 1024 == 0)
        for (int i = 0; i < d->cfg->ns + d->cfg->nw; i++)
            if (!d->seen[i].said && !d->seen[i].valued) say_mistake(d, i, 0);
    return 1;
}

void nld_finish(nld_t *d)
{
    nld__keyed_finish(d);
    for (int i = 0; i < d->cfg->ns + d->cfg->nw; i++)
        if (!d->seen[i].said && !d->seen[i].valued) say_mistake(d, i, 1);
    if (d->n.bad)
        fprintf(d->opts.diag, "nl-detect: %llu bad input line(s) skipped (%llu shown)\n",
                (unsigned long long)d->n.bad, (unsigned long long)d->diag_shown);
    d->n.clock_outliers += d->jump_n;
    if (d->n.clock_outliers)
        fprintf(d->opts.diag,
                "nl-detect: %llu event(s) stamped more than %d min ahead of the others: event "
                "time did not follow them\n",
                (unsigned long long)d->n.clock_outliers, (int)(NLD_CLOCK_JUMP_US / 60000000));
    if (d->n.nonfinite)
        fprintf(d->opts.diag,
                "nl-detect: %llu value(s) not finite (inf, -inf, nan) or beyond +-1e150 refused: "
                "no statistic takes them\n",
                (unsigned long long)d->n.nonfinite);
    nl_flush(d->out);
}

void nld_counts(const nld_t *d, nld_counts_t *c)
{
    *c = d->n;
    c->tracked = d->nkeyed;
    c->pending = d->npend;
    /* a stream still learning (fewer values than its history's min, or young=) does not
     * page: say how many there are (O(streams), for --stats and tests) */
    c->learning = 0;
    for (const nld_keyed_t *k = d->lru_head; k; k = k->next) {
        if (k->kind != NLD_K_STREAM) continue;
        const nld_params_t *p = &k->u.s.bank.p;
        uint64_t need = p->young > p->min ? p->young : p->min;
        c->learning += k->u.s.bank.seen < need;
    }
}

int64_t nld_now(const nld_t *d) { return d->now; }
