/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_prune.c — retention: raw events age out, summaries (the history baselines read)
 * stay. SQLite deletes the rows; PostgreSQL drops whole days (the raw partitions, schemas/pg)
 * and deletes only what is left before the cut in the day that holds it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nll_sql.h"

static int run(nll_db_t *db, const char *const *sql, size_t n, double before, int64_t *deleted,
               int counted, nll_err_t *err)
{
    for (size_t i = 0; i < n; i++) {
        nll_stmt_t *st;
        int rc = nll_sql_prepare(db, sql[i], &st, err);
        if (rc) return rc;
        if (strstr(sql[i], "?1")) nll_sql_bind_double(st, 1, before);
        rc = nll_sql_step(st, err);
        if (rc >= 0 && (int)i == counted) *deleted += nll_sql_changes(db);
        nll_sql_finalize(st);
        if (rc < 0) return rc;
    }
    return 0;
}

/* PostgreSQL: the raw partitions wholly before `before` (nl-load names them by day,
 * event_raw_YYYYMMDD with its ident_ and value_ twins), counted and dropped. */
static int drop_days(nll_db_t *db, double before, int64_t *deleted, nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db,
                             "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = "
                             "i.inhrelid WHERE i.inhparent = 'event_raw'::regclass AND c.relname "
                             "~ '^event_raw_[0-9]{8}$' ORDER BY 1",
                             &st, err);
    if (rc) return rc;
    char days[4096][9];
    int nd = 0;
    while ((rc = nll_sql_step(st, err)) == 1 && nd < 4096) {
        const char *name = nll_sql_col_text(st, 0, NULL) + 10;
        int y, m, d;
        if (sscanf(name, "%4d%2d%2d", &y, &m, &d) != 3) continue;
        char iso[32];
        snprintf(iso, sizeof iso, "%04d-%02d-%02dT00:00:00Z", y, m, d);
        int64_t t;
        if (nl_ts_parse(iso, strlen(iso), &t) == 0 && (double)t / 1e6 + 86400 <= before)
            memcpy(days[nd++], name, 9);
    }
    nll_sql_finalize(st);
    if (rc < 0) return rc;
    for (int i = 0; i < nd && !rc; i++) {
        char sql[256];
        int64_t n = 0;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM event_raw_%.8s", days[i]);
        rc = nll_sql_int(db, sql, &n, err);
        *deleted += n;
        snprintf(sql, sizeof sql,
                 "DROP TABLE event_raw_%.8s; DROP TABLE ident_raw_%.8s; DROP TABLE value_raw_%.8s",
                 days[i], days[i], days[i]);
        if (!rc) rc = nll_sql_exec(db, sql, err);
    }
    return rc;
}

int nll_prune(nll_db_t *db, double before, int64_t *deleted, nll_err_t *err)
{
    *deleted = 0;
    int rc = nll_sql_begin(db, err);
    if (rc) return rc;
    if (nll_db_backend(db) == NLL_PG) {
        static const char *const sql[] = {
            "DELETE FROM ident_raw WHERE ts < ?1",
            "DELETE FROM value_raw WHERE ts < ?1",
            "DELETE FROM event_raw WHERE ts < ?1",
        };
        rc = drop_days(db, before, deleted, err);
        if (!rc) rc = run(db, sql, 3, before, deleted, 2, err);
    } else {
        /* the doomed ids once, in a temporary table, so ident/value/event deletes agree */
        static const char *const sql[] = {
            "CREATE TEMP TABLE IF NOT EXISTS nll_doomed (id INTEGER PRIMARY KEY)",
            "DELETE FROM temp.nll_doomed",
            ("INSERT INTO temp.nll_doomed SELECT id FROM event WHERE ts < ?1 AND id NOT IN "
             "(SELECT event_id FROM summary WHERE ts < ?1)"),
            "DELETE FROM ident WHERE event_id IN (SELECT id FROM temp.nll_doomed)",
            "DELETE FROM value WHERE event_id IN (SELECT id FROM temp.nll_doomed)",
            "DELETE FROM event WHERE id IN (SELECT id FROM temp.nll_doomed)",
        };
        rc = run(db, sql, 6, before, deleted, 5, err);
    }
    if (!rc) return nll_sql_commit(db, err);
    nll_sql_rollback(db);
    return rc;
}
