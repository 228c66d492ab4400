/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_lite.c — a SQLite archive's failures in the user's words: the file, what was being
 * done, SQLite's message and the operating system's reason when SQLite leaves it out. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nll_db_int.h"

static const char *db_path(sqlite3 *db)
{
    const char *p = sqlite3_db_filename(db, "main");
    return p && *p ? p : ":memory:";
}

/* The operating system's reason behind an I/O failure ("File too large", "No space left
 * on device"), which SQLite's text leaves out. SQLite does not always keep the errno (a
 * failed WAL write at COMMIT does not), so `seen` is the errno right after the call, used
 * only when it is one that explains a failed write; "" if nothing is known. */
const char *nll__lite_reason(sqlite3 *db, int seen, char *buf, size_t cap)
{
    int ext = sqlite3_extended_errcode(db), e = sqlite3_system_errno(db);
    int primary = ext & 0xff;
    buf[0] = 0;
    if (primary != SQLITE_IOERR && primary != SQLITE_FULL && primary != SQLITE_CANTOPEN &&
        primary != SQLITE_READONLY)
        return buf;
    if (!e && (seen == EFBIG || seen == ENOSPC || seen == EDQUOT || seen == EROFS ||
               seen == EACCES || seen == EPERM))
        e = seen;
    /* An archive on a read-only mount: SQLite's last try is to open its -shm read-only,
     * which does not exist, so it keeps ENOENT; the file itself says what is wrong. */
    const char *path = sqlite3_db_filename(db, "main");
    if ((primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY) && (!e || e == ENOENT) && path &&
        *path && access(path, F_OK) == 0 && access(path, W_OK) != 0)
        e = errno;
    if (e)
        snprintf(buf, cap, " (%s)", strerror(e));
    else if (ext == SQLITE_IOERR_WRITE || ext == SQLITE_IOERR_FSYNC || primary == SQLITE_FULL)
        snprintf(buf, cap, " (a write failed: disk full, quota or file-size limit?)");
    return buf;
}

int nll__lite_fail(sqlite3 *db, nll_err_t *err, const char *what)
{
    char why[96];
    int seen = errno, rc = sqlite3_errcode(db);
    if (err)
        snprintf(err->msg, sizeof err->msg, "%s: %s: %s%s", db_path(db), what, sqlite3_errmsg(db),
                 nll__lite_reason(db, seen, why, sizeof why));
    return rc == SQLITE_NOMEM ? NL_ENOMEM : NL_EIO;
}

int nll__lite_exec(sqlite3 *db, const char *sql, nll_err_t *err)
{
    char *msg = NULL;
    errno = 0;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    int seen = errno;
    char why[96];
    if (err)
        snprintf(err->msg, sizeof err->msg, "%s: %s%s", db_path(db), msg ? msg : sqlite3_errmsg(db),
                 nll__lite_reason(db, seen, why, sizeof why));
    int rc = sqlite3_errcode(db) == SQLITE_NOMEM ? NL_ENOMEM : NL_EIO;
    sqlite3_free(msg);
    return rc;
}
