/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cookbook.c — the loader README's query cookbook, as written there, on both archives:
 * the same recorded half hour (nl-gen-transfers: gw3 slowed from 12:15 to 12:20, one job
 * never ended, plus a trace across two programs) loaded by nl-load into a SQLite file and
 * into PostgreSQL; every numbered query runs on each (its `sql postgresql` variant there
 * when the README gives one) and both must return the same rows, which must be the rows
 * the query is about and, where the README prints its output (from `./nlkit replay`'s
 * archive of the same half hour), the rows printed there.
 *
 *   test_cookbook NL_LOAD NL_GEN_TRANSFERS README PG_URI_FILE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include <libpq-fe.h>

#include "nll.h"
#include "nll_sql.h"

#define MAXQ 16

static const char *load_prog, *gen_prog, *readme_path, *pg_uri_file;
static char *lite_sql[MAXQ], *pg_sql[MAXQ];

/* A query's rows: cells as text, row after row. */
typedef struct rows {
    int n, cols;
    char **cell;
} rows_t;

static rows_t printed[MAXQ]; /* the output the README shows under query N (n = 0: none) */

static void rows_free(rows_t *r)
{
    for (int i = 0; i < r->n * r->cols; i++) free(r->cell[i]);
    free(r->cell);
    *r = (rows_t){0};
}

/* The rows of a table sqlite3 -box printed (from the line after its ├ rule to its └). */
static rows_t parse_box(const char *box, const char *end)
{
    rows_t r = {0};
    const char *at = strstr(box, "\n├");
    assert_true(at && at < end);
    at = strchr(at + 1, '\n') + 1;
    static const char bar[] = "│";
    while (at < end && !strncmp(at, bar, 3)) {
        const char *eol = strchr(at, '\n');
        int c = 0;
        for (const char *cell = at + 3; cell < eol;) {
            const char *next = strstr(cell, bar);
            if (!next || next > eol) break;
            const char *a = cell, *b = next;
            while (a < b && *a == ' ') a++;
            while (b > a && b[-1] == ' ') b--;
            r.cell =
                realloc(r.cell, sizeof *r.cell * (size_t)(r.n * (r.cols ? r.cols : 64) + c + 1));
            assert_non_null(r.cell);
            r.cell[r.n * (r.cols ? r.cols : 0) + c] = strndup(a, (size_t)(b - a));
            c++;
            cell = next + 3;
        }
        if (!r.cols) r.cols = c;
        assert_int_equal(c, r.cols);
        r.n++;
        at = eol + 1;
    }
    return r;
}

/* The trace of cookbook query 8. */
static const char trace[] = "4bf92f3577b34da6a3ce929d0e0e4736";

/* Run sql on the archive at uri; its rows. The query's :trace (psql: :'trace') is the
 * trace above. */
