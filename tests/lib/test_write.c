/* SPDX-License-Identifier: BSD-3-Clause */
/* test_write.c — nl_write end to end into a file, read back with the parser: every fmt
 * type, malformed fmts, the fmt cache, constants, GUIDs, levels, the level file, NL_DEST. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nl_test.h"
#include "nlkit/nl.h"

static void test_every_type(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    nl_log_t *log = nl_open(path);
    assert_non_null(log);
    assert_true(nl_is_active(log));
    assert_int_equal(nl_write(log, "t.types", "s=s d=d i=i l=l u=u t=t", "a b", 2.5, -7,
                              -9000000000LL, 18000000000000000000ULL, 1732276800.5),
                     0);
    assert_int_equal(nl_write(log, "t.null", "s=s", (const char *)NULL), 0);
    assert_int_equal(nl_write(log, "t.none", NULL), 0);
    assert_int_equal(nl_write(log, "t.empty", ""), 0);
    assert_int_equal(nl_writel(log, NL_LVL_ERROR, "t.err", "msg=s", "disk \"full\""), 0);
    nl_close(log);

    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 5);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    /* the required fields come first, in order */
    assert_int_equal(r->i_ts, 0);
    assert_int_equal(r->i_event, 1);
    assert_int_equal(r->i_level, 2);
    assert_int_equal(r->i_guid, 3);
    assert_string_equal(t_field(r, "event"), "t.types");
    assert_string_equal(t_field(r, "level"), "Info");
    assert_int_equal(strlen(t_field(r, "guid")), NL_GUID_LEN);
    assert_string_equal(t_field(r, "s"), "a b");
    assert_string_equal(t_field(r, "d"), "2.5");
    assert_string_equal(t_field(r, "i"), "-7");
    assert_string_equal(t_field(r, "l"), "-9000000000");
    assert_string_equal(t_field(r, "u"), "18000000000000000000");
    assert_string_equal(t_field(r, "t"), "2024-11-22T12:00:00.500000Z");
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "s"), "");
    assert_int_equal(t_rb_rec(&rb, 2)->n, 4);
    assert_int_equal(t_rb_rec(&rb, 3)->n, 4);
    r = t_rb_rec(&rb, 4);
    assert_string_equal(t_field(r, "level"), "Error");
    assert_string_equal(t_field(r, "msg"), "disk \"full\"");
    t_rb_free(&rb);
    t_rmtree(dir);
}

static void test_bad_fmt(void **state)
{
    (void)state;
    static const char *bad[] = {
        "x",       "x=",      "x=q",     "=s",      "x=ss",   "x=s y", "a b=s",       "ts=s",
        "event=s", "level=i", "x=s x=d", "gu id=s", "guid=i", "x\t=s", "n\xc3\xa9=s",
    };
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    nl_log_t *log = nl_open(path);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (nl_write(log, "t.bad", bad[i], 1, 2, 3) != NL_EFMT)
            fail_msg("fmt '%s' accepted", bad[i]);
    /* more fields than NL_FMT_FIELDS_MAX */
    char many[NL_FMT_FIELDS_MAX * 8 + 16] = "";
    for (int i = 0; i <= NL_FMT_FIELDS_MAX; i++) sprintf(many + strlen(many), "f%d=i ", i);
    assert_int_equal(nl_write(log, "t.bad", many), NL_EFMT);
    assert_int_equal(nl_writel(log, 99, "t.lvl", NULL), NL_EINVAL);
    assert_int_equal(nl_write(log, NULL, NULL), NL_EINVAL);
    nl_stats_t st;
    nl_stats(log, &st);
    assert_int_equal(st.errors, sizeof bad / sizeof bad[0] + 3);
    assert_int_equal(st.written, 0);
    nl_close(log);
    size_t len;
    char *text = t_slurp(path, &len);
    assert_int_equal(len, 0);
    free(text);
    t_rmtree(dir);
}

/* A changed fmt is honoured: for the same event name, and for the same fmt pointer whose
 * content changed (NetLogger reused the first template for an event name). */
