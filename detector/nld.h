/* SPDX-License-Identifier: BSD-3-Clause */
/* nld.h — the detector engine behind nl-detect: feed it event lines (and the passing of
 * time), it writes nl.anomaly*, nl.missing* and nl.alert.* lines to nlkit logs.
 *
 * Time is event time: the largest ts seen so far ("now"), so replaying a file gives the
 * same output as watching it live. A live reader may also advance time with the wall
 * clock (nld_advance) so that a silent stall is still noticed. Not thread-safe: one
 * engine, one thread. */
#ifndef NLKIT_NLD_H
#define NLKIT_NLD_H

#include <stdint.h>
#include <stdio.h>

#include "nld_config.h"
#include "nlkit/nl.h"

typedef struct nld nld_t;

/* Event time jumps further than this only when NLD_CLOCK_CONFIRM events in a row lie beyond
 * it (nld_run.c): a host with a wrong clock sends bursts, which the others interrupt. */
#define NLD_CLOCK_JUMP_US ((int64_t)600 * 1000000)
#define NLD_CLOCK_CONFIRM 64

/* Counters, for the exit report and for tests. */
typedef struct nld_counts {
    uint64_t lines;          /* input lines seen (blank and comment lines included) */
    uint64_t events;         /* lines parsed as events */
    uint64_t bad;            /* lines rejected (malformed, too long) */
    uint64_t values;         /* values fed to streams */
    uint64_t novalue;        /* selected lines without a usable value (absent, not a number,
                                undefined rate) */
    uint64_t nonfinite;      /* values refused for being inf, -inf or nan (a 1e400 is inf) */
    uint64_t clock_outliers; /* events stamped over NLD_CLOCK_JUMP_US ahead, fewer than
                                NLD_CLOCK_CONFIRM in a row: event time did not jump to them */
    uint64_t flags;          /* values flagged, over all algorithms */
    uint64_t episodes;       /* anomaly episodes reported (nl.anomaly.start written) */
    uint64_t short_runs;     /* runs of flags shorter than episode.min: counted, not written */
    uint64_t streams;        /* streams created */
    uint64_t expired;        /* streams dropped after being idle */
    uint64_t evicted;        /* streams dropped to stay within max-streams */
    uint64_t missing;        /* nl.missing reported */
    uint64_t late;           /* nl.missing.late reported */
    uint64_t orphan_end;     /* ends of watched activities without a pending start */
    uint64_t restarted;      /* starts repeated before their end */
    uint64_t pend_evicted;   /* pending starts forgotten to stay within max-pending */
    uint64_t alerts;         /* nl.alert.start written */
    uint64_t cleared;        /* nl.alert.end written */
    uint64_t out_errors;     /* output lines that could not be written (see the logs' counts) */
    uint64_t oom;            /* updates skipped for lack of memory */
    uint64_t seeded;         /* past values taken from the archive (history.from=db, ...) */
    uint64_t base_skipped;   /* values a subscription's baseline left out: an anomaly episode
                                of their key was open */
    uint64_t seed_errors;    /* keys whose past values could not be read (reported) */
    uint64_t restored;       /* open episodes and alerts of a previous run taken up again */
    uint64_t fatigued;       /* flags that would have started an episode but did not clear
                                the bar the stream's recent reports raised (fatigue=) */
    uint64_t escalated;      /* episodes raised by a much rarer flag (nl.anomaly.escalate), or
                                paged through a hold-off by one */
    uint64_t held;           /* episodes within the hold-off of one before: not paged */
    uint64_t beats;          /* ... of them, runs on the beat of the stream's earlier runs */
    uint64_t learning;       /* streams still learning now (too few values to judge) */
    uint64_t unmatched;      /* stream and subscription definitions said to match no event,
                                or to find no value= in the events they match */
    uint64_t unconfirmed;    /* lone flags on a stream that spikes, which the next value did
                                not confirm (confirm=) */
    uint64_t tracked;        /* streams and subscription keys held now */
    uint64_t pending;        /* starts awaiting their end now */
} nld_counts_t;

/* Past values of one key, to start a stream's history or a subscription's baseline from
 * (nl-detect reads them from the archive, SQLite or PostgreSQL). Called once per new key with the
 * selector, the line that made the key, how many values are wanted (the newest that many)
 * and the time range [since, until) in usec (since INT64_MIN: no limit). It calls
 * add(add_ctx, x, ts_usec) for each value, oldest first, with its event time (INT64_MIN:
 * unknown), and returns 0 or a negative NL_E* code. */
typedef int (*nld_seed_fn)(void *ctx, const nld_sel_t *sel, const nl_rec_t *r, uint32_t limit,
                           int64_t since, int64_t until,
                           void (*add)(void *add_ctx, double x, int64_t ts_usec), void *add_ctx);

