/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_int.h — private: the inside of one log's summarizer, shared by its modules (which
 * file does what: the table in summarizer/README.md). */
#ifndef NLKIT_NLS_INT_H
#define NLKIT_NLS_INT_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "nl_hist.h"
#include "nl_hook.h"
#include "nl_tsc.h"
#include "nl_watch.h"
#include "nlkit/nl.h"
#include "nlkit/nl_moments.h"
#include "nls.h"
#include "nls_rules.h"

#define NLS_ACT_MAX 1024  /* distinct activity names per log; more are written in full */
#define NLS_EV_SLOTS 1024 /* event-name cache slots */
#define NLS_EV_PROBE 8    /* probes in the event-name cache */
#define NLS_SLOTS (2 * NLS_IDENT_MAX)
#define NLS_PROBE 32   /* probes in the identity table before it counts as full */
#define NLS_OUT_MAX 16 /* intervals one identity may close in one tick */

/* How an activity is treated under the current rules. Immutable once published; replaced
 * whole when the rules change and kept until the log closes. */
typedef struct nls_res {
    int mode;            /* enum nls_mode */
    int64_t interval_ns; /* 0 = once per run */
    size_t vf_len, rf_len;
    char vf[NL_NAME_MAX + 1]; /* the end event's value field */
    char rf[NL_NAME_MAX + 1]; /* the end event's result field (outcomes) */
    int nkeys;                /* key fields (key=); 0: the *.id fields less the trace's */
    size_t key_len[NLS_KEYS_MAX];
    char key[NLS_KEYS_MAX][NL_NAME_MAX + 1];
    struct nls_res *older; /* every resolution ever made, for freeing */
} nls_res_t;

/* One activity name ("disk.read"). Lives until the log closes. */
typedef struct nls_act {
    uint32_t id;
    _Atomic(nls_res_t *) res;
    size_t len;
    char name[NL_NAME_MAX + 1];
} nls_act_t;

/* Event-name cache entry: "disk.read.end" -> its activity and kind. Immutable. */
typedef struct nls_ev {
    nls_act_t *act;
    int kind;            /* enum nls_kind */
    const char *ro_addr; /* the literal this entry was made for (nl_rodata.h), or NULL */
    char name[];
} nls_ev_t;

/* What one interval of one identity accumulated. */
typedef struct nls_acc {
    uint64_t n;             /* completed pairs */
    nl_moments_t dur, v, r; /* seconds, value, value per second */
    int64_t first_start;    /* ns, of the pairs completed here */
    int64_t last_end;       /* ns */
    uint64_t events;        /* start and end events seen */
    uint64_t orphan_start;  /* starts restarted before their end */
    uint64_t orphan_end;    /* ends without a start */
    uint64_t v_refused;     /* values not finite or too large for a statistic */
    uint64_t res_n, err_n;  /* pairs whose end carried the result field; errors among them */
    uint64_t cls[4];        /* results of HTTP class 2xx, 3xx, 4xx, 5xx */
    /* Histograms of the durations and the values, for percentiles. Their storage moves
     * with the accumulator: copying one into a closed interval (nls_out_t) hands it over,
     * nls__acc_reset forgets it, and whoever writes the closed interval frees it
     * (nls__acc_free). The window opens at an interval's first pair and widens rarely: the
     * only allocations a writer makes. */
    nl__hist_t dur_h, v_h;
    /* count mode: the interval's last event's fields (" name=value ..." as written, the
     * *.id fields left out: the key has them), owned and handed over like the histograms */
    char *last;
    uint32_t last_len, last_cap;
    int counted; /* point events were counted here: written as a count line */
} nls_acc_t;

/* A closed interval, ready to be written. */
typedef struct nls_out {
    nls_acc_t acc;
    int64_t start, end; /* ns on the log clock */
    int open;           /* pairs open at `end` (as the flusher last counted them) */
} nls_out_t;

/* An outcome of an end event's result field (nls__outcome): none, or a class and an error
 * bit. */
#define NLS_OUT_NONE (-1)
#define NLS_OUT_ERR 1 /* | (class << 1): class 2..5 for an HTTP status, 0 for other results */

/* A summary's key begins with it; a pair's (and a de-duplicated event's) with " guid=". */
#define NLS_SUM_MARK '#'

/* One identity, of one of two kinds, told apart by the key's first byte:
 * - a summary ("#" and its key fields: the *.id fields less the trace's, or the rule's
 *   key=): the interval accumulators, a summary line per interval; count mode's too;
 * - a pair (" guid=G" and the raw guid, then every *.id field, parent.guid included): a
 *   start waiting for its end (open, open_t) and the start's summary key (sk), so the end
 *   finds its start whatever its key fields say. Let go at the flusher's next tick once
 *   closed. Dedup mode's identities are keyed the same way.
 * Everything below `lock` is guarded by it; the key is stable while `live` is set. The
 * fields a writer touches come first (the header and key, then the running interval), so a
 * summarized call touches few cache lines; `done` is only read when an interval closes. */
