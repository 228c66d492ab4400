/* SPDX-License-Identifier: BSD-3-Clause */
/* nls.h — private: what the tests see of the summarizer. The core sees none of it: it calls
 * the summarizer through the hook it plugs in (nls_hook_ops, libnl/nl_hook.h). The public
 * face is nl_open(), nl_summarize() and nl_summary_file() in nlkit/nl.h (nls_plug.c). */
#ifndef NLKIT_NLS_H
#define NLKIT_NLS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "nl_fmt.h"
#include "nl_hook.h"
#include "nlkit/nl.h"

#define NLS_IDENT_MAX                                                                              \
    4096                   /* identities tracked per log; beyond it events are written in full     \
                              and counted (nl_stats.overflow) */
#define NLS_KEY_MAX 256    /* bytes of " guid=G a.id=V ..." identifying one identity */
#define NLS_FILE_MAX 65536 /* largest rules file */

typedef struct nls nls_t;
typedef struct nls_act nls_act_t; /* an activity: a name without .start / .end (nls_int.h) */

/* A clock: nanoseconds since the epoch. Durations and interval boundaries use it. */
typedef int64_t (*nl_clock_fn)(void *arg);

/* The summarizer's procedures, as the log's hook calls them (nls_plug.c). */
extern const nl_hook_ops_t nls_hook_ops;

/* The activity of that name (len bytes), added if new; NULL if NLS_ACT_MAX are tracked. */
nls_act_t *nls_activity(nls_t *s, const char *name, size_t len);

/* Make a summarizer for a log (rules from NL_SUMMARY and NL_SUMMARY_FILE are read by the
 * caller through nls_config_env: nls_plug.c). Returns 0 or NL_ENOMEM. */
int nls_new(nl_log_t *log, nls_t **out);
/* Apply NL_SUMMARY and NL_SUMMARY_FILE; problems are written into the log. */
void nls_config_env(nls_t *s);
/* Add one API rule (nl_summarize). */
int nls_config_add(nls_t *s, const char *glob, int mode, double interval_s, const char *vf);
/* Use a rules file (nl_summary_file). */
int nls_config_file(nls_t *s, const char *path, nl_perr_t *err);

/* Re-read the rules file if it changed (flusher). */
void nls_config_check(nls_t *s);

/* The hot path: fold the event if a rule says so; returns an enum nl_hook_verdict. guid is
 * the log's (used when the template has no guid field); level is the event's (a repeat
 * line of a de-duplicated event is written at it). */
int nls_event(nls_t *s, const char *event, int level, const nl_tmpl_t *t, const nl_arg_t *args,
              const char *guid);

/* nls_pair_event's answer when the activity is not summarized as pairs nor in full (mode
 * off, count, dedup): the event goes nl_write's general way, the hook included. */
#define NLS_PAIR_GENERAL (-1)

/* A pair handle's start or end (kind, enum nl_kind of nl_line.h), folded without the
 * event's name or template: act resolved once, the identity the guid g (a string) alone,
 * the value v carried in field vf (vf_len bytes; counted if that is the rule's value
 * field). Returns an nl_hook_verdict (NL_HOOK_WRITE for an activity in full: the hook
 * would say the same), or NLS_PAIR_GENERAL. */
int nls_pair_event(nls_t *s, nls_act_t *act, int kind, const char *g, const char *vf, size_t vf_len,
                   double v);

/* Close due intervals and write their summaries (flusher; tests call it directly).
 * partial: also the running intervals (nl_flush); final: also interval-0 ones (nl_close). */
void nls_tick(nls_t *s, int partial, int final);
/* Update the counter clock's map (internal/nl_tsc.h) from a fresh sample, or from the one
 * given (*tsc, ns: the tests'); a map withdrawn here is reported by an nl.summary.clock Warn
 * line. Caller holds emit_mu (nls_tick does). */
void nls_clock_update(nls_t *s, const uint64_t *tsc, int64_t ns);
/* The next interval boundary on the log clock, or INT64_MAX if none. */
int64_t nls_next_due(nls_t *s);
/* A time on the log clock as CLOCK_MONOTONIC, for the flusher's wait; 0 if the clock is
 * injected (tests tick by hand). */
int nls_to_monotonic(const nls_t *s, int64_t t, struct timespec *ts);
void nls_free(nls_t *s);

/* fork() (libnl/nl_fork.c, through the hook): take the summarizer's locks; release them (parent);
 * in the child, start every identity afresh (what it accumulated is the parent's to report), zero
 * the counters, then release them. */
void nls_fork_prepare(nls_t *s);
void nls_fork_parent(nls_t *s);
void nls_fork_child(nls_t *s);

/* Test hooks (nls_plug.c): replace the log's clock (before any event is written; plugs the
 * summarizer in if it is not yet), and run the flusher's work now (if it is plugged in).
 * nl__summ_clock_sample feeds the counter clock a made-up sample (restart: start it afresh,
 * calibrating, whatever this machine's clocksource) and returns its state after. */
int nl__set_clock(nl_log_t *log, nl_clock_fn fn, void *arg);
void nl__summ_tick(nl_log_t *log);
int nl__summ_clock_sample(nl_log_t *log, int restart, uint64_t tsc, int64_t ns);

#endif
