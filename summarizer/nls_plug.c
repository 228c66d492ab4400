/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_plug.c — how the summarizer gets into a log: through the log's hook (libnl/nl_hook.h),
 * attached on first need — by nl_summarize(), nl_summary_file(), nl_pair(), or NL_SUMMARY /
 * NL_SUMMARY_FILE at nl_open. nl_open itself lives here: it is the one place that puts the
 * core's log and the summarizer together, so the core never names the summarizer. */
#include <stdio.h>
#include <stdlib.h>

#include "nls_int.h"

static int hook_event(void *ctx, const char *event, int level, const nl_tmpl_t *t,
                      const nl_arg_t *args, const char *guid)
{
    return nls_event(ctx, event, level, t, args, guid);
}

static void hook_tick(void *ctx, int partial, int final) { nls_tick(ctx, partial, final); }

static int hook_next_due(void *ctx, struct timespec *due)
{
    int64_t t = nls_next_due(ctx);
    return t != INT64_MAX && nls_to_monotonic(ctx, t, due);
}

static void hook_config_check(void *ctx) { nls_config_check(ctx); }

static void hook_stats(void *ctx, nl_stats_t *st)
{
    nls_t *s = ctx;
    st->folded = atomic_load(&s->folded);
    st->summaries = atomic_load(&s->summaries);
    st->overflow = atomic_load(&s->overflow);
    st->orphans = atomic_load(&s->orphans);
    st->evicted = atomic_load(&s->evicted);
}

static void hook_fork_prepare(void *ctx) { nls_fork_prepare(ctx); }
static void hook_fork_parent(void *ctx) { nls_fork_parent(ctx); }
static void hook_fork_child(void *ctx) { nls_fork_child(ctx); }
static void hook_free(void *ctx)
{
    nls__pairs_free(ctx);
    nls_free(ctx);
}

/* the summarizer as the log sees it */
const nl_hook_ops_t nls_hook_ops = {
    .event = hook_event,
    .tick = hook_tick,
    .next_due = hook_next_due,
    .config_check = hook_config_check,
    .stats = hook_stats,
    .fork_prepare = hook_fork_prepare,
    .fork_parent = hook_fork_parent,
    .fork_child = hook_fork_child,
    .free = hook_free,
};

/* A new summarizer with the rules of NL_SUMMARY and NL_SUMMARY_FILE already in place, so
 * the flusher, woken when it is plugged in, sees their first interval's end. */
static int make(nl_log_t *log, void **ctx)
{
    nls_t *s;
    int rc = nls_new(log, &s);
    if (rc) return rc;
    nls_config_env(s); /* problems are written into the log */
    *ctx = s;
    return 0;
}

/* The log's summarizer, plugged in on first need. */
static nls_t *summ_get(nl_log_t *log, int *rc)
{
    return nl__hook_attach(log, &nls_hook_ops, make, rc);
}

nl_log_t *nl_open_ex(const char *url, int *err)
{
    nl_log_t *log = nl__log_open(url, err);
    if (!log) return NULL;
    const char *a = getenv("NL_SUMMARY"), *b = getenv("NL_SUMMARY_FILE");
    if ((a && *a) || (b && *b)) { /* without rules, no summarizer is made at all */
        int rc;
        if (!summ_get(log, &rc))
            fprintf(stderr, "nlkit: no summarizer (%s): events are written in full\n",
                    nl_strerror(rc));
    }
    return log;
}

nl_log_t *nl_open(const char *url) { return nl_open_ex(url, NULL); }

int nl_summarize(nl_log_t *log, const char *glob, int mode, double interval_s,
                 const char *value_field)
{
    if (!log || !glob) return NL_EINVAL;
    int rc;
    nls_t *s = summ_get(log, &rc);
    if (!s) return rc;
    rc = nls_config_add(s, glob, mode, interval_s, value_field);
    if (rc == 0) nl__log_wake(log); /* a new rule may end an interval sooner */
    return rc;
}

nl_pair_t *nl_pair(nl_log_t *log, const char *name, const char *value_field, int *err)
{
    int rc_store;
    int *rc = err ? err : &rc_store;
    if (!log || !name) return *rc = NL_EINVAL, NULL;
    if ((*rc = nls__pair_check(name, value_field)) != 0) return NULL;
    nls_t *s = summ_get(log, rc); /* a handle's activity lives in the summarizer */
    return s ? nls__pair_new(s, log, name, value_field, rc) : NULL;
}

int nl_summary_file(nl_log_t *log, const char *path, nl_perr_t *err)
{
    if (!log || !path || !*path) return NL_EINVAL;
    int rc;
    nls_t *s = summ_get(log, &rc);
    if (!s) return rc;
    rc = nls_config_file(s, path, err);
    if (rc == 0) nl__log_wake(log);
    return rc;
}

int nl__set_clock(nl_log_t *log, nl_clock_fn fn, void *arg)
{
    int rc;
    nls_t *s = summ_get(log, &rc);
    if (!s) return rc;
    atomic_store_explicit(&s->clock_arg, arg, memory_order_relaxed);
    atomic_store_explicit(&s->clock, fn, memory_order_release);
    return 0;
}

void nl__summ_tick(nl_log_t *log)
{
    int rc;
    nls_t *s = nl__hook_attach(log, &nls_hook_ops, NULL, &rc);
    if (s) nls_tick(s, 0, 0);
}

int nl__summ_clock_sample(nl_log_t *log, int restart, uint64_t tsc, int64_t ns)
{
    int rc;
    nls_t *s = summ_get(log, &rc);
    if (!s) return rc;
    pthread_mutex_lock(&s->emit_mu);
    if (restart) nl__tsc_init(&s->tsc, 1);
    nls_clock_update(s, &tsc, ns);
    int state = s->tsc.state;
    pthread_mutex_unlock(&s->emit_mu);
    return state;
}
