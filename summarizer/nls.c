/* SPDX-License-Identifier: BSD-3-Clause */
/* nls.c — the summarizer's two entry points: nls_event on the writer's hot path (no
 * formatting beyond the identity key, no system call besides the clock, no lock but the
 * identity's own, and no allocation but a histogram window opening or widening, a few
 * times per identity and interval), and nls_tick on the flusher thread, which closes
 * intervals on time and writes the summaries. The log calls both through the hook
 * (nls_plug.c). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_enc.h"
#include "nl_hash.h"
#include "nl_line.h"
#include "nl_num.h"
#include "nls_hot.h"
#include "nls_int.h"
#include "nls_names.h"

/* ---- clock ------------------------------------------------------------------------------ */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Wall-clock time as of the log's opening, advanced by the monotonic clock: durations never
 * jump when NTP steps the wall clock, and boundaries still fall on whole wall seconds. The
 * monotonic clock is read off the CPU's counter where the kernel keeps time with it (nl_tsc.h:
 * without clock_gettime's ordering fence, which is most of a summarized call; figures in
 * bench/README.md), else clock_gettime.
 * Inline here for the hot path (nls_event); nls__now for the rest of the summarizer. */
static inline int64_t now_ns(const nls_t *s)
{
    nls_t *w = (nls_t *)s;
    nl_clock_fn fn = atomic_load_explicit(&w->clock, memory_order_acquire);
    if (fn) return fn(atomic_load_explicit(&w->clock_arg, memory_order_relaxed));
    int64_t m;
    if (!nl__tsc_now(&w->tsc, &m)) m = mono_ns();
    return s->wall0 + (m - s->mono0);
}

int64_t nls__now(const nls_t *s) { return now_ns(s); }

int nls_to_monotonic(const nls_t *s, int64_t t, struct timespec *ts)
{
    if (atomic_load_explicit(&((nls_t *)s)->clock, memory_order_acquire)) return 0;
    int64_t m = s->mono0 + (t - s->wall0);
    ts->tv_sec = (time_t)(m / 1000000000LL);
    ts->tv_nsec = (long)(m % 1000000000LL);
    return 1;
}

/* ---- life cycle ------------------------------------------------------------------------- */

int nls_new(nl_log_t *log, nls_t **out)
{
    nls_t *s = calloc(1, sizeof *s);
    if (!s) return NL_ENOMEM;
    s->res_plain = calloc(1, sizeof *s->res_plain);
    if (!s->res_plain) {
        free(s);
        return NL_ENOMEM;
    }
    s->res_plain->mode = NLS_FULL;
    s->log = log;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    s->wall0 = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    s->mono0 = mono_ns();
    nl__tsc_init(&s->tsc, nl__tsc_usable());
    nl__tsc_update(&s->tsc); /* the first sample: the rate is measured from it */
    char g[NL_GUID_LEN + 1];
    nl_guid_new(g); /* random bits for the hash seed */
    s->seed = nl__hash(g, NL_GUID_LEN, (uint64_t)s->mono0);
    pthread_mutex_init(&s->cfg_mu, NULL);
    pthread_mutex_init(&s->ins_mu, NULL);
    pthread_mutex_init(&s->emit_mu, NULL);
    nls_rules_init(&s->env_rules);
    nls_rules_init(&s->file_rules);
    nls_rules_init(&s->api_rules);
    nls_rules_init(&s->rules);
    *out = s;
    return 0;
}

void nls_free(nls_t *s)
{
    if (!s) return;
    nls__table_free(s);
    nls__names_free(s);
    nls__config_free(s);
    pthread_mutex_destroy(&s->cfg_mu);
    pthread_mutex_destroy(&s->ins_mu);
    pthread_mutex_destroy(&s->emit_mu);
    free(s);
}

/* ---- the hot path ----------------------------------------------------------------------- */

/* A field's value as a number: 1 and *v, or 0 if it has none (a string that is no number). */
static inline int arg_num(const nl_tmpl_t *t, int k, const nl_arg_t *args, double *v)
{
    switch (t->f[k].type) {
    case 'd':
    case 't': *v = args[k].d; return 1; /* NaN too: refused and counted by nls__fold_end */
    case 'i':
    case 'l': *v = (double)args[k].l; return 1;
    case 'u': *v = (double)args[k].u; return 1;
    }
    return args[k].s && nl__strtod(args[k].s, strlen(args[k].s), v) == 0;
}

