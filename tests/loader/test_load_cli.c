/* SPDX-License-Identifier: BSD-3-Clause */
/* test_load_cli.c — the nl-load, nl-baseline and nl-detect programs (paths in argv[1-3]):
 * exactly once across kill -9 at random moments, appended files, bad lines reported with
 * file:line and copied to the reject file, standard input committed while still open (and
 * no write lock held while it waits, so a prune or a second loader goes through), a
 * read-only and a full database failing with a clear message and nothing lost on re-run,
 * nl-baseline's lines, nl-detect starting its histories from the archive, and a libpq
 * keyword string taken as PostgreSQL with its password in no message. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nl_test.h"
#include "nlkit/nl.h"
#include <libpq-fe.h>

#include "nll_db_lite.h"
#include "nll_sql.h"

static const char *load_prog, *base_prog, *detect_prog;

/* A copy of a t_path() result that outlives its rotating buffer (a few per test). */
static const char *keep(const char *s)
{
    static char pool[16][800];
    static int next;
    char *p = pool[next++ % 16];
    snprintf(p, sizeof pool[0], "%s", s);
    return p;
}

/* One integer from the archive (a SQLite path or a PostgreSQL URI), or -1 while it cannot
 * be read yet (the loader is creating it). */
static long long q_poll(const char *db_path, const char *sql)
{
    nll_db_t *db;
    nll_err_t err;
    int64_t v = -1;
    if (nll_db_open(db_path, NLL_OPEN_READ, 0, &db, &err)) return -1;
    if (nll_db_sqlite(db)) sqlite3_busy_timeout(nll_db_sqlite(db), 5000);
    if (nll_sql_int(db, sql, &v, &err)) v = -1;
    nll_db_close(db);
    return v;
}

static long long q_int(const char *db_path, const char *sql)
{
    nll_db_t *db;
    nll_err_t err;
    int rc = nll_db_open(db_path, NLL_OPEN_READ, 0, &db, &err);
    if (rc) fail_msg("%s", err.msg);
    if (nll_db_sqlite(db)) sqlite3_busy_timeout(nll_db_sqlite(db), 5000);
    int64_t v = 0;
    rc = nll_sql_int(db, sql, &v, &err);
    if (rc) fail_msg("%s: %s", sql, err.msg);
    nll_db_close(db);
    return v;
}

/* Events in the archive, or -1 while it cannot be read yet (being created). */
static long long probe_count(const char *db_path)
{
    return q_poll(db_path, "SELECT count(*) FROM event");
}

/* PostgreSQL: the URI of the test server's database (from the file given as argv[5]), and
 * whether this round of tests runs on it. Each test gets its own schema there (search_path
 * in the URI), made empty. */
static char pg_uri[512];
static int on_pg;

/* Where a test's archive `name` lives: a file in dir, or a fresh schema on the server. */
static const char *archive(const char *dir, const char *name)
{
    if (!on_pg) return keep(t_path(dir, name));
    char schema[64];
    snprintf(schema, sizeof schema, "t_%.*s", (int)strcspn(name, "."), name);
    PGconn *c = PQconnectdb(pg_uri);
    if (PQstatus(c) != CONNECTION_OK) fail_msg("%s: %s", pg_uri, PQerrorMessage(c));
    char sql[256];
    snprintf(sql, sizeof sql,
             "SET client_min_messages = warning; DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA "
             "%s",
             schema, schema);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    char uri[700];
    snprintf(uri, sizeof uri, "%s&options=-csearch_path%%3D%s", pg_uri, schema);
    return keep(uri);
}

/* PostgreSQL: once a loader is killed, its server session may still be committing what it
 * sent last (the server notices the lost client only after); wait until it has gone, so
 * what the test reads next is what the archive keeps. The test's sessions carry a name of
 * their own (other tests load into the same server meanwhile). */
static void settle(const char *db)
{
    if (!on_pg) return;
    for (int i = 0; i < 2000; i++) {
        if (q_int(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                      "'nlkit-kill9-test' AND pid <> pg_backend_pid()") == 0)
            return;
        t_sleep_ms(5);
    }
    fail_msg("a killed loader's PostgreSQL session did not end in 10 s");
}

/* n numbered events, seq=first..first+n-1, appended to path. */
static void write_events(const char *path, int first, int n)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    for (int i = first; i < first + n; i++)
        fprintf(f,
                "ts=2026-11-22T12:%02d:%02d.%06dZ event=xfer.block.end level=Info "
                "guid=6f1c2a40-0000-4000-8000-%012d seq=%d nbytes=262144 host=gw%d\n",
                i / 60000 % 60, i / 1000 % 60, i % 1000 * 1000, i % 7, i, i % 3);
    assert_int_equal(fclose(f), 0);
}

static void expect_exactly(const char *db, int n)
{
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), n);
    assert_int_equal(q_int(db, "SELECT count(DISTINCT value) FROM value WHERE name='seq'"), n);
    if (n)
        assert_int_equal(q_int(db, "SELECT max(num) - min(num) + 1 FROM value WHERE "
                                   "name='seq'"),
                         n);
}

static void test_exactly_once_across_kill9(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "events.log")), *db = archive(dir, "a.db");
    if (on_pg) {
        char named[780];
        snprintf(named, sizeof named, "%s&application_name=nlkit-kill9-test", db);
        db = keep(named);
    }
    enum { N = 150000 };
    write_events(in, 0, N);
    const char *args[] = {"-d", db, "-q", "--batch", "1000", in, NULL};
    int kills = 0, mid = 0, done = 0;
    uint64_t rs = 7;
    /* 40 kills mid-load are the point, not the file's end: each round costs a loader's
     * start and a commit (0.7 s on two busy cores, several under ASan), so the rounds stop
     * there and the last run loads the rest (the 139 rounds to the end took 94 s) */
    for (int round = 0; round < 200 && !done && mid < 40; round++) {
        t_child_t c = {0};
        long long before = probe_count(db);
        pid_t pid = t_spawn(load_prog, &c, args);
        /* kill it at a random moment once it has committed something new (whatever the
         * machine's load), so the kill lands between batches, mid-load */
        int st, reaped = 0;
        for (int w = 0; w < 5000 && !reaped && probe_count(db) <= before; w++) {
            reaped = waitpid(pid, &st, WNOHANG) == pid;
            t_sleep_ms(1);
        }
        if (!reaped) {
            t_sleep_ms((int)(t_rand(&rs) % 40));
            if (kill(pid, SIGKILL) == 0) kills++;
            assert_int_equal(waitpid(pid, &st, 0), pid);
            settle(db);
        }
        if (WIFEXITED(st)) {
            assert_int_equal(WEXITSTATUS(st), 0);
            done = 1;
        } else {
            long long have = q_int(db, "SELECT count(*) FROM event");
            mid += have > 0 && have < N;
            /* what was committed is a prefix, once each */
            assert_int_equal(q_int(db, "SELECT count(DISTINCT value) FROM value WHERE "
                                       "name='seq'"),
                             have);
            if (have)
                assert_int_equal(q_int(db, "SELECT max(num) FROM value WHERE "
                                           "name='seq'"),
                                 have - 1);
        }
    }
    t_child_t c = {0};
    assert_int_equal(t_run(load_prog, &c, args), 0); /* finish whatever remains */
    expect_exactly(db, N);
    assert_true(mid >= 20); /* at least 20 kills landed mid-load, between batches or in one */
    fprintf(stderr, "    %s: %d kill -9 (%d mid-load); %d events, each once\n",
            on_pg ? "PostgreSQL" : "SQLite", kills, mid, N);
    /* appended lines: only they are added; a third run adds nothing */
    write_events(in, N, 1000);
    assert_int_equal(t_run(load_prog, &c, args), 0);
    expect_exactly(db, N + 1000);
    assert_int_equal(t_run(load_prog, &c, args), 0);
    expect_exactly(db, N + 1000);
    t_rmtree(dir);
}

/* Several loaders into one archive at once, as several collectors would: one per file and
 * two more on files others are loading: every line once, nothing lost, no deadlock. */
