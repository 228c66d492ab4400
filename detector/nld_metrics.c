/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics.c — the metrics store (nld_metrics.h): entries by label set in one LRU order,
 * fed from summary lines and the engine's hooks; idle expiry; the series bound; the
 * activities' duration buckets. Rendering is in nld_metrics_fmt.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_line.h"
#include "nl_utf8.h"
#include "nld_metrics_int.h"

#define LABELS_MAX 4096 /* longest label text of one entry; longer ones are refused */

/* Edges within a power of two, as the top 5 bits of its mantissa plus 32 (so 32 is the power
 * of two itself): the nearest to a geometric series each count of edges allows. */
static const uint8_t edges1[] = {32}, edges2[] = {32, 45}, edges4[] = {32, 38, 45, 54},
                     edges8[] = {32, 35, 38, 41, 45, 49, 54, 59},
                     edges16[] = {32, 33, 35, 36, 38, 40, 41, 43, 45, 47, 49, 52, 54, 56, 59, 61};

static const uint8_t *edges_of(int per)
{
    switch (per) {
    case 1: return edges1;
    case 2: return edges2;
    case 4: return edges4;
    case 8: return edges8;
    case 16: return edges16;
    default: return NULL; /* 32: every one, 32 + j */
    }
}

static unsigned edge_mant(int per, int j)
{
    const uint8_t *e = edges_of(per);
    return e ? e[j] : 32u + (unsigned)j;
}

double nld_metrics_width(int per)
{
    if (per != 1 && per != 2 && per != 4 && per != 8 && per != 16 && per != 32) return 0;
    double w = 0;
    for (int j = 0; j < per; j++) {
        double a = edge_mant(per, j), b = j + 1 < per ? edge_mant(per, j + 1) : 64;
        if ((b - a) / a > w) w = (b - a) / a;
    }
    return w;
}

double nldm__edge(int per, int32_t g)
{
    uint64_t k = (uint64_t)(g / per) << 5 | (edge_mant(per, g % per) - 32u);
    uint64_t bits = k << 47;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* The grid edge at or below ll5 bucket k (k >= 32: not the zero bucket). */
static int32_t grid_of(int per, uint32_t k)
{
    unsigned mant = 32 + (k & 31);
    int j = per - 1;
    while (j > 0 && edge_mant(per, j) > mant) j--;
    return (int32_t)(k >> 5) * per + j;
}

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
    m->now = INT64_MIN;
    pthread_mutex_init(&m->mu, NULL);
    nl__map_init(&m->ents, 0x6d65747269637301ULL);
    nl__map_init(&m->acts, 0x6d65747269637302ULL);
    const char *k = o->keys ? o->keys : "host";
    while (*k) {
        size_t n = strcspn(k, ",");
        if (!n || n > NL_NAME_MAX || m->nkeys == NLD_KEYS_MAX) {
            snprintf(err, errlen, "metrics keys: at most %d field names of 1 to %d bytes, "
                     "comma-separated", NLD_KEYS_MAX, NL_NAME_MAX);
            nld_metrics_free(m);
            return NULL;
        }
        if (!(m->keys[m->nkeys] = strndup(k, n))) goto oom;
        m->nkeys++;
        k += n + (k[n] == ',');
    }
    return m;
oom:
    snprintf(err, errlen, "out of memory");
    nld_metrics_free(m);
    return NULL;
}

