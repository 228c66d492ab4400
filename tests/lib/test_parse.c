/* SPDX-License-Identifier: BSD-3-Clause */
/* test_parse.c — the line parser against the conformance cases (every one of them, from
 * tests/data/bp-cases and, when present, ../shared/bp-cases), NetLogger-style input, the
 * lines NetLogger's own writer produced read as NetLogger's reader reads them
 * (bp-cases/netlogger), values written NetLogger's way read back byte for byte, lenient
 * recovery, error positions, and hostile input read from exact-size buffers so the
 * sanitizer build catches any read past the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp_cases.h"
#include "nl_test.h"
#include "nlkit/nl_bp.h"

static const char *case_dirs[4];
static int ncase_dirs;

/* Parse from a malloc'd copy of exactly len bytes (no terminator to lean on). */
static int parse_exact(nl_rec_t *rec, const char *line, size_t len, unsigned flags, nl_perr_t *err,
                       char **keep)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, line, len);
    int rc = nl_parse(rec, copy, len, 42, flags, err);
    *keep = copy; /* fields point into it */
    return rc;
}

static void check_fields(const bp_case_t *c, const nl_rec_t *rec)
{
    if (rec->n != c->npairs) fail_msg("%s: %d fields, want %d", c->name, rec->n, c->npairs);
    for (int k = 0; k < c->npairs; k++) {
        const nl_field_t *f = &rec->f[k];
        if (f->name_len != strlen(c->pname[k]) || memcmp(f->name, c->pname[k], f->name_len))
            fail_msg("%s: field %d is '%.*s', want '%s'", c->name, k, (int)f->name_len, f->name,
                     c->pname[k]);
        if (f->value_len != c->pvalue_len[k] || memcmp(f->value, c->pvalue[k], f->value_len))
            fail_msg("%s: field %s = '%.*s', want '%s'", c->name, c->pname[k], (int)f->value_len,
                     f->value, c->pvalue[k]);
    }
}

static void test_bp_valid(void **state)
{
    (void)state;
    nl_rec_t rec, rec2;
    nl_rec_init(&rec);
    nl_rec_init(&rec2);
    for (int d = 0; d < ncase_dirs; d++) {
        bp_case_t *cs;
        int n = bp_cases_load(case_dirs[d], 1, &cs);
        if (n < 19) fail_msg("%s: only %d valid cases loaded", case_dirs[d], n);
        for (int i = 0; i < n; i++) {
            bp_case_t *c = &cs[i];
            for (unsigned mode = 0; mode < 2; mode++) {
                nl_perr_t err;
                char *keep;
                int rc = parse_exact(&rec, c->line, c->line_len, mode, &err, &keep);
                if (rc != 1)
                    fail_msg("%s (%s): rejected at col %d: %s", c->name,
                             mode ? "lenient" : "strict", err.col, err.msg);
                check_fields(c, &rec);
                assert_int_equal(rec.recovered, 0);
                /* the encoder writes these fields back so that they parse the same */
                nl_buf_t b;
                nl_buf_init(&b, NULL, 0);
                for (int k = 0; k < rec.n; k++) {
                    char name[NL_NAME_MAX + 1];
                    memcpy(name, rec.f[k].name, rec.f[k].name_len);
                    name[rec.f[k].name_len] = '\0';
                    nl_enc_str(&b, name, rec.f[k].value, rec.f[k].value_len);
                }
                assert_int_equal(nl_enc_end(&b), 0);
                assert_int_equal(nl_parse(&rec2, b.p, b.len, 1, 0, NULL), 1);
                check_fields(c, &rec2);
                nl_buf_free(&b);
                free(keep);
            }
        }
        bp_cases_free(cs, n);
    }
    nl_rec_free(&rec);
    nl_rec_free(&rec2);
}