static void test_concurrent_loaders(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *db = archive(dir, "c.db");
    enum { FILES = 4, N = 20000, LOADERS = 6 };
    const char *in[FILES];
    for (int i = 0; i < FILES; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d.log", i);
        in[i] = keep(t_path(dir, name));
        write_events(in[i], i * N, N);
    }
    pid_t pid[LOADERS];
    t_child_t c[LOADERS];
    const char *errs[LOADERS];
    for (int k = 0; k < LOADERS; k++) {
        const char *args[] = {"-d", db, "-q", "--batch", "500", in[k % FILES], NULL};
        char name[32];
        snprintf(name, sizeof name, "err%d", k);
        errs[k] = keep(t_path(dir, name));
        c[k] = (t_child_t){.err = errs[k]};
        pid[k] = t_spawn(load_prog, &c[k], args);
    }
    for (int k = 0; k < LOADERS; k++) {
        int st;
        assert_int_equal(waitpid(pid[k], &st, 0), pid[k]);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            char *msg = t_slurp(errs[k], NULL);
            fail_msg("loader %d failed: %s", k, msg ? msg : "(no message)");
        }
    }
    expect_exactly(db, FILES * N);
    fprintf(stderr, "    %s: %d loaders at once, %d files: %d events, each once\n",
            on_pg ? "PostgreSQL" : "SQLite", LOADERS, FILES, FILES * N);
    t_rmtree(dir);
}

/* The bytes of the one text `sql` returns, into out (cap bytes); its length. */
static size_t q_bytes(const char *db_path, const char *sql, char *out, size_t cap)
{
    nll_db_t *db;
    nll_err_t err;
    nll_stmt_t *st;
    if (nll_db_open(db_path, NLL_OPEN_READ, 0, &db, &err)) fail_msg("%s", err.msg);
    if (nll_sql_prepare(db, sql, &st, &err)) fail_msg("%s: %s", sql, err.msg);
    if (nll_sql_step(st, &err) != 1) fail_msg("%s: no row", sql);
    size_t len = 0;
    const char *t = nll_sql_col_text(st, 0, &len);
    assert_true(len <= cap);
    memcpy(out, t, len);
    nll_sql_finalize(st);
    nll_db_close(db);
    return len;
}

/* Texts are archived with the bytes the line's writer put in them: its escapes decoded
 * once (tab, newline, backslash, quote), UTF-8 as is, and bytes the database cannot hold
 * (PostgreSQL: a NUL, bytes that are not UTF-8) written \xHH, counted and reported; on
 * SQLite, which holds any bytes, as they were. */
static void test_texts_archived_as_written(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "t.log")), *db = archive(dir, "t.db");
    const char *err = keep(t_path(dir, "err"));
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    static const char lines[] =
        "ts=2026-11-22T12:00:00Z event=t.esc level=Info v=\"a\\tb\\\\c\\\"d\\ne\"\n"
        "ts=2026-11-22T12:00:01Z event=t.nul level=Info v=\"nul\\x00here\"\n"
        "ts=2026-11-22T12:00:02Z event=t.latin1 level=Info v=caf\xe9!\n"
        "ts=2026-11-22T12:00:03Z event=t.utf8 level=Info v=caf\xc3\xa9 host=h\xe2\x82\xac\n";
    assert_int_equal(fwrite(lines, 1, sizeof lines - 1, f), sizeof lines - 1);
    assert_int_equal(fclose(f), 0);
    t_child_t c = {.err = err};
    const char *args[] = {"-d", db, in, NULL};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    char got[64];
    size_t n;
#define V(ev)                                                                                      \
    "SELECT v.value FROM value v JOIN event e ON e.id = v.event_id WHERE v.name = 'v' AND "        \
    "e.event = '" ev "'"
#define EXPECT_BYTES(ev, want)                                                                     \
    do {                                                                                           \
        n = q_bytes(db, V(ev), got, sizeof got);                                                   \
        assert_int_equal(n, sizeof want - 1);                                                      \
        assert_memory_equal(got, want, n);                                                         \
    } while (0)
    EXPECT_BYTES("t.esc", "a\tb\\c\"d\ne");
    EXPECT_BYTES("t.utf8", "caf\xc3\xa9");
    n = q_bytes(db, "SELECT value FROM value WHERE name = 'host'", got, sizeof got);
    assert_int_equal(n, 4);
    assert_memory_equal(got, "h\xe2\x82\xac", 4);
    char *msg = t_slurp(err, NULL);
    if (on_pg) {
        EXPECT_BYTES("t.nul", "nul\\x00here");
        EXPECT_BYTES("t.latin1", "caf\\xe9!");
        assert_non_null(strstr(msg, "2 text(s) held bytes the database cannot store"));
    } else {
        EXPECT_BYTES("t.nul", "nul\0here");
        EXPECT_BYTES("t.latin1", "caf\xe9!");
        assert_null(strstr(msg, "cannot store"));
    }
#undef EXPECT_BYTES
#undef V
    free(msg);
    t_rmtree(dir);
}

/* An archive holds every host's events: nl-load makes a new one 0640 whatever the umask
 * allows beyond that (SQLite alone made it 0644), and its -wal file alike; an archive that
 * exists keeps the mode its owner gave it. */
static void test_new_archive_is_not_world_readable(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "e.log")), *db = keep(t_path(dir, "new.db"));
    const char *wal = keep(t_path(dir, "new.db-wal"));
    write_events(in, 0, 10);
    mode_t old = umask(022);
    t_child_t c = {0};
    const char *args[] = {"-d", db, "-q", in, NULL};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    struct stat sb;
    assert_int_equal(stat(db, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    if (stat(wal, &sb) == 0) assert_int_equal(sb.st_mode & 07777, 0640);
    assert_int_equal(chmod(db, 0600), 0);
    write_events(in, 10, 5);
    assert_int_equal(t_run(load_prog, &c, args), 0);
    assert_int_equal(stat(db, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0600);
    expect_exactly(db, 15);
    umask(old);
    t_rmtree(dir);
}

/* An archive on a read-only mount (root, in its own mount namespace): the error names
 * the cause in the system's words, not SQLite's "unable to open database file" alone. */
static void test_read_only_mount_says_so(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "e.log")), *ro = keep(t_path(dir, "ro"));
    const char *err = keep(t_path(dir, "err"));
    write_events(in, 0, 10);
    assert_int_equal(mkdir(ro, 0755), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (t_readonly_mount(ro) != 0) _exit(77);
        char db[600];
        snprintf(db, sizeof db, "%s/a.db", ro);
        const char *args[] = {"-d", db, in, NULL};
        t_child_t c = {.err = err};
        if (t_run(load_prog, &c, args) != 1) _exit(1);
        /* an archive that exists, then its mount made read-only */
        if (mount(NULL, ro, NULL, MS_REMOUNT, "size=4m") != 0) _exit(1);
        t_child_t ok = {0};
        if (t_run(load_prog, &ok, args) != 0) _exit(1);
        write_events(in, 10, 5);
        if (mount(NULL, ro, NULL, MS_REMOUNT | MS_RDONLY, "size=4m") != 0) _exit(1);
        char err2[600];
        snprintf(err2, sizeof err2, "%s.2", err);
        t_child_t c2 = {.err = err2};
        _exit(t_run(load_prog, &c2, args) == 1 ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        fprintf(stderr, "    (no read-only mount allowed here: skipped)\n");
        t_rmtree(dir);
        skip();
    }
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *msg = t_slurp(err, NULL);
    assert_non_null(msg);
    fprintf(stderr, "    %s", msg);
    assert_non_null(strstr(msg, "a.db"));
    assert_non_null(strstr(msg, strerror(EROFS)));
    free(msg);
    char err2[600];
    snprintf(err2, sizeof err2, "%s.2", err);
    msg = t_slurp(err2, NULL);
    assert_non_null(msg);
    fprintf(stderr, "    %s", msg);
    assert_non_null(strstr(msg, strerror(EROFS)));
    assert_null(strstr(msg, strerror(ENOENT)));
    free(msg);
    t_rmtree(dir);
}

/* A summary whose values are not finite numbers (a writer that printed inf or nan) keeps
 * them as written in `value`, never in the summary columns the baselines read, and
 * nl-load says how many (it was silent). */
static void test_unusable_summary_values_counted(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "s.log")), *db = archive(dir, "s.db");
    const char *err = keep(t_path(dir, "err"));
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs("ts=2026-11-22T12:00:00Z event=x.summary level=Info guid=g n=2 dur.min=1 dur.max=1 "
          "dur.sum=2 dur.sd=0 v.min=1 v.max=inf v.sum=inf v.sd=nan span=2 open=0 int=10\n"
          "ts=2026-11-22T12:00:10Z event=x.summary level=Info guid=g n=2 dur.sum=2 v.sum=4 "
          "int=10\n",
          f);
    assert_int_equal(fclose(f), 0);
    const char *args[] = {"-q", "-d", db, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    char *msg = t_slurp(err, NULL);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "3 summary field(s) not a finite number"));
    free(msg);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary"), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary WHERE v_sum IS NULL AND v_max IS NULL "
                               "AND v_sd IS NULL AND dur_sum = 2"),
                     1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name IN ('v.max', 'v.sum', "
                               "'v.sd') AND value IN ('inf', 'nan')"),
                     3);
    assert_int_equal(q_int(db, "SELECT sum(v_sum) FROM summary"), 4);
    t_rmtree(dir);
}

