/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_db.c — opening the archive (a SQLite file, or a PostgreSQL database by its URI), and
 * upgrading its schema in place step by step. */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nl_file.h"
#include "nll_conn.h"
#include "nll_db_int.h"
#include "nll_schema.h"

static int errf(nll_err_t *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

sqlite3 *nll_db_sqlite(nll_db_t *db) { return db && db->backend == NLL_SQLITE ? db->lite : NULL; }

int nll_schema_newest(void) { return nll__steps[nll__nsteps - 1].version; }

/* One integer from a query without parameters (NULL reads as 0). */
static int query_int(nll_db_t *db, const char *sql, int *out, nll_err_t *err)
{
    int64_t v = 0;
    int rc = nll_sql_int(db, sql, &v, err);
    *out = (int)v;
    return rc;
}

int nll_db_version(nll_db_t *db, int *version, nll_err_t *err)
{
    /* One statement, so one snapshot: asked in two, "is there an nl_schema table?" then
     * "are there tables?", another loader creating the schema could commit in between,
     * and its fresh tables read as a foreign database (seen under ASan's slower start:
     * "not an nlkit archive"). -1: nl_schema is there; else how many tables there are. */
    int tables;
    int rc = query_int(db,
                       db->backend == NLL_PG
                           ? "SELECT CASE WHEN bool_or(tablename = 'nl_schema') THEN -1 ELSE "
                             "count(*) END FROM pg_tables WHERE schemaname = current_schema()"
                           : "SELECT CASE WHEN max(name = 'nl_schema') THEN -1 ELSE count(*) END "
                             "FROM sqlite_schema WHERE type = 'table'",
                       &tables, err);
    if (rc) return rc;
    if (tables > 0)
        return errf(err, NL_EINVAL,
                    "%s: not an nlkit archive (it has tables, but no nl_schema table)", db->name);
    if (tables == 0) {
        *version = 0;
        return 0;
    }
    return query_int(db, "SELECT max(version) FROM nl_schema", version, err);
}

/* Apply step s in one transaction, unless another writer did it meanwhile (PostgreSQL:
 * an advisory lock keeps two loaders upgrading one archive from both running it). */
static int apply_step(nll_db_t *db, const nll_step_t *s, nll_err_t *err)
{
    int rc = nll_sql_begin(db, err), have = 0;
    if (rc) return rc;
    if (db->backend == NLL_PG) rc = nll_sql_exec(db, "SELECT pg_advisory_xact_lock(7283)", err);
    if (!rc) rc = nll_db_version(db, &have, err);
    if (!rc && have < s->version) {
        char sql[256];
        rc = nll_db_exec(db, s->sql, err);
        snprintf(sql, sizeof sql, "INSERT INTO nl_schema VALUES (%d, '%s', %.6f)", s->version,
                 s->name, (double)time(NULL));
        if (!rc) rc = nll_db_exec(db, sql, err);
        if (rc) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            errf(err, rc, "upgrading to schema version %d (%s) failed: %s", s->version, s->name,
                 why);
        }
    }
    if (!rc) return nll_sql_commit(db, err);
    nll_sql_rollback(db);
    return rc;
}

static int prepare_writer(nll_db_t *db, int upto, nll_err_t *err)
{
    int pg = db->backend == NLL_PG;
    /* SQLite: WAL, so readers never block the loader nor the loader them; NORMAL sync
     * keeps every committed transaction across a crash of the process (the exactly-once
     * guarantee), and only the last ones across a power cut, positions and rows together.
     * PostgreSQL: its own durability (synchronous_commit as the server has it). */
    int rc = pg ? nll_sql_exec(db, "SET client_min_messages = warning", err)
                : nll_db_exec(db,
                              "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA "
                              "synchronous = NORMAL; PRAGMA cache_size = -65536",
                              err);
    int version = 0;
    if (!rc) rc = nll_db_version(db, &version, err);
    if (rc) return rc;
    if (version > nll_schema_newest())
        return errf(err, NL_EINVAL,
                    "%s: schema version %d is newer than this nl-load knows (%d): use a newer "
                    "nlkit",
                    db->name, version, nll_schema_newest());
    const nll_step_t *steps = pg ? nll__pg_steps : nll__steps;
    int nsteps = pg ? nll__pg_nsteps : nll__nsteps;
    for (int i = 0; i < nsteps && !rc; i++)
        if (steps[i].version > version && (upto <= 0 || steps[i].version <= upto))
            rc = apply_step(db, &steps[i], err);
    return rc;
}

static int check_reader(nll_db_t *db, nll_err_t *err)
{
    int version = 0, rc = nll_db_version(db, &version, err);
    if (rc) return rc;
    if (version == 0)
        return errf(err, NL_EINVAL,
                    "%s: empty, not an nlkit archive yet (load events with "
                    "nl-load first)",
                    db->name);
    if (version < nll_schema_newest())
        return errf(err, NL_EINVAL,
                    "%s: schema version %d is older than %d: run nl-load on it once to "
                    "upgrade it in place",
                    db->name, version, nll_schema_newest());
    if (version > nll_schema_newest())
        return errf(err, NL_EINVAL, "%s: schema version %d is newer than this build knows (%d)",
                    db->name, version, nll_schema_newest());
    return 0;
}

