/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nl.h — nlkit logging API: open a log on a destination, write events, close it.
 *
 *   nl_log_t *log = nl_open("-");                      // stdout; NL_DEST may override
 *   nl_write(log, "disk.read.start", "block=i", n);
 *   nl_write(log, "disk.read.end", "block=i value=l", n, nbytes);
 *   nl_close(log);
 *
 * Each call writes one line in the format of nl_bp.h:
 *   ts=<ISO-8601 UTC, microseconds> event=<name> level=<Level> guid=<uuid> [constants] [fields]
 *
 * Thread safety: every function taking an nl_log_t may be called from many threads at once,
 * except nl_close, which must be the last call on a log. Lines from different threads never
 * interleave or tear. Each thread's lines reach a file, pipe or TCP destination in the order
 * it wrote them; lines of different threads arrive in chunks of a few dozen (each thread
 * stages its lines in a 4 KiB buffer of its own, so writers on different cores share no
 * lock per line), so across threads the file is not sorted by ts. nl_flush, nl_close, the
 * flush period and a thread's exit all deliver what a thread has staged.
 * The library keeps no global mutable state beyond what is listed here: all other state
 * lives in the nl_log_t (a per-log template cache, buffers, counters and one background
 * flusher thread). Shared but immutable or per thread: a "C" locale object created once for
 * locale-independent number formatting, a per-thread cache of the current second's
 * timestamp text, the summarizer's per-thread note of the identity each thread used last
 * for a few activities (checked against the log and the identity before use, so it never
 * outlives or crosses a log), each thread's note of its staging buffers (up to four logs;
 * a buffer is shared with its log and freed by whichever lets go last), one pthread key,
 * created once per process, whose destructor hands an exiting thread's staged lines on,
 * for fork(): the list of open logs (under its own lock) with handlers registered once
 * by pthread_atfork, a count of forks and a flag saying that one happened; and for exit():
 * one handler registered with atexit(3), once per process, on the first nl_open (glibc ties
 * it to the library, so a dlclose of libnlkit.so runs it too), which walks that list.
 *
 * exit() without nl_close: the handler writes every open log's buffered lines, deferred
 * records and summaries out (as nl_close would, without freeing anything), each log on a
 * helper thread waited for at most four of its timeouts and a second, so a thread stuck
 * mid-write cannot make exit() hang; lines written after it (by other threads, or by a
 * later exit handler) go out at once. What it cannot deliver is said on stderr. A crash
 * (a fatal signal, abort, _exit) runs no handler: see nl_open(3) and LIMITS.md for what
 * it loses.
 *
 * fork(): open logs keep working in parent and child, whatever other threads were doing.
 * The handlers take every log's locks before the fork and release them after; the child
 * lets go of the parent's buffered lines, summary sums, counters and TCP connection (the
 * parent delivers the lines and summaries; the child connects on its own), and its first
 * call on the log starts its background thread. A child that only calls exec starts
 * nothing. nl_close must not race a fork of the same log.
 *
 * Failure: a destination that is down, full or slow never crashes the program and never
 * blocks a writer for longer than the destination's timeout. Lines that cannot be delivered
 * are counted (nl_dropped) and, once the destination works again, a line
 * "event=nl.log.dropped level=Warn n=<count>" reports them in the log itself.
 */
#ifndef NLKIT_NL_H
#define NLKIT_NL_H

#include <stdint.h>

#include "nl_bp.h"
#include "nlkit/nl_version.h" /* NLKIT_VERSION, generated from the build's project() */

