/* SPDX-License-Identifier: BSD-3-Clause */
/* nlp_run.c — the peer-comparison engine (see nlp.h): windows of summary lines per host,
 * judged against the host's peers when each window ends in event time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_map.h"
#include "nlp.h"
#include "nlp_score.h"

#define A_MAX NLP_ACT_MAX /* more are counted and left out */
#define M_MAX 3           /* metrics: dur.sum, n, v.sum */
#define DIM (A_MAX * M_MAX)
#define SLOT_MAX 9 /* windows open at once: win / shift <= 8 */
#define HOST_MAX NLP_HOST_MAX
#define DIAG_MAX 20

typedef struct group group_t;

typedef struct host {
    const char *name; /* the map's copy of "group\0host", past the group */
    group_t *g;
    double last; /* ts of its last event, seconds */
    int64_t wid[SLOT_MAX];
    double *acc;   /* [slot][DIM] sums of the current windows */
    uint32_t hist; /* anomalous in recent windows, newest lowest */
    int faulty, failstop;
    uint64_t judged, anomalous;
    double max_score;
    int64_t faulty_since, failstop_last; /* usec, 0: never */
    uint32_t culprit_n[A_MAX];
} host_t;

struct group {
    const char *name;
    host_t **h;
    size_t nh, caph;
    double *refs; /* nref known-good profiles of DIM */
    size_t nref, capref;
};

struct nlp {
    nlp_opts_t o;
    nl_log_t *out;
    int phase, nslot;
    nl__map_t acts, hosts, groups;
    const char *act_name[A_MAX];
    int nacts;
    group_t **gl;
    size_t ng;
    host_t **hl;
    size_t nh;
    int have_t0;
    double t0, now;
    int64_t next_close;
    double threshold, train_max;
    nlp_counts_t n;
    nl_rec_t rec;
    int diag_left;
    char store[1024];
    nl_buf_t b;
    /* scratch for judging one group's window */
    double *prof, *dist, *val, *score, *med;
    int *nb, *nb_ref;
    size_t scratch_n;
};

void nlp_opts_default(nlp_opts_t *o)
{
    *o = (nlp_opts_t){.win = 60,
                      .shift = 30,
                      .metrics = NLP_M_DUR,
                      .dist = NLP_MANHATTAN,
                      .rule = NLP_RULE_KTH,
                      .k_faulty = 3,
                      .auto_factor = 5,
                      .auto_floor = 0.05,
                      .skew = 10,
                      .host_field = "host",
                      .group_field = "prog"};
}

nlp_t *nlp_new(const nlp_opts_t *o, nl_log_t *out, char *err, size_t errlen)
{
    const char *why = NULL;
    if (!(o->shift > 0) || !(o->win >= o->shift) || o->win / o->shift > SLOT_MAX - 1)
        why = "the window must be at least its shift and at most 8 shifts long";
    else if (!(o->metrics & (NLP_M_DUR | NLP_M_N | NLP_M_V)))
        why = "no metric chosen (dur, n, v)";
    else if (o->k_faulty < 1 || o->k_faulty > 16)
        why = "k must be between 1 and 16";
    else if (!(o->threshold >= 0) || !(o->auto_factor > 0) || !(o->auto_floor >= 0) ||
             !(o->skew >= 0))
        why = "thresholds and the skew must be positive numbers";
    if (why) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    nlp_t *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->o = *o;
    p->out = out;
    p->nslot = (int)ceil(o->win / o->shift - 1e-9) + 1;
    p->threshold = o->threshold;
    p->diag_left = DIAG_MAX;
    nl__map_init(&p->acts, 0x5eed1);
    nl__map_init(&p->hosts, 0x5eed2);
    nl__map_init(&p->groups, 0x5eed3);
    nl_rec_init(&p->rec);
    nl_buf_init(&p->b, p->store, sizeof p->store);
    return p;
}

