/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_sql.c — statements on either archive (nll_sql.h): SQLite's own API, or libpq with
 * each query prepared once and its rows read one at a time (single-row mode), so a scan of
 * millions of summaries holds one row in memory, as with SQLite. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nll_db_int.h"

/* PostgreSQL's type ids (pg_type.h, which only the server's headers carry). */
enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT4 = 23,
    OID_OID = 26,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_NUMERIC = 1700
};

#define PARAMS_MAX 32

struct nll_stmt {
    nll_db_t *db;
    const char *what; /* what a failure says it was doing (nll_sql_context) */
    sqlite3_stmt *lite;
    /* PostgreSQL */
    char name[24];
    int nparams;
    char *val[PARAMS_MAX]; /* owned copies; NULL is SQL NULL */
    int len[PARAMS_MAX], fmt[PARAMS_MAX];
    PGresult *res; /* the current row (single-row mode) */
    int sent, done;
    unsigned char *blob; /* a bytea column decoded */
    size_t blob_cap;
};

int nll_db_backend(const nll_db_t *db) { return db->backend; }

const char *nll_db_name(const nll_db_t *db) { return db->name; }

static int errf(nll_err_t *err, int code, const char *fmt, const char *a, const char *b)
{
    if (err) snprintf(err->msg, sizeof err->msg, fmt, a, b);
    return code;
}

int nll__pg_fail(nll_db_t *db, const PGresult *res, nll_err_t *err, const char *what)
{
    const char *m = res ? PQresultErrorMessage(res) : "";
    if (!m || !*m) m = PQerrorMessage(db->pg);
    if (err) {
        int n = snprintf(err->msg, sizeof err->msg, "%s: %s: %s", db->name, what, m);
        while (n > 0 && (size_t)n <= sizeof err->msg && err->msg[n - 1] == '\n')
            err->msg[--n] = 0; /* libpq's messages end with a newline */
    }
    return NL_EIO;
}

int nll_db_fail(nll_db_t *d, nll_err_t *err, const char *what)
{
    if (d->backend == NLL_PG) return nll__pg_fail(d, NULL, err, what);
    return nll__lite_fail(d->lite, err, what);
}

int nll_db_exec(nll_db_t *db, const char *sql, nll_err_t *err)
{
    return nll_sql_exec(db, sql, err);
}

int nll_sql_exec(nll_db_t *db, const char *sql, nll_err_t *err)
{
    if (db->backend == NLL_SQLITE) return nll__lite_exec(db->lite, sql, err);
    PGresult *res = PQexec(db->pg, sql);
    ExecStatusType s = PQresultStatus(res);
    int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? 0 : nll__pg_fail(db, res, err, "SQL");
    if (!rc) db->changes = atoll(PQcmdTuples(res));
    PQclear(res);
    return rc;
}

/* ?N -> $N outside quotes (PostgreSQL numbers parameters with $), and the highest N. */
static char *to_pg(const char *sql, int *nparams)
{
    size_t n = strlen(sql);
    char *out = malloc(n + 1);
    if (!out) return NULL;
    char quote = 0;
    *nparams = 0;
    for (size_t i = 0; i <= n; i++) {
        char c = sql[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '?' && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
            c = '$';
            int k = atoi(sql + i + 1);
            if (k > *nparams) *nparams = k;
        }
        out[i] = c;
    }
    return out;
}

int nll_sql_prepare(nll_db_t *db, const char *sql, nll_stmt_t **out, nll_err_t *err)
{
    *out = NULL;
    nll_stmt_t *st = calloc(1, sizeof *st);
    if (!st) return errf(err, NL_ENOMEM, "%s%s", "out of memory", "");
    st->db = db;
    st->what = "querying";
    if (db->backend == NLL_SQLITE) {
        if (sqlite3_prepare_v2(db->lite, sql, -1, &st->lite, NULL) != SQLITE_OK) {
            free(st);
            return nll_db_fail(db, err, "preparing a query");
        }
        *out = st;
        return 0;
    }
    char *pgsql = to_pg(sql, &st->nparams);
    if (!pgsql || st->nparams > PARAMS_MAX) {
        free(pgsql);
        free(st);
        return errf(err, NL_ENOMEM, "%s: %s", db->name, "preparing a query: out of memory");
    }
    snprintf(st->name, sizeof st->name, "nll%u", db->nstmts++);
    PGresult *res = PQprepare(db->pg, st->name, pgsql, 0, NULL);
    free(pgsql);
    int rc = PQresultStatus(res) == PGRES_COMMAND_OK
                 ? 0
                 : nll__pg_fail(db, res, err, "preparing a query");
    PQclear(res);
    if (rc) {
        free(st);
        return rc;
    }
    *out = st;
    return 0;
}

