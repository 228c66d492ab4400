/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_replay.h — internal: lines written in full, folded as the library's summarizer would
 * have folded them when they were written (nl-load --summarize), so logs written in full
 * get summaries, and baselines, too. The summarizer's own code does the folding: each
 * program (host, prog, pid) gets a log of its own whose clock is the lines' time.
 * Implemented in summarizer/nls_replay.c, compiled into libnlkit beside the summarizer. */
#ifndef NLKIT_NL_REPLAY_H
#define NLKIT_NL_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "nlkit/nl_bp.h"

typedef struct nl__replay nl__replay_t;

/* Where the summary lines go, one line (without its newline) at a time. */
typedef void (*nl__replay_emit_fn)(void *ctx, const char *line, size_t len);

/* What to do with a line once replayed. */
enum {
    NL_REPLAY_KEEP = 0,   /* store it: no rule folds it (or mode both) */
    NL_REPLAY_FOLDED = 1, /* a summary carries it: not stored */
    NL_REPLAY_OFF = 2     /* its activity's rule says off: not stored */
};

/* Check rules text (the summarizer's syntax, NL_SUMMARY's): 0, or an NL_E* code with err's
 * line, column and message. */
int nl__replay_check(const char *rules, nl_perr_t *err);
/* A replayer for checked rules; its summary lines go to emit(ctx, ...). NULL if out of
 * memory. */
nl__replay_t *nl__replay_new(const char *rules, nl__replay_emit_fn emit, void *ctx);
/* One parsed line, at its ts: an NL_REPLAY_* verdict. Summaries whose intervals the line's
 * time closes are emitted first. A line the summarizer cannot take (no room, out of
 * memory) is kept. */
int nl__replay_line(nl__replay_t *r, const nl_rec_t *rec);
/* The end of the input: every program's running intervals as partial lines, ending at its
 * last line's time, as nl_close writes them. */
void nl__replay_end(nl__replay_t *r);
/* Lines folded or switched off, and summaries emitted, so far. */
void nl__replay_counts(const nl__replay_t *r, uint64_t *folded, uint64_t *off, uint64_t *summaries);
void nl__replay_free(nl__replay_t *r);

#endif
