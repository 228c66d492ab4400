/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_stage.h — private: per-thread staging of a stream sink's lines.
 *
 * Every thread that writes to a sink appends its lines to its own small buffer (a stage),
 * under the stage's own lock, which only that thread and an occasional drain ever take.
 * The stage goes to the sink as one chunk when it is full, when the thread exits, and on
 * every drain (the flusher thread's tick, nl_flush, nl_close). So writers on different
 * cores share no cache line per call: the sink's shared buffer and its lock are touched
 * once per chunk (~40 lines), not once per line. A thread's lines keep their order; lines of
 * different threads interleave by chunks, not by lines.
 *
 * Lock order: the list lock (nl_stages_t.mu), then a stage's lock, then the sink's locks
 * (taken by the put callback).
 *
 * Global state: one pthread key per process, created once, whose destructor hands off an
 * exiting thread's stages; and a per-thread note of the thread's stages (a few slots). */
#ifndef NLKIT_NL_STAGE_H
#define NLKIT_NL_STAGE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Takes a chunk of `lines` whole lines (len bytes) for the sink. Called with the stage
 * locked; must not take the list lock. */
typedef void (*nl_stage_put_fn)(void *ctx, const char *p, size_t len, uint32_t lines);

typedef struct nl_stage nl_stage_t;

typedef struct nl_stages {
    pthread_mutex_t mu; /* guards the list */
    nl_stage_t *head, *tail;
    size_t cap; /* bytes per stage; 0: staging is off */
    nl_stage_put_fn put;
    void *ctx;
    _Atomic uint64_t written_gone; /* lines accepted by stages since freed */
    _Atomic int writers;           /* threads holding a stage here (made, not let go) */
} nl_stages_t;

/* Set up an empty list of stages of cap bytes each (0: staging off). */
void nl__stages_init(nl_stages_t *ss, size_t cap, nl_stage_put_fn put, void *ctx);

/* The calling thread's stage for ss, locked; made on first use. NULL if staging is off or
 * memory is short (the caller then writes directly). */
nl_stage_t *nl__stage_lock(nl_stages_t *ss);

/* Append one line (len <= cap) to a locked stage, handing the stage's contents to the sink
 * first if the line does not fit. Counts the line as accepted. */
void nl__stage_add(nl_stage_t *st, const char *line, size_t len);

/* Hand a locked stage's contents to the sink now (before a line that bypasses the stage,
 * so the thread's lines stay in order). */
void nl__stage_handoff(nl_stage_t *st);

void nl__stage_unlock(nl_stage_t *st);

/* Hand every stage's contents to the sink, and free the stages of threads that exited. */
void nl__stages_drain(nl_stages_t *ss);

/* How many threads write through ss: those that made a stage here and have not let go of
 * it (exited, or evicted it for a fifth sink). A hint, read without a lock. */
int nl__stages_writers(nl_stages_t *ss);

/* Lines accepted by all stages so far (including those already handed off). */
uint64_t nl__stages_written(nl_stages_t *ss);

/* Drain, then detach every stage from ss (threads that still hold one free it when they
 * next look or exit). ss must not be used afterwards except to be initialized again. */
void nl__stages_close(nl_stages_t *ss);

/* fork() (nl_fork.c): lock the list and every stage; unlock them (parent); in the child,
 * empty every stage (its lines are the parent's to write), zero the counts, let go of the
 * stages of threads that do not exist there, then unlock. */
void nl__stages_fork_lock(nl_stages_t *ss);
void nl__stages_fork_unlock(nl_stages_t *ss);
void nl__stages_fork_child(nl_stages_t *ss);

#endif
