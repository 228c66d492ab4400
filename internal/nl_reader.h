/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_reader.h — a line reader over a file descriptor that never holds more than one
 * maximum-size line: a line longer than NL_LINE_MAX (binary junk, a missing newline in a
 * huge file) is skipped up to its newline and reported as too long, not loaded into
 * memory. Works on pipes and sockets with poll(), for live input. Shared by the tools
 * (nl-detect, nl-peers, nl-load); not part of the public API. */
#ifndef NLKIT_NL_READER_H
#define NLKIT_NL_READER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nl__reader {
    int fd;
    char *buf;
    size_t cap, start, end;
    int eof;
    int skipping;     /* inside a too-long line */
    long lineno;      /* of the line last returned */
    uint64_t off;     /* bytes consumed through the last line returned (newline included): where
                       * a resumed read must start to see the next line */
    int hold_partial; /* set by the caller for a file still being written: a last line
                       * without its newline is not returned but left (EOF instead) */
    uint64_t partial; /* with hold_partial, at EOF: the bytes of that unfinished line */
} nl__reader_t;

enum { NL_RD_LINE = 1, NL_RD_TOOLONG = 2, NL_RD_AGAIN = 0, NL_RD_EOF = -1, NL_RD_ERR = -2 };

/* Start reading fd, whose current position is byte offset `off` of the stream (0 for a
 * pipe). Returns 0 or NL_ENOMEM. */
int nl__reader_init(nl__reader_t *r, int fd, uint64_t off);
void nl__reader_free(nl__reader_t *r);
/* For the tools: open `path` ("-": standard input) and start a reader on it; *name is what
 * to call the input in messages. If it cannot be opened or there is no memory, says why on
 * standard error, prefixed "PROG: ", and returns -1; else 0. End with nl__reader_close. */
int nl__reader_open(nl__reader_t *r, const char *prog, const char *path, const char **name);
/* Free the reader and close its file (standard input stays open). */
void nl__reader_close(nl__reader_t *r);
/* The next line (without its newline) in *line and *len: NL_RD_LINE; NL_RD_TOOLONG for a
 * skipped over-long line (lineno tells which); NL_RD_AGAIN if no whole line arrived within
 * timeout_ms (-1: wait for ever); NL_RD_EOF; NL_RD_ERR with errno set. */
int nl__reader_next(nl__reader_t *r, int timeout_ms, const char **line, size_t *len);

/* The tools' "for each line of an input" loop (nl-detect, nl-peers, nl-bottleneck): what to
 * call, and how long to wait for a line. `name` is the input as messages call it, `lineno`
 * the line's number in it. */
typedef struct nl__lines {
    const char *prog; /* for messages: "PROG: NAME:LINE: ..." */
    int timeout_ms;   /* -1: wait for ever; else on_idle when no line came within it */
    const volatile sig_atomic_t *stop; /* optional: checked before each read; set, ends */
    /* a line (without its newline); nonzero ends the walk and is returned */
    int (*on_line)(void *ctx, const char *line, size_t len, const char *name, long lineno);
    /* a line longer than NL_LINE_MAX, skipped; NULL: said on standard error */
    void (*on_toolong)(void *ctx, const char *name, long lineno);
    void (*on_idle)(void *ctx); /* optional: no line within timeout_ms */
    void *ctx;
} nl__lines_t;

/* Open `path` ("-": standard input) and call `how` for each of its lines, to its end, a
 * stop, or on_line's nonzero return (which is returned). Returns 0; or 1 if it could not be
 * opened or a read failed, said on standard error ("PROG: NAME:LINE: read error: ..."). */
int nl__reader_each(const char *path, const nl__lines_t *how);

#endif
