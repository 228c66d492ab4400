/* SPDX-License-Identifier: BSD-3-Clause */
/* nlp.h — the peer-comparison engine behind nl-peers: feed it summary lines of many hosts
 * running the same program; per window it compares each host's profile (the share of its
 * activity time per activity) with its peers', and writes nl.peer.suspect,
 * nl.peer.faulty and nl.peer.failstop lines to an nlkit log.
 *
 * Time is event time (the largest ts seen), as in nl-detect, so a replay equals a live
 * run. The same engine learns what it needs from known-good runs first: reference
 * profiles (nlp_begin_phase NLP_REFERENCE) and the anomaly threshold (NLP_TRAIN). Not
 * thread-safe: one engine, one thread. */
#ifndef NLKIT_NLP_H
#define NLKIT_NLP_H

#include <stdint.h>
#include <stdio.h>

#include "nlkit/nl.h"

enum nlp_metric { NLP_M_DUR = 1, NLP_M_N = 2, NLP_M_V = 4 };
enum nlp_rule { NLP_RULE_KTH = 0, NLP_RULE_MEDIAN = 1 };
enum nlp_phase { NLP_WATCH = 0, NLP_REFERENCE = 1, NLP_TRAIN = 2 };

typedef struct nlp_opts {
    double win, shift;  /* window length and step, seconds (60, 30) */
    int metrics;        /* enum nlp_metric bits (NLP_M_DUR) */
    int dist;           /* enum nlp_dist (Manhattan) */
    int rule;           /* what is compared with the threshold: the suspect score (distance
                           to the k-th nearest peer) or the median distance to the others */
    unsigned k_peer;    /* 0: max(1, hosts / 4) */
    int k_faulty;       /* faulty when anomalous in k of the last 2k - 1 windows (3) */
    double threshold;   /* > 0: fixed; 0: learned by NLP_TRAIN, else automatic */
    double auto_factor; /* automatic: anomalous if above factor x the window's median (5) */
    double auto_floor;  /* ... and above this (0.05) */
    double skew;        /* fail-stop clock-skew tolerance, seconds (10) */
    const char *host_field, *group_field; /* "host", "prog" */
    int all;                              /* a suspect line for every host in every window */
} nlp_opts_t;

#define NLP_HOST_MAX 4096 /* hosts told apart */
#define NLP_ACT_MAX 64    /* activities told apart */

typedef struct nlp_counts {
    uint64_t lines, events, bad, used; /* used: summary lines that went into profiles */
    uint64_t windows, suspects, faulty, failstop, refs;
    /* left out, each reported on standard error when not 0: */
    uint64_t host_overflow; /* summary lines of hosts beyond NLP_HOST_MAX */
    uint64_t act_overflow;  /* summary lines of activities beyond NLP_ACT_MAX */
    uint64_t out_errors;    /* verdict lines that could not be written */
} nlp_counts_t;

typedef struct nlp nlp_t;

/* Defaults as documented above. */
void nlp_opts_default(nlp_opts_t *o);

/* A new engine writing to `out` (may be NULL while only learning). NULL if out of memory
 * or the options are invalid (message in err). */
nlp_t *nlp_new(const nlp_opts_t *o, nl_log_t *out, char *err, size_t errlen);

/* Start a phase: what the next input is (a known-good run to take reference profiles or
 * the threshold from, or the input to watch). Forgets the hosts and time of the previous
 * phase, keeps what it learned. */
void nlp_begin_phase(nlp_t *p, int phase);

/* One input line, from `src` line `lineno`. Returns 1 for an event, 0 for a blank or
 * comment line, a negative code for a rejected line (reported to `diag`, counted). */
int nlp_line(nlp_t *p, const char *line, size_t len, const char *src, long lineno, FILE *diag);

/* End of the phase's input: judge every complete window, then the fail-stop rule once
 * more. After NLP_TRAIN the threshold is twice the largest value seen. */
void nlp_end_phase(nlp_t *p);

/* The threshold in force (0: automatic). */
double nlp_threshold(const nlp_t *p);

void nlp_counts(const nlp_t *p, nlp_counts_t *c);

/* Hosts ranked by their largest score: windows judged, anomalous, faulty, fail-stop,
 * most frequent culprit. */
void nlp_table(const nlp_t *p, FILE *f);

void nlp_free(nlp_t *p);

#endif
