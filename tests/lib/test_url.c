/* SPDX-License-Identifier: BSD-3-Clause */
/* test_url.c — destination URLs: every accepted form, and the malformed ones rejected. */
#include <string.h>
#include <syslog.h>

#include "nl_test.h"
#include "nl_url.h"
#include "nlkit/nl.h"

static void test_good_urls(void **state)
{
    (void)state;
    nl_url_t u;
    assert_int_equal(nl__url_parse("-", &u), 0);
    assert_int_equal(u.kind, NL_D_STDOUT);
    assert_int_equal(nl__url_parse("&", &u), 0);
    assert_int_equal(u.kind, NL_D_STDERR);
    /* stdout and stderr take options too (before: a file named "-?timeout=200") */
    assert_int_equal(nl__url_parse("-?timeout=200&flush=50", &u), 0);
    assert_int_equal(u.kind, NL_D_STDOUT);
    assert_int_equal(u.timeout_ms, 200);
    assert_int_equal(u.flush_ms, 50);
    assert_int_equal(nl__url_parse("&?buffer=0", &u), 0);
    assert_int_equal(u.kind, NL_D_STDERR);
    assert_int_equal(u.buffer, 0);
    assert_int_equal(nl__url_parse("-?colour=red", &u), NL_EURL);
    assert_int_equal(nl__url_parse("-x", &u), 0);
    assert_int_equal(u.kind, NL_D_FILE);
    assert_int_equal(nl__url_parse("/var/log/x.log", &u), 0);
    assert_int_equal(u.kind, NL_D_FILE);
    assert_string_equal(u.path, "/var/log/x.log");
    assert_int_equal(u.buffer, -1);
    assert_int_equal(nl__url_parse("relative/file?not-a-query", &u),
                     0); /* plain paths are literal */
    assert_string_equal(u.path, "relative/file?not-a-query");
    assert_int_equal(nl__url_parse("file:///tmp/a.log?buffer=0&flush=50", &u), 0);
    assert_int_equal(u.kind, NL_D_FILE);
    assert_string_equal(u.path, "/tmp/a.log");
    assert_int_equal(u.buffer, 0);
    assert_int_equal(u.flush_ms, 50);
    assert_int_equal(nl__url_parse("x-netlog://collector.example.org", &u), 0);
    assert_int_equal(u.kind, NL_D_TCP);
    assert_string_equal(u.host, "collector.example.org");
    assert_int_equal(u.port, NL_DEFAULT_PORT);
    assert_int_equal(nl__url_parse("x-netlog://127.0.0.1:5140?timeout=250", &u), 0);
    assert_int_equal(u.port, 5140);
    assert_int_equal(u.timeout_ms, 250);
    assert_int_equal(nl__url_parse("x-netlog://[::1]:9", &u), 0);
    assert_string_equal(u.host, "::1");
    assert_int_equal(u.port, 9);
    assert_int_equal(nl__url_parse("x-netlog-udp://h:514", &u), 0);
    assert_int_equal(u.kind, NL_D_UDP);
    assert_int_equal(nl__url_parse("x-syslog://local3:gridftp", &u), 0);
    assert_int_equal(u.kind, NL_D_SYSLOG);
    assert_int_equal(u.facility, LOG_LOCAL3);
    assert_string_equal(u.prog, "gridftp");
    assert_string_equal(u.path, "/dev/log");
    assert_int_equal(nl__url_parse("x-syslog://myprog?socket=/run/nl.sock", &u), 0);
    assert_int_equal(u.facility, LOG_USER);
    assert_string_equal(u.path, "/run/nl.sock");
    assert_int_equal(nl__url_parse("x-syslog://", &u), 0); /* program's own name */
    assert_string_equal(u.prog, "");
}

static void test_bad_urls(void **state)
{
    (void)state;
    static const char *bad[] = {
        "",                       /* empty */
        "http://example.org/log", /* unsupported scheme */
        "file://",                /* no path */
        "x-netlog://",            /* no host */
        "x-netlog://:5",          /* no host */
        "x-netlog://h:0",         /* port out of range */
        "x-netlog://h:65536",
        "x-netlog://h:12ab",
        "x-netlog://h:",
        "x-netlog://a::1:5", /* IPv6 without brackets */
        "x-netlog://[::1",   /* unclosed bracket */
        "x-netlog://h/path",
        "x-netlog-udp://",
        "x-syslog://nosuchfac:prog",
        "x-syslog://local0:bad prog",
        "file:///tmp/x?buffer=-1",
        "file:///tmp/x?buffer=999999999999",
        "file:///tmp/x?flush=0",
        "file:///tmp/x?color=red", /* unknown option */
        "file:///tmp/x?buffer",
        "file:///tmp/x?buffer=1&",
        "file:///tmp/x?socket=/x", /* socket is for syslog only */
    };
    nl_url_t u;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (nl__url_parse(bad[i], &u) != NL_EURL) fail_msg("'%s' was accepted", bad[i]);
    assert_int_equal(nl__url_parse(NULL, &u), NL_EURL);
    /* and nl_open reports the reason */
    int err = 0;
    assert_null(nl_open_ex("http://nope", &err));
    assert_int_equal(err, NL_EURL);
    assert_null(nl_open_ex("/nonexistent-dir/x.log", &err));
    assert_int_equal(err, NL_EIO);
    assert_string_equal(nl_strerror(NL_EURL), "malformed or unsupported destination URL");
}

static void test_null_safety(void **state)
{
    (void)state;
    assert_int_equal(nl_write(NULL, "x", NULL), NL_EINVAL);
    assert_int_equal(nl_flush(NULL), NL_EINVAL);
    assert_int_equal(nl_is_active(NULL), 0);
    assert_int_equal(nl_dropped(NULL), 0);
    assert_int_equal(nl_set_level(NULL, 1), NL_EINVAL);
    nl_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_urls),
        cmocka_unit_test(test_bad_urls),
        cmocka_unit_test(test_null_safety),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
