/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_exit.h — private: the lines a program wrote before exit() reach the destination even
 * when it never called nl_close.
 *
 * exit() (or a return from main) runs the handlers atexit(3) registered and ends the
 * process: whatever a log still held in its buffers, its threads' stages or its deferred
 * rings was lost without a word (20,000 short lines then exit(0): 365 to 4,177 lost). So
 * the first nl_open registers one handler, which, for every log still open:
 *
 *   - switches it to writing every later line out at once (nl__sink_exiting): a line that
 *     another thread, or a later exit handler, writes after this flush is not buffered;
 *   - writes what its summarizer holds, as nl_close would (the last partial intervals and
 *     once-per-run summaries), formats every thread's deferred records, hands every
 *     thread's stage to the destination and writes the buffers out (nl__log_exit_flush);
 *   - says on standard error how many lines it could not deliver (a destination that is
 *     down, full or stalled), as nl_close does.
 *
 * The flushing runs on a helper thread per log and the exiting thread waits for it at most
 * four of the log's timeouts and a second: a thread stuck mid-write, holding the log's
 * locks (or the exiting thread itself, when exit() was called from a signal handler that
 * interrupted a write), cannot make exit() hang. A log whose flush did not finish in time
 * is said on standard error (its buffered lines are lost) and left as it is: nl_close on it
 * afterwards returns at once rather than free what the stuck helper still uses.
 *
 * A program that calls nl_close itself is unaffected: nl_close takes the log off the list
 * of open logs first, so the handler never sees it; a program whose own exit handler
 * (registered before its first nl_open, so run after this one) closes its logs finds them
 * flushed and still usable. After fork() the child inherits the handler and the list: its
 * exit writes only its own lines (the parent's buffered lines were let go in the child,
 * nl_fork.h). A crash (a fatal signal, abort, _exit) runs no handler: see LIMITS.md.
 *
 * Global state: one handler registered with atexit(3), once per process (pthread_once), on
 * the first nl_open; glibc ties it to the library that registered it, so a dlclose of
 * libnlkit.so runs it then (every log should be closed before that, as ever); and the
 * wait's lock and condition, used only while the handler runs. It walks the list of open
 * logs that nl_fork.c keeps, under that list's lock. */
#ifndef NLKIT_NL_EXIT_H
#define NLKIT_NL_EXIT_H

#include "nlkit/nl.h"

/* Register the exit handler, the first time (nl_open; later calls do nothing). */
void nl__exit_arm(void);

/* The exit handler's work for one log (nl_log.c): every later line written out at once,
 * the summarizer's last lines, every thread's records and stages, the buffers written,
 * and what could not be delivered said on standard error. Bounded by the log's timeout
 * unless another thread holds the log's locks. */
void nl__log_exit_flush(nl_log_t *log);

#endif