typedef struct nls_ident {
    _Atomic int lock;
    int live; /* 1 while the identity is in the table; evicted entries are kept, not freed */
    nls_act_t *act;
    uint16_t key_len;  /* bytes of key */
    uint16_t guid_len; /* " guid=" and the raw guid bytes (1 for a summary's "#"); the
                          encoded *.id fields follow */
    int open;          /* pair: a start is waiting for its end; summary: pairs open (flusher) */
    int64_t open_t;
    uint32_t slot;            /* its slot in the table (for ever: entries never move) */
    uint32_t open_now;        /* summary: open pairs the flusher's tick has counted so far */
    int64_t iv_start, iv_end; /* the interval `cur` covers; iv_end INT64_MAX for interval 0 */
    int done_full;            /* `done` holds an interval a writer closed, not yet written */
    int idle;                 /* consecutive ticks with nothing to report */
    char key[NLS_KEY_MAX];
    nls_acc_t cur;
    nls_out_t done;
    /* dedup mode: the last event written in full (its fields' hash and text, its level),
     * and the identical ones suppressed since (dd_repeats, the last at dd_last_t) */
    uint64_t dd_hash, dd_repeats;
    int64_t dd_first_t, dd_last_t; /* the first and the last repeat of the run */
    int dd_level, dd_has;
    char *dd_body;
    uint32_t dd_len, dd_cap;
    /* pair: the start's summary key, and where each key= field's " name=value" begins in it
     * (sk_off[nkeys] is its end) */
    uint16_t sk_len;
    uint16_t sk_off[NLS_KEYS_MAX + 1];
    char sk[NLS_KEY_MAX];
} nls_ident_t;

#define NLS_TAG_EMPTY 0u /* never used: ends a probe sequence */
#define NLS_TAG_FREE 1u  /* used before, free again */

struct nls {
    nl_log_t *log;
    uint64_t seed;
    /* clock: ns since the epoch; monotonic unless injected */
    _Atomic(nl_clock_fn) clock; /* set (after clock_arg) only by the test hook */
    _Atomic(void *) clock_arg;
    int64_t wall0, mono0;
    nl__tsc_t tsc; /* CLOCK_MONOTONIC off the CPU's counter where sound; updated by nls_tick */

    pthread_mutex_t cfg_mu;                              /* rules, activities, the rules file */
    nls_rules_t env_rules, file_rules, api_rules, rules; /* rules = the three merged */
    nl_watch_t rules_file;
    nls_act_t *acts[NLS_ACT_MAX];
    int nacts;
    nls_res_t *res_all;   /* every resolution made, newest first */
    nls_res_t *res_plain; /* "no rule": written in full */

    _Atomic(nls_ev_t *) ev[NLS_EV_SLOTS];
    struct nl_pair *pairs; /* the handles nl_pair made (nls_pair.c); added under cfg_mu */

    pthread_mutex_t ins_mu; /* inserting into and evicting from the identity table */
    _Atomic uint64_t tag[NLS_SLOTS];
    _Atomic(nls_ident_t *) ent[NLS_SLOTS];
    _Atomic int live; /* changed under ins_mu */

    pthread_mutex_t emit_mu; /* one closer of intervals at a time (flusher, nl_flush) */
    uint64_t overflow_reported;

    _Atomic uint64_t folded, summaries, overflow, orphans, evicted;
};

/* ---- spin lock of one identity: held for a few dozen instructions ---------------------- */
#define NLS_SPINS_BEFORE_YIELD 64

/* The lock holder is a few instructions from releasing, unless it was preempted: spin a
 * little, then give the CPU away (on a 2-core machine with 8 writers that matters). */