/* The end event's value (its value field's; 0 if it has none or it is not a number: the
 * pair still counts for durations) and its outcome (its result field's, NLS_OUT_NONE
 * without one), in one pass over its fields. */
static inline int end_fields(const nl_tmpl_t *t, const nl_arg_t *args, const nls_res_t *r,
                             double *v, int *outcome)
{
    int has = 0, seen = 0;
    *outcome = NLS_OUT_NONE;
    for (int k = 0; k < t->n && seen < 2; k++) {
        size_t nl;
        const char *name = nl__tmpl_name(t, k, &nl);
        if (nl == r->vf_len && nl__key_eq(name, r->vf, nl)) {
            has = arg_num(t, k, args, v);
            seen++;
        }
        if (nl == r->rf_len && nl__key_eq(name, r->rf, nl)) {
            double x;
            const char *str = t->f[k].type == 's' && args[k].s ? args[k].s : "";
            *outcome = arg_num(t, k, args, &x) ? nls__outcome(1, x, NULL, 0)
                                               : nls__outcome(0, 0, str, strlen(str));
            seen++;
        }
    }
    return has;
}

/* The start of every identity key, " guid=" and the guid's gl raw bytes; 0 if they do not
 * fit in NLS_KEY_MAX. */
static inline int guid_key(char *key, const char *guid, size_t gl)
{
    if (gl > NLS_KEY_MAX - 6) return 0;
    memcpy(key, " guid=", 6);
    if (gl == NL_GUID_LEN) /* the usual length, copied as a constant size: gcc expands the */
        memcpy(key + 6, guid, NL_GUID_LEN); /* bounded variable one to slow rep movs */
    else
        memcpy(key + 6, guid, gl);
    return 1;
}

/* The event's guid: a guid=s field's, else the log's (NL_GUID_LEN bytes). */
static inline const char *guid_of(const nl_tmpl_t *t, const nl_arg_t *args, const char *guid)
{
    return t->guid_idx >= 0 && args[t->guid_idx].s ? args[t->guid_idx].s : guid;
}

static inline size_t guid_len_of(const nl_tmpl_t *t, const nl_arg_t *args, const char *guid)
{
    const char *g = guid_of(t, args, guid);
    return g == guid ? NL_GUID_LEN : strlen(g);
}

/* One field of the event as it will be written: " name=value". */
static void put_arg(nl_buf_t *b, const nl_tmpl_t *t, int k, const nl_arg_t *args)
{
    nl__put(b, t->f[k].enc, t->f[k].enc_len);
    switch (t->f[k].type) {
    case 's':
        nl__enc_value(b, args[k].s ? args[k].s : "", args[k].s ? strlen(args[k].s) : 0);
        break;
    case 'i':
    case 'l': nl__enc_i64v(b, args[k].l); break;
    case 'u': nl__enc_u64v(b, args[k].u); break;
    default: nl__enc_dblv(b, args[k].d); break;
    }
}

/* The pair identity key: " guid=" and the guid's raw bytes (encoded only when written, so
 * the hot path just copies them; guid_len marks where they end), then every *.id field as
 * it will be written. Returns the length, or 0 if the key does not fit in NLS_KEY_MAX. */
static size_t build_key(char *key, const nl_tmpl_t *t, const nl_arg_t *args, const char *guid,
                        size_t *guid_len)
{
    size_t gl = NL_GUID_LEN;
    if (t->guid_idx >= 0 && args[t->guid_idx].s) {
        guid = args[t->guid_idx].s;
        gl = strlen(guid);
    }
    if (!guid_key(key, guid, gl)) return 0;
    *guid_len = 6 + gl;
    if (!t->id_mask) return 6 + gl;
    nl_buf_t b;
    nl_buf_init(&b, key + 6 + gl, NLS_KEY_MAX - 6 - gl);
    for (uint64_t m = t->id_mask; m; m &= m - 1) put_arg(&b, t, __builtin_ctzll(m), args);
    size_t len = b.err || b.p != key + 6 + gl ? 0 : 6 + gl + b.len;
    nl_buf_free(&b); /* only if it outgrew the key: then the identity is too long */
    return len;
}

/* 1 for the fields that name one request, never a summary's key: parent.guid and the W3C
 * trace's (nl_traceparent). */
static int trace_field(const char *n, size_t l)
{
    return (l == 11 && !memcmp(n, "parent.guid", 11)) || (l == 8 && !memcmp(n, "trace.id", 8)) ||
           (l == 7 && !memcmp(n, "span.id", 7)) || (l == 14 && !memcmp(n, "parent.span.id", 14));
}

