/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_join.c — events into flows: the engine's life cycle, the join keys (guid,
 * parent.guid, trace id), merging flows a later event shows to be one, and completing
 * flows when they fall idle in event time or the memory bound is reached. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_hash.h"
#include "nl_line.h"
#include "nl_list.h"
#include "nlf_int.h"

#define DIAG_MAX 10

void nlf_opts_default(nlf_opts_t *o)
{
    *o = (nlf_opts_t){.idle = 5,
                      .max_events = 1u << 18, /* the worst shape in ~250 MB: nl-flows(1) */
                      .max_flow_events = 65536,
                      .history = 128,
                      .k = 8,
                      .factor = 5,
                      .floor = 0.1,
                      .host_field = "host",
                      .top = 100,
                      .causes = 5};
}

nlf_t *nlf_new(const nlf_opts_t *o, nl_log_t *out, char *err, size_t errlen)
{
    const char *why = NULL;
    if (!(o->idle > 0) || !(o->idle < 1e9)) why = "--idle must be a positive number of seconds";
    else if (o->max_events < 1 || o->max_flow_events < 1) why = "event bounds must be at least 1";
    else if (o->k < 1 || o->history < 2 * o->k || o->history > 100000)
        why = "--history must be at least 2k and at most 100000, k at least 1";
    else if (!(o->threshold >= 0) || !(o->factor > 0) || !(o->floor >= 0))
        why = "thresholds must be positive numbers";
    else if (o->top > NLF_TOP_MAX) why = "--top is at most 10000";
    if (why) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    nlf_t *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->o = *o;
    f->out = out;
    f->phase = NLF_WATCH;
    f->dim = o->value_field ? 2 * NLF_SLOTS : NLF_SLOTS;
    f->diag_left = DIAG_MAX;
    nl__map_init(&f->keys, 0xf10e1);
    nl__map_init(&f->acts, 0xf10e2);
    nl__map_init(&f->hosts, 0xf10e3);
    nl__map_init(&f->paths, 0xf10e4);
    nl__map_init(&f->roots, 0xf10e5);
    nl_rec_init(&f->rec);
    nl_buf_init(&f->b, f->store, sizeof f->store);
    return f;
}

static void flow_free(nlf_flow_t *fl)
{
    free(fl->ev);
    free(fl->g);
    free(fl->keys);
    free(fl);
}

void nlf_free(nlf_t *f)
{
    if (!f) return;
    while (f->head) {
        nlf_flow_t *fl = f->head;
        f->head = fl->next;
        flow_free(fl);
    }
    for (size_t i = 0; i < f->keys.nb; i++)
        for (nl__ment_t *e = f->keys.b[i]; e; e = e->next) free(e->val);
    for (uint32_t i = 0; i < f->nroot; i++) {
        nlf_root_t *r = f->root[i];
        for (size_t w = 0; w < r->nwarm; w++) nlf__done_free(&r->warm[w]);
        free(r->warm);
        free(r->ring);
        free(r->ring_id);
        free(r->scores);
        nl__map_free(&r->slot_of);
        free(r);
    }
    free(f->root);
    nl__map_free(&f->keys);
    nl__map_free(&f->acts);
    nl__map_free(&f->hosts);
    nl__map_free(&f->paths);
    nl__map_free(&f->roots);
    free(f->act_name);
    free(f->host_name);
    free(f->path);
    free(f->top);
    free(f->dist);
    nl_rec_free(&f->rec);
    nl_buf_free(&f->b);
    free(f);
}

void nlf_counts(const nlf_t *f, nlf_counts_t *n) { *n = f->n; }

/* A name's number, interning it (names live as the map's key copies). NLF_NONE when out
 * of memory. */
uint32_t nlf__intern(nlf_t *f, nl__map_t *m, const char ***names, uint32_t *n, uint32_t *cap,
                     const char *s, size_t len)
{
    void *v = nl__map_get(m, s, len);
    if (v) return (uint32_t)((uintptr_t)v - 1);
    if (*n >= NLF_NAMES_MAX) {
        f->n.name_overflow++;
        return NLF_NONE;
    }
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        const char **nn = realloc(*names, c * sizeof *nn);
        if (!nn) return NLF_NONE;
        *names = nn;
        *cap = c;
    }
    nl__ment_t *e = nl__map_put(m, s, len, (void *)(uintptr_t)(*n + 1));
    if (!e) return NLF_NONE;
    (*names)[*n] = e->key;
    return (*n)++;
}

