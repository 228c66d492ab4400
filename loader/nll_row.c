/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_row.c — a parsed record into rows: `event`, `ident` (guid, *.id), `value` (the rest)
 * and, for NAME.summary events, the typed `summary` row. Prepared statements, reused. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nll_db_int.h"

#include "nll_rec.h"
#include "nll_row_int.h"

struct nll_rows {
    nll_db_t *d;
    nll_pgrows_t *pg; /* a PostgreSQL archive's writer (COPY), or NULL */
    sqlite3 *db;
    unsigned flags;
    nl_rec_t rec;
    nll_batch_t one; /* nll_rows_add's record */
    sqlite3_stmt *ins_event, *ins_ident, *ins_value, *ins_summary;
};

static int prep(nll_rows_t *r, const char *sql, sqlite3_stmt **st, nll_err_t *err)
{
    if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK)
        return 0;
    return nll_db_fail(r->d, err, "preparing the inserts");
}

int nll_rows_new(nll_db_t *d, unsigned parse_flags, nll_rows_t **out, nll_err_t *err)
{
    if (d->backend == NLL_PG) {
        nll_rows_t *r = calloc(1, sizeof *r);
        if (!r) {
            snprintf(err->msg, sizeof err->msg, "out of memory");
            return NL_ENOMEM;
        }
        r->d = d;
        r->flags = parse_flags;
        nl_rec_init(&r->rec);
        int rc = nll__pgrows_new(d, &r->pg, err);
        if (rc) {
            nll_rows_free(r);
            return rc;
        }
        *out = r;
        return 0;
    }
    sqlite3 *db = d->lite;
    nll_rows_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    r->d = d;
    r->db = db;
    r->flags = parse_flags;
    nl_rec_init(&r->rec);
    char sql[1024];
    int len = snprintf(sql, sizeof sql, "INSERT INTO summary (event_id, ts, event, host, guid");
    for (int i = 0; i < nll__ntyped; i++)
        len += snprintf(sql + len, sizeof sql - (size_t)len, ", %s", nll__typed[i].column);
    len += snprintf(sql + len, sizeof sql - (size_t)len, ") VALUES (?");
    for (int i = 1; i < NLL_SUM_FIXED + nll__ntyped; i++)
        len += snprintf(sql + len, sizeof sql - (size_t)len, ", ?");
    snprintf(sql + len, sizeof sql - (size_t)len, ")");
    int rc = prep(r, "INSERT INTO event (ts, event, level, startend, status) VALUES (?,?,?,?,?)",
                  &r->ins_event, err);
    if (!rc) rc = prep(r, "INSERT INTO ident VALUES (?, ?, ?)", &r->ins_ident, err);
    if (!rc) rc = prep(r, "INSERT INTO value VALUES (?, ?, ?)", &r->ins_value, err);
    if (!rc) rc = prep(r, sql, &r->ins_summary, err);
    if (rc) {
        nll_rows_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void nll_rows_free(nll_rows_t *r)
{
    if (!r) return;
    nll__pgrows_free(r->pg);
    sqlite3_finalize(r->ins_event);
    sqlite3_finalize(r->ins_ident);
    sqlite3_finalize(r->ins_value);
    sqlite3_finalize(r->ins_summary);
    nl_rec_free(&r->rec);
    nll_batch_free(&r->one);
    free(r);
}

static int step(nll_rows_t *r, sqlite3_stmt *st, nll_err_t *err)
{
    errno = 0;
    int rc = sqlite3_step(st);
    int seen = errno; /* for the message: the reset may overwrite it */
    sqlite3_reset(st);
    errno = seen;
    return rc == SQLITE_DONE ? 0 : nll_db_fail(r->d, err, "inserting");
}

int nll_rows_flush(nll_rows_t *r, nll_err_t *err)
{
    return r->pg ? nll__pgrows_flush(r->pg, err) : 0;
}

void nll_rows_discard(nll_rows_t *r)
{
    if (r->pg) nll__pgrows_discard(r->pg);
}

uint64_t nll_rows_escaped(const nll_rows_t *r) { return r->pg ? nll__pgrows_escaped(r->pg) : 0; }

int nll_rows_store(nll_rows_t *r, const nll_batch_t *b, size_t *pos, nll_err_t *err)
{
    if (r->pg) return nll__pgrows_store(r->pg, b, pos, err);
    const unsigned char *p = b->p + *pos;
    nll_rhdr_t h;
    memcpy(&h, p, sizeof h);
    *pos += h.total;
    const char *event = (const char *)p + sizeof h, *level = event + h.event_len;
    p += sizeof h + h.event_len + h.level_len;

    sqlite3_stmt *st = r->ins_event;
    sqlite3_bind_double(st, 1, h.ts);
    sqlite3_bind_text(st, 2, event, h.event_len, SQLITE_STATIC);
    if (h.has_level)
        sqlite3_bind_text(st, 3, level, h.level_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    sqlite3_bind_int(st, 4, h.startend);
    if (h.has_status)
        sqlite3_bind_int64(st, 5, h.status);
    else
        sqlite3_bind_null(st, 5);
    int rc = step(r, st, err);
    if (rc) return rc;
    sqlite3_int64 id = sqlite3_last_insert_rowid(r->db);

    sqlite3_stmt *sum = r->ins_summary;
    if (h.summary) {
        sqlite3_clear_bindings(sum);
        sqlite3_bind_int64(sum, 1, id);
        sqlite3_bind_double(sum, 2, h.ts);
        sqlite3_bind_text(sum, 3, event, h.event_len, SQLITE_STATIC);
    }
    for (uint32_t k = 0; k < h.nfields; k++) {
        nll_fhdr_t f;
        memcpy(&f, p, sizeof f);
        const char *name = (const char *)p + sizeof f, *val = name + f.name_len;
        int64_t i;
        double d;
        int numeric = f.kind == NLL_K_VALUE_INT || f.kind == NLL_K_VALUE_REAL ||
                      f.kind == NLL_K_SUM_INT || f.kind == NLL_K_SUM_REAL;
        p += sizeof f + f.name_len + (numeric ? 8 : f.value_len);
        switch (f.kind) {
        case NLL_K_SUM_INT:
            memcpy(&i, val, 8);
            sqlite3_bind_int64(sum, NLL_SUM_FIXED + 1 + f.slot, i);
            continue;
        case NLL_K_SUM_REAL:
            memcpy(&d, val, 8);
            sqlite3_bind_double(sum, NLL_SUM_FIXED + 1 + f.slot, d);
            continue;
        case NLL_K_SUM_HOST:
            sqlite3_bind_text(sum, 4, val, (int)f.value_len, SQLITE_STATIC);
            continue;
        case NLL_K_GUID: /* in ident as every guid, and the summary's copy */
            if (h.summary) sqlite3_bind_text(sum, 5, val, (int)f.value_len, SQLITE_STATIC);
            st = r->ins_ident;
            break;
        case NLL_K_IDENT: st = r->ins_ident; break;
        default: st = r->ins_value;
        }
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, name, f.name_len, SQLITE_STATIC);
        if (f.kind == NLL_K_VALUE_INT) {
            memcpy(&i, val, 8);
            sqlite3_bind_int64(st, 3, i);
        } else if (f.kind == NLL_K_VALUE_REAL) {
            memcpy(&d, val, 8);
            sqlite3_bind_double(st, 3, d);
        } else {
            sqlite3_bind_text(st, 3, val, (int)f.value_len, SQLITE_STATIC);
        }
        if ((rc = step(r, st, err))) return rc;
    }
    return h.summary ? step(r, sum, err) : 0;
}

int nll_rows_add(nll_rows_t *r, const char *line, size_t len, long lineno, nl_perr_t *perr,
                 nll_err_t *err)
{
    r->one.len = 0;
    int rc = nll_parse_line(&r->rec, r->flags, line, len, lineno, &r->one, perr);
    if (rc == NL_ENOMEM) snprintf(err->msg, sizeof err->msg, "out of memory");
    if (rc <= 0) return rc;
    size_t pos = 0;
    return (rc = nll_rows_store(r, &r->one, &pos, err)) ? rc : 1;
}
