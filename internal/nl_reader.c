/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_reader.c — bounded line reader (see nl_reader.h). */
#include "nl_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nlkit/nl_bp.h"

int nl__reader_init(nl__reader_t *r, int fd, uint64_t off)
{
    *r = (nl__reader_t){.fd = fd, .cap = NL_LINE_MAX + 2 + 65536, .off = off};
    return (r->buf = malloc(r->cap)) ? 0 : NL_ENOMEM;
}

void nl__reader_free(nl__reader_t *r)
{
    free(r->buf);
    r->buf = NULL;
}

int nl__reader_open(nl__reader_t *r, const char *prog, const char *path, const char **name)
{
    int fd = 0;
    *name = "(stdin)";
    if (strcmp(path, "-")) {
        if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
            fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
            return -1;
        }
        *name = path;
    }
    if (nl__reader_init(r, fd, 0)) {
        fprintf(stderr, "%s: out of memory\n", prog);
        if (fd) close(fd);
        return -1;
    }
    return 0;
}

void nl__reader_close(nl__reader_t *r)
{
    nl__reader_free(r);
    if (r->fd) close(r->fd);
}

int nl__reader_next(nl__reader_t *r, int timeout_ms, const char **line, size_t *len)
{
    for (;;) {
        char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
        if (nl) {
            size_t s = r->start, n = (size_t)(nl - (r->buf + s));
            r->start = s + n + 1;
            r->off += n + 1;
            r->lineno++;
            if (r->skipping) {
                r->skipping = 0;
                return NL_RD_TOOLONG;
            }
            *line = r->buf + s;
            *len = n;
            return NL_RD_LINE;
        }
        size_t have = r->end - r->start;
        if (have > NL_LINE_MAX + 1) { /* no newline within the limit: skip the rest */
            r->skipping = 1;
            r->off += have;
            r->start = r->end = 0;
            continue;
        }
        if (r->eof) {
            if (!have) {
                if (r->skipping) {
                    r->skipping = 0;
                    r->lineno++;
                    return NL_RD_TOOLONG;
                }
                return NL_RD_EOF;
            }
            if (r->hold_partial && !r->skipping) { /* its writer may not be done with it */
                r->partial = have;
                return NL_RD_EOF;
            }
            *line = r->buf + r->start; /* last line without a newline */
            *len = have;
            r->off += have;
            r->start = r->end;
            r->lineno++;
            if (r->skipping) {
                r->skipping = 0;
                return NL_RD_TOOLONG;
            }
            return NL_RD_LINE;
        }
        if (r->start) {
            memmove(r->buf, r->buf + r->start, have);
            r->start = 0;
            r->end = have;
        }
        if (timeout_ms >= 0) {
            struct pollfd p = {.fd = r->fd, .events = POLLIN};
            int pr = poll(&p, 1, timeout_ms);
            if (pr == 0) return NL_RD_AGAIN;
            if (pr < 0) {
                if (errno == EINTR) return NL_RD_AGAIN;
                return NL_RD_ERR;
            }
        }
        ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (got < 0) {
            if (errno == EINTR) return NL_RD_AGAIN;
            return NL_RD_ERR;
        }
        if (got == 0) r->eof = 1;
        r->end += (size_t)got;
    }
}

/* One loop for the tools, so that a too-long line, a read error and an idle wait are handled
 * and said the same way by each. */
int nl__reader_each(const char *path, const nl__lines_t *how)
{
    const char *name;
    nl__reader_t rd;
    if (nl__reader_open(&rd, how->prog, path, &name)) return 1;
    int rc = 0;
    while (!(how->stop && *how->stop)) {
        const char *line;
        size_t len;
        int r = nl__reader_next(&rd, how->timeout_ms, &line, &len);
        if (r == NL_RD_LINE) {
            if ((rc = how->on_line(how->ctx, line, len, name, rd.lineno))) break;
        } else if (r == NL_RD_TOOLONG) {
            if (how->on_toolong)
                how->on_toolong(how->ctx, name, rd.lineno);
            else
                fprintf(stderr, "%s: %s:%ld: line longer than NL_LINE_MAX, skipped\n", how->prog,
                        name, rd.lineno);
        } else if (r == NL_RD_AGAIN) {
            if (how->on_idle) how->on_idle(how->ctx);
        } else if (r == NL_RD_EOF) {
            break;
        } else {
            fprintf(stderr, "%s: %s:%ld: read error: %s\n", how->prog, name, rd.lineno + 1,
                    strerror(errno));
            rc = 1;
            break;
        }
    }
    nl__reader_close(&rd);
    return rc;
}
