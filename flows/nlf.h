/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf.h — the flow engine of nl-flows: event lines in, one flow per request out, each
 * profiled and judged against the flows of the same root activity as it completes, and at
 * the end the paths that tell anomalous flows from normal ones. Mirgorodskiy & Miller's
 * self-propelled instrumentation (flows, profiles, suspect scores, Δa/Δn) on nlkit's
 * identities: guid, parent.guid, trace.id / span.id / parent.span.id. The rules (what
 * joins, orphans, open flows, skew, the bounds) are in nl-flows.1; the file map in
 * README.md. Prefix nlf_. */
#ifndef NLKIT_NLF_H
#define NLKIT_NLF_H

#include <nlkit/nl.h>
#include <nlkit/nl_bp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct nlf nlf_t;

/* Options; nlf_opts_default fills in the defaults nl-flows(1) documents. */
typedef struct nlf_opts {
    double idle;           /* a flow is complete after this many seconds (event time) without events */
    size_t max_events;     /* events held in open flows at most; beyond, the stalest flow is
                            * completed early (counted as evicted) */
    size_t max_flow_events; /* events of one flow at most; beyond, dropped and counted */
    unsigned history;      /* recent normal flows kept per root activity (the neighbours) */
    unsigned k;            /* the k of the k-th nearest flow */
    double threshold;      /* suspect above this score; 0: factor x median score, >= floor */
    double factor, floor;
    const char *value_field; /* communication profile from this end-event field; NULL: none */
    const char *dur_field;   /* an end event's own duration (seconds) in this field, if present */
    const char *host_field;  /* host */
    unsigned top;          /* the most unusual flows listed at the end */
    unsigned causes;       /* cause lines per root activity at the end */
    int all;               /* a nl.flow.score line for every flow judged normal */
    int durations;         /* a nl.flow.done line (root activity's duration) for every flow */
} nlf_opts_t;

void nlf_opts_default(nlf_opts_t *o);

/* Counters; every event that does not end up in a judged flow is in one of them. */
typedef struct nlf_counts {
    uint64_t lines, events, bad, noguid, summaries, ambiguous, dropped_flow_full;
    uint64_t flows, judged, suspects, warm_left, orphans, open_flows, open_acts;
    uint64_t evicted, skewed, unmatched_ends, shared_keys, too_deep, path_overflow;
    uint64_t root_overflow, name_overflow, refs, out_errors;
    double skew_max; /* seconds: the largest gap by which a child started before its parent */
} nlf_counts_t;

enum { NLF_REFERENCE = 1, NLF_WATCH = 2 };

/* A new engine writing its reports to `out` (not owned; NULL writes nothing). NULL with
 * a reason in err for options out of range or no memory. */
nlf_t *nlf_new(const nlf_opts_t *o, nl_log_t *out, char *err, size_t errlen);
void nlf_free(nlf_t *f);

/* Start a phase: NLF_REFERENCE (flows of a known-good run become the normal flows that
 * later flows are measured against) or NLF_WATCH (judge and report). */
void nlf_begin_phase(nlf_t *f, int phase);
/* Complete every flow still open (the end of the input), and at the end of the watch
 * phase write the top list, the causes and the counters. */
void nlf_end_phase(nlf_t *f);

/* One parsed event; `where`/`lineno` name it in diagnostics. */
void nlf_event(nlf_t *f, const nl_rec_t *rec, const char *where, long lineno);
/* Parse one line into rec (counted; a line that is not an event is reported on `diag`,
 * the first few): 1 if it holds an event for nlf_event, else 0. */
int nlf_parse(nlf_t *f, nl_rec_t *rec, const char *line, size_t len, const char *where,
              long lineno, FILE *diag);
/* One line: parsed, counted if it is not an event (diagnostic on `diag`), else nlf_event. */
void nlf_line(nlf_t *f, const char *line, size_t len, const char *where, long lineno,
              FILE *diag);

void nlf_counts(const nlf_t *f, nlf_counts_t *n);
/* The threshold in use for a root activity's flows (NAN if none judged yet). */
double nlf_threshold(const nlf_t *f, const char *root);

#endif
