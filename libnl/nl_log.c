/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_log.c — nl_open/nl_write/nl_close: the application-facing core. The write path takes
 * no lock until the finished line is handed to the sink: the template comes from a
 * lock-free cache, the constants from an immutable head, the line is built on the stack. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_enc.h"
#include "nl_fork.h"
#include "nl_guid.h"
#include "nl_log_int.h"
#include "nl_url.h"
#include "nls.h"

/* In a forked child, the first call on an inherited log restarts its flusher. Two relaxed
 * loads of values that change only at fork: bench-throughput shows no difference. */
static inline void fork_check(nl_log_t *log)
{
    if (atomic_load_explicit(&nl__fork_gen, memory_order_relaxed) !=
        atomic_load_explicit(&log->fork_gen, memory_order_relaxed))
        nl__fork_resume(log);
}

/* ---- head (guid + constants) ---------------------------------------------------------- */

static void head_free_one(nl_head_t *h)
{
    for (int i = 0; i < h->nconst; i++) {
        free(h->cname[i]);
        free(h->cvalue[i]);
    }
    free(h->enc);
    free(h);
}

/* Build a head from a GUID and constants; NULL on no memory. */
static nl_head_t *head_new(uint32_t gen, const char *guid, int n, char *const *names,
                           char *const *values)
{
    nl_head_t *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->gen = gen;
    snprintf(h->guid, sizeof h->guid, "%s", guid);
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    for (int i = 0; i < n; i++) {
        h->cname[i] = strdup(names[i]);
        h->cvalue[i] = strdup(values[i]);
        h->nconst = i + 1;
        if (!h->cname[i] || !h->cvalue[i]) goto fail;
        h->coff[i] = b.len;
        nl__enc_name(&b, names[i], strlen(names[i]));
        nl__enc_value(&b, values[i], strlen(values[i]));
    }
    h->coff[n] = b.len;
    nl__putc(&b, '\0'); /* the buffer starts empty, so this always lands on the heap */
    if (b.err) goto fail;
    h->enc = b.p;
    return h;
fail:
    nl_buf_free(&b);
    head_free_one(h);
    return NULL;
}

/* Publish a new head; the old one stays reachable (and alive) through ->older. */
static void head_publish(nl_log_t *log, nl_head_t *h)
{
    h->older = atomic_load(&log->head);
    atomic_store_explicit(&log->head, h, memory_order_release);
}

static int is_reserved(const char *name)
{
    return !strcmp(name, "ts") || !strcmp(name, "event") || !strcmp(name, "level") ||
           !strcmp(name, "guid");
}

int nl_const_set(nl_log_t *log, const char *name, const char *value)
{
    if (!log || !name) return NL_EINVAL;
    if (!nl__name_ok(name, strlen(name)) || is_reserved(name)) return NL_ENAME;
    pthread_mutex_lock(&log->cfg_mu);
    nl_head_t *old = atomic_load(&log->head);
    char *names[NL_CONST_MAX], *values[NL_CONST_MAX];
    int n = old->nconst, at = n;
    for (int i = 0; i < n; i++) {
        names[i] = old->cname[i];
        values[i] = old->cvalue[i];
        if (!strcmp(names[i], name)) at = i;
    }
    int rc = 0;
    if (at == NL_CONST_MAX) {
        rc = NL_EINVAL;
    } else {
        names[at] = (char *)name;
        values[at] = (char *)(value ? value : "");
        nl_head_t *h = head_new(old->gen + 1, old->guid, at == n ? n + 1 : n, names, values);
        if (h)
            head_publish(log, h);
        else
            rc = NL_ENOMEM;
    }
    pthread_mutex_unlock(&log->cfg_mu);
    return rc;
}

int nl_const_std(nl_log_t *log)
{
    char host[256] = "unknown", pid[24];
    if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    int rc = nl_const_set(log, "host", host);
    if (!rc) rc = nl_const_set(log, "prog", program_invocation_short_name);
    if (!rc) rc = nl_const_set(log, "pid", pid);
    if (!rc) atomic_store(&log->std_pid, 1);
    return rc;
}

