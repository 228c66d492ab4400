/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_prune.c — retention: raw events age out, summaries (the history baselines read)
 * stay. */
#include "nll.h"

int nll_prune(sqlite3 *db, double before, int64_t *deleted, nll_err_t *err)
{
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
    int rc = nll_db_exec(db, "BEGIN IMMEDIATE", err);
    *deleted = 0;
    for (size_t i = 0; !rc && i < sizeof sql / sizeof sql[0]; i++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql[i], -1, &st, NULL) != SQLITE_OK) {
            rc = nll_db_fail(db, err, "pruning");
            break;
        }
        if (sqlite3_bind_parameter_count(st)) sqlite3_bind_double(st, 1, before);
        if (sqlite3_step(st) != SQLITE_DONE) rc = nll_db_fail(db, err, "pruning");
        if (!rc && i == 5) *deleted = sqlite3_changes64(db);
        sqlite3_finalize(st);
    }
    if (!rc) return nll_db_exec(db, "COMMIT", err);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}
