/* SPDX-License-Identifier: BSD-3-Clause */
/* test_rodata.c — which strings the write path may trust by address alone: the main
 * program's literals, and nothing else (a stack or heap buffer, a shared library's
 * literal, a range running past the segment); and a summarized log whose event names and
 * formats come from one buffer rewritten between calls gets each call's own text. */
#include <gnu/libc-version.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_rodata.h"
#include "nl_test.h"
#include "nlkit/nl.h"

static void test_holds(void **state)
{
    (void)state;
    const char *lit = "t.rodata.literal";
    assert_true(nl__rodata_holds(lit, strlen(lit)));
    char stack[32];
    strcpy(stack, lit);
    assert_false(nl__rodata_holds(stack, strlen(stack)));
    char *heap = strdup(lit);
    assert_non_null(heap);
    assert_false(nl__rodata_holds(heap, strlen(heap)));
    free(heap);
    const char *libc = gnu_get_libc_version(); /* a literal of libc, which is a shared object */
    assert_false(nl__rodata_holds(libc, strlen(libc)));
    assert_false(nl__rodata_holds(lit, SIZE_MAX / 2)); /* would run past the segment */
}

/* The same pairs, named by literals and by a buffer rewritten before every call: both ways
 * the summary counts each activity's own pairs, and what is not summarized is written as
 * the text the call had. */
static void test_buffer_names(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    nl_log_t *log = nl_open(path);
    assert_non_null(log);
    assert_int_equal(nl_summarize(log, "t.sum", NL_SUMM_SUMMARY, 3600, NULL), 0);
    char ev[32], fmt[32];
    for (int i = 0; i < 3; i++) {
        nl_write(log, "t.sum.start", "guid=s", "g1");
        nl_write(log, "t.sum.end", "guid=s value=i", "g1", 10);
        strcpy(ev, "t.sum.start");
        strcpy(fmt, "guid=s");
        nl_write(log, ev, fmt, "g2");
        strcpy(ev, "t.sum.end");
        strcpy(fmt, "guid=s value=i");
        nl_write(log, ev, fmt, "g2", 20);
        strcpy(ev, "t.full.start"); /* same buffer, another activity: not summarized */
        strcpy(fmt, "k=i");
        nl_write(log, ev, fmt, i);
    }
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    int full = 0, sums = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        const char *e = t_field(r, "event");
        if (!strcmp(e, "t.full.start")) {
            assert_int_equal((int)t_num(r, "k"), full);
            full++;
        } else if (!strcmp(e, "t.sum.summary")) {
            assert_int_equal((int)t_num(r, "n"), 6); /* g1's and g2's pairs, each matched */
            assert_int_equal((int)t_num(r, "v.sum"), 90);
            sums++;
        } else {
            fail_msg("unexpected event %s", e);
        }
    }
    assert_int_equal(full, 3);
    assert_int_equal(sums, 1);
    t_rb_free(&rb);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holds),
        cmocka_unit_test(test_buffer_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
