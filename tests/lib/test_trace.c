/* SPDX-License-Identifier: BSD-3-Clause */
/* test_trace.c — W3C trace context in and out (nl_set_traceparent, nl_traceparent,
 * NL_TRACEPARENT): what is accepted and refused, the fields every line then carries, a
 * program that starts a trace, and an invalid environment value reported in the log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nlkit/nl.h"

static int hex16(const char *s)
{
    if (!s || strlen(s) != 16) return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'))) return 0;
    return 1;
}

static void test_accepted_and_refused(void **state)
{
    (void)state;
    nl_log_t *log = nl_open("/dev/null");
    assert_non_null(log);
    static const char *const bad[] = {
        "",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",   /* short */
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", /* 00 is 55 long */
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  /* upper case */
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  /* all-zero trace */
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  /* all-zero span */
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  /* version ff */
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"}; /* later version: -? */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (nl_set_traceparent(log, bad[i]) != NL_EINVAL) fail_msg("accepted '%s'", bad[i]);
    assert_int_equal(nl_set_traceparent(log, NULL), NL_EINVAL);
    /* a later version may carry more after a '-' */
    assert_int_equal(
        nl_set_traceparent(log, "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-xyz"), 0);
    char tp[NL_TRACEPARENT_LEN + 1];
    assert_int_equal(nl_traceparent(log, tp, sizeof tp - 1), NL_EINVAL); /* too small */
    assert_int_equal(nl_traceparent(log, tp, sizeof tp), 0);
    /* handed on as version 00, the same trace and flags, this program's span */
    assert_int_equal(strlen(tp), NL_TRACEPARENT_LEN);
    assert_memory_equal(tp, "00-4bf92f3577b34da6a3ce929d0e0e4736-", 36);
    assert_string_equal(tp + 52, "-00");
    assert_memory_not_equal(tp + 36, "00f067aa0ba902b7", 16);
    nl_close(log);
}

static void test_fields_and_env(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[3][512];
    for (int i = 0; i < 3; i++) snprintf(path[i], sizeof path[i], "%s/t%d.log", dir, i);
    /* a program given nothing starts a trace when it hands one on */
    nl_log_t *log = nl_open(path[0]);
    assert_non_null(log);
    nl_write(log, "before", "");
    char tp[NL_TRACEPARENT_LEN + 1];
    assert_int_equal(nl_traceparent(log, tp, sizeof tp), 0);
    nl_write(log, "after", "");
    nl_close(log);
    /* given one through the environment: its trace, a new span, the caller's as parent */
    setenv("NL_TRACEPARENT", tp, 1);
    log = nl_open(path[1]);
    unsetenv("NL_TRACEPARENT");
    nl_write(log, "child", "");
    nl_close(log);
    setenv("NL_TRACEPARENT", "garbage", 1); /* reported in the log, not fatal */
    log = nl_open(path[2]);
    unsetenv("NL_TRACEPARENT");
    assert_non_null(log);
    nl_write(log, "untraced", "");
    nl_close(log);
    t_readback_t rb[3];
    for (int i = 0; i < 3; i++) t_rb_load(&rb[i], path[i]);
    assert_int_equal(rb[0].n, 2);
    assert_null(t_field(t_rb_rec(&rb[0], 0), "trace.id")); /* (one record at a time) */
    char trace[33], span[17];
    snprintf(trace, sizeof trace, "%.32s", tp + 3);
    nl_rec_t *r = t_rb_rec(&rb[0], 1);
    assert_string_equal(t_field(r, "trace.id"), trace);
    assert_true(hex16(t_field(r, "span.id")));
    snprintf(span, sizeof span, "%s", t_field(r, "span.id"));
    assert_null(t_field(r, "parent.span.id")); /* it started the trace */
    r = t_rb_rec(&rb[1], 0);
    assert_string_equal(t_field(r, "trace.id"), trace);
    assert_string_equal(t_field(r, "parent.span.id"), span);
    assert_true(hex16(t_field(r, "span.id")));
    assert_string_not_equal(t_field(r, "span.id"), span);
    assert_int_equal(rb[2].n, 2);
    r = t_rb_rec(&rb[2], 0);
    assert_string_equal(t_field(r, "event"), "nl.log.config");
    assert_non_null(strstr(t_field(r, "msg"), "traceparent"));
    assert_null(t_field(t_rb_rec(&rb[2], 1), "trace.id"));
    for (int i = 0; i < 3; i++) t_rb_free(&rb[i]);
    t_rmtree(dir);
}

int main(void)
{
    unsetenv("NL_TRACEPARENT");
    unsetenv("NL_GUID");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_and_refused),
        cmocka_unit_test(test_fields_and_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
