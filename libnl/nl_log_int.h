/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_log_int.h — private: the inside of an nl_log_t, shared by the modules that make it. */
#ifndef NLKIT_NL_LOG_INT_H
#define NLKIT_NL_LOG_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "nl_fmt.h"
#include "nl_sink.h"
#include "nlkit/nl.h"

/* A file an operator edits while the program runs (level file, rules file): its path and
 * the modification time last applied. */
typedef struct nl_watch {
    char *path; /* NULL: none */
    struct timespec mtime;
    int seen; /* mtime holds the time of a read */
} nl_watch_t;

/* Watch `path` from now on (a copy is kept); the next nl__watch_changed reports it.
 * Returns 0 or NL_ENOMEM. */
int nl__watch_set(nl_watch_t *w, const char *path);
/* 1 if the watched file exists with a modification time other than the last one seen
 * (and records it); 0 if unchanged, missing, or nothing is watched. */
int nl__watch_changed(nl_watch_t *w);
void nl__watch_free(nl_watch_t *w);

/* The parts of every line that change rarely: GUID and constant fields, pre-encoded.
 * Immutable once published; replaced whole (copy on write) and kept until nl_close, so a
 * writer holding an old one is never left with freed memory. */
typedef struct nl_head {
    uint32_t gen; /* increases with every replacement */
    char guid[NL_GUID_LEN + 1];
    int nconst;
    char *cname[NL_CONST_MAX];     /* constant names */
    char *cvalue[NL_CONST_MAX];    /* constant values, raw */
    size_t coff[NL_CONST_MAX + 1]; /* const i is enc[coff[i], coff[i+1]) */
    char *enc;                     /* " name=value" for every constant */
    struct nl_head *older;         /* the head this one replaced */
} nl_head_t;

struct nl_log {
    nl_sink_t sink;
    nl_tcache_t tcache;
    _Atomic(nl_head_t *) head;
    _Atomic int level;
    _Atomic uint64_t filtered, errors; /* written: the sink counts it */
    pthread_mutex_t cfg_mu;            /* serialises head replacement and the level file */
    nl_watch_t level_file;             /* under cfg_mu */
    pthread_t flusher;
    pthread_mutex_t fmu;
    pthread_cond_t fcond;
    int stop;        /* under fmu */
    int has_flusher; /* under fmu: flusher is a running thread (not in a fresh child) */
    int flush_ms;
    _Atomic(struct nls *) summ;           /* the summarizer, made when the first rule arrives */
    _Atomic int std_pid;                  /* nl_const_std set "pid": refreshed in a forked child */
    _Atomic unsigned fork_gen;            /* nl__fork_gen when the flusher last started */
    struct nl_log *fork_prev, *fork_next; /* the list of open logs (nl_fork.c) */
};

/* Start the log's flusher thread (at open, and in a forked child). Caller holds fmu.
 * Returns 0 or the pthread_create error. */
int nl__flusher_start(nl_log_t *log);

/* Re-read the level file if it changed since last time (flusher thread). */
void nl__levelfile_check(nl_log_t *log);
/* Write an event from the library itself (configuration problems and the like). */
void nl__log_self(nl_log_t *log, int level, const char *event, const char *what, const char *msg);

#endif
