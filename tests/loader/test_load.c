/* SPDX-License-Identifier: BSD-3-Clause */
/* test_load.c — the loader's modules against a real SQLite file and, given the URI file of
 * the tests' PostgreSQL server (argv[1]), against PostgreSQL: NetLogger's event/ident/value
 * split, a round trip of every field of every event, summary typing, baselines
 * (nll_base_get and the SQL views) against values computed here, merged percentiles,
 * retention, records stored from a batch; on SQLite also an in-place upgrade from schema
 * version 1, and value typing and what -d names, passwords hidden (no database). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_hist.h"
#include "nl_num.h"
#include "nl_test.h"
#include <libpq-fe.h>

#include "nll_conn.h"
#include "nll_db_lite.h"
#include "nll_sql.h"

/* PostgreSQL: the test server's URI (empty: this round runs on SQLite files). */
static char pg_uri[512];

/* The archive `name` of a test: a file in dir, or a fresh schema of that name on the
 * server. */
static nll_db_t *open_db(const char *dir, const char *name, int upto)
{
    char uri[700];
    if (pg_uri[0]) {
        char schema[64], sql[256];
        snprintf(schema, sizeof schema, "u_%.*s", (int)strcspn(name, "."), name);
        PGconn *c = PQconnectdb(pg_uri);
        if (PQstatus(c) != CONNECTION_OK) fail_msg("%s: %s", pg_uri, PQerrorMessage(c));
        snprintf(sql, sizeof sql,
                 "SET client_min_messages = warning; DROP SCHEMA IF EXISTS %s CASCADE; "
                 "CREATE SCHEMA %s",
                 schema, schema);
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) fail_msg("%s", PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        snprintf(uri, sizeof uri, "%s&options=-csearch_path%%3D%s", pg_uri, schema);
    } else {
        snprintf(uri, sizeof uri, "%s", t_path(dir, name));
    }
    nll_db_t *db;
    nll_err_t err;
    int rc = nll_db_open(uri, NLL_OPEN_WRITE, upto, &db, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    return db;
}

/* Load lines (NUL-separated in one string list) in one transaction; returns events stored. */
static int load_lines(nll_db_t *db, const char *const *lines, int n)
{
    nll_rows_t *r;
    nll_err_t err;
    nl_perr_t pe;
    assert_int_equal(nll_rows_new(db, NL_PARSE_STRICT, &r, &err), 0);
    assert_int_equal(nll_db_exec(db, "BEGIN", &err), 0);
    int stored = 0;
    for (int i = 0; i < n; i++) {
        int rc = nll_rows_add(r, lines[i], strlen(lines[i]), i + 1, &pe, &err);
        if (rc < 0) fprintf(stderr, "line %d: %s / %s\n", i + 1, pe.msg, err.msg);
        assert_true(rc >= 0);
        stored += rc;
    }
    assert_int_equal(nll_rows_flush(r, &err), 0); /* PostgreSQL: the rows go now, by COPY */
    assert_int_equal(nll_db_exec(db, "COMMIT", &err), 0);
    nll_rows_free(r);
    return stored;
}

/* A statement that must prepare and give a row. */
static nll_stmt_t *q_row(nll_db_t *db, const char *sql)
{
    nll_stmt_t *st;
    nll_err_t err;
    if (nll_sql_prepare(db, sql, &st, &err)) fail_msg("%s: %s", sql, err.msg);
    int rc = nll_sql_step(st, &err);
    if (rc != 1) fail_msg("%s: %s", sql, rc < 0 ? err.msg : "no row");
    return st;
}

/* One integer (or -1 for NULL) from SQL. */
static long long q_int(nll_db_t *db, const char *sql)
{
    nll_stmt_t *st = q_row(db, sql);
    long long v = nll_sql_col_type(st, 0) == NLL_T_NULL ? -1 : nll_sql_col_int64(st, 0);
    nll_sql_finalize(st);
    return v;
}

static double q_dbl(nll_db_t *db, const char *sql)
{
    nll_stmt_t *st = q_row(db, sql);
    double v = nll_sql_col_type(st, 0) == NLL_T_NULL ? NAN : nll_sql_col_double(st, 0);
    nll_sql_finalize(st);
    return v;
}

static void test_netlogger_split(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "a.db", 0);
    const char *lines[] = {
        "ts=2026-11-22T12:00:00.000001Z event=disk.read.start level=Info "
        "guid=6f1c2a40-0000-4000-8000-000000000001 stream.id=3 file=/data/x block=7",
        "ts=2026-11-22T12:00:00.250000Z event=disk.read.end level=Info "
        "guid=6f1c2a40-0000-4000-8000-000000000001 stream.id=3 nbytes=262144 status=0",
        "ts=2026-11-22T12:00:01Z event=job.note level=Warn status=ok msg=\"two words\"",
        "",
        "# a comment line",
    };
    assert_int_equal(load_lines(db, lines, 5), 3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 3);
    assert_int_equal(q_int(db, "SELECT startend FROM event WHERE event='disk.read.start'"), 0);
    assert_int_equal(q_int(db, "SELECT startend FROM event WHERE event='disk.read.end'"), 1);
    assert_int_equal(q_int(db, "SELECT startend FROM event WHERE event='job.note'"), 2);
    /* status: an integer goes to the column; other text stays a value */
    assert_int_equal(q_int(db, "SELECT status FROM event WHERE event='disk.read.end'"), 0);
    assert_int_equal(q_int(db, "SELECT status FROM event WHERE event='job.note'"), -1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name='status' AND value='ok'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name='status'"), 1);
    /* identity: guid and *.id */
    assert_int_equal(q_int(db, "SELECT count(*) FROM ident WHERE name='guid'"), 2);
    assert_int_equal(q_int(db, pg_uri[0] ? "SELECT count(*) FROM ident WHERE name='stream.id' AND "
                                           "value='3'"
                                         : "SELECT count(*) FROM ident WHERE name='stream.id' AND "
                                           "value='3' AND typeof(value)='text'"),
                     2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name IN ('guid','stream.id')"), 0);
    /* values typed: integers compare as numbers */
    assert_int_equal(q_int(db, "SELECT value FROM value WHERE name='nbytes' AND num > 1000"),
                     262144);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name='msg' AND value='two words'"),
                     1);
    /* microseconds survive */
    assert_int_equal(q_int(db, "SELECT CAST(round(ts * 1e6) AS BIGINT) % 1000000 FROM event "
                               "WHERE event='disk.read.start'"),
                     1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary"), 0);
    nll_db_close(db);
    t_rmtree(dir);
}

/* What -d names (nll_conn.c, no database): libpq's keyword form is PostgreSQL, a path is
 * not; the name for messages hides every password, quoted, spaced, in a URI's userinfo or
 * query (its key %-encoded too), sslpassword alike; a keyword string libpq could not read
 * shows what came before, then "..."; a libpq message quoting the string, raw or decoded,
 * loses the password. */
static void test_conn_names(void **state)
{
    (void)state;
    assert_true(nll_db_is_pg("host=db user=bob dbname=x"));
    assert_true(nll_db_is_pg("  dbname = x"));
    assert_true(nll_db_is_pg("service=nlkit"));
    assert_true(nll_db_is_pg("postgres://h/x"));
    assert_false(nll_db_is_pg("./host=db.sqlite"));
    assert_false(nll_db_is_pg("/var/lib/nlkit/archive.db"));
    assert_false(nll_db_is_pg("a b=c"));
    assert_false(nll_db_is_pg("=x"));
    static const char *const cases[][2] = {
        {"host=db user=bob password=S3cretPW dbname=x", "host=db user=bob password=*** dbname=x"},
        {" host = db  password = 'S3c\\'ret PW'  dbname=x", "host=db password=*** dbname=x"},
        {"password=S3cret\\ PW sslpassword=S3cretKey", "password=*** sslpassword=***"},
        {"host=db password=S3cretPW S3cretTail", "host=db password=*** ..."},
        {"host=db password='S3cretPW", "host=db ..."},
        {"S3cretPW", "S3cretPW"}, /* a file's name is its name */
        {"postgresql://bob:S3cretPW@h/x?passwor%64=S3cretQ&sslpassword=S3cretK&port=5",
         "postgresql://bob:***@h/x?passwor%64=***&sslpassword=***&port=5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        nll_db_display_name(cases[i][0], out, sizeof out);
        assert_string_equal(out, cases[i][1]);
    }
    char why[256];
    assert_int_equal(nll__conn_kv_check("host=db password='x y' dbname=x", why, sizeof why), 0);
    assert_int_equal(nll__conn_kv_check("host=db password=S3cret PW=", why, sizeof why), -1);
    assert_string_equal(why, "byte 25: not a libpq connection keyword (host, port, dbname, "
                             "user, password, sslmode, ...)");
    assert_int_equal(nll__conn_kv_check("host=db password=S3cret PW", why, sizeof why), -1);
    assert_null(strstr(why, "PW"));
    char msg[256] = "bad \"S3c'ret PW\" and 'S3c\\'ret PW' here";
    nll__conn_scrub("host=db password='S3c\\'ret PW'", msg, sizeof msg);
    assert_string_equal(msg, "bad \"***\" and *** here");
    snprintf(msg, sizeof msg, "invalid token: \"S3c%%zz\" in postgresql://bob:S3c%%zz@h and S3c@t");
    nll__conn_scrub("postgresql://bob:S3c%zz@h/x?password=S3c%40t", msg, sizeof msg);
    assert_string_equal(msg, "invalid token: \"***\" in postgresql://bob:***@h and ***");
}

static void test_value_type(void **state)
{
    (void)state;
    int64_t i;
    double d;
    assert_int_equal(nll_value_type("42", 2, &i, &d), SQLITE_INTEGER);
    assert_int_equal(i, 42);
    assert_int_equal(nll_value_type("-9223372036854775808", 20, &i, &d), SQLITE_INTEGER);
    assert_true(i == INT64_MIN);
    assert_int_equal(nll_value_type("9223372036854775808", 19, &i, &d), SQLITE_TEXT);
    /* a long exponent is text, and summing its digits must not overflow (fuzz_load) */
    assert_int_equal(nll_value_type("9999e99999999990", 16, &i, &d), SQLITE_TEXT);
    assert_int_equal(nll_value_type("1e-400", 6, &i, &d), SQLITE_TEXT); /* not 0 */
    assert_int_equal(nll_value_type("4.94065645841247e-324", 21, &i, &d), SQLITE_FLOAT);
    assert_true(d > 0); /* the smallest subnormal, as nlkit writes it: exact, so a number */
    assert_int_equal(nll_value_type("0.5", 3, &i, &d), SQLITE_FLOAT);
    assert_true(d == 0.5);
    /* the typing's own decimal conversion must agree with strtod on every number it takes */
    uint64_t rs = 3;
    int taken = 0;
    for (int k = 0; k < 200000; k++) {
        char buf[48];
        int ndig = 1 + (int)(t_rand(&rs) % 17), point = (int)(t_rand(&rs) % (ndig + 1));
        size_t n = 0;
        if (t_rand(&rs) % 2) buf[n++] = '-';
        for (int j = 0; j < ndig; j++) {
            if (j == point && j) buf[n++] = '.';
            buf[n++] = (char)('0' + (j == 0 ? 1 + t_rand(&rs) % 9 : t_rand(&rs) % 10));
        }
        if (t_rand(&rs) % 3 == 0)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "e%d", (int)(t_rand(&rs) % 61) - 30);
        buf[n] = 0;
        if (nll_value_type(buf, n, &i, &d) == SQLITE_FLOAT) {
            taken++;
            if (d != strtod(buf, NULL)) fail_msg("%s: %.17g != %.17g", buf, d, strtod(buf, NULL));
        }
    }
    assert_true(taken > 50000);
    /* fixed-point floats (C's %f, NetLogger's floats) are numbers; so is -0, sign kept */
    static const struct {
        const char *s;
        double v;
    } fixed[] = {{"0.500000", 0.5},
                 {"3.000000", 3.0},
                 {"0.50", 0.5},
                 {"-0.000000", -0.0},
                 {"-0", -0.0},
                 {"0.000010", 1e-5},
                 {"1000000000000000.000000", 1e15},
                 {"125000000.000000", 125e6},
                 {"-7.250", -7.25},
                 {"123456789.123457", 123456789.123457}};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
        if (nll_value_type(fixed[k].s, strlen(fixed[k].s), &i, &d) != SQLITE_FLOAT ||
            d != fixed[k].v || signbit(d) != signbit(fixed[k].v))
            fail_msg("%s: not the number %g", fixed[k].s, fixed[k].v);
    }
    const char *text[] = {"007", "00.50", "1e3x", "inf", "nan", "0x10",
                          " 1",  "",      "1.",   "+1",  ".5",  "1.0x"};
    for (size_t k = 0; k < sizeof text / sizeof text[0]; k++)
        assert_int_equal(nll_value_type(text[k], strlen(text[k]), &i, &d), SQLITE_TEXT);
}

/* A random value: numbers of every kind, and text that needs quoting. */
static void random_value(uint64_t *rs, char *out, size_t cap)
{
    static const char *const odd[] = {"007",         "-0",        "with space", "quote\"d",
                                      "back\\slash", "tab\there", "",           "=",
                                      "1e3x",        "0.50",      "\x01\x7f"};
    switch (t_rand(rs) % 4) {
    case 0: snprintf(out, cap, "%lld", (long long)(t_rand(rs) % 2000000) - 1000000); break;
    case 1:
        nl__dtoa((double)(t_rand(rs) % 1000000) / 997.0 * (t_rand(rs) % 2 ? 1e-9 : 1e12), out);
        break;
    case 2: snprintf(out, cap, "%s", odd[t_rand(rs) % (sizeof odd / sizeof odd[0])]); break;
    default: snprintf(out, cap, "w%llu", (unsigned long long)(t_rand(rs) % 100000));
    }
}

static const char *const sum_fields[] = {"host", "n",    "dur.min", "dur.sum", "v.max",
                                         "r.sd", "span", "open",    "int",     "orphan.end"};
static const char *const sum_cols[] = {"host", "n",    "dur_min", "dur_sum",  "v_max",
                                       "r_sd", "span", "open",    "interval", "orphan_end"};
#define NSUM ((int)(sizeof sum_fields / sizeof sum_fields[0]))

/* The fields of a summary kept in its typed row: each non-NULL column must be the line's
 * field, exactly (the number the text was). Returns how many. */
static int check_summary(nll_db_t *db, int64_t id, nl_rec_t *rec)
{
    int found = 0;
    for (int c = 0; c < NSUM; c++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT %s FROM summary WHERE event_id = %lld", sum_cols[c],
                 (long long)id);
        nll_stmt_t *st = q_row(db, sql);
        if (nll_sql_col_type(st, 0) != NLL_T_NULL) {
            const char *want = t_field(rec, sum_fields[c]);
            assert_non_null(want);
            if (c == 0) {
                assert_string_equal(nll_sql_col_text(st, 0, NULL), want);
            } else {
                double w;
                assert_int_equal(nl__strtod(want, strlen(want), &w), 0);
                assert_true(w == nll_sql_col_double(st, 0));
            }
            found++;
        }
        nll_sql_finalize(st);
    }
    return found;
}

