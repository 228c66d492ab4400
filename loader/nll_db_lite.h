/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_db_lite.h — what only a SQLite archive has: its own connection. For loader/ (nl-load's
 * busy timeout and allocator settings) and for the tests and benchmark of the SQLite layer
 * itself (tests/loader/, bench/bench_load.c), which look inside the file. Everything else
 * asks the archive through nll_sql.h, whichever database it is; this header brings
 * <sqlite3.h>, so tests/project/test_walls.sh allows it nowhere else. */
#ifndef NLKIT_NLL_DB_LITE_H
#define NLKIT_NLL_DB_LITE_H

#include <sqlite3.h>

#include "nll.h"

/* The SQLite connection of a SQLite archive (NULL for PostgreSQL, or for NULL). */
sqlite3 *nll_db_sqlite(nll_db_t *db);

#endif