/* What the engine tells the alert layer (alerts/, through nl-detect) besides writing its
 * lines: every anomaly episode, missing end and subscription alert that starts or ends. */
enum nld_rkind { NLD_R_ANOMALY = 1, NLD_R_MISSING = 2, NLD_R_ALERT = 3 };
enum nld_rphase { NLD_R_START = 1, NLD_R_END = 2 };

typedef struct nld_report {
    int kind;       /* enum nld_rkind */
    int phase;      /* enum nld_rphase */
    const char *id; /* who, the same over restarts and between start and end: a letter for
                       the kind, then the identifying fields as encoded (may hold NULs) */
    size_t id_len;
    const char *line; /* the line written to the output (with its newline) */
    size_t len;
    const char *why; /* an end's reason: NULL (resolved), "ongoing" (end of input),
                        "expired" or "evicted" (state dropped) */
    int64_t ts;      /* event time of the line, usec */
    int level;
} nld_report_t;

typedef void (*nld_report_fn)(void *ctx, const nld_report_t *r);

/* Every event the engine reads (a parsed line), after event time has moved to `now`. */
typedef void (*nld_event_fn)(void *ctx, const nl_rec_t *r, int64_t now);

/* One stream value and the scores it got: a slot per algorithm the stream's episodes
 * follow (or the one combined verdict, named after its combine= mode). */
typedef struct nld_value {
    const char *stream;   /* the stream's name */
    const nld_sel_t *sel; /* its selector: sel->keys name the key fields */
    const nl_rec_t *rec;  /* the line the value came from */
    int64_t now;          /* event time */
    double x;             /* the value */
    int n;                /* slots below */
    const char *algo[NLD_ALGOS + 1];
    double score[NLD_ALGOS + 1]; /* in [0, 1]; NaN while the algorithm warms up */
} nld_value_t;

typedef void (*nld_value_fn)(void *ctx, const nld_value_t *v);

typedef struct nld_opts {
    unsigned parse;   /* NL_PARSE_STRICT, NL_PARSE_LENIENT or NL_PARSE_NETLOGGER */
    FILE *diag;       /* where bad lines are reported (stderr if NULL) */
    int diag_max;     /* report at most this many bad lines (20; the rest are counted) */
    nld_seed_fn seed; /* where history.from=db / baseline.from=db values come from (NULL:
                         those options do nothing) */
    void *seed_ctx;
    nld_report_fn report; /* told of every start and end (NULL: nobody) */
    void *report_ctx;
    nld_event_fn event; /* told of every event read (NULL: nobody) */
    nld_value_fn value; /* told of every stream value and its scores (NULL: nobody; given,
                           scores are computed for every value) */
    void *watch_ctx;    /* of both */
} nld_opts_t;

/* A new engine over a configuration (which must outlive it) writing every report line to
 * `out` (a subscription's notify destination is the alert layer's business). NULL on
 * failure with a message in err. */
nld_t *nld_new(const nld_cfg_t *cfg, nl_log_t *out, const nld_opts_t *opts, char *err,
               size_t errlen);
/* One input line (without or with its newline), from `src` line `lineno`. Returns 1 if it
 * was an event, 0 if blank/comment, or a negative code if it was rejected (reported and
 * counted; processing can go on). */
int nld_line(nld_t *d, const char *line, size_t len, const char *src, long lineno);
/* Count and report a line the caller could not even hand over (e.g. longer than
 * NL_LINE_MAX); `msg` says why. */
void nld_reject(nld_t *d, const char *src, long lineno, int code, const char *msg);
/* Let time pass to now_usec (if later than the events seen): reports missing ends and
 * expires idle streams. */
void nld_advance(nld_t *d, int64_t now_usec);
/* End of input: close open episodes and alerts (marked ongoing=1), report bad-line totals,
 * flush the outputs. */
void nld_finish(nld_t *d);
/* Before any input: an episode, missing end or alert (its nld_report_t id) that was open
 * when a previous run stopped, begun at `start` (usec). When its key shows up again it
 * continues it, open, instead of starting another: an end (resolved) is reported once it
 * ends, and a start is not reported again. A restored anomaly episode stays open while its
 * stream warms up. 0 or NL_ENOMEM. */
int nld_restore(nld_t *d, const char *id, size_t id_len, int64_t start);
/* Event time now (usec; INT64_MIN before the first event). */
int64_t nld_now(const nld_t *d);
/* Current counters. */
void nld_counts(const nld_t *d, nld_counts_t *c);
/* Free the engine (not `out`). */
void nld_free(nld_t *d);

#endif
