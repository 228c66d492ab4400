/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pair.c — pair handles (nl_pair): in every mode a handle's events come out exactly as
 * the same events written with nl_write (side by side in one log, on the injected clock),
 * rules made after the handle apply to it, the level threshold and the counters are
 * nl_write's, and bad names are refused. Threads sharing one handle: test_summary_threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nls.h"
#include "summ_fixture.h"

/* Every field of line i but ts and event ("name=value ..."): what a handle's line and
 * nl_write's line of another activity must have alike. */
static void body_of(t_readback_t *rb, size_t i, char *out, size_t cap)
{
    nl_rec_t *r = t_rb_rec(rb, i);
    out[0] = '\0';
    for (int k = 0; k < r->n; k++) {
        if (k == r->i_ts || k == r->i_event) continue;
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%.*s=%.*s ", (int)r->f[k].name_len, r->f[k].name,
                 (int)r->f[k].value_len, r->f[k].value);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The events of activity `act` in the log as "SUFFIX body" lines, sorted (summaries of
 * different identities come out in table order) and joined: the same text for two
 * activities written alike. */
static void lines_of(t_readback_t *rb, const char *act, char *out, size_t cap)
{
    size_t al = strlen(act), n = 0;
    char **l = calloc(rb->n + 1, sizeof *l);
    assert_non_null(l);
    for (size_t i = 0; i < rb->n; i++) {
        const char *ev = t_field(t_rb_rec(rb, i), "event");
        if (strncmp(ev, act, al) != 0 || ev[al] != '.') continue;
        char suffix[64], body[2048];
        snprintf(suffix, sizeof suffix, "%s", ev + al);
        body_of(rb, i, body, sizeof body);
        l[n] = malloc(strlen(suffix) + strlen(body) + 3);
        assert_non_null(l[n]);
        sprintf(l[n++], "%s %s\n", suffix, body);
    }
    qsort(l, n, sizeof *l, cmp_str);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s", l[i]);
        free(l[i]);
    }
    free(l);
}

#define G1 "6f1c1d2e-0000-4000-8000-000000000001"
#define G2 "6f1c1d2e-0000-4000-8000-000000000002"

/* The same pairs through a handle on "h" and through nl_write on "w": three of G1, one of
 * G2, one of the log's GUID (NULL), a start left open. */
static void write_both(nl_log_t *log, nl_pair_t *h)
{
    static const struct {
        const char *g;
        int64_t s, e;
        double v;
    } p[] = {{G1, 100, 300, 100},
             {G1, 400, 500, 50.5},
             {G2, 450, 460, 7},
             {NULL, 600, 650, 3},
             {G1, 700, 900, 30}};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        at(p[i].s);
        assert_int_equal(nl_pair_start(h, p[i].g), 0);
        assert_int_equal(nl_write(log, "w.start", "guid=s", p[i].g), 0);
        at(p[i].e);
        assert_int_equal(nl_pair_end(h, p[i].g, p[i].v), 0);
        assert_int_equal(nl_write(log, "w.end", "guid=s bytes=d", p[i].g, p[i].v), 0);
    }
    at(950);
    assert_int_equal(nl_pair_start(h, G2), 0);
    assert_int_equal(nl_write(log, "w.start", "guid=s", G2), 0);
}

/* Under each mode, the handle's lines (raw events and summaries) are nl_write's. */
static void test_same_as_nl_write_in_every_mode(void **state)
{
    (void)state;
    const int modes[] = {NL_SUMM_SUMMARY,
                         NL_SUMM_BOTH,
                         NL_SUMM_FULL,
                         NL_SUMM_OFF,
                         NL_SUMM_COUNT,
                         NL_SUMM_DEDUP,
                         -1 /* no rule */};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        fixture_t f;
        open_log(&f);
        if (modes[m] >= 0) {
            assert_int_equal(nl_summarize(f.log, "h", modes[m], 1, "bytes"), 0);
            assert_int_equal(nl_summarize(f.log, "w", modes[m], 1, "bytes"), 0);
        }
        int err = -1;
        nl_pair_t *h = nl_pair(f.log, "h", "bytes", &err);
        assert_non_null(h);
        assert_int_equal(err, 0);
        write_both(f.log, h);
        t_readback_t rb;
        tick_and_load(&f, 1000, &rb);
        char a[8192], b[8192];
        lines_of(&rb, "h", a, sizeof a);
        lines_of(&rb, "w", b, sizeof b);
        print_message("mode %d:\n%s", modes[m], a);
        assert_string_equal(a, b);
        size_t idx[16];
        size_t sums = find(&rb, "h.summary", idx, 16), raw = find(&rb, "h.end", idx, 16);
        if (modes[m] == NL_SUMM_SUMMARY || modes[m] == NL_SUMM_BOTH) {
            assert_int_equal(sums, 1); /* G1, G2 and the log's GUID: one activity, no key */
            assert_int_equal(raw, modes[m] == NL_SUMM_BOTH ? 5 : 0);
        } else {
            assert_int_equal(sums, 0);
            assert_int_equal(raw, modes[m] == NL_SUMM_OFF ? 0 : 5);
        }
        t_rb_free(&rb);
        nl_stats_t st;
        nl_stats(f.log, &st);
        assert_int_equal(st.filtered, modes[m] == NL_SUMM_OFF ? 22 : 0);
        assert_int_equal(st.overflow, 0);
        close_fixture(&f);
    }
}

