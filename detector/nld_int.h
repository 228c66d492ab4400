/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_int.h — private: the engine's state (input and event time, streams and subscription
 * states, missing-end tracking, output), shared by its files (which does what:
 * detector/README.md). */
#ifndef NLKIT_NLD_INT_H
#define NLKIT_NLD_INT_H

#include "nld.h"
#include "nld_beat.h"
#include "nld_confirm.h"
#include "nl_map.h"
#include "nlkit/nl_moments.h"

/* An anomaly episode of one algorithm on one stream, as an operator reads it. A flag counts
 * only as part of a run that lasts (episode.min values, or episode.for of event time; a run
 * survives one unflagged value between flags): the first such run opens the episode, it
 * ends once no flag has counted for clear= of event time, and until the hold-off has passed
 * after it, a new run is held (followed and counted, not written) unless it escalates. The
 * slot stays `active` through the hold-off, so its flags are told from a new stream's. */
typedef struct nld_episode {
    int active;         /* an episode is open, or its hold-off runs (ended) */
    int reported;       /* nl.anomaly.start written, its nl.anomaly.end not yet */
    int held;           /* the open episode came within the hold-off: never written */
    int ended;          /* back to normal: the end written, the hold-off running */
    int esc;            /* the run in the hold-off has a flag that escalates */
    uint64_t run;       /* flags in the current run */
    int run_counted;    /* ... which has lasted: it counted */
    uint32_t gap;       /* unflagged values in a row since its last flag */
    int64_t run_t0;     /* event time of the run's first flag */
    int64_t t_cnt;      /* event time of the last flag that counted */
    int holding;        /* no flag has counted since hold_t0 */
    uint32_t hold_n;    /* unflagged values since */
    int64_t hold_t0;    /* event time of the first of them */
    int dir;            /* NLD_LOW / NLD_HIGH of the first flag */
    int restored;       /* open when a previous run stopped: survives this run's warm-up */
    uint64_t len;       /* flagged values in the episode */
    int64_t t0, t_last; /* first and last flag (event time, usec) */
    double xmin, xmax;  /* raw values during the episode */
    double peak;        /* the largest surprise in it (escalate=) */
    double bar;         /* the score its start had to reach (threshold in force, fatigued) */
    double recent;      /* the stream's recent reports when it started (fatigue=) */
    int run_beat;       /* the current run came on a beat (nld_beat.h): held, never escalates */
    nld_beat_t beat;    /* starts of the last runs that counted */
} nld_episode_t;

enum { NLD_K_STREAM = 0, NLD_K_SUB = 1 };

/* A stream (one stream definition x one key) or a subscription's state for one key. Kept
 * in one table with one LRU order, so both obey max-streams and idle expiry. */
typedef struct nld_keyed {
    struct nld_keyed *prev, *next; /* LRU: least recently touched first */
    nl__ment_t *ment;              /* map entry: key = kind, def index, key fields */
    int kind, def;
    int64_t last; /* event time of the last touch */
    union {
        struct {
            nld_bank_t bank;
            nld_episode_t ep[NLD_ALGOS + 1]; /* per algorithm, then the combined verdict */
            double fat[NLD_ALGOS + 1];       /* recent reports, each weighing 2^-age/half-life */
            int64_t fat_t[NLD_ALGOS + 1];    /* ... as of this event time */
            nld_confirm_t *cf; /* per slot: recent spikes, a lone flag waiting (confirm=;
                                  NULL without it) */
        } s;
        struct {
            nl_moments_t base;   /* mean of the first base_n values */
            int frozen;          /* base came from the archive: live values stay out of it */
            int64_t since;       /* event time the condition began to hold, or -1 */
            int64_t clear_since; /* event time the clear condition began to hold, or -1 */
            int alerted;
            int restored; /* the alert was open when a previous run stopped */
        } w;
    } u;
} nld_keyed_t;