static rows_t run(const char *uri, const char *sql_in)
{
    char sql[8192], *o = sql;
    for (const char *s = sql_in; *s && o < sql + sizeof sql - 64;) {
        if (!strncmp(s, ":'trace'", 8) || !strncmp(s, ":trace", 6)) {
            o += sprintf(o, "'%s'", trace);
            s += s[1] == '\'' ? 8 : 6;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    nll_db_t *db;
    nll_err_t err;
    nll_stmt_t *st;
    if (nll_db_open(uri, NLL_OPEN_READ, 0, &db, &err)) fail_msg("%s", err.msg);
    if (nll_sql_prepare(db, sql, &st, &err)) fail_msg("%s\n%s", err.msg, sql);
    rows_t r = {0};
    int rc;
    while ((rc = nll_sql_step(st, &err)) == 1) {
        r.cols = nll_sql_col_count(st);
        r.cell = realloc(r.cell, sizeof *r.cell * (size_t)(r.n + 1) * (size_t)r.cols);
        assert_non_null(r.cell);
        for (int c = 0; c < r.cols; c++)
            r.cell[r.n * r.cols + c] = strdup(nll_sql_col_text(st, c, NULL));
        r.n++;
    }
    if (rc < 0) fail_msg("%s\n%s", err.msg, sql);
    nll_sql_finalize(st);
    nll_db_close(db);
    return r;
}

/* Two cells agree: the same text, or the same number (the two databases sum in their own
 * order and print doubles their own way: 97.0 and 97.00000000000001). */
static int same(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 1;
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (ea == a || eb == b || *ea || *eb) return 0;
    return fabs(x - y) <= 1e-9 * fmax(1, fmax(fabs(x), fabs(y)));
}

/* The numbered queries of the README's cookbook: each ```sql block that starts with
 * "-- N."; a ```sql postgresql block is query N's variant for PostgreSQL. */
static void read_cookbook(void)
{
    char *text = t_slurp(readme_path, NULL);
    assert_non_null(text);
    char *at = strstr(text, "## Query cookbook");
    assert_non_null(at);
    char *stop = strstr(at + 1, "\n## ");
    while ((at = strstr(at, "\n```sql")) && (!stop || at < stop)) {
        at += 7;
        int pg = !strncmp(at, " postgresql", 11);
        char *body = strchr(at, '\n'), *end = body ? strstr(body, "\n```") : NULL;
        assert_non_null(end);
        int n = 0;
        if (sscanf(body + 1, "-- %d.", &n) == 1 && n > 0 && n < MAXQ) {
            char **slot = pg ? &pg_sql[n] : &lite_sql[n];
            assert_null(*slot); /* one of each per number */
            *slot = strndup(body + 1, (size_t)(end - body - 1));
            /* its printed output: a box before the next heading */
            char *box = strstr(end + 4, "\n```\n┌"), *head = strstr(end + 4, "\n### ");
            if (!pg && box && (!head || box < head) && (!stop || box < stop)) {
                char *box_end = strstr(box + 5, "\n```");
                assert_non_null(box_end);
                printed[n] = parse_box(box + 5, box_end);
            }
        }
        at = end + 4;
    }
    free(text);
}

/* The recorded half hour as `./nlkit replay` loads it (a day earlier: "yesterday"), and
 * two programs of one trace. */
static void write_data(const char *path)
{
    t_child_t c = {.out = path};
    const char *args[] = {"1800", "4", NULL};
    assert_int_equal(t_run(gen_prog, &c, args), 0);
    size_t len;
    char *text = t_slurp(path, &len);
    assert_non_null(text);
    for (char *l = text; l && l < text + len; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (!strncmp(l, "ts=2026-11-22", 13)) l[12] = '1';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    free(text);
    assert_non_null(f);
    static const char *const ev[] = {"job.run.start", "task.step", "job.run.end"};
    static const char *const prog[] = {"parent", "child", "parent"};
    static const char *const span[] = {"a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2", "a1a1a1a1a1a1a1a1"};
    static const char *const parent[] = {"00f067aa0ba902b7", "a1a1a1a1a1a1a1a1",
                                         "00f067aa0ba902b7"};
    for (int i = 0; i < 3; i++)
        fprintf(f,
                "ts=2026-11-21T12:31:0%d.250000Z event=%s level=Info "
                "guid=9e0f0000-0000-4000-8000-00000000000%d trace.id=%s span.id=%s "
                "parent.span.id=%s prog=%s host=gw%d\n",
                i, ev[i], i == 1 ? 2 : 1, trace, span[i], parent[i], prog[i], i == 1 ? 2 : 1);
    assert_int_equal(fclose(f), 0);
}

/* A fresh schema on the test server, and the URI that uses it. */
static const char *pg_archive(void)
{
    static char uri[700];
    char *base = t_slurp(pg_uri_file, NULL);
    assert_non_null(base);
    base[strcspn(base, "\n")] = '\0';
    PGconn *c = PQconnectdb(base);
    if (PQstatus(c) != CONNECTION_OK) fail_msg("%s: %s", base, PQerrorMessage(c));
    PGresult *r = PQexec(c, "SET client_min_messages = warning; DROP SCHEMA IF EXISTS cookbook "
                            "CASCADE; CREATE SCHEMA cookbook");
    if (PQresultStatus(r) != PGRES_COMMAND_OK) fail_msg("%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    snprintf(uri, sizeof uri, "%s&options=-csearch_path%%3Dcookbook", base);
    free(base);
    return uri;
}

/* Row i, column c of r. */
#define CELL(r, i, c) ((r).cell[(i) * (r).cols + (c)])

/* What each query is about, on the recorded half hour: checked on SQLite's rows (the
 * PostgreSQL rows are checked equal to them). */
static void expect_meaning(int q, const rows_t *r)
{
    assert_true(r->n > 0);
    switch (q) {
    case 1: /* gw3, slowed for five minutes, is the slowest host */
        assert_string_equal(CELL(*r, 0, 0), "gw3");
        break;
    case 2: /* one day, four hosts */
        assert_int_equal(r->n, 4);
        assert_string_equal(CELL(*r, 0, 0), "2026-11-21");
        break;
    case 3: /* the one job that never ended: started at 12:20 */
        assert_int_equal(r->n, 1);
        assert_string_equal(CELL(*r, 0, 1), "job.run");
        assert_non_null(strstr(CELL(*r, 0, 0), "12:20:00"));
        break;
    case 4: /* gw3's five slow minutes, and no other */
        assert_int_equal(r->n, 5);
        for (int i = 0; i < 5; i++) {
            char want[8];
            snprintf(want, sizeof want, "12:1%d", 5 + i);
            assert_string_equal(CELL(*r, i, 0), "gw3");
            assert_string_equal(CELL(*r, i, 1), want);
        }
        break;
    case 6: /* the four metrics */ assert_int_equal(r->n, 4); break;
    case 8: /* the trace's three events, parent and child */
        assert_int_equal(r->n, 3);
        assert_string_equal(CELL(*r, 1, 1), "task.step");
        assert_string_equal(CELL(*r, 1, 2), "child");
        break;
    default: break;
    }
}

static void test_cookbook_on_both_archives(void **state)
{
    (void)state;
    read_cookbook();
    int nq = 0;
    for (int q = 1; q < MAXQ; q++) nq += lite_sql[q] != NULL;
    assert_true(nq >= 6);
    const char *dir = t_tmpdir();
    char data[512], lite[512];
    snprintf(data, sizeof data, "%s", t_path(dir, "events.log"));
    snprintf(lite, sizeof lite, "%s", t_path(dir, "cookbook.db"));
    write_data(data);
    const char *pg = pg_archive();
    t_child_t none = {0};
    const char *a1[] = {"-q", "-d", lite, data, NULL};
    assert_int_equal(t_run(load_prog, &none, a1), 0);
    const char *a2[] = {"-q", "-d", pg, data, NULL};
    assert_int_equal(t_run(load_prog, &none, a2), 0);
    int variants = 0, shown = 0;
    for (int q = 1; q < MAXQ; q++) {
        if (!lite_sql[q]) {
            assert_null(pg_sql[q]); /* a variant of a query that is not there */
            continue;
        }
        variants += pg_sql[q] != NULL;
        rows_t a = run(lite, lite_sql[q]), b = run(pg, pg_sql[q] ? pg_sql[q] : lite_sql[q]);
        expect_meaning(q, &a);
        if (printed[q].n) { /* what the README shows is what SQLite prints */
            if (printed[q].n != a.n || printed[q].cols != a.cols)
                fail_msg("query %d: the README shows %d rows of %d, SQLite returns %d of %d", q,
                         printed[q].n, printed[q].cols, a.n, a.cols);
            for (int i = 0; i < a.n * a.cols; i++)
                if (strcmp(printed[q].cell[i], a.cell[i]))
                    fail_msg("query %d, row %d, column %d: the README shows %s, SQLite returns %s",
                             q, i / a.cols + 1, i % a.cols + 1, printed[q].cell[i], a.cell[i]);
            shown++;
        }
        if (a.n != b.n || a.cols != b.cols)
            fail_msg("query %d: SQLite %d rows of %d, PostgreSQL %d rows of %d", q, a.n, a.cols,
                     b.n, b.cols);
        for (int i = 0; i < a.n * a.cols; i++)
            if (!same(a.cell[i], b.cell[i]))
                fail_msg("query %d, row %d, column %d: SQLite %s, PostgreSQL %s", q, i / a.cols + 1,
                         i % a.cols + 1, a.cell[i], b.cell[i]);
        fprintf(stderr, "    query %d: %d row(s), the same on both%s\n", q, a.n,
                pg_sql[q] ? " (its PostgreSQL variant)" : "");
        rows_free(&a);
        rows_free(&b);
    }
    fprintf(stderr,
            "    %d queries, %d with a PostgreSQL variant, %d outputs as the README shows\n", nq,
            variants, shown);
    assert_true(shown >= 6);
    for (int q = 0; q < MAXQ; q++) free(lite_sql[q]), free(pg_sql[q]), rows_free(&printed[q]);
    t_rmtree(dir);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s NL_LOAD NL_GEN_TRANSFERS README PG_URI_FILE\n", argv[0]);
        return 2;
    }
    load_prog = argv[1], gen_prog = argv[2], readme_path = argv[3], pg_uri_file = argv[4];
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cookbook_on_both_archives)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
