/* SPDX-License-Identifier: BSD-3-Clause */
/* test_tool.c — what the tools leave to the programs they watch (internal/nl_tool.h): the
 * four variables that would redirect, filter or fold a log are gone, others stay, and a log
 * opened after it goes where it was told, every level, in full. What each program does
 * with it is tests/project/test_cli.sh's. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nlkit/nl.h"
#include "nl_test.h"
#include "nl_tool.h"

static void test_env_clear_removes_the_four_and_keeps_the_rest(void **state)
{
    (void)state;
    static const char *const watched[] = {"NL_DEST", "NL_CFG", "NL_SUMMARY", "NL_SUMMARY_FILE"};
    for (size_t i = 0; i < 4; i++) setenv(watched[i], "x", 1);
    setenv("NL_GUID", "6f1c2d9e-0d4b-4c52-9a43-2b7f5f0e8a11", 1); /* not a redirection */
    nl__tool_env_clear();
    for (size_t i = 0; i < 4; i++)
        if (getenv(watched[i])) fail_msg("%s is still set", watched[i]);
    assert_non_null(getenv("NL_GUID"));
    unsetenv("NL_GUID");
    nl__tool_env_clear(); /* twice, or with nothing set: no harm */
    assert_null(getenv("NL_DEST"));
}

static void test_a_log_opened_after_goes_where_it_was_told(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char elsewhere[512], levels[512], out_path[512];
    snprintf(elsewhere, sizeof elsewhere, "%s", t_path(dir, "elsewhere.log"));
    snprintf(levels, sizeof levels, "%s", t_path(dir, "levels"));
    snprintf(out_path, sizeof out_path, "%s", t_path(dir, "out.log"));
    FILE *f = fopen(levels, "w");
    assert_non_null(f);
    fputs("no-such-level\n", f); /* read at nl_open, it would put an error line in the log */
    fclose(f);
    setenv("NL_DEST", elsewhere, 1);
    setenv("NL_CFG", levels, 1);
    setenv("NL_SUMMARY", "tool.*=summary:0", 1);

    nl__tool_env_clear();
    nl_log_t *out = nl_open(out_path);
    assert_non_null(out);
    nl_set_level(out, NL_LVL_TRACE);
    assert_int_equal(nl_writel(out, NL_LVL_TRACE, "tool.work.start", "i=i", 1), 0);
    assert_int_equal(nl_writel(out, NL_LVL_TRACE, "tool.work.end", "i=i", 1), 0);
    nl_close(out);

    assert_int_not_equal(access(elsewhere, F_OK), 0); /* NL_DEST did not redirect it */
    t_readback_t rb;
    t_rb_load(&rb, out_path);
    assert_int_equal(rb.n, 2); /* no level-file error, nothing folded */
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "event"), "tool.work.start");
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "event"), "tool.work.end");
    t_rb_free(&rb);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_clear_removes_the_four_and_keeps_the_rest),
        cmocka_unit_test(test_a_log_opened_after_goes_where_it_was_told),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