/* The summary's figures themselves, for the handle alone: the five pairs of three guids,
 * each end matched to its own guid's start, in one summary; G2's last start still open. */
static void test_summary_figures(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "h", NL_SUMM_SUMMARY, 1, "bytes"), 0);
    nl_pair_t *h = nl_pair(f.log, "h", "bytes", NULL);
    assert_non_null(h);
    write_both(f.log, h);
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[8];
    assert_int_equal(find(&rb, "h.summary", idx, 8), 1);
    nl_rec_t *r = t_rb_rec(&rb, idx[0]);
    assert_string_equal(t_field(r, "guid"), nl_guid(f.log));
    assert_string_equal(t_field(r, "n"), "5");
    NEAR(t_num(r, "dur.sum"), 0.2 + 0.1 + 0.01 + 0.05 + 0.2);
    NEAR(t_num(r, "dur.min"), 0.01); /* G2's, between G1's start and end */
    NEAR(t_num(r, "v.sum"), 190.5);
    NEAR(t_num(r, "v.max"), 100);
    NEAR(t_num(r, "r.max"), 700); /* 7 in 0.01 s */
    NEAR(t_num(r, "span"), 0.8);
    assert_string_equal(t_field(r, "open"), "1");
    assert_null(t_field(r, "orphan.start"));
    assert_null(t_field(r, "orphan.end"));
    t_rb_free(&rb);
    close_fixture(&f);
}

/* A handle made before any rule writes in full, then folds once a rule says so; a rule
 * whose value field is not the handle's counts its pairs without a value, as nl_write's. */
static void test_rules_after_the_handle(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    nl_pair_t *h = nl_pair(f.log, "h", "bytes", NULL);
    assert_non_null(h);
    at(10);
    nl_pair_start(h, G1);
    at(20);
    nl_pair_end(h, G1, 5);
    assert_int_equal(nl_summarize(f.log, "h", NL_SUMM_SUMMARY, 1, "size"), 0);
    at(30);
    nl_pair_start(h, G1);
    at(50);
    nl_pair_end(h, G1, 5);
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[8];
    assert_int_equal(find(&rb, "h.start", idx, 8), 1);
    assert_int_equal(find(&rb, "h.end", idx, 8), 1);
    assert_string_equal(t_field(t_rb_rec(&rb, idx[0]), "bytes"), "5");
    assert_int_equal(find(&rb, "h.summary", idx, 8), 1);
    nl_rec_t *r = t_rb_rec(&rb, idx[0]);
    assert_string_equal(t_field(r, "n"), "1");
    NEAR(t_num(r, "dur.sum"), 0.02);
    assert_null(t_field(r, "v.sum")); /* the rule's value field is size, not bytes */
    t_rb_free(&rb);
    close_fixture(&f);
}

/* Without a value field the end carries none; the level threshold filters and counts. */
static void test_no_value_field_and_level(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    nl_pair_t *h = nl_pair(f.log, "h", NULL, NULL);
    assert_non_null(h);
    nl_pair_start(h, G1);
    nl_pair_end(h, G1, 99);
    assert_int_equal(nl_set_level(f.log, NL_LVL_WARN), 0);
    assert_int_equal(nl_pair_start(h, G1), 0);
    assert_int_equal(nl_pair_end(h, G1, 1), 0);
    assert_int_equal(nl_summarize(f.log, "h", NL_SUMM_SUMMARY, 1, NULL), 0);
    assert_int_equal(nl_pair_start(h, G1), 0); /* filtered before the summarizer too */
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_int_equal(st.filtered, 3);
    assert_int_equal(st.written, 2);
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    assert_int_equal(rb.n, 2);
    nl_rec_t *r = t_rb_rec(&rb, 1);
    assert_string_equal(t_field(r, "event"), "h.end");
    assert_string_equal(t_field(r, "guid"), G1);
    assert_int_equal(r->n, 4); /* ts event level guid */
    t_rb_free(&rb);
    close_fixture(&f);
}

