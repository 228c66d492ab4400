/* SPDX-License-Identifier: BSD-3-Clause */
/* test_netlogger.c — the archive against NetLogger's own reading of the lines its writer
 * produced (bp-cases/netlogger): every case loaded with the NetLogger reading (what
 * `nl-load --netlogger` does) must archive the fields and values NetLogger reads, or be
 * one of the listed differences, each of which docs/library.md names with its reason. Also:
 * values written NetLogger's way come back from the archive byte for byte, and a summary
 * line written NetLogger's way (every float as %f) loads with its numbers and reaches the
 * baseline views.
 *
 * Arguments: docs/library.md ("Lines NetLogger wrote"), then one or more pegasus-netlogger.jsonl files (the first must
 * exist; the others, the shared originals, are read when present). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bp_cases.h"
#include "nl_test.h"
#include "nll_db_lite.h"

static const char *readme;
static const char *case_files[4];
static int ncase_files;

/* Where the archive differs from NetLogger's reading, found by a piece of the line that
 * README.md quotes too (in backticks) with the reason. */
static const struct {
    const char *in_line;
    const char *what; /* for the message */
} differs[] = {
    {"event=b.many300 ", "303 fields: nlkit reads at most 256 in a line (refused, counted)"},
    {"# ts=", "a line starting with # is a comment in nlkit (not archived)"},
    {"ts=2026-11-22 19:03:18", "a space for the T: NetLogger keeps the date alone; refused"},
};
#define NDIFFERS ((int)(sizeof differs / sizeof differs[0]))

static nll_db_t *open_db(const char *dir, const char *name)
{
    nll_db_t *db;
    nll_err_t err;
    int rc = nll_db_open(t_path(dir, name), NLL_OPEN_WRITE, 0, &db, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    return db;
}

/* Load one line with the NetLogger reading; returns its event id, 0 if it was not an
 * event (a comment), -1 if refused. */
static long long load_one(nll_db_t *db, nll_rows_t *r, const char *line, size_t len)
{
    nll_err_t err;
    nl_perr_t pe;
    assert_int_equal(nll_db_exec(db, "BEGIN", &err), 0);
    int rc = nll_rows_add(r, line, len, 1, &pe, &err);
    assert_int_equal(nll_db_exec(db, "COMMIT", &err), 0);
    return rc == 1 ? (long long)sqlite3_last_insert_rowid(nll_db_sqlite(db)) : rc == 0 ? 0 : -1;
}

/* A timestamp as NetLogger's reader gives it (a string) in UTC microseconds, parsed here
 * on its own so the archive's reading is checked against something else: ISO-8601 with
 * any fraction and Z, z, an offset or no zone (UTC), or epoch seconds. */
static int expected_usec(const char *s, long long *out)
{
    int y, mo, d, h, mi, se, n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) == 6) {
        struct tm tm = {.tm_year = y - 1900,
                        .tm_mon = mo - 1,
                        .tm_mday = d,
                        .tm_hour = h,
                        .tm_min = mi,
                        .tm_sec = se};
        long long usec = (long long)timegm(&tm) * 1000000;
        const char *p = s + n;
        if (*p == '.') {
            long long scale = 100000;
            for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10) usec += (*p - '0') * scale;
        }
        if (*p == '+' || *p == '-') {
            int oh, om;
            if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2) return -1;
            usec -= (*p == '-' ? -1 : 1) * (long long)(oh * 3600 + om * 60) * 1000000;
        } else if (*p && strcmp(p, "Z") && strcmp(p, "z")) {
            return -1;
        }
        *out = usec;
        return 0;
    }
    char *end;
    double e = strtod(s, &end);
    if (end == s || *end) return -1;
    *out = llround(e * 1e6);
    return 0;
}

/* Whether the archive's level is NetLogger's, spelt the archive's way. */
static int same_level(const char *archived, const char *written)
{
    return !strcasecmp(archived, written) ||
           (!strcasecmp(written, "warning") && !strcmp(archived, "Warn"));
}

/* Whether an archived value (as SQLite holds it) is what NetLogger read: the same bytes,
 * or, archived as a number, the same number. */