static void pg_set(nll_stmt_t *st, int i, const void *p, size_t len, int fmt)
{
    if (i < 1 || i > PARAMS_MAX) return;
    free(st->val[i - 1]);
    st->val[i - 1] = NULL;
    if (p) {
        char *c = malloc(len + 1);
        if (!c) return; /* bound as NULL: the query fails on its constraint, or reads less */
        memcpy(c, p, len);
        c[len] = 0;
        st->val[i - 1] = c;
    }
    st->len[i - 1] = (int)len;
    st->fmt[i - 1] = fmt;
}

void nll_sql_bind_text(nll_stmt_t *st, int i, const char *s, size_t len)
{
    if (st->lite)
        sqlite3_bind_text(st->lite, i, s, (int)len, SQLITE_TRANSIENT);
    else
        pg_set(st, i, s, len, 0);
}

void nll_sql_bind_blob(nll_stmt_t *st, int i, const void *p, size_t len)
{
    if (st->lite)
        sqlite3_bind_blob(st->lite, i, p, (int)len, SQLITE_TRANSIENT);
    else
        pg_set(st, i, p ? p : "", len, 1); /* binary: raw bytes for a bytea */
}

void nll_sql_bind_double(nll_stmt_t *st, int i, double v)
{
    if (st->lite) {
        sqlite3_bind_double(st->lite, i, v);
        return;
    }
    char t[40];
    int n = snprintf(t, sizeof t, "%.17g", v); /* inf, -inf, nan: float8 reads them */
    pg_set(st, i, t, (size_t)n, 0);
}

void nll_sql_bind_int64(nll_stmt_t *st, int i, int64_t v)
{
    if (st->lite) {
        sqlite3_bind_int64(st->lite, i, v);
        return;
    }
    char t[24];
    int n = snprintf(t, sizeof t, "%lld", (long long)v);
    pg_set(st, i, t, (size_t)n, 0);
}

void nll_sql_bind_null(nll_stmt_t *st, int i)
{
    if (st->lite)
        sqlite3_bind_null(st->lite, i);
    else
        pg_set(st, i, NULL, 0, 0);
}

void nll_sql_context(nll_stmt_t *st, const char *what) { st->what = what ? what : "querying"; }

/* Read what is left of a query sent in single-row mode, so the connection is free. */
static void pg_drain(nll_stmt_t *st)
{
    PQclear(st->res);
    st->res = NULL;
    if (st->sent && !st->done) {
        PGresult *r;
        while ((r = PQgetResult(st->db->pg))) PQclear(r);
    }
    st->sent = st->done = 0;
}

int nll_sql_step(nll_stmt_t *st, nll_err_t *err)
{
    if (st->lite) {
        errno = 0;
        int rc = sqlite3_step(st->lite);
        if (rc == SQLITE_ROW) return 1;
        if (rc == SQLITE_DONE) return 0;
        int seen = errno;
        sqlite3_reset(st->lite);
        errno = seen;
        return nll_db_fail(st->db, err, st->what);
    }
    nll_db_t *db = st->db;
    if (st->done) return 0;
    if (!st->sent) {
        if (!PQsendQueryPrepared(db->pg, st->name, st->nparams, (const char *const *)st->val,
                                 st->len, st->fmt, 0) ||
            !PQsetSingleRowMode(db->pg))
            return nll__pg_fail(db, NULL, err, st->what);
        st->sent = 1;
    }
    PQclear(st->res);
    st->res = PQgetResult(db->pg);
    ExecStatusType s = PQresultStatus(st->res);
    if (st->res && s == PGRES_SINGLE_TUPLE) return 1;
    int rc = 0;
    if (!st->res || s == PGRES_TUPLES_OK || s == PGRES_COMMAND_OK) {
        db->changes = st->res ? atoll(PQcmdTuples(st->res)) : 0;
    } else {
        rc = nll__pg_fail(db, st->res, err, st->what);
    }
    PGresult *r; /* the end of this query's results */
    while ((r = PQgetResult(db->pg))) PQclear(r);
    st->done = 1;
    return rc;
}

int nll_sql_col_count(nll_stmt_t *st)
{
    if (st->lite) return sqlite3_column_count(st->lite);
    return st->res ? PQnfields(st->res) : 0;
}