/* Every field of an event read back from the tables must equal the parsed line's: a text
 * byte for byte, a number (value.num) as the number the line's text is, exactly. */
static void check_event(nll_db_t *db, int64_t id, nl_rec_t *rec)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT ts, event, level FROM event WHERE id = %lld", (long long)id);
    nll_stmt_t *st = q_row(db, sql);
    assert_true(llround(nll_sql_col_double(st, 0) * 1e6) == rec->ts_usec);
    assert_string_equal(nll_sql_col_text(st, 1, NULL), t_field(rec, "event"));
    assert_string_equal(nll_sql_col_text(st, 2, NULL), t_field(rec, "level"));
    nll_sql_finalize(st);
    int found = 3, rc;
    nll_err_t err;
    snprintf(sql, sizeof sql,
             "SELECT name, value, NULL FROM ident WHERE event_id = %lld UNION ALL "
             "SELECT name, value, num FROM value WHERE event_id = %lld",
             (long long)id, (long long)id);
    assert_int_equal(nll_sql_prepare(db, sql, &st, &err), 0);
    while ((rc = nll_sql_step(st, &err)) == 1) {
        const char *name = nll_sql_col_text(st, 0, NULL);
        const char *want = t_field(rec, name);
        assert_non_null(want);
        if (nll_sql_col_type(st, 2) != NLL_T_NULL) { /* a number only if the text was one */
            int64_t iv;
            double dv;
            int ty = nll_value_type(want, strlen(want), &iv, &dv);
            assert_true(ty == SQLITE_INTEGER || ty == SQLITE_FLOAT);
            if (ty == SQLITE_INTEGER) dv = (double)iv;
            assert_true(dv == nll_sql_col_double(st, 2));
        } else {
            size_t len;
            const char *got = nll_sql_col_text(st, 1, &len);
            assert_int_equal(len, strlen(want));
            assert_memory_equal(got, want, len);
        }
        found++;
    }
    assert_int_equal(rc, 0);
    nll_sql_finalize(st);
    if (strstr(t_field(rec, "event"), ".summary")) found += check_summary(db, id, rec);
    assert_int_equal(found, rec->n);
}