static int same_value(sqlite3_stmt *st, int col, const char *want, size_t want_len)
{
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_TEXT)
        return (size_t)sqlite3_column_bytes(st, col) == want_len &&
               (!want_len || !memcmp(sqlite3_column_blob(st, col), want, want_len));
    char *end;
    double w = strtod(want, &end);
    if (end == want || *end) return 0;
    double got = type == SQLITE_INTEGER ? (double)sqlite3_column_int64(st, col)
                                        : sqlite3_column_double(st, col);
    return got == w && signbit(got) == signbit(w);
}

/* The expected value of field `name` in case c, or NULL. */
static const char *want_field(const bp_case_t *c, const char *name, size_t *len)
{
    for (int k = 0; k < c->npairs; k++)
        if (!strcmp(c->pname[k], name)) {
            *len = c->pvalue_len[k];
            return c->pvalue[k];
        }
    return NULL;
}

/* Every field of event `id` as archived (event, ident, value and summary rows) against
 * NetLogger's reading; fail_msg with the first difference. */
static void check_archived(nll_db_t *db, long long id, const bp_case_t *c)
{
    sqlite3_stmt *st;
    char sql[512];
    size_t wl = 0;
    int found = 0;
    snprintf(sql, sizeof sql, "SELECT ts, event, level, status FROM event WHERE id = %lld", id);
    assert_int_equal(sqlite3_prepare_v2(nll_db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const char *ts = want_field(c, "ts", &wl);
    long long usec = 0;
    if (!ts || expected_usec(ts, &usec)) fail_msg("%s: no readable ts in the expectation", c->name);
    if (fabs(sqlite3_column_double(st, 0) * 1e6 - (double)usec) > 1)
        fail_msg("%s: ts %.6f, NetLogger's %s", c->name, sqlite3_column_double(st, 0), ts);
    const char *ev = want_field(c, "event", &wl);
    if (!ev || !same_value(st, 1, ev, wl))
        fail_msg("%s: event '%s'", c->name, sqlite3_column_text(st, 1));
    found += 2;
    const char *lv = want_field(c, "level", &wl);
    if (lv || sqlite3_column_type(st, 2) != SQLITE_NULL) {
        if (!lv || sqlite3_column_type(st, 2) == SQLITE_NULL ||
            !same_level((const char *)sqlite3_column_text(st, 2), lv))
            fail_msg("%s: level '%s', NetLogger's '%s'", c->name, sqlite3_column_text(st, 2),
                     lv ? lv : "(none)");
        found++;
    }
    if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
        const char *w = want_field(c, "status", &wl);
        if (!w || !same_value(st, 3, w, wl)) fail_msg("%s: status", c->name);
        found++;
    }
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql,
             "SELECT name, value FROM ident WHERE event_id = %lld UNION ALL "
             "SELECT name, value FROM value WHERE event_id = %lld",
             id, id);
    assert_int_equal(sqlite3_prepare_v2(nll_db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *w = want_field(c, name, &wl);
        if (!w || !same_value(st, 1, w, wl))
            fail_msg("%s: field %s archived as '%s', NetLogger read '%s'", c->name, name,
                     sqlite3_column_text(st, 1), w ? w : "(nothing)");
        found++;
    }
    sqlite3_finalize(st);
    if (found != c->npairs)
        fail_msg("%s: %d fields archived, NetLogger read %d", c->name, found, c->npairs);
}

/* 1 if the piece of a listed difference is quoted in README.md. */
static int readme_lists(const char *text, const char *piece)
{
    char quoted[128];
    snprintf(quoted, sizeof quoted, "`%s`", piece);
    return strstr(text, quoted) != NULL;
}

static void test_cases(void **state)
{
    (void)state;
    size_t rl;
    char *rtext = t_slurp(readme, &rl);
    assert_non_null(rtext);
    for (int k = 0; k < NDIFFERS; k++)
        if (!readme_lists(rtext, differs[k].in_line))
            fail_msg("README.md does not list `%s` (%s)", differs[k].in_line, differs[k].what);
    free(rtext);
    const char *dir = t_tmpdir();
    int files = 0;
    for (int f = 0; f < ncase_files; f++) {
        if (f > 0 && access(case_files[f], R_OK) != 0) continue;
        bp_case_t *cs;
        int n = bp_nlv_load(case_files[f], &cs);
        if (n < 100) fail_msg("%s: only %d cases", case_files[f], n);
        files++;
        char name[32];
        snprintf(name, sizeof name, "nlv%d.db", f);
        nll_db_t *db = open_db(dir, name);
        nll_rows_t *r;
        nll_err_t err;
        assert_int_equal(nll_rows_new(db, NL_PARSE_NETLOGGER, &r, &err), 0);
        int agree = 0, listed = 0, written = 0, written_agree = 0;
        for (int i = 0; i < n; i++) {
            bp_case_t *c = &cs[i];
            written += c->nlv_written;
            long long id = load_one(db, r, c->line, c->line_len);
            int k = 0;
            while (k < NDIFFERS && !strstr(c->line, differs[k].in_line)) k++;
            if (k < NDIFFERS) {
                if (id > 0) fail_msg("%s: listed (%s) but archived now", c->name, differs[k].what);
                listed++;
                continue;
            }
            if (c->nlv_error) {
                if (id >= 0)
                    fail_msg("%s: NetLogger refuses it (%s), nl-load archived it", c->name,
                             c->nlv_error);
            } else {
                if (id <= 0) fail_msg("%s: not archived: %s", c->name, c->line);
                check_archived(db, id, c);
            }
            agree++;
            written_agree += c->nlv_written;
        }
        printf("%s: %d cases; %d archived as NetLogger reads them (%d of the %d NetLogger wrote), "
               "%d listed in README\n",
               case_files[f], n, agree, written_agree, written, listed);
        nll_rows_free(r);
        nll_db_close(db);
        bp_cases_free(cs, n);
    }
    assert_true(files >= 1);
    t_rmtree(dir);
}

/* No value is archived with a byte its writer did not put in it: random values of the
 * bytes that matter, written NetLogger's way, loaded with the NetLogger reading, read back
 * from `value` byte for byte. (A quoted value ending in a backslash with another quote
 * after it cannot be written so that NetLogger reads it back: the last field may.) */
static void test_values_exact(void **state)
{
    (void)state;
    static const char *const atoms[] = {"\\",  "\"",   "=",   " ",        "\t",
                                        "n",   "t",    "x41", "1",        "r",
                                        "\\n", "\\\"", "#",   "\xc3\xa9", "\xe2\x98\x83"};
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "values.db");
    nll_rows_t *r;
    nll_err_t err;
    assert_int_equal(nll_rows_new(db, NL_PARSE_NETLOGGER, &r, &err), 0);
    enum { N = 3000, F = 3 };
    static char vals[N][F][96];
    static size_t vlen[N][F];
    uint64_t rs = 29;
    assert_int_equal(nll_db_exec(db, "BEGIN", &err), 0);
    for (int i = 0; i < N; i++) {
        char line[1024];
        size_t l = (size_t)snprintf(line, sizeof line,
                                    "ts=2026-11-22T19:03:18.195394Z event=b.v level=Info");
        for (int j = 0; j < F; j++) {
            size_t n = 0;
            vals[i][j][n++] = 's'; /* never a number: compared as text */
            for (int a = (int)(t_rand(&rs) % 10); a > 0; a--) {
                const char *at = atoms[t_rand(&rs) % (sizeof atoms / sizeof atoms[0])];
                memcpy(vals[i][j] + n, at, strlen(at));
                n += strlen(at);
            }
            if (j < F - 1 && vals[i][j][n - 1] == '\\') vals[i][j][n++] = 'z';
            vlen[i][j] = n;
            l += (size_t)snprintf(line + l, sizeof line - l, " f%d=", j);
            l += bp_nlv_write_value(line + l, vals[i][j], n);
        }
        nl_perr_t pe;
        assert_int_equal(nll_rows_add(r, line, l, i + 1, &pe, &err), 1);
    }
    assert_int_equal(nll_db_exec(db, "COMMIT", &err), 0);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(nll_db_sqlite(db),
                                        "SELECT event_id, name, value FROM value "
                                        "ORDER BY event_id, name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int i = sqlite3_column_int(st, 0) - 1, j = sqlite3_column_text(st, 1)[1] - '0';
        assert_true(i >= 0 && i < N && j >= 0 && j < F);
        assert_int_equal(sqlite3_column_type(st, 2), SQLITE_TEXT);
        if ((size_t)sqlite3_column_bytes(st, 2) != vlen[i][j] ||
            memcmp(sqlite3_column_blob(st, 2), vals[i][j], vlen[i][j]))
            fail_msg("event %d f%d archived as '%s', written '%.*s'", i + 1, j,
                     sqlite3_column_text(st, 2), (int)vlen[i][j], vals[i][j]);
        rows++;
    }
    sqlite3_finalize(st);
    assert_int_equal(rows, N * F);
    nll_rows_free(r);
    nll_db_close(db);
    t_rmtree(dir);
}