/* The template's field of that name, or -1. */
static int tmpl_find(const nl_tmpl_t *t, const char *name, size_t len)
{
    for (int k = 0; k < t->n; k++) {
        size_t nl;
        const char *n = nl__tmpl_name(t, k, &nl);
        if (nl == len && nl__key_eq(n, name, len)) return k;
    }
    return -1;
}

/* A summary's key from an event: NLS_SUM_MARK, then with key= fields each from the event
 * (key=guid: its guid g, gl bytes, always first), else from its start's key sk (segments at
 * sk_off; sk NULL: none), else left out; without key= fields, the event's *.id fields less
 * the trace's. off (may be NULL) gets where each
 * key= field begins. Returns the length, 0 if it does not fit in NLS_KEY_MAX. */
static size_t sum_key(char *key, const nl_tmpl_t *t, const nl_arg_t *args, const nls_res_t *r,
                      const char *g, size_t gl, const char *sk, const uint16_t *sk_off,
                      uint16_t *off)
{
    key[0] = NLS_SUM_MARK;
    if (!r->nkeys && !t->id_mask) return 1;
    nl_buf_t b;
    nl_buf_init(&b, key + 1, NLS_KEY_MAX - 1);
    if (!r->nkeys) {
        for (uint64_t m = t->id_mask; m; m &= m - 1) {
            int k = __builtin_ctzll(m);
            size_t nl;
            const char *n = nl__tmpl_name(t, k, &nl);
            if (!trace_field(n, nl)) put_arg(&b, t, k, args);
        }
    }
    for (int i = 0; i < r->nkeys; i++) {
        if (off) off[i] = (uint16_t)(1 + b.len);
        if (r->key_len[i] == 4 && !memcmp(r->key[i], "guid", 4)) { /* key=guid: first */
            nl__put(&b, " guid=", 6);
            nl__enc_value(&b, g, gl);
            continue;
        }
        int k = tmpl_find(t, r->key[i], r->key_len[i]);
        if (k >= 0)
            put_arg(&b, t, k, args);
        else if (sk)
            nl__put(&b, sk + sk_off[i], (size_t)(sk_off[i + 1] - sk_off[i]));
    }
    size_t len = b.err || b.p != key + 1 ? 0 : 1 + b.len;
    if (off) off[r->nkeys] = (uint16_t)len;
    nl_buf_free(&b);
    return len;
}

/* The event's fields as they will be written, less the identity's (guid, *.id: the key
 * holds them): what count mode keeps of the last event, and what dedup compares. */
static void event_body(nl_buf_t *b, const nl_tmpl_t *t, const nl_arg_t *args)
{
    for (int k = 0; k < t->n; k++)
        if (k != t->guid_idx && !(t->id_mask >> k & 1)) nl__tfield_put(b, &t->f[k], &args[k]);
}

/* A point event under count or dedup mode. The fields are formatted here, on the writer's
 * thread: point events are the rare ones (an error, a retry), and formatting them once
 * costs less than the line that is not written. */
