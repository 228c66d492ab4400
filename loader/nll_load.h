/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_load.h — the exactly-once load engine behind nl-load: named inputs (files, FIFOs,
 * standard input) into the archive in batched transactions, each file's position recorded
 * in the transaction that stores its lines (nll_pos.c), lines read by a second thread
 * (nll_feed.h). Its messages go to standard error, prefixed "nl-load: ". The program
 * (nl_load.c) parses the command line, fills the settings and calls these. */
#ifndef NLKIT_NLL_LOAD_H
#define NLKIT_NLL_LOAD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "nll.h"

typedef struct nll_load {
    /* settings, from the command line */
    const char *db_path;
    const char *reject_path;           /* bad lines also appended there (NULL: none) */
    long batch;                        /* lines per transaction */
    long max_errors;                   /* bad lines reported one by one; all are counted */
    unsigned parse_flags;              /* NL_PARSE_LENIENT, NL_PARSE_NETLOGGER or 0 */
    int progress;                      /* a progress line on standard error */
    int quiet;                         /* no "waiting" or "left for the next load" notes */
    const char *summarize;             /* --summarize's rules (checked), or NULL */
    const volatile sig_atomic_t *stop; /* optional: set (by a signal), the load ends cleanly */
    /* the engine's: the archive, and what it counted */
    nll_db_t *db;
    nll_rows_t *rows;
    char db_name[512]; /* db_path for messages: a PostgreSQL URI's password hidden */
    FILE *reject;
    /* counted when their transaction commits */
    uint64_t events, bad, blank, untyped, unindexed, recovered, recovered_lines;
    uint64_t folded; /* --summarize: lines a summary carries instead */
    /* the open transaction: begun at the first line to store, so an idle loader (a quiet
     * syslog-ng feed) holds no write lock and other writers (a prune, a second nl-load)
     * get their turn */
    int in_tx;
    uint64_t t_events, t_bad, t_blank, t_untyped, t_unindexed, t_recovered, t_recovered_lines;
    uint64_t t_folded;
    long t_first_line; /* first line number read in it */
    double t_started;  /* when its first line was read */
    uint64_t reported;
} nll_load_t;

/* Open (create, upgrade) the archive at ld->db_path for writing, with `busy_ms` to wait for
 * another writer's lock (SQLite), and the reject file. 0, or -1 said on standard error
 * (nothing left open). */
int nll_load_open(nll_load_t *ld, long busy_ms);

/* Load one named input ("-": standard input) to its end or to a stop: a regular file from
 * where its previous loads stopped (from its start with `reload`; the position is still
 * checked), anything else as it comes. Bad lines are reported and counted, not fatal.
 * 0, or nonzero after a read or database failure (said, with the lines not loaded). */
int nll_load_path(nll_load_t *ld, const char *name, int reload);

/* Delete raw (non-summary) events older than `before` (Unix seconds); says how many. 0, or
 * -1 said on standard error. */
int nll_load_prune(nll_load_t *ld, double before);

/* The report at the end of a run: events loaded and bad lines (unless quiet and nothing bad
 * or failed), then what was kept in an altered form (untyped, unindexed, recovered,
 * escaped), each once with its count. */
void nll_load_report(const nll_load_t *ld, int failed);

/* Close the reject file and the archive. 0, or -1 if the reject file could not be
 * written out. */
int nll_load_close(nll_load_t *ld);

#endif