static void test_bp_invalid(void **state)
{
    (void)state;
    nl_rec_t rec;
    nl_rec_init(&rec);
    for (int d = 0; d < ncase_dirs; d++) {
        bp_case_t *cs;
        int n = bp_cases_load(case_dirs[d], 0, &cs);
        if (n < 14) fail_msg("%s: only %d invalid cases loaded", case_dirs[d], n);
        for (int i = 0; i < n; i++) {
            bp_case_t *c = &cs[i];
            nl_perr_t err;
            char *keep;
            int rc = parse_exact(&rec, c->line, c->line_len, NL_PARSE_STRICT, &err, &keep);
            if (rc >= 0) fail_msg("%s (%s) was accepted", c->name, c->why);
            assert_int_equal(err.line, 42);
            if (err.col < 1 || (size_t)err.col > c->line_len)
                fail_msg("%s: column %d outside the line", c->name, err.col);
            assert_true(err.msg[0] != '\0');
            free(keep);
            /* lenient and NetLogger readings may recover, but must stay inside the line */
            for (unsigned mode = NL_PARSE_LENIENT; mode <= NL_PARSE_NETLOGGER; mode++) {
                rc = parse_exact(&rec, c->line, c->line_len, mode, &err, &keep);
                assert_true(rc == 1 || rc < 0);
                free(keep);
            }
        }
        bp_cases_free(cs, n);
    }
    nl_rec_free(&rec);
}

/* Exact positions and codes for a few cases, so messages point where the problem is. */
static void test_error_positions(void **state)
{
    (void)state;
    struct {
        const char *line;
        int code, col;
    } cases[] = {
        {"ts=2026-11-22T12:00:00Z event=x msg=\"unterminated", NL_EPARSE, 37},
        {"ts=2026-11-22T12:00:00Z event=x a=1 a=2", NL_EDUP, 37},
        {"ts=2026-11-22T12:00:00Z event=x =value", NL_ENAME, 33},
        {"ts=2026-11-22T12:00:00Z event=x novalue", NL_EPARSE, 33},
        {"ts=2026-11-22T12:00:00Z event=x q=\"a\\qb\"", NL_EPARSE, 37},
        {"ts=yesterday event=x", NL_ETS, 4},
        {"event=x guid=g", NL_EMISSING, 1},
        {"ts=2026-11-22T12:00:00Z event=x a=\"1\"b=2", NL_EPARSE, 38},
    };
    nl_rec_t rec;
    nl_rec_init(&rec);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nl_perr_t err;
        int rc = nl_parse(&rec, cases[i].line, strlen(cases[i].line), 7, 0, &err);
        if (rc != cases[i].code || err.col != cases[i].col)
            fail_msg("'%s': got %d at col %d (%s), want %d at col %d", cases[i].line, rc, err.col,
                     err.msg, cases[i].code, cases[i].col);
        assert_int_equal(err.line, 7);
    }
    nl_rec_free(&rec);
}

static void test_netlogger_style(void **state)
{
    (void)state;
    nl_rec_t rec;
    nl_rec_init(&rec);
    const char *nl_line =
        "ts=2006-12-08T18:48:27.598448Z event=gridftp.transfer.end level=Info "
        "guid=7d9b2ea4-8751-11db-a7a3-0017f2e2c3b8 host=dc1.lbl.gov prog=gridftp "
        "nbytes=1073741824 msg=\"file \\\"a b\\\" done\" url=gsiftp://h/x?y=1\r\n";
    assert_int_equal(nl_parse(&rec, nl_line, strlen(nl_line), 1, 0, NULL), 1);
    assert_int_equal(rec.n, 9);
    assert_true(nl_field_is(nl_rec_get(&rec, "msg"), "file \"a b\" done"));
    assert_true(nl_field_is(nl_rec_get(&rec, "url"), "gsiftp://h/x?y=1"));
    assert_true(nl_field_is(&rec.f[rec.i_event], "gridftp.transfer.end"));
    assert_true(nl_field_is(&rec.f[rec.i_level], "Info"));
    assert_int_equal(nl_level_parse(rec.f[rec.i_level].value, rec.f[rec.i_level].value_len),
                     NL_LVL_INFO);
    assert_int_equal(rec.ts_usec, 1165603707598448LL);
    /* zero copy: unescaped values point into the line */
    const nl_field_t *h = nl_rec_get(&rec, "host");
    assert_true(h->value > nl_line && h->value < nl_line + strlen(nl_line));
    /* comments and blank lines are not events, and not errors */
    assert_int_equal(nl_parse(&rec, "# a comment", 11, 2, 0, NULL), 0);
    assert_int_equal(nl_parse(&rec, "   \n", 4, 3, 0, NULL), 0);
    assert_int_equal(nl_parse(&rec, "", 0, 4, 0, NULL), 0);
    /* runs of spaces between fields are tolerated */
    assert_int_equal(nl_parse(&rec, "ts=1  event=x   a=1", 19, 5, 0, NULL), 1);
    assert_int_equal(rec.n, 3);
    nl_rec_free(&rec);
}

