/* SPDX-License-Identifier: BSD-3-Clause */
/* test_reader.c — the tools' "for each line" loop of internal/nl_reader.h: every line reaches
 * on_line with its number, a too-long line goes to on_toolong and the lines after it still
 * come, on_line's nonzero return ends the walk and is returned, a missing file is an error,
 * and on a pipe with nothing to read on_idle is called and a stop ends the walk. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nl_reader.h"
#include "nl_test.h"
#include "nlkit/nl_bp.h"

typedef struct got {
    int lines, toolong, idle;
    long linenos[8], toolong_at;
    char first[32];
    int stop_after; /* return this line's number from on_line (0: never) */
    volatile sig_atomic_t stop;
} got_t;

static int on_line(void *ctx, const char *line, size_t len, const char *name, long lineno)
{
    (void)name;
    got_t *g = ctx;
    if (g->lines < 8) g->linenos[g->lines] = lineno;
    if (!g->lines) snprintf(g->first, sizeof g->first, "%.*s", (int)len, line);
    g->lines++;
    return lineno == g->stop_after ? (int)lineno : 0;
}

static void on_toolong(void *ctx, const char *name, long lineno)
{
    (void)name;
    got_t *g = ctx;
    g->toolong++;
    g->toolong_at = lineno;
}

static void on_idle(void *ctx)
{
    got_t *g = ctx;
    if (++g->idle == 3) g->stop = 1;
}

static void write_file(const char *path, const char *a, size_t big, const char *b)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(a, f);
    for (size_t i = 0; i < big; i++) fputc('x', f);
    if (big) fputc('\n', f);
    fputs(b, f);
    fclose(f);
}

static void test_each_line_and_the_too_long_one(void **state)
{
    (void)state;
    char path[] = "/tmp/test_reader_XXXXXX";
    close(mkstemp(path));
    write_file(path, "one\ntwo\n", 2 * NL_LINE_MAX, "four\nfive");
    got_t g = {0};
    nl__lines_t how = {
        .prog = "t", .timeout_ms = -1, .on_line = on_line, .on_toolong = on_toolong, .ctx = &g};
    assert_int_equal(nl__reader_each(path, &how), 0);
    assert_int_equal(g.lines, 4);
    assert_string_equal(g.first, "one");
    assert_int_equal(g.linenos[1], 2);
    assert_int_equal(g.toolong, 1);
    assert_int_equal(g.toolong_at, 3);
    assert_int_equal(g.linenos[2], 4);
    assert_int_equal(g.linenos[3], 5); /* the last line, without its newline */
    g = (got_t){.stop_after = 2};
    assert_int_equal(nl__reader_each(path, &how), 2);
    assert_int_equal(g.lines, 2);
    unlink(path);
    g = (got_t){0};
    assert_int_equal(nl__reader_each(path, &how), 1); /* gone: said, and an error */
    assert_int_equal(g.lines, 0);
}

static void test_idle_pipe_and_stop(void **state)
{
    (void)state;
    char path[] = "/tmp/test_reader_fifo_XXXXXX";
    close(mkstemp(path));
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    int w = open(path, O_RDWR); /* a writer that stays, so the reader sees no end */
    assert_true(w >= 0);
    assert_int_equal(write(w, "a\n", 2), 2);
    got_t g = {0};
    nl__lines_t how = {.prog = "t",
                       .timeout_ms = 5,
                       .stop = &g.stop,
                       .on_line = on_line,
                       .on_idle = on_idle,
                       .ctx = &g};
    assert_int_equal(nl__reader_each(path, &how), 0);
    assert_int_equal(g.lines, 1);
    assert_int_equal(g.idle, 3); /* stopped by the third idle call, not by an end */
    close(w);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_line_and_the_too_long_one),
        cmocka_unit_test(test_idle_pipe_and_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
