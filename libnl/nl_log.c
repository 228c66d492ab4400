/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_log.c — nl_write/nl_flush/nl_close and the core's open (nl__log_open; nl_open is the
 * summarizer's, which plugs itself in: ../summarizer/nls_plug.c). The write path takes
 * no lock until the finished line is handed to the sink: the template comes from a
 * lock-free cache, the constants from an immutable head, the line is built on the stack. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_defer.h"
#include "nl_enc.h"
#include "nl_exit.h"
#include "nl_fork.h"
#include "nl_guid.h"
#include "nl_log_int.h"
#include "nl_url.h"

/* The times a 't' field may hold: years 0001 to 9999, as ISO-8601 writes them. */
#define TS_MIN_S (-62135596800.0)
#define TS_MAX_S 253402300799.999999

/* ---- writing ---------------------------------------------------------------------------- */

nl_gate_t *nl__log_gate(nl_log_t *log) { return &log->gate; }

/* Whether the line is to be written after the hook (if any) has seen the event: 0 if the
 * hook folded it, or suppressed it (counted as filtered). */
static inline int hook_passes(nl_log_t *log, int level, const char *event, const nl_tmpl_t *t,
                              const nl_arg_t *args, const nl_head_t *h)
{
    void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
    if (!hook) return 1;
    int verdict = log->hook.ops->event(hook, event, level, t, args, h->guid);
    if (verdict == NL_HOOK_WRITE) return 1;
    if (verdict == NL_HOOK_SUPPRESS)
        atomic_fetch_add_explicit(&log->gate.filtered, 1, memory_order_relaxed);
    return 0;
}

int nl__log_build(nl_log_t *log, nl_buf_t *b, int64_t usec, int level, const char *event,
                  nl_tmpl_t *t, const nl_arg_t *args, const nl_head_t *h)
{
    (void)log;
    uint32_t skip = nl__head_skip(h, t);
    nl_enc_begin(b, usec, event, level, NULL);
    nl__put(b, " guid=", 6);
    if (t->guid_idx >= 0 && args[t->guid_idx].s) {
        const char *g = args[t->guid_idx].s;
        nl__enc_value(b, g, strlen(g));
    } else {
        nl__put(b, h->guid, NL_GUID_LEN); /* a validated UUID: never needs quoting */
    }
    nl__head_put_consts(b, h, skip);
    for (int k = 0; k < t->n; k++)
        if (k != t->guid_idx) nl__tfield_put(b, &t->f[k], &args[k]);
    return nl_enc_end(b);
}

/* The deferred path's door back into the log (nl_defer.h): its build and the flusher's
 * kick. */
static int defer_build(void *ctx, nl_buf_t *b, int64_t usec, int level, const char *event,
                       nl_tmpl_t *t, const nl_arg_t *args, const nl_head_t *h)
{
    return nl__log_build(ctx, b, usec, level, event, t, args, h);
}

static const nl__defer_ops_t defer_ops = {defer_build, nl__flusher_kick};

/* A finished line to the destination: through the thread's deferred ring when the log
 * defers (to keep the thread's order), else straight to the sink. */
static int sink_line(nl_log_t *log, const char *line, size_t len, int level)
{
    if (log->defer && nl__defer_line(log->defer, line, len)) return NL_OK;
    return nl__sink_write(&log->sink, line, len, level);
}

/* The event's line, built on the stack and handed to the sink. Apart from write_line, so
 * that a deferred call does not pay for this frame (its kilobyte of stack, its guard). */
static __attribute__((noinline)) int write_now(nl_log_t *log, int level, const char *event,
                                               nl_tmpl_t *t, const nl_arg_t *args,
                                               const nl_head_t *h)
{
    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    int rc = nl__log_build(log, &b, nl_now_usec(), level, event, t, args, h);
    if (rc == 0) {
        rc = sink_line(log, b.p, b.len, level);
    } else {
        nl__sink_drop(&log->sink, 1); /* too long, or no memory for a long line */
    }
    nl_buf_free(&b);
    return rc;
}

