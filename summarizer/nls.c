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

/* The event value from the end event's value field; 0 if it has none or it is not a
 * number (the pair still counts for durations). */
static int event_value(const nl_tmpl_t *t, const nl_arg_t *args, const nls_res_t *r, double *v)
{
    for (int k = 0; k < t->n; k++) {
        size_t nl;
        const char *name = nl__tmpl_name(t, k, &nl);
        if (nl != r->vf_len || !nl__key_eq(name, r->vf, nl)) continue;
        switch (t->f[k].type) {
        case 'd':
        case 't': *v = args[k].d; return 1; /* NaN too: refused and counted by nls__fold_end */
        case 'i':
        case 'l': *v = (double)args[k].l; return 1;
        case 'u': *v = (double)args[k].u; return 1;
        case 's': return args[k].s && nl__strtod(args[k].s, strlen(args[k].s), v) == 0;
        }
    }
    return 0;
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

/* The identity key: " guid=" and the guid's raw bytes (encoded only when written, so the
 * hot path just copies them; guid_len marks where they end), then every *.id field as it
 * will be written. Returns the length, or 0 if the key does not fit in NLS_KEY_MAX. */
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
    for (uint64_t m = t->id_mask; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        nl__put(&b, t->f[k].enc, t->f[k].enc_len);
        switch (t->f[k].type) {
        case 's':
            nl__enc_value(&b, args[k].s ? args[k].s : "", args[k].s ? strlen(args[k].s) : 0);
            break;
        case 'i':
        case 'l': nl__enc_i64v(&b, args[k].l); break;
        case 'u': nl__enc_u64v(&b, args[k].u); break;
        default: nl__enc_dblv(&b, args[k].d); break;
        }
    }
    size_t len = b.err || b.p != key + 6 + gl ? 0 : 6 + gl + b.len;
    nl_buf_free(&b); /* only if it outgrew the key: then the identity is too long */
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
    size_t guid_len, key_len = build_key(key, t, args, guid, &guid_len);
    int64_t now = nls__now(s);
    nls_ident_t *e = key_len ? nls__ident_get_cached(s, act, key, key_len, guid_len, 0, now) : NULL;
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

/* A start or an end, at `now`, into its identity e (locked; NULL: no room, or an identity
 * too long, so written in full and counted). Returns the event's nl_hook_verdict. */
static inline int fold(nls_t *s, nls_ident_t *e, const nls_res_t *r, int kind, int64_t now, int has,
                       double v)
{
    if (!e) {
        atomic_fetch_add_explicit(&s->overflow, 1, memory_order_relaxed);
        return NL_HOOK_WRITE;
    }
    if (kind == NL_KIND_START)
        nls__fold_start(e, now, r->interval_ns);
    else
        nls__fold_end(e, now, r->interval_ns, has, v);
    nls__unlock(&e->lock);
    return r->mode == NLS_BOTH ? NL_HOOK_WRITE : NL_HOOK_FOLDED;
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
    nls_ident_t *e = NULL;
    if (!t->id_mask) {
        const char *g = t->guid_idx >= 0 && args[t->guid_idx].s ? args[t->guid_idx].s : guid;
        e = nls__ident_hot(s, act, g, g == guid ? NL_GUID_LEN : strlen(g));
    }
    if (!e) {
        char key[NLS_KEY_MAX];
        size_t guid_len, key_len = build_key(key, t, args, guid, &guid_len);
        e = key_len ? nls__ident_get_cached(s, act, key, key_len, guid_len, !t->id_mask, now)
                    : NULL;
    }
    double v = 0;
    int has = kind == NL_KIND_END && event_value(t, args, r, &v);
    return fold(s, e, r, kind, now, has, v);
}

int nls_pair_event(nls_t *s, nls_act_t *act, int kind, const char *g, const char *vf, size_t vf_len,
                   double v)
{
    const nls_res_t *r = atomic_load_explicit(&act->res, memory_order_acquire);
    if (r->mode == NLS_FULL) return NL_HOOK_WRITE; /* as nls_event says for it */
    if (r->mode != NLS_SUMMARY && r->mode != NLS_BOTH) return NLS_PAIR_GENERAL;
    size_t gl = strlen(g);
    int64_t now = now_ns(s);
    nls_ident_t *e = nls__ident_hot(s, act, g, gl);
    if (!e) {
        char key[NLS_KEY_MAX];
        e = guid_key(key, g, gl) ? nls__ident_get_cached(s, act, key, 6 + gl, 6 + gl, 1, now)
                                 : NULL;
    }
    int has = kind == NL_KIND_END && vf_len == r->vf_len && nl__key_eq(vf, r->vf, vf_len);
    return fold(s, e, r, kind, now, has, v);
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

void nls_tick(nls_t *s, int partial, int final)
{
    pthread_mutex_lock(&s->emit_mu);
    nls_clock_update(s, NULL, 0);
    int64_t now = nls__now(s);
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
        int early = pressure && r->interval_ns == 0 && !e->open;
        int n = nls__fold_close(e, now, r->interval_ns, partial, final || early, out);
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
        int evict = (early || e->idle >= 2) && nls__fold_idle(e);
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