static void free_hosts(nlp_t *p)
{
    for (size_t i = 0; i < p->nh; i++) {
        free(p->hl[i]->acc);
        free(p->hl[i]);
    }
    free(p->hl);
    p->hl = NULL;
    p->nh = 0;
    nl__map_free(&p->hosts);
    nl__map_init(&p->hosts, 0x5eed2);
    for (size_t i = 0; i < p->ng; i++) p->gl[i]->nh = 0;
}

void nlp_begin_phase(nlp_t *p, int phase)
{
    free_hosts(p);
    p->phase = phase;
    p->have_t0 = 0;
    p->now = -INFINITY;
    p->next_close = 0;
    if (phase == NLP_TRAIN) p->train_max = 0;
}

static group_t *get_group(nlp_t *p, const char *name, size_t len)
{
    group_t *g = nl__map_get(&p->groups, name, len);
    if (g) return g;
    group_t **gl = realloc(p->gl, (p->ng + 1) * sizeof *gl);
    if (!gl || !(g = calloc(1, sizeof *g))) return NULL;
    p->gl = gl;
    nl__ment_t *e = nl__map_put(&p->groups, name, len, g);
    if (!e) {
        free(g);
        return NULL;
    }
    g->name = e->key;
    p->gl[p->ng++] = g;
    return g;
}

static host_t *get_host(nlp_t *p, const nl_field_t *gf, const nl_field_t *hf)
{
    char key[2 * NL_LINE_MAX / 64];
    size_t gl = gf ? gf->value_len : 0, hl = hf->value_len;
    if (gl + hl + 1 > sizeof key) return NULL;
    if (gl) memcpy(key, gf->value, gl);
    key[gl] = '\0';
    memcpy(key + gl + 1, hf->value, hl);
    host_t *h = nl__map_get(&p->hosts, key, gl + 1 + hl);
    if (h) return h;
    if (p->nh >= HOST_MAX) {
        p->n.host_overflow++;
        return NULL;
    }
    group_t *g = get_group(p, key, gl);
    if (!g) return NULL;
    host_t **hl2 = realloc(p->hl, (p->nh + 1) * sizeof *hl2);
    if (!hl2) return NULL;
    p->hl = hl2;
    if (g->nh == g->caph) {
        size_t c = g->caph ? g->caph * 2 : 16;
        host_t **gh = realloc(g->h, c * sizeof *gh);
        if (!gh) return NULL;
        g->h = gh;
        g->caph = c;
    }
    h = calloc(1, sizeof *h);
    double *acc = calloc((size_t)p->nslot * DIM, sizeof *acc);
    nl__ment_t *e = h && acc ? nl__map_put(&p->hosts, key, gl + 1 + hl, h) : NULL;
    if (!e) {
        free(h);
        free(acc);
        return NULL;
    }
    h->name = e->key + gl + 1;
    h->g = g;
    h->acc = acc;
    h->last = -INFINITY;
    for (int s = 0; s < SLOT_MAX; s++) h->wid[s] = -1;
    p->hl[p->nh++] = h;
    g->h[g->nh++] = h;
    return h;
}

static int act_index(nlp_t *p, const char *name, size_t len)
{
    void *v = nl__map_get(&p->acts, name, len);
    if (v) return (int)(intptr_t)v - 1;
    if (p->nacts >= A_MAX) return -1;
    nl__ment_t *e = nl__map_put(&p->acts, name, len, (void *)(intptr_t)(p->nacts + 1));
    if (!e) return -1;
    p->act_name[p->nacts] = e->key;
    return p->nacts++;
}

/* ---- output ---- */

static void out_begin(nlp_t *p, double ts, const char *event, const host_t *h)
{
    nl_buf_reset(&p->b);
    nl_enc_begin(&p->b, llround(ts * 1e6), event, NL_LVL_WARN, NULL);
    if (h->g->name[0]) nl_enc_str(&p->b, p->o.group_field, h->g->name, strlen(h->g->name));
    nl_enc_str(&p->b, p->o.host_field, h->name, strlen(h->name));
}

