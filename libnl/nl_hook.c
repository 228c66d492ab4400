/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_hook.c — the door of nl_hook.h from the log's side: attaching a hook, and the lines
 * the library writes itself (a hook's summaries and notes, the core's own complaints),
 * which go straight to the destination so no level or rule can hide them. */
#include "nl_hook.h"

#include <string.h>

#include "nl_defer.h"
#include "nl_enc.h"
#include "nl_log_int.h"

void *nl__hook_attach(nl_log_t *log, const nl_hook_ops_t *ops, nl_hook_make_fn make, int *rc)
{
    *rc = 0;
    void *ctx = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
    if (ctx) {
        if (log->hook.ops != ops) *rc = NL_EINVAL, ctx = NULL;
        return ctx;
    }
    pthread_mutex_lock(&log->cfg_mu);
    ctx = atomic_load(&log->hook.ctx);
    int made = 0;
    if (ctx && log->hook.ops != ops) {
        *rc = NL_EINVAL, ctx = NULL;
    } else if (!ctx && make && (*rc = make(log, &ctx)) == 0) {
        log->hook.ops = ops; /* before ctx is published: readers load ctx first */
        atomic_store_explicit(&log->hook.ctx, ctx, memory_order_release);
        made = 1;
    }
    pthread_mutex_unlock(&log->cfg_mu);
    if (made) nl__log_wake(log); /* the flusher may be asleep past the hook's first due time */
    return ctx;
}

void nl__log_wake(nl_log_t *log)
{
    pthread_mutex_lock(&log->fmu);
    log->rewait = 1;
    pthread_cond_signal(&log->fcond);
    pthread_mutex_unlock(&log->fmu);
}

const nl_head_t *nl__log_head(nl_log_t *log)
{
    return atomic_load_explicit(&log->head, memory_order_acquire);
}

void nl__log_emit(nl_log_t *log, nl_buf_t *b, int level)
{
    if (nl_enc_end(b) != 0)
        nl__sink_drop(&log->sink, 1);
    else if (!log->defer || !nl__defer_line(log->defer, b->p, b->len)) /* after the thread's */
        nl__sink_write(&log->sink, b->p, b->len, level);
}

void nl__log_self(nl_log_t *log, int level, const char *event, const char *what, const char *msg)
{
    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    const nl_head_t *h = nl__log_head(log);
    nl_enc_begin(&b, nl_now_usec(), event, level, h->guid);
    nl__put(&b, h->enc, h->coff[h->nconst]);
    nl_enc_str(&b, "what", what, strlen(what));
    nl_enc_str(&b, "msg", msg, strlen(msg));
    nl__log_emit(log, &b, level);
    nl_buf_free(&b);
}
