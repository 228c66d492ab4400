/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_sink.h — private: a log's destination. Owns the output buffer, the connection, the
 * retry schedule and the count of lines it could not deliver. All functions are
 * thread-safe. */
#ifndef NLKIT_NL_SINK_H
#define NLKIT_NL_SINK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_flight.h"
#include "nl_resolve.h"
#include "nl_stage.h"
#include "nl_url.h"
#include "nlkit/nl_bp.h"

typedef struct nl_sink {
    nl_url_t url;
    /* Two locks so that writers keep appending while a full buffer goes out: `mu` guards
     * the fill buffer (buf/len/cap) and, for datagram sinks, fd; `io_mu` guards a stream
     * sink's fd and the out buffer. Lock order: mu, then io_mu; never mu while holding
     * io_mu. */
    pthread_mutex_t mu;
    pthread_mutex_t io_mu;
    int fd;              /* -1 while closed or disconnected */
    int own_fd;          /* we close fd (not for stdout/stderr) */
    int stream;          /* byte stream (file, pipe, tcp) rather than datagrams */
    int guard_sigpipe;   /* fd is a pipe or socket reached with write(2) */
    int pipe;            /* fd is a pipe: after a fork, written PIPE_BUF at a time */
    int fifo;            /* a FIFO named by path: opened non-blocking, and again by the
                            flusher thread while it has no reader */
    int sock_out;        /* stdout/stderr is a socket: sent with MSG_DONTWAIT */
    int regular;         /* a regular file nlkit opened (O_APPEND): a line torn by a full
                            disk is cut off again (untear_file) */
    nl_flight_t flight;  /* TCP: lines sent and maybe not acknowledged (under io_mu) */
    nl_lookup_t *lookup; /* the host name's lookup, while it runs late (connecting thread
                            only: nl_open's caller, then the flusher, then nl_close) */
    int write_through;   /* flush after every line */
    char *buf;           /* fill buffer of a stream sink: whole lines not yet handed out */
    size_t len, cap;
    char *out; /* out buffer (under io_mu): older than buf; out[off, len) unsent */
    size_t out_off, out_len, out_cap;
    _Atomic uint64_t unreported; /* drops not yet reported in the log */
    char guid[NL_GUID_LEN + 1];  /* for the drop report line */
    pid_t pid;
    int64_t syslog_sec; /* second of the cached syslog timestamp */
    char syslog_time[16];
    nl_stages_t stages;       /* per-thread staging in front of buf (stream sinks, not
                                 write-through) */
    _Atomic uint64_t written; /* lines accepted without a stage */
    /* Hand-off (nl__sink_set_handoff): a writer that fills the buffer leaves it in out for
     * the flusher thread to write, instead of calling write(2) itself. */
    int (*kick)(void *ctx); /* wake the flusher; 0 if it could not be reached right now */
    void *kick_ctx;
    _Atomic int handoff;  /* on while the flusher thread runs (not for write-through) */
    int ncpu;             /* CPUs this process may run on: a hand-off needs a spare one */
    _Atomic int kick_due; /* a handed-off buffer waits for a kick that did not get through */
    /* Read by every deferred write (nl_defer.c), written seldom: padded into a cache line
     * of their own, so the flusher's writes to the fields around them do not pull it away
     * from the writers' cores on each line. */
    char hot_pad0_[64];
    _Atomic int active;
    _Atomic int stalled; /* a write timed out: writers stop flushing until the flusher
                            thread gets through */
    _Atomic int exiting; /* the program is exiting (nl_exit.c): every line goes out at
                            once, past the stages and the deferred rings */
    char hot_pad1_[64];
    _Atomic uint64_t dropped;
    _Atomic uint64_t reconnects;
    _Atomic int why; /* why the destination last failed: an errno, NL_WHY_NONAME, 0 */
} nl_sink_t;

/* nl_sink_t.why: the host name did not resolve (or its lookup was still running). */
#define NL_WHY_NONAME (-1)

/* Open the destination. A network destination that is down is not an error (the sink
 * opens inactive and retries on nl__sink_tick), but it is said at once on standard error,
 * named, with the reason (once per process for the same text); a file that cannot be
 * opened is an error. Returns 0, NL_EIO (with errno set) or NL_ENOMEM. */
int nl__sink_open(nl_sink_t *s, const nl_url_t *u, const char *guid);

