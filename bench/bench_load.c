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
    if (!l || !c || !sl || !sc) {
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
    double ours[32], theirs[32];
    int have_sqlite = 1;
    char db[512];
    snprintf(db, sizeof db, "%s", tmp("bench.db"));
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
        fresh(db);
        char *imp[] = {"sqlite3", db, "-cmd", ".mode csv", (char *)"", NULL};
        char cmd[600];
        snprintf(cmd, sizeof cmd, ".import %s t", csv);
        imp[4] = cmd;
        theirs[r] = have_sqlite ? timed(imp) : -1;
        if (theirs[r] < 0) have_sqlite = 0;
        if (ours[r] < 0) {
            fprintf(stderr, "bench-load: %s failed\n", NLL_BENCH_NL_LOAD);
            exit(1);
        }
    }
    double a = bench_median(ours, rounds), b = have_sqlite ? bench_median(theirs, rounds) : 0;
    if (have_sqlite)
        printf("| %-20s | %9ld | %12.0f | %12.0f | %6.2f |\n", what, n, n / a, n / b, b / a);
    else
        printf("| %-20s | %9ld | %12.0f | %12s | %6s |\n", what, n, n / a, "no sqlite3", "-");
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
    printf("| %-20s | %9s | %12s | %12s | %6s |\n", "events", "n", "nl-load /s",
           pg ? "COPY /s" : ".import /s", "ratio");
    printf("|----------------------|-----------|--------------|--------------|--------|\n");
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
               "position.\n");
    if (pg) {
        char *stop[] = {NLL_BENCH_PG_CLUSTER, "stop", (char *)tmp("pg"), NULL};
        timed(stop);
    }
    const char *names[] = {"raw.log",  "raw.csv",  "sum.log",  "sum.csv", "bench.db",
                           "raw0.log", "raw1.log", "sum0.log", "sum1.log"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp(names[i]));
    fresh(tmp("bench.db"));
    rmdir(tmpdir);
    return 0;
}
