/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_feed.h — nl-load's reading thread: reads an input, parses and types every line
 * (nll_parse_line) and hands the results over in chunks, in order, so that parsing runs
 * beside the inserts instead of before them. At most a few chunks are in flight: a fast
 * file does not fill memory while the database catches up. */
#ifndef NLKIT_NLL_FEED_H
#define NLKIT_NLL_FEED_H

#include <stdint.h>

#include "nll.h"

/* NLL_L_FOLDED: a line --summarize folded into a summary (or switched off): not stored */
enum { NLL_L_EVENT = 1, NLL_L_BLANK = 2, NLL_L_BAD = 3, NLL_L_FOLDED = 4 };
enum { NLL_FEED_MORE = 0, NLL_FEED_EOF = 1, NLL_FEED_ERROR = 2, NLL_FEED_STOPPED = 3 };

/* One input line, in input order. */
typedef struct nll_line {
    long lineno;
    uint64_t off; /* input offset just after it: where a resumed load would start */
    int kind;     /* NLL_L_* */
} nll_line_t;

/* A bad line's report, in the chunk's `bads` in order: this header, then len bytes of the
 * line (len 0 for a line too long to keep). */
typedef struct nll_bad {
    nl_perr_t perr;
    uint32_t len;
} nll_bad_t;

typedef struct nll_chunk {
    struct nll_chunk *next;
    nll_line_t *lines;
    size_t n, cap;
    nll_batch_t recs; /* the NLL_L_EVENT lines' records, in order */
    nll_batch_t bads; /* the NLL_L_BAD lines' reports, in order */
    int end;          /* NLL_FEED_*: the last chunk says why the input ended */
    int err_no;       /* NLL_FEED_ERROR: errno of the failed read */
    uint64_t partial; /* NLL_FEED_EOF of a file: bytes after its last newline, left unread
                       * (a line still being written is loaded once it is whole) */
} nll_chunk_t;

typedef struct nll_feed nll_feed_t;

/* Start reading fd, positioned at byte `off` which follows line `lineno`. With `summarize`
 * (rules, checked: nl__replay_check), lines are folded as the library's summarizer would
 * have folded them (../internal/nl_replay.h): a folded line is NLL_L_FOLDED, and the
 * summaries come as NLL_L_EVENT lines before the line whose time closed them (at the
 * input's end, after its last line). `live` input
 * (a pipe, a socket) is waited on with poll and a part-filled chunk is handed over within
 * about 100 ms; a regular file is read as fast as the consumer takes it. The thread blocks
 * SIGINT, SIGTERM and SIGHUP: they go to the caller. NULL if out of memory or threads. */
nll_feed_t *nll_feed_start(int fd, uint64_t off, long lineno, unsigned parse_flags, int live,
                           const char *summarize);
/* The next chunk, waiting at most timeout_ms (-1: until there is one); NULL on time-out. */
nll_chunk_t *nll_feed_next(nll_feed_t *f, int timeout_ms);
/* Hand a chunk back (it is reused). */
void nll_feed_done(nll_feed_t *f, nll_chunk_t *c);
/* Ask the thread to stop: it then hands over what it has with end = NLL_FEED_STOPPED. */
void nll_feed_stop(nll_feed_t *f);
/* Stop, join and free everything. */
void nll_feed_free(nll_feed_t *f);

#endif