static void out_end(nlp_t *p, int level)
{
    if (!p->out) return;
    if (nl_enc_end(&p->b) || nl_write_line(p->out, level, p->b.p, p->b.len)) p->n.out_errors++;
}

/* "disk.write", or "disk.write/n" for a metric other than time. */
static void comp_name(const nlp_t *p, int c, char *out, size_t cap)
{
    static const char *const suffix[M_MAX] = {"", "/n", "/v"};
    snprintf(out, cap, "%s%s", p->act_name[c % A_MAX], suffix[c / A_MAX]);
}

/* ---- judging a window ---- */

static int scratch(nlp_t *p, size_t n)
{
    if (n <= p->scratch_n) return 0;
    double *prof = realloc(p->prof, n * DIM * sizeof *prof);
    if (prof) p->prof = prof;
    double *dist = realloc(p->dist, n * n * sizeof *dist);
    if (dist) p->dist = dist;
    double *val = realloc(p->val, n * sizeof *val), *score = realloc(p->score, n * sizeof *score),
           *med = realloc(p->med, n * sizeof *med);
    if (val) p->val = val;
    if (score) p->score = score;
    if (med) p->med = med;
    int *nb = realloc(p->nb, n * sizeof *nb), *nbr = realloc(p->nb_ref, n * sizeof *nbr);
    if (nb) p->nb = nb;
    if (nbr) p->nb_ref = nbr;
    if (!prof || !dist || !val || !score || !med || !nb || !nbr) return -1;
    p->scratch_n = n;
    return 0;
}

/* Each metric's block of a profile becomes shares of that metric's total. */
static void profile_of(const nlp_t *p, const double *acc, double *out)
{
    memcpy(out, acc, DIM * sizeof *out);
    for (int m = 0; m < M_MAX; m++) {
        if (p->o.metrics & (1 << m))
            nlp_normalize(out + m * A_MAX, A_MAX);
        else
            memset(out + m * A_MAX, 0, A_MAX * sizeof *out);
    }
}

static void add_refs(group_t *g, const double *prof, size_t n, nlp_counts_t *c)
{
    if (g->nref + n > g->capref) {
        size_t cap = g->capref ? g->capref : 64;
        while (cap < g->nref + n) cap *= 2;
        double *r = realloc(g->refs, cap * DIM * sizeof *r);
        if (!r) return;
        g->refs = r;
        g->capref = cap;
    }
    memcpy(g->refs + g->nref * DIM, prof, n * DIM * sizeof *prof);
    g->nref += n;
    c->refs += n;
}

static void verdicts(nlp_t *p, host_t *h, int anomalous, double wstart, double wend, int culprit)
{
    h->hist = h->hist << 1 | (uint32_t)anomalous;
    uint32_t mask = (1u << (2 * p->o.k_faulty - 1)) - 1;
    if (!h->faulty && nlp_k_of_window(h->hist, p->o.k_faulty)) {
        h->faulty = 1;
        p->n.faulty++;
        /* since: the start of the oldest window of the k that made the verdict */
        int back = 0;
        for (int i = 0, seen = 0; i < 2 * p->o.k_faulty - 1 && seen < p->o.k_faulty; i++)
            if (h->hist >> i & 1) seen++, back = i;
        double since = wstart - back * p->o.shift;
        if (!h->faulty_since) h->faulty_since = llround(since * 1e6);
        out_begin(p, wend, "nl.peer.faulty", h);
        nl_enc_ts(&p->b, "since", llround(since * 1e6));
        if (culprit >= 0) {
            char cn[160];
            comp_name(p, culprit, cn, sizeof cn);
            nl_enc_str(&p->b, "culprit", cn, strlen(cn));
        }
        nl_enc_i64(&p->b, "k", p->o.k_faulty);
        out_end(p, NL_LVL_WARN);
    } else if (h->faulty && !(h->hist & mask)) {
        h->faulty = 0; /* recovered: a later fault is reported again */
    }
}