static void test_round_trip(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "rt.db", 0);
    enum { N = 3000 };
    char **lines = calloc(N, sizeof *lines);
    uint64_t rs = 11;
    for (int i = 0; i < N; i++) {
        char stack[2048], v[64], name[32];
        nl_buf_t b;
        nl_buf_init(&b, stack, sizeof stack);
        static const char *const kinds[] = {"xfer.disk.read.start", "xfer.disk.read.end",
                                            "xfer.disk.read.summary", "xfer.note"};
        const char *ev = kinds[i % 4];
        nl_enc_begin(&b, 1795348800000000LL + (int64_t)(t_rand(&rs) % 86400000000ull), ev,
                     (int)(t_rand(&rs) % 6), "6f1c2a40-0000-4000-8000-00000000000a");
        int nf = (int)(t_rand(&rs) % 12);
        for (int k = 0; k < nf; k++) {
            random_value(&rs, v, sizeof v);
            if (i % 4 == 2 && k < NSUM) /* summary fields, numbers or not */
                snprintf(name, sizeof name, "%s", sum_fields[k]);
            else
                snprintf(name, sizeof name, k % 4 == 3 ? "f%d.id" : "f%d", k);
            nl_enc_str(&b, name, v, strlen(v));
        }
        assert_int_equal(nl_enc_end(&b), 0);
        lines[i] = strndup(b.p, b.len - 1);
        nl_buf_free(&b);
    }
    assert_int_equal(load_lines(db, (const char *const *)lines, N), N);
    nl_rec_t rec;
    nl_rec_init(&rec);
    for (int i = 0; i < N; i++) {
        assert_int_equal(nl_parse(&rec, lines[i], strlen(lines[i]), i + 1, 0, NULL), 1);
        check_event(db, i + 1, &rec);
        free(lines[i]);
    }
    nl_rec_free(&rec);
    free(lines);
    nll_db_close(db);
    t_rmtree(dir);
}