/* The event's line now; or, when the log defers and t is a cached template, recorded for
 * the flusher to build. ev_kept: the event name's text lives, unchanged, until the log
 * closes (a pair handle's), so a record may point to it. */
static inline int write_line(nl_log_t *log, int level, const char *event, int ev_kept, nl_tmpl_t *t,
                             const nl_arg_t *args, const nl_head_t *h, int owned)
{
    if (log->defer && !owned && nl__defer_event(log->defer, level, event, ev_kept, t, args, h))
        return NL_OK;
    return write_now(log, level, event, t, args, h);
}

int nl__log_write_args(nl_log_t *log, int level, const char *event, nl_tmpl_t *t,
                       const nl_arg_t *args, int flags)
{
    const nl_head_t *h = atomic_load_explicit(&log->head, memory_order_acquire);
    if ((flags & NL__WRITE_HOOK) && !hook_passes(log, level, event, t, args, h)) return NL_OK;
    return write_line(log, level, event, (flags & NL__WRITE_EV_KEPT) != 0, t, args, h, 0);
}

/* nl_write and nl_writel, inline in both: one call less on the hot path. */
static inline __attribute__((always_inline)) int vwrite(nl_log_t *log, int level, const char *event,
                                                        const char *fmt, va_list ap)
{
    if (!log) return NL_EINVAL;
    if (!event || level < NL_LVL_FATAL || level > NL_LVL_TRACE) {
        nl__gate_forked(log, &log->gate);
        atomic_fetch_add_explicit(&log->errors, 1, memory_order_relaxed);
        return NL_EINVAL;
    }
    if (!nl__gate_admit(log, &log->gate, level)) return NL_OK;
    nl_tmpl_t *t;
    int owned;
    int rc = nl__tcache_get(&log->tcache, fmt, &t, &owned);
    if (rc) {
        atomic_fetch_add_explicit(&log->errors, 1, memory_order_relaxed);
        return rc;
    }
    nl_arg_t args[NL_FMT_FIELDS_MAX];
    /* by the template's recipe (nl_fmt.h): an 8-byte integer ('s', 'l', 'u') unless its
     * bit says double or int; no test of each type letter */
    uint64_t dbl = t->dbl_mask, in = t->int_mask;
    if (!(dbl | in)) { /* strings and 64-bit integers only: one way for every field */
        for (int k = 0; k < t->n; k++) args[k].u = va_arg(ap, unsigned long long);
    } else {
        for (int k = 0; k < t->n; k++) {
            if (!((dbl | in) >> k & 1))
                args[k].u = va_arg(ap, unsigned long long);
            else if (dbl >> k & 1)
                args[k].d = va_arg(ap, double);
            else
                args[k].l = va_arg(ap, int);
        }
    }
    int bad_time = 0;
    for (uint64_t m = t->ts_mask; m; m &= m - 1) {
        /* out of range, its microseconds would overflow an int64 (undefined) */
        double d = args[__builtin_ctzll(m)].d;
        bad_time |= !(d >= TS_MIN_S && d <= TS_MAX_S);
    }
    if (bad_time) {
        atomic_fetch_add_explicit(&log->errors, 1, memory_order_relaxed);
        if (owned) free(t);
        return NL_ETS;
    }
    const nl_head_t *h = atomic_load_explicit(&log->head, memory_order_acquire);
    rc = hook_passes(log, level, event, t, args, h)
             ? write_line(log, level, event, 0, t, args, h, owned)
             : NL_OK;
    if (owned) free(t);
    return rc;
}

int nl_write(nl_log_t *log, const char *event, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vwrite(log, NL_LVL_INFO, event, fmt, ap);
    va_end(ap);
    return rc;
}

int nl_writel(nl_log_t *log, int level, const char *event, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vwrite(log, level, event, fmt, ap);
    va_end(ap);
    return rc;
}

