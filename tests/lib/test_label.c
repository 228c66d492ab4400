/* SPDX-License-Identifier: BSD-3-Clause */
/* test_label.c — label names from field names (internal/nl_label.h): the rule nl-detect's
 * metrics and its Alertmanager alerts share. */
#include <string.h>

#include "nl_buf.h"
#include "nl_label.h"
#include "nl_test.h"

static const char *const ours[] = {"stream", "algo"};

/* The label name for name, as text (a static buffer, for assertions). */
static const char *label(const char *name)
{
    static char out[128];
    char st[64];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nl__label_name(&b, name, strlen(name), ours, sizeof ours / sizeof ours[0]);
    assert_false(b.err);
    assert_true(b.len < sizeof out);
    memcpy(out, b.p, b.len);
    out[b.len] = '\0';
    nl_buf_free(&b);
    return out;
}

static void test_plain_names_kept(void **state)
{
    (void)state;
    assert_string_equal(label("host"), "host");
    assert_string_equal(label("Host_2"), "Host_2");
    assert_string_equal(label(""), "");
}

static void test_other_bytes_become_underscores(void **state)
{
    (void)state;
    assert_string_equal(label("job.id"), "job_id");
    assert_string_equal(label("a-b c"), "a_b_c");
    assert_string_equal(label("d\xc3\xa9j\xc3\xa0"), "d__j__"); /* each byte of UTF-8 */
}

static void test_leading_digit_prefixed(void **state)
{
    (void)state;
    assert_string_equal(label("2xx"), "_2xx");
    assert_string_equal(label("9"), "_9");
}

static void test_own_and_reserved_names_get_key(void **state)
{
    (void)state;
    assert_string_equal(label("stream"), "key_stream");
    assert_string_equal(label("algo"), "key_algo");
    assert_string_equal(label("streams"), "streams"); /* only the whole name */
    assert_string_equal(label("__name__"), "key___name__");
    assert_string_equal(label("_x"), "_x");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_names_kept),
        cmocka_unit_test(test_other_bytes_become_underscores),
        cmocka_unit_test(test_leading_digit_prefixed),
        cmocka_unit_test(test_own_and_reserved_names_get_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