static void test_summary_typing(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "s.db", 0);
    const char *lines[] = {
        "ts=2026-11-22T12:00:01.000000Z event=gridftp.disk.write.summary level=Info "
        "guid=6f1c2a40-0000-4000-8000-000000000001 host=gw1 stream.id=2 n=4 dur.n=5 "
        "dur.min=0.1 dur.max=0.4 dur.sum=1 dur.sd=0.12909944487358058 v.min=100 v.max=400 "
        "v.sum=1000 v.sd=129.09944487358058 r.min=1000 r.max=1000 r.sum=4000 r.sd=0 span=1.5 "
        "open=1 int=2 orphan.start=3 orphan.end=0",
        /* a stalled interval, and a field that is not a number stays a value */
        "ts=2026-11-22T12:00:03.000000Z event=gridftp.disk.write.summary level=Info host=gw1 "
        "n=0 dur.sum=0 open=1 int=2 span=later",
    };
    assert_int_equal(load_lines(db, lines, 2), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary"), 2);
    const char *checks[][2] = {
        {"n", "4"},
        {"dur_min", "0.1"},
        {"dur_max", "0.4"},
        {"dur_sum", "1"},
        {"dur_sd", "0.12909944487358058"},
        {"v_min", "100"},
        {"v_max", "400"},
        {"v_sum", "1000"},
        {"v_sd", "129.09944487358058"},
        {"r_min", "1000"},
        {"r_max", "1000"},
        {"r_sum", "4000"},
        {"r_sd", "0"},
        {"span", "1.5"},
        {"open", "1"},
        {"interval", "2"},
        {"orphan_start", "3"},
        {"orphan_end", "0"},
        {"rate", "1000"},
        {"avgrate", "500"},
        {"busy", "0.5"},
        {"mean_dur", "0.25"},
    };
    for (size_t k = 0; k < sizeof checks / sizeof checks[0]; k++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT %s FROM summary WHERE event_id = 1", checks[k][0]);
        double want;
        assert_int_equal(nl__strtod(checks[k][1], strlen(checks[k][1]), &want), 0);
        double got = q_dbl(db, sql);
        if (got != want) fprintf(stderr, "%s: %.17g != %.17g\n", checks[k][0], got, want);
        assert_true(got == want);
    }
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary WHERE event_id = 1 AND host = "
                               "'gw1' AND guid = '6f1c2a40-0000-4000-8000-000000000001'"),
                     1);
    /* typed fields and host are not repeated in value; the rest (dur.n) are there */
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE event_id = 1"), 1);
    assert_int_equal(q_int(db, "SELECT value FROM value WHERE event_id = 1 AND name='dur.n'"), 5);
    assert_int_equal(q_int(db, "SELECT count(*) FROM ident WHERE event_id = 1"), 2);
    /* stalled: no rate (0/0), busy 0; span=later kept as text */
    assert_int_equal(q_int(db, "SELECT CASE WHEN rate IS NULL AND busy = 0 AND mean_dur IS NULL "
                               "THEN 1 ELSE 0 END FROM summary WHERE event_id = 2"),
                     1);
    assert_int_equal(q_int(db, "SELECT CASE WHEN span IS NULL THEN 1 ELSE 0 END FROM summary "
                               "WHERE event_id = 2"),
                     1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE event_id = 2 AND name = 'span' "
                               "AND value = 'later'"),
                     1);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Type-7 quantile of a sorted array, written out independently of the library. */