/* nl-load --netlogger: a NetLogger-written path keeps its backslashes, the skipped junk
 * is counted and reported; the same file read as nlkit's would have decoded \n and \t. */
static void test_netlogger_reading_cli(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "nl.log")), *db = archive(dir, "nl.db");
    const char *db2 = archive(dir, "strict.db"), *err = keep(t_path(dir, "err"));
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs("ts=2026-11-22T19:03:18.195394z event=b.s06 level=info v=\"C:\\new folder\\test\" "
          "junk w=0.500000 guid=11111111-2222-4333-8444-555555555555 "
          "guid=3f1b2c4d-5e6f-4a1b-8c2d-0e1f2a3b4c5d\n",
          f);
    assert_int_equal(fclose(f), 0);
    const char *args[] = {"-q", "--netlogger", "-d", db, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    char *msg = t_slurp(err, NULL);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "1 line(s) loaded without 2 piece(s) the NetLogger reading"));
    free(msg);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name = 'v' AND "
                               "value = 'C:\\new folder\\test'"),
                     1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name = 'w' AND num = 0.5"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event WHERE level = 'Info' AND "
                               "abs(ts - 1795374198.195394) < 1e-6"),
                     1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM ident WHERE name = 'guid' AND "
                               "value = '3f1b2c4d-5e6f-4a1b-8c2d-0e1f2a3b4c5d'"),
                     1);
    /* without --netlogger the line is nlkit's: refused (junk, lowercase z, two guids), and
     * the message names --netlogger */
    const char *strict[] = {"-q", "-d", db2, in, NULL};
    assert_int_equal(t_run(load_prog, &c, strict), 0);
    assert_int_equal(q_int(db2, "SELECT count(*) FROM event"), 0);
    msg = t_slurp(err, NULL);
    assert_non_null(strstr(msg, "1 refused line(s) are ones NetLogger's own reader takes"));
    assert_non_null(strstr(msg, "load it with --netlogger"));
    free(msg);
    t_rmtree(dir);
}

/* NetLogger's lines loaded without --netlogger: a path whose \n and \t nlkit's reading
 * decodes is stored (it is a valid nlkit line) but said, naming --netlogger; lines refused
 * for NetLogger's \d escape or repeated guid= name it too (they said "unknown escape"
 * alone, and the path was stored with a newline and a tab without a word). */
static void test_netlogger_lines_named(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "nl.log")), *db = archive(dir, "hint.db");
    const char *db2 = archive(dir, "hintnl.db"), *err = keep(t_path(dir, "err"));
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs("ts=2026-11-22T19:03:18Z event=a.b level=Info path=\"C:\\new folder\\test\"\n"
          "ts=2026-11-22T19:03:19Z event=a.b level=Info guid=g1 guid=g2\n"
          "ts=2026-11-22T19:03:20Z event=a.b level=Info re=\"\\d+\"\n"
          "ts=2026-11-22T19:03:21Z event=a.b level=Info plain=1\n",
          f);
    assert_int_equal(fclose(f), 0);
    const char *args[] = {"-d", db, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    char *msg = t_slurp(err, NULL);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "2 refused line(s) are ones NetLogger's own reader takes (line 2"));
    assert_non_null(strstr(msg, "1 line(s) stored with a \\n, \\t or \\r in a quoted value"));
    assert_non_null(strstr(msg, "line 1 first"));
    assert_non_null(strstr(msg, "load it into a fresh archive with --netlogger"));
    free(msg);
    /* read as NetLogger's: every line, nothing to say */
    const char *nl_args[] = {"--netlogger", "-d", db2, in, NULL};
    assert_int_equal(t_run(load_prog, &c, nl_args), 0);
    msg = t_slurp(err, NULL);
    assert_null(strstr(msg, "--netlogger"));
    free(msg);
    assert_int_equal(q_int(db2, "SELECT count(*) FROM value WHERE name = 'path' AND "
                                "value = 'C:\\new folder\\test'"),
                     1);
    assert_int_equal(q_int(db2, "SELECT count(*) FROM event"), 4);
    t_rmtree(dir);
}

/* A mistyped input file leaves no archive behind: nl-load -d x.db missing.log created an
 * empty x.db. */
static void test_missing_input_creates_nothing(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *db = keep(t_path(dir, "x.db")), *err = keep(t_path(dir, "err"));
    const char *args[] = {"-d", db, t_path(dir, "missing.log"), NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 1);
    assert_int_equal(access(db, F_OK), -1);
    char *msg = t_slurp(err, NULL);
    assert_non_null(strstr(msg, "missing.log: No such file or directory (nothing loaded)"));
    free(msg);
    t_rmtree(dir);
}

static void test_bad_lines_reported_and_rejected(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "mixed.log")), *db = archive(dir, "m.db");
    const char *rej = keep(t_path(dir, "rejects")), *err = keep(t_path(dir, "err"));
    write_events(in, 0, 3);
    FILE *f = fopen(in, "a");
    fputs("ts=2026-11-22T12:00:00Z event=bad level=Info msg=\"unterminated\n", f); /* line 4 */
    fputs("\n# comment\n", f);                                                     /* 5, 6 */
    fputs("event=x level=Info\n", f);                                              /* 7: no ts */
    /* 8: longer than the reader holds: skipped unread, counted, not copied */
    for (int i = 0; i < NL_LINE_MAX + 70000; i++) putc("\x01\xfe\x80z"[i % 4], f);
    putc('\n', f);
    fputs("ts=2026-13-45T99:00:00Z event=x level=Info\n", f); /* 9: bad ts */
    fclose(f);
    write_events(in, 3, 2); /* 10, 11 */
    const char *args[] = {"-d", db, "--reject", rej, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    expect_exactly(db, 5);
    char *msg = t_slurp(err, NULL);
    char where[512];
    for (int line = 4; line <= 9; line++) {
        if (line == 5 || line == 6) continue;
        snprintf(where, sizeof where, "%s:%d:", in, line);
        if (!strstr(msg, where)) fprintf(stderr, "missing %s in:\n%s", where, msg);
        assert_non_null(strstr(msg, where));
    }
    assert_non_null(strstr(msg, "unterminated quote"));
    assert_non_null(strstr(msg, "4 bad lines"));
    free(msg);
    size_t len;
    char *r = t_slurp(rej, &len);
    assert_non_null(strstr(r, "msg=\"unterminated\n"));
    assert_non_null(strstr(r, "event=x level=Info\n"));
    assert_null(strstr(r, "\x01\xfe")); /* the over-long junk is counted, not copied */
    free(r);
    t_rmtree(dir);
}

/* A report's name written with escapes is refused (forged past a filter that does not
 * decode them, README "Deployment"), counted as a bad line with where; the same name
 * plain, and other escaped names, load. */
static void test_escaped_report_names_refused(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "esc.log")), *db = archive(dir, "esc.db");
    const char *err = keep(t_path(dir, "err"));
    FILE *f = fopen(in, "w");
    fputs("ts=2026-11-22T12:00:00Z event=\"nl\\x2ealert.start\" level=Warn tag=forged\n", f);
    fputs("ts=2026-11-22T12:00:01Z event=\"\\x6el.anomaly.start\" level=Warn tag=forged\n", f);
    fputs("ts=2026-11-22T12:00:02Z event=nl.alert.start level=Warn tag=plain\n", f);
    fputs("ts=2026-11-22T12:00:03Z event=\"nl.log\\x2edropped\" level=Warn tag=lib\n", f);
    fputs("ts=2026-11-22T12:00:04Z event=\"a\\x2eb\" level=Info tag=other\n", f);
    fclose(f);
    const char *args[] = {"-d", db, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event WHERE event IN "
                               "('nl.alert.start', 'nl.log.dropped', 'a.b')"),
                     3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE value = 'forged'"), 0);
    char *msg = t_slurp(err, NULL);
    char where[512];
    snprintf(where, sizeof where, "%s:1:31: report name written with escapes", in);
    if (!strstr(msg, where)) fprintf(stderr, "missing %s in:\n%s", where, msg);
    assert_non_null(strstr(msg, where));
    snprintf(where, sizeof where, "%s:2:31:", in);
    assert_non_null(strstr(msg, where));
    assert_non_null(strstr(msg, "2 bad lines"));
    free(msg);
    t_rmtree(dir);
}

