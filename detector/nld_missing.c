/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_missing.c — ends that never came. Every .start of a watched activity is remembered
 * by its identity (activity, guid, *.id fields — the summarizer's pairing rule) until its
 * .end; when event time passes start + timeout it is reported as nl.missing, and an end
 * that turns up afterwards as nl.missing.late. The timeout is configured, or learned per
 * activity as factor x a high quantile of the durations seen so far.
 *
 * Pending starts of one activity are kept in arrival order, so only the oldest needs
 * checking as time passes. At most max-pending starts (pending or awaiting a late end)
 * are held; beyond that the oldest reported ones go first, then the oldest pending ones
 * (counted as pend_evicted). */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_list.h"
#include "nld_int.h"

#define LATE_KEEP_US ((int64_t)86400 * 1000000) /* how long a reported start awaits its end */

/* Insert p in start-time order, from the tail: starts mostly arrive in order, so this is
 * O(1) then. The expiry scan reads from the head and stops at the first start not yet due;
 * in arrival order, one start stamped in the future held up every report behind it. */
static void insert_by_start(nld_pend_t **head, nld_pend_t **tail, nld_pend_t *p)
{
    nld_pend_t *after = *tail;
    while (after && after->start > p->start) after = after->prev;
    NL__DL_INSERT_AFTER(*head, *tail, after, p);
}

static void forget(nld_t *d, nld_pend_t *p)
{
    nld_act_t *a = p->act;
    if (p->reported)
        NL__DL_UNLINK(a->r_head, a->r_tail, p);
    else
        NL__DL_UNLINK(a->p_head, a->p_tail, p);
    nl__map_del(&d->pend, p->ment->key, p->ment->klen);
    d->npend--;
    free(p);
}

/* The activity's state, created on first sight if a rule watches it; NULL if none does. */
static nld_act_t *activity(nld_t *d, const char *name, size_t len)
{
    nld_act_t *a = nl__map_get(&d->acts, name, len);
    if (a || len > NL_NAME_MAX) return a;
    char nm[NL_NAME_MAX + 1];
    memcpy(nm, name, len);
    nm[len] = 0;
    const nld_mdef_t *def = NULL;
    for (int i = 0; i < d->cfg->nm && !def; i++)
        if (fnmatch(d->cfg->m[i].glob, nm, 0) == 0) def = &d->cfg->m[i];
    if (!def) return NULL;
    a = calloc(1, sizeof *a + len + 1);
    if (!a) goto oom;
    a->def = def;
    memcpy(a->name, nm, len + 1);
    if (!def->timeout && nld_hist_init(&a->durs, def->learn, 1, 1)) goto oom;
    if (!nl__map_put(&d->acts, nm, len, a)) goto oom;
    a->all_next = d->acts_all;
    d->acts_all = a;
    return a;
oom:
    if (a) nld_hist_free(&a->durs);
    free(a);
    d->n.oom++;
    return NULL;
}

/* Timeout in seconds now, and whether it was learned; 0 if none applies yet. */
static double timeout_of(const nld_act_t *a, int *learned)
{
    *learned = 0;
    if (a->def->timeout) return a->def->timeout;
    if (a->durs.n >= a->def->min) {
        *learned = 1;
        return a->def->factor * nld_hist_quantile(&a->durs, a->def->quantile);
    }
    return a->def->initial;
}

/* Identity key: activity NUL guid NUL then " name=value" for each *.id field. */
static void identity(const nl_rec_t *r, const char *act, size_t alen, nl_buf_t *b)
{
    nld__out_raw(b, act, alen);
    nld__out_raw(b, "", 1);
    if (r->i_guid >= 0) nld__out_raw(b, r->f[r->i_guid].value, r->f[r->i_guid].value_len);
    nld__out_raw(b, "", 1);
    for (int i = 0; i < r->n; i++) {
        const nl_field_t *f = &r->f[i];
        if (nl__is_id_field(f->name, f->name_len)) {
            char nm[NL_NAME_MAX + 1];
            memcpy(nm, f->name, f->name_len);
            nm[f->name_len] = 0;
            nl_enc_str(b, nm, f->value, f->value_len);
        }
    }
}

/* nl.missing / nl.missing.late of an activity's start (identity key k of klen bytes, as
 * built by identity()); the report hook hears of it as a start or an end. */
static void report(nld_t *d, const nld_act_t *a, const char *k, size_t klen, int64_t start,
                   const char *event, int64_t ts, double timeout, int learned, double dur)
{
    const char *guid = k + strlen(k) + 1, *ids = guid + strlen(guid) + 1;
    size_t ids_len = klen - (size_t)(ids - k);
    char st[1024];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nld__out_begin(&b, ts, event, NL_LVL_WARN, guid, strlen(guid));
    nl_enc_str(&b, "activity", a->name, strlen(a->name));
    nld__out_raw(&b, ids, ids_len);
    nl_enc_ts(&b, "start.ts", start);
    if (!isnan(timeout)) nl_enc_dbl(&b, "timeout", timeout);
    if (learned >= 0) nl_enc_i64(&b, "learned", learned);
    if (!isnan(dur)) {
        nl_enc_dbl(&b, "dur", dur);
        if (!isnan(timeout)) nl_enc_dbl(&b, "late", dur - timeout);
    }
    if (learned < 0) nl_enc_i64(&b, "restored", 1);
    nld__out_emit(d, d->out, NL_LVL_WARN, &b);
    nld__out_report(d, NLD_R_MISSING, isnan(dur) ? NLD_R_START : NLD_R_END, &b, 0, 0, k, klen, ts,
                    NL_LVL_WARN, NULL);
    nl_buf_free(&b);
}

/* Make room for one more start: the oldest reported start of any activity, else the
 * oldest pending one of this activity (or of any). */
static void make_room(nld_t *d, nld_act_t *here)
{
    for (nld_act_t *a = d->acts_all; a; a = a->all_next)
        if (a->r_head) {
            forget(d, a->r_head);
            return;
        }
    nld_act_t *a = here->p_head ? here : NULL;
    for (nld_act_t *b = d->acts_all; !a && b; b = b->all_next)
        if (b->p_head) a = b;
    if (a) {
        forget(d, a->p_head);
        d->n.pend_evicted++;
    }
}

void nld__missing_event(nld_t *d, const nl_rec_t *r)
{
    const nl_field_t *ev = &r->f[r->i_event];
    size_t alen;
    int kind = nl__event_kind(ev->value, ev->value_len, &alen);
    if (kind != NL_KIND_START && kind != NL_KIND_END) return;
    nld_act_t *a = activity(d, ev->value, alen);
    if (!a) return;
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    identity(r, ev->value, alen, &b);
    if (b.err) {
        d->n.oom++;
        nl_buf_free(&b);
        return;
    }
    nld_pend_t *p = nl__map_get(&d->pend, b.p, b.len);
    if (kind == NL_KIND_START) {
        if (p && !p->reported) d->n.restarted++;
        if (p) forget(d, p);
        if (d->npend >= d->cfg->max_pending) make_room(d, a);
        p = calloc(1, sizeof *p);
        if (!p || !(p->ment = nl__map_put(&d->pend, b.p, b.len, p))) {
            free(p);
            d->n.oom++;
        } else {
            p->act = a;
            p->start = r->ts_usec;
            insert_by_start(&a->p_head, &a->p_tail, p);
            d->npend++;
        }
    } else if (!p) {
        int64_t t0;
        if (nld__restored_take(d, 'M', b.p, b.len, &t0)) { /* reported by a previous run */
            report(d, a, b.p, b.len, t0, "nl.missing.late", r->ts_usec, NAN, -1,
                   (double)(r->ts_usec - t0) / 1e6);
            d->n.late++;
        } else {
            d->n.orphan_end++;
        }
    } else {
        double dur = (double)(r->ts_usec - p->start) / 1e6;
        if (p->reported) {
            report(d, a, p->ment->key, p->ment->klen, p->start, "nl.missing.late", r->ts_usec,
                   p->timeout, !a->def->timeout, dur);
            d->n.late++;
        } else if (!a->def->timeout && dur >= 0 && nld_hist_add(&a->durs, dur)) {
            d->n.oom++;
        }
        forget(d, p);
    }
    nl_buf_free(&b);
}

void nld__missing_advance(nld_t *d)
{
    for (nld_act_t *a = d->acts_all; a; a = a->all_next) {
        int learned = 0;
        double t = a->p_head ? timeout_of(a, &learned) : 0; /* a quantile: only when needed */
        int64_t tus = (int64_t)(t * 1e6);
        while (t > 0 && a->p_head && a->p_head->start + tus <= d->now) {
            nld_pend_t *p = a->p_head;
            report(d, a, p->ment->key, p->ment->klen, p->start, "nl.missing", p->start + tus, t,
                   learned, NAN);
            d->n.missing++;
            NL__DL_UNLINK(a->p_head, a->p_tail, p);
            p->reported = 1;
            p->timeout = t;
            NL__DL_APPEND(a->r_head, a->r_tail, p);
        }
        while (a->r_head && a->r_head->start + LATE_KEEP_US < d->now) forget(d, a->r_head);
    }
}

void nld__missing_free(nld_t *d)
{
    for (nld_act_t *a = d->acts_all, *nx; a; a = nx) {
        nx = a->all_next;
        while (a->p_head) forget(d, a->p_head);
        while (a->r_head) forget(d, a->r_head);
        nld_hist_free(&a->durs);
        free(a);
    }
    d->acts_all = NULL;
    nl__map_free(&d->acts);
    nl__map_free(&d->pend);
}
