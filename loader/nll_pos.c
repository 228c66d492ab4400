/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_pos.c — how far each file has been loaded. The row is written in the transaction
 * that inserts the lines, so after a crash the position and the rows agree. */
#include <time.h>

#include "nll.h"

int nll_pos_get(sqlite3 *db, const char *path, uint64_t inode, nll_pos_t *pos, nll_err_t *err)
{
    sqlite3_stmt *st;
    *pos = (nll_pos_t){0, 0};
    if (sqlite3_prepare_v2(db,
                           "SELECT offset, lines FROM load_position WHERE path = ? AND "
                           "inode = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return nll_db_fail(db, err, "reading load positions");
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)inode);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        pos->offset = (uint64_t)sqlite3_column_int64(st, 0);
        pos->lines = (long)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
                                                 : nll_db_fail(db, err, "reading load positions");
}

int nll_pos_set(sqlite3 *db, const char *path, uint64_t inode, const nll_pos_t *pos, nll_err_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO load_position VALUES (?, ?, ?, ?, ?)", -1,
                           &st, NULL) != SQLITE_OK)
        return nll_db_fail(db, err, "recording the load position");
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)inode);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)pos->offset);
    sqlite3_bind_int64(st, 4, pos->lines);
    sqlite3_bind_double(st, 5, (double)time(NULL));
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : nll_db_fail(db, err, "recording the load position");
}
