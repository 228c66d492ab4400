/* SPDX-License-Identifier: BSD-3-Clause */
/* test_file.c — files opened by name (internal/nl_file.h): a regular file (and a symbolic
 * link to one) opens, its descriptor blocking as usual; a FIFO with no writer is refused at
 * once (open(2) would wait for a writer for ever), as are a directory, a device and a Unix
 * socket, each named in the message; a missing file keeps ENOENT; nl__read_text, which
 * every configuration goes through, refuses the same. What each program says is
 * tests/project/test_files.sh's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "nl_file.h"
#include "nl_test.h"
#include "nl_words.h"
#include "nlkit/nl.h"

static void test_a_regular_file_opens_blocking(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[512], link[512], err[256] = "";
    snprintf(path, sizeof path, "%s", t_path(dir, "conf"));
    snprintf(link, sizeof link, "%s", t_path(dir, "link"));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("level Info\n", f);
    fclose(f);
    assert_int_equal(symlink(path, link), 0);
    for (int i = 0; i < 2; i++) {
        int fd = -2;
        assert_int_equal(nl__open_regular(i ? link : path, &fd, err, sizeof err), 0);
        assert_true(fd >= 0);
        assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        char buf[32];
        assert_int_equal(read(fd, buf, sizeof buf), 11);
        close(fd);
    }
    assert_int_equal(nl__check_regular(path, err, sizeof err), 0);
    t_rmtree(dir);
}

/* PATH's refusal: NL_EINVAL, errno EINVAL, fd -1, "PATH: KIND, not a regular file". */
static void refused(const char *path, const char *kind)
{
    char err[256] = "", want[600];
    snprintf(want, sizeof want, "%s: %s, not a regular file", path, kind);
    int fd = -2;
    errno = 0;
    double t0 = t_now_s();
    assert_int_equal(nl__open_regular(path, &fd, err, sizeof err), NL_EINVAL);
    assert_true(t_now_s() - t0 < 10); /* at once: a blocking open would never return */
    assert_int_equal(errno, EINVAL);
    assert_int_equal(fd, -1);
    assert_string_equal(err, want);
    err[0] = 0;
    assert_int_equal(nl__check_regular(path, err, sizeof err), NL_EINVAL);
    assert_string_equal(err, want);
    char *text = (char *)1;
    assert_int_equal(nl__read_text(path, 1024, &text, err, sizeof err), NL_EINVAL);
    assert_null(text);
    assert_string_equal(err, want);
    assert_int_equal(nl__open_regular(path, &fd, NULL, 0), NL_EINVAL); /* no message wanted */
}

static void test_others_are_refused_at_once_by_kind(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char fifo[512], sock[512];
    snprintf(fifo, sizeof fifo, "%s", t_path(dir, "fifo"));
    snprintf(sock, sizeof sock, "%s", t_path(dir, "sock"));
    assert_int_equal(mkfifo(fifo, 0600), 0);
    refused(fifo, "a FIFO");
    refused(dir, "a directory");
    refused("/dev/null", "a character device");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    assert_true(strlen(sock) < sizeof a.sun_path);
    strcpy(a.sun_path, sock);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    refused(sock, "a socket"); /* open(2) says ENXIO: what it is, said instead */
    close(s);
    t_rmtree(dir);
}

static void test_a_missing_file_keeps_its_errno(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path = t_path(dir, "none");
    char err[256] = "";
    int fd = -2;
    assert_int_equal(nl__open_regular(path, &fd, err, sizeof err), NL_EIO);
    assert_int_equal(errno, ENOENT); /* a first run's state file: not an error */
    assert_int_equal(fd, -1);
    assert_non_null(strstr(err, "No such file"));
    assert_int_equal(nl__check_regular(path, err, sizeof err), 0); /* may be created */
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_regular_file_opens_blocking),
        cmocka_unit_test(test_others_are_refused_at_once_by_kind),
        cmocka_unit_test(test_a_missing_file_keeps_its_errno),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
