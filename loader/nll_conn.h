/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_conn.h — private: what `-d` names when it is a PostgreSQL database, as libpq reads it
 * (a URI, postgresql://..., or a keyword/value string, "host=db user=bob dbname=x"), and
 * where a password sits in it, so that none is ever printed. For nll_db.c; the public
 * entries (nll_db_is_pg, nll_db_display_name) are in nll.h. */
#ifndef NLKIT_NLL_CONN_H
#define NLKIT_NLL_CONN_H

#include <stddef.h>

/* Whether s is libpq's keyword/value form: its first word (after blanks) is a keyword
 * ([A-Za-z_][A-Za-z0-9_]*) followed, blanks allowed, by '='. */
int nll__conn_is_kv(const char *s);

/* Check a keyword/value string as libpq will parse it (keywords, '=', values bare with
 * backslash escapes or in single quotes). 0, or -1 with why in `why`: what is wrong and at
 * which byte, never a value (libpq's own message quotes the word it stopped at, which may
 * be part of a password). */
int nll__conn_kv_check(const char *s, char *why, size_t cap);

/* Replace, in the NUL-terminated msg (at most cap bytes with its NUL), every occurrence
 * of a password that the connection string `conn` holds (URI: user:PASSWORD@ and
 * ?password=; keyword form: password=, as written and as unquoted) by "***": for
 * messages of libpq that quote the string or part of it. */
void nll__conn_scrub(const char *conn, char *msg, size_t cap);

#endif
