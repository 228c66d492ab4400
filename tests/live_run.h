/* SPDX-License-Identifier: BSD-3-Clause */
/* live_run.h — one scenario of t_live.h through nl-detect's engine, and what an operator
 * would have seen: when reports started and ended around the fault (bench/live.c,
 * tests/detector/test_live.c). */
#ifndef NLKIT_LIVE_RUN_H
#define NLKIT_LIVE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "t_live.h"

/* The streams docs/detecting.md recommends for a summarized service, as a user writes them. */
#define LIVE_DEFAULT_CONF                                                                      \
    "stream latency event=request.summary value=mean.dur key=host\n"                           \
    "stream throughput event=request.summary value=n key=host\n"                               \
    "stream errors event=request.summary value=err key=host\n"

typedef struct live_result {
    int before;       /* episodes started before the fault's onset (or in a run without one) */
    double first_after;  /* seconds from onset to the first start at or after it, -1: none */
    int ended_during;    /* the episode that reported the fault first ended while it lasted
                            (another stream's, on weaker evidence, may) */
    double end_after;    /* seconds from the fault's end to the end of the episodes open then
                            (the last of them), -1: none ended (or none open) */
    int after;           /* episodes started 2 minutes or more after the fault's end */
    int open_at_end;     /* episodes still open when the input ended */
    int starts, ends;    /* all of them */
} live_result_t;

/* Run scenario `kind` (t_live.h) for `secs` seconds, fault at `on` for `len`, seed `seed`,
 * through an engine on configuration `conf`. 0, or -1 with err filled. */
int live_run(const char *conf, int kind, long secs, long on, long len, uint64_t seed,
             live_result_t *r, char *err, size_t errlen);

/* "-" for a negative delay, else the seconds (static buffers: up to 4 in one printf). */
const char *live_fmt_delay(double s);

#endif