/* n bytes of a name no compression shortens much (a database may compress what it stores;
 * an index entry must not fit by luck), from seed. */
static char *long_name(size_t n, unsigned seed, const char *suffix)
{
    static const char a[] = "abcdefghijklmnopqrstuvwxyz0123456789._-";
    size_t sl = strlen(suffix);
    char *s = malloc(n + sl + 1);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        s[i] = a[(seed >> 16) % (sizeof a - 1)];
    }
    memcpy(s + n, suffix, sl + 1);
    return s;
}

/* Event and level names of 64 KiB and more (the loader's records once held their lengths
 * in 16 bits: a summary crashed nl-load, other events were stored cut modulo 65536) are
 * stored exactly, up to the line limit; a summary whose event and host are too long for
 * the summary index is refused and counted, and the loader goes on to the next line. */
static void test_long_names_exact_or_refused(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "long.log")), *db = archive(dir, "long.db");
    const char *err = keep(t_path(dir, "err"));
    char *ev = long_name(70000, 1, ""), *lv = long_name(66000, 2, "");
    char *big = long_name(NL_LINE_MAX - 100, 3, ".end");
    char *sum = long_name(70000, 4, ".summary");
    FILE *f = fopen(in, "w");
    fprintf(f, "ts=2026-11-22T12:00:00Z event=%s level=Info tag=a\n", ev);     /* 1 */
    fprintf(f, "ts=2026-11-22T12:00:01Z event=x.y level=%s tag=b\n", lv);      /* 2 */
    fprintf(f, "ts=2026-11-22T12:00:02Z event=%s level=Info\n", big);          /* 3 */
    fprintf(f, "ts=2026-11-22T12:00:03Z event=%s level=Info host=h n=3 dur.sum=1 tag=c\n",
            sum); /* 4: refused */
    fputs("ts=2026-11-22T12:00:04Z event=good.summary level=Info host=h n=1 tag=d\n", f);
    char *edge = long_name(2048 - 8 - 40, 5, ".summary"), *host = long_name(40, 6, "");
    char *id = long_name(10000, 7, "");
    fprintf(f, "ts=2026-11-22T12:00:05Z event=%s level=Info host=%s n=1\n", edge, host); /* 6 */
    fprintf(f, "ts=2026-11-22T12:00:06Z event=x.y level=Info x.id=%s\n", id);           /* 7 */
    fclose(f);
    const char *args[] = {"-d", db, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 0);
    char *msg = t_slurp(err, NULL);
    char sql[256];
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 6);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM event WHERE length(event) = 70000 AND "
                              "substr(event, 1, 20) = '%.20s' AND substr(event, 69981) = '%s'",
             ev, ev + 69980);
    assert_int_equal(q_int(db, sql), 1);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM event WHERE length(level) = 66000 AND "
                              "substr(level, 65981) = '%s'", lv + 65980);
    assert_int_equal(q_int(db, sql), 1);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM event WHERE length(event) = %d",
             (int)strlen(big));
    assert_int_equal(q_int(db, sql), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary WHERE event = 'good.summary'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary"), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary WHERE length(event) = 2048 - 40"), 1);
    /* an identity value too long for the ident index: in value, exactly */
    assert_int_equal(q_int(db, "SELECT count(*) FROM ident WHERE name = 'x.id'"), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM value WHERE name = 'x.id' AND "
                              "length(value) = 10000 AND substr(value, 9981) = '%s'", id + 9980);
    assert_int_equal(q_int(db, sql), 1);
    assert_non_null(strstr(msg, "1 identity value(s) (guid, *.id) longer than 2048 bytes"));
    char where[512];
    snprintf(where, sizeof where, "%s:4:31: summary event and host longer than", in);
    if (!strstr(msg, where)) fprintf(stderr, "missing %s in:\n%s", where, msg);
    assert_non_null(strstr(msg, where));
    assert_non_null(strstr(msg, "1 bad lines"));
    free(msg);
    free(ev), free(lv), free(big), free(sum), free(edge), free(host), free(id);
    t_rmtree(dir);
}

/* A PostgreSQL password, as user:password@ or ?password=, appears in no message: not in
 * nl-load's end-of-run summary, nor in a connection failure of nl-load or nl-baseline (the
 * test server trusts its socket, so any password connects). */
static void test_pg_password_hidden(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "p.log")), *err = keep(t_path(dir, "err"));
    write_events(in, 0, 3);
    const char *db = archive(dir, "pw.db");
    const char *at = strstr(db, "nlkit@");
    assert_non_null(at);
    char uri[900], bad[900];
    snprintf(uri, sizeof uri, "%.*snlkit:Secret1@%s&password=Secret2", (int)(at - db), db,
             at + 6);
    snprintf(bad, sizeof bad, "%.*snlkit:Secret1@/no_such_db?host=/nonexistent&password=Secret2",
             (int)(at - db), db);
    const char *load_ok[] = {"-d", uri, in, NULL};
    const char *load_bad[] = {"-d", bad, in, NULL};
    const char *base_bad[] = {"--db", bad, "--event", "x", NULL};
    struct {
        const char *prog;
        const char **args;
        int rc;
    } runs[] = {{load_prog, load_ok, 0}, {load_prog, load_bad, 1}, {base_prog, base_bad, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        t_child_t c = {.err = err};
        int rc = t_run(runs[i].prog, &c, runs[i].args);
        char *msg = t_slurp(err, NULL);
        if (strstr(msg, "Secret") || rc != runs[i].rc || !strstr(msg, "nlkit:***@"))
            fprintf(stderr, "run %zu (exit %d):\n%s", i, rc, msg);
        assert_int_equal(rc, runs[i].rc);
        assert_null(strstr(msg, "Secret"));
        assert_non_null(strstr(msg, "nlkit:***@"));
        assert_non_null(strstr(msg, "password=***"));
        free(msg);
    }
    expect_exactly(db, 3);
    t_rmtree(dir);
}

/* libpq's keyword/value form is a PostgreSQL archive, never a SQLite file of that name
 * (nl-load made one and printed the password), and its password appears in no message of
 * any program taking -d, nor does a password in a URI libpq cannot read (libpq quotes the
 * URI) nor in a keyword string libpq cannot read (libpq quotes the word it stopped at).
 * On PostgreSQL it loads: the same server reached by host=, user=, dbname=, options=. */
