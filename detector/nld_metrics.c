/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics.c — the metrics store (nld_metrics.h): entries by label set in one LRU order,
 * their label text, idle expiry, the series bound. The engine's hooks that fill it are in
 * nld_metrics_feed.c, the activities' buckets in nld_metrics_hist.c, the exposition in
 * nld_metrics_fmt.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_label.h"
#include "nl_list.h"
#include "nl_utf8.h"
#include "nld_metrics_int.h"

#define LABELS_MAX 4096 /* longest label text of one entry; longer ones are refused */

nld_metrics_t *nld_metrics_new(const nld_metrics_opts_t *o, char *err, size_t errlen)
{
    if (!nld_metrics_width(o->per_octave)) {
        snprintf(err, errlen, "metrics buckets per power of two: 1, 2, 4, 8, 16 or 32, not %d",
                 o->per_octave);
        return NULL;
    }
    if (!o->max_series || !(o->expire > 0)) {
        snprintf(err, errlen, "metrics: max series and expire must be positive");
        return NULL;
    }
    nld_metrics_t *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    m->o = *o;
    m->o.keys = NULL;
    if (!m->o.max_label_bytes) m->o.max_label_bytes = NLD_METRICS_LABEL_BYTES;
    m->now = INT64_MIN;
    pthread_mutex_init(&m->mu, NULL);
    nl__map_init(&m->ents, 0x6d65747269637301ULL);
    nl__map_init(&m->acts, 0x6d65747269637302ULL);
    const char *k = o->keys ? o->keys : "host";
    while (*k) {
        size_t n = strcspn(k, ",");
        if (!n || n > NL_NAME_MAX || m->nkeys == NLD_KEYS_MAX) {
            snprintf(err, errlen,
                     "metrics keys: at most %d field names of 1 to %d bytes, "
                     "comma-separated",
                     NLD_KEYS_MAX, NL_NAME_MAX);
            nld_metrics_free(m);
            return NULL;
        }
        if (!(m->keys[m->nkeys] = strndup(k, n))) goto oom;
        m->nkeys++;
        k += n + (k[n] == ',');
    }
    char why[256];
    if (!nld_metrics_keys_ok(m->keys, m->nkeys, why, sizeof why)) {
        snprintf(err, errlen, "metrics keys: %s", why);
        nld_metrics_free(m);
        return NULL;
    }
    return m;
oom:
    snprintf(err, errlen, "out of memory");
    nld_metrics_free(m);
    return NULL;
}

static void ent_drop(nld_metrics_t *m, nldm_ent_t *e)
{
    if (e->kind == NLDM_ACT) {
        nldm_act_t *a = e->u.a.act;
        if (e->a_prev)
            e->a_prev->a_next = e->a_next;
        else
            a->ents = e->a_next;
        if (e->a_next) e->a_next->a_prev = e->a_prev;
        free(e->u.a.cnt);
    }
    NL__DL_UNLINK(m->lru_head, m->lru_tail, e);
    m->nseries -= e->nseries;
    m->lbytes -= e->llen * e->nseries;
    m->ltext -= e->llen;
    if (e->kind == NLDM_ACT) m->ncnt -= e->u.a.act->nb;
    m->nents[e->kind]--;
    nl__map_del(&m->ents, e->ment->key, e->ment->klen);
    free(e);
}

void nld_metrics_free(nld_metrics_t *m)
{
    if (!m) return;
    while (m->lru_head) ent_drop(m, m->lru_head);
    for (size_t i = 0; i < m->acts.nb; i++)
        for (nl__ment_t *e = m->acts.b[i]; e; e = e->next) free(e->val);
    nl__map_free(&m->acts);
    nl__map_free(&m->ents);
    for (int i = 0; i < m->nkeys; i++) free(m->keys[i]);
    nl__hist_free(&m->h);
    if (m->rrec_init) nl_rec_free(&m->rrec);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* ---- label text ------------------------------------------------------------------------- */

/* A label name from a field name (internal/nl_label.h), our own labels reserved; `own`:
 * one of those, taken as it is. */
static void put_label_name(nl_buf_t *b, const char *s, size_t n, int own)
{
    if (own) return nl__put(b, s, n);
    static const char *const ours[] = {"activity", "stream", "algo",    "alertname",
                                       "le",       "reason", "quantile"};
    nl__label_name(b, s, n, ours, sizeof ours / sizeof ours[0]);
}

int nld_metrics_keys_ok(char *const *keys, int n, char *err, size_t errlen)
{
    char st[2][NL_NAME_MAX + 8];
    nl_buf_t a, b;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            nl_buf_init(&a, st[0], sizeof st[0]);
            nl_buf_init(&b, st[1], sizeof st[1]);
            put_label_name(&a, keys[i], strlen(keys[i]), 0);
            put_label_name(&b, keys[j], strlen(keys[j]), 0);
            int same = a.len == b.len && !memcmp(a.p, b.p, a.len);
            if (same)
                snprintf(err, errlen, "key fields %s and %s would be one label, %.*s", keys[i],
                         keys[j], (int)a.len, a.p);
            nl_buf_free(&a);
            nl_buf_free(&b);
            if (same) return 0;
        }
    return 1;
}

