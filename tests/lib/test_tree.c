/* SPDX-License-Identifier: BSD-3-Clause */
/* test_tree.c — a request's activity tree (internal/nl_tree.h), the one nl-flows profiles
 * and nl-report's lifelines draw: nesting within a guid, a child guid under its parent's
 * enclosing activity (by parent.guid and by parent.span.id), orphans, loops, skew, ends
 * without starts and activities left open. */
#include <string.h>

#include "nl_line.h"
#include "nl_test.h"
#include "nl_tree.h"

enum { REQ, DB, PARSE, CACHE, LOG }; /* activity names */

#define S(gi, t, ac) {.ts = (t), .g = (gi), .act = (ac), .kind = NL_KIND_START}
#define E(gi, t, ac) {.ts = (t), .g = (gi), .act = (ac), .kind = NL_KIND_END}
#define P(gi, t, ac) {.ts = (t), .g = (gi), .act = (ac), .kind = NL_KIND_OTHER}

static nl__tree_guid_t guid(uint32_t parent, uint32_t nev)
{
    return (nl__tree_guid_t){.parent = parent, .nev = nev};
}

/* The node of guid g with activity act (the first), or -1. */
static int32_t node(const nl__tree_t *t, uint32_t g, uint32_t act)
{
    for (uint32_t i = 0; i < t->nn; i++)
        if (t->nd[i].g == g && t->nd[i].act == act) return (int32_t)i;
    return -1;
}

static void number(nl__tree_ev_t *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) ev[i].seq = (uint32_t)i;
}

/* A request (guid 0) with a parse inside it, and a child guid 1 (parent.guid 0) whose db
 * call falls inside the parse: the db call hangs under the parse, the deepest that holds it;
 * a point event hangs under what is open. Events arrive out of order. */
static void test_child_under_enclosing_activity(void **state)
{
    (void)state;
    nl__tree_ev_t ev[] = {E(1, 450, DB), S(0, 100, REQ), S(0, 200, PARSE), S(1, 300, DB),
                          P(0, 250, LOG), E(0, 500, PARSE), E(0, 900, REQ)};
    number(ev, sizeof ev / sizeof *ev);
    nl__tree_guid_t g[] = {guid(NL_TREE_NONE, 5), guid(0, 2)};
    nl__tree_counts_t c = {0};
    nl__tree_t t;
    assert_int_equal(nl__tree_build(&t, ev, sizeof ev / sizeof *ev, g, 2, &c), 0);
    assert_int_equal(t.nn, 4);
    int32_t req = node(&t, 0, REQ), parse = node(&t, 0, PARSE), db = node(&t, 1, DB),
            log = node(&t, 0, LOG);
    assert_true(req >= 0 && parse >= 0 && db >= 0 && log >= 0);
    assert_int_equal(t.nd[req].parent, -1);
    assert_int_equal(t.nd[parse].parent, req);
    assert_int_equal(t.nd[db].parent, parse);
    assert_int_equal(t.nd[log].parent, parse);
    assert_true(t.nd[log].point);
    assert_int_equal(t.nd[db].start, 300);
    assert_int_equal(t.nd[db].end, 450);
    assert_int_equal(t.nd[req].end, 900);
    assert_false(t.nd[req].open);
    assert_int_equal(t.gs[1].parent, 0);
    assert_false(t.gs[1].orphan);
    assert_int_equal(c.skewed + c.unmatched_ends + c.open_acts + c.too_deep, 0);
    nl__tree_free(&t);
}

/* Spans: a guid whose parent.span.id is another guid's span.id hangs under it. */
static void test_parent_by_span(void **state)
{
    (void)state;
    nl__tree_ev_t ev[] = {S(0, 100, REQ), E(0, 900, REQ), S(1, 200, CACHE), E(1, 300, CACHE)};
    number(ev, 4);
    nl__tree_guid_t g[] = {{.parent = NL_TREE_NONE, .span = 0xa1, .nev = 2},
                           {.parent = NL_TREE_NONE, .span = 0xb2, .pspan = 0xa1, .nev = 2}};
    nl__tree_counts_t c = {0};
    nl__tree_t t;
    assert_int_equal(nl__tree_build(&t, ev, 4, g, 2, &c), 0);
    assert_int_equal(t.nd[node(&t, 1, CACHE)].parent, node(&t, 0, REQ));
    assert_false(t.gs[1].orphan);
    nl__tree_free(&t);
    assert_int_equal(nl__tree_hex64("a1", 2), 0xa1);
    assert_int_equal(nl__tree_hex64("00f067aa0ba902b7", 16), 0x00f067aa0ba902b7ULL);
    assert_int_equal(nl__tree_hex64("xyz", 3), 0);
    assert_int_equal(nl__tree_hex64("", 0), 0);
    assert_int_equal(nl__tree_hex64("11112222333344445", 17), 0); /* past 64 bits */
}