static void test_fmt_cache(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    nl_log_t *log = nl_open(path);
    nl_write(log, "t.same", "a=i", 1);
    nl_write(log, "t.same", "b=s", "two");
    char fmt[32];
    strcpy(fmt, "x=i");
    nl_write(log, "t.buf", fmt, 3);
    strcpy(fmt, "y=d");
    nl_write(log, "t.buf", fmt, 4.5);
    /* more distinct formats than the cache holds still come out right */
    for (int i = 0; i < 600; i++) {
        char f[32];
        snprintf(f, sizeof f, "k%d=i", i);
        assert_int_equal(nl_write(log, "t.many", f, i), 0);
    }
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 604);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "a"), "1");
    assert_null(t_field(t_rb_rec(&rb, 1), "a"));
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "b"), "two");
    assert_string_equal(t_field(t_rb_rec(&rb, 2), "x"), "3");
    assert_string_equal(t_field(t_rb_rec(&rb, 3), "y"), "4.5");
    assert_null(t_field(t_rb_rec(&rb, 3), "x"));
    for (int i = 0; i < 600; i++) {
        char name[16], want[16];
        snprintf(name, sizeof name, "k%d", i);
        snprintf(want, sizeof want, "%d", i);
        const char *got = t_field(t_rb_rec(&rb, 4 + (size_t)i), name);
        if (!got || strcmp(got, want))
            fail_msg("line %d: %s=%s", 4 + i, name, got ? got : "(none)");
    }
    t_rb_free(&rb);
    t_rmtree(dir);
}

static void test_consts_and_guid(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    nl_log_t *log = nl_open(path);
    assert_int_equal(nl_const_std(log), 0);
    assert_int_equal(nl_const_set(log, "site", "lbl gov"), 0);
    assert_int_equal(nl_const_set(log, "guid", "x"), NL_ENAME);
    assert_int_equal(nl_const_set(log, "bad name", "x"), NL_ENAME);
    nl_write(log, "t.c1", "n=i", 1);
    nl_write(log, "t.c2", "host=s", "override");           /* the field replaces the constant */
    assert_int_equal(nl_const_set(log, "site", "anl"), 0); /* replace a constant */
    nl_write(log, "t.c3", "host=s", "again");
    char mine[NL_GUID_LEN + 1];
    nl_guid_new(mine);
    nl_write(log, "t.g", "guid=s", mine);
    assert_int_equal(nl_set_guid(log, "not-a-uuid"), NL_EINVAL);
    assert_int_equal(nl_set_guid(log, mine), 0);
    assert_string_equal(nl_guid(log), mine);
    nl_write(log, "t.g2", NULL);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    char host[256];
    gethostname(host, sizeof host);
    assert_string_equal(t_field(r, "host"), host);
    assert_string_equal(t_field(r, "prog"), "test_write");
    assert_int_equal(atoi(t_field(r, "pid")), getpid());
    assert_string_equal(t_field(r, "site"), "lbl gov");
    assert_int_equal(r->i_guid, 3); /* constants follow the guid */
    assert_int_equal(r->f[4].name_len, 4);
    assert_memory_equal(r->f[4].name, "host", 4);
    r = t_rb_rec(&rb, 1);
    assert_string_equal(t_field(r, "host"), "override");
    assert_string_equal(t_field(r, "site"), "lbl gov");
    r = t_rb_rec(&rb, 2);
    assert_string_equal(t_field(r, "host"), "again");
    assert_string_equal(t_field(r, "site"), "anl");
    r = t_rb_rec(&rb, 3);
    assert_string_equal(t_field(r, "guid"), mine);
    assert_int_equal(r->i_guid, 3);
    assert_string_equal(t_field(t_rb_rec(&rb, 4), "guid"), mine);
    t_rb_free(&rb);
    t_rmtree(dir);
}

static void test_levels(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    nl_log_t *log = nl_open(path);
    assert_int_equal(nl_get_level(log), NL_LVL_INFO);
    nl_writel(log, NL_LVL_DEBUG, "t.debug1", NULL);
    nl_writel(log, NL_LVL_WARN, "t.warn", NULL);
    assert_int_equal(nl_set_level(log, NL_LVL_TRACE), 0);
    nl_writel(log, NL_LVL_TRACE, "t.trace", NULL);
    assert_int_equal(nl_set_level(log, NL_LVL_ERROR), 0);
    nl_write(log, "t.info", NULL);
    nl_writel(log, NL_LVL_FATAL, "t.fatal", NULL);
    assert_int_equal(nl_set_level(log, 6), NL_EINVAL);
    nl_stats_t st;
    nl_stats(log, &st);
    assert_int_equal(st.filtered, 2);
    assert_int_equal(st.written, 3);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 3);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "event"), "t.warn");
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "level"), "Trace");
    assert_string_equal(t_field(t_rb_rec(&rb, 2), "level"), "Fatal");
    t_rb_free(&rb);
    assert_int_equal(nl_level_parse("warning", 7), NL_LVL_WARN);
    assert_int_equal(nl_level_parse("DEBUG", 5), NL_LVL_DEBUG);
    assert_int_equal(nl_level_parse("loud", 4), NL_ELEVEL);
    t_rmtree(dir);
}