/* An archive holds every host's events: a new one is made 0640 (and SQLite gives its -wal
 * and -shm files the same mode), where SQLite alone would make it 0644 under the usual
 * umask. An empty file is an empty database. An existing file is left as its owner set it;
 * a path SQLite cannot open is reported by sqlite3_open_v2 below. Returns 0, or errno
 * when the file could not be made (the true reason: SQLite's own last system error is then
 * ENOENT from looking for the file, which told a read-only mount as "No such file"). */
static int create_private(const char *path)
{
    if (!path[0] || strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0) return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd >= 0) close(fd);
    return fd < 0 && errno != EEXIST ? errno : 0;
}

static int open_pg(const char *uri, unsigned flags, int upto, nll_db_t *db, nll_err_t *err)
{
    db->backend = NLL_PG;
    nll_db_display_name(uri, db->name, sizeof db->name);
    char m[512];
    if (nll__conn_is_kv(uri) && nll__conn_kv_check(uri, m, sizeof m))
        return errf(err, NL_EINVAL, "%s: not a connection string libpq can read: %s", db->name, m);
    /* named in pg_stat_activity unless the URI names itself: an operator (or a test) can
     * tell loaders from readers, and see a killed loader's session still finishing */
    const char *const keys[] = {"dbname", "fallback_application_name", NULL};
    const char *const vals[] = {uri, flags & NLL_OPEN_READ ? "nlkit-reader" : "nlkit-loader", NULL};
    db->pg = PQconnectdbParams(keys, vals, 1);
    if (PQstatus(db->pg) != CONNECTION_OK) {
        snprintf(m, sizeof m, "%s", PQerrorMessage(db->pg));
        m[strcspn(m, "\n")] = 0;
        nll__conn_scrub(uri, m, sizeof m); /* libpq quotes a URI it cannot read, password too */
        return errf(err, NL_EIO, "%s: cannot connect: %s", db->name, m);
    }
    /* every session in UTC, numbers in full: what nl-load writes is read back the same */
    int rc = nll_sql_exec(db, "SET TIME ZONE 'UTC'; SET extra_float_digits = 3", err);
    if (rc) return rc;
    return flags & NLL_OPEN_READ ? check_reader(db, err) : prepare_writer(db, upto, err);
}

int nll_db_open(const char *path, unsigned flags, int upto, nll_db_t **out, nll_err_t *err)
{
    *out = NULL;
    nll_db_t *d = calloc(1, sizeof *d);
    if (!d) return errf(err, NL_ENOMEM, "%s: out of memory", path);
    if (nll_db_is_pg(path)) {
        int rc = open_pg(path, flags, upto, d, err);
        if (rc) {
            nll_db_close(d);
            return rc;
        }
        *out = d;
        return 0;
    }
    d->backend = NLL_SQLITE;
    snprintf(d->name, sizeof d->name, "%s", path);
    /* SQLite would open a FIFO (blocking for ever when reading) or a device as a database */
    if (strncmp(path, "file:", 5) && nl__check_regular(path, err ? err->msg : NULL,
                                                       err ? sizeof err->msg : 0)) {
        free(d);
        return NL_EINVAL;
    }
    sqlite3 *db = NULL;
    int read_only = (flags & NLL_OPEN_READ) != 0;
    /* one connection per thread: SQLite's own locking would be pure overhead */
    int oflags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                 SQLITE_OPEN_NOMUTEX;
    int made = read_only ? 0 : create_private(path);
    if (sqlite3_open_v2(path, &db, oflags, NULL) != SQLITE_OK) {
        /* SQLite says only "unable to open database file"; the system's reason (a
         * read-only mount, permissions, a missing directory) is what the user needs */
        int se = made ? made : db ? sqlite3_system_errno(db) : 0;
        int rc = errf(err, NL_EIO, "%s: cannot open database: %s%s%s%s", path,
                      db ? sqlite3_errmsg(db) : "out of memory", se ? " (" : "",
                      se ? strerror(se) : "", se ? ")" : "");
        sqlite3_close(db);
        free(d);
        return rc;
    }
    d->lite = db;
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, 10000);
    int rc = read_only ? check_reader(d, err) : prepare_writer(d, upto, err);
    /* Several loaders creating one archive at once: switching a new database to WAL takes
     * a lock the busy handler does not wait for (SQLITE_BUSY at once, 7 in 90 tries with
     * three loaders). Try again for up to about 10 s, as for any other writer's lock. */
    for (int tries = 0;
         rc && !read_only && (sqlite3_errcode(db) & 0xff) == SQLITE_BUSY && tries < 200; tries++) {
        struct timespec ms50 = {0, 50000000};
        nanosleep(&ms50, NULL);
        rc = prepare_writer(d, upto, err);
    }
    if (rc) {
        nll_db_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

void nll_db_close(nll_db_t *db)
{
    if (!db) return;
    if (db->lite) sqlite3_close(db->lite);
    if (db->pg) PQfinish(db->pg);
    free(db);
}
