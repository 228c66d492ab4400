/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_log_int.h — private: the inside of an nl_log_t, shared by the modules that make it. */
#ifndef NLKIT_NL_LOG_INT_H
#define NLKIT_NL_LOG_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "nl_fmt.h"
#include "nl_gate.h"
#include "nl_head.h"
#include "nl_hook.h"
#include "nl_sink.h"
#include "nl_watch.h"
#include "nlkit/nl.h"

/* The log's hook (nl_hook.h): ops are set once, before ctx is published. */
typedef struct nl_hook_slot {
    const nl_hook_ops_t *ops;
    _Atomic(void *) ctx; /* NULL: no hook */
} nl_hook_slot_t;

struct nl_log {
    nl_sink_t sink;
    nl_tcache_t tcache;
    _Atomic(nl_head_t *) head;
    nl_gate_t gate;          /* level threshold, fork generation, filtered count */
    _Atomic uint64_t errors; /* written: the sink counts it */
    pthread_mutex_t cfg_mu;  /* serialises head replacement and the level file */
    nl_watch_t level_file;   /* under cfg_mu */
    int level_from_env;      /* under cfg_mu: NL_CFG named the level file */
    pthread_t flusher;
    pthread_mutex_t fmu;
    pthread_cond_t fcond;
    int stop;        /* under fmu */
    int rewait;      /* under fmu: the flusher should compute its deadline again */
    int has_flusher; /* under fmu: flusher is a running thread (not in a fresh child) */
    int kicked;      /* under fmu: a writer left a full buffer for the flusher to write */
    int flush_ms;
    nl_hook_slot_t hook; /* the summarizer, plugged in when the first rule arrives */
    _Atomic int std_pid; /* nl_const_std set "pid": refreshed in a forked child */
    struct nl_log *fork_prev, *fork_next; /* the list of open logs (nl_fork.c) */
    char trace_flags[3]; /* under cfg_mu: the W3C trace flags handed on ("" until given) */
    struct nl__defer *defer; /* deferred mode (nl_defer.h); NULL: synchronous */
    _Atomic int exit_stuck;  /* the exit handler's flush of it never finished (nl_exit.h):
                                nl_close leaves it alone */
};

/* Build an event's line into b (begun empty): what nl_write writes, for the synchronous
 * path and for the deferred one's formatting (nl_defer.c), so both make the same bytes.
 * Returns 0, or nl_enc_end's error (too long, no memory). */
int nl__log_build(nl_log_t *log, nl_buf_t *b, int64_t usec, int level, const char *event,
                  nl_tmpl_t *t, const nl_arg_t *args, const nl_head_t *h);

/* Ask the flusher thread to drain (a writer's deferred ring is half full, or a full buffer
 * waits). Never waits; 0 if the thread could not be reached right now (nl_flusher.c). */
int nl__flusher_kick(void *log);

/* Start the log's flusher thread (nl_flusher.c; at open, and in a forked child). Caller
 * holds fmu. Returns 0 or the pthread_create error. */
int nl__flusher_start(nl_log_t *log);

/* Watch the level file NL_CFG names (at open; nl_levelfile.c): as nl_level_file, but its
 * problems name the variable. */
int nl__level_file_env(nl_log_t *log, const char *path);
/* Re-read the level file if it changed since last time (flusher thread; nl_levelfile.c). */
void nl__levelfile_check(nl_log_t *log);
/* Write an event from the library itself (configuration problems and the like), straight
 * to the destination (nl_hook.c). */
void nl__log_self(nl_log_t *log, int level, const char *event, const char *what, const char *msg);
/* At open (nl_trace.c): parent.guid when a parent handed its GUID down (NL_GUID), and the
 * trace context of NL_TRACEPARENT (an invalid one is reported in the log and ignored). */
void nl__trace_from_env(nl_log_t *log, const char *parent_guid);

/* The destination NL_DEST put in place of nl_open's URL (NULL: none), remembered for this
 * thread so that nl_open_strerror names it: a program's message otherwise gives its own
 * URL ("-"), not the path that failed (nl_error.c). */
void nl__open_dest(const char *env);
/* Say on standard error why nl_open of url failed with err, once per process for the same
 * text (nl_error.c); errno is kept. */
void nl__open_report(const char *url, int err);

#endif