static void write_file(const char *path, const char *text)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    fputs(text, f);
    fclose(f);
    rename(tmp, path); /* a new inode and mtime, as editors do */
}

/* The level file is re-read while the program runs, without any call from it. */
/* Pre-encoded lines go out as they are, through the same threshold and counters. */
static void test_write_line(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    nl_log_t *log = nl_open(path);
    assert_int_equal(nl_const_set(log, "host", "h1"), 0);
    nl_buf_t b;
    char st_[256];
    nl_buf_init(&b, st_, sizeof st_);
    nl_enc_begin(&b, 1000000, "t.derived", NL_LVL_WARN, NULL);
    nl_enc_dbl(&b, "x", 2.5);
    assert_int_equal(nl_enc_end(&b), 0);
    assert_int_equal(nl_write_line(log, NL_LVL_WARN, b.p, b.len), 0);
    assert_int_equal(nl_write_line(log, NL_LVL_DEBUG, b.p, b.len), 0); /* filtered */
    assert_int_equal(nl_write_line(log, NL_LVL_WARN, b.p, b.len - 1), NL_EINVAL);
    assert_int_equal(nl_write_line(log, NL_LVL_WARN, "a=1\nb=2\n", 8), NL_EINVAL);
    assert_int_equal(nl_write_line(log, 9, b.p, b.len), NL_EINVAL);
    assert_int_equal(nl_write_line(NULL, NL_LVL_WARN, b.p, b.len), NL_EINVAL);
    nl_stats_t st;
    nl_stats(log, &st);
    assert_int_equal(st.written, 1);
    assert_int_equal(st.filtered, 1);
    assert_int_equal(st.errors, 3);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 1);
    nl_rec_t *r = t_rb_rec(&rb, 0);
    assert_string_equal(t_field(r, "event"), "t.derived");
    assert_string_equal(t_field(r, "ts"), "1970-01-01T00:00:01.000000Z");
    assert_null(t_field(r, "host")); /* written as it is: no constants added */
    assert_true(t_num(r, "x") == 2.5);
    t_rb_free(&rb);
    nl_buf_free(&b);
    t_rmtree(dir);
}

static void test_level_file(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log"), *cfg = t_path(dir, "level.cfg");
    write_file(cfg, "# detail for the transfer service\nlevel=Debug\n");
    char url[600];
    snprintf(url, sizeof url, "file://%s?flush=20", path);
    setenv("NL_CFG", cfg, 1);
    nl_log_t *log = nl_open(url);
    unsetenv("NL_CFG");
    assert_int_equal(nl_get_level(log), NL_LVL_DEBUG);
    write_file(cfg, "Warn\n");
    int waited = 0;
    while (nl_get_level(log) != NL_LVL_WARN && waited < 5000) t_sleep_ms(10), waited += 10;
    assert_int_equal(nl_get_level(log), NL_LVL_WARN);
    write_file(cfg, "level=loud\n"); /* a mistake: reported in the log, level kept */
    waited = 0;
    size_t len = 0;
    char *text = NULL;
    while (waited < 5000) {
        nl_flush(log);
        free(text);
        text = t_slurp(path, &len);
        if (text && strstr(text, "nl.log.config")) break;
        t_sleep_ms(10), waited += 10;
    }
    assert_non_null(strstr(text, "event=nl.log.config level=Error"));
    assert_non_null(strstr(text, "level.cfg:1: no valid level name"));
    assert_int_equal(nl_get_level(log), NL_LVL_WARN);
    free(text);
    assert_int_equal(nl_level_file(log, cfg), NL_ELEVEL);
    nl_close(log);
    t_rmtree(dir);
}

