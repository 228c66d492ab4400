/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_db_int.h — private: an archive connection, for nll_db.c (opening, schema), nll_sql.c
 * (statements) and the backend-specific writers (nll_row.c, nll_row_pg.c). */
#ifndef NLKIT_NLL_DB_INT_H
#define NLKIT_NLL_DB_INT_H

#include <libpq-fe.h>
#include <sqlite3.h>

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

#endif