static void test_lenient_recovery(void **state)
{
    (void)state;
    nl_rec_t rec;
    nl_rec_init(&rec);
    const char *l = "ts=2026-11-22T12:00:00Z event=x q=\"a\\qb\" junk a=1 a=2 =v c=\"x\"y d=\"open";
    assert_true(nl_parse(&rec, l, strlen(l), 1, NL_PARSE_STRICT, NULL) < 0);
    assert_int_equal(nl_parse(&rec, l, strlen(l), 1, NL_PARSE_LENIENT, NULL), 1);
    assert_true(nl_field_is(nl_rec_get(&rec, "q"), "a\\qb"));
    assert_true(nl_field_is(nl_rec_get(&rec, "a"), "2")); /* last kept, as NetLogger does */
    assert_true(nl_field_is(nl_rec_get(&rec, "c"), "x"));
    assert_true(nl_field_is(nl_rec_get(&rec, "d"), "open"));
    assert_null(nl_rec_get(&rec, "junk"));
    assert_int_equal(rec.recovered, 6);
    /* a bad timestamp is kept as text in lenient mode */
    assert_int_equal(nl_parse(&rec, "ts=yesterday event=x", 20, 1, NL_PARSE_LENIENT, NULL), 1);
    assert_int_equal(rec.ts_usec, 0);
    assert_true(nl_field_is(&rec.f[rec.i_ts], "yesterday"));
    /* a lone trailing backslash inside an unterminated quote is kept, not read past */
    char *keep;
    nl_perr_t err;
    const char *t = "ts=1 event=x a=\"b\\n\\";
    assert_int_equal(parse_exact(&rec, t, strlen(t), NL_PARSE_LENIENT, &err, &keep), 1);
    assert_true(nl_field_is(nl_rec_get(&rec, "a"), "b\n\\"));
    free(keep);
    nl_rec_free(&rec);
}

/* Where nlkit's NetLogger reading of a NetLogger case differs from NetLogger's own, and
 * why (docs/library.md, "Lines NetLogger wrote", lists the same): each must still differ, so the
 * list cannot go stale. */
static const struct {
    const char *in_line; /* a piece of the case's line */
    int rc;              /* what nl_parse returns for it */
} nlv_parse_differs[] = {
    {"event=b.many300 ", NL_EPARSE}, /* 303 fields: nlkit reads at most NL_FIELDS_MAX (256) */
    {"# ts=", 0},                    /* a line starting with '#' is a comment in nlkit */
};

static void test_netlogger_cases(void **state)
{
    (void)state;
    nl_rec_t rec;
    nl_rec_init(&rec);
    int dirs = 0;
    for (int d = 0; d < ncase_dirs; d++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/netlogger/pegasus-netlogger.jsonl", case_dirs[d]);
        if (d > 0 && access(path, R_OK) != 0) continue; /* only our copy must have them */
        bp_case_t *cs;
        int n = bp_nlv_load(path, &cs);
        if (n < 100) fail_msg("%s: only %d cases loaded", path, n);
        dirs++;
        int agree = 0, differ = 0, written = 0;
        for (int i = 0; i < n; i++) {
            bp_case_t *c = &cs[i];
            written += c->nlv_written;
            nl_perr_t err;
            char *keep;
            int rc = parse_exact(&rec, c->line, c->line_len, NL_PARSE_NETLOGGER, &err, &keep);
            size_t k = 0, nd = sizeof nlv_parse_differs / sizeof nlv_parse_differs[0];
            while (k < nd && !strstr(c->line, nlv_parse_differs[k].in_line)) k++;
            if (k < nd) {
                if (rc != nlv_parse_differs[k].rc)
                    fail_msg("%s: listed as read differently (%d), now gives %d: update the list "
                             "and docs/library.md",
                             c->name, nlv_parse_differs[k].rc, rc);
                differ++;
            } else if (c->nlv_error) {
                if (rc >= 0)
                    fail_msg("%s: NetLogger refuses it (%s), nlkit read it", c->name, c->nlv_error);
                agree++;
            } else {
                if (rc != 1) fail_msg("%s: rejected at col %d: %s", c->name, err.col, err.msg);
                check_fields(c, &rec);
                agree++;
            }
            free(keep);
        }
        printf("%s: %d cases (%d written by NetLogger): %d read as NetLogger reads them, %d "
               "listed differences\n",
               path, n, written, agree, differ);
        bp_cases_free(cs, n);
    }
    assert_true(dirs >= 1);
    nl_rec_free(&rec);
}