__attribute__((noinline)) static int point_event(nls_t *s, nls_act_t *act, const nls_res_t *r,
                                                 int level, const nl_tmpl_t *t,
                                                 const nl_arg_t *args, const char *guid)
{
    char key[NLS_KEY_MAX], stack[512];
    size_t guid_len = 1, key_len = r->mode == NLS_COUNT /* a count is a summary: no guid */
                                       ? sum_key(key, t, args, r, guid_of(t, args, guid),
                                                 guid_len_of(t, args, guid), NULL, NULL, NULL)
                                       : build_key(key, t, args, guid, &guid_len);
    int64_t now = nls__now(s);
    nls_ident_t *e =
        key_len ? nls__ident_get_cached(s, act, key, key_len, guid_len, 0, 1, now) : NULL;
    if (!e) {
        atomic_fetch_add_explicit(&s->overflow, 1, memory_order_relaxed);
        return NL_HOOK_WRITE;
    }
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    event_body(&b, t, args);
    if (b.err) { /* fields that cannot be kept: written in full, counted */
        nls__unlock(&e->lock);
        atomic_fetch_add_explicit(&s->overflow, 1, memory_order_relaxed);
        nl_buf_free(&b);
        return NL_HOOK_WRITE;
    }
    if (r->mode == NLS_COUNT) {
        nls__fold_count(e, now, r->interval_ns, b.p, b.len);
        nls__unlock(&e->lock);
        nl_buf_free(&b);
        return NL_HOOK_FOLDED;
    }
    /* dedup: the same level and fields as the last one written is a repeat */
    uint64_t h = nl__hash(b.p, b.len, (uint64_t)level);
    if (e->dd_has && e->dd_hash == h && e->dd_level == level && e->dd_len == b.len &&
        !memcmp(e->dd_body, b.p, b.len)) {
        if (!e->dd_repeats++) e->dd_first_t = now;
        e->dd_last_t = now;
        e->idle = 0;
        nls__unlock(&e->lock);
        nl_buf_free(&b);
        return NL_HOOK_FOLDED; /* not written, and not filtered either: counted as folded */
    }
    /* a different event: the run before it, if any, is closed by its repeat line first */
    uint64_t n = e->dd_repeats;
    char *prev = NULL;
    size_t prev_len = e->dd_len;
    int prev_level = e->dd_level;
    int64_t prev_t = e->dd_last_t;
    if (n) {
        prev = e->dd_body; /* handed to this writer; the identity keeps a fresh copy below */
        e->dd_body = NULL;
        e->dd_cap = 0;
    }
    if (nls__keep_text(&e->dd_body, &e->dd_cap, &e->dd_len, b.p, b.len) == 0) {
        e->dd_has = 1;
        e->dd_hash = h;
        e->dd_level = level;
    } else {
        e->dd_has = 0; /* no memory: nothing to compare with, so nothing is suppressed */
    }
    e->dd_repeats = 0;
    e->idle = 0;
    nls__unlock(&e->lock);
    if (n) {
        nls__emit_repeat(s, act, key, key_len, guid_len, prev_level, prev, prev_len, n, prev_t);
        free(prev);
    }
    nl_buf_free(&b);
    return NL_HOOK_WRITE;
}

/* Count an event written in full because it could not be folded (no room, a key too
 * long). */
static int overflowed(nls_t *s)
{
    atomic_fetch_add_explicit(&s->overflow, 1, memory_order_relaxed);
    return NL_HOOK_WRITE;
}

/* The summary of key sk (sk_len bytes; 0: too long), locked, or NULL. */
static inline nls_ident_t *sum_get(nls_t *s, nls_act_t *act, const char *sk, size_t sk_len,
                                   int64_t now)
{
    if (!sk_len) return NULL;
    nls_ident_t *e = sk_len == 1 ? nls__sum_hot(s, act) : NULL;
    return e ? e : nls__ident_get_cached(s, act, sk, sk_len, 1, sk_len == 1, 1, now);
}

/* A start at `now`. Its pair p, if the thread's cache found it (locked), is live, so its
 * summary (key sk, sk_len bytes; 0: too long) was touched by the pair's earlier start and
 * is left alone: the common loop of one guid's pairs costs one lock per start. Otherwise
 * the summary is touched first, so it runs from its first start (interval 0) and no pair
 * is kept open for a summary there is no room for, and then the pair is found or made by
 * find_pair (locked; NULL: no room). The pair remembers the time and the key (with key=
 * fields, each beginning at off[i]). A start restarted before its end is counted in the
 * summary as an orphan. No two identities are locked at once (the table's insertions lock
 * one under ins_mu). */
static inline __attribute__((always_inline)) int
fold_start(nls_t *s, nls_act_t *act, const nls_res_t *r, int64_t now, const char *sk, size_t sk_len,
           const uint16_t *off, nls_ident_t *p, nls_ident_t *(*find_pair)(void *), void *arg)
{
    nls_ident_t *e;
    if (!p) {
        e = sum_get(s, act, sk, sk_len, now);
        if (!e) return overflowed(s);
        nls__fold_touch(e, now, r->interval_ns, 0);
        nls__unlock(&e->lock);
        p = find_pair(arg);
        if (!p) return overflowed(s);
    } else if (!sk_len) {
        nls__unlock(&p->lock);
        return overflowed(s);
    }
    int orphan = p->open;
    p->open = 1;
    p->open_t = now;
    p->idle = 0;
    if (sk_len == 1)
        p->sk[0] = NLS_SUM_MARK;
    else
        memcpy(p->sk, sk, sk_len);
    p->sk_len = (uint16_t)sk_len;
    if (r->nkeys) memcpy(p->sk_off, off, (size_t)(r->nkeys + 1) * sizeof *off);
    nls__unlock(&p->lock);
    if (orphan && (e = sum_get(s, act, sk, sk_len, now)) != NULL) {
        nls__fold_touch(e, now, r->interval_ns, 1);
        nls__unlock(&e->lock);
    }
    return r->mode == NLS_BOTH ? NL_HOOK_WRITE : NL_HOOK_FOLDED;
}