static void lru_unlink(nld_metrics_t *m, nldm_ent_t *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        m->lru_head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        m->lru_tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_append(nld_metrics_t *m, nldm_ent_t *e)
{
    e->prev = m->lru_tail;
    if (m->lru_tail)
        m->lru_tail->next = e;
    else
        m->lru_head = e;
    m->lru_tail = e;
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
    lru_unlink(m, e);
    m->nseries -= e->nseries;
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

/* A label name from a field name: characters outside [A-Za-z0-9_] become '_', a leading
 * digit gets a '_' before it, and a name that is one of ours, or starts with "__"
 * (Prometheus' own), gets "key_" before it. */
static void put_label_name(nl_buf_t *b, const char *s, size_t n, int own)
{
    if (own) return nl__put(b, s, n);
    static const char *const ours[] = {"activity", "stream", "algo", "alertname", "le",
                                       "reason", "quantile"};
    int pre = n >= 2 && s[0] == '_' && s[1] == '_';
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if (strlen(ours[i]) == n && !memcmp(ours[i], s, n)) pre = 1;
    if (pre) nl__put(b, "key_", 4);
    if (!pre && n && s[0] >= '0' && s[0] <= '9') nl__putc(b, '_');
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        nl__putc(b, ok ? c : '_');
    }
}

/* name="value": the value escaped as the exposition formats ask (\\, \", \n), and bytes
 * that are not UTF-8 replaced by U+FFFD (both formats are UTF-8). `own`: one of our label
 * names, taken as it is; else a field's name, made a label name. */
static void put_label_as(nl_buf_t *b, const char *name, size_t nlen, const char *v, size_t vlen,
                         int own)
{
    if (b->len > 1) nl__putc(b, ','); /* after the kind byte (labels_begin) */
    put_label_name(b, name, nlen, own);
    nl__put(b, "=\"", 2);
    for (size_t i = 0; i < vlen;) {
        unsigned char c = (unsigned char)v[i];
        if (c >= 0x80) {
            size_t l = nl__utf8_len((const unsigned char *)v + i, vlen - i);
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

/* A key field's label. */
static void put_label(nl_buf_t *b, const char *name, size_t nlen, const char *v, size_t vlen)
{
    put_label_as(b, name, nlen, v, vlen, 0);
}

/* One of our own labels (activity, stream, algo, alertname). */
static void put_label_z(nl_buf_t *b, const char *name, const char *v, size_t vlen)
{
    put_label_as(b, name, strlen(name), v, vlen, 1);
}

/* ---- entries ----------------------------------------------------------------------------- */

static size_t series_of(int kind, const nldm_act_t *a)
{
    switch (kind) {
    case NLDM_ACT: /* the edges' buckets (nb + 1 of them), +Inf, count, sum, value, open */
        return (a && a->nb ? a->nb + 1 : 0) + 5;
    case NLDM_STREAM: return 3;
    case NLDM_MISSING: return 2;
    default: return 1;
    }
}

/* The entry of (kind, labels in b), made if new and the bound allows; NULL otherwise
 * (counted). Touched at event time `now`. Called with the mutex held. */
static nldm_ent_t *entry(nld_metrics_t *m, int kind, nl_buf_t *b, nldm_act_t *a, int64_t now)
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
            lru_unlink(m, e);
            lru_append(m, e);
            e->last = now;
        }
        return e;
    }
    size_t ns = series_of(kind, a);
    if (m->nseries + ns > m->o.max_series) {
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
    lru_append(m, e);
    return e;
}

/* Start an entry's map key: its kind byte, then the labels put_label appends. */
static void labels_begin(nl_buf_t *b, char *st, size_t cap, int kind)
{
    nl_buf_init(b, st, cap);
    b->limit = LABELS_MAX;
    nl__putc(b, (char)kind);
}

/* ---- activities' buckets ------------------------------------------------------------------- */

static nldm_act_t *activity(nld_metrics_t *m, const char *name, size_t len)
{
    nldm_act_t *a = nl__map_get(&m->acts, name, len);
    if (a) return a;
    if (!(a = calloc(1, sizeof *a))) return NULL;
    if (!nl__map_put(&m->acts, name, len, a)) {
        free(a);
        return NULL;
    }
    return a;
}

/* Widen an activity's buckets to hold grid edges [gmin, gmax] (see nld_metrics.h): every
 * entry of it gets the new layout, its counts kept in their buckets. Once at
 * NLD_METRICS_OCTAVES_MAX the layout is frozen, so that "below the lowest edge" only ever
 * holds values that are below it for good. 0, or -1 out of memory (nothing changed). */
static int act_cover(nld_metrics_t *m, nldm_act_t *a, int32_t gmin, int32_t gmax)
{
    int per = m->o.per_octave;
    int32_t cap = NLD_METRICS_OCTAVES_MAX * per, olo = a->glo, ohi = a->glo + (int32_t)a->nb;
    if (a->frozen || (a->nb && gmin >= olo && gmax < ohi)) return 0;
    int32_t lo, hi;
    if (!a->nb) {
        lo = (gmin / per - NLD_METRICS_PAD_BELOW) * per;
        hi = (gmax / per + 1 + NLD_METRICS_PAD_ABOVE) * per;
    } else {
        lo = gmin < olo ? (gmin / per - 1) * per : olo;
        hi = gmax >= ohi ? (gmax / per + 2) * per : ohi;
    }
    if (lo < per) lo = per;               /* the smallest normal double */
    if (hi > 2047 * per) hi = 2047 * per; /* past the largest finite one */
    int frozen = 0;
    if (hi - lo >= cap) {
        frozen = 1;
        if (!a->nb) {
            hi = lo + cap;
        } else { /* keep the old buckets; widen up first (the tail), then down */
            if (hi > olo + cap) hi = olo + cap;
            if (lo < hi - cap) lo = hi - cap;
        }
    }
    uint32_t nb = (uint32_t)(hi - lo), shift = a->nb ? (uint32_t)(olo - lo) : 0;
    size_t n = 0;
    for (nldm_ent_t *e = a->ents; e; e = e->a_next) n++;
    uint64_t **c = calloc(n ? n : 1, sizeof *c);
    for (size_t i = 0; c && i < n; i++)
        if (!(c[i] = calloc(nb, sizeof **c))) {
            while (i) free(c[--i]);
            free(c);
            c = NULL;
        }
    if (!c) return -1;
    size_t i = 0;
    for (nldm_ent_t *e = a->ents; e; e = e->a_next, i++) {
        if (e->u.a.cnt) memcpy(c[i] + shift, e->u.a.cnt, a->nb * sizeof **c);
        free(e->u.a.cnt);
        e->u.a.cnt = c[i];
        size_t more = nb + 1 - (a->nb ? a->nb + 1 : 0);
        e->nseries += more;
        m->nseries += more;
    }
    free(c);
    a->glo = lo;
    a->nb = nb;
    a->frozen = frozen;
    return 0;
}

/* ---- the engine's hooks ------------------------------------------------------------------- */

/* A summary field as a number: 0 with *x, 1 if absent, -1 if not a finite number. */
static int field_num(const nl_rec_t *r, const char *name, double *x)
{
    const nl_field_t *f = nl_rec_get(r, name);
    if (!f) return 1;
    return nl_field_double(f, x) || !isfinite(*x) ? -1 : 0;
}

/* Add the parsed histogram m->h to entry e's buckets (widening its activity's first). */
static void add_hist(nld_metrics_t *m, nldm_ent_t *e)
{
    nl_hist_t *h = &m->h;
    nldm_act_t *a = e->u.a.act;
    int per = m->o.per_octave;
    uint32_t kmin = UINT32_MAX, kmax = 0;
    for (uint32_t i = 0; i < h->cap; i++)
        if (h->cnt[i]) {
            if (kmin == UINT32_MAX) kmin = (uint32_t)h->lo + i;
            kmax = (uint32_t)h->lo + i;
        }
    if (kmin != UINT32_MAX && act_cover(m, a, grid_of(per, kmin), grid_of(per, kmax))) {
        m->oom++; /* the values stay in +Inf only: true, if coarse */
        return;
    }
    e->u.a.below += h->zero;
    for (uint32_t i = 0; i < h->cap; i++) {
        if (!h->cnt[i]) continue;
        int32_t g = grid_of(per, (uint32_t)h->lo + i) - a->glo;
        if (g < 0)
            e->u.a.below += h->cnt[i];
        else if (g < (int32_t)a->nb)
            e->u.a.cnt[g] += h->cnt[i];
        /* above the highest edge (frozen layout): in +Inf only */
    }
}

void nld_metrics_event(void *mv, const nl_rec_t *r, int64_t now)
{
    nld_metrics_t *m = mv;
    const nl_field_t *ev = &r->f[r->i_event];
    size_t alen;
    if (nl__event_kind(ev->value, ev->value_len, &alen) != NL_KIND_SUMMARY) return;
    double n, dsum = 0, vsum = NAN, open = NAN;
    int rn = field_num(r, "n", &n), rd = field_num(r, NL_SF_NAME(DUR_SUM), &dsum);
    int rv = field_num(r, NL_SF_NAME(V_SUM), &vsum), ro = field_num(r, NL_SF_NAME(OPEN), &open);
    const nl_field_t *hf = nl_rec_get(r, "dur.h");
    pthread_mutex_lock(&m->mu);
    if (rn || n < 0 || n != floor(n) || n > 9007199254740992.0 || rd < 0 || dsum < 0 || rv < 0 ||
        ro < 0) {
        m->bad_summary++; /* not a summary nlkit wrote: nothing of it is counted */
        goto out;
    }
    int hist_ok = 0;
    if (hf) {
        nl__hist_clear(&m->h);
        hist_ok = !nl__hist_parse(&m->h, hf->value, hf->value_len) && m->h.n == (uint64_t)n;
        if (!hist_ok) m->bad_summary++; /* its pairs still count, in +Inf */
    }
    nldm_act_t *a = activity(m, ev->value, alen);
    if (!a) {
        m->oom++;
        goto out;
    }
    char st[512];
    nl_buf_t b;
    labels_begin(&b, st, sizeof st, NLDM_ACT);
    put_label_z(&b, "activity", ev->value, alen);
    for (int i = 0; i < m->nkeys; i++) {
        const nl_field_t *f = nl_rec_get(r, m->keys[i]);
        put_label(&b, m->keys[i], strlen(m->keys[i]), f ? f->value : "", f ? f->value_len : 0);
    }
    nldm_ent_t *e = entry(m, NLDM_ACT, &b, a, now);
    nl_buf_free(&b);
    if (!e) goto out;
    e->u.a.n += (uint64_t)n;
    e->u.a.dur_sum += dsum;
    if (!rv) e->u.a.v_sum += vsum;
    if (!ro) e->u.a.open = open;
    if (hist_ok) add_hist(m, e);
out:
    pthread_mutex_unlock(&m->mu);
}

/* The labels of a stream slot: stream, algo, then the key fields. */
static nldm_ent_t *stream_entry(nld_metrics_t *m, const char *stream, const char *algo,
                                const nl_rec_t *kr, const nld_sel_t *sel, int64_t now)
{
    char st[512];
    nl_buf_t b;
    labels_begin(&b, st, sizeof st, NLDM_STREAM);
    put_label_z(&b, "stream", stream, strlen(stream));
    put_label_z(&b, "algo", algo, strlen(algo));
    if (sel) {
        for (int i = 0; i < sel->nkeys; i++) {
            const nl_field_t *f = nl_rec_get(kr, sel->keys[i]);
            put_label(&b, sel->keys[i], strlen(sel->keys[i]), f ? f->value : "",
                      f ? f->value_len : 0);
        }
    } else { /* a report line: its key.F fields */
        for (int i = 0; i < kr->n; i++)
            if (kr->f[i].name_len > 4 && !memcmp(kr->f[i].name, "key.", 4))
                put_label(&b, kr->f[i].name + 4, kr->f[i].name_len - 4, kr->f[i].value,
                          kr->f[i].value_len);
    }
    nldm_ent_t *e = entry(m, NLDM_STREAM, &b, NULL, now);
    nl_buf_free(&b);
    return e;
}

void nld_metrics_value(void *mv, const nld_value_t *v)
{
    nld_metrics_t *m = mv;
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < v->n; i++) {
        nldm_ent_t *e = stream_entry(m, v->stream, v->algo[i], v->rec, v->sel, v->now);
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
        m->bad_summary++; /* the engine's own line: cannot happen, but counted if it does */
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
        labels_begin(&b, st, sizeof st, NLDM_STREAM);
        put_label_z(&b, "stream", s1, l1);
        put_label_z(&b, "algo", s2, l2);
        for (int i = 0; i < r->n; i++)
            if (r->f[i].name_len > 4 && !memcmp(r->f[i].name, "key.", 4))
                put_label(&b, r->f[i].name + 4, r->f[i].name_len - 4, r->f[i].value,
                          r->f[i].value_len);
        if ((e = entry(m, NLDM_STREAM, &b, NULL, t))) {
            e->u.s.active = start;
            if (start) e->u.s.episodes++;
        }
        break;
    case NLD_R_MISSING:
        s1 = rfield(r, "activity", &l1);
        labels_begin(&b, st, sizeof st, NLDM_MISSING);
        put_label_z(&b, "activity", s1, l1);
        if ((e = entry(m, NLDM_MISSING, &b, NULL, t))) {
            if (start)
                e->u.m.missing++;
            else
                e->u.m.late++;
        }
        break;
    default:
        s1 = rfield(r, "name", &l1);
        labels_begin(&b, st, sizeof st, NLDM_ALERT);
        put_label_z(&b, "alertname", s1, l1);
        for (int i = 0; i < r->n; i++)
            if (r->f[i].name_len > 4 && !memcmp(r->f[i].name, "key.", 4))
                put_label(&b, r->f[i].name + 4, r->f[i].name_len - 4, r->f[i].value,
                          r->f[i].value_len);
        if ((e = entry(m, NLDM_ALERT, &b, NULL, t))) e->u.w.firing = start;
        break;
    }
    nl_buf_free(&b);
out:
    pthread_mutex_unlock(&m->mu);
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