/* Random values of the bytes that matter (backslash, quote, '=', space, tab, letters an
 * nlkit escape would decode, UTF-8 and a no-break space) written NetLogger's way, two per
 * line, read back in NetLogger mode: each is exactly what was written, never a byte more
 * or less. The one thing NetLogger's format cannot hold is a quoted value ending in a
 * backslash with another quote after it on the line (NetLogger misreads it too): the
 * second value alone may end so. */
static void test_netlogger_values_exact(void **state)
{
    (void)state;
    static const char *const atoms[] = {"\\",           "\"", "=", " ",        "\t",   "n",    "t",
                                        "x4",           "1",  "r", "\xc3\xa9", "\\\\", "\\\"", "a",
                                        "\xe2\x98\x83", "0"};
    nl_rec_t rec;
    nl_rec_init(&rec);
    unsigned seed = 12345;
    for (int it = 0; it < 20000; it++) {
        char v[2][64];
        size_t vn[2];
        for (int j = 0; j < 2; j++) {
            vn[j] = 0;
            int atoms_n = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 8;
            for (int a = 0; a < atoms_n; a++) {
                const char *at = atoms[((seed = seed * 1103515245u + 12345u) >> 16) % 16];
                memcpy(v[j] + vn[j], at, strlen(at));
                vn[j] += strlen(at);
            }
        }
        if (vn[0] && v[0][vn[0] - 1] == '\\') v[0][vn[0]++] = 'z'; /* see above */
        char line[512];
        size_t l = (size_t)snprintf(line, sizeof line,
                                    "ts=2026-11-22T19:03:18.195394Z event=b.x level=Info v=");
        l += bp_nlv_write_value(line + l, v[0], vn[0]);
        memcpy(line + l, " w=", 3);
        l += 3;
        l += bp_nlv_write_value(line + l, v[1], vn[1]);
        nl_perr_t err;
        char *keep;
        assert_int_equal(parse_exact(&rec, line, l, NL_PARSE_NETLOGGER, &err, &keep), 1);
        for (int j = 0; j < 2; j++) {
            const nl_field_t *f = nl_rec_get(&rec, j ? "w" : "v");
            if (vn[j] == 0) { /* NetLogger writes "" and reads it back empty */
                if (!f || f->value_len) fail_msg("line '%.*s': empty value lost", (int)l, line);
                continue;
            }
            if (!f || f->value_len != vn[j] || memcmp(f->value, v[j], vn[j]))
                fail_msg("line '%.*s': %s read as '%.*s', written '%.*s'", (int)l, line,
                         j ? "w" : "v", f ? (int)f->value_len : 0, f ? f->value : "", (int)vn[j],
                         v[j]);
        }
        free(keep);
    }
    nl_rec_free(&rec);
}

/* The NetLogger reading on its own rules: backslashes, the closing quote, junk, Unicode
 * whitespace, duplicates, and timestamps nlkit never writes. */