/* The end of the pair p (locked; NULL: never started, or let go): its start's time
 * (INT64_MIN: none) and its start's summary key into sk, off. p is unlocked; under pressure
 * a closed pair is let go at once rather than at the next tick. */
static inline int64_t take_start(nls_t *s, nls_ident_t *p, const nls_res_t *r, char *sk,
                                 size_t *sk_len, uint16_t *off)
{
    if (!p) return INT64_MIN;
    int64_t start_t = INT64_MIN;
    p->idle = 0;
    if (p->open) {
        start_t = p->open_t;
        p->open = 0;
        *sk_len = p->sk_len;
        if (p->sk_len == 1)
            sk[0] = NLS_SUM_MARK;
        else
            memcpy(sk, p->sk, p->sk_len);
        if (r->nkeys) memcpy(off, p->sk_off, (size_t)(r->nkeys + 1) * sizeof *off);
    }
    nls__unlock(&p->lock);
    if (atomic_load_explicit(&s->live, memory_order_relaxed) > NLS_IDENT_MAX / 2)
        nls__ident_evict(s, p->slot, p);
    return start_t;
}

/* An end at `now` into the summary of key sk (its start's when the end's own fields do not
 * change it), with its value and outcome. */
static inline int fold_end(nls_t *s, nls_act_t *act, const nls_res_t *r, int64_t now,
                           int64_t start_t, const char *sk, size_t sk_len, int has, double v,
                           int outcome)
{
    nls_ident_t *e = sum_get(s, act, sk, sk_len, now);
    if (!e) return overflowed(s);
    nls__fold_end(e, now, r->interval_ns, start_t, has, v, outcome);
    nls__unlock(&e->lock);
    return r->mode == NLS_BOTH ? NL_HOOK_WRITE : NL_HOOK_FOLDED;
}

/* 1 if the identity table has no room: a start may have been written in full for it. */
static int table_full(nls_t *s)
{
    return atomic_load_explicit(&s->live, memory_order_relaxed) >= NLS_IDENT_MAX;
}

/* What finds an event's pair identity: its guid (a guid=s field, else the log's) and its
 * *.id fields. */
typedef struct pair_find {
    nls_t *s;
    nls_act_t *act;
    const nl_tmpl_t *t;
    const nl_arg_t *args;
    const char *guid;
    int create; /* a start makes it; an end only finds it */
    int64_t now;
    int lost;      /* set: no pair, and none could have been kept (a key too long, a full table) */
    int hot_tried; /* the thread's cache was looked at already (pair_hot_event) */
} pair_find_t;

static inline __attribute__((always_inline)) nls_ident_t *pair_of_event(void *arg)
{
    pair_find_t *f = arg;
    const nl_tmpl_t *t = f->t;
    nls_ident_t *p = NULL;
    if (!t->id_mask && !f->hot_tried) {
        const char *g =
            t->guid_idx >= 0 && f->args[t->guid_idx].s ? f->args[t->guid_idx].s : f->guid;
        p = nls__ident_hot(f->s, f->act, g, g == f->guid ? NL_GUID_LEN : strlen(g));
    }
    if (p) return p;
    char key[NLS_KEY_MAX];
    size_t guid_len, key_len = build_key(key, t, f->args, f->guid, &guid_len);
    p = key_len ? nls__ident_get_cached(f->s, f->act, key, key_len, guid_len, !t->id_mask,
                                        f->create, f->now)
                : NULL;
    f->lost = !p && (!key_len || table_full(f->s));
    return p;
}

/* The pair of an event without *.id fields as the thread's cache has it (locked), or NULL
 * (then pair_of_event, which does not look there again). */
static inline __attribute__((always_inline)) nls_ident_t *pair_hot_event(pair_find_t *f)
{
    f->hot_tried = 1;
    if (f->t->id_mask) return NULL;
    const char *g = guid_of(f->t, f->args, f->guid);
    return nls__ident_hot(f->s, f->act, g, g == f->guid ? NL_GUID_LEN : strlen(g));
}