int nl_set_guid(nl_log_t *log, const char *guid)
{
    if (!log || !nl__guid_valid(guid)) return NL_EINVAL;
    pthread_mutex_lock(&log->cfg_mu);
    nl_head_t *old = atomic_load(&log->head);
    nl_head_t *h = head_new(old->gen + 1, guid, old->nconst, old->cname, old->cvalue);
    if (h) {
        head_publish(log, h);
        nl__sink_set_guid(&log->sink, guid);
    }
    pthread_mutex_unlock(&log->cfg_mu);
    return h ? 0 : NL_ENOMEM;
}

const char *nl_guid(const nl_log_t *log)
{
    return log ? atomic_load_explicit(&((nl_log_t *)log)->head, memory_order_acquire)->guid : NULL;
}

/* ---- writing ---------------------------------------------------------------------------- */

/* Which constants a template overrides, cached in the template per head generation. */
static uint32_t const_mask(nl_tmpl_t *t, const nl_head_t *h)
{
    uint64_t cc = atomic_load_explicit(&t->const_check, memory_order_relaxed);
    if ((uint32_t)(cc >> 32) == h->gen) return (uint32_t)cc;
    uint32_t mask = 0;
    for (int i = 0; i < h->nconst; i++) {
        size_t cl = strlen(h->cname[i]);
        for (int k = 0; k < t->n; k++) {
            size_t fl;
            const char *fn = nl__tmpl_name(t, k, &fl);
            if (fl == cl && !memcmp(fn, h->cname[i], cl)) mask |= 1u << i;
        }
    }
    atomic_store_explicit(&t->const_check, (uint64_t)h->gen << 32 | mask, memory_order_relaxed);
    return mask;
}

static void put_field(nl_buf_t *b, const nl_tfield_t *f, const nl_arg_t *a)
{
    nl__put(b, f->enc, f->enc_len);
    switch (f->type) {
    case 's': nl__enc_value(b, a->s ? a->s : "", a->s ? strlen(a->s) : 0); break;
    case 'd': nl__enc_dblv(b, a->d); break;
    case 'i':
    case 'l': nl__enc_i64v(b, a->l); break;
    case 'u': nl__enc_u64v(b, a->u); break;
    case 't': nl__enc_tsv(b, (int64_t)(a->d * 1e6 + (a->d >= 0 ? 0.5 : -0.5))); break;
    }
}

static int vwrite(nl_log_t *log, int level, const char *event, const char *fmt, va_list ap)
{
    if (!log) return NL_EINVAL;
    fork_check(log);
    if (!event || level < NL_LVL_FATAL || level > NL_LVL_TRACE) {
        atomic_fetch_add_explicit(&log->errors, 1, memory_order_relaxed);
        return NL_EINVAL;
    }
    if (level > atomic_load_explicit(&log->level, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&log->filtered, 1, memory_order_relaxed);
        return NL_OK;
    }
    nl_tmpl_t *t;
    int owned;
    int rc = nl__tcache_get(&log->tcache, fmt, &t, &owned);
    if (rc) {
        atomic_fetch_add_explicit(&log->errors, 1, memory_order_relaxed);
        return rc;
    }
    nl_arg_t args[NL_FMT_FIELDS_MAX];
    for (int k = 0; k < t->n; k++) {
        switch (t->f[k].type) {
        case 's': args[k].s = va_arg(ap, const char *); break;
        case 'd':
        case 't': args[k].d = va_arg(ap, double); break;
        case 'i': args[k].l = va_arg(ap, int); break;
        case 'l': args[k].l = va_arg(ap, long long); break;
        case 'u': args[k].u = va_arg(ap, unsigned long long); break;
        }
    }
    const nl_head_t *h = atomic_load_explicit(&log->head, memory_order_acquire);
    nls_t *summ = atomic_load_explicit(&log->summ, memory_order_acquire);
    if (summ) {
        int verdict = nls_event(summ, event, t, args, h->guid);
        if (verdict != NLS_WRITE) {
            if (verdict == NLS_SUPPRESS)
                atomic_fetch_add_explicit(&log->filtered, 1, memory_order_relaxed);
            if (owned) free(t);
            return NL_OK;
        }
    }
    uint32_t skip = h->nconst ? const_mask(t, h) : 0;

    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    nl_enc_begin(&b, nl_now_usec(), event, level, NULL);
    nl__put(&b, " guid=", 6);
    if (t->guid_idx >= 0 && args[t->guid_idx].s) {
        const char *g = args[t->guid_idx].s;
        nl__enc_value(&b, g, strlen(g));
    } else {
        nl__put(&b, h->guid, NL_GUID_LEN); /* a validated UUID: never needs quoting */
    }
    if (!skip) {
        nl__put(&b, h->enc, h->coff[h->nconst]);
    } else {
        for (int i = 0; i < h->nconst; i++)
            if (!(skip & (1u << i))) nl__put(&b, h->enc + h->coff[i], h->coff[i + 1] - h->coff[i]);
    }
    for (int k = 0; k < t->n; k++)
        if (k != t->guid_idx) put_field(&b, &t->f[k], &args[k]);
    rc = nl_enc_end(&b);
    if (rc == 0) {
        rc = nl__sink_write(&log->sink, b.p, b.len, level);
    } else {
        nl__sink_drop(&log->sink, 1); /* too long, or no memory for a long line */
    }
    nl_buf_free(&b);
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
    fork_check(log);
    if (!line || len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1) ||
        level < NL_LVL_FATAL || level > NL_LVL_TRACE) {
        atomic_fetch_add_explicit(&log->errors, 1, memory_order_relaxed);
        return NL_EINVAL;
    }
    if (level > atomic_load_explicit(&log->level, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&log->filtered, 1, memory_order_relaxed);
        return NL_OK;
    }
    if (len - 1 > NL_LINE_MAX) {
        nl__sink_drop(&log->sink, 1);
        return NL_ETOOBIG;
    }
    int rc = nl__sink_write(&log->sink, line, len, level);
    return rc;
}

