/* SPDX-License-Identifier: BSD-3-Clause */
/* test_line_format.c — the line format's conventions live in one table (internal/nl_line.h)
 * and everything agrees with it:
 *   - the archive's `summary` table (the steps in schemas/) has exactly one column per summary
 *     field the table gives a column, of the type it gives, besides its fixed and generated
 *     columns: a field added on one side and not the other fails here;
 *   - the summarizer writes only the table's fields, in the table's order, and every one
 *     of them when the line has cause to (values on some pairs only, orphans);
 *   - event kinds and identity fields by name.
 *
 *   test_line_format SCHEMAS_DIR */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nl_line.h"
#include "nl_test.h"
#include "nlkit/nl.h"

static const char *g_schemas;

#define COL_MAX 64
typedef struct col {
    char name[64];
    char type[32];
} col_t;

/* Copy of text with every "-- comment" blanked out. */
static char *strip_comments(const char *text)
{
    char *s = strdup(text);
    assert_non_null(s);
    for (char *p = s; (p = strstr(p, "--")) != NULL;)
        while (*p && *p != '\n') *p++ = ' ';
    return s;
}

/* The columns of CREATE TABLE summary (...) in one schema step, and those added to it by
 * ALTER TABLE summary ADD COLUMN; generated columns are left out (they are computed). */
static void summary_columns(const char *sql, col_t *cols, int *n)
{
    char *s = strip_comments(sql);
    char *p = strcasestr(s, "CREATE TABLE summary");
    if (p) {
        p = strchr(p, '(');
        assert_non_null(p);
        char *item = ++p;
        for (int depth = 0; *p; p++) { /* items are split at commas outside parentheses */
            if (*p == '(') depth++;
            if (*p == ')' && depth-- == 0) *p = ',', p[1] = '\0';
            if (*p != ',' || depth > 0) continue;
            *p = '\0';
            char name[64] = "", type[32] = "";
            if (sscanf(item, "%63s %31s", name, type) >= 1 && !strcasestr(item, "GENERATED") &&
                strcasecmp(name, "PRIMARY") && strcasecmp(name, "FOREIGN")) {
                assert_true(*n < COL_MAX);
                snprintf(cols[*n].name, sizeof cols[*n].name, "%s", name);
                snprintf(cols[*n].type, sizeof cols[*n].type, "%s", type);
                for (char *t = cols[*n].type; *t; t++)
                    if (*t == ',') *t = '\0';
                (*n)++;
            }
            item = p + 1;
        }
    }
    free(s);
    s = strip_comments(sql);
    for (p = s; (p = strcasestr(p, "ALTER TABLE summary ADD COLUMN")) != NULL; p++) {
        char name[64] = "", type[32] = "", *end = strchr(p, ';');
        if (end) *end = '\0'; /* GENERATED is looked for in this statement alone */
        int generated = strcasestr(p, "GENERATED") != NULL;
        if (end) *end = ';';
        if (sscanf(p + 30, "%63s %31[A-Za-z]", name, type) == 2 && !generated) {
            snprintf(cols[*n].name, sizeof cols[*n].name, "%s", name);
            snprintf(cols[*n].type, sizeof cols[*n].type, "%s", type);
            (*n)++;
        }
    }
    free(s);
}

/* Every schema step, in order; the summary table's columns as they end up. */
static int schema_columns(col_t *cols)
{
    struct dirent **ents;
    int ne = scandir(g_schemas, &ents, NULL, alphasort), n = 0, steps = 0;
    assert_true(ne > 0);
    for (int i = 0; i < ne; i++) {
        const char *f = ents[i]->d_name;
        size_t l = strlen(f);
        if (l > 4 && !strcmp(f + l - 4, ".sql") && isdigit((unsigned char)f[0])) {
            char *text = t_slurp(t_path(g_schemas, f), &l);
            assert_non_null(text);
            summary_columns(text, cols, &n);
            free(text);
            steps++;
        }
        free(ents[i]);
    }
    free(ents);
    assert_true(steps >= 2);
    return n;
}

static int nl_field_is_name(const nl_field_t *f, const char *name)
{
    return f->name_len == strlen(name) && !memcmp(f->name, name, f->name_len);
}