/* A pair handle's identity: the guid alone. */
typedef struct pair_find_g {
    nls_t *s;
    nls_act_t *act;
    const char *g;
    size_t gl;
    int create;
    int64_t now;
    int lost;      /* as pair_find_t's */
    int hot_tried; /* the thread's cache was looked at already */
} pair_find_g_t;

static inline __attribute__((always_inline)) nls_ident_t *pair_of_guid(void *arg)
{
    pair_find_g_t *f = arg;
    nls_ident_t *p = f->hot_tried ? NULL : nls__ident_hot(f->s, f->act, f->g, f->gl);
    if (p) return p;
    char key[NLS_KEY_MAX];
    int fits = guid_key(key, f->g, f->gl);
    p = fits ? nls__ident_get_cached(f->s, f->act, key, 6 + f->gl, 6 + f->gl, 1, f->create, f->now)
             : NULL;
    f->lost = !p && (!fits || table_full(f->s));
    return p;
}

int nls_event(nls_t *s, const char *event, int level, const nl_tmpl_t *t, const nl_arg_t *args,
              const char *guid)
{
    int kind;
    nls_act_t *act = nls__event_act(s, event, &kind);
    if (!act) return NL_HOOK_WRITE; /* NLS_ACT_MAX reached: counted by nls__event_act */
    const nls_res_t *r = atomic_load_explicit(&act->res, memory_order_acquire);
    if (r->mode == NLS_FULL) return NL_HOOK_WRITE;
    if (r->mode == NLS_OFF) return NL_HOOK_SUPPRESS;
    if (r->mode == NLS_COUNT || r->mode == NLS_DEDUP)
        return kind == NL_KIND_OTHER ? point_event(s, act, r, level, t, args, guid)
                                     : NL_HOOK_WRITE; /* pairs are not point events */
    if (kind == NL_KIND_OTHER) return NL_HOOK_WRITE;  /* nothing to pair: written as it is */
    int64_t now = now_ns(s);
    pair_find_t pf = {s, act, t, args, guid, kind == NL_KIND_START, now, 0, 0};
    char sk[NLS_KEY_MAX];
    uint16_t off[NLS_KEYS_MAX + 1];
    if (pf.create) {
        nls_ident_t *p = pair_hot_event(&pf);
        size_t sk_len = 1;
        if (r->nkeys || t->id_mask)
            sk_len = sum_key(sk, t, args, r, guid_of(t, args, guid), guid_len_of(t, args, guid),
                             NULL, NULL, off);
        else
            sk[0] = NLS_SUM_MARK;
        return fold_start(s, act, r, now, sk, sk_len, off, p, pair_of_event, &pf);
    }
    nls_ident_t *p = pair_of_event(&pf);
    if (pf.lost) return overflowed(s); /* its start may have been written in full */
    char st[NLS_KEY_MAX];              /* the start's */
    size_t st_len = 0, sk_len;
    int64_t start_t = take_start(s, p, r, st, &st_len, off);
    const char *key = sk;
    if (start_t != INT64_MIN && !r->nkeys) /* the start's *.id fields are the end's */
        key = st, sk_len = st_len;
    else /* an orphan's own key; or key= fields, from the end or else its start */
        sk_len = sum_key(sk, t, args, r, guid_of(t, args, guid), guid_len_of(t, args, guid),
                         start_t == INT64_MIN ? NULL : st, off, NULL);
    double v = 0;
    int outcome, has = end_fields(t, args, r, &v, &outcome);
    return fold_end(s, act, r, now, start_t, key, sk_len, has, v, outcome);
}

/* A pair handle's summary key (nls_pair_event): the mark, and with key=guid its guid g;
 * every other key= field is missing (off: where each begins). 0 if it does not fit. */
static size_t handle_key(char *key, const nls_res_t *r, const char *g, size_t gl, uint16_t *off)
{
    key[0] = NLS_SUM_MARK;
    for (int i = 0; i <= r->nkeys; i++) off[i] = 1;
    if (!r->nkeys || r->key_len[0] != 4 || memcmp(r->key[0], "guid", 4)) return 1;
    nl_buf_t b;
    nl_buf_init(&b, key + 1, NLS_KEY_MAX - 1);
    nl__put(&b, " guid=", 6);
    nl__enc_value(&b, g, gl);
    size_t len = b.err || b.p != key + 1 ? 0 : 1 + b.len;
    nl_buf_free(&b);
    for (int i = 1; i <= r->nkeys; i++) off[i] = (uint16_t)len;
    return len;
}

