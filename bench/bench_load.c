/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_load.c — events/s archived into a fresh SQLite file by nl-load, beside what a user
 * would do without it: convert to CSV and let sqlite3's own `.import` load it into one flat
 * table. Both run as programs on the same data, in the same run, alternating, median of R.
 *
 *   bench-load [--pg] [RAW_EVENTS [SUMMARY_EVENTS [ROUNDS]]]   (defaults 400000 200000 3)
 *
 * With --pg the archive is a PostgreSQL database on a throwaway server the bench starts
 * (tests/pg/pg_cluster.sh: Debian's postgresql, fsync off), beside the same data as CSV
 * loaded by PostgreSQL's own COPY (psql's \copy) into one flat table of text columns.
 *
 * nl-load does more per event than .import: it parses the line format, splits each event
 * into event/ident/value rows (or a typed summary row), maintains five indexes and records
 * the file position for exactly-once; .import stores text columns of one table without
 * an index. The ratio is what that costs. */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

static char tmpdir[] = "/tmp/nlkit-bench-load-XXXXXX";

static const char *tmp(const char *name)
{
    static char buf[4][512];
    static int i;
    char *p = buf[i++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
    return p;
}

/* The Figure 2 loop's events (~110 bytes a line) and 1 s summaries of four activities on
 * eight hosts, as event lines and as the equivalent CSV. */
static void write_data(long raw, long summ)
{
    FILE *l = fopen(tmp("raw.log"), "w"), *c = fopen(tmp("raw.csv"), "w");
    FILE *sl = fopen(tmp("sum.log"), "w"), *sc = fopen(tmp("sum.csv"), "w");
    FILE *e = fopen(tmp("empty.log"), "w"); /* for timing nl-load's start alone */
    if (!l || !c || !sl || !sc || !e || fclose(e)) {
        perror("bench-load: writing test data");
        exit(1);
    }
    fputs("ts,event,level,guid,block,nbytes\n", c);
    for (long i = 0; i < raw; i++) {
        long s = i / 2;
        const char *ev = i % 2 ? "job.loop.read.end" : "job.loop.read.start";
        char ts[40];
        snprintf(ts, sizeof ts, "2026-11-22T%02ld:%02ld:%02ld.%06ldZ", s / 3600000 % 24,
                 s / 60000 % 60, s / 1000 % 60, s % 1000 * 1000);
        fprintf(l, "ts=%s event=%s level=Info guid=6f1c2a40-0000-4000-8000-%012ld block=%ld", ts,
                ev, s % 64, s);
        fprintf(c, "%s,%s,Info,6f1c2a40-0000-4000-8000-%012ld,%ld,", ts, ev, s % 64, s);
        if (i % 2) {
            fprintf(l, " nbytes=262144");
            fprintf(c, "262144");
        }
        putc('\n', l);
        putc('\n', c);
    }
    fputs("ts,event,level,host,n,dur.min,dur.max,dur.sum,dur.sd,v.sum,span,open,int\n", sc);
    for (long i = 0; i < summ; i++) {
        long s = i / 32;
        char ts[40];
        snprintf(ts, sizeof ts, "2026-11-%02ldT%02ld:%02ld:%02ld.000000Z", 1 + s / 86400 % 28,
                 s / 3600 % 24, s / 60 % 60, s % 60);
        double dur = 0.8 + (double)(i % 97) / 1000.0;
        const char *act[] = {"disk.read", "disk.write", "net.read", "net.write"};
        fprintf(sl,
                "ts=%s event=gridftp.%s.summary level=Info host=gw%ld n=42 dur.min=0.0101 "
                "dur.max=0.0302 dur.sum=%g dur.sd=0.0043 v.sum=%ld span=0.999 open=0 int=1\n",
                ts, act[i % 4], i / 4 % 8, dur, 94273760 + i % 1000);
        fprintf(sc, "%s,gridftp.%s.summary,Info,gw%ld,42,0.0101,0.0302,%g,0.0043,%ld,0.999,0,1\n",
                ts, act[i % 4], i / 4 % 8, dur, 94273760 + i % 1000);
    }
    if (fclose(l) | fclose(c) | fclose(sl) | fclose(sc)) {
        perror("bench-load: writing test data");
        exit(1);
    }
}

/* Start a program with output discarded; its pid, or -1. */
static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0);
        dup2(nul, 1);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* Wait for a program spawn() started: whether it exited 0. */
