/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_sql.h — one way to ask the archive, whichever it is: a SQLite file or a PostgreSQL
 * database. Statements are written once with numbered parameters (?1, ?2, ...; they become
 * $1, $2 for PostgreSQL), bound, stepped row by row and read by column, with the same
 * calls on both. What the two dialects spell differently is chosen by nll_db_backend().
 * Every call that can fail fills the caller's nll_err_t with where (the archive's name)
 * and why. */
#ifndef NLKIT_NLL_SQL_H
#define NLKIT_NLL_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "nll.h"

enum nll_backend { NLL_SQLITE = 1, NLL_PG = 2 };
/* A column's type; INT, REAL and TEXT are also nll_value_type's answers (SQLite's codes). */
enum nll_type { NLL_T_NULL = 0, NLL_T_INT, NLL_T_REAL, NLL_T_TEXT, NLL_T_BLOB };

typedef struct nll_stmt nll_stmt_t;

/* Which database an archive is. */
int nll_db_backend(const nll_db_t *db);
/* Its name for messages: the file's path, or the URI without a password. */
const char *nll_db_name(const nll_db_t *db);

/* Run SQL that returns no rows (several statements, separated by ';', are allowed). */
int nll_sql_exec(nll_db_t *db, const char *sql, nll_err_t *err);
/* Prepare one statement. */
int nll_sql_prepare(nll_db_t *db, const char *sql, nll_stmt_t **st, nll_err_t *err);
/* Bind parameter i (1-based). Text and blobs are copied. */
void nll_sql_bind_text(nll_stmt_t *st, int i, const char *s, size_t len);
void nll_sql_bind_blob(nll_stmt_t *st, int i, const void *p, size_t len);
void nll_sql_bind_double(nll_stmt_t *st, int i, double v);
void nll_sql_bind_int64(nll_stmt_t *st, int i, int64_t v);
void nll_sql_bind_null(nll_stmt_t *st, int i);
/* What a failure of this statement says it was doing ("reading summaries"), in place of
 * "querying": "NAME: reading summaries: the database's message". `what` is not copied (a
 * string literal, or one that outlives the statement). */
void nll_sql_context(nll_stmt_t *st, const char *what);
/* The next row: 1, 0 when there are no more, or a negative NL_E* code with err filled. */
int nll_sql_step(nll_stmt_t *st, nll_err_t *err);
/* How many columns the statement's rows have (after a step that returned 1). */
int nll_sql_col_count(nll_stmt_t *st);
/* Columns of the current row (0-based). */
int nll_sql_col_type(nll_stmt_t *st, int i);
int64_t nll_sql_col_int64(nll_stmt_t *st, int i);
double nll_sql_col_double(nll_stmt_t *st, int i);
/* Text (NUL-terminated; "" for NULL), valid until the next step, reset or finalize. */
const char *nll_sql_col_text(nll_stmt_t *st, int i, size_t *len);
const void *nll_sql_col_blob(nll_stmt_t *st, int i, size_t *len);
/* Ready to run again with new bindings (the old ones are kept until replaced). */
void nll_sql_reset(nll_stmt_t *st);
void nll_sql_finalize(nll_stmt_t *st);
/* Rows the last statement stepped to completion inserted, updated or deleted. */
int64_t nll_sql_changes(nll_db_t *db);

/* One statement's first column of its first row as an integer (0 if no row or NULL). */
int nll_sql_int(nll_db_t *db, const char *sql, int64_t *out, nll_err_t *err);

/* Transactions: BEGIN (IMMEDIATE on SQLite: the write lock now, not at the first write),
 * COMMIT, ROLLBACK (never fails the caller: errors are for the commit to report). */
int nll_sql_begin(nll_db_t *db, nll_err_t *err);
int nll_sql_commit(nll_db_t *db, nll_err_t *err);
void nll_sql_rollback(nll_db_t *db);

#endif