int nls_pair_event(nls_t *s, nls_act_t *act, int kind, const char *g, const char *vf, size_t vf_len,
                   double v)
{
    const nls_res_t *r = atomic_load_explicit(&act->res, memory_order_acquire);
    if (r->mode == NLS_FULL) return NL_HOOK_WRITE; /* as nls_event says for it */
    if (r->mode != NLS_SUMMARY && r->mode != NLS_BOTH) return NLS_PAIR_GENERAL;
    int64_t now = now_ns(s);
    pair_find_g_t pf = {s, act, g, strlen(g), kind == NL_KIND_START, now, 0, 0};
    /* a handle's events have no fields but the guid and the value: every key= field but
     * guid is missing, so the summary's key is the mark alone, or the guid (key=guid) */
    char mark[NLS_KEY_MAX];
    uint16_t off[NLS_KEYS_MAX + 1];
    size_t mark_len = handle_key(mark, r, g, pf.gl, off);
    if (pf.create) {
        nls_ident_t *p = nls__ident_hot(s, act, g, pf.gl);
        pf.hot_tried = 1;
        return fold_start(s, act, r, now, mark, mark_len, off, p, pair_of_guid, &pf);
    }
    nls_ident_t *p = pair_of_guid(&pf);
    if (pf.lost) return overflowed(s); /* its start may have been written in full */
    char st[NLS_KEY_MAX]; /* the start's key (another call site's start may have had one) */
    size_t st_len = 1;
    int64_t start_t = take_start(s, p, r, st, &st_len, off);
    int has = vf_len == r->vf_len && nl__key_eq(vf, r->vf, vf_len);
    return fold_end(s, act, r, now, start_t, start_t == INT64_MIN ? mark : st,
                    start_t == INT64_MIN ? mark_len : st_len, has, v, NLS_OUT_NONE);
}

/* ---- the flusher's work ---------------------------------------------------------------- */

void nls_clock_update(nls_t *s, const uint64_t *tsc, int64_t ns)
{
    int was = s->tsc.state;
    int now = tsc ? nl__tsc_update_at(&s->tsc, *tsc, ns) : nl__tsc_update(&s->tsc);
    if (now == NL_TSC_OFF && was == NL_TSC_ON) /* once: a withdrawn map stays off */
        nls__emit_note(s, NL_LVL_WARN, "nl.summary.clock", 1, 1,
                       "the CPU counter left the kernel's clock: clock_gettime from here on");
}

static int pairs_fold(int mode) { return mode == NLS_SUMMARY || mode == NLS_BOTH; }

/* Count each open pair into the summary of its start's key (open_now), made if need be, so
 * a stalled activity shows as n=0 open=N. */
static void count_open(nls_t *s, int64_t now)
{
    char sk[NLS_KEY_MAX];
    for (size_t i = 0; i < NLS_SLOTS; i++) {
        uint64_t tag = atomic_load_explicit(&s->tag[i], memory_order_acquire);
        if (tag == NLS_TAG_EMPTY || tag == NLS_TAG_FREE) continue;
        nls_ident_t *e = atomic_load_explicit(&s->ent[i], memory_order_acquire);
        nls__lock(&e->lock);
        nls_act_t *act = e->act;
        const nls_res_t *r = atomic_load_explicit(&act->res, memory_order_acquire);
        size_t sk_len = e->sk_len;
        int open = atomic_load_explicit(&s->tag[i], memory_order_acquire) == tag &&
                   e->key[0] != NLS_SUM_MARK && e->open && pairs_fold(r->mode) && sk_len;
        if (open) memcpy(sk, e->sk, sk_len);
        nls__unlock(&e->lock);
        if (!open) continue;
        nls_ident_t *sum = nls__ident_get_cached(s, act, sk, sk_len, 1, 0, 1, now);
        if (!sum) continue; /* no room: the pair is still counted when it ends */
        sum->open_now++;
        nls__unlock(&sum->lock);
    }
}