int nl_write_line(nl_log_t *log, int level, const char *line, size_t len)
{
    if (!log) return NL_EINVAL;
    nl__gate_forked(log, &log->gate);
    if (!line || len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1) ||
        level < NL_LVL_FATAL || level > NL_LVL_TRACE) {
        atomic_fetch_add_explicit(&log->errors, 1, memory_order_relaxed);
        return NL_EINVAL;
    }
    if (!nl__gate_level(&log->gate, level)) return NL_OK;
    if (len - 1 > NL_LINE_MAX) {
        nl__sink_drop(&log->sink, 1);
        return NL_ETOOBIG;
    }
    return sink_line(log, line, len, level);
}

/* ---- levels, state, counters ------------------------------------------------------------- */

int nl_set_level(nl_log_t *log, int level)
{
    if (!log || level < NL_LVL_FATAL || level > NL_LVL_TRACE) return NL_EINVAL;
    atomic_store(&log->gate.level, level);
    return 0;
}

int nl_get_level(const nl_log_t *log)
{
    return log ? atomic_load(&((nl_log_t *)log)->gate.level) : NL_EINVAL;
}

int nl_is_active(const nl_log_t *log)
{
    return log ? atomic_load(&((nl_log_t *)log)->sink.active) : 0;
}

uint64_t nl_dropped(const nl_log_t *clog)
{
    nl_log_t *log = (nl_log_t *)clog;
    if (!log) return 0;
    if (log->defer) nl__defer_drain(log->defer); /* counts as of now, as without deferral */
    return atomic_load(&log->sink.dropped);
}

int nl_stats(const nl_log_t *clog, nl_stats_t *st)
{
    nl_log_t *log = (nl_log_t *)clog;
    if (!log || !st) return NL_EINVAL;
    if (log->defer) nl__defer_drain(log->defer); /* counts as of now, as without deferral */
    st->written = nl__sink_written(&log->sink);
    st->filtered = atomic_load(&log->gate.filtered);
    st->dropped = atomic_load(&log->sink.dropped);
    st->errors = atomic_load(&log->errors);
    st->reconnects = atomic_load(&log->sink.reconnects);
    st->folded = st->summaries = st->overflow = st->orphans = st->evicted = 0;
    void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
    if (hook) log->hook.ops->stats(hook, st);
    return 0;
}

int nl_flush(nl_log_t *log)
{
    if (!log) return NL_EINVAL;
    nl__gate_forked(log, &log->gate);
    void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
    if (hook) log->hook.ops->tick(hook, 1, 0); /* the partial intervals: nothing waits unseen */
    if (log->defer) nl__defer_drain(log->defer);
    return nl__sink_flush(&log->sink);
}

/* ---- open / close ------------------------------------------------------------------------ */

static void log_free(nl_log_t *log)
{
    nl__head_free_all(atomic_load(&log->head));
    nl__tcache_free(&log->tcache);
    void *hook = atomic_load(&log->hook.ctx);
    if (hook) log->hook.ops->free(hook);
    nl__watch_free(&log->level_file);
    pthread_mutex_destroy(&log->cfg_mu);
    free(log);
}