/* A mistyped NL_CFG is said on standard error as well as in the log, once, naming the
 * variable, the file, the word and what was expected: with the log in a file the terminal
 * said nothing, and the program ran at the default level. */
static void test_level_file_said(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[512], cfg[512], url[600], want[1400];
    snprintf(path, sizeof path, "%s", t_path(dir, "a.log"));
    snprintf(cfg, sizeof cfg, "%s", t_path(dir, "level.cfg"));
    write_file(cfg, "# quieter\nlevel=Infoo\n");
    snprintf(url, sizeof url, "file://%s", path);
    setenv("NL_CFG", cfg, 1);
    t_opened_t o = {url, NULL};
    char *said = t_stderr_of(t_open_into, &o);
    assert_non_null(o.log);
    snprintf(want, sizeof want,
             "nlkit: NL_CFG=%s:2: no valid level name, 'Infoo' (expected one of Fatal Error "
             "Warn Info Debug Trace, alone or as level=NAME); the level stays Info\n",
             cfg);
    assert_string_equal(said, want);
    free(said);
    t_opened_t again = {url, NULL}; /* a second log reads the same variable: said already */
    said = t_stderr_of(t_open_into, &again);
    unsetenv("NL_CFG");
    assert_string_equal(said, "");
    free(said);
    nl_close(again.log);
    assert_int_equal(nl_get_level(o.log), NL_LVL_INFO);
    nl_close(o.log);
    char *text = t_slurp(path, NULL); /* and in the log, as before */
    assert_non_null(text);
    assert_non_null(strstr(text, "event=nl.log.config level=Error"));
    assert_non_null(strstr(text, "level.cfg:2: no valid level name, 'Infoo'"));
    free(text);
    t_rmtree(dir);
}

/* A level file or rules file that is a FIFO (no writer) hung nl_open, the flusher and
 * nl_close. Now both are refused for not being regular files, said in the log, and nl_open
 * returns at once. alarm() turns a hang into a failure. */
static void test_config_fifo_never_blocks(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[512], lvl[512], rules[512], url[600];
    snprintf(path, sizeof path, "%s", t_path(dir, "a.log"));
    snprintf(lvl, sizeof lvl, "%s", t_path(dir, "level.fifo"));
    snprintf(rules, sizeof rules, "%s", t_path(dir, "rules.fifo"));
    assert_int_equal(mkfifo(lvl, 0600), 0);
    assert_int_equal(mkfifo(rules, 0600), 0);
    snprintf(url, sizeof url, "file://%s?flush=20", path);
    setenv("NL_CFG", lvl, 1);
    setenv("NL_SUMMARY_FILE", rules, 1);
    alarm(10);
    double t0 = t_now_s();
    nl_log_t *log = nl_open(url);
    unsetenv("NL_CFG");
    unsetenv("NL_SUMMARY_FILE");
    assert_non_null(log);
    assert_true(t_now_s() - t0 < 2);
    assert_int_equal(nl_get_level(log), NL_LVL_INFO);
    nl_perr_t err;
    assert_int_equal(nl_summary_file(log, rules, &err), NL_EINVAL);
    assert_non_null(strstr(err.msg, "not a regular file"));
    assert_int_equal(nl_level_file(log, lvl), NL_EINVAL);
    t_sleep_ms(100); /* a few flusher rounds: none may block on the FIFOs */
    nl_close(log);
    alarm(0);
    size_t len;
    char *text = t_slurp(path, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "event=nl.log.config level=Error"));
    assert_non_null(strstr(text, "level.fifo: not a regular file"));
    assert_non_null(strstr(text, "event=nl.summary.config level=Error"));
    free(text);
    t_rmtree(dir);
}

static void test_env_overrides(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "redirected.log");
    char guid[NL_GUID_LEN + 1];
    nl_guid_new(guid);
    setenv("NL_DEST", path, 1);
    setenv("NL_GUID", guid, 1);
    nl_log_t *log = nl_open("-"); /* the program asked for stdout; the operator said otherwise */
    unsetenv("NL_DEST");
    assert_non_null(log);
    assert_string_not_equal(nl_guid(log), guid); /* a GUID of its own, linked to the parent's */
    char own[NL_GUID_LEN + 1];
    snprintf(own, sizeof own, "%s", nl_guid(log));
    nl_write(log, "t.redirected", "n=i", 1);
    nl_close(log);
    setenv("NL_GUID", "garbage", 1); /* not a UUID: a fresh GUID instead */
    log = nl_open(path);
    unsetenv("NL_GUID");
    assert_string_not_equal(nl_guid(log), "garbage");
    assert_int_equal(strlen(nl_guid(log)), NL_GUID_LEN);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 1);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "guid"), own);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "parent.guid"), guid);
    t_rb_free(&rb);
    setenv("NL_DEST", "bogus://x", 1);
    int err;
    assert_null(nl_open_ex("-", &err));
    assert_int_equal(err, NL_EURL);
    unsetenv("NL_DEST");
    t_rmtree(dir);
}