static double quantile7(const double *s, int n, double u)
{
    double h = (n - 1) * u;
    int lo = (int)h;
    return lo + 1 < n ? s[lo] + (h - lo) * (s[lo + 1] - s[lo]) : s[lo];
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void expect_stats(double *x, int n, const nll_base_t *b)
{
    double mean = 0, ss = 0;
    for (int i = 0; i < n; i++) mean += x[i];
    mean /= n;
    for (int i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    qsort(x, (size_t)n, sizeof *x, cmp_dbl);
    assert_int_equal(b->n, n);
    assert_true(fabs(b->mean - mean) <= 1e-9 * fabs(mean));
    assert_true(fabs(b->sd - sqrt(ss / (n - 1))) <= 1e-7 * sqrt(ss / (n - 1)));
    assert_true(fabs(b->p5 - quantile7(x, n, 0.05)) <= 1e-9 * fabs(b->p5));
    assert_true(fabs(b->p50 - quantile7(x, n, 0.5)) <= 1e-9 * fabs(b->p50));
    assert_true(fabs(b->p95 - quantile7(x, n, 0.95)) <= 1e-9 * fabs(b->p95));
}

static double seen_ts[8];
/* nll_base_values visitor: oldest to newest, only the newest ones */
static void collect(void *ctx, double ts, double x)
{
    int *n = ctx;
    (void)x;
    seen_ts[*n] = ts;
    if (*n > 0) assert_true(ts > seen_ts[*n - 1]);
    assert_true(ts >= 1795348800.0 + 2 * 3600 - 30); /* the last three of gw1 */
    (*n)++;
}

/* Outcomes (issue 64): err.n has a column, err_ratio is err.n per pair (NULL without a
 * count: summaries from before say nothing, not 0), the class counts stay in `value`, and
 * nl-baseline's err.ratio is their baseline. */
static void test_outcomes_archived(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "o.db", 0);
    const char *lines[] = {
        "ts=2026-11-22T12:00:01.000000Z event=request.summary level=Info host=gw1 route=/a "
        "n=20 err.n=5 res.2xx=14 res.4xx=1 res.5xx=5 dur.sum=1 int=1",
        "ts=2026-11-22T12:00:02.000000Z event=request.summary level=Info host=gw1 route=/a "
        "n=10 err.n=0 res.n=8 res.2xx=8 dur.sum=1 int=1",
        "ts=2026-11-22T12:00:03.000000Z event=request.summary level=Info host=gw1 route=/a "
        "n=8 err.n=2 res.5xx=2 res.2xx=6 dur.sum=1 int=1",
        "ts=2026-11-22T12:00:04.000000Z event=request.summary level=Info host=gw1 n=4 "
        "dur.sum=1 int=1", /* no results counted */
    };
    assert_int_equal(load_lines(db, lines, 4), 4);
    assert_int_equal(q_int(db, "SELECT err_n FROM summary WHERE event_id = 1"), 5);
    assert_true(q_dbl(db, "SELECT err_ratio FROM summary WHERE event_id = 1") == 0.25);
    assert_true(q_dbl(db, "SELECT err_ratio FROM summary WHERE event_id = 2") == 0);
    assert_int_equal(q_int(db, "SELECT err_n FROM summary WHERE event_id = 4"), -1);
    assert_int_equal(q_int(db, "SELECT CASE WHEN err_ratio IS NULL THEN 1 ELSE 0 END FROM "
                               "summary WHERE event_id = 4"),
                     1);
    assert_int_equal(q_int(db, "SELECT num FROM value WHERE event_id = 1 AND name = 'res.5xx'"), 5);
    assert_int_equal(q_int(db, "SELECT num FROM value WHERE event_id = 2 AND name = 'res.n'"), 8);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name = 'err.n'"), 0);
    nll_base_q_t q;
    nll_base_t b;
    nll_err_t err;
    nll_base_q_init(&q, "request.summary", "err.ratio");
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    double x[] = {0.25, 0, 0.25};
    expect_stats(x, 3, &b);
    nll_base_q_init(&q, "request.summary", "err.n");
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    assert_int_equal(b.n, 3);
    assert_true(fabs(b.mean - 7.0 / 3) < 1e-12);
    nll_db_close(db);
    t_rmtree(dir);
}

static void test_baselines(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "b.db", 0);
    enum { T = 2 * 3600, STEP = 10 }; /* two hours, a summary every 10 s per host */
    int n = 0;
    char **lines = calloc(2 * T / STEP, sizeof *lines);
    static double rate_gw1[T / STEP], rate_gw1_h13[T / STEP], busy_all[2 * T / STEP];
    int n1 = 0, n13 = 0, nall = 0;
    uint64_t rs = 5;
    for (int t = 0; t < T; t += STEP)
        for (int h = 1; h <= 2; h++) {
            double dur = 0.2 + (double)(t_rand(&rs) % 600) / 1000.0;
            double v = 1e6 * (double)(1 + t_rand(&rs) % 400);
            char ts[NL_TS_LEN + 1], buf[256];
            nl_ts_format(1795348800000000LL + (int64_t)t * 1000000, ts); /* from 12:00 UTC */
            char ds[40], vs[40];
            nl__dtoa(dur, ds);
            nl__dtoa(v, vs);
            snprintf(buf, sizeof buf,
                     "ts=%s event=x.summary level=Info host=gw%d n=3 dur.sum=%s v.sum=%s int=%d",
                     ts, h, ds, vs, STEP);
            lines[n++] = strdup(buf);
            double x_dur, x_v; /* what the database holds: the values read back from text */
            nl__strtod(ds, strlen(ds), &x_dur);
            nl__strtod(vs, strlen(vs), &x_v);
            if (h == 1) rate_gw1[n1++] = x_v / x_dur;
            if (h == 1 && t >= 3600) rate_gw1_h13[n13++] = x_v / x_dur;
            busy_all[nall++] = x_dur / STEP;
        }
    assert_int_equal(load_lines(db, (const char *const *)lines, n), n);
    for (int i = 0; i < n; i++) free(lines[i]);
    free(lines);

    nll_base_q_t q;
    nll_base_t b;
    nll_err_t err;
    nll_base_q_init(&q, "x.summary", "rate");
    q.host = "gw1";
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    expect_stats(rate_gw1, n1, &b);
    q.hour = 13; /* 12:00-14:00 UTC: the second hour */
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    expect_stats(rate_gw1_h13, n13, &b);
    q.hour = -1;
    q.since = 1795348800.0 + 3600; /* the same by period */
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    expect_stats(rate_gw1_h13, n13, &b);
    nll_base_q_init(&q, "x.summary", "busy");
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    expect_stats(busy_all, nall, &b);
    /* the SQL views agree with nll_base_get */
    nll_base_q_init(&q, "x.summary", "rate");
    q.host = "gw1";
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    const char *cols[] = {"n", "mean", "sd", "p5", "p50", "p95"};
    double want[] = {(double)b.n, b.mean, b.sd, b.p5, b.p50, b.p95};
    for (int k = 0; k < 6; k++) {
        char sql[200];
        snprintf(sql, sizeof sql,
                 "SELECT %s FROM baseline_host WHERE period='all' AND event='x.summary' AND "
                 "host='gw1' AND metric='rate'",
                 cols[k]);
        assert_true(fabs(q_dbl(db, sql) - want[k]) <= 1e-9 * fabs(want[k]));
    }
    assert_int_equal(q_int(db, "SELECT n FROM baseline_hour WHERE period='all' AND hour=13 AND "
                               "metric='busy'"),
                     2 * 3600 / STEP);
    /* nothing selected: n = 0, no error */
    nll_base_q_init(&q, "nope.summary", "rate");
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    assert_int_equal(b.n, 0);
    nll_base_q_init(&q, "x.summary", "bogus");
    assert_int_equal(nll_base_get(db, &q, &b, &err), NL_EINVAL);
    assert_non_null(strstr(err.msg, "bogus"));
    /* newest values first-to-last for seeding a history */
    int got = 0;
    nll_base_q_init(&q, "x.summary", "rate");
    q.host = "gw1";
    assert_int_equal(nll_base_values(db, &q, 3, collect, &got, NULL, &err), 0);
    assert_int_equal(got, 3);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Percentiles over many summaries from the archive: the dur.h histograms of 3 hosts x 20
 * intervals merged (nll_base_pct) give exactly the percentiles of one histogram of every
 * duration, over all hosts, one host, and a time range; a damaged histogram is left out
 * and counted. Also: the summary's percentile columns are filled. */
static void test_percentile_merge(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "pct.db", 0);
    enum { HOSTS = 3, IVS = 20 };
    nl__hist_t all = {0}, host1 = {0}, late = {0};
    double lo = INFINITY, hi = 0;
    uint64_t rs = 5;
    char *lines[HOSTS * IVS + 1];
    int nl = 0;
    for (int iv = 0; iv < IVS; iv++)
        for (int h = 0; h < HOSTS; h++) {
            nl__hist_t one = {0};
            double mn = INFINITY, mx = 0;
            for (int k = 0; k < 500; k++) {
                double u = t_unit(&rs) + 1e-9, d = 1e-4 * pow(u, -1 / (1.2 + h * 0.3));
                nl__hist_add(&one, d);
                nl__hist_add(&all, d);
                if (h == 1) nl__hist_add(&host1, d);
                if (iv >= 10) nl__hist_add(&late, d);
                mn = fmin(mn, d);
                mx = fmax(mx, d);
            }
            lo = fmin(lo, mn);
            hi = fmax(hi, mx);
            nl_buf_t b;
            nl_buf_init(&b, NULL, 0);
            nl_enc_begin(&b, 1795348800000000LL + iv * 1000000LL, "x.summary", NL_LVL_INFO, "g");
            char host[8];
            snprintf(host, sizeof host, "h%d", h);
            nl_enc_str(&b, "host", host, strlen(host));
            nl_enc_i64(&b, "n", 500);
            nl_enc_dbl(&b, "dur.min", mn);
            nl_enc_dbl(&b, "dur.max", mx);
            nl_enc_dbl(&b, "dur.p50", nl__hist_quantile(&one, 0.5, mn, mx));
            nl_buf_t hb;
            nl_buf_init(&hb, NULL, 0);
            nl__hist_put(&hb, &one);
            nl_enc_str(&b, "dur.h", hb.p, hb.len);
            nl_buf_free(&hb);
            assert_int_equal(nl_enc_end(&b), 0);
            lines[nl++] = strndup(b.p, b.len - 1);
            nl_buf_free(&b);
            nl__hist_free(&one);
        }
    lines[nl++] = strdup("ts=2026-11-22T12:00:30Z event=x.summary level=Info host=h9 n=1 "
                         "dur.min=1 dur.max=1 dur.h=5:0"); /* damaged: count 0 */
    assert_int_equal(load_lines(db, (const char *const *)lines, nl), nl);
    for (int i = 0; i < nl; i++) free(lines[i]);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary WHERE dur_p50 > 0"), HOSTS * IVS);
    struct {
        const char *host;
        double since;
        const nl__hist_t *want;
        int64_t summaries;
    } cases[] = {{NULL, -INFINITY, &all, HOSTS * IVS},
                 {"h1", -INFINITY, &host1, IVS},
                 {NULL, 1795348800.0 + 10, &late, HOSTS * IVS / 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        nll_base_q_t q;
        nll_base_q_init(&q, "x.summary", "rate");
        q.host = cases[c].host;
        q.since = cases[c].since;
        nll_pct_t p;
        nll_err_t err;
        assert_int_equal(nll_base_pct(db, &q, "dur", &p, &err), 0);
        assert_int_equal(p.summaries, cases[c].summaries);
        assert_int_equal(p.unreadable, c == 1 ? 0 : 1);
        assert_int_equal(p.h.n, cases[c].want->n);
        for (double x = 0; x <= 1.0; x += 0.0005)
            if (nl__hist_quantile(&p.h, x, -INFINITY, INFINITY) !=
                nl__hist_quantile(cases[c].want, x, -INFINITY, INFINITY))
                fail_msg("case %zu, q=%g: the merge differs from one histogram", c, x);
        if (c == 0) {
            assert_true(p.lo == lo && p.hi == hi);
        }
        nl__hist_free(&p.h);
    }
    nll_base_q_t q;
    nll_base_q_init(&q, "x.summary", "rate");
    nll_pct_t p;
    nll_err_t err;
    assert_int_equal(nll_base_pct(db, &q, "r", &p, &err), NL_EINVAL);
    nl__hist_free(&all);
    nl__hist_free(&host1);
    nl__hist_free(&late);
    nll_db_close(db);
    t_rmtree(dir);
}

/* A derived value past a double's range (v.sum 1e149 over dur.sum 1e-300: the rate is
 * infinite) is left out of the metric views and of nll_base_get, so a baseline stays
 * finite instead of reading inf. */
static void test_infinite_rate_left_out(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "inf.db", 0);
    const char *lines[] = {
        "ts=2026-11-22T12:00:00Z event=y.summary level=Info host=a n=1 dur.sum=1e-300 "
        "v.sum=1e149 int=1",
        "ts=2026-11-22T12:00:01Z event=y.summary level=Info host=a n=1 dur.sum=0.5 v.sum=100 int=1",
        "ts=2026-11-22T12:00:02Z event=y.summary level=Info host=a n=1 dur.sum=0.25 v.sum=100 "
        "int=1",
    };
    assert_int_equal(load_lines(db, lines, 3), 3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary_metric WHERE metric = 'rate'"), 2);
    assert_true(q_dbl(db, "SELECT max(p50) FROM baseline WHERE period = 'all' AND event = "
                          "'y.summary' AND metric = 'rate'") == 300);
    nll_base_q_t q;
    nll_base_q_init(&q, "y.summary", "rate");
    nll_base_t b;
    nll_err_t err;
    assert_int_equal(nll_base_get(db, &q, &b, &err), 0);
    assert_int_equal(b.n, 2);
    assert_true(b.p50 == 300 && isfinite(b.mean));
    nll_db_close(db);
    t_rmtree(dir);
}

static void test_upgrade_from_v1(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "old.db", 1);
    int v;
    nll_err_t err;
    assert_int_equal(nll_db_version(db, &v, &err), 0);
    assert_int_equal(v, 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name='summary'"), 0);
    /* what a version-1 loader stored: summary fields as plain values */
    assert_int_equal(nll_db_exec(db,
                                 "INSERT INTO event VALUES (1, 1795348800.5, 'a.summary', "
                                 "'Info', 2, NULL), (2, 1795348801, 'a.end', 'Info', 1, 0);"
                                 "INSERT INTO value VALUES (1, 'host', 'gw1'), (1, 'n', 4), "
                                 "(1, 'dur.sum', 2.0), (1, 'v.sum', 100), (1, 'int', 1), "
                                 "(1, 'v.max', 'junk'), (2, 'n', 7);"
                                 "INSERT INTO ident VALUES (1, 'guid', 'g-1');",
                                 &err),
                     0);
    nll_db_close(db);
    nll_db_t *ro;
    assert_int_equal(nll_db_open(t_path(dir, "old.db"), NLL_OPEN_READ, 0, &ro, &err), NL_EINVAL);
    assert_non_null(strstr(err.msg, "run nl-load"));
    db = open_db(dir, "old.db", 0); /* upgrades in place */
    assert_int_equal(nll_db_version(db, &v, &err), 0);
    assert_int_equal(v, nll_schema_newest());
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary"), 1);
    assert_int_equal(q_int(db, "SELECT n FROM summary WHERE event_id=1 AND host='gw1' AND "
                               "guid='g-1' AND dur_sum=2 AND v_sum=100 AND interval=1 AND "
                               "rate=50 AND v_max IS NULL"),
                     4);
    /* moved, not copied (host too); non-numbers and non-summary events untouched */
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE event_id=1"), 1);
    assert_int_equal(q_int(db, "SELECT value FROM value WHERE event_id=2 AND name='n'"), 7);
    nll_db_close(db);
    /* a database newer than this build, and one that is not ours, are refused */
    db = open_db(dir, "old.db", 0);
    assert_int_equal(nll_db_exec(db, "INSERT INTO nl_schema VALUES (99, 'future', 0)", &err), 0);
    nll_db_close(db);
    assert_int_equal(nll_db_open(t_path(dir, "old.db"), NLL_OPEN_WRITE, 0, &db, &err), NL_EINVAL);
    assert_non_null(strstr(err.msg, "newer"));
    sqlite3 *raw;
    assert_int_equal(sqlite3_open(t_path(dir, "other.db"), &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    assert_int_equal(nll_db_open(t_path(dir, "other.db"), NLL_OPEN_WRITE, 0, &db, &err), NL_EINVAL);
    assert_non_null(strstr(err.msg, "not an nlkit archive"));
    FILE *f = fopen(t_path(dir, "junk.db"), "w");
    fputs("this is not a database, just some text long enough to be a header........\n", f);
    fclose(f);
    assert_true(nll_db_open(t_path(dir, "junk.db"), NLL_OPEN_WRITE, 0, &db, &err) < 0);
    assert_non_null(strstr(err.msg, "junk.db"));
    t_rmtree(dir);
}

static void test_prune(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "p.db", 0);
    const char *lines[] = {
        "ts=2026-11-01T00:00:00Z event=a.start level=Info guid=g1 x=1",
        "ts=2026-11-01T00:00:01Z event=a.end level=Info guid=g1 x=2",
        "ts=2026-11-01T00:00:02Z event=a.summary level=Info guid=g1 n=1 dur.sum=1 int=1",
        "ts=2026-11-20T00:00:00Z event=a.start level=Info guid=g2 x=3",
    };
    assert_int_equal(load_lines(db, lines, 4), 4);
    int64_t gone;
    nll_err_t err;
    double before;
    assert_int_equal(nll_parse_when("2026-11-10", 0, &before), 0);
    assert_true(before == 1794268800.0);
    assert_int_equal(nll_prune(db, before, &gone, &err), 0);
    assert_int_equal(gone, 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM summary"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM ident WHERE value='g1'"), 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name='x'"), 1);
    assert_int_equal(nll_parse_when("30d", 1e9, &before), 0);
    assert_true(before == 1e9 - 30 * 86400);
    assert_int_equal(nll_parse_when("2026-11-10T12:00:00.5Z", 0, &before), 0);
    assert_true(before == 1794268800.0 + 43200.5);
    assert_int_equal(nll_parse_when("yesterday", 0, &before), NL_ETS);
    nll_db_close(db);
    t_rmtree(dir);
}

/* A statement that fails while it runs says where (the archive) and what it was doing: the
 * layer's "querying", or the caller's own words (nll_sql_context), with the database's
 * reason; the statement can then run again. */
static void test_sql_context(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "ctx.db", 0);
    /* an error at step time, not at prepare time, on each database */
    const char *sql = nll_db_backend(db) == NLL_SQLITE ? "SELECT abs(-9223372036854775807 - ?1)"
                                                       : "SELECT 1 / (?1 - 1)";
    nll_stmt_t *st;
    nll_err_t err;
    assert_int_equal(nll_sql_prepare(db, sql, &st, &err), 0);
    nll_sql_bind_int64(st, 1, 1);
    assert_true(nll_sql_step(st, &err) < 0);
    assert_non_null(strstr(err.msg, nll_db_name(db)));
    assert_non_null(strstr(err.msg, ": querying: "));
    assert_non_null(strstr(err.msg, nll_db_backend(db) == NLL_SQLITE ? "overflow" : "division"));
    nll_sql_reset(st);
    nll_sql_context(st, "reading summaries");
    assert_true(nll_sql_step(st, &err) < 0);
    assert_non_null(strstr(err.msg, ": reading summaries: "));
    assert_null(strstr(err.msg, "querying"));
    nll_sql_reset(st);
    nll_sql_bind_int64(st, 1, 2); /* the same statement again, now without the fault */
    assert_int_equal(nll_sql_step(st, &err), 1);
    assert_int_equal(nll_sql_step(st, &err), 0);
    nll_sql_finalize(st);
    nll_db_close(db);
    t_rmtree(dir);
}

/* Records parsed into one batch (as nl-load's reading thread does: unaligned, one after
 * another) and stored later, in order, give the same rows as line by line. */
static void test_batched_records(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "batch.db", 0);
    const char *lines[] = {
        "ts=2026-11-22T12:00:00Z event=a.start level=Info guid=g1 x=1",
        ("ts=2026-11-22T12:00:01Z event=a.summary level=Info guid=g1 host=h n=3 dur.sum=1.5 "
         "int=1 note=\"odd one\""),
        "not an event",
        "ts=2026-11-22T12:00:02.5Z event=a.end level=Debug guid=g1 stream.id=7 y=0.25 status=0",
    };
    nll_batch_t b = {0};
    nl_rec_t rec;
    nl_perr_t pe;
    nl_rec_init(&rec);
    int stored = 0;
    for (int i = 0; i < 4; i++) {
        int rc = nll_parse_line(&rec, NL_PARSE_STRICT, lines[i], strlen(lines[i]), i + 1, &b, &pe);
        assert_int_equal(rc, i == 2 ? NL_EPARSE : 1);
        stored += rc == 1;
    }
    assert_int_equal(pe.line, 3);
    nll_rows_t *r;
    nll_err_t err;
    assert_int_equal(nll_rows_new(db, NL_PARSE_STRICT, &r, &err), 0);
    size_t pos = 0;
    for (int i = 0; i < stored; i++) assert_int_equal(nll_rows_store(r, &b, &pos, &err), 0);
    assert_int_equal(pos, b.len);
    assert_int_equal(nll_rows_flush(r, &err), 0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 3);
    assert_int_equal(q_int(db, "SELECT n FROM summary WHERE host = 'h' AND guid = 'g1' AND "
                               "dur_sum = 1.5 AND interval = 1"),
                     3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM value WHERE name = 'note' AND "
                               "value = 'odd one'"),
                     1);
    assert_int_equal(q_int(db, "SELECT status FROM event WHERE event = 'a.end' AND level = "
                               "'Debug' AND ts = 1795348802.5"),
                     0);
    assert_int_equal(q_int(db, "SELECT count(*) FROM ident WHERE value IN ('g1', '7')"), 4);
    assert_true(q_dbl(db, "SELECT value FROM value WHERE name = 'y'") == 0.25);
    nll_rows_free(r);
    nll_batch_free(&b);
    nl_rec_free(&rec);
    nll_db_close(db);
    t_rmtree(dir);
}