static nl_log_t *log_open(const char *url, int *rc)
{
    nl_url_t u;
    if ((*rc = nl__url_parse(url, &u)) != 0) return NULL;
    nl_log_t *log = calloc(1, sizeof *log);
    if (!log) return *rc = NL_ENOMEM, NULL;
    atomic_init(&log->gate.level, NL_LVL_INFO);
    pthread_mutex_init(&log->cfg_mu, NULL);
    /* NL_GUID is the parent's: this process gets a GUID of its own and links to it
     * (parent.guid, set below), so who called whom can be followed */
    char guid[NL_GUID_LEN + 1];
    const char *eg = getenv("NL_GUID");
    if (eg && !nl__guid_valid(eg)) eg = NULL;
    nl_guid_new(guid);
    nl_head_t *h = nl__head_new(1, guid, 0, NULL, NULL);
    if (!h) {
        log_free(log);
        return *rc = NL_ENOMEM, NULL;
    }
    atomic_init(&log->head, h);
    if ((*rc = nl__sink_open(&log->sink, &u, guid)) != 0) {
        int e = errno; /* the system's reason, for the caller's message */
        log_free(log);
        errno = e;
        return NULL;
    }
    log->flush_ms = u.flush_ms;
    if (nl__sink_defers(&log->sink) && nl__defer_wanted(u.mode))
        log->defer = nl__defer_new(&defer_ops, log, &log->sink, log->sink.cap); /* else sync */
    pthread_mutex_init(&log->fmu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&log->fcond, &ca);
    pthread_condattr_destroy(&ca);
    nl__trace_from_env(log, eg);
    const char *cfg = getenv("NL_CFG");
    if (cfg && *cfg) nl__level_file_env(log, cfg); /* problems: in the log and on stderr */
    pthread_mutex_lock(&log->fmu);
    int started = nl__flusher_start(log);
    pthread_mutex_unlock(&log->fmu);
    if (started != 0) {
        nl__sink_close(&log->sink);
        pthread_cond_destroy(&log->fcond);
        pthread_mutex_destroy(&log->fmu);
        log_free(log);
        return *rc = NL_ESYS, NULL;
    }
    nl__fork_register(log);
    nl__exit_arm();
    *rc = 0;
    return log;
}

nl_log_t *nl__log_open(const char *url, int *err)
{
    int rc_store;
    int *rc = err ? err : &rc_store;
    const char *env = getenv("NL_DEST");
    int replaced = env && *env;
    if (replaced) url = env;
    nl__open_dest(replaced ? env : NULL);
    nl_log_t *log = log_open(url, rc);
    /* a bad URL, or NL_DEST's failure, is the operator's: said here whatever the program
     * does with the NULL (one that ignores it would otherwise log and say nothing) */
    if (!log && (*rc == NL_EURL || replaced)) nl__open_report(url, *rc);
    return log;
}

/* Lines the destination never got, said on standard error with the destination named: the
 * last place left to say it at nl_close or at exit (the log itself may be what failed).
 * `when` is "" or "at exit, ". */
static void say_undelivered(nl_log_t *log, uint64_t lost, const char *when)
{
    if (!lost) return;
    char dest[NL_URL_PATH_MAX + 160];
    nl__sink_describe(&log->sink, dest, sizeof dest);
    fprintf(stderr,
            "nlkit: %s%llu line(s) could not be delivered to the log destination %s and are "
            "reported nowhere else\n",
            when, (unsigned long long)lost, dest);
}

void nl__log_exit_flush(nl_log_t *log)
{
    nl__sink_exiting(&log->sink);
    void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
    if (hook) log->hook.ops->tick(hook, 1, 1); /* as at nl_close: the run ends */
    if (log->defer) nl__defer_drain(log->defer);
    say_undelivered(log, nl__sink_exit_flush(&log->sink), "at exit, ");
}

void nl_close(nl_log_t *log)
{
    if (!log) return;
    nl__fork_unregister(log);
    /* the program is exiting and the exit handler's helper still holds this log (a thread
     * stuck mid-write): freeing it under the helper would be worse than leaving it */
    if (atomic_load(&log->exit_stuck)) return;
    pthread_mutex_lock(&log->fmu);
    log->stop = 1;
    int joinable = log->has_flusher; /* not in a forked child that never wrote */
    pthread_cond_signal(&log->fcond);
    pthread_mutex_unlock(&log->fmu);
    if (joinable) pthread_join(log->flusher, NULL);
    nl__sink_set_handoff(&log->sink, NULL, NULL); /* no one left to write handed-off buffers */
    void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
    if (hook) log->hook.ops->tick(hook, 1, 1); /* the last partial and once-per-run summaries */
    if (log->defer) nl__defer_close(log->defer); /* every thread's records, to the sink */
    log->defer = NULL;
    nl__sink_close(&log->sink);
    /* the drops no nl.log.dropped line in the log has reported already */
    say_undelivered(log, atomic_load(&log->sink.unreported), "");
    pthread_cond_destroy(&log->fcond);
    pthread_mutex_destroy(&log->fmu);
    log_free(log);
}