static void test_netlogger_reading(void **state)
{
    (void)state;
    nl_rec_t rec;
    nl_rec_init(&rec);
    const char *l = "ts=2026-11-22T19:03:18.195394Z event=x v=\"C:\\new folder\\test\" "
                    "p=back\\slash q=\"a\\\\\" b\" junk a/b=1 e= d=1 d=2 u=a\xc2\xa0"
                    "b";
    assert_int_equal(nl_parse(&rec, l, strlen(l), 1, NL_PARSE_NETLOGGER, NULL), 1);
    assert_true(nl_field_is(nl_rec_get(&rec, "v"), "C:\\new folder\\test"));
    assert_true(nl_field_is(nl_rec_get(&rec, "p"), "back\\slash"));
    assert_true(nl_field_is(nl_rec_get(&rec, "q"), "a\\\" b"));
    assert_true(nl_field_is(nl_rec_get(&rec, "b"), "1"));
    assert_null(nl_rec_get(&rec, "e"));
    assert_true(nl_field_is(nl_rec_get(&rec, "d"), "2"));
    assert_true(nl_field_is(nl_rec_get(&rec, "u"), "a"));
    assert_int_equal(rec.n, 8);      /* ts event v p q b d u */
    assert_true(rec.recovered >= 4); /* junk, a/, e=, the first d, the \xa0b tail */
    /* the same line read strictly as nlkit's own would decode \n and \t: that is why lines
     * NetLogger wrote need this reading */
    const char *s = "ts=2026-11-22T19:03:18Z event=x v=\"C:\\new folder\\test\"";
    assert_int_equal(nl_parse(&rec, s, strlen(s), 1, NL_PARSE_STRICT, NULL), 1);
    assert_true(nl_field_is(nl_rec_get(&rec, "v"), "C:\new folder\test"));
    assert_int_equal(nl_parse(&rec, s, strlen(s), 1, NL_PARSE_NETLOGGER, NULL), 1);
    assert_true(nl_field_is(nl_rec_get(&rec, "v"), "C:\\new folder\\test"));
    /* a value's trailing backslash before the line's last quote */
    const char *t = "ts=1 event=x v=\"trailing \\\"";
    assert_int_equal(nl_parse(&rec, t, strlen(t), 1, NL_PARSE_NETLOGGER, NULL), 1);
    assert_true(nl_field_is(nl_rec_get(&rec, "v"), "trailing \\"));
    /* timestamps NetLogger reads and nlkit never writes */
    static const struct {
        const char *ts;
        long long usec;
    } ts[] = {{"2026-11-22T19:03:18.195394z", 1795374198195394LL},
              {"2026-11-22T19:03:18.195394", 1795374198195394LL},
              {"2026-11-22T19:03:18.1953941234Z", 1795374198195394LL},
              {"2026-11-22T19:03:18.195394-05:00", 1795392198195394LL},
              {"1795374198", 1795374198000000LL}};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        char line[128];
        int n = snprintf(line, sizeof line, "ts=%s event=x", ts[i].ts);
        for (unsigned mode = NL_PARSE_LENIENT; mode <= NL_PARSE_NETLOGGER; mode++) {
            assert_int_equal(nl_parse(&rec, line, (size_t)n, 1, mode, NULL), 1);
            if (rec.ts_usec != ts[i].usec) fail_msg("%s: %lld", ts[i].ts, (long long)rec.ts_usec);
            assert_int_equal(rec.recovered, 0);
        }
    }
    /* a date alone, or a space for the T, is no timestamp in any reading */
    assert_int_equal(nl_parse(&rec, "ts=2026-11-22 event=x", 21, 1, NL_PARSE_NETLOGGER, NULL), 1);
    assert_int_equal(rec.ts_usec, 0);
    assert_int_equal(rec.recovered, 1);
    nl_rec_free(&rec);
}

static void test_limits(void **state)
{
    (void)state;
    nl_rec_t rec;
    nl_rec_init(&rec);
    nl_perr_t err;
    size_t big = (size_t)NL_LINE_MAX + 10;
    char *l = malloc(big);
    memset(l, 'a', big);
    memcpy(l, "ts=1 event=x v=", 15);
    assert_int_equal(nl_parse(&rec, l, big, 1, NL_PARSE_LENIENT, &err), NL_ETOOBIG);
    /* more fields than NL_FIELDS_MAX */
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl_enc_begin(&b, 0, "x", NL_LVL_INFO, NULL);
    for (int i = 0; i < NL_FIELDS_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        nl_enc_i64(&b, name, i);
    }
    nl_enc_end(&b);
    assert_int_equal(nl_parse(&rec, b.p, b.len, 1, 0, &err), NL_EPARSE);
    assert_non_null(strstr(err.msg, "more than"));
    nl_buf_free(&b);
    free(l);
    nl_rec_free(&rec);
}