/* name="value": the value escaped as the exposition formats ask (\\, \", \n), and bytes
 * that are not UTF-8 replaced by U+FFFD (both formats are UTF-8), as is NUL (a field may
 * hold one, from \x00; in the exposition it would end the text for C readers). `own`: one of our label
 * names, taken as it is; else a field's name, made a label name (nldm__label). */
static void put_label_as(nl_buf_t *b, const char *name, size_t nlen, const char *v, size_t vlen,
                         int own)
{
    if (b->len > 1) nl__putc(b, ','); /* after the kind byte (labels_begin) */
    put_label_name(b, name, nlen, own);
    nl__put(b, "=\"", 2);
    for (size_t i = 0; i < vlen;) {
        unsigned char c = (unsigned char)v[i];
        if (c >= 0x80 || c == 0) {
            size_t l = c ? nl__utf8_len((const unsigned char *)v + i, vlen - i) : 0;
            if (l)
                nl__put(b, v + i, l);
            else
                nl__put(b, "\xef\xbf\xbd", 3);
            i += l ? l : 1;
            continue;
        }
        if (c == '\\' || c == '"')
            nl__putc(b, '\\'), nl__putc(b, (char)c);
        else if (c == '\n')
            nl__put(b, "\\n", 2);
        else
            nl__putc(b, (char)c);
        i++;
    }
    nl__putc(b, '"');
}

void nldm__label(nl_buf_t *b, const char *name, size_t nlen, const char *v, size_t vlen)
{
    put_label_as(b, name, nlen, v, vlen, 0);
}

void nldm__label_own(nl_buf_t *b, const char *name, const char *v, size_t vlen)
{
    put_label_as(b, name, strlen(name), v, vlen, 1);
}

/* ---- entries ----------------------------------------------------------------------------- */

static size_t series_of(int kind, const nldm_act_t *a)
{
    switch (kind) {
    case NLDM_ACT: /* the edges' buckets (nb + 1 of them), +Inf, count, sum, value, errors,
                    * open */
        return (a && a->nb ? a->nb + 1 : 0) + 6;
    case NLDM_STREAM: return 3;
    case NLDM_MISSING: return 2;
    default: return 1;
    }
}

nldm_ent_t *nldm__entry(nld_metrics_t *m, int kind, nl_buf_t *b, nldm_act_t *a, int64_t now)
{
    if (b->err) {
        if (b->err == NL_ENOMEM)
            m->oom++;
        else
            m->refused++; /* labels beyond LABELS_MAX */
        return NULL;
    }
    nldm_ent_t *e = nl__map_get(&m->ents, b->p, b->len);
    if (e) {
        if (now > e->last) { /* kept in order of last touch, for expiry */
            NL__DL_UNLINK(m->lru_head, m->lru_tail, e);
            NL__DL_APPEND(m->lru_head, m->lru_tail, e);
            e->last = now;
        }
        return e;
    }
    size_t ns = series_of(kind, a);
    size_t lb = (b->len - 1) * ns; /* its labels, on each of its series */
    if (m->nseries + ns > m->o.max_series || m->lbytes + lb > m->o.max_label_bytes) {
        m->refused++;
        return NULL;
    }
    e = calloc(1, sizeof *e);
    if (!e || (kind == NLDM_ACT && a->nb && !(e->u.a.cnt = calloc(a->nb, sizeof(uint64_t))))) {
        free(e);
        m->oom++;
        return NULL;
    }
    if (!(e->ment = nl__map_put(&m->ents, b->p, b->len, e))) {
        free(e->u.a.cnt);
        free(e);
        m->oom++;
        return NULL;
    }
    e->kind = kind;
    e->last = now;
    e->nseries = ns;
    e->labels = e->ment->key + 1;
    e->llen = e->ment->klen - 1;
    if (kind == NLDM_ACT) {
        e->u.a.act = a;
        e->u.a.open = NAN; /* no open= seen yet: no series */
        e->a_next = a->ents;
        if (a->ents) a->ents->a_prev = e;
        a->ents = e;
    }
    m->nseries += ns;
    m->lbytes += lb;
    m->ltext += e->llen;
    if (kind == NLDM_ACT) m->ncnt += a->nb;
    m->nents[kind]++;
    NL__DL_APPEND(m->lru_head, m->lru_tail, e);
    return e;
}

void nldm__labels_begin(nl_buf_t *b, char *st, size_t cap, int kind)
{
    nl_buf_init(b, st, cap);
    b->limit = LABELS_MAX;
    nl__putc(b, (char)kind);
}

void nld_metrics_health(nld_metrics_t *m, const nld_counts_t *c, int64_t now)
{
    pthread_mutex_lock(&m->mu);
    m->c = *c;
    if (now > m->now) m->now = now;
    if (m->now != INT64_MIN) {
        int64_t limit = m->now - (int64_t)(m->o.expire * 1e6);
        while (m->lru_head && m->lru_head->last < limit) {
            ent_drop(m, m->lru_head);
            m->expired++;
        }
    }
    pthread_mutex_unlock(&m->mu);
}

size_t nld_metrics_series(nld_metrics_t *m)
{
    pthread_mutex_lock(&m->mu);
    size_t n = m->nseries;
    pthread_mutex_unlock(&m->mu);
    return n;
}

size_t nld_metrics_label_bytes(nld_metrics_t *m)
{
    pthread_mutex_lock(&m->mu);
    size_t n = m->lbytes;
    pthread_mutex_unlock(&m->mu);
    return n;
}