void nls_tick(nls_t *s, int partial, int final)
{
    pthread_mutex_lock(&s->emit_mu);
    nls_clock_update(s, NULL, 0);
    int64_t now = nls__now(s);
    count_open(s, now);
    int pressure = atomic_load(&s->live) > NLS_IDENT_MAX / 4 * 3;
    nls_out_t out[NLS_OUT_MAX + 2];
    char key[NLS_KEY_MAX];
    for (size_t i = 0; i < NLS_SLOTS; i++) {
        uint64_t tag = atomic_load_explicit(&s->tag[i], memory_order_acquire);
        if (tag == NLS_TAG_EMPTY || tag == NLS_TAG_FREE) continue;
        nls_ident_t *e = atomic_load_explicit(&s->ent[i], memory_order_acquire);
        nls__lock(&e->lock);
        if (atomic_load_explicit(&s->tag[i], memory_order_acquire) != tag) {
            nls__unlock(&e->lock);
            continue;
        }
        const nls_act_t *act = e->act;
        const nls_res_t *r = atomic_load_explicit(&act->res, memory_order_acquire);
        /* Under pressure, a once-per-run identity with nothing open is written early and
         * let go, so the table makes room; it is counted in nl_stats.evicted. */
        int sum = e->key[0] == NLS_SUM_MARK, n = 0, early = 0;
        if (sum) {
            e->open = (int)e->open_now;
            e->open_now = 0;
            early = pressure && r->interval_ns == 0 && !e->open;
            n = nls__fold_close(e, now, r->interval_ns, partial, final || early, out);
        } else { /* a pair (its summary is written above) or a de-duplicated event */
            if (!pairs_fold(r->mode)) e->open = 0; /* the rules changed: its end is not folded */
            e->idle = e->open || e->dd_repeats ? 0 : e->idle + 1;
        }
        size_t key_len = e->key_len, guid_len = e->guid_len;
        memcpy(key, e->key, key_len);
        /* a run of identical events that has gone on for an interval (or the log is being
         * flushed or closed) is written now, as far as it got */
        char *run = NULL;
        uint64_t run_n = 0;
        size_t run_len = 0;
        int run_level = 0;
        int64_t run_t = 0;
        if (e->dd_repeats &&
            (partial || final || (r->interval_ns > 0 && now - e->dd_first_t >= r->interval_ns))) {
            run = malloc(e->dd_len ? e->dd_len : 1);
            if (run) {
                memcpy(run, e->dd_body, e->dd_len);
                run_n = e->dd_repeats, run_len = e->dd_len, run_level = e->dd_level;
                run_t = e->dd_last_t;
                e->dd_repeats = 0;
            }
        }
        /* a closed pair is let go at the next tick; a summary (and a de-duplicated event,
         * which remembers the last one) after two quiet intervals */
        int evict =
            (early || e->idle >= (sum || r->mode == NLS_DEDUP ? 2 : 1)) && nls__fold_idle(e);
        nls__unlock(&e->lock);
        for (int k = 0; k < n; k++) {
            if (out[k].acc.counted)
                nls__emit_count(s, act, key, key_len, guid_len, &out[k]);
            else
                nls__emit(s, act, key, key_len, guid_len, &out[k]);
            atomic_fetch_add_explicit(&s->folded, out[k].acc.events, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->orphans, out[k].acc.orphan_start + out[k].acc.orphan_end,
                                      memory_order_relaxed);
            nls__acc_free(&out[k].acc); /* handed over by nls__fold_close */
        }
        if (run) {
            nls__emit_repeat(s, act, key, key_len, guid_len, run_level, run, run_len, run_n, run_t);
            free(run);
        }
        if (evict && nls__ident_evict(s, i, e) && early)
            atomic_fetch_add_explicit(&s->evicted, 1, memory_order_relaxed);
    }
    uint64_t over = atomic_load(&s->overflow);
    if (over > s->overflow_reported) {
        nls__emit_note(s, NL_LVL_WARN, "nl.summary.overflow", over - s->overflow_reported, over,
                       "events written in full: too many activities or identities to summarize");
        s->overflow_reported = over;
    }
    pthread_mutex_unlock(&s->emit_mu);
}

int64_t nls_next_due(nls_t *s)
{
    int64_t now = nls__now(s), due = INT64_MAX;
    int64_t cal = nl__tsc_calibrate_at(&s->tsc); /* the counter clock's rate: not a flush later */
    if (cal) due = s->wall0 + (cal - s->mono0);
    pthread_mutex_lock(&s->cfg_mu);
    for (int i = 0; i < s->rules.n; i++) {
        const nls_rule_t *r = &s->rules.r[i];
        if (r->interval <= 0 || r->mode == NLS_FULL || r->mode == NLS_OFF) continue;
        int64_t b = nls__boundary_after(now, (int64_t)(r->interval * 1e9 + 0.5));
        if (b < due) due = b;
    }
    pthread_mutex_unlock(&s->cfg_mu);
    return due;
}