void nl__log_self(nl_log_t *log, int level, const char *event, const char *what, const char *msg)
{
    nl_writel(log, level, event, "what=s msg=s", what, msg);
}

/* ---- levels, state, counters ------------------------------------------------------------- */

int nl_set_level(nl_log_t *log, int level)
{
    if (!log || level < NL_LVL_FATAL || level > NL_LVL_TRACE) return NL_EINVAL;
    atomic_store(&log->level, level);
    return 0;
}

int nl_get_level(const nl_log_t *log)
{
    return log ? atomic_load(&((nl_log_t *)log)->level) : NL_EINVAL;
}

int nl_is_active(const nl_log_t *log)
{
    return log ? atomic_load(&((nl_log_t *)log)->sink.active) : 0;
}

uint64_t nl_dropped(const nl_log_t *log)
{
    return log ? atomic_load(&((nl_log_t *)log)->sink.dropped) : 0;
}

int nl_stats(const nl_log_t *clog, nl_stats_t *st)
{
    nl_log_t *log = (nl_log_t *)clog;
    if (!log || !st) return NL_EINVAL;
    st->written = nl__sink_written(&log->sink);
    st->filtered = atomic_load(&log->filtered);
    st->dropped = atomic_load(&log->sink.dropped);
    st->errors = atomic_load(&log->errors);
    st->reconnects = atomic_load(&log->sink.reconnects);
    st->folded = st->summaries = st->overflow = st->orphans = st->evicted = 0;
    nls_t *summ = atomic_load(&log->summ);
    if (summ)
        nls_counts(summ, &st->folded, &st->summaries, &st->overflow, &st->orphans, &st->evicted);
    return 0;
}

int nl_flush(nl_log_t *log)
{
    if (!log) return NL_EINVAL;
    fork_check(log);
    nls_t *summ = atomic_load(&log->summ);
    if (summ) nls_tick(summ, 1, 0); /* the partial intervals, so nothing waits unseen */
    return nl__sink_flush(&log->sink);
}

/* ---- open / close ------------------------------------------------------------------------ */

