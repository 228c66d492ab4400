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

#include "nll_sql.h"

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

int nll_pos_find(nll_db_t *db, const nll_file_t *f, nll_pos_t *pos, int64_t *row, nll_err_t *err)
{
    *pos = (nll_pos_t){0, 0};
    *row = 0;
    unsigned char key[KEY_LEN];
    size_t kl = f->size < KEY_LEN ? (size_t)f->size : KEY_LEN;
    if (kl && read_at(f->fd, 0, key, kl)) kl = 0;
    nll_stmt_t *st;
    /* rows whose head starts like this file, rows with heads too short for the index, and
     * rows from before schema 3 for this path and inode */
    int rc = nll_sql_prepare(db,
                             "SELECT id, head, tail, \"offset\", lines FROM load_file "
                             "WHERE substr(head, 1, 16) = ?1 AND length(head) >= 16 "
                             "UNION ALL SELECT id, head, tail, \"offset\", lines FROM load_file "
                             "WHERE head IS NOT NULL AND length(head) < 16 "
                             "UNION ALL SELECT id, head, tail, \"offset\", lines FROM load_file "
                             "WHERE head IS NULL AND path = ?2 AND inode = ?3",
                             &st, err);
    if (rc) return rc;
    nll_sql_bind_blob(st, 1, key, kl);
    nll_sql_bind_text(st, 2, f->path, strlen(f->path));
    nll_sql_bind_int64(st, 3, (int64_t)f->inode);
    /* the loaded file this one continues furthest; a content match beats a row from before
     * schema 3, which is trusted by path and inode only when nothing else matches */
    int64_t best_row[2] = {0, 0};
    nll_pos_t best[2] = {{0, 0}, {0, 0}};
    while ((rc = nll_sql_step(st, err)) == 1) {
        size_t hl, tl;
        const void *head = nll_sql_col_blob(st, 1, &hl);
        int legacy = nll_sql_col_type(st, 1) == NLL_T_NULL;
        unsigned char h[HEAD_MAX];
        if (hl > sizeof h) continue;
        memcpy(h, head, hl); /* the tail's decoding may reuse the blob buffer */
        const void *tail = nll_sql_col_blob(st, 2, &tl);
        uint64_t off = (uint64_t)nll_sql_col_int64(st, 3);
        if (off > f->size) continue; /* shorter than what was loaded: not (or no longer) it */
        if (!legacy && (!holds(f->fd, f->size, 0, h, hl) ||
                        (tl && !holds(f->fd, f->size, off - tl, tail, tl))))
            continue;
        if (best_row[legacy] && off <= best[legacy].offset) continue;
        best_row[legacy] = nll_sql_col_int64(st, 0);
        best[legacy] = (nll_pos_t){off, (long)nll_sql_col_int64(st, 4)};
    }
    int pick = best_row[0] ? 0 : 1;
    *row = best_row[pick];
    *pos = best[pick];
    nll_sql_finalize(st);
    return rc < 0 ? rc : 0;
}

/* The loaded offset of row `id` (UINT64_MAX if the row is gone), the row locked until the
 * transaction ends where the database locks rows (PostgreSQL). */
static int row_offset(nll_db_t *db, int64_t id, uint64_t *off, nll_err_t *err)
{
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db,
                             nll_db_backend(db) == NLL_PG
                                 ? "SELECT \"offset\" FROM load_file WHERE id = ?1 FOR UPDATE"
                                 : "SELECT \"offset\" FROM load_file WHERE id = ?1",
                             &st, err);
    if (rc) return rc;
    nll_sql_bind_int64(st, 1, id);
    rc = nll_sql_step(st, err);
    *off = rc == 1 ? (uint64_t)nll_sql_col_int64(st, 0) : UINT64_MAX;
    nll_sql_finalize(st);
    return rc < 0 ? rc : 0;
}

int nll_pos_commit(nll_db_t *db, const nll_file_t *f, int64_t *row, const nll_pos_t *from,
                   const nll_pos_t *to, nll_err_t *err)
{
    /* inside the write transaction nobody else can move the row: is it still where this
     * loader started? Its own row is looked up by id; before it has one, no other loader
     * may have made one for this content meanwhile. SQLite's write lock covers the whole
     * file; PostgreSQL locks the row (FOR UPDATE), or, for a file's first row, takes a lock
     * every loader takes before making one. */
    nll_pos_t now = {0, 0};
    int64_t other = 0; /* a row another loader made for this content */
    int rc = 0;
    if (!*row && nll_db_backend(db) == NLL_PG)
        rc = nll_sql_exec(db, "SELECT pg_advisory_xact_lock(7284)", err);
    if (!rc)
        rc = *row ? row_offset(db, *row, &now.offset, err) : nll_pos_find(db, f, &now, &other, err);
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
    nll_stmt_t *st;
    const char *sql = *row ? "UPDATE load_file SET head = ?1, tail = ?2, \"offset\" = ?3, "
                             "lines = ?4, path = ?5, inode = ?6, updated = ?7 WHERE id = ?8"
                           : "INSERT INTO load_file (head, tail, \"offset\", lines, path, inode, "
                             "updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id";
    if ((rc = nll_sql_prepare(db, sql, &st, err))) return rc; /* err says where and why */
    nll_sql_bind_blob(st, 1, head, hl);
    nll_sql_bind_blob(st, 2, tail, tl);
    nll_sql_bind_int64(st, 3, (int64_t)to->offset);
    nll_sql_bind_int64(st, 4, to->lines);
    nll_sql_bind_text(st, 5, f->path, strlen(f->path));
    nll_sql_bind_int64(st, 6, (int64_t)f->inode);
    nll_sql_bind_double(st, 7, (double)time(NULL));
    if (*row) nll_sql_bind_int64(st, 8, *row);
    rc = nll_sql_step(st, err);
    if (rc == 1 && !*row) *row = nll_sql_col_int64(st, 0);
    if (rc == 1) rc = nll_sql_step(st, err); /* to the end of the statement */
    nll_sql_finalize(st);
    return rc < 0 ? rc : 0;
}