/* A guid too long for an identity is written in full and counted, as with nl_write. */
static void test_identity_too_long(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "h", NL_SUMM_SUMMARY, 1, NULL), 0);
    nl_pair_t *h = nl_pair(f.log, "h", "value", NULL);
    char g[400];
    memset(g, 'a', sizeof g - 1);
    g[sizeof g - 1] = '\0';
    assert_int_equal(nl_pair_start(h, g), 0);
    assert_int_equal(nl_pair_end(h, g, 1), 0);
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_int_equal(st.overflow, 2);
    assert_int_equal(st.written, 2);
    close_fixture(&f);
}

/* With the activity table full (NLS_ACT_MAX names seen), a new handle's pairs are written
 * in full and counted as overflow, as nl_write's would be. */
static void test_activity_table_full(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    assert_int_equal(nl_summarize(f.log, "*", NL_SUMM_SUMMARY, 1, NULL), 0);
    char name[32];
    for (int i = 0; i < 1024; i++) { /* NLS_ACT_MAX activities, each one pair */
        snprintf(name, sizeof name, "a%d.start", i);
        assert_int_equal(nl_write(f.log, name, "guid=s", G1), 0);
    }
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_int_equal(st.overflow, 0);
    assert_int_equal(st.written, 0);
    nl_pair_t *h = nl_pair(f.log, "late", "value", NULL);
    assert_non_null(h);
    assert_int_equal(nl_pair_start(h, G1), 0);
    assert_int_equal(nl_pair_end(h, G1, 5), 0);
    assert_int_equal(nl_write(f.log, "later.start", "guid=s", G1), 0);
    nl_stats(f.log, &st);
    assert_int_equal(st.overflow, 3);
    assert_int_equal(st.written, 3);
    t_readback_t rb;
    t_rb_load(&rb, f.path);
    size_t idx[4];
    assert_int_equal(find(&rb, "late.start", idx, 4), 1);
    assert_int_equal(find(&rb, "late.end", idx, 4), 1);
    assert_string_equal(t_field(t_rb_rec(&rb, idx[0]), "value"), "5");
    t_rb_free(&rb);
    close_fixture(&f);
}

/* One handle per name and value field: a function may ask for its handle each time. */
static void test_asking_again(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    nl_pair_t *a = nl_pair(f.log, "h", "bytes", NULL), *none = nl_pair(f.log, "h", NULL, NULL);
    assert_non_null(a);
    assert_non_null(none);
    assert_ptr_equal(nl_pair(f.log, "h", "bytes", NULL), a);
    assert_ptr_equal(nl_pair(f.log, "h", NULL, NULL), none);
    assert_ptr_not_equal(a, none);
    assert_ptr_not_equal(nl_pair(f.log, "h", "byte", NULL), a);
    assert_ptr_not_equal(nl_pair(f.log, "hh", "bytes", NULL), a);
    assert_ptr_not_equal(nl_pair(f.log, "h.x", "bytes", NULL), a);
    close_fixture(&f);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    int err = 0;
    assert_null(nl_pair(NULL, "h", NULL, &err));
    assert_int_equal(err, NL_EINVAL);
    assert_null(nl_pair(f.log, NULL, NULL, &err));
    assert_int_equal(err, NL_EINVAL);
    const char *bad_names[] = {"", "a b", "a=b", "x\n"};
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
        err = 0;
        assert_null(nl_pair(f.log, bad_names[i], NULL, &err));
        assert_int_equal(err, NL_ENAME);
    }
    char longname[NL_NAME_MAX + 1];
    memset(longname, 'a', NL_NAME_MAX - 5);
    longname[NL_NAME_MAX - 5] = '\0'; /* with ".start", one over */
    assert_null(nl_pair(f.log, longname, NULL, &err));
    assert_int_equal(err, NL_ENAME);
    longname[NL_NAME_MAX - 6] = '\0';
    assert_non_null(nl_pair(f.log, longname, NULL, &err));
    const char *bad_fields[] = {"guid", "ts", "event", "level", "stream.id", "a b", ""};
    for (size_t i = 0; i < sizeof bad_fields / sizeof *bad_fields; i++) {
        err = 0;
        assert_null(nl_pair(f.log, "h", bad_fields[i], &err));
        assert_int_equal(err, NL_ENAME);
    }
    assert_non_null(nl_pair(f.log, "h", "v", NULL)); /* err may be NULL */
    assert_int_equal(nl_pair_start(NULL, G1), NL_EINVAL);
    assert_int_equal(nl_pair_end(NULL, G1, 1), NL_EINVAL);
    close_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_nl_write_in_every_mode),
        cmocka_unit_test(test_summary_figures),
        cmocka_unit_test(test_rules_after_the_handle),
        cmocka_unit_test(test_no_value_field_and_level),
        cmocka_unit_test(test_identity_too_long),
        cmocka_unit_test(test_activity_table_full),
        cmocka_unit_test(test_asking_again),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
