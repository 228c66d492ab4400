/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_replay.h — one labelled series through nl-detect's engine, as a user would feed
 * it: one event line per row (ts = the row's time, event=rd.sample, value=V), in event
 * time, with the configuration a user would write. What the engine writes back (one
 * nl.anomaly.score line per value, nl.anomaly.start lines) is read as it appears after
 * each row, so every report is tied to the row that caused it even where a series repeats a
 * timestamp. A row with an empty value gets the last value carried forward (the reference
 * figures of ../shared/datasets/README.md did the same); before the first value, no line. */
#ifndef NLKIT_BENCH_REALDATA_REPLAY_H
#define NLKIT_BENCH_REALDATA_REPLAY_H

#include <stddef.h>

#include "realdata_csv.h"

#define RD_COLS_MAX 48

/* Per-row columns read back from the engine's output, by name:
 *   "score.ALGO"  the per-value score of algorithm ALGO on that row (0 while warming up)
 *   "start.ALGO"  1 on the row whose value opened an episode of ALGO (or of the combined
 *                 verdict, named after its combine= mode), 0 elsewhere */
typedef struct rd_cols {
    int n;
    char name[RD_COLS_MAX][40];
    double *v[RD_COLS_MAX]; /* v[c][row] */
    size_t rows;
} rd_cols_t;

/* Replay s through a stream configured by `words` (the part after "stream m event=rd.sample
 * value=value", e.g. "algo=all history=300"), with scores=1; fill the columns named in
 * want[0..nwant) (a name the engine never wrote stays all 0). `tmpdir` holds the scratch
 * output. Returns 0, or -1 with a reason in err. */
int rd_replay(const rd_series_t *s, const char *words, const char *const *want, int nwant,
              const char *tmpdir, rd_cols_t *out, char *err, size_t errlen);
void rd_cols_free(rd_cols_t *c);
/* The column named `name`, or NULL. */
double *rd_col(const rd_cols_t *c, const char *name);

#endif
