/* nld_read.h — a line reader over a file descriptor that never holds more than one
 * maximum-size line: a line longer than NL_LINE_MAX (binary junk, a missing newline in a
 * huge file) is skipped up to its newline and reported as too long, not loaded into
 * memory. Works on pipes and sockets with poll(), for live input. */
#ifndef NLKIT_NLD_READ_H
#define NLKIT_NLD_READ_H

#include <stddef.h>

typedef struct nld_reader {
    int fd;
    char *buf;
    size_t cap, start, end;
    int eof;
    int skipping; /* inside a too-long line */
    long lineno;  /* of the line last returned */
} nld_reader_t;

enum { NLD_RD_LINE = 1, NLD_RD_TOOLONG = 2, NLD_RD_AGAIN = 0, NLD_RD_EOF = -1, NLD_RD_ERR = -2 };

/* Start reading fd. Returns 0 or NL_ENOMEM. */
int nld_reader_init(nld_reader_t *r, int fd);
void nld_reader_free(nld_reader_t *r);
/* The next line (without its newline) in *line and *len: NLD_RD_LINE; NLD_RD_TOOLONG for a
 * skipped over-long line (lineno tells which); NLD_RD_AGAIN if no whole line arrived within
 * timeout_ms (-1: wait for ever); NLD_RD_EOF; NLD_RD_ERR with errno set. */
int nld_reader_next(nld_reader_t *r, int timeout_ms, const char **line, size_t *len);

#endif
