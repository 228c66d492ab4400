/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics_feed.c — the engine's hooks into the metrics store (nld_metrics.h): summary
 * lines into an activity's counters and buckets, stream values into scores, report lines
 * (anomaly episodes, missing ends, subscription alerts) into gauges and counters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_line.h"
#include "nld_metrics_int.h"

/* A summary field as a number: 0 with *x, 1 if absent, -1 if not a finite number. */
static int field_num(const nl_rec_t *r, const char *name, double *x)
{
    const nl_field_t *f = nl_rec_get(r, name);
    if (!f) return 1;
    return nl_field_double(f, x) || !isfinite(*x) ? -1 : 0;
}

void nld_metrics_event(void *mv, const nl_rec_t *r, int64_t now)
{
    nld_metrics_t *m = mv;
    const nl_field_t *ev = &r->f[r->i_event];
    size_t alen;
    if (nl__event_kind(ev->value, ev->value_len, &alen) != NL_KIND_SUMMARY) return;
    double n, dsum = 0, vsum = NAN, open = NAN, err = 0;
    int rn = field_num(r, "n", &n), rd = field_num(r, NL_SF_NAME(DUR_SUM), &dsum);
    int rv = field_num(r, NL_SF_NAME(V_SUM), &vsum), ro = field_num(r, NL_SF_NAME(OPEN), &open);
    int re = field_num(r, NL_SF_NAME(ERR_N), &err);
    const nl_field_t *hf = nl_rec_get(r, "dur.h");
    pthread_mutex_lock(&m->mu);
    if (rn || n < 0 || n != floor(n) || n > 9007199254740992.0 || rd < 0 || dsum < 0 || rv < 0 ||
        ro < 0 || re < 0 || err < 0 || err != floor(err) || err > n) {
        m->bad_summary++; /* not a summary nlkit wrote: nothing of it is counted */
        goto out;
    }
    int hist_ok = 0;
    if (hf) {
        nl__hist_clear(&m->h);
        hist_ok = !nl__hist_parse(&m->h, hf->value, hf->value_len) && m->h.n == (uint64_t)n;
        if (!hist_ok) m->bad_summary++; /* its pairs still count, in +Inf */
    }
    nldm_act_t *a = nldm__act(m, ev->value, alen);
    if (!a) {
        m->oom++;
        goto out;
    }
    char st[512];
    nl_buf_t b;
    nldm__labels_begin(&b, st, sizeof st, NLDM_ACT);
    nldm__label_own(&b, "activity", ev->value, alen);
    for (int i = 0; i < m->nkeys; i++) {
        const nl_field_t *f = nl_rec_get(r, m->keys[i]);
        nldm__label(&b, m->keys[i], strlen(m->keys[i]), f ? f->value : "", f ? f->value_len : 0);
    }
    nldm_ent_t *e = nldm__entry(m, NLDM_ACT, &b, a, now);
    nl_buf_free(&b);
    if (!e) goto out;
    e->u.a.n += (uint64_t)n;
    e->u.a.dur_sum += dsum;
    if (!rv) e->u.a.v_sum += vsum;
    if (!ro) e->u.a.open = open;
    if (!re) { /* err.n absent: no outcome counted, so no errors series (not 0 errors) */
        e->u.a.err += (uint64_t)err;
        e->u.a.has_err = 1;
    }
    if (hist_ok) nldm__add_hist(m, e);
out:
    pthread_mutex_unlock(&m->mu);
}

/* The key fields of a report line (key.F=V) as labels F="V", in the line's order, which is
 * the selector's (nld_sel_key): the same labels as the values' (nld_metrics_value). */
static void key_labels(nl_buf_t *b, const nl_rec_t *r)
{
    for (int i = 0; i < r->n; i++)
        if (r->f[i].name_len > 4 && !memcmp(r->f[i].name, "key.", 4))
            nldm__label(b, r->f[i].name + 4, r->f[i].name_len - 4, r->f[i].value,
                        r->f[i].value_len);
}

void nld_metrics_value(void *mv, const nld_value_t *v)
{
    nld_metrics_t *m = mv;
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < v->n; i++) {
        char st[512];
        nl_buf_t b;
        nldm__labels_begin(&b, st, sizeof st, NLDM_STREAM);
        nldm__label_own(&b, "stream", v->stream, strlen(v->stream));
        nldm__label_own(&b, "algo", v->algo[i], strlen(v->algo[i]));
        for (int k = 0; k < v->sel->nkeys; k++) {
            const nl_field_t *f = nl_rec_get(v->rec, v->sel->keys[k]);
            nldm__label(&b, v->sel->keys[k], strlen(v->sel->keys[k]), f ? f->value : "",
                        f ? f->value_len : 0);
        }
        nldm_ent_t *e = nldm__entry(m, NLDM_STREAM, &b, NULL, v->now);
        nl_buf_free(&b);
        if (e && !isnan(v->score[i])) {
            e->u.s.score = v->score[i];
            e->u.s.has_score = 1;
        }
    }
    pthread_mutex_unlock(&m->mu);
}

/* A field of a report line, or "" if absent. */
static const char *rfield(const nl_rec_t *r, const char *name, size_t *len)
{
    const nl_field_t *f = nl_rec_get(r, name);
    *len = f ? f->value_len : 0;
    return f ? f->value : "";
}

void nld_metrics_report(nld_metrics_t *m, const nld_report_t *rp)
{
    pthread_mutex_lock(&m->mu);
    nl_rec_t *r = &m->rrec;
    if (!m->rrec_init) {
        nl_rec_init(r);
        m->rrec_init = 1;
    }
    if (nl_parse(r, rp->line, rp->len, 0, NL_PARSE_STRICT, NULL) != 1) {
        m->oom++; /* the engine's own line: only its scratch space can fail */
        goto out;
    }
    /* an end for dropped state does not keep its series alive */
    int64_t t = rp->why && strcmp(rp->why, "ongoing") ? INT64_MIN : rp->ts;
    int start = rp->phase == NLD_R_START;
    size_t l1, l2;
    const char *s1, *s2;
    char st[512];
    nl_buf_t b;
    nldm_ent_t *e = NULL;
    switch (rp->kind) {
    case NLD_R_ANOMALY:
        s1 = rfield(r, "stream", &l1);
        s2 = rfield(r, "algo", &l2);
        nldm__labels_begin(&b, st, sizeof st, NLDM_STREAM);
        nldm__label_own(&b, "stream", s1, l1);
        nldm__label_own(&b, "algo", s2, l2);
        key_labels(&b, r);
        if ((e = nldm__entry(m, NLDM_STREAM, &b, NULL, t))) {
            e->u.s.active = start;
            if (start) e->u.s.episodes++;
        }
        break;
    case NLD_R_MISSING:
        s1 = rfield(r, "activity", &l1);
        nldm__labels_begin(&b, st, sizeof st, NLDM_MISSING);
        nldm__label_own(&b, "activity", s1, l1);
        if ((e = nldm__entry(m, NLDM_MISSING, &b, NULL, t))) {
            if (start)
                e->u.m.missing++;
            else
                e->u.m.late++;
        }
        break;
    default:
        s1 = rfield(r, "name", &l1);
        nldm__labels_begin(&b, st, sizeof st, NLDM_ALERT);
        nldm__label_own(&b, "alertname", s1, l1);
        key_labels(&b, r);
        if ((e = nldm__entry(m, NLDM_ALERT, &b, NULL, t))) e->u.w.firing = start;
        break;
    }
    nl_buf_free(&b);
out:
    pthread_mutex_unlock(&m->mu);
}