/* The background thread: flushes on time, reconnects, re-reads the level file. */
static void *flusher_main(void *arg)
{
    nl_log_t *log = arg;
    pthread_mutex_lock(&log->fmu);
    while (!log->stop) {
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += log->flush_ms / 1000;
        dl.tv_nsec += (long)(log->flush_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        nls_t *summ = atomic_load(&log->summ);
        struct timespec due;
        if (summ && nls_to_monotonic(summ, nls_next_due(summ), &due) &&
            (due.tv_sec < dl.tv_sec || (due.tv_sec == dl.tv_sec && due.tv_nsec < dl.tv_nsec)))
            dl = due; /* wake on the next interval boundary: summaries come out on time */
        while (!log->stop && pthread_cond_timedwait(&log->fcond, &log->fmu, &dl) != ETIMEDOUT) {
        }
        if (log->stop) break;
        pthread_mutex_unlock(&log->fmu);
        nl__levelfile_check(log);
        summ = atomic_load(&log->summ);
        if (summ) {
            nls_config_check(summ);
            nls_tick(summ, 0, 0);
        }
        nl__sink_tick(&log->sink);
        pthread_mutex_lock(&log->fmu);
    }
    pthread_mutex_unlock(&log->fmu);
    return NULL;
}

static void log_free(nl_log_t *log)
{
    nl_head_t *h = atomic_load(&log->head);
    while (h) {
        nl_head_t *older = h->older;
        head_free_one(h);
        h = older;
    }
    nl__tcache_free(&log->tcache);
    nls_free(atomic_load(&log->summ));
    nl__watch_free(&log->level_file);
    pthread_mutex_destroy(&log->cfg_mu);
    free(log);
}

nl_log_t *nl_open_ex(const char *url, int *err)
{
    int rc_store;
    int *rc = err ? err : &rc_store;
    const char *env = getenv("NL_DEST");
    if (env && *env) url = env;
    nl_url_t u;
    if ((*rc = nl__url_parse(url, &u)) != 0) return NULL;
    nl_log_t *log = calloc(1, sizeof *log);
    if (!log) return *rc = NL_ENOMEM, NULL;
    atomic_init(&log->level, NL_LVL_INFO);
    pthread_mutex_init(&log->cfg_mu, NULL);
    char guid[NL_GUID_LEN + 1];
    const char *eg = getenv("NL_GUID");
    if (eg && nl__guid_valid(eg))
        snprintf(guid, sizeof guid, "%s", eg);
    else
        nl_guid_new(guid);
    nl_head_t *h = head_new(1, guid, 0, NULL, NULL);
    if (!h) {
        log_free(log);
        return *rc = NL_ENOMEM, NULL;
    }
    atomic_init(&log->head, h);
    if ((*rc = nl__sink_open(&log->sink, &u, guid)) != 0) {
        log_free(log);
        return NULL;
    }
    log->flush_ms = u.flush_ms;
    pthread_mutex_init(&log->fmu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&log->fcond, &ca);
    pthread_condattr_destroy(&ca);
    const char *cfg = getenv("NL_CFG");
    if (cfg && *cfg) nl_level_file(log, cfg); /* problems are reported in the log itself */
    nl__summ_env(log);
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
    *rc = 0;
    return log;
}

int nl__flusher_start(nl_log_t *log)
{
    int e = pthread_create(&log->flusher, NULL, flusher_main, log);
    log->has_flusher = e == 0;
    return e;
}

nl_log_t *nl_open(const char *url) { return nl_open_ex(url, NULL); }

void nl_close(nl_log_t *log)
{
    if (!log) return;
    nl__fork_unregister(log);
    pthread_mutex_lock(&log->fmu);
    log->stop = 1;
    int joinable = log->has_flusher; /* not in a forked child that never wrote */
    pthread_cond_signal(&log->fcond);
    pthread_mutex_unlock(&log->fmu);
    if (joinable) pthread_join(log->flusher, NULL);
    nls_t *summ = atomic_load(&log->summ);
    if (summ) nls_tick(summ, 1, 1); /* the last partial intervals and once-per-run summaries */
    nl__sink_close(&log->sink);
    uint64_t lost = atomic_load(&log->sink.dropped);
    if (lost) /* the last place left to say it: the log itself may be what failed */
        fprintf(stderr, "nlkit: %llu line(s) could not be delivered to the log destination\n",
                (unsigned long long)lost);
    pthread_cond_destroy(&log->fcond);
    pthread_mutex_destroy(&log->fmu);
    log_free(log);
}
