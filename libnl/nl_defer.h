/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_defer.h — private: the deferred write path (NL_MODE=deferred, or "?mode=deferred").
 *
 * A writing thread does not format its line: it records the event in binary — the
 * template, the head (GUID and constants), the clock reading, the level, the event name
 * and the arguments, strings copied — in a ring of its own for the log (one producer, the
 * thread; lock-free on its side). A consumer — the log's flusher thread, or the writer
 * itself when its ring is full — turns the records into lines and hands them to the sink
 * by the chunk: by the ring's line builder (nl_dline.h), which renders what lines share
 * once and every value by the encoder's own functions, or by the very code the synchronous
 * path uses (nl__log_build) for an event name the record holds a copy of. So the bytes are
 * the same; only where and when the formatting runs changes.
 *
 * Order: a thread's lines keep their order, including the lines the library writes on
 * that thread (a summarizer's dedup line, nl_write_line): in deferred mode those go into
 * the ring too, already formatted. Lines of different threads interleave by chunks.
 *
 * A full ring is never dropped: the writer waits for the flusher to free room while it is
 * draining that ring, else formats what is there itself and hands it to the sink, which
 * then waits or drops and counts exactly as a synchronous write would (the URL's timeout).
 * While the destination is down or stalled the writer drains its ring and writes
 * synchronously, so nl_write's return says at once that the line was dropped, as in
 * synchronous mode.
 *
 * Lock order: the list lock (nl__defer_t.mu), then a ring's consumer lock, then the sink's.
 *
 * Global state: one pthread key per process, created once, whose destructor drains and
 * lets go of an exiting thread's rings; and a per-thread note of its rings (a few slots). */
#ifndef NLKIT_NL_DEFER_H
#define NLKIT_NL_DEFER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "nl_buf.h"
#include "nl_fmt.h"
#include "nl_head.h"
#include "nl_sink.h"
#include "nl_tsc.h"

typedef struct nl__dring nl__dring_t;

/* What the deferred path needs of its log, registered by the log (nl_log.c), so this
 * module names nothing above it. */
typedef struct nl__defer_ops {
    /* Build the event's line into b, as the synchronous path does (nl__log_build). */
    int (*build)(void *ctx, nl_buf_t *b, int64_t usec, int level, const char *event,
                 nl_tmpl_t *t, const nl_arg_t *args, const nl_head_t *h);
    /* Wake the log's flusher thread to drain; never waits; 0 if it could not be reached. */
    int (*kick)(void *ctx);
} nl__defer_ops_t;

/* A counter map kept by its generation (nl_defer.c: keep_map), under a sequence count. */
#define NL__DEFER_MAPS 4
typedef struct nl__defer_map {
    _Atomic uint64_t seq; /* odd while rewritten */
    _Atomic uint64_t gen, tsc0, mult;
    _Atomic int64_t ns0, rt_off;
} nl__defer_map_t;

typedef struct nl__defer {
    /* read by every writer */
    size_t cap;                 /* bytes per ring, a power of two */
    nl_sink_t *sink;            /* where the lines go */
    const nl__defer_ops_t *ops; /* the log's build and kick, called with ctx */
    void *ctx;
    nl__tsc_t tsc;             /* the caller's clock: the CPU's counter where the kernel uses it */
    _Atomic int64_t rt_off_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC, sampled by the flusher */
    _Atomic uint64_t tsc_until; /* writers record raw counter readings up to this one (0: none) */
    char pad_[64];             /* the list lock, taken by every drain, on other cache lines */
    pthread_mutex_t mu;        /* guards the list */
    nl__dring_t *head;
    nl__defer_map_t maps[NL__DEFER_MAPS]; /* the last maps, for the records read under them */
} nl__defer_t;

/* 1 for a deferred log, 0 for a synchronous one, from the URL's mode option (mode: -1 not
 * given, 0 sync, 1 deferred), else NL_MODE ("sync" or "deferred"). An NL_MODE of another
 * value is reported on stderr (once per process) and means sync. */
int nl__defer_wanted(int url_mode);

/* The deferred state of a log writing to sink, rings of about ring_bytes each (rounded up
 * to a power of two, at least 64 KiB), the log's ops called with ctx; NULL when memory is
 * short (the log stays synchronous). */
nl__defer_t *nl__defer_new(const nl__defer_ops_t *ops, void *ctx, nl_sink_t *sink,
                          size_t ring_bytes);

/* Record an event (the arguments as nl_write read them; t must live until the log closes:
 * a cached template). ev_kept: the event name's text lives, unchanged, until the log
 * closes (a pair handle's), so the record points to it; else it is copied unless it is a
 * literal of the program's. Returns 1 when recorded; 0 when not taken — the destination
 * is down or stalled, or the record would be too large — after the thread's earlier
 * records went to the sink, so the caller writes the line now, synchronously, in order. */
int nl__defer_event(nl__defer_t *d, int level, const char *event, int ev_kept, nl_tmpl_t *t,
                    const nl_arg_t *args, const nl_head_t *h);

/* nl__defer_event with the clock reading given (microseconds since the epoch): the tests
 * compare what it makes with the synchronous encoder at the same time. */
int nl__defer_event_at(nl__defer_t *d, int64_t usec, int level, const char *event, int ev_kept,
                       nl_tmpl_t *t, const nl_arg_t *args, const nl_head_t *h);

/* A finished line (ending in '\n') written on this thread past nl_write (nl_write_line,
 * a line of the library's own): recorded as it is, behind the thread's events. Returns 1
 * when recorded, 0 when not taken (as nl__defer_event; the caller writes it now). */
int nl__defer_line(nl__defer_t *d, const char *line, size_t len);

/* Turn every thread's records into lines and hand them to the sink; free the rings of
 * threads that exited (flusher tick, a kick, nl_flush, nl_stats). */
void nl__defer_drain(nl__defer_t *d);

/* While the caller's clock is calibrating (the counter's rate not yet measured), when
 * (CLOCK_MONOTONIC) a tick can measure it: 1 and *due, so the flusher wakes then rather
 * than a flush period later, and writers read the counter from about 0.1 s after the open
 * on; else 0. */
int nl__defer_calibrate_due(nl__defer_t *d, struct timespec *due);

/* The flusher's once-per-tick care of the caller's clock (the counter's map, the offset
 * to the wall clock). */
void nl__defer_tick(nl__defer_t *d);

/* Drain everything, detach every ring (threads that still hold one free it when they next
 * look or exit) and free d. At nl_close, after the flusher stopped. */
void nl__defer_close(nl__defer_t *d);

/* fork() (nl_fork.c): take the list lock and every ring's consumer lock; release them
 * (parent); in the child, empty every ring (the records are the parent's to write), let go
 * of the rings of threads that do not exist there, and release them. */
void nl__defer_fork_prepare(nl__defer_t *d);
void nl__defer_fork_parent(nl__defer_t *d);
void nl__defer_fork_child(nl__defer_t *d);

#endif