/* Random mutations of valid lines: any result is fine, reading outside the line is not
 * (the ASan build checks that), and errors always carry a column inside the line. */
static void test_mutations(void **state)
{
    (void)state;
    static const char *seeds[] = {
        "ts=2026-11-22T12:00:00.123456Z event=foo.start level=Info guid=g",
        "ts=2026-11-22T12:00:00Z event=x m=\"line1\\nline2\\tend\\r\" b=\"\\x01\\x7f\"",
        "ts=1732276800.25 event=x q=\"say \\\"hi\\\"\" u=http://h/p?a=b",
    };
    static const char alphabet[] = " =\"\\xn0Z.:-#\t\x01\xff";
    uint64_t seed = 99;
    nl_rec_t rec;
    nl_rec_init(&rec);
    for (int it = 0; it < 200000; it++) {
        const char *s = seeds[it % 3];
        size_t len = strlen(s);
        char *m = malloc(len + 8);
        memcpy(m, s, len);
        int edits = 1 + (int)(t_rand(&seed) % 4);
        for (int e = 0; e < edits; e++) {
            uint64_t r = t_rand(&seed);
            size_t at = (size_t)(r % len);
            if (r & 0x100)
                m[at] = alphabet[(r >> 9) % (sizeof alphabet - 1)];
            else
                len = at + 1; /* truncate */
        }
        char *exact = malloc(len);
        memcpy(exact, m, len);
        free(m);
        for (unsigned mode = 0; mode < 2; mode++) {
            nl_perr_t err;
            int rc = nl_parse(&rec, exact, len, it, mode, &err);
            if (rc < 0 && (err.col < 1 || (size_t)err.col > len + 1))
                fail_msg("column %d outside a %zu-byte line", err.col, len);
            for (int k = 0; rc == 1 && k < rec.n; k++) {
                const nl_field_t *f = &rec.f[k];
                int inside = f->value >= exact && f->value + f->value_len <= exact + len;
                int scratch = rec.scratch && f->value >= rec.scratch &&
                              f->value + f->value_len <= rec.scratch + rec.scratch_cap;
                if (!inside && !scratch) fail_msg("field value outside line and scratch");
            }
        }
        free(exact);
    }
    nl_rec_free(&rec);
}

/* An error message quotes the input, and the tools print it on a terminal: ESC, BEL and
 * C1 controls (as UTF-8) in a log line come out as \xHH, never raw. */
static void test_error_messages_printable(void **state)
{
    (void)state;
    static const char line[] = "ts=\"2026-11-23T10:00:00Z\\x1b[31mRED\\x07\\xc2\\x9b2J\" event=a";
    nl_rec_t r;
    nl_rec_init(&r);
    nl_perr_t e;
    assert_int_equal(nl_parse(&r, line, strlen(line), 1, NL_PARSE_STRICT, &e), NL_ETS);
    for (const unsigned char *p = (const unsigned char *)e.msg; *p; p++) {
        assert_true(*p >= 0x20 && *p != 0x7f);
        assert_false(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
    }
    assert_non_null(strstr(e.msg, "\\x1b[31mRED\\x07\\xc2\\x9b2J"));
    nl_rec_free(&r);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc && ncase_dirs < 4; i++) case_dirs[ncase_dirs++] = argv[i];
    if (ncase_dirs == 0) {
        fprintf(stderr, "usage: test_parse BP_CASES_DIR...\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bp_valid),
        cmocka_unit_test(test_bp_invalid),
        cmocka_unit_test(test_error_positions),
        cmocka_unit_test(test_netlogger_style),
        cmocka_unit_test(test_lenient_recovery),
        cmocka_unit_test(test_netlogger_cases),
        cmocka_unit_test(test_netlogger_values_exact),
        cmocka_unit_test(test_netlogger_reading),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_error_messages_printable),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