/* ---- keys ---- */

static nlf_key_t *key_get(nlf_t *f, char type, const char *s, size_t len)
{
    char k[NLF_ID_MAX + 2];
    k[0] = type;
    memcpy(k + 1, s, len);
    return nl__map_get(&f->keys, k, len + 1);
}

/* Bind a new key to a flow (the caller has checked it is absent). */
static nlf_key_t *key_add(nlf_t *f, nlf_flow_t *fl, char type, const char *s, size_t len,
                          uint32_t gi)
{
    char k[NLF_ID_MAX + 2];
    k[0] = type;
    memcpy(k + 1, s, len);
    nlf_key_t *key = calloc(1, sizeof *key);
    if (!key) return NULL;
    if (fl->nkeys == fl->capkeys) {
        uint32_t c = fl->capkeys ? fl->capkeys * 2 : 2; /* guid and trace id */
        nlf_key_t **nk = realloc(fl->keys, c * sizeof *nk);
        if (!nk) {
            free(key);
            return NULL;
        }
        fl->keys = nk;
        fl->capkeys = c;
    }
    nl__ment_t *e = nl__map_put(&f->keys, k, len + 1, key);
    if (!e) {
        free(key);
        return NULL;
    }
    key->f = fl;
    key->gi = gi;
    key->k = e->key;
    key->klen = len + 1;
    fl->keys[fl->nkeys++] = key;
    return key;
}

/* A key seen in two flows that carry different trace ids (a process-wide guid on a server
 * that serves many requests, a parent.guid every request shares): it no longer joins
 * anything. It stays in the map, shared, so later events do not bind it again. */
static void key_share(nlf_t *f, nlf_key_t *key)
{
    if (key->shared) return;
    nlf_flow_t *fl = key->f;
    for (uint32_t i = 0; i < fl->nkeys; i++)
        if (fl->keys[i] == key) {
            fl->keys[i] = fl->keys[--fl->nkeys];
            break;
        }
    if (key->k[0] == 'g') fl->g[key->gi].key = NULL, fl->nbare++;
    key->shared = 1;
    key->f = NULL;
    f->n.shared_keys++;
}

/* ---- flows ---- */

static nlf_flow_t *flow_new(nlf_t *f)
{
    nlf_flow_t *fl = calloc(1, sizeof *fl);
    if (!fl) return NULL;
    fl->first = INT64_MAX;
    fl->last = INT64_MIN;
    NL__DL_APPEND(f->head, f->tail, fl);
    f->n.flows++;
    return fl;
}

/* A guid's index in the flow, adding it (and binding its key unless shared). NLF_NONE
 * when out of memory. */
static uint32_t flow_guid(nlf_t *f, nlf_flow_t *fl, const char *s, size_t len, nlf_key_t *key)
{
    if (key && !key->shared && key->f == fl) return key->gi;
    for (uint32_t i = 0; fl->nbare && i < fl->ng; i++) /* a shared guid: by its text */
        if (!fl->g[i].key && strlen(fl->g[i].id) == len && !memcmp(fl->g[i].id, s, len))
            return i;
    if (fl->ng == fl->capg) {
        uint32_t c = fl->capg ? fl->capg * 2 : 1; /* most flows are small */
        nlf_g_t *ng = realloc(fl->g, c * sizeof *ng);
        if (!ng) return NLF_NONE;
        fl->g = ng;
        fl->capg = c;
    }
    nlf_g_t *g = &fl->g[fl->ng];
    memset(g, 0, sizeof *g);
    memcpy(g->id, s, len);
    g->id[len] = '\0';
    g->parent = NLF_NONE;
    if (!key) g->key = key_add(f, fl, 'g', s, len, fl->ng);
    if (!g->key) fl->nbare++;
    return fl->ng++;
}