/* Missing-end tracking (nld_missing.c). */
typedef struct nld_pend {
    struct nld_pend *prev, *next;
    struct nld_act *act;
    nl__ment_t *ment; /* key: activity NUL guid NUL " id=..." fields */
    int64_t start;
    int reported;
    double timeout; /* as reported */
} nld_pend_t;

typedef struct nld_act {
    struct nld_act *all_next;
    const nld_mdef_t *def;
    nld_hist_t durs;             /* recent durations, seconds */
    nld_pend_t *p_head, *p_tail; /* pending, oldest first */
    nld_pend_t *r_head, *r_tail; /* reported missing, awaiting a late end */
    char name[];
} nld_act_t;

/* What one stream or subscription definition has matched, to say a mistake at once: an
 * event= that matches nothing, a value= its events never carry (nld_run.c). */
typedef struct nld_seen {
    uint64_t matched; /* events its event= matched */
    uint64_t valued;  /* ... that had a usable value */
    int said;         /* the mistake was said */
} nld_seen_t;

/* Events after which a definition that matched none, or whose matches had no value, is said
 * to be a likely mistake (on the diagnostics stream, once each). */
#define NLD_MISTAKE_EVENTS 1000
#define NLD_MISTAKE_MATCHES 100

struct nld {
    const nld_cfg_t *cfg;
    nld_seen_t *seen; /* per definition: streams, then subscriptions */
    nl_log_t *out;
    nl__map_t restored; /* report id -> int64_t start: open in a previous run (nld_restore) */
    size_t nrestored;
    nld_opts_t opts;
    nl_rec_t rec;
    int64_t now;     /* largest event time seen (usec), or INT64_MIN */
    int64_t jump_at; /* the earliest of jump_n event times in a row too far ahead of now,
                        waiting for NLD_CLOCK_CONFIRM of them (0: none) */
    uint32_t jump_n;
    nl__map_t keyed;
    nld_keyed_t *lru_head, *lru_tail;
    size_t nkeyed;
    nl__map_t acts; /* activity name -> nld_act_t */
    nl__map_t pend; /* identity -> nld_pend_t */
    nld_act_t *acts_all;
    size_t npend;
    nld_counts_t n;
    uint64_t diag_shown;
};

/* nld_keyed.c */
void nld__stream_value(nld_t *d, int def, const nl_rec_t *r, double x);
void nld__sub_value(nld_t *d, int def, const nl_rec_t *r, double x);
void nld__keyed_expire(nld_t *d);
void nld__keyed_finish(nld_t *d);
void nld__keyed_free(nld_t *d);

/* nld_missing.c */
void nld__missing_event(nld_t *d, const nl_rec_t *r);
void nld__missing_advance(nld_t *d);
void nld__missing_free(nld_t *d);

/* nld_out.c: lines are built with the library encoder, then handed to a log. */
/* Begin a line: ts, event, level and, if glen > 0, the guid (e.g. the triggering event's). */
void nld__out_begin(nl_buf_t *b, int64_t ts, const char *event, int level, const char *guid,
                    size_t glen);
void nld__out_emit(nld_t *d, nl_log_t *log, int level, nl_buf_t *b);
/* After nld__out_emit: tell the report hook of the line in b, whose identifying fields are
 * the bytes [i0, i1) (or, if id is not NULL, id_len bytes at id). */
void nld__out_report(nld_t *d, int kind, int phase, const nl_buf_t *b, size_t i0, size_t i1,
                     const char *id, size_t id_len, int64_t ts, int level, const char *why);
/* Whether id (kind letter `kl` then `len` bytes at p) was open in a previous run; if so
 * takes it out of the restored set and stores its start in *start. */
int nld__restored_take(nld_t *d, char kl, const char *p, size_t len, int64_t *start);
/* Append raw, already encoded " name=value" text (key fields). */
void nld__out_raw(nl_buf_t *b, const char *text, size_t len);

#endif