static void test_pg_keyword_conninfo(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "k.log")), *err = keep(t_path(dir, "err"));
    write_events(in, 0, 3);
    char nosock[700], quoted[700], blank[700], uri[700], kv[900];
    /* a socket directory with no server: nothing to connect to, quickly */
    snprintf(nosock, sizeof nosock, "host=%s user=bob password=S3cretPW dbname=x",
             t_path(dir, "nosock"));
    snprintf(quoted, sizeof quoted, "  host=%s password = 'S3cret\\'PW q' dbname=x",
             t_path(dir, "nosock"));
    snprintf(blank, sizeof blank, "host=%s password=S3cretPW S3cretTail dbname=x",
             t_path(dir, "nosock"));
    snprintf(uri, sizeof uri, "postgresql://bob:S3cretPW@[::1/x?password=S3cretPW2");
    struct {
        const char *prog, *db, *want;
    } runs[] = {
        {load_prog, nosock, "user=bob password=*** dbname=x: cannot connect"},
        {base_prog, nosock, "user=bob password=*** dbname=x: cannot connect"},
        {load_prog, quoted, "password=*** dbname=x: cannot connect"},
        {load_prog, blank, "password=*** ...: not a connection string libpq can read: byte"},
        {load_prog, uri, "postgresql://bob:***@[::1/x?password=***: cannot connect"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const char *load[] = {"-d", runs[i].db, in, NULL};
        const char *base[] = {"-d", runs[i].db, "-e", "xfer.block", NULL};
        t_child_t c = {.err = err};
        int rc = t_run(runs[i].prog, &c, runs[i].prog == load_prog ? load : base);
        char *msg = t_slurp(err, NULL);
        if (rc != 1 || strstr(msg, "S3cret") || !strstr(msg, runs[i].want))
            fprintf(stderr, "run %zu (exit %d), want \"%s\":\n%s", i, rc, runs[i].want, msg);
        assert_int_equal(rc, 1);
        assert_null(strstr(msg, "S3cret"));
        assert_non_null(strstr(msg, runs[i].want));
        free(msg);
        assert_int_equal(access(runs[i].db, F_OK), -1); /* no SQLite file of that name */
        assert_int_equal(errno, ENOENT);
    }
    /* nl-detect's history.from=db, with --db */
    const char *conf = keep(t_path(dir, "d.conf"));
    FILE *f = fopen(conf, "w");
    fputs("stream s event=xfer.block value=rate history.from=db\n", f);
    fclose(f);
    const char *det[] = {"-c", conf, "--db", nosock, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(detect_prog, &c, det), 2);
    char *msg = t_slurp(err, NULL);
    assert_null(strstr(msg, "S3cret"));
    assert_non_null(strstr(msg, "password=***"));
    free(msg);
    if (on_pg) { /* the test server, as keywords: loads, and says where without the password */
        const char *db = archive(dir, "kv.db"), *host = strstr(pg_uri, "host=");
        assert_non_null(host);
        snprintf(kv, sizeof kv,
                 "host=%.*s user=nlkit dbname=nlkit options='-csearch_path=t_kv' "
                 "password=S3cretPW",
                 (int)strcspn(host + 5, "&"), host + 5);
        const char *args[] = {"-d", kv, in, NULL};
        assert_int_equal(t_run(load_prog, &c, args), 0);
        msg = t_slurp(err, NULL);
        assert_null(strstr(msg, "S3cret"));
        assert_non_null(strstr(msg, "password=***"));
        free(msg);
        expect_exactly(db, 3);
    }
    t_rmtree(dir);
}

static void test_stdin_commits_while_open(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *db = keep(t_path(dir, "s.db")), *tmp = keep(t_path(dir, "chunk"));
    int wfd;
    t_child_t c = {.stdin_pipe = 1, .pipe_fd = &wfd};
    const char *args[] = {"-d", db, "-q", NULL};
    pid_t pid = t_spawn(load_prog, &c, args);
    write_events(tmp, 0, 10);
    char *text = t_slurp(tmp, NULL);
    assert_true(write(wfd, text, strlen(text)) == (ssize_t)strlen(text));
    free(text);
    /* the pipe stays open: the lines must be committed within about a second */
    long long have = 0;
    for (int i = 0; i < 40 && have < 10; i++) {
        t_sleep_ms(100);
        if (access(db, F_OK) == 0) have = q_poll(db, "SELECT count(*) FROM event");
    }
    assert_int_equal(have, 10);
    /* while it waits for more, it holds no write lock: a prune and a second loader (as
     * cron and an operator would run them on a collector) go through at once, instead of
     * failing after the 10 s busy timeout */
    const char *more = keep(t_path(dir, "more.log"));
    write_events(more, 100, 5);
    const char *prune[] = {"-d", db, "--prune-before", "2026-01-01", NULL};
    const char *second[] = {"-d", db, "-q", more, NULL};
    t_child_t q = {0};
    double t0 = t_now_s();
    assert_int_equal(t_run(load_prog, &q, prune), 0);
    assert_int_equal(t_run(load_prog, &q, second), 0);
    assert_true(t_now_s() - t0 < 5);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 15);
    /* and the first one goes on with what comes next */
    const char *tmp2 = keep(t_path(dir, "chunk2"));
    write_events(tmp2, 10, 10);
    text = t_slurp(tmp2, NULL);
    assert_true(write(wfd, text, strlen(text)) == (ssize_t)strlen(text));
    free(text);
    for (int i = 0; i < 40 && have < 25; i++) {
        t_sleep_ms(100);
        have = q_int(db, "SELECT count(*) FROM event");
    }
    assert_int_equal(have, 25);
    kill(pid, SIGTERM); /* as syslog-ng stops a program() destination */
    assert_int_equal(t_wait(pid), 0);
    close(wfd);
    t_rmtree(dir);
}

static void test_read_only_and_full_database(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "e.log")), *db = keep(t_path(dir, "ro.db"));
    const char *err = keep(t_path(dir, "err"));
    write_events(in, 0, 100);
    const char *args[] = {"-d", db, in, NULL};
    t_child_t c = {.err = err};
    assert_int_equal(t_run(load_prog, &c, args), 0); /* create it */
    write_events(in, 100, 100);
    /* read-only: by permissions, or (when the tests run as root) as another user */
    int root = geteuid() == 0;
    if (root) {
        assert_int_equal(chmod(dir, 0755), 0);
    } else {
        assert_int_equal(chmod(db, 0444), 0);
    }
    c.as_nobody = root;
    assert_int_equal(t_run(load_prog, &c, args), 1);
    char *msg = t_slurp(err, NULL);
    assert_non_null(strstr(msg, "ro.db"));
    assert_true(strstr(msg, "readonly") || strstr(msg, "unable to open"));
    free(msg);
    assert_int_equal(chmod(db, 0644), 0);
    c.as_nobody = 0;
    expect_exactly(db, 100);

    /* full: the disk takes no more than ~300 KB more of any file from this process (the
     * archive is made first: its schema alone is a few hundred KB) */
    const char *full = keep(t_path(dir, "full.db")), *big = keep(t_path(dir, "big.log"));
    const char *empty = keep(t_path(dir, "empty.log"));
    write_events(empty, 0, 0);
    const char *cargs[] = {"-d", full, empty, NULL};
    assert_int_equal(t_run(load_prog, &c, cargs), 0);
    struct stat fst;
    assert_int_equal(stat(full, &fst), 0);
    write_events(big, 0, 20000);
    const char *fargs[] = {"-d", full, "--batch", "500", big, NULL};
    t_child_t lim = {.err = err, .fsize_limit = (long)fst.st_size + 300 * 1024};
    assert_int_equal(t_run(load_prog, &lim, fargs), 1);
    msg = t_slurp(err, NULL);
    assert_non_null(strstr(msg, "full.db"));
    assert_non_null(strstr(msg, "not loaded"));
    assert_non_null(strstr(msg, "resumes at line"));
    free(msg);
    long long part = q_int(full, "SELECT count(*) FROM event");
    assert_true(part < 20000);
    t_child_t ok = {0};
    assert_int_equal(t_run(load_prog, &ok, fargs), 0); /* space again: the rest, once */
    expect_exactly(full, 20000);
    t_rmtree(dir);
}