static int reaped_ok(pid_t pid)
{
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

/* Run a program with output discarded; its wall time in seconds, or -1 if it failed. */
static double timed(char *const argv[])
{
    double t0 = bench_now_s();
    return reaped_ok(spawn(argv)) ? bench_now_s() - t0 : -1;
}

/* src's first half of lines into a, the rest into b (two collectors' streams). */
static void split_half(const char *src, const char *a, const char *b, long lines)
{
    FILE *in = fopen(src, "r"), *o1 = fopen(a, "w"), *o2 = fopen(b, "w");
    if (!in || !o1 || !o2) {
        perror("bench-load: splitting test data");
        exit(1);
    }
    char *line = NULL;
    size_t cap = 0;
    for (long i = 0; getline(&line, &cap, in) > 0; i++) fputs(line, i < lines / 2 ? o1 : o2);
    free(line);
    fclose(in);
    if (fclose(o1) | fclose(o2)) {
        perror("bench-load: splitting test data");
        exit(1);
    }
}

static void fresh(const char *db)
{
    char p[600];
    unlink(db);
    snprintf(p, sizeof p, "%s-wal", db);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", db);
    unlink(p);
    snprintf(p, sizeof p, "%s-journal", db);
    unlink(p);
}

/* The anchor: SQLite's own insert rate for the rows nl-load writes, into the same schema
 * (a copy of one nl-load created), from memory (nothing to parse), with statements
 * prepared once, one transaction; in this process, so without a program start. Seconds,
 * or -1 with the reason on stderr. */
static double prepared_inserts(int summaries, long n)
{
    static int have_schema;
    char tmpl[512], db[512], empty[512]; /* tmp()'s buffers are the caller's paths too */
    snprintf(tmpl, sizeof tmpl, "%s/schema.db", tmpdir);
    snprintf(db, sizeof db, "%s/bench.db", tmpdir);
    snprintf(empty, sizeof empty, "%s/empty.log", tmpdir);
    if (!have_schema) {
        FILE *e = fopen(empty, "w");
        if (e) fclose(e);
        fresh(tmpl);
        char *mk[] = {NLL_BENCH_NL_LOAD, "-q", "--no-progress", "-d", tmpl, empty, NULL};
        if (!e || timed(mk) < 0) return -1;
        have_schema = 1;
    }
    fresh(db);
    FILE *in = fopen(tmpl, "rb"), *out = fopen(db, "wb");
    char buf[65536];
    size_t k;
    while (in && out && (k = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, k, out);
    if (!in || !out || ferror(in) | fclose(out)) return -1;
    fclose(in);
    sqlite3 *d;
    sqlite3_stmt *ev = NULL, *id = NULL, *val = NULL, *sum = NULL;
    double t0 = bench_now_s();
    int rc = sqlite3_open(db, &d);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(d,
                          "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA "
                          "cache_size = -65536; BEGIN IMMEDIATE",
                          NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            d, "INSERT INTO event (ts, event, level, startend, status) VALUES (?,?,?,?,NULL)", -1,
            &ev, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(d, "INSERT INTO ident VALUES (?, 'guid', ?)", -1, &id, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(d, "INSERT INTO value VALUES (?, ?, ?)", -1, &val, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(d,
                                "INSERT INTO summary (event_id, ts, event, host, n, dur_min, "
                                "dur_max, dur_sum, dur_sd, v_sum, span, open, interval) VALUES "
                                "(?,?,?,?,42,0.0101,0.0302,?,0.0043,?,0.999,0,1)",
                                -1, &sum, NULL);
    const char *act[] = {"gridftp.disk.read.summary", "gridftp.disk.write.summary",
                         "gridftp.net.read.summary", "gridftp.net.write.summary"};
    for (long i = 0; i < n && rc == SQLITE_OK; i++) {
        char guid[64], host[16];
        long s = summaries ? i / 32 : i / 2;
        double ts = summaries ? 1.7e9 + (double)s : 1.7e9 + (double)s / 1000;
        const char *name = summaries ? act[i % 4]
                           : (i % 2) ? "job.loop.read.end"
                                     : "job.loop.read.start";
        sqlite3_bind_double(ev, 1, ts);
        sqlite3_bind_text(ev, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(ev, 3, "Info", 4, SQLITE_STATIC);
        sqlite3_bind_int(ev, 4, summaries ? 2 : (int)(i % 2));
        if (sqlite3_step(ev) != SQLITE_DONE) break;
        sqlite3_reset(ev);
        sqlite3_int64 row = sqlite3_last_insert_rowid(d);
        if (summaries) {
            snprintf(host, sizeof host, "gw%ld", i / 4 % 8);
            sqlite3_bind_int64(sum, 1, row);
            sqlite3_bind_double(sum, 2, ts);
            sqlite3_bind_text(sum, 3, name, -1, SQLITE_STATIC);
            sqlite3_bind_text(sum, 4, host, -1, SQLITE_TRANSIENT);
            sqlite3_bind_double(sum, 5, 0.8 + (double)(i % 97) / 1000.0);
            sqlite3_bind_int64(sum, 6, 94273760 + i % 1000);
            if (sqlite3_step(sum) != SQLITE_DONE) break;
            sqlite3_reset(sum);
            continue;
        }
        snprintf(guid, sizeof guid, "6f1c2a40-0000-4000-8000-%012ld", s % 64);
        sqlite3_bind_int64(id, 1, row);
        sqlite3_bind_text(id, 2, guid, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(id) != SQLITE_DONE) break;
        sqlite3_reset(id);
        for (int v = 0; v <= (int)(i % 2); v++) {
            sqlite3_bind_int64(val, 1, row);
            sqlite3_bind_text(val, 2, v ? "nbytes" : "block", -1, SQLITE_STATIC);
            sqlite3_bind_int64(val, 3, v ? 262144 : s);
            if (sqlite3_step(val) != SQLITE_DONE) rc = SQLITE_ERROR;
            sqlite3_reset(val);
        }
    }
    if (rc == SQLITE_OK) rc = sqlite3_exec(d, "COMMIT", NULL, NULL, NULL);
    double t = bench_now_s() - t0;
    if (rc != SQLITE_OK) fprintf(stderr, "bench-load: prepared inserts: %s\n", sqlite3_errmsg(d));
    sqlite3_finalize(ev);
    sqlite3_finalize(id);
    sqlite3_finalize(val);
    sqlite3_finalize(sum);
    sqlite3_close(d);
    return rc == SQLITE_OK ? t : -1;
}

/* --pg: the server's URI (empty: SQLite). */
static char pg_uri[600];

/* A fresh schema `b` on the server, and the URI that loads into it. */
static const char *pg_fresh(void)
{
    static char uri[700];
    char *drop[] = {"psql", pg_uri, "-qAtc",
                    "SET client_min_messages = warning; DROP SCHEMA IF EXISTS b CASCADE; CREATE "
                    "SCHEMA b",
                    NULL};
    if (timed(drop) < 0) {
        fprintf(stderr, "bench-load: psql could not reset the schema\n");
        exit(1);
    }
    snprintf(uri, sizeof uri, "%s&options=-csearch_path%%3Db", pg_uri);
    return uri;
}

/* PostgreSQL's own COPY of the CSV into one flat table of text columns (psql's \copy). */
static double pg_copy(const char *csv)
{
    const char *uri = pg_fresh();
    FILE *f = fopen(csv, "r");
    char head[512] = "";
    if (!f || !fgets(head, sizeof head, f)) {
        if (f) fclose(f);
        return -1;
    }
    fclose(f);
    char create[1024] = "CREATE TABLE t (";
    int ncol = 0;
    for (char *save, *c = strtok_r(head, ",\n", &save); c; c = strtok_r(NULL, ",\n", &save)) {
        snprintf(create + strlen(create), sizeof create - strlen(create), "%sc%d text",
                 ncol ? ", " : "", ncol + 1);
        ncol++;
    }
    strcat(create, ")");
    char copy[700];
    snprintf(copy, sizeof copy, "\\copy t FROM '%s' WITH (FORMAT csv, HEADER)", csv);
    char *argv[] = {"psql", (char *)uri, "-qAt", "-c", create, "-c", copy, NULL};
    return timed(argv);
}

static void row(const char *what, long n, int rounds, const char *log, const char *csv)
{
    double ours[32], theirs[32], prep[32], start[32];
    int have_sqlite = 1;
    char db[512], empty[512]; /* not tmp(): its buffers hold log and csv */
    snprintf(db, sizeof db, "%s/bench.db", tmpdir);
    snprintf(empty, sizeof empty, "%s/empty.log", tmpdir);
    for (int r = 0; r < rounds; r++) {
        if (pg_uri[0]) { /* nl-load into PostgreSQL, then COPY of the CSV into it */
            char *load[] = {NLL_BENCH_NL_LOAD, "-q", "--no-progress", "-d", (char *)pg_fresh(),
                            (char *)log,       NULL};
            ours[r] = timed(load);
            theirs[r] = pg_copy(csv);
            if (ours[r] < 0 || theirs[r] < 0) {
                fprintf(stderr, "bench-load: loading into PostgreSQL failed\n");
                exit(1);
            }
            continue;
        }
        fresh(db);
        char *load[] = {NLL_BENCH_NL_LOAD, "-q", "--no-progress", "-d", db, (char *)log, NULL};
        ours[r] = timed(load);
        /* what of that is the program's start: the same run over no lines, into a fresh
         * file (the schema made, its fsyncs waited for) */
        fresh(db);
        char *none[] = {NLL_BENCH_NL_LOAD, "-q", "--no-progress", "-d", db, empty, NULL};
        start[r] = timed(none);
        fresh(db);
        char *imp[] = {"sqlite3", db, "-cmd", ".mode csv", (char *)"", NULL};
        char cmd[600];
        snprintf(cmd, sizeof cmd, ".import %s t", csv);
        imp[4] = cmd;
        theirs[r] = have_sqlite ? timed(imp) : -1;
        if (theirs[r] < 0) have_sqlite = 0;
        prep[r] = prepared_inserts(strstr(what, "summ") != NULL, n);
        if (ours[r] < 0 || prep[r] < 0 || start[r] < 0) {
            fprintf(stderr, "bench-load: %s failed\n",
                    ours[r] < 0 ? NLL_BENCH_NL_LOAD : "the anchor");
            exit(1);
        }
    }
    double a = bench_median(ours, rounds), b = have_sqlite ? bench_median(theirs, rounds) : 0;
    double c = pg_uri[0] ? 0 : bench_median(prep, rounds);
    double st = pg_uri[0] ? 0 : bench_median(start, rounds), run = a - st;
    if (pg_uri[0])
        printf("| %-20s | %9ld | %12.0f | %12.0f | %6.2f |\n", what, n, n / a, n / b, b / a);
    else if (have_sqlite)
        printf("| %-20s | %9ld | %12.0f | %12.0f | %6.2f | %12.0f | %6.2f | %9.0f | %12.0f | "
               "%6.2f |\n",
               what, n, n / a, n / b, b / a, n / c, c / a, st * 1e3, n / run, c / run);
    else
        printf("| %-20s | %9ld | %12.0f | %12s | %6s | %12.0f | %6.2f | %9.0f | %12.0f | %6.2f |\n",
               what, n, n / a, "no sqlite3", "-", n / c, c / a, st * 1e3, n / run, c / run);
}

/* --pg: two nl-load at once into one archive, each with half the lines (as two collectors
 * would), beside COPY of the whole CSV. */
static void row_two(const char *what, long n, int rounds, const char *half0, const char *half1,
                    const char *csv)
{
    double ours[32], theirs[32];
    for (int r = 0; r < rounds; r++) {
        const char *uri = pg_fresh();
        char *a[] = {NLL_BENCH_NL_LOAD, "-q", "--no-progress", "-d", (char *)uri,
                     (char *)half0,     NULL};
        char *b[] = {NLL_BENCH_NL_LOAD, "-q", "--no-progress", "-d", (char *)uri,
                     (char *)half1,     NULL};
        double t0 = bench_now_s();
        pid_t p0 = spawn(a), p1 = spawn(b);
        int ok = reaped_ok(p0) & reaped_ok(p1);
        ours[r] = bench_now_s() - t0;
        theirs[r] = pg_copy(csv);
        if (!ok || theirs[r] < 0) {
            fprintf(stderr, "bench-load: loading into PostgreSQL failed\n");
            exit(1);
        }
    }
    double x = bench_median(ours, rounds), y = bench_median(theirs, rounds);
    printf("| %-20s | %9ld | %12.0f | %12.0f | %6.2f |\n", what, n, n / x, n / y, y / x);
}

int main(int argc, char **argv)
{
    int pg = argc > 1 && !strcmp(argv[1], "--pg");
    if (pg) argc--, argv++;
    long raw = argc > 1 ? atol(argv[1]) : 400000, summ = argc > 2 ? atol(argv[2]) : 200000;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    if (raw < 1 || summ < 1 || rounds < 1 || rounds > 32) {
        fprintf(stderr, "usage: bench-load [RAW_EVENTS [SUMMARY_EVENTS [ROUNDS<=32]]]\n");
        return 2;
    }
    if (!mkdtemp(tmpdir)) {
        perror("bench-load: mkdtemp");
        return 1;
    }
    write_data(raw, summ);
    if (pg) {
        char *start[] = {NLL_BENCH_PG_CLUSTER, "start", (char *)tmp("pg"), NULL};
        char *uri = NULL;
        FILE *f = timed(start) < 0 ? NULL : fopen(tmp("pg/uri"), "r");
        size_t cap = 0;
        if (!f || getline(&uri, &cap, f) < 0) {
            fprintf(stderr,
                    "bench-load: no PostgreSQL server (%s start failed; ./nlkit deps "
                    "installs postgresql)\n",
                    NLL_BENCH_PG_CLUSTER);
            return 1;
        }
        fclose(f);
        snprintf(pg_uri, sizeof pg_uri, "%.*s", (int)strcspn(uri, "\n"), uri);
        free(uri);
    }
    printf("bench-load: events/s into %s (median of %d; program start included)\n\n",
           pg ? "PostgreSQL (a local server, fsync off)" : "a fresh SQLite file", rounds);
    if (pg) {
        printf("| %-20s | %9s | %12s | %12s | %6s |\n", "events", "n", "nl-load /s", "COPY /s",
               "ratio");
        printf("|----------------------|-----------|--------------|--------------|--------|\n");
    } else {
        printf("| %-20s | %9s | %12s | %12s | %6s | %12s | %6s | %9s | %12s | %6s |\n", "events",
               "n", "nl-load /s", ".import /s", "ratio", "prepared /s", "ratio", "start ms",
               "less start/s", "ratio");
        printf("|----------------------|-----------|--------------|--------------|--------|------"
               "--------|--------|-----------|--------------|--------|\n");
    }
    row("raw start/end", raw, rounds, tmp("raw.log"), tmp("raw.csv"));
    row("summaries", summ, rounds, tmp("sum.log"), tmp("sum.csv"));
    if (pg) {
        split_half(tmp("raw.log"), tmp("raw0.log"), tmp("raw1.log"), raw);
        split_half(tmp("sum.log"), tmp("sum0.log"), tmp("sum1.log"), summ);
        row_two("raw, 2 loaders", raw, rounds, tmp("raw0.log"), tmp("raw1.log"), tmp("raw.csv"));
        row_two("summaries, 2 loaders", summ, rounds, tmp("sum0.log"), tmp("sum1.log"),
                tmp("sum.csv"));
    }
    if (pg)
        printf("\nratio = nl-load events/s / PostgreSQL's COPY (psql \\copy) rows/s of the same "
               "data as\nCSV into one flat table (no index, text columns). nl-load: parsed "
               "lines, event/ident/value\nor typed summary rows by COPY, indexes, day "
               "partitions, exactly-once position.\n2 loaders: two nl-load at once into one "
               "archive, each with half the lines, as two\ncollectors would.\n");
    else
        printf("\nratio = nl-load events/s / sqlite3 .import rows/s of the same data as CSV "
               "into one flat\ntable (no index, text columns). nl-load: parsed lines, "
               "event/ident/value or typed\nsummary rows, 3 indexes, WAL, exactly-once "
               "position. prepared = SQLite's own insert\nrate for the same rows into the "
               "same schema: from memory, statements prepared once, one\ntransaction, no "
               "program start (the limit for this schema; ratio >= 1: nl-load is at it).\n"
               "start ms = nl-load over an empty file into a fresh one (exec, schema, fsyncs);\n"
               "less start/s = the events over nl-load's time less that, beside prepared.\n");
    if (pg) {
        char *stop[] = {NLL_BENCH_PG_CLUSTER, "stop", (char *)tmp("pg"), NULL};
        timed(stop);
    }
    const char *names[] = {"raw.log",  "raw.csv",  "sum.log",  "sum.csv",  "bench.db",
                           "raw0.log", "raw1.log", "sum0.log", "sum1.log", "empty.log"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp(names[i]));
    fresh(tmp("bench.db"));
    fresh(tmp("schema.db"));
    rmdir(tmpdir);
    return 0;
}