/* Buffered until flushed; an over-long line is refused, counted and reported. */
static void test_flush_and_too_big(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "a.log");
    char url[600];
    snprintf(url, sizeof url, "file://%s?flush=3600000", path);
    nl_log_t *log = nl_open(url);
    nl_write(log, "t.buffered", NULL);
    size_t len;
    char *text = t_slurp(path, &len);
    assert_int_equal(len, 0);
    free(text);
    assert_int_equal(nl_flush(log), 0);
    text = t_slurp(path, &len);
    assert_non_null(strstr(text, "t.buffered"));
    free(text);
    char *huge = malloc((size_t)NL_LINE_MAX + 1);
    memset(huge, 'x', NL_LINE_MAX);
    huge[NL_LINE_MAX] = '\0';
    assert_int_equal(nl_write(log, "t.huge", "v=s", huge), NL_ETOOBIG);
    free(huge);
    assert_int_equal(nl_dropped(log), 1);
    nl_write(log, "t.after", NULL);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 3);
    nl_rec_t *r = t_rb_rec(&rb, 1);
    assert_string_equal(t_field(r, "event"), "nl.log.dropped");
    assert_string_equal(t_field(r, "level"), "Warn");
    assert_string_equal(t_field(r, "n"), "1");
    assert_string_equal(t_field(t_rb_rec(&rb, 2), "event"), "t.after");
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* A 't' field that is no time (1e18 s, NaN, infinity) was undefined behaviour (an int64
 * overflow) and wrote year 0000: refused with NL_ETS, counted, nothing written. */
static void test_bad_time_field(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char path[512], url[600];
    snprintf(path, sizeof path, "%s", t_path(dir, "t.log"));
    snprintf(url, sizeof url, "file://%s", path);
    nl_log_t *log = nl_open(url);
    assert_non_null(log);
    assert_int_equal(nl_write(log, "x", "at=t", 1e18), NL_ETS);
    assert_int_equal(nl_write(log, "x", "at=t", (double)NAN), NL_ETS);
    assert_int_equal(nl_write(log, "x", "at=t", (double)-INFINITY), NL_ETS);
    assert_int_equal(nl_write(log, "x", "at=t", -7e10), NL_ETS); /* before year 1 */
    assert_int_equal(nl_write(log, "ok", "at=t", 1795473503.25), 0);
    /* the nearest microsecond: .0000004 s is .000000 (rounding twice made it .000001) */
    assert_int_equal(nl_write(log, "ok", "at=t", 1795374198.0000004), 0);
    assert_int_equal(nl_write(log, "ok", "at=t", 1795374198.9999996), 0);
    nl_stats_t st;
    nl_stats(log, &st);
    assert_int_equal(st.errors, 4);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 3);
    assert_string_equal(t_field(t_rb_rec(&rb, 0), "at"), "2026-11-23T22:38:23.250000Z");
    assert_string_equal(t_field(t_rb_rec(&rb, 1), "at"), "2026-11-22T19:03:18.000000Z");
    assert_string_equal(t_field(t_rb_rec(&rb, 2), "at"), "2026-11-22T19:03:19.000000Z");
    t_rb_free(&rb);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type),
        cmocka_unit_test(test_bad_fmt),
        cmocka_unit_test(test_fmt_cache),
        cmocka_unit_test(test_consts_and_guid),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_write_line),
        cmocka_unit_test(test_level_file),
        cmocka_unit_test(test_level_file_said),
        cmocka_unit_test(test_config_fifo_never_blocks),
        cmocka_unit_test(test_bad_time_field),
        cmocka_unit_test(test_env_overrides),
        cmocka_unit_test(test_flush_and_too_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
