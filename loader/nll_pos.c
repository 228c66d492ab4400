/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_pos.c — how far each file has been loaded, known by its content (schemas/003): a
 * file is a loaded one if it begins with that one's head and holds its tail just before
 * its offset. So a file renamed by rotation resumes where it stopped, a copy of it
 * (copytruncate) too, and a new file under an old name or inode starts afresh. The row is
 * written in the transaction that inserts the lines, and checked there against what this
 * loader started from, so two loaders on one file cannot both store a line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nll.h"

#define HEAD_MAX 1024 /* bytes of a file's beginning kept to know it by */
#define TAIL_MAX 64   /* bytes before the loaded offset kept to check it */
#define KEY_LEN 16    /* the head's prefix the index is on */

/* Read exactly n bytes at off; 0, or -1 if the file is shorter or unreadable. */
static int read_at(int fd, uint64_t off, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Whether the file holds `blob` at `off`. */
static int holds(int fd, uint64_t size, uint64_t off, const void *blob, size_t n)
{
    if (off + n > size) return 0;
    unsigned char buf[HEAD_MAX];
    if (n > sizeof buf || read_at(fd, off, buf, n)) return 0;
    return memcmp(buf, blob, n) == 0;
}

int nll_pos_find(sqlite3 *db, const nll_file_t *f, nll_pos_t *pos, int64_t *row, nll_err_t *err)
{
    *pos = (nll_pos_t){0, 0};
    *row = 0;
    unsigned char key[KEY_LEN];
    size_t kl = f->size < KEY_LEN ? (size_t)f->size : KEY_LEN;
    if (kl && read_at(f->fd, 0, key, kl)) kl = 0;
    sqlite3_stmt *st;
    /* rows whose head starts like this file, rows with heads too short for the index, and
     * rows from before schema 3 for this path and inode */
    if (sqlite3_prepare_v2(db,
                           "SELECT id, head, tail, offset, lines FROM load_file "
                           "WHERE substr(head, 1, 16) = ?1 AND length(head) >= 16 "
                           "UNION ALL SELECT id, head, tail, offset, lines FROM load_file "
                           "WHERE head IS NOT NULL AND length(head) < 16 "
                           "UNION ALL SELECT id, head, tail, offset, lines FROM load_file "
                           "WHERE head IS NULL AND path = ?2 AND inode = ?3",
                           -1, &st, NULL) != SQLITE_OK)
        return nll_db_fail(db, err, "reading load positions");
    sqlite3_bind_blob(st, 1, key, (int)kl, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, f->path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)f->inode);
    /* the loaded file this one continues furthest; a content match beats a row from before
     * schema 3, which is trusted by path and inode only when nothing else matches */
    int64_t best_row[2] = {0, 0};
    nll_pos_t best[2] = {{0, 0}, {0, 0}};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const void *head = sqlite3_column_blob(st, 1);
        size_t hl = (size_t)sqlite3_column_bytes(st, 1);
        const void *tail = sqlite3_column_blob(st, 2);
        size_t tl = (size_t)sqlite3_column_bytes(st, 2);
        uint64_t off = (uint64_t)sqlite3_column_int64(st, 3);
        int legacy = sqlite3_column_type(st, 1) == SQLITE_NULL;
        if (off > f->size) continue; /* shorter than what was loaded: not (or no longer) it */
        if (!legacy && (!holds(f->fd, f->size, 0, head, hl) ||
                        (tl && !holds(f->fd, f->size, off - tl, tail, tl))))
            continue;
        if (best_row[legacy] && off <= best[legacy].offset) continue;
        best_row[legacy] = sqlite3_column_int64(st, 0);
        best[legacy] = (nll_pos_t){off, (long)sqlite3_column_int64(st, 4)};
    }
    int pick = best_row[0] ? 0 : 1;
    *row = best_row[pick];
    *pos = best[pick];
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : nll_db_fail(db, err, "reading load positions");
}

/* The loaded offset of row `id` (UINT64_MAX if the row is gone). */
static int row_offset(sqlite3 *db, int64_t id, uint64_t *off, nll_err_t *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT offset FROM load_file WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return nll_db_fail(db, err, "reading load positions");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    *off = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : UINT64_MAX;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
                                                 : nll_db_fail(db, err, "reading load positions");
}

int nll_pos_commit(sqlite3 *db, const nll_file_t *f, int64_t *row, const nll_pos_t *from,
                   const nll_pos_t *to, nll_err_t *err)
{
    /* inside the write transaction nobody else can move the row: is it still where this
     * loader started? Its own row is looked up by id; before it has one, no other loader
     * may have made one for this content meanwhile. */
    nll_pos_t now = {0, 0};
    int64_t other = 0; /* a row another loader made for this content */
    int rc = *row ? row_offset(db, *row, &now.offset, err) : nll_pos_find(db, f, &now, &other, err);
    if (rc) return rc;
    if (other || now.offset != from->offset) {
        snprintf(err->msg, sizeof err->msg,
                 "%s: loaded meanwhile by another nl-load (it is at byte %llu, this one started "
                 "at %llu): nothing of this batch is stored",
                 f->path, (unsigned long long)now.offset, (unsigned long long)from->offset);
        return NLL_CONFLICT;
    }
    unsigned char head[HEAD_MAX], tail[TAIL_MAX];
    size_t hl = to->offset < HEAD_MAX ? (size_t)to->offset : HEAD_MAX;
    size_t tl = to->offset < TAIL_MAX ? (size_t)to->offset : TAIL_MAX;
    if (read_at(f->fd, 0, head, hl) || read_at(f->fd, to->offset - tl, tail, tl)) {
        snprintf(err->msg, sizeof err->msg,
                 "%s: cut short while being loaded (truncated?): nothing of this batch is stored",
                 f->path);
        return NLL_CONFLICT;
    }
    sqlite3_stmt *st;
    const char *sql = *row ? "UPDATE load_file SET head = ?1, tail = ?2, offset = ?3, lines = ?4, "
                             "path = ?5, inode = ?6, updated = ?7 WHERE id = ?8"
                           : "INSERT INTO load_file (head, tail, offset, lines, path, inode, "
                             "updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return nll_db_fail(db, err, "recording the load position");
    sqlite3_bind_blob(st, 1, head, (int)hl, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, tail, (int)tl, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)to->offset);
    sqlite3_bind_int64(st, 4, to->lines);
    sqlite3_bind_text(st, 5, f->path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)f->inode);
    sqlite3_bind_double(st, 7, (double)time(NULL));
    if (*row) sqlite3_bind_int64(st, 8, *row);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return nll_db_fail(db, err, "recording the load position");
    if (!*row) *row = sqlite3_last_insert_rowid(db);
    return 0;
}
