/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_watch.h — private: a file an operator edits while the program runs (the level file,
 * the summarizer's rules file), noticed by its modification time. */
#ifndef NLKIT_NL_WATCH_H
#define NLKIT_NL_WATCH_H

#include <time.h>

/* A watched file: its path and the modification time last applied. */
typedef struct nl_watch {
    char *path; /* NULL: none */
    struct timespec mtime;
    int seen; /* mtime holds the time of a read */
} nl_watch_t;

/* Watch `path` from now on (a copy is kept); the next nl__watch_changed reports it.
 * Returns 0 or NL_ENOMEM. */
int nl__watch_set(nl_watch_t *w, const char *path);
/* 1 if the watched file exists with a modification time other than the last one seen
 * (and records it); 0 if unchanged, missing, or nothing is watched. */
int nl__watch_changed(nl_watch_t *w);
void nl__watch_free(nl_watch_t *w);

/* Read a small file an operator edits into *text (malloc'd, NUL-terminated; *len bytes)
 * without ever blocking: it is opened non-blocking and refused unless it is a regular file
 * (a FIFO with no writer would hang the caller: nl_open, the flusher, nl_close). Returns 0;
 * NL_EIO with errno set if it cannot be opened or read; NL_EINVAL if it is not a regular
 * file; NL_ETOOBIG if longer than max; NL_ENOMEM. */
int nl__read_small_file(const char *path, size_t max, char **text, size_t *len);

#endif