__attribute__((cold, noinline, unused)) static void nls__spin_wait(_Atomic int *l)
{
    for (;;) {
        for (int i = 0; i < NLS_SPINS_BEFORE_YIELD; i++) {
            if (!atomic_load_explicit(l, memory_order_relaxed) &&
                !atomic_exchange_explicit(l, 1, memory_order_acquire))
                return;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        sched_yield();
    }
}
static inline void nls__lock(_Atomic int *l)
{
    if (atomic_exchange_explicit(l, 1, memory_order_acquire)) nls__spin_wait(l);
}
static inline void nls__unlock(_Atomic int *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

/* ---- clock ------------------------------------------------------------------------------ */
int64_t nls__now(const nls_t *s);

/* ---- names (nls_names.c; the hot lookup, nls__event_act, in nls_names.h) ---------------- */
/* Resolve an activity against the current rules (caller holds cfg_mu). */
nls_res_t *nls__resolve(nls_t *s, const char *name, size_t len);
/* Free activities, resolutions and the cache. */
void nls__names_free(nls_t *s);

/* ---- pair handles (nls_pair.c; nl_pair itself is nls_plug.c's) ------------------------ */
/* 0 if a handle may be made for activity `name` with this value field (NULL: none), else
 * NL_ENAME (nl_pair's rules, in nlkit/nl.h). */
int nls__pair_check(const char *name, const char *value_field);
/* The handle of s for this name and value field: the one made before, or a new one linked
 * into s->pairs; NULL and *rc (NL_ENOMEM) if it cannot be made. The names must have passed
 * nls__pair_check. */
nl_pair_t *nls__pair_new(nls_t *s, nl_log_t *log, const char *name, const char *value_field,
                         int *rc);
/* Free the handles made for this summarizer (at nl_close, before nls_free). */
void nls__pairs_free(nls_t *s);

/* ---- identity table (nls_table.c) ----------------------------------------------------- */
/* Find the identity (act, key), or add it if `create`; returned locked. NULL if it is not
 * there (and not to be made) or the table is full. Tries
 * the identity this thread used last for this activity first (unless hot_tried: the caller
 * has just asked nls__ident_hot of nls_hot.h, which looks at the same one): the common case of a
 * loop writing start/end pairs skips hashing and probing. */
nls_ident_t *nls__ident_get_cached(nls_t *s, nls_act_t *act, const char *key, size_t key_len,
                                   size_t guid_len, int hot_tried, int create, int64_t now);
/* Evict e from slot i if it is still idle (flusher). Returns 1 if evicted. */
int nls__ident_evict(nls_t *s, size_t i, nls_ident_t *e);
void nls__table_free(nls_t *s);

/* ---- folding (nls_fold.c) ------------------------------------------------------------- */
/* Start a fresh identity's first interval at time t. */
void nls__fold_init(nls_ident_t *e, int64_t t, int64_t interval_ns);
void nls__acc_reset(nls_acc_t *a);
/* Free what an accumulator owns (its histograms' storage). */
void nls__acc_free(nls_acc_t *a);
/* Into a summary at time t: a start of one of its pairs (the pair itself is kept by its
 * pair identity), and with `orphan` an earlier start it restarted before its end. */
void nls__fold_touch(nls_ident_t *e, int64_t t, int64_t interval_ns, int orphan);
/* Into a summary at time t: an end whose start was at start_t (INT64_MIN: none, an orphan),
 * with its value if has_value, and its outcome (NLS_OUT_NONE, or as nls__outcome says).
 * Returns 1 if the end was an orphan. */
int nls__fold_end(nls_ident_t *e, int64_t t, int64_t interval_ns, int64_t start_t, int has_value,
                  double value, int outcome);
/* The outcome of a result value: a number x (is_num) or a string str (len bytes). */
int nls__outcome(int is_num, double x, const char *str, size_t len);
/* Close what is due at `now`: intervals that ended, and with `partial` the running one
 * (also for interval 0 when `final`). Fills out[] (at most NLS_OUT_MAX + 2); returns how
 * many. */
int nls__fold_close(nls_ident_t *e, int64_t now, int64_t interval_ns, int partial, int final,
                    nls_out_t *out);
/* The first interval boundary after t (INT64_MAX for interval 0). */
int64_t nls__boundary_after(int64_t t, int64_t interval_ns);
/* 1 if e has nothing to report and nothing open. */
int nls__fold_idle(const nls_ident_t *e);
/* Count a point event at time t whose fields (less the *.id ones) read body[0, len):
 * count mode. 0, or NL_ENOMEM when its fields could not be kept (the count still is). */
int nls__fold_count(nls_ident_t *e, int64_t t, int64_t interval_ns, const char *body, size_t len);
/* Keep body[0, len) in *p (capacity *cap), growing it: 0 or NL_ENOMEM. */
int nls__keep_text(char **p, uint32_t *cap, uint32_t *plen, const char *body, size_t len);

/* ---- emission (nls_emit.c) ------------------------------------------------------------ */
/* Write one NAME.summary line for an identity's closed interval. */
void nls__emit(nls_t *s, const nls_act_t *act, const char *key, size_t key_len, size_t guid_len,
               const nls_out_t *o);
/* Write a count line (count mode) for an identity's closed interval. */
void nls__emit_count(nls_t *s, const nls_act_t *act, const char *key, size_t key_len,
                     size_t guid_len, const nls_out_t *o);
/* Write the line that closes a run of identical events (dedup mode): the event as it was
 * written, at the time of the last repeat, with repeat=N. */
void nls__emit_repeat(nls_t *s, const nls_act_t *act, const char *key, size_t key_len,
                      size_t guid_len, int level, const char *body, size_t len, uint64_t n,
                      int64_t t);
/* Write a line about the summarizer itself, straight to the destination so no rule can
 * hide it: "event=EVENT n=N total=TOTAL msg=MSG". */
void nls__emit_note(nls_t *s, int level, const char *event, uint64_t n, uint64_t total,
                    const char *msg);

/* ---- configuration (nls_config.c) ----------------------------------------------------- */
/* Merge the three rule sources and re-resolve every known activity (caller holds cfg_mu). */
int nls__config_apply(nls_t *s);
void nls__config_free(nls_t *s);

#endif
