/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_hook.h — private: the one door between the library's core and the layer plugged into
 * it (the summarizer, ../summarizer). The core never names that layer: a log holds a hook,
 * {ops, ctx}, registered by the layer, and calls it at the points below (the way an event
 * loop calls back into a server only through procedures the server registered). The layer
 * reaches the log only through the functions declared after the ops (open, attach, wake,
 * head, emit).
 *
 * A log has at most one hook, made on first need and kept until nl_close. */
#ifndef NLKIT_NL_HOOK_H
#define NLKIT_NL_HOOK_H

#include <stdint.h>
#include <time.h>

#include "nl_buf.h"
#include "nl_fmt.h"
#include "nl_head.h"
#include "nlkit/nl.h"

/* What nl_write does with the event's own line after the hook has seen the event. */
enum nl_hook_verdict {
    NL_HOOK_WRITE = 0,   /* write it as usual */
    NL_HOOK_FOLDED = 1,  /* the hook took it (a summary will carry it): write nothing */
    NL_HOOK_SUPPRESS = 2 /* switched off by the hook's rules: counted as filtered */
};

/* The procedures a hook registers. Every one gets the ctx the hook was made with. */
typedef struct nl_hook_ops {
    /* The hot path, on the writer's thread, before the line is built: the event's name and
     * level, its template and arguments, and the log's GUID. Returns an enum
     * nl_hook_verdict. */
    int (*event)(void *ctx, const char *event, int level, const nl_tmpl_t *t, const nl_arg_t *args,
                 const char *guid);
    /* Do what is due (flusher, nl_flush, nl_close). partial: also what is not due yet
     * (nl_flush); final: everything, the log is closing. */
    void (*tick)(void *ctx, int partial, int final);
    /* The next time (CLOCK_MONOTONIC) the hook wants a tick: 1 and *due, or 0 for none. */
    int (*next_due)(void *ctx, struct timespec *due);
    /* Re-read whatever the hook reads from files, if changed (flusher thread). */
    void (*config_check)(void *ctx);
    /* Fill the hook's counters in nl_stats (folded, summaries, overflow, orphans, evicted). */
    void (*stats)(void *ctx, nl_stats_t *st);
    /* fork(): take the hook's locks (after the log's own, before the sink's); release them
     * in the parent; in the child, let go of what is the parent's and release them (the
     * core calls fork_child alone there: each lock is released once). See nl_fork.h. */
    void (*fork_prepare)(void *ctx);
    void (*fork_parent)(void *ctx);
    void (*fork_child)(void *ctx);
    /* The log is closing: free everything (after the last tick). */
    void (*free)(void *ctx);
} nl_hook_ops_t;

/* Open a log of the core alone, without a hook: what nl_open_ex does before it plugs the
 * summarizer in (summarizer/nls_plug.c). Same arguments and errors as nl_open_ex. */
nl_log_t *nl__log_open(const char *url, int *err);

/* Make a hook's ctx for a log: 0 and *ctx, or an NL_E* code. Runs under the log's
 * configuration lock; it may write lines (nl__log_emit) but not call nl__log_wake. */
typedef int (*nl_hook_make_fn)(nl_log_t *log, void **ctx);

/* The log's hook ctx for these ops, made with `make` the first time (under the log's
 * configuration lock, so two threads asking at once get one). NULL and *rc if it could
 * not be made, or if the log already has a hook with other ops (*rc = NL_EINVAL); NULL and
 * *rc = 0 if there is none yet and make is NULL. */
void *nl__hook_attach(nl_log_t *log, const nl_hook_ops_t *ops, nl_hook_make_fn make, int *rc);

/* The hook's next due time may have come sooner (its rules changed): the flusher computes
 * its wait again. Takes the flusher's lock: call it holding no lock of the log or hook. */
void nl__log_wake(nl_log_t *log);

/* nl__log_write_args' flags: ask the hook's verdict first; the event name's text lives,
 * unchanged, until the log closes (a pair handle's), so a deferred record points to it. */
enum { NL__WRITE_HOOK = 1, NL__WRITE_EV_KEPT = 2 };

/* nl_write after its arguments are read, for a caller that has them as a template and an
 * array and has passed the log's gate (nl_gate.h): the hook's verdict first if flags has
 * NL__WRITE_HOOK, then the line, with nl_write's return codes and counting. t must live
 * until the log closes. */
int nl__log_write_args(nl_log_t *log, int level, const char *event, nl_tmpl_t *t,
                       const nl_arg_t *args, int flags);

/* The log's current head (GUID and constants); valid until nl_close. */
const nl_head_t *nl__log_head(nl_log_t *log);

/* Finish a line begun with nl_enc_begin and hand it to the log's destination, past the
 * level threshold and the hook (the library's own lines: summaries, notes, config errors).
 * A line that cannot be finished (too long, no memory) is counted as dropped. */
void nl__log_emit(nl_log_t *log, nl_buf_t *b, int level);

#endif