#ifdef __cplusplus
extern "C" {
#endif

/** Default TCP/UDP port of x-netlog:// destinations (NetLogger's netlogd port). */
#define NL_DEFAULT_PORT 14380
/** Most fields one nl_write format may declare. */
#define NL_FMT_FIELDS_MAX 64
/** Most constant fields one log may carry. */
#define NL_CONST_MAX 32

/** An open log. Opaque. */
typedef struct nl_log nl_log_t;

/** Open a log on a destination URL:
 *   - "path" or "file://path"          append to a file (created 0644 if missing)
 *   - "-" / "&"                        standard output / standard error
 *   - "x-netlog://host[:port]"         TCP, one line per event (default port 14380)
 *   - "x-netlog-udp://host[:port]"     UDP, one datagram per event
 *   - "x-syslog://[FACILITY:]prog"     syslog datagram (RFC 3164) to /dev/log; levels map
 *                                      Fatal->EMERG, Error->ERR, Warn->WARNING, Info->INFO,
 *                                      Debug/Trace->DEBUG; FACILITY is a name such as
 *                                      "user" (default), "daemon" or "local0"..."local7"
 * Options may follow as a query: "?buffer=BYTES" (output buffer; 0 writes each line at
 * once; default 65536 for files, pipes and TCP, 0 for terminals and stderr),
 * "&flush=MS" (background flush period, default 1000), "&timeout=MS" (longest a write
 * may block on a network destination, default 1000), "&mode=deferred" or "&mode=sync"
 * (see below), and for x-syslog "&socket=PATH" (a unix datagram socket other than
 * /dev/log).
 *
 * Deferred mode ("mode=deferred", else NL_MODE=deferred; the default is sync): nl_write
 * and nl_pair record the event in binary in the calling thread's own buffer (BYTES of
 * "buffer=", at least 64 KiB, per thread and log) and the log's background thread formats
 * it later into exactly the line sync mode writes. It applies to buffered byte streams
 * (files, pipes, TCP, a redirected stdout); terminals, stderr, "buffer=0" and datagrams stay
 * sync. A full buffer is formatted by the writing thread itself, so nothing is dropped for
 * it; while the destination is down, calls write synchronously and return its NL_EIO.
 *
 * If the environment variable NL_DEST is set and non-empty it replaces `url`, so an
 * operator can redirect an unmodified program. The log gets a new GUID; NL_GUID, if set to
 * a UUID, is the parent's (a parent hands its GUID to the children it starts): every line
 * then carries parent.guid=<it>, so who called whom can be followed (a program that wants
 * to share its parent's GUID instead calls nl_set_guid(log, getenv("NL_GUID"))).
 * NL_TRACEPARENT, if set, is a W3C trace context taken in as by nl_set_traceparent (an
 * invalid one is reported in the log and ignored). NL_CFG, if set, names a level file (see
 * nl_level_file). NL_MODE ("sync" or "deferred") chooses the mode when the URL does not;
 * another value is reported on stderr once and means sync.
 *
 * A network destination that cannot be reached at open is not an error: the log opens
 * inactive (nl_is_active() == 0), counts what it cannot deliver, and reconnects. Returns
 * NULL on a malformed URL, a file that cannot be opened, or no memory; use nl_open_ex to
 * learn why. A malformed URL, and any failure of the destination NL_DEST named, is also
 * said on stderr, once per process for the same text, whatever the caller does with the
 * NULL. */
nl_log_t *nl_open(const char *url);

/** nl_open, storing the reason for a NULL result (an nl_status code) in *err if err is not
 *  NULL (0 on success). When the reason is NL_EIO (a file that cannot be opened), errno
 *  holds the system's own (EROFS, EACCES, ENOENT, EISDIR ...); nl_open_strerror says it. */
nl_log_t *nl_open_ex(const char *url, int *err);

/** Text for why nl_open_ex just failed with *err == err: the system's reason for NL_EIO
 *  ("Read-only file system", read from errno, so call it before anything else can change
 *  errno), nl_strerror(err) otherwise. When NL_DEST replaced the URL, prefixed with it
 *  ("NL_DEST=/var/log/app: Is a directory"). Never NULL; static, or this thread's own
 *  until its next call. */
const char *nl_open_strerror(int err);

/** Write an event at level Info. `fmt` declares the fields that follow as
 *  space-separated "name=TYPE" words, TYPE one of:
 *     s  const char *          (NULL is written as an empty value)
 *     d  double
 *     i  int
 *     l  long long
 *     u  unsigned long long
 *     t  double epoch seconds, written as an ISO-8601 timestamp (years 0001-9999; NaN,
 *        infinities and times outside that are refused: NL_ETS)
 *  `fmt` may be NULL or "" for no fields. A field named "guid" replaces the log's GUID
 *  in the fourth position; "ts", "event" and "level" are reserved. A field with the name
 *  of a constant field replaces that constant on this line. Each distinct fmt is parsed
 *  once per log and cached by its content, so a changed fmt is always honoured.
 *  Returns 0 if the line was written or filtered out by level; NL_EFMT for a malformed
 *  fmt (counted in nl_stats.errors, nothing written); NL_EIO if the destination could not
 *  take the line (counted in nl_dropped); NL_ETOOBIG for a line over NL_LINE_MAX (counted
 *  as dropped); NL_ETS for a 't' value that is no time (counted in nl_stats.errors,
 *  nothing written); NL_EINVAL for a NULL log or event. The arguments cannot be checked by
 *  the compiler (the format is not printf's): a wrong type is undefined behaviour, and
 *  tests/project/nl_write_args.py checks what a call's text shows (nl_write(3), NOTES). */
int nl_write(nl_log_t *log, const char *event, const char *fmt, ...);

/** nl_write at an explicit level (an enum nl_level value). */
int nl_writel(nl_log_t *log, int level, const char *event, const char *fmt, ...);

/** Hand one complete, already encoded line (for instance built with nl_enc_* of nl_bp.h)
 *  to the log's destination at `level`, as nl_write would: the level threshold, buffering,
 *  drop counting and reconnection apply; summarization and constant fields do not (the
 *  line is written as it is). The line must end in "\n" and contain no other newline;
 *  tools that re-emit or derive events (nl-detect) use this. Returns 0 (also when filtered
 *  by level), NL_EINVAL (NULL log or line, bad level, not exactly one line), NL_ETOOBIG
 *  (longer than NL_LINE_MAX; counted as dropped) or NL_EIO (dropped and counted). */
int nl_write_line(nl_log_t *log, int level, const char *line, size_t len);

/** Flush buffered lines to the destination now. Returns 0, or NL_EIO if some lines could
 *  not be delivered yet (they stay buffered while there is room). */
int nl_flush(nl_log_t *log);

/** Flush, stop the background thread, close the destination and free the log. NULL is
 *  allowed. No other call on the log may run concurrently with or after this one. A log
 *  still open at exit() is flushed by the library's exit handler (above); closing it in an
 *  exit handler of the program's own is fine too. */
void nl_close(nl_log_t *log);

/** Summarization modes (see nl_summarize). */
enum nl_summ_mode {
    NL_SUMM_FULL = 0,    /* every event written as it is (the default for every activity) */
    NL_SUMM_SUMMARY = 1, /* start/end pairs folded into NAME.summary lines only */
    NL_SUMM_BOTH = 2,    /* every event, and the summaries */
    NL_SUMM_OFF = 3,     /* nothing written for the activity */
    NL_SUMM_COUNT = 4,   /* point events (not .start/.end) counted: one NAME.summary line per
                            interval and key (as a summary's) with n, first, last and the
                            last event's fields as last.FIELD */
    NL_SUMM_DEDUP = 5    /* point events in full, but identical ones in a row (same fields)
                            as the first and one line with repeat=N (the N after it) when the
                            run ends: at a different event, or at the interval's end */
};

/** Summarize an activity, or every activity a glob matches ('*' and '?'), without
 *  changing the code that writes its events. An activity is an event name without its
 *  ".start" / ".end" suffix: "disk.read.start" and "disk.read.end" are activity
 *  "disk.read". A start and the next end with the same guid and the same values of every
 *  field whose name ends in ".id" (and parent.guid) form one pair; the pair is folded into
 *  the summary of its key: the activity, the log's constants, and its *.id fields less the
 *  trace's (parent.guid, trace.id, span.id, parent.span.id), or the fields a rule names
 *  with key= (below). The guid is never part of the key unless a rule says key=guid, so a
 *  guid per request costs nothing in summaries. The end event carries the event value in
 *  `value_field` (NULL: "value") and its outcome in field "status" (a rule's result=):
 *  counted as err.n (an HTTP status from 500 on, another non-zero number, or a word other
 *  than ok/success/true) and by HTTP class res.2xx ... res.5xx.
 *
 *  Every `interval_s` seconds (boundaries on whole multiples of the interval since the
 *  epoch; 0 = once per run, at nl_close) each key with any activity gets one line
 *  "event=ACTIVITY.summary" with: n (completed pairs), err.n (when ends carried a result),
 *  dur.min/max/sum/sd (seconds), v.min/max/sum/sd (event value), r.min/max/sum/sd (value
 *  per second inside the activity), span (last end - first start), open (pairs started and
 *  not ended at the interval's close), int (seconds the line covers), the key's fields and
 *  the log's constants, and the log's guid; ts is the interval's end. A pair counts in the
 *  interval where it ends.
 *  A start repeated before its end, and an end without a start, are counted as
 *  orphan.start / orphan.end, not mixed into the statistics. Events other than .start and
 *  .end of a summarized activity are written as they are (mode OFF: not at all). The
 *  background flusher writes summaries on time even if the program stops writing, so a
 *  stalled activity appears as "n=0 open=N"; nl_flush writes the running intervals
 *  (interval > 0) as partial lines, nl_close everything.
 *
 *  Rules also come from the environment: NL_SUMMARY (e.g.
 *  "gridftp.*=summary:1;job.loop=both:5:iterations;request=summary:1:key=route;*=full",
 *  syntax GLOB=MODE[:INTERVAL[:VALUE_FIELD]][:key=F[,F...]][:result=F], at most 4 key
 *  fields, each read from the end event, else from its start) and NL_SUMMARY_FILE (a rules
 *  file, one rule per line, '#' comments, re-read when it changes). The most specific rule
 *  wins (no wildcard beats any glob, then more literal characters); on a tie, API rules
 *  beat the file, the file beats NL_SUMMARY, and later beats earlier. Unmatched
 *  activities are written in full.
 *
 *  Durations come from CLOCK_MONOTONIC. Where the kernel keeps time with the CPU's
 *  time-stamp counter (its clocksource is "tsc"), the summarizer reads the counter instead
 *  (~10 ns against ~23 for clock_gettime) through a map to CLOCK_MONOTONIC that the flusher
 *  re-anchors about once a second; a map older than 3 s is not used, and one that leaves
 *  clock_gettime by more than 5 ms is withdrawn for good ("event=nl.summary.clock
 *  level=Warn"). NL_CLOCK=kernel keeps clock_gettime alone.
 *
 *  At most NLS_IDENT_MAX (4096) identities (summary keys, and pairs from their start to
 *  the flusher's next tick after their end) and 1024 activities are tracked per log;
 *  events beyond that are written in full, counted in nl_stats.overflow and reported by a line
 *  "event=nl.summary.overflow level=Warn". Returns 0, NL_ENAME (bad glob or field name),
 *  NL_EINVAL (bad mode, interval < 0, under 0.01 s but not 0, or over a year, too many
 *  rules) or NL_ENOMEM. */
int nl_summarize(nl_log_t *log, const char *glob, int mode, double interval_s,
                 const char *value_field);

/** A call site's handle on one start/end pair: the events NAME.start and NAME.end, the end
 *  carrying a value. Made once (outside the loop), it spares every call what nl_write
 *  resolves per call (the format, the event name, the rule's activity): where the activity
 *  is summarized, a pair costs about two-thirds of nl_write's (bench-throughput prints
 *  both). Otherwise its events are written exactly as
 *      nl_write(log, "NAME.start", "guid=s", guid)
 *      nl_write(log, "NAME.end", "guid=s VALUE_FIELD=d", guid, value)
 *  would write them, at level Info, under the same rules, level threshold and counters, and
 *  rule changes apply to a handle made before them. A pair is matched by its guid alone
 *  (no *.id fields; nl_write is there for those), and its summary's key has no fields
 *  (key=guid excepted). */
typedef struct nl_pair nl_pair_t;

/** A handle on activity `name` (NAME.start / NAME.end) whose end carries its value in field
 *  `value_field` (NULL: the end has no value field). The handle belongs to the log: valid
 *  until nl_close, which frees it; it may be used from any thread. Asking again for the
 *  same name and value field returns the same handle (a function may ask each time it
 *  runs). It plugs the summarizer
 *  into the log if it was not already. Returns NULL and sets *err (if err is not NULL) to
 *  NL_EINVAL (NULL log or name), NL_ENAME (a name that is not [A-Za-z0-9_.-], longer than
 *  NL_NAME_MAX with ".start", or a value field that is reserved (ts, event, level, guid) or
 *  an identity field (*.id)) or NL_ENOMEM. */
nl_pair_t *nl_pair(nl_log_t *log, const char *name, const char *value_field, int *err);

/** NAME.start for the identity `guid` (NULL: the log's GUID). Returns as nl_write does;
 *  NL_EINVAL for a NULL handle. */
int nl_pair_start(nl_pair_t *pair, const char *guid);

/** NAME.end for the identity `guid` (NULL: the log's GUID), with `value` in the handle's
 *  value field (ignored if it has none). Returns as nl_write does; NL_EINVAL for a NULL
 *  handle. */
int nl_pair_end(nl_pair_t *pair, const char *guid, double value);

/** Load summarization rules from a file (syntax as NL_SUMMARY, one rule per line), and
 *  re-read it whenever its modification time changes; a bad version is reported in the
 *  log ("event=nl.summary.config") and the previous rules stay. Returns 0, or an error
 *  (NL_EIO, NL_EPARSE, NL_ENAME, NL_EINVAL, NL_ETOOBIG) with the line and column in *err
 *  if err is not NULL; then no rule of the file is applied. Only a regular file is read,
 *  never blocking: a FIFO, device or directory is refused with NL_EINVAL. */
int nl_summary_file(nl_log_t *log, const char *path, nl_perr_t *err);

/** Set the log's level threshold: events with a level numerically above it are not
 *  written. Returns 0 or NL_EINVAL. */
int nl_set_level(nl_log_t *log, int level);
/** The log's current level threshold. */
int nl_get_level(const nl_log_t *log);

/** Use a level file: a text file whose first word that is not a '#' comment is a level
 *  name, optionally written "level=NAME" (e.g. "level=Debug"). The file is read now and
 *  re-read by the log's flusher whenever its modification time changes, so an operator can
 *  turn detail up or down without a restart. A missing file leaves the level unchanged and
 *  is retried. Only a regular file is read, never blocking: a FIFO, device or directory is
 *  refused and reported in the log ("nl.log.config"), as is a file over 64 KiB. Returns 0,
 *  NL_ELEVEL for an unknown level in the file, NL_ETOOBIG, or NL_EINVAL (also for a file
 *  that is not a regular one). */
int nl_level_file(nl_log_t *log, const char *path);

/** Add (or replace) a constant field written on every line after the guid, e.g.
 *  nl_const_set(log, "host", "gw1"). Returns 0, NL_ENAME for an invalid or reserved name,
 *  NL_EINVAL if NL_CONST_MAX constants are already set, or NL_ENOMEM. */
int nl_const_set(nl_log_t *log, const char *name, const char *value);
/** Add the usual constants: host (gethostname), prog (program name), pid. */
int nl_const_std(nl_log_t *log);

/** Make a new random GUID (RFC 4122 UUID, lower case) into out[NL_GUID_LEN + 1]. */
void nl_guid_new(char *out);
/** The log's GUID (written when a line carries no guid field of its own). The pointer
 *  stays valid until nl_close. */
const char *nl_guid(const nl_log_t *log);
/** Set the log's GUID. It must be a UUID; returns 0 or NL_EINVAL. */
int nl_set_guid(nl_log_t *log, const char *guid);

/** Length of a W3C traceparent as nl_traceparent writes it, without its NUL. */
#define NL_TRACEPARENT_LEN 55

/** Take in a W3C trace context (a `traceparent` header, "00-<32 hex trace id>-<16 hex
 *  parent span id>-<2 hex flags>"): from now on every line carries trace.id, a span.id of
 *  this program's own (new, random) and parent.span.id, so one query finds a trace's
 *  events across hosts and programs (nl-load files them as identities). For a program that
 *  serves one request per process; a server handling many writes trace.id=s on each call
 *  instead. Returns 0, NL_EINVAL if it is not a valid traceparent (upper case, an all-zero
 *  id, version ff, wrong length), or what nl_const_set returns. */
int nl_set_traceparent(nl_log_t *log, const char *traceparent);
/** The traceparent to hand on to a child (its NL_TRACEPARENT) or a request's header: this
 *  program's trace id and span id, into out (at least NL_TRACEPARENT_LEN + 1 bytes). A
 *  program that was given none starts a trace here, and its own lines carry it from now
 *  on. Returns 0, or NL_EINVAL. */
int nl_traceparent(nl_log_t *log, char *out, size_t cap);

/** 1 if the destination is currently working (open, connected, last write succeeded),
 *  0 if it is failing and lines are being buffered or dropped. */
int nl_is_active(const nl_log_t *log);

/** Lines that could not be delivered since the log was opened. */
uint64_t nl_dropped(const nl_log_t *log);

/** Counters of one log, for monitoring the monitor. */
typedef struct nl_stats {
    uint64_t written;    /* lines accepted for the destination */
    uint64_t filtered;   /* calls skipped by the level threshold */
    uint64_t dropped;    /* lines that could not be delivered */
    uint64_t errors;     /* calls rejected: malformed fmt, invalid arguments */
    uint64_t reconnects; /* times a failed destination came back */
    uint64_t folded;     /* start/end events folded into summary lines written so far */
    uint64_t summaries;  /* NAME.summary lines written */
    uint64_t overflow;   /* events written in full because no identity could be tracked */
    uint64_t orphans;    /* orphan starts and ends (in summary lines written so far) */
    uint64_t evicted;    /* once-per-run identities written early to make room */
} nl_stats_t;

/** Fill *st with the log's counters. Returns 0 or NL_EINVAL. */
int nl_stats(const nl_log_t *log, nl_stats_t *st);

#ifdef __cplusplus
}
#endif
#endif