int main(int argc, char **argv)
{
    if (argc > 1) { /* PostgreSQL: what does not depend on the archive being a SQLite file */
        char *uri = t_slurp(argv[1], NULL);
        if (!uri) {
            fprintf(stderr, "test_load: no PostgreSQL URI in %s\n", argv[1]);
            return 1;
        }
        snprintf(pg_uri, sizeof pg_uri, "%.*s", (int)strcspn(uri, "\n"), uri);
        free(uri);
        const struct CMUnitTest pg[] = {
            cmocka_unit_test(test_netlogger_split),        cmocka_unit_test(test_round_trip),
            cmocka_unit_test(test_summary_typing),         cmocka_unit_test(test_baselines),
            cmocka_unit_test(test_outcomes_archived),      cmocka_unit_test(test_percentile_merge),
            cmocka_unit_test(test_infinite_rate_left_out), cmocka_unit_test(test_prune),
            cmocka_unit_test(test_batched_records),        cmocka_unit_test(test_sql_context),
        };
        return cmocka_run_group_tests(pg, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_netlogger_split),
        cmocka_unit_test(test_conn_names),
        cmocka_unit_test(test_value_type),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_summary_typing),
        cmocka_unit_test(test_baselines),
        cmocka_unit_test(test_outcomes_archived),
        cmocka_unit_test(test_upgrade_from_v1),
        cmocka_unit_test(test_percentile_merge),
        cmocka_unit_test(test_infinite_rate_left_out),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_batched_records),
        cmocka_unit_test(test_sql_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