/* Move everything of `from` into `into` (a later event showed they are one request) and
 * free `from`. Guid indices of `from` shift by into's count. */
static int flow_merge(nlf_t *f, nlf_flow_t *into, nlf_flow_t *from)
{
    uint32_t off = into->ng;
    if (into->capg < into->ng + from->ng) {
        nlf_g_t *ng = realloc(into->g, (into->ng + from->ng) * sizeof *ng);
        if (!ng) return -1;
        into->g = ng;
        into->capg = into->ng + from->ng;
    }
    if (into->capev < into->nev + from->nev) {
        nlf_ev_t *ne = realloc(into->ev, (into->nev + from->nev) * sizeof *ne);
        if (!ne) return -1;
        into->ev = ne;
        into->capev = into->nev + from->nev;
    }
    if (into->capkeys < into->nkeys + from->nkeys) {
        nlf_key_t **nk = realloc(into->keys, (into->nkeys + from->nkeys) * sizeof *nk);
        if (!nk) return -1;
        into->keys = nk;
        into->capkeys = into->nkeys + from->nkeys;
    }
    for (uint32_t i = 0; i < from->ng; i++) {
        nlf_g_t g = from->g[i];
        if (g.parent != NLF_NONE) g.parent += off;
        into->g[into->ng++] = g;
    }
    for (size_t i = 0; i < from->nev; i++) {
        nlf_ev_t e = from->ev[i];
        e.g += off;
        e.seq += into->seq;
        into->ev[into->nev++] = e;
    }
    into->seq += from->seq;
    into->nbare += from->nbare;
    for (uint32_t i = 0; i < from->nkeys; i++) {
        nlf_key_t *k = from->keys[i];
        k->f = into;
        if (k->k[0] == 'g') k->gi += off;
        into->keys[into->nkeys++] = k;
    }
    if (!into->trace[0]) memcpy(into->trace, from->trace, sizeof into->trace);
    if (from->first < into->first) into->first = from->first;
    if (from->last > into->last) into->last = from->last;
    if (from->touched > into->touched) into->touched = from->touched;
    NL__DL_UNLINK(f->head, f->tail, from);
    free(from->ev);
    free(from->g);
    free(from->keys);
    free(from);
    f->n.flows--;
    return 0;
}

/* Join flow b into a when a key links them, unless both carry trace ids (then the key is
 * shared, see key_share). Returns the flow the event goes on with. */
static nlf_flow_t *join(nlf_t *f, nlf_flow_t *a, nlf_flow_t *b, nlf_key_t *link)
{
    if (!b || b == a) return a;
    if (!a) return b;
    if (a->trace[0] && b->trace[0] && strcmp(a->trace, b->trace)) {
        key_share(f, link);
        return a;
    }
    /* keep the flow that has the trace id, else the larger: what is copied over a chain of
     * merges stays linear in its events */
    if ((b->trace[0] && !a->trace[0]) ||
        (!b->trace[0] == !a->trace[0] && b->nev + b->ng > a->nev + a->ng)) {
        nlf_flow_t *t = a;
        a = b;
        b = t;
    }
    if (flow_merge(f, a, b)) f->n.ambiguous++;
    return a;
}

static const nl_field_t *field(const nl_rec_t *rec, const char *name, size_t len)
{
    for (int i = 0; i < rec->n; i++)
        if (rec->f[i].name_len == len && !memcmp(rec->f[i].name, name, len)) return &rec->f[i];
    return NULL;
}

/* Up to 16 hex digits as a number (span ids); 0 when not hex. */
/* A span id field as a number (nl__tree_hex64); 0 for none. */
static uint64_t hex64(const nl_field_t *fd)
{
    return fd ? nl__tree_hex64(fd->value, fd->value_len) : 0;
}

static void diag(nlf_t *f, FILE *out, const char *where, long lineno, const char *why)
{
    if (!out || f->diag_left <= 0) return;
    fprintf(out, "nl-flows: %s:%ld: %s%s\n", where, lineno, why,
            --f->diag_left ? "" : " (no more of these are shown; --stats counts them)");
}

