/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_fork.h — private: keeping every open log usable across fork().
 *
 * A program that forks while other threads write (a forking server, a batch job that runs
 * helpers) would otherwise hand its child locks held by threads that do not exist there
 * (a deadlock on the child's first nl_write) and copies of lines the parent has accepted
 * but not yet written (written twice once the child flushes). So, through pthread_atfork:
 *
 *   before fork   every open log's locks are taken, in the lock order, so no structure is
 *                 caught half-changed;
 *   parent        they are released;
 *   child         they are released too, and what belongs to the parent is let go: its
 *                 buffered and staged lines (the parent writes them), its summary
 *                 accumulators (the parent reports them), its counters, other threads'
 *                 stages, and its TCP connection (the child connects on its own, so the
 *                 two byte streams never mix). Files (O_APPEND) and datagram sockets are
 *                 shared: every write is whole lines.
 *
 * The child has no flusher thread; its first call on a log starts one (nl__fork_resume),
 * so a child that only calls exec starts nothing.
 *
 * Global state: the list of open logs (under its own lock; the exit handler, nl_exit.h,
 * walks it too), the fork generation (bumped
 * in every child) and a flag saying that a fork happened in this process, after which
 * pipe destinations are written in pieces of at most PIPE_BUF bytes cut at line ends (the
 * kernel keeps such writes whole when another process writes to the same pipe). */
#ifndef NLKIT_NL_FORK_H
#define NLKIT_NL_FORK_H

#include <stdatomic.h>
#include <time.h>

#include "nlkit/nl.h"

extern _Atomic unsigned nl__fork_gen; /* how many forks made this process (0 in the original) */
extern _Atomic int nl__fork_seen;     /* a fork happened in this process or an ancestor */

/* Put a freshly opened log on the list (installing the handlers the first time).
 * Records the current fork generation in the log. */
void nl__fork_register(nl_log_t *log);

/* Take a log off the list: first thing in nl_close. */
void nl__fork_unregister(nl_log_t *log);

/* fn(head of the list of open logs, arg), holding the list's lock so that none of them is
 * closed meanwhile (nl_close waits), linked by fork_next (nl_exit.c). The lock is waited
 * for at most until deadline (CLOCK_REALTIME): -1 if it stayed busy (a fork stuck behind
 * a thread that holds a log's lock), else fn's result. */
int nl__fork_with_logs(int (*fn)(nl_log_t *head, void *arg), void *arg,
                       const struct timespec *deadline);

/* In a child, the first call on an inherited log: start its flusher thread again and
 * refresh the pid constant set by nl_const_std. Cheap to test for: the log's generation
 * against nl__fork_gen, two relaxed loads (nl__gate_forked in nl_gate.h, on every call). */
void nl__fork_resume(nl_log_t *log);

#endif
