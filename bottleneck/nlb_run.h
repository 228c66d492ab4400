/* SPDX-License-Identifier: BSD-3-Clause */
/* nlb_run.h — nl-bottleneck's gathering: event lines in (summaries, or start/end pairs of the
 * stage activities), what each transfer spent in each stage out, by guid and, with an
 * interval, by interval of each transfer; then one verdict a transfer or interval (nlb.h's
 * rule) as an event line or a table row. The program (nl_bottleneck.c) parses the command
 * line and calls these. */
#ifndef NLKIT_NLB_RUN_H
#define NLKIT_NLB_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "nl_map.h"
#include "nlb.h"
#include "nlkit/nl.h"

/* One transfer, or one interval of one. */
typedef struct nlb_group {
    char guid[NL_GUID_LEN + 40];
    int64_t interval; /* end of the interval (whole multiples of --interval), or 0 */
    nlb_xfer_t x;
    int64_t last_us; /* the latest time read for it */
    struct nlb_group *next;
} nlb_group_t;

typedef struct nlb_run {
    /* settings, from the command line (nlb_run_init sets the defaults) */
    double margin, interval; /* the rule's margin; seconds per interval, 0: whole transfers */
    uint64_t min_pairs;
    int table;      /* verdicts as a table instead of event lines */
    unsigned parse; /* nl_parse flags: NL_PARSE_LENIENT, NL_PARSE_NETLOGGER or 0 */
    /* what was gathered */
    nl__map_t groups, starts;   /* key: guid + interval; guid + stage + stream.id -> start */
    nlb_group_t *first, **tail; /* in order of first sight */
    uint64_t lines, bad, no_guid, orphan_ends, oom;
} nlb_run_t;

/* Empty, with the defaults: margin 0.2, min_pairs 3, whole transfers, event lines. */
void nlb_run_init(nlb_run_t *r);

/* Gather one input ("-": standard input). 0, or nonzero if it could not be read (said on
 * standard error, prefixed "nl-bottleneck: "). */
int nlb_run_input(nlb_run_t *r, const char *path);

/* Write one verdict per transfer or interval to f, in order of first sight (with the
 * table's heading first), and free the groups. */
void nlb_run_write(nlb_run_t *r, FILE *f);

/* Say on f what was left out (bad lines, stage events without a guid, ends without a
 * start, want of memory) and stages started and never ended, if any; free the rest. */
void nlb_run_finish(nlb_run_t *r, FILE *f);

#endif