int nlf_parse(nlf_t *f, nl_rec_t *rec, const char *line, size_t len, const char *where,
              long lineno, FILE *d)
{
    f->n.lines++;
    nl_perr_t pe;
    int r = nl_parse(rec, line, len, lineno, NL_PARSE_STRICT, &pe);
    if (r >= 0) return r;
    f->n.bad++;
    char why[160];
    snprintf(why, sizeof why, "column %d: %s, line skipped", pe.col, pe.msg);
    diag(f, d, where, lineno, why);
    return 0;
}

void nlf_line(nlf_t *f, const char *line, size_t len, const char *where, long lineno, FILE *d)
{
    if (nlf_parse(f, &f->rec, line, len, where, lineno, d) == 1)
        nlf_event(f, &f->rec, where, lineno);
}

/* Complete flows idle for --idle seconds of event time, then the stalest while the held
 * events pass --max-events. */
static void expire(nlf_t *f)
{
    int64_t idle = (int64_t)llround(f->o.idle * 1e6);
    while (f->head && f->head->touched + idle < f->now) nlf__complete(f, f->head);
    while (f->head && f->held > f->o.max_events) {
        f->n.evicted++;
        nlf__complete(f, f->head);
    }
}

void nlf_event(nlf_t *f, const nl_rec_t *rec, const char *where, long lineno)
{
    (void)where;
    (void)lineno;
    f->n.events++;
    const nl_field_t *ev = &rec->f[rec->i_event];
    size_t alen;
    int kind = nl__event_kind(ev->value, ev->value_len, &alen);
    if (kind == NL_KIND_SUMMARY) { /* summaries fold many requests: no flow */
        f->n.summaries++;
        return;
    }
    if (nl__is_report_event(ev->value, ev->value_len)) { /* the tools' own reports */
        f->n.summaries++;
        return;
    }
    const nl_field_t *gf = rec->i_guid >= 0 ? &rec->f[rec->i_guid] : NULL;
    const nl_field_t *tf = field(rec, "trace.id", 8), *pf = field(rec, "parent.guid", 11);
    if (!gf || !gf->value_len || gf->value_len > NLF_ID_MAX ||
        (tf && (!tf->value_len || tf->value_len > NLF_ID_MAX)) ||
        (pf && (!pf->value_len || pf->value_len > NLF_ID_MAX))) {
        f->n.noguid++;
        return;
    }
    int64_t ts = rec->ts_usec;
    if (!f->have_now || ts > f->now) f->now = ts, f->have_now = 1;

    nlf_key_t *kt = tf ? key_get(f, 't', tf->value, tf->value_len) : NULL;
    nlf_key_t *kg = key_get(f, 'g', gf->value, gf->value_len);
    nlf_key_t *kp = pf ? key_get(f, 'g', pf->value, pf->value_len) : NULL;
    nlf_flow_t *fl = kt ? kt->f : NULL;
    if (kg && !kg->shared) fl = join(f, fl, kg->f, kg);
    if (kp && !kp->shared) fl = join(f, fl, kp->f, kp);
    if (fl && tf && !kt && fl->trace[0] &&
        !(strlen(fl->trace) == tf->value_len && !memcmp(fl->trace, tf->value, tf->value_len))) {
        /* the guid (or parent) joined a flow of another trace: it is shared */
        if (kg && kg->f == fl) key_share(f, kg);
        if (kp && kp->f == fl) key_share(f, kp);
        fl = NULL;
    }
    if (!fl && !tf && kg && kg->shared) { /* a shared guid alone says nothing */
        f->n.ambiguous++;
        return;
    }
    if (!fl && !(fl = flow_new(f))) {
        f->n.ambiguous++;
        return;
    }
    if (tf && !fl->trace[0]) {
        memcpy(fl->trace, tf->value, tf->value_len);
        fl->trace[tf->value_len] = '\0';
        if (!kt && !key_add(f, fl, 't', tf->value, tf->value_len, 0)) f->n.ambiguous++;
    }
    if (fl->nev >= f->o.max_flow_events) {
        f->n.dropped_flow_full++;
        return;
    }
    uint32_t gi = flow_guid(f, fl, gf->value, gf->value_len, kg);
    if (gi == NLF_NONE) {
        f->n.ambiguous++;
        return;
    }
    nlf_g_t *g = &fl->g[gi];
    /* a guid that names itself as its parent has none (kp, looked up before the guid's own
     * key was bound, would make it a second guid of that name) */
    int self = pf && pf->value_len == gf->value_len && !memcmp(pf->value, gf->value, gf->value_len);
    if (pf && !self && g->parent == NLF_NONE) {
        uint32_t pi = flow_guid(f, fl, pf->value, pf->value_len, kp);
        g = &fl->g[gi]; /* the array may have moved */
        if (pi != NLF_NONE && pi != gi) g->parent = pi;
    }
    if (!g->span) g->span = hex64(field(rec, "span.id", 7));
    if (!g->pspan) g->pspan = hex64(field(rec, "parent.span.id", 14));
    if (!g->host) {
        const nl_field_t *hf = field(rec, f->o.host_field, strlen(f->o.host_field));
        if (hf) {
            uint32_t h = nlf__intern(f, &f->hosts, &f->host_name, &f->nhost, &f->caphost,
                                     hf->value, hf->value_len);
            if (h != NLF_NONE) g->host = h + 1;
        }
    }
    uint32_t act = nlf__intern(f, &f->acts, &f->act_name, &f->nact, &f->capact, ev->value, alen);
    if (act == NLF_NONE) return; /* counted as name.overflow */
    if (fl->nev == fl->capev) {
        size_t c = fl->capev ? fl->capev * 2 : 1; /* most flows are small */
        nlf_ev_t *ne = realloc(fl->ev, c * sizeof *ne);
        if (!ne) {
            f->n.ambiguous++;
            return;
        }
        fl->ev = ne;
        fl->capev = c;
    }
    nlf_ev_t *e = &fl->ev[fl->nev++];
    *e = (nlf_ev_t){.ts = ts, .g = gi, .act = act, .seq = fl->seq++, .kind = (uint8_t)kind};
    if (kind == NL_KIND_END) {
        const nl_field_t *vf =
            f->o.value_field ? field(rec, f->o.value_field, strlen(f->o.value_field)) : NULL;
        const nl_field_t *df =
            f->o.dur_field ? field(rec, f->o.dur_field, strlen(f->o.dur_field)) : NULL;
        if (vf && !nl_field_double(vf, &e->val) && isfinite(e->val) && e->val >= 0) e->has |= 1;
        if (df && !nl_field_double(df, &e->dur) && isfinite(e->dur) && e->dur >= 0) e->has |= 2;
    }
    fl->g[gi].nev++;
    f->held++;
    if (ts < fl->first) fl->first = ts;
    if (ts > fl->last) fl->last = ts;
    fl->touched = f->now;
    if (fl != f->tail) {
        NL__DL_UNLINK(f->head, f->tail, fl);
        NL__DL_APPEND(f->head, f->tail, fl);
    }
    expire(f);
}