static void test_table_matches_schema(void **state)
{
    (void)state;
    col_t cols[COL_MAX];
    int n = schema_columns(cols);
    static const char *const fixed[] = {"event_id", "ts", "event", "host", "guid"};
    int matched = 0;
    for (int i = 0; i < n; i++) {
        int is_fixed = 0;
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
            is_fixed |= !strcmp(cols[i].name, fixed[k]);
        if (is_fixed) continue;
        int found = -1;
        for (int f = 0; f < NL_SF_COUNT; f++)
            if (nl__summary_fields[f].type != NL_COL_NONE &&
                !strcmp(nl__summary_fields[f].column, cols[i].name))
                found = f;
        if (found < 0)
            fail_msg("schemas/: summary column '%s' is no field of internal/nl_line.h's table",
                     cols[i].name);
        const char *want = nl__summary_fields[found].type == NL_COL_INT ? "INTEGER" : "REAL";
        if (strcasecmp(cols[i].type, want))
            fail_msg("summary column '%s' is %s in schemas/, %s in nl_line.h", cols[i].name,
                     cols[i].type, want);
        matched++;
    }
    int with_column = 0;
    for (int f = 0; f < NL_SF_COUNT; f++) {
        if (nl__summary_fields[f].type == NL_COL_NONE) continue;
        with_column++;
        int found = 0;
        for (int i = 0; i < n; i++) found |= !strcmp(cols[i].name, nl__summary_fields[f].column);
        if (!found)
            fail_msg("nl_line.h: field '%s' has column '%s', which schemas/ does not create",
                     nl__summary_fields[f].name, nl__summary_fields[f].column);
    }
    assert_int_equal(matched, with_column);
    /* names are unique, and their lengths right */
    for (int f = 0; f < NL_SF_COUNT; f++) {
        assert_int_equal(strlen(nl__summary_fields[f].name), nl__summary_fields[f].len);
        for (int g = f + 1; g < NL_SF_COUNT; g++)
            assert_string_not_equal(nl__summary_fields[f].name, nl__summary_fields[g].name);
    }
}

/* The index of a line field in the table, or -1. */
static int field_index(const nl_field_t *f)
{
    for (int i = 0; i < NL_SF_COUNT; i++)
        if (f->name_len == nl__summary_fields[i].len &&
            !memcmp(f->name, nl__summary_fields[i].name, f->name_len))
            return i;
    return -1;
}

/* Pairs with and without the value, an orphan of each kind, an identity field and a
 * constant: the summary line carries every field of the table, in its order. */