static void test_baseline_and_prune_cli(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "s.log")), *db = archive(dir, "b.db");
    const char *out = keep(t_path(dir, "out")), *err = keep(t_path(dir, "err"));
    FILE *f = fopen(in, "w");
    for (int i = 0; i < 5; i++) /* rates 100, 200, ..., 500; one more with a duration of 2^i */
        fprintf(f,
                "ts=2026-11-22T12:00:0%dZ event=x.summary level=Info host=h1 n=1 dur.sum=1 "
                "v.sum=%d int=1\nts=2026-11-22T12:00:0%dZ event=y.summary level=Info host=h%d "
                "n=1 dur.min=%d dur.max=%d dur.h=%d:1\n",
                i, 100 * (i + 1), i, i % 2, 1 << i, 1 << i, 0x7fe0 + 32 * i);
    fputs("ts=2026-10-01T00:00:00Z event=x.start level=Info guid=g\n", f);
    fclose(f);
    const char *largs[] = {"-d", db, in, NULL};
    t_child_t c = {.out = out, .err = err};
    assert_int_equal(t_run(load_prog, &c, largs), 0);
    const char *bargs[] = {"-d", db, "-e", "x.summary", "-H", "h1", "-m", "rate", NULL};
    assert_int_equal(t_run(base_prog, &c, bargs), 0);
    t_readback_t rb;
    t_rb_load(&rb, out);
    assert_int_equal(rb.n, 1);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "event"), "nl.baseline");
    assert_string_equal(t_field(r, "baseline.event"), "x.summary");
    assert_true(t_num(r, "n") == 5 && t_num(r, "mean") == 300 && t_num(r, "p50") == 300);
    assert_true(t_num(r, "p5") == 120 && t_num(r, "p95") == 480);
    assert_true(fabs(t_num(r, "sd") - 158.11388300841898) < 1e-9);
    t_rb_free(&rb);
    /* percentiles of every pair's duration over both hosts: 1 2 4 8 16 s, merged */
    const char *pct[] = {"-d", db, "-e", "y.summary", "--percentiles", "dur", NULL};
    assert_int_equal(t_run(base_prog, &c, pct), 0);
    t_rb_load(&rb, out);
    assert_int_equal(rb.n, 1);
    r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "event"), "nl.percentiles");
    assert_true(t_num(r, "summaries") == 5 && t_num(r, "n") == 5);
    assert_true(t_num(r, "p50") == 4 * (1 + 1.0 / 64)); /* the bucket of 4: its midpoint */
    assert_true(t_num(r, "p99") == 16);                 /* clamped to the largest, exact */
    t_rb_free(&rb);
    const char *pct_by[] = {"-d", db, "-e", "y.summary", "-p", "dur", "--by", "host", "-t", NULL};
    assert_int_equal(t_run(base_prog, &c, pct_by), 0);
    char *table = t_slurp(out, NULL);
    assert_non_null(strstr(table, "p99.9"));
    assert_non_null(strstr(table, " h0 "));
    assert_non_null(strstr(table, " h1 "));
    free(table);
    /* the activity's name, as nl-detect and nl-report take it: the same baseline (it was
     * three n=0 lines) */
    const char *by_activity[] = {"-d", db, "-e", "x", "-H", "h1", "-m", "rate", NULL};
    assert_int_equal(t_run(base_prog, &c, by_activity), 0);
    t_rb_load(&rb, out);
    assert_int_equal(rb.n, 1);
    r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "baseline.event"), "x.summary");
    assert_true(t_num(r, "n") == 5 && t_num(r, "mean") == 300);
    t_rb_free(&rb);
    /* percentiles of summaries that carry no histogram: said, not a bare header */
    const char *no_hist[] = {"-d", db, "-e", "x", "-p", "dur", "-t", "--by", "host", NULL};
    assert_int_equal(t_run(base_prog, &c, no_hist), 0);
    char *said = t_slurp(err, NULL);
    assert_non_null(strstr(said, "5 of the x.summary summaries carry no dur histogram"));
    free(said);
    const char *nothing[] = {"-d", db, "-e", "nosuch", NULL};
    assert_int_equal(t_run(base_prog, &c, nothing), 0);
    said = t_slurp(err, NULL);
    assert_non_null(strstr(said, "no summaries of nosuch.summary in the archive"));
    free(said);
    const char *bad_series[] = {"-d", db, "-e", "y.summary", "-p", "r", NULL};
    assert_int_equal(t_run(base_prog, &c, bad_series), 2);
    const char *pargs[] = {"-d", db, "--prune-before", "2026-11-01", NULL};
    assert_int_equal(t_run(load_prog, &c, pargs), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 10);
    const char *missing[] = {"-d", t_path(dir, "none.db"), "-e", "x.summary", NULL};
    assert_int_equal(t_run(base_prog, &c, missing), 1);
    char *msg = t_slurp(err, NULL);
    assert_non_null(strstr(msg, "none.db"));
    free(msg);
    const char *usage[] = {"-d", db, NULL};
    assert_int_equal(t_run(base_prog, &c, usage), 2);
    const char *nodb[] = {in, NULL};
    assert_int_equal(t_run(load_prog, &c, nodb), 2);
    t_rmtree(dir);
}

/* Baselines without the faults: values inside the anomaly episodes nl-detect recorded (an
 * ended one, one still open, one keyed by host and prog) are left out and counted, unless
 * --with-anomalies; the figure is then the baseline of the clean values alone. */
static void test_baseline_leaves_out_anomalies(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *in = keep(t_path(dir, "a.log")), *db = archive(dir, "anom.db");
    const char *out = keep(t_path(dir, "out")), *err = keep(t_path(dir, "err"));
    FILE *f = fopen(in, "w");
    double sum = 0;
    int clean = 0;
    for (int i = 0; i < 20; i++) { /* h1: faults at 10-13 s (ended) and from 18 s (open) */
        int fault = (i >= 10 && i <= 13) || i >= 18, v = fault ? 1000 * i : 100 + i % 3;
        if (!fault) sum += v, clean++;
        fprintf(f,
                "ts=2026-11-22T12:00:%02dZ event=x.summary level=Info host=h1 prog=p1 n=1 "
                "dur.sum=1 v.sum=%d int=1\n"
                "ts=2026-11-22T12:00:%02dZ event=x.summary level=Info host=h2 prog=p2 n=1 "
                "dur.sum=1 v.sum=100 int=1\n",
                i, v, i);
    }
    fputs("ts=2026-11-22T12:00:11Z event=nl.anomaly.start level=Warn stream=s algo=msd-su "
          "key.host=h1 trig.event=x.summary dir=high x=1000 s=1000 score=9 "
          "start.ts=2026-11-22T12:00:10.000000Z len=2\n"
          "ts=2026-11-22T12:00:13Z event=nl.anomaly.end level=Info stream=s algo=msd-su "
          "key.host=h1 dir=high len=4 start.ts=2026-11-22T12:00:10.000000Z dur=3\n"
          "ts=2026-11-22T12:00:18Z event=nl.anomaly.start level=Warn stream=s algo=msd-su "
          "key.host=h1 trig.event=x.summary dir=high start.ts=2026-11-22T12:00:18.000000Z len=1\n"
          /* h2: an episode of another prog on it leaves its values in; one of its own
           * prog (3 s) leaves one out */
          "ts=2026-11-22T12:00:05Z event=nl.anomaly.start level=Warn stream=t algo=cdf-su "
          "key.host=h2 key.prog=other trig.event=x.summary start.ts=2026-11-22T12:00:05Z\n"
          "ts=2026-11-22T12:00:06Z event=nl.anomaly.end level=Info stream=t algo=cdf-su "
          "key.host=h2 key.prog=other start.ts=2026-11-22T12:00:05Z\n"
          "ts=2026-11-22T12:00:03Z event=nl.anomaly.start level=Warn stream=t algo=cdf-su "
          "key.host=h2 key.prog=p2 trig.event=x.summary start.ts=2026-11-22T12:00:03Z\n"
          "ts=2026-11-22T12:00:03.5Z event=nl.anomaly.end level=Info stream=t algo=cdf-su "
          "key.host=h2 key.prog=p2 start.ts=2026-11-22T12:00:03Z\n",
          f);
    fclose(f);
    const char *largs[] = {"-d", db, in, NULL};
    t_child_t c = {.out = out, .err = err};
    assert_int_equal(t_run(load_prog, &c, largs), 0);
    const char *bargs[] = {"-d", db, "-e", "x", "-H", "h1", "-m", "rate", NULL};
    assert_int_equal(t_run(base_prog, &c, bargs), 0);
    t_readback_t rb;
    t_rb_load(&rb, out);
    assert_int_equal(rb.n, 1);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_true(t_num(r, "n") == clean && clean == 14);
    assert_true(fabs(t_num(r, "mean") - sum / clean) < 1e-9);
    assert_true(t_num(r, "p95") < 103 && t_num(r, "left.out") == 6);
    t_rb_free(&rb);
    char *said = t_slurp(err, NULL);
    assert_non_null(strstr(said, "x.summary: 6 values inside anomaly episodes left out"));
    free(said);
    const char *with[] = {"-d", db, "-e", "x", "-H", "h1", "-m", "rate", "--with-anomalies", NULL};
    assert_int_equal(t_run(base_prog, &c, with), 0);
    t_rb_load(&rb, out);
    r = t_rb_rec(&rb, 0);
    assert_true(t_num(r, "n") == 20 && t_field(r, "left.out") == NULL);
    t_rb_free(&rb);
    said = t_slurp(err, NULL);
    assert_null(strstr(said, "left out"));
    free(said);
    const char *h2[] = {"-d", db, "-e", "x", "-H", "h2", "-m", "rate", NULL};
    assert_int_equal(t_run(base_prog, &c, h2), 0);
    t_rb_load(&rb, out);
    r = t_rb_rec(&rb, 0);
    assert_true(t_num(r, "n") == 19 && t_num(r, "left.out") == 1);
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* A day for nl-detect to start from the archive: yesterday's 600 s of x.summary from h1 near
 * 100 MB/s (those in [fault_from, fault_to) at 10 MB/s instead, then the lines `episodes`)
 * loaded into the archive `name` in dir, today's first 60 s at 30% of normal from the start,
 * and a config whose stream and subscription both take their past from the archive. */
typedef struct {
    const char *db, *conf, *live, *out, *err; /* the files, in dir */
    double sum;                               /* yesterday's values outside the fault... */
    int clean;                                /* ...summed and counted */
    int flagged, alerted;                     /* what nl-detect --db over today opened and fired */
    char flag_ts[40];                         /* the last episode's start, */
    char alert_ts[40];                        /* the last alert's time */
    double reference;                         /* and its reference */
} from_db_t;

/* Writes the day above, loads yesterday, runs nl-detect --db over today and reads back what
 * it wrote; every episode it opens must have a full history of 300 values. */
static void detect_over_archive(from_db_t *d, const char *dir, const char *name, uint64_t seed,
                                int fault_from, int fault_to, const char *episodes)
{
    const char *hist = keep(t_path(dir, "yesterday.log"));
    memset(d, 0, sizeof *d);
    d->live = keep(t_path(dir, "today.log"));
    d->db = archive(dir, name);
    d->conf = keep(t_path(dir, "d.conf"));
    d->out = keep(t_path(dir, "out"));
    d->err = keep(t_path(dir, "err"));
    FILE *f = fopen(hist, "w"), *g = fopen(d->live, "w");
    uint64_t rs = seed;
    for (int t = 0; t < 600; t++) {
        int fault = t >= fault_from && t < fault_to;
        unsigned long long v = fault ? 10000000ull : 100000000ull + t_rand(&rs) % 4000000;
        if (!fault) d->sum += (double)v, d->clean++;
        fprintf(f,
                "ts=2026-11-21T12:%02d:%02d.000000Z event=x.summary level=Info host=h1 n=10 "
                "dur.sum=1 v.sum=%llu int=1\n",
                t / 60, t % 60, v);
        if (t < 60) /* today: 30% of normal from the start */
            fprintf(g,
                    "ts=2026-11-22T12:%02d:%02d.000000Z event=x.summary level=Info host=h1 "
                    "n=10 dur.sum=1 v.sum=%llu int=1\n",
                    t / 60, t % 60, 30000000ull + t_rand(&rs) % 1000000);
    }
    if (episodes) fputs(episodes, f);
    fclose(f);
    fclose(g);
    f = fopen(d->conf, "w");
    fputs("stream s event=x value=rate key=host algo=msd-su history=300 episode.min=1 "
          "history.from=db\n"
          "when x rate below 50% of baseline for 10s key=host baseline.from=db name=slow\n",
          f);
    fclose(f);
    t_child_t c = {.out = d->out, .err = d->err};
    const char *largs[] = {"-d", d->db, "-q", hist, NULL};
    assert_int_equal(t_run(load_prog, &c, largs), 0);
    const char *dargs[] = {"-c", d->conf, "--db", d->db, d->live, NULL};
    assert_int_equal(t_run(detect_prog, &c, dargs), 0);
    t_readback_t rb;
    t_rb_load(&rb, d->out);
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        if (!strcmp(t_field(r, "event"), "nl.anomaly.start")) {
            assert_non_null(t_field(r, "ts"));
            snprintf(d->flag_ts, sizeof d->flag_ts, "%s", t_field(r, "ts"));
            assert_true(t_num(r, "hist.n") == 300);
            d->flagged++;
        }
        if (!strcmp(t_field(r, "event"), "nl.alert.start")) {
            assert_non_null(t_field(r, "ts"));
            snprintf(d->alert_ts, sizeof d->alert_ts, "%s", t_field(r, "ts"));
            d->reference = t_num(r, "reference");
            d->alerted++;
        }
    }
    t_rb_free(&rb);
}