static void judge_group(nlp_t *p, group_t *g, int64_t w, int slot)
{
    double wstart = p->t0 + (double)w * p->o.shift, wend = wstart + p->o.win;
    host_t *in[HOST_MAX];
    size_t n = 0;
    for (size_t i = 0; i < g->nh; i++) {
        if (g->h[i]->wid[slot] == w)
            in[n++] = g->h[i];
        else if (p->phase == NLP_WATCH)
            g->h[i]->hist <<= 1; /* silent in this window: not anomalous by behaviour */
    }
    if (n < 2 || scratch(p, n)) return;
    for (size_t i = 0; i < n; i++)
        profile_of(p, in[i]->acc + (size_t)slot * DIM, p->prof + i * DIM);
    if (p->phase == NLP_REFERENCE) {
        add_refs(g, p->prof, n, &p->n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            p->dist[i * n + j] =
                i == j ? 0 : nlp_distance(p->prof + i * DIM, p->prof + j * DIM, DIM, p->o.dist);
    size_t k = p->o.k_peer ? p->o.k_peer : nlp_default_k(n);
    for (size_t i = 0; i < n; i++) {
        p->score[i] = nlp_kth_nearest(p->dist + i * n, n, i, k, &p->nb[i]);
        p->med[i] = nlp_median_other(p->dist + i * n, n, i);
        p->nb_ref[i] = -1;
        for (size_t r = 0; r < g->nref; r++) { /* a known-good profile like this one */
            double d = nlp_distance(p->prof + i * DIM, g->refs + r * DIM, DIM, p->o.dist);
            if (d < p->score[i]) {
                p->score[i] = d;
                p->nb_ref[i] = (int)r;
            }
        }
        p->val[i] = p->o.rule == NLP_RULE_MEDIAN ? p->med[i] : p->score[i];
    }
    if (p->phase == NLP_TRAIN) {
        for (size_t i = 0; i < n; i++)
            if (p->val[i] > p->train_max) p->train_max = p->val[i];
        return;
    }
    double thr = p->threshold;
    if (!(thr > 0)) { /* automatic: well above what this window's hosts typically show */
        double med = nlp_median(p->val, n);
        thr = fmax(p->o.auto_floor, p->o.auto_factor * med);
    }
    for (size_t i = 0; i < n; i++) {
        host_t *h = in[i];
        int rank = 1;
        for (size_t j = 0; j < n; j++)
            rank += p->val[j] > p->val[i] || (p->val[j] == p->val[i] && j < i);
        const double *other = p->nb_ref[i] >= 0 ? g->refs + (size_t)p->nb_ref[i] * DIM
                              : p->nb[i] >= 0   ? p->prof + (size_t)p->nb[i] * DIM
                                                : NULL;
        double diff = 0;
        int c = other ? nlp_culprit(p->prof + i * DIM, other, DIM, &diff) : -1;
        int anomalous = p->val[i] > thr;
        h->judged++;
        if (p->score[i] > h->max_score) h->max_score = p->score[i];
        if (anomalous) {
            h->anomalous++;
            if (c >= 0) h->culprit_n[c % A_MAX]++;
        }
        if (anomalous || p->o.all) {
            p->n.suspects += anomalous;
            out_begin(p, wend, "nl.peer.suspect", h);
            nl_enc_ts(&p->b, "window.start", llround(wstart * 1e6));
            nl_enc_dbl(&p->b, "score", p->score[i]);
            nl_enc_dbl(&p->b, "median", p->med[i]);
            nl_enc_dbl(&p->b, "threshold", thr);
            nl_enc_i64(&p->b, "rank", rank);
            nl_enc_u64(&p->b, "of", n);
            if (c >= 0) {
                char cn[160];
                comp_name(p, c, cn, sizeof cn);
                nl_enc_str(&p->b, "culprit", cn, strlen(cn));
                nl_enc_dbl(&p->b, "culprit.diff", diff);
            }
            const char *nbn = p->nb_ref[i] >= 0 ? "known-good"
                              : p->nb[i] >= 0   ? in[p->nb[i]]->name
                                                : "";
            nl_enc_str(&p->b, "neighbour", nbn, strlen(nbn));
            nl_enc_i64(&p->b, "anomalous", anomalous);
            out_end(p, anomalous ? NL_LVL_WARN : NL_LVL_INFO);
        }
        verdicts(p, h, anomalous, wstart, wend, c);
    }
}

/* The host that stopped first, if it stands out from the others' last events. */
static void check_failstop(nlp_t *p, group_t *g, double now)
{
    if (p->phase != NLP_WATCH || g->nh < 3) return;
    double last[HOST_MAX];
    for (size_t i = 0; i < g->nh; i++) last[i] = g->h[i]->last;
    int e = nlp_failstop(last, g->nh, p->o.skew);
    if (e < 0 || g->h[e]->failstop) return;
    host_t *h = g->h[e];
    h->failstop = 1;
    h->failstop_last = llround(h->last * 1e6);
    p->n.failstop++;
    out_begin(p, now, "nl.peer.failstop", h);
    nl_enc_ts(&p->b, "last.ts", h->failstop_last);
    nl_enc_dbl(&p->b, "silent", round((now - h->last) * 1e6) / 1e6);
    out_end(p, NL_LVL_WARN);
}

static void close_window(nlp_t *p, int64_t w)
{
    int slot = (int)(w % p->nslot);
    int any = 0;
    for (size_t i = 0; i < p->nh && !any; i++) any = p->hl[i]->wid[slot] == w;
    if (!any) return;
    p->n.windows++;
    double wend = p->t0 + (double)w * p->o.shift + p->o.win;
    for (size_t gi = 0; gi < p->ng; gi++) {
        judge_group(p, p->gl[gi], w, slot);
        check_failstop(p, p->gl[gi], wend);
    }
}

static void close_ready(nlp_t *p)
{
    while (p->have_t0 && p->t0 + (double)p->next_close * p->o.shift + p->o.win <= p->now)
        close_window(p, p->next_close++);
}

/* ---- input ---- */

static int field_num(const nl_rec_t *r, const char *name, double *x)
{
    const nl_field_t *f = nl_rec_get(r, name);
    return f && nl_field_double(f, x) == 0 && isfinite(*x) && *x >= 0;
}

int nlp_line(nlp_t *p, const char *line, size_t len, const char *src, long lineno, FILE *diag)
{
    p->n.lines++;
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
    if (i == len || line[i] == '#') return 0;
    nl_perr_t err;
    int rc = nl_parse(&p->rec, line, len, lineno, 0, &err);
    if (rc != 1) {
        p->n.bad++;
        if (p->diag_left > 0 && diag) {
            p->diag_left--;
            fprintf(diag, "nl-peers: %s:%ld:%d: %s\n", src, lineno, err.col, err.msg);
        }
        return rc < 0 ? rc : NL_EPARSE;
    }
    p->n.events++;
    const nl_rec_t *r = &p->rec;
    const nl_field_t *hf = nl_rec_get(r, p->o.host_field);
    if (!hf || !hf->value_len || r->ts_usec == 0) return 1;
    host_t *h = get_host(p, nl_rec_get(r, p->o.group_field), hf);
    if (!h) return 1;
    double t = (double)r->ts_usec / 1e6;
    if (t > h->last) {
        h->last = t;
        h->failstop = 0; /* heard from again */
    }
    if (!p->have_t0) {
        p->have_t0 = 1;
        p->t0 = floor(t / p->o.shift) * p->o.shift;
    }
    if (t > p->now) {
        p->now = t;
        close_ready(p);
    }
    const nl_field_t *ev = &r->f[r->i_event];
    size_t alen;
    if (nl__event_kind(ev->value, ev->value_len, &alen) != NL_KIND_SUMMARY) return 1;
    int a = act_index(p, ev->value, alen);
    if (a < 0) {
        p->n.act_overflow++;
        return 1;
    }
    double v[M_MAX] = {0};
    int have = field_num(r, NL_SF_NAME(DUR_SUM), &v[0]) | field_num(r, NL_SF_NAME(N), &v[1]) << 1 |
               field_num(r, NL_SF_NAME(V_SUM), &v[2]) << 2;
    if (!(have & p->o.metrics)) return 1;
    double rel = t - p->t0;
    int64_t hi = (int64_t)floor(rel / p->o.shift),
            lo = (int64_t)floor((rel - p->o.win) / p->o.shift) + 1;
    if (lo < p->next_close) lo = p->next_close;
    for (int64_t w = lo; w <= hi; w++) {
        int s = (int)(w % p->nslot);
        double *acc = h->acc + (size_t)s * DIM;
        if (h->wid[s] != w) {
            memset(acc, 0, DIM * sizeof *acc);
            h->wid[s] = w;
        }
        for (int m = 0; m < M_MAX; m++)
            if (have >> m & 1) acc[m * A_MAX + a] += v[m];
    }
    p->n.used++;
    return 1;
}

void nlp_end_phase(nlp_t *p)
{
    close_ready(p); /* complete windows only: a partial last window would skew profiles */
    if (p->phase == NLP_TRAIN && p->train_max > 0 && !(p->o.threshold > 0))
        p->threshold = 2 * p->train_max;
    if (p->have_t0)
        for (size_t gi = 0; gi < p->ng; gi++) check_failstop(p, p->gl[gi], p->now);
}

double nlp_threshold(const nlp_t *p) { return p->threshold; }

void nlp_counts(const nlp_t *p, nlp_counts_t *c) { *c = p->n; }

static int by_score(const void *a, const void *b)
{
    const host_t *x = *(host_t *const *)a, *y = *(host_t *const *)b;
    if (x->max_score != y->max_score) return x->max_score > y->max_score ? -1 : 1;
    return strcmp(x->name, y->name);
}

void nlp_table(const nlp_t *p, FILE *f)
{
    host_t **s = malloc((p->nh ? p->nh : 1) * sizeof *s);
    if (!s) return;
    memcpy(s, p->hl, p->nh * sizeof *s);
    qsort(s, p->nh, sizeof *s, by_score);
    fprintf(f, "%-4s %-16s %-16s %7s %9s %10s %-27s %-27s %s\n", "rank", "group", "host", "windows",
            "anomalous", "max.score", "faulty since", "fail-stop (last event)", "culprit");
    for (size_t i = 0; i < p->nh; i++) {
        const host_t *h = s[i];
        char fs[32] = "-", st[32] = "-";
        if (h->faulty_since) nl_ts_format(h->faulty_since, fs);
        if (h->failstop_last) nl_ts_format(h->failstop_last, st);
        int c = -1;
        for (int a = 0; a < p->nacts; a++)
            if (h->culprit_n[a] && (c < 0 || h->culprit_n[a] > h->culprit_n[c])) c = a;
        fprintf(f, "%-4zu %-16s %-16s %7llu %9llu %10.4f %-27s %-27s %s\n", i + 1,
                h->g->name[0] ? h->g->name : "-", h->name, (unsigned long long)h->judged,
                (unsigned long long)h->anomalous, h->max_score, fs, st,
                c >= 0 ? p->act_name[c] : "-");
    }
    free(s);
}

void nlp_free(nlp_t *p)
{
    if (!p) return;
    free_hosts(p);
    for (size_t i = 0; i < p->ng; i++) {
        free(p->gl[i]->h);
        free(p->gl[i]->refs);
        free(p->gl[i]);
    }
    free(p->gl);
    nl__map_free(&p->hosts);
    nl__map_free(&p->groups);
    nl__map_free(&p->acts);
    nl_rec_free(&p->rec);
    nl_buf_free(&p->b);
    free(p->prof);
    free(p->dist);
    free(p->val);
    free(p->score);
    free(p->med);
    free(p->nb);
    free(p->nb_ref);
    free(p);
}