/* A summary line as NetLogger's writer writes it (floats with %f, level in capitals, the
 * guid given twice) loads with its numbers, and its rate and busy share reach the
 * baseline views. */
static void test_summary_line(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    nll_db_t *db = open_db(dir, "sum.db");
    nll_rows_t *r;
    nll_err_t err;
    assert_int_equal(nll_rows_new(db, NL_PARSE_NETLOGGER, &r, &err), 0);
    char line[512];
    for (int i = 0; i < 4; i++) {
        int n = snprintf(line, sizeof line,
                         "ts=2026-11-22T19:0%d:00.000000Z event=disk.write.summary level=INFO "
                         "guid=11111111-2222-4333-8444-555555555555 host=h1 n=10 "
                         "dur.min=0.010000 dur.max=0.200000 dur.sum=%d.000000 "
                         "dur.sd=0.050000 v.min=65536.000000 v.max=65536.000000 "
                         "v.sum=655360.000000 span=4.500000 open=0 int=5.000000 "
                         "guid=3f1b2c4d-5e6f-4a1b-8c2d-0e1f2a3b4c5d",
                         i, i + 1);
        assert_int_equal(load_one(db, r, line, (size_t)n), i + 1);
    }
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(nll_db_sqlite(db),
                                        "SELECT n, dur_sum, interval, rate, busy, guid, host "
                                        "FROM summary ORDER BY ts",
                                        -1, &st, NULL),
                     SQLITE_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_int_equal(sqlite3_column_int(st, 0), 10);
        assert_true(sqlite3_column_double(st, 1) == i + 1.0);
        assert_true(sqlite3_column_double(st, 2) == 5.0);
        assert_true(fabs(sqlite3_column_double(st, 3) - 655360.0 / (i + 1)) < 1e-9);
        assert_true(fabs(sqlite3_column_double(st, 4) - (i + 1) / 5.0) < 1e-12);
        /* the last guid given, as NetLogger keeps it */
        assert_string_equal(sqlite3_column_text(st, 5), "3f1b2c4d-5e6f-4a1b-8c2d-0e1f2a3b4c5d");
        assert_string_equal(sqlite3_column_text(st, 6), "h1");
    }
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(nll_db_sqlite(db),
                                        "SELECT metric, n, mean FROM baseline_all WHERE period = "
                                        "'all' AND grp = 'host' AND event = 'disk.write.summary' "
                                        "AND metric IN ('rate', 'busy') ORDER BY metric",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal(sqlite3_column_text(st, 0), "busy");
    assert_int_equal(sqlite3_column_int(st, 1), 4);
    assert_true(fabs(sqlite3_column_double(st, 2) - 0.5) < 1e-12); /* (1+2+3+4)/5/4 */
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal(sqlite3_column_text(st, 0), "rate");
    assert_int_equal(sqlite3_column_int(st, 1), 4);
    sqlite3_finalize(st);
    /* the level in the archive's spelling, so level = 'Info' finds it */
    assert_int_equal(sqlite3_prepare_v2(nll_db_sqlite(db),
                                        "SELECT count(*) FROM event WHERE level = 'Info'", -1, &st,
                                        NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 4);
    sqlite3_finalize(st);
    nll_rows_free(r);
    nll_db_close(db);
    t_rmtree(dir);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_netlogger DOCS_LIBRARY_MD CASES.jsonl...\n");
        return 2;
    }
    readme = argv[1];
    for (int i = 2; i < argc && ncase_files < 4; i++) case_files[ncase_files++] = argv[i];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_values_exact),
        cmocka_unit_test(test_summary_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