/* nl-detect starting from the archive: a transfer slow from its first second is flagged at
 * once, and its alert fires after the hold time, where an empty history would still be
 * warming up. */
static void test_detect_starts_from_archive(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    from_db_t d;
    detect_over_archive(&d, dir, "h.db", 9, 0, 0, NULL); /* no fault */
    assert_int_equal(d.flagged, 1);
    assert_string_equal(d.flag_ts, "2026-11-22T12:00:00.000000Z");
    assert_int_equal(d.alerted, 1);
    assert_string_equal(d.alert_ts, "2026-11-22T12:00:10.000000Z");
    assert_true(fabs(d.reference - d.sum / 600) < 1e-6 * d.sum / 600);
    /* without the archive: refused, saying what is missing */
    t_child_t c = {.out = d.out, .err = d.err};
    const char *nodb[] = {"-c", d.conf, d.live, NULL};
    assert_int_equal(t_run(detect_prog, &c, nodb), 2);
    char *msg = t_slurp(d.err, NULL);
    assert_non_null(strstr(msg, "--db FILE"));
    free(msg);
    t_rmtree(dir);
}

/* history.from=db and baseline.from=db leave out the archive's anomaly episodes, as
 * nl-baseline does: yesterday's 30-s fault (flagged then, its episode loaded with it) is
 * neither in the subscription's reference nor in the stream's history, which is still
 * filled to its 300 values with clean ones; nl-detect says how many it left out. */
static void test_detect_history_leaves_out_anomalies(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    from_db_t d; /* the fault among the newest 300 */
    detect_over_archive(
        &d, dir, "e.db", 11, 540, 570,
        "ts=2026-11-21T12:09:00.000000Z event=nl.anomaly.start level=Warn stream=s "
        "algo=msd-su key.host=h1 trig.event=x.summary dir=low "
        "start.ts=2026-11-21T12:09:00.000000Z len=1\n"
        "ts=2026-11-21T12:09:29.000000Z event=nl.anomaly.end level=Info stream=s algo=msd-su "
        "key.host=h1 dir=low len=30 start.ts=2026-11-21T12:09:00.000000Z dur=29\n");
    double mean = d.sum / d.clean;
    if (d.alerted && fabs(d.reference - mean) >= 1e-6 * mean)
        fprintf(stderr, "reference %.17g, the clean values' mean %.17g\n", d.reference, mean);
    assert_int_equal(d.flagged, 1);
    assert_int_equal(d.alerted, 1);
    assert_true(fabs(d.reference - mean) < 1e-6 * mean);
    assert_int_equal(d.clean, 570);
    char *said = t_slurp(d.err, NULL);
    /* 30 left out of the baseline (all 600 read) and 30 of the history (its newest 330) */
    if (!strstr(said, "60 past value(s) from the archive inside its 1 anomaly episode(s)"))
        fprintf(stderr, "nl-detect said:\n%s", said);
    assert_non_null(strstr(said, "60 past value(s) from the archive inside its 1 anomaly "
                                 "episode(s) left out"));
    free(said);
    t_rmtree(dir);
}

/* Standard input cannot be read twice: when the archive stays locked by another writer past
 * --busy-timeout, what was read is lost, and the report must say exactly which lines (it
 * said "lines 0-0"), and that what came after them was never read. */