/* A guid naming a parent that has no event here is an orphan: a root, said so; one naming
 * a parent span nobody has, too. Neither is dropped. */
static void test_orphans_kept(void **state)
{
    (void)state;
    nl__tree_ev_t ev[] = {S(0, 100, REQ), E(0, 200, REQ), S(2, 300, DB), E(2, 400, DB)};
    number(ev, 4);
    nl__tree_guid_t g[] = {guid(1, 2), guid(NL_TREE_NONE, 0),
                           {.parent = NL_TREE_NONE, .pspan = 0x77, .nev = 2}};
    nl__tree_counts_t c = {0};
    nl__tree_t t;
    assert_int_equal(nl__tree_build(&t, ev, 4, g, 3, &c), 0);
    assert_int_equal(t.nn, 2);
    assert_true(t.gs[0].orphan);
    assert_int_equal(t.gs[0].parent, NL_TREE_NONE);
    assert_true(t.gs[2].orphan);
    assert_int_equal(t.nd[node(&t, 0, REQ)].parent, -1);
    assert_int_equal(t.nd[node(&t, 2, DB)].parent, -1);
    nl__tree_free(&t);
}

/* Parents in a loop (0 -> 1 -> 2 -> 0): cut at the first, the rest hang under it. */
static void test_loop_cut(void **state)
{
    (void)state;
    nl__tree_ev_t ev[] = {S(0, 100, REQ), E(0, 900, REQ), S(1, 200, DB),
                          E(1, 800, DB),  S(2, 300, CACHE), E(2, 400, CACHE)};
    number(ev, 6);
    nl__tree_guid_t g[] = {guid(2, 2), guid(0, 2), guid(1, 2)};
    nl__tree_counts_t c = {0};
    nl__tree_t t;
    assert_int_equal(nl__tree_build(&t, ev, 6, g, 3, &c), 0);
    assert_int_equal(t.gs[0].parent, NL_TREE_NONE);
    assert_int_equal(t.gs[1].parent, 0);
    assert_int_equal(t.gs[2].parent, 1);
    assert_int_equal(t.nd[node(&t, 2, CACHE)].parent, node(&t, 1, DB));
    nl__tree_free(&t);
}

/* Clock skew: a child that starts before its parent's activity hangs under the one it
 * overlaps most, and the skew is counted; an end without its start is a point (counted),
 * a start without its end is cut at the guid's last event (counted open). */
static void test_skew_unmatched_open(void **state)
{
    (void)state;
    nl__tree_ev_t ev[] = {S(0, 1000, REQ), E(0, 2000, REQ), S(1, 900, DB), E(1, 1500, DB),
                          E(2, 50, CACHE), S(2, 60, PARSE), P(2, 90, LOG)};
    number(ev, 7);
    nl__tree_guid_t g[] = {guid(NL_TREE_NONE, 2), guid(0, 2), guid(NL_TREE_NONE, 3)};
    nl__tree_counts_t c = {0};
    nl__tree_t t;
    assert_int_equal(nl__tree_build(&t, ev, 7, g, 3, &c), 0);
    assert_int_equal(t.nd[node(&t, 1, DB)].parent, node(&t, 0, REQ));
    assert_int_equal(c.skewed, 1);
    assert_true(c.skew_max > 99e-6 && c.skew_max < 101e-6);
    assert_int_equal(c.unmatched_ends, 1);
    assert_true(t.nd[node(&t, 2, CACHE)].point);
    int32_t parse = node(&t, 2, PARSE);
    assert_true(t.nd[parse].open);
    assert_int_equal(t.nd[parse].end, 90);
    assert_int_equal(c.open_acts, 1);
    assert_int_equal(t.nd[node(&t, 2, LOG)].parent, parse);
    nl__tree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_under_enclosing_activity),
        cmocka_unit_test(test_parent_by_span),
        cmocka_unit_test(test_orphans_kept),
        cmocka_unit_test(test_loop_cut),
        cmocka_unit_test(test_skew_unmatched_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