int nll_sql_col_type(nll_stmt_t *st, int i)
{
    if (st->lite) {
        switch (sqlite3_column_type(st->lite, i)) {
        case SQLITE_INTEGER: return NLL_T_INT;
        case SQLITE_FLOAT: return NLL_T_REAL;
        case SQLITE_TEXT: return NLL_T_TEXT;
        case SQLITE_BLOB: return NLL_T_BLOB;
        default: return NLL_T_NULL;
        }
    }
    if (!st->res || PQgetisnull(st->res, 0, i)) return NLL_T_NULL;
    switch (PQftype(st->res, i)) {
    case OID_BOOL:
    case OID_INT2:
    case OID_INT4:
    case OID_INT8:
    case OID_OID: return NLL_T_INT;
    case OID_FLOAT4:
    case OID_FLOAT8:
    case OID_NUMERIC: return NLL_T_REAL;
    case OID_BYTEA: return NLL_T_BLOB;
    default: return NLL_T_TEXT;
    }
}

int64_t nll_sql_col_int64(nll_stmt_t *st, int i)
{
    if (st->lite) return sqlite3_column_int64(st->lite, i);
    if (!st->res || PQgetisnull(st->res, 0, i)) return 0;
    const char *v = PQgetvalue(st->res, 0, i);
    return *v == 't' ? 1 : strtoll(v, NULL, 10);
}

double nll_sql_col_double(nll_stmt_t *st, int i)
{
    if (st->lite) return sqlite3_column_double(st->lite, i);
    if (!st->res || PQgetisnull(st->res, 0, i)) return 0;
    return strtod(PQgetvalue(st->res, 0, i), NULL); /* "Infinity", "NaN" read as such */
}

const char *nll_sql_col_text(nll_stmt_t *st, int i, size_t *len)
{
    const char *v;
    size_t n;
    if (st->lite) {
        v = (const char *)sqlite3_column_text(st->lite, i);
        n = (size_t)sqlite3_column_bytes(st->lite, i);
    } else if (!st->res || PQgetisnull(st->res, 0, i)) {
        v = NULL, n = 0;
    } else {
        v = PQgetvalue(st->res, 0, i);
        n = (size_t)PQgetlength(st->res, 0, i);
    }
    if (len) *len = v ? n : 0;
    return v ? v : "";
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

const void *nll_sql_col_blob(nll_stmt_t *st, int i, size_t *len)
{
    if (st->lite) {
        *len = (size_t)sqlite3_column_bytes(st->lite, i);
        return sqlite3_column_blob(st->lite, i);
    }
    *len = 0;
    if (!st->res || PQgetisnull(st->res, 0, i)) return NULL;
    const char *v = PQgetvalue(st->res, 0, i); /* bytea as text: \x then hex digits */
    size_t n = (size_t)PQgetlength(st->res, 0, i);
    if (n < 2 || v[0] != '\\' || v[1] != 'x') return NULL;
    size_t bytes = (n - 2) / 2;
    if (bytes + 1 > st->blob_cap) {
        unsigned char *nb = realloc(st->blob, bytes + 1);
        if (!nb) return NULL;
        st->blob = nb;
        st->blob_cap = bytes + 1;
    }
    for (size_t k = 0; k < bytes; k++)
        st->blob[k] = (unsigned char)(hexval(v[2 + 2 * k]) << 4 | hexval(v[3 + 2 * k]));
    *len = bytes;
    return st->blob;
}

void nll_sql_reset(nll_stmt_t *st)
{
    if (st->lite)
        sqlite3_reset(st->lite);
    else
        pg_drain(st);
}

void nll_sql_finalize(nll_stmt_t *st)
{
    if (!st) return;
    if (st->lite) {
        sqlite3_finalize(st->lite);
    } else {
        pg_drain(st);
        char sql[64];
        snprintf(sql, sizeof sql, "DEALLOCATE %s", st->name);
        PQclear(PQexec(st->db->pg, sql));
        for (int i = 0; i < PARAMS_MAX; i++) free(st->val[i]);
        free(st->blob);
    }
    free(st);
}

int64_t nll_sql_changes(nll_db_t *db)
{
    return db->backend == NLL_SQLITE ? sqlite3_changes64(db->lite) : db->changes;
}

int nll_sql_int(nll_db_t *db, const char *sql, int64_t *out, nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db, sql, &st, err);
    if (rc) return rc;
    rc = nll_sql_step(st, err);
    *out = rc == 1 ? nll_sql_col_int64(st, 0) : 0;
    nll_sql_finalize(st);
    return rc < 0 ? rc : 0;
}

int nll_sql_begin(nll_db_t *db, nll_err_t *err)
{
    return nll_sql_exec(db, db->backend == NLL_SQLITE ? "BEGIN IMMEDIATE" : "BEGIN", err);
}

int nll_sql_commit(nll_db_t *db, nll_err_t *err) { return nll_sql_exec(db, "COMMIT", err); }

void nll_sql_rollback(nll_db_t *db)
{
    if (db->backend == NLL_SQLITE)
        sqlite3_exec(db->lite, "ROLLBACK", NULL, NULL, NULL);
    else
        PQclear(PQexec(db->pg, "ROLLBACK"));
}
