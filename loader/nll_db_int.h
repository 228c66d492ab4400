/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_db_int.h — private: an archive connection, for nll_db.c (opening, schema), nll_sql.c
 * (statements), nll_lite.c (SQLite's failures) and the backend-specific writers (nll_row.c,
 * nll_row_pg.c). */
#ifndef NLKIT_NLL_DB_INT_H
#define NLKIT_NLL_DB_INT_H

#include <libpq-fe.h>
#include <sqlite3.h>

#include "nll_db_lite.h"
#include "nll_sql.h"

struct nll_db {
    int backend; /* enum nll_backend */
    sqlite3 *lite;
    PGconn *pg;
    char name[512];  /* path, or the URI without its password */
    int64_t changes; /* PostgreSQL: rows the last statement touched */
    unsigned nstmts; /* PostgreSQL: prepared statements made (their names) */
};

/* Fill err with "NAME: what: PostgreSQL's message" and return NL_EIO. */
int nll__pg_fail(nll_db_t *db, const PGresult *res, nll_err_t *err, const char *what);
/* nll_lite.c: the operating system's reason behind a SQLite I/O failure (" (No space left on
 * device)"), "" when none is known; seen is errno right after the failed call. */
const char *nll__lite_reason(sqlite3 *db, int seen, char *buf, size_t cap);
/* nll_db_fail for a SQLite connection: "PATH: what: SQLite's message (the OS's reason)". */
int nll__lite_fail(sqlite3 *db, nll_err_t *err, const char *what);
/* Run SQL (several statements allowed) on a SQLite archive; 0 or NL_E* with err filled. */
int nll__lite_exec(sqlite3 *db, const char *sql, nll_err_t *err);

#endif