static void test_stdin_loss_is_reported_exactly(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *db = keep(t_path(dir, "lk.db")), *err = keep(t_path(dir, "err"));
    const char *small = keep(t_path(dir, "small.log")), *big = keep(t_path(dir, "big.log"));
    const char *empty = keep(t_path(dir, "empty.log"));
    write_events(empty, 0, 0);
    write_events(small, 0, 300);
    write_events(big, 0, 20000);
    const char *mk[] = {"-d", db, empty, NULL};
    t_child_t plain = {0};
    assert_int_equal(t_run(load_prog, &plain, mk), 0);
    sqlite3 *holder;
    assert_int_equal(sqlite3_open(db, &holder), SQLITE_OK);
    assert_int_equal(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    const char *args[] = {"-d", db, "--busy-timeout", "200", "-", NULL};
    t_child_t c = {.in = small, .err = err};
    assert_int_equal(t_run(load_prog, &c, args), 1);
    char *msg = t_slurp(err, NULL);
    assert_non_null(strstr(msg, "(stdin): lines 1-300 LOST: read but not committed\n"));
    free(msg);
    c.in = big;
    assert_int_equal(t_run(load_prog, &c, args), 1);
    msg = t_slurp(err, NULL);
    long first = 0, last = 0;
    const char *at = strstr(msg, "(stdin): lines ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "(stdin): lines %ld-%ld LOST", &first, &last), 2);
    assert_int_equal(first, 1);
    assert_true(last > 1 && last <= 20000);
    if (last < 20000) assert_non_null(strstr(msg, "was not read"));
    free(msg);
    sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(holder);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 0);
    t_rmtree(dir);
}

static const char *self_exe, *readme_path;

/* The child of test_trace_across_programs: one event, logged where NL_DEST says, with the
 * trace context and parent GUID its parent handed down in the environment. */
static int trace_child(void)
{
    nl_log_t *log = nl_open("-");
    if (!log) return 1;
    nl_const_set(log, "prog", "child");
    nl_write(log, "task.step", "n=i", 1);
    nl_close(log);
    return 0;
}

/* The SQL of the loader README's cookbook query 8, as written there. */
static char *cookbook_query(void)
{
    char *text = t_slurp(readme_path, NULL);
    assert_non_null(text);
    char *at = strstr(text, "-- 8. A trace's events");
    assert_non_null(at);
    char *end = strstr(at, "\n```");
    assert_non_null(end);
    *end = '\0';
    char *sql = strdup(at);
    free(text);
    return sql;
}

/* A traceparent handed to a program appears on its events and on its child's (handed on
 * with nl_traceparent and NL_GUID), and the cookbook's query finds the trace's events of
 * both programs in the archive, the child's span a child of the parent's. */
static void test_trace_across_programs(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *plog = keep(t_path(dir, "parent.log")), *clog = keep(t_path(dir, "child.log"));
    const char *db = keep(t_path(dir, "t.db"));
    const char *trace = "4bf92f3577b34da6a3ce929d0e0e4736", *span0 = "00f067aa0ba902b7";
    char tp_in[64];
    snprintf(tp_in, sizeof tp_in, "00-%s-%s-01", trace, span0);
    setenv("NL_DEST", plog, 1);
    setenv("NL_TRACEPARENT", tp_in, 1);
    nl_log_t *log = nl_open("-");
    unsetenv("NL_TRACEPARENT");
    assert_non_null(log);
    nl_const_set(log, "prog", "parent");
    nl_write(log, "job.run.start", "");
    char tp[NL_TRACEPARENT_LEN + 1], guid[NL_GUID_LEN + 1];
    assert_int_equal(nl_traceparent(log, tp, sizeof tp), 0);
    snprintf(guid, sizeof guid, "%s", nl_guid(log));
    assert_int_equal(strncmp(tp, tp_in, 36), 0); /* the same trace, */
    assert_true(strcmp(tp + 36, span0) != 0);    /* this program's own span */
    setenv("NL_DEST", clog, 1);
    setenv("NL_TRACEPARENT", tp, 1);
    setenv("NL_GUID", guid, 1);
    const char *cargs[] = {"trace-child", NULL};
    t_child_t none = {0};
    assert_int_equal(t_run(self_exe, &none, cargs), 0);
    unsetenv("NL_TRACEPARENT");
    unsetenv("NL_GUID");
    unsetenv("NL_DEST");
    nl_write(log, "job.run.end", "");
    nl_close(log);
    const char *largs[] = {"-q", "-d", db, plog, clog, NULL};
    assert_int_equal(t_run(load_prog, &none, largs), 0);
    sqlite3 *h;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char *sql = cookbook_query();
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("the cookbook query does not run: %s", sqlite3_errmsg(h));
    sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":trace"), trace, -1, SQLITE_STATIC);
    const char *want_ev[] = {"job.run.start", "task.step", "job.run.end"};
    const char *want_prog[] = {"parent", "child", "parent"};
    char parent_span[32] = "";
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(rows < 3);
        assert_string_equal(sqlite3_column_text(st, 1), want_ev[rows]);
        assert_string_equal(sqlite3_column_text(st, 2), want_prog[rows]);
        const char *span = (const char *)sqlite3_column_text(st, 4);
        const char *parent = (const char *)sqlite3_column_text(st, 5);
        if (rows == 0) {
            assert_string_equal(parent, span0); /* the parent's parent: who called it */
            snprintf(parent_span, sizeof parent_span, "%s", span);
        } else if (rows == 1) {
            assert_string_equal(parent, parent_span); /* the child's parent is the program */
            assert_string_not_equal(span, parent_span);
        }
        rows++;
    }
    assert_int_equal(rows, 3);
    sqlite3_finalize(st);
    free(sql);
    sqlite3_close(h);
    char q[256];
    snprintf(q, sizeof q, "SELECT count(*) FROM ident WHERE name = 'parent.guid' AND value = '%s'",
             guid);
    assert_int_equal(q_int(db, q), 1); /* the child's event links to the parent's GUID */
    t_rmtree(dir);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "trace-child")) return trace_child();
    if (argc < 5) {
        fprintf(stderr, "usage: %s NL-LOAD NL-BASELINE NL-DETECT LOADER-README [PG-URI-FILE]\n",
                argv[0]);
        return 2;
    }
    self_exe = "/proc/self/exe";
    readme_path = argv[4];
    load_prog = argv[1];
    base_prog = argv[2];
    detect_prog = argv[3];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exactly_once_across_kill9),
        cmocka_unit_test(test_concurrent_loaders),
        cmocka_unit_test(test_texts_archived_as_written),
        cmocka_unit_test(test_new_archive_is_not_world_readable),
        cmocka_unit_test(test_read_only_mount_says_so),
        cmocka_unit_test(test_unusable_summary_values_counted),
        cmocka_unit_test(test_netlogger_reading_cli),
        cmocka_unit_test(test_netlogger_lines_named),
        cmocka_unit_test(test_missing_input_creates_nothing),
        cmocka_unit_test(test_pg_keyword_conninfo),
        cmocka_unit_test(test_trace_across_programs),
        cmocka_unit_test(test_bad_lines_reported_and_rejected),
        cmocka_unit_test(test_escaped_report_names_refused),
        cmocka_unit_test(test_long_names_exact_or_refused),
        cmocka_unit_test(test_stdin_commits_while_open),
        cmocka_unit_test(test_stdin_loss_is_reported_exactly),
        cmocka_unit_test(test_read_only_and_full_database),
        cmocka_unit_test(test_baseline_and_prune_cli),
        cmocka_unit_test(test_baseline_leaves_out_anomalies),
        cmocka_unit_test(test_detect_starts_from_archive),
        cmocka_unit_test(test_detect_history_leaves_out_anomalies),
    };
    /* the same programs on a PostgreSQL archive: what does not depend on the archive being
     * a file (its mode, a read-only mount, a full disk, SQLite's write lock) */
    const struct CMUnitTest on_postgresql[] = {
        cmocka_unit_test(test_exactly_once_across_kill9),
        cmocka_unit_test(test_concurrent_loaders),
        cmocka_unit_test(test_texts_archived_as_written),
        cmocka_unit_test(test_unusable_summary_values_counted),
        cmocka_unit_test(test_netlogger_reading_cli),
        cmocka_unit_test(test_netlogger_lines_named),
        cmocka_unit_test(test_bad_lines_reported_and_rejected),
        cmocka_unit_test(test_escaped_report_names_refused),
        cmocka_unit_test(test_long_names_exact_or_refused),
        cmocka_unit_test(test_pg_password_hidden),
        cmocka_unit_test(test_pg_keyword_conninfo),
        cmocka_unit_test(test_baseline_and_prune_cli),
        cmocka_unit_test(test_baseline_leaves_out_anomalies),
        cmocka_unit_test(test_detect_starts_from_archive),
        cmocka_unit_test(test_detect_history_leaves_out_anomalies),
    };
    if (argc > 5) { /* PostgreSQL only: the SQLite round runs in its own ctest entry */
        char *uri = t_slurp(argv[5], NULL);
        if (!uri) {
            fprintf(stderr, "%s: no PostgreSQL server's URI in %s\n", argv[0], argv[5]);
            return 1;
        }
        snprintf(pg_uri, sizeof pg_uri, "%.*s", (int)strcspn(uri, "\n"), uri);
        free(uri);
        on_pg = 1;
        return cmocka_run_group_tests_name("nl-load on PostgreSQL", on_postgresql, NULL, NULL);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