/* Profile a flow, hand it to judging, and forget it (its keys leave the map; shared keys
 * stay). */
void nlf__complete(nlf_t *f, nlf_flow_t *fl)
{
    NL__DL_UNLINK(f->head, f->tail, fl);
    f->held -= fl->nev;
    nlf_done_t d;
    memset(&d, 0, sizeof d);
    d.v = calloc(f->dim, sizeof *d.v);
    if (d.v && !nlf__profile(f, fl, &d)) nlf__judge(f, &d);
    nlf__done_free(&d);
    for (uint32_t i = 0; i < fl->nkeys; i++) {
        nlf_key_t *k = fl->keys[i];
        nl__map_del(&f->keys, k->k, k->klen);
        free(k);
    }
    flow_free(fl);
}

void nlf__complete_all(nlf_t *f)
{
    while (f->head) nlf__complete(f, f->head);
}

void nlf_begin_phase(nlf_t *f, int phase)
{
    nlf__complete_all(f);
    f->phase = phase;
    f->have_now = 0;
}

void nlf_end_phase(nlf_t *f)
{
    nlf__complete_all(f);
    nlf__judge_finish(f);
    if (f->phase != NLF_WATCH) return;
    nlf__out_top(f);
    nlf__causes(f);
    nlf__out_stats(f);
}
