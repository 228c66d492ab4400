/* SPDX-License-Identifier: BSD-3-Clause */
/* test_words.c — the configuration-word helpers of internal/nl_words.h that nl-detect's
 * directives and the alert layer's share: the walk keeps the line number for messages and
 * refuses a line of too many words where it happens, an error names source, line and column,
 * files are read and parsed with their path as the source, names and strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_test.h"
#include "nl_words.h"
#include "nlkit/nl.h"

typedef struct seen {
    nl__cfg_at_t *at;
    long lines[8];
    int words[8], n;
    int fail_on; /* line number whose words fail, 0: none */
} seen_t;

static int on_line(void *ctx, nl__word_t *w, int n)
{
    seen_t *s = ctx;
    if (s->n < 8) {
        s->lines[s->n] = s->at->line;
        s->words[s->n++] = n;
    }
    if (s->at->line == s->fail_on) return nl__cfg_fail(s->at, w[n - 1].col, "bad '%s'", w[n - 1].s);
    return 0;
}

static void test_each_keeps_the_line_for_messages(void **state)
{
    (void)state;
    char err[128] = "";
    nl__cfg_at_t at = {.src = "f.conf", .err = err, .errlen = sizeof err};
    seen_t s = {.at = &at};
    assert_int_equal(nl__cfg_each("a b\n\n# note\n  c d e # tail\n", &at, on_line, &s), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.lines[0], 1);
    assert_int_equal(s.words[0], 2);
    assert_int_equal(s.lines[1], 4);
    assert_int_equal(s.words[1], 3);
    s = (seen_t){.at = &at, .fail_on = 2};
    assert_int_equal(nl__cfg_each("x\ny  zz\nw\n", &at, on_line, &s), NL_EINVAL);
    assert_string_equal(err, "f.conf:2:4: bad 'zz'");
    assert_int_equal(s.n, 2); /* stopped at the failing line */
}

static void test_each_refuses_too_many_words_where_they_are(void **state)
{
    (void)state;
    char text[4 * (NL_WORDS_MAX + 2) + 8] = "ok\n";
    for (int i = 0; i <= NL_WORDS_MAX; i++) strcat(text, "w ");
    char err[128] = "";
    nl__cfg_at_t at = {.src = "t", .err = err, .errlen = sizeof err};
    seen_t s = {.at = &at};
    assert_int_equal(nl__cfg_each(text, &at, on_line, &s), NL_EINVAL);
    char want[64];
    snprintf(want, sizeof want, "t:2:%d: more than %d words", 2 * NL_WORDS_MAX + 1, NL_WORDS_MAX);
    assert_string_equal(err, want);
    assert_int_equal(at.line, 2);
}

static int parse_count(void *obj, const char *text, const char *src, char *err, size_t errlen)
{
    int *n = obj;
    *n = (int)strlen(text);
    snprintf(err, errlen, "%s", src);
    return 7;
}

static void test_load_reads_and_parses_with_the_path(void **state)
{
    (void)state;
    char path[] = "/tmp/test_words_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "set x=1\n", 8), 8);
    close(fd);
    char err[256] = "";
    int n = -1;
    assert_int_equal(nl__cfg_load(path, parse_count, &n, err, sizeof err), 7);
    assert_int_equal(n, 8);
    assert_string_equal(err, path);
    unlink(path);
    n = -1;
    assert_int_equal(nl__cfg_load(path, parse_count, &n, err, sizeof err), NL_EIO);
    assert_int_equal(n, -1); /* not parsed */
    assert_non_null(strstr(err, path));
}

static void test_names_and_strings(void **state)
{
    (void)state;
    assert_true(nl__cfg_name_ok("disk.write-rate_2", 64));
    assert_false(nl__cfg_name_ok("", 64));
    assert_false(nl__cfg_name_ok("a b", 64));
    assert_false(nl__cfg_name_ok("a=b", 64));
    assert_true(nl__cfg_name_ok("abcd", 4));
    assert_false(nl__cfg_name_ok("abcde", 4));
    char *s = strdup("old");
    assert_int_equal(nl__cfg_set_str(&s, "new"), 0);
    assert_string_equal(s, "new");
    free(s);
    char small[12];
    nl__cfg_at_t at = {.src = "a-long-source", .line = 3, .err = small, .errlen = sizeof small};
    assert_int_equal(nl__cfg_fail(&at, 1, "%s", "xyz"), NL_EINVAL);
    assert_int_equal(strlen(small), sizeof small - 1); /* cut, terminated */
}

static void test_names_list(void **state)
{
    (void)state;
    char err[128] = "";
    nl__cfg_at_t at = {.src = "c", .line = 5, .err = err, .errlen = sizeof err};
    char *names[3] = {strdup("old"), NULL, NULL};
    int n = 1;
    assert_int_equal(nl__cfg_names(&at, 7, "host,path", names, &n, 3, 8, "keys", "key"), 0);
    assert_int_equal(n, 2); /* the old one replaced */
    assert_string_equal(names[0], "host");
    assert_string_equal(names[1], "path");
    assert_int_equal(nl__cfg_names(&at, 7, "a,b,c,d", names, &n, 3, 8, "keys", "key"), NL_EINVAL);
    assert_string_equal(err, "c:5:7: at most 3 keys");
    assert_int_equal(nl__cfg_names(&at, 2, "a,b c", names, &n, 3, 8, "keys", "key"), NL_EINVAL);
    assert_string_equal(err, "c:5:2: bad key 'b c'");
    assert_int_equal(nl__cfg_names(&at, 2, "toolongname", names, &n, 3, 8, "keys", "key"),
                     NL_EINVAL);
    for (int i = 0; i < n; i++) free(names[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_keeps_the_line_for_messages),
        cmocka_unit_test(test_each_refuses_too_many_words_where_they_are),
        cmocka_unit_test(test_load_reads_and_parses_with_the_path),
        cmocka_unit_test(test_names_and_strings),
        cmocka_unit_test(test_names_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