/* Hand one complete line (ending in '\n') to the destination at the given level.
 * Returns 0 (the line is accepted, and counted in nl__sink_written), or NL_EIO if the
 * line was dropped (counted). Blocks at most the URL's timeout, and only when a full
 * buffer must be written out first. An accepted line may still be dropped later (with
 * its thread's staged chunk) if the destination fails before it goes out; that drop is
 * counted and reported like any other. */
int nl__sink_write(nl_sink_t *s, const char *line, size_t len, int level);

/* Hand `lines` whole lines (len bytes) formatted by the deferred path (nl_defer.c) to a
 * buffered stream sink, past the stages: a thread's deferred lines keep their order, since
 * that thread's lines all pass through its ring. Accepted lines are counted as written,
 * refused ones as dropped. Returns 0 or NL_EIO. */
int nl__sink_put(nl_sink_t *s, const char *p, size_t len, uint32_t lines);

/* The deferred consumer's way to build lines in the fill buffer itself, not copied there:
 * nl__sink_room takes the sink's lock and returns where the buffer's free room starts and
 * its size (*room, at least min: a full buffer goes out first, as for a write); or NULL,
 * the lock not held, when it cannot (the destination stalled or failed, or min exceeds
 * the buffer): the caller then hands its lines over by nl__sink_put, which drops and
 * counts them. nl__sink_fill then says how many bytes of whole lines the caller wrote
 * there (0 or more), counts them as written and releases the lock. Between the two the
 * caller only builds lines (the lock is the one every writer to the sink takes). */
char *nl__sink_room(nl_sink_t *s, size_t min, size_t *room);
void nl__sink_fill(nl_sink_t *s, size_t len, uint32_t lines);

/* Whether the deferred path may serve this sink: a buffered byte stream (not datagrams,
 * not write-through). */
static inline int nl__sink_defers(const nl_sink_t *s) { return s->stream && !s->write_through; }

/* Count n lines as dropped that never reached the sink (e.g. too long to encode). */
void nl__sink_drop(nl_sink_t *s, uint64_t n);

/* Lines accepted so far. */
uint64_t nl__sink_written(nl_sink_t *s);

/* Write out pending bytes (every thread's staged lines included). Returns 0, or NL_EIO if some
 * remain pending. */
int nl__sink_flush(nl_sink_t *s);

/* Periodic work from the log's flusher thread: reconnect if down, flush, report drops. */
void nl__sink_tick(nl_sink_t *s);

/* Turn on the hand-off of full buffers to the log's flusher thread, which then calls
 * nl__sink_drain when kick(ctx) wakes it (kick NULL: off again, writers write their own
 * buffers). kick must not block (the writer holds the sink's locks): it returns 0 when it
 * could not wake the thread now, and a later write tries again. Caller: the thread
 * starting or stopping the flusher; a forked child is back to writing its own buffers
 * until its flusher starts again. */
void nl__sink_set_handoff(nl_sink_t *s, int (*kick)(void *ctx), void *ctx);

/* The flusher thread's side of a hand-off: write out the buffer a writer left, within
 * the timeout. */
void nl__sink_drain(nl_sink_t *s);

/* The program is exiting (nl_exit.c): from now on every line is written out at once, as
 * with buffer=0 (the deferred path writes synchronously too), so a line another thread or
 * a later exit handler writes after the exit's flush is not left in a buffer. */
void nl__sink_exiting(nl_sink_t *s);

/* At exit (nl_exit.c), after nl__sink_exiting: every thread's stage and the buffers out now,
 * within the timeout. Returns the lines that will never be delivered: those the
 * destination refused and the log has not reported in itself (taken off the count nl_close
 * says, so it is said once), and those still pending (a destination that is down or
 * stalled: the flusher thread, not this call, reconnects). */
uint64_t nl__sink_exit_flush(nl_sink_t *s);

/* The destination's name for a message on standard error, in out[cap], with the reason it
 * last failed when one is known: "x-netlog://127.0.0.1:9 (Connection refused)". */
void nl__sink_describe(const nl_sink_t *s, char *out, size_t cap);

/* Update the GUID used on drop reports. */
void nl__sink_set_guid(nl_sink_t *s, const char *guid);

/* fork() (nl_fork.c): take the sink's locks; release them (parent); in the child, let go
 * of the parent's pending lines, counts and TCP connection (the child reconnects on its
 * own), then release them. */
void nl__sink_fork_prepare(nl_sink_t *s);
void nl__sink_fork_parent(nl_sink_t *s);
void nl__sink_fork_child(nl_sink_t *s);

/* Flush what can be flushed, close, free. Lines still pending are counted as dropped. */
void nl__sink_close(nl_sink_t *s);

#endif