static void test_summarizer_writes_the_table(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s", t_path(dir, "s.log"));
    nl_log_t *log = nl_open(path);
    assert_non_null(log);
    nl_const_set(log, "site", "lbl");
    assert_int_equal(nl_summarize(log, "op", NL_SUMM_SUMMARY, 0, "bytes"), 0);
    static const int status[] = {200, 302, 404}; /* res.2xx res.3xx res.4xx */
    for (int i = 0; i < 3; i++) {
        nl_write(log, "op.start", "stream.id=i", 7);
        t_sleep_ms(2);
        nl_write(log, "op.end", "stream.id=i bytes=i status=i", 7, 1000 * (i + 1), status[i]);
    }
    nl_write(log, "op.start", "stream.id=i", 7); /* an end without the value: v.n, r.n */
    nl_write(log, "op.end", "stream.id=i", 7);
    nl_write(log, "op.start", "stream.id=i", 7); /* restarted: orphan.start */
    nl_write(log, "op.start", "stream.id=i", 7);
    nl_write(log, "op.end", "stream.id=i bytes=i status=i", 7, 5, 503); /* err.n, res.5xx */
    nl_write(log, "op.end", "stream.id=i bytes=i", 7, 5);               /* orphan.end */
    nl_write(log, "op.start", "stream.id=i", 7); /* a value no statistic takes: v.refused */
    nl_write(log, "op.end", "stream.id=i bytes=d", 7, 1e300);
    nl_write(log, "op.start", "stream.id=i", 7); /* a value no histogram takes: v.h.refused */
    nl_write(log, "op.end", "stream.id=i bytes=i", 7, -5);
    nl_write(log, "op.start", "stream.id=i", 7); /* left open */
    nl_close(log);

    t_readback_t rb;
    t_rb_load(&rb, path);
    int lines = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        if (strcmp(t_field(r, "event"), "op.summary")) continue;
        lines++;
        uint64_t seen = 0;
        int last = -1, past_ids = 0;
        for (int k = 0; k < r->n; k++) {
            const nl_field_t *f = &r->f[k];
            int at = field_index(f);
            if (at < 0 && past_ids && (nl_field_is_name(f, "dur.h") || nl_field_is_name(f, "v.h")))
                continue; /* the histograms, last (nl_line.h says so) */
            if (at < 0) {
                /* before the summary fields: ts event level guid, constants, *.id fields */
                if (past_ids)
                    fail_msg("field '%.*s' after the summary fields is not in the table",
                             (int)f->name_len, f->name);
                continue;
            }
            past_ids = 1;
            if (at <= last)
                fail_msg("'%s' written after '%s': not the table's order",
                         nl__summary_fields[at].name, nl__summary_fields[last].name);
            last = at;
            seen |= 1ull << at;
        }
        for (int f = 0; f < NL_SF_COUNT; f++)
            if (!(seen & 1ull << f) && f != NL_SF_DUR_H_REFUSED) /* needs durations 2^64 apart */
                fail_msg("the summary line has no '%s'", nl__summary_fields[f].name);
        assert_non_null(t_field(r, "dur.h"));
        assert_non_null(t_field(r, "v.h"));
        assert_string_equal(t_field(r, "stream.id"), "7");
        assert_string_equal(t_field(r, "site"), "lbl");
        assert_string_equal(t_field(r, "n"), "7");
        assert_string_equal(t_field(r, "v.n"), "5");
        assert_string_equal(t_field(r, "v.h.refused"), "1");
        assert_string_equal(t_field(r, "v.refused"), "1");
        assert_string_equal(t_field(r, "orphan.start"), "1");
        assert_string_equal(t_field(r, "orphan.end"), "1");
        assert_string_equal(t_field(r, "open"), "1");
        assert_string_equal(t_field(r, "err.n"), "1");
        assert_string_equal(t_field(r, "res.n"), "4"); /* 3 ends had no status */
        assert_string_equal(t_field(r, "res.5xx"), "1");
    }
    assert_int_equal(lines, 1);
    t_rb_free(&rb);
    t_rmtree(dir);
}

static void test_event_kinds_and_ids(void **state)
{
    (void)state;
    static const struct {
        const char *ev;
        int kind;
        size_t alen;
    } cases[] = {
        {"disk.read.start", NL_KIND_START, 9},
        {"disk.read.end", NL_KIND_END, 9},
        {"disk.read.summary", NL_KIND_SUMMARY, 9},
        {"disk.read", NL_KIND_OTHER, 9},
        {".start", NL_KIND_OTHER, 6},
        {"x.end", NL_KIND_END, 1},
        {"xstart", NL_KIND_OTHER, 6},
        {"a.summary.end", NL_KIND_END, 9},
        {"a.ends", NL_KIND_OTHER, 6},
        {"restart", NL_KIND_OTHER, 7},
        {"", NL_KIND_OTHER, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t alen = 99;
        assert_int_equal(nl__event_kind(cases[i].ev, strlen(cases[i].ev), &alen), cases[i].kind);
        assert_int_equal(alen, cases[i].alen);
    }
    assert_true(nl__is_id_field("stream.id", 9));
    assert_true(nl__is_id_field("a.id", 4));
    assert_false(nl__is_id_field(".id", 3));
    assert_false(nl__is_id_field("id", 2));
    assert_false(nl__is_id_field("stream.ids", 10));
    assert_false(nl__is_id_field("guid", 4)); /* known by its own name */
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_line_format SCHEMAS_DIR\n");
        return 2;
    }
    g_schemas = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_schema),
        cmocka_unit_test(test_summarizer_writes_the_table),
        cmocka_unit_test(test_event_kinds_and_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
