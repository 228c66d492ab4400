/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_archive.h — nl-flows' input from the archive (nl-flows -d), apart from the engine so
 * that only the program links the loader's archive layer. */
#ifndef NLKIT_NLF_ARCHIVE_H
#define NLKIT_NLF_ARCHIVE_H

#include <stdio.h>

#include "nlf.h"

/* Feed the engine the raw (non-summary) events of the archive at `path` (a SQLite file or a
 * postgresql:// URI) with since <= ts < until (epoch seconds; NAN: unbounded), in time
 * order. 0, or 1 when the archive cannot be read (why, on diag). Events that cannot be
 * written back as a line are counted and said on diag. */
int nlf_archive_read(nlf_t *f, const char *path, double since, double until, FILE *diag);

#endif
