/* SPDX-License-Identifier: BSD-3-Clause */
/* test_detect_cli.c — the nl-detect program itself (path in argv[1]): a replay run twice
 * gives byte-identical reports; usage and configuration errors exit 2 with a message that
 * says where; an unreadable input exits 1; an over-long line of binary junk is skipped and
 * counted while the lines after it are still read; NetLogger's lines read with --netlogger. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nl_test.h"

static const char *prog;

/* Run prog with args; stdin from in (or /dev/null), stdout/stderr to files. Exit status. */
static int run(const char *in, const char *out, const char *errf, const char *const *args)
{
    t_child_t c = {.in = in, .out = out, .err = errf};
    return t_run(prog, &c, args);
}

static const char *conf_text =
    "stream disk event=gridftp.disk.write value=rate key=host algo=all history=60 min=20\n"
    "missing job.run timeout=10\n"
    "when gridftp.disk.write rate below 50% of baseline for 20s key=host baseline.n=60\n";

/* A 10-minute log: two hosts, noisy throughput, a dip on h2, a job that never ends. */
static void write_input(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    uint64_t rs = 3;
    for (int t = 0; t < 600; t++) {
        for (int h = 1; h <= 2; h++) {
            double rate = 100e6 * (0.9 + 0.2 * (double)(t_rand(&rs) % 1000) / 1000.0);
            if (h == 2 && t >= 300 && t < 400) rate *= 0.3;
            fprintf(f,
                    "ts=2026-11-22T12:%02d:%02d.000000Z event=gridftp.disk.write.summary "
                    "level=Info host=h%d n=4 dur.sum=0.5 v.sum=%.0f int=1\n",
                    t / 60, t % 60, h, rate * 0.5);
        }
        if (t % 20 == 0) {
            fprintf(f,
                    "ts=2026-11-22T12:%02d:%02d.000000Z event=job.run.start level=Info "
                    "guid=j%d\n",
                    t / 60, t % 60, t);
            if (t != 260)
                fprintf(f,
                        "ts=2026-11-22T12:%02d:%02d.500000Z event=job.run.end level=Info "
                        "guid=j%d\n",
                        t / 60, t % 60, t);
        }
    }
    fclose(f);
}

static void test_replay_identical(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char in[512], conf[512], o1[512], o2[512], e[512];
    snprintf(in, sizeof in, "%s", t_path(dir, "in.log"));
    snprintf(conf, sizeof conf, "%s", t_path(dir, "d.conf"));
    snprintf(o1, sizeof o1, "%s", t_path(dir, "o1"));
    snprintf(o2, sizeof o2, "%s", t_path(dir, "o2"));
    snprintf(e, sizeof e, "%s", t_path(dir, "err"));
    write_input(in);
    FILE *f = fopen(conf, "w");
    fputs(conf_text, f);
    fclose(f);
    const char *a1[] = {"--config", conf, in, NULL};
    assert_int_equal(run(NULL, o1, e, a1), 0);
    const char *a2[] = {"-c", conf, "-", NULL}; /* the same file through stdin */
    assert_int_equal(run(in, o2, e, a2), 0);
    size_t l1, l2;
    char *t1 = t_slurp(o1, &l1), *t2 = t_slurp(o2, &l2);
    assert_true(l1 > 0 && l1 == l2 && !memcmp(t1, t2, l1));
    /* and it found what was put there */
    assert_non_null(strstr(t1, "event=nl.missing level=Warn guid=j260"));
    assert_non_null(strstr(t1, "event=nl.alert.start"));
    assert_non_null(strstr(t1, "algo=cdf-hu key.host=h2"));
    free(t1);
    free(t2);
    t_rmtree(dir);
}

static void test_usage_errors(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char o[512], e[512], conf[512];
    snprintf(o, sizeof o, "%s", t_path(dir, "o"));
    snprintf(e, sizeof e, "%s", t_path(dir, "e"));
    snprintf(conf, sizeof conf, "%s", t_path(dir, "bad.conf"));
    const char *help[] = {"--help", NULL};
    assert_int_equal(run(NULL, o, e, help), 0);
    char *t = t_slurp(o, NULL);
    assert_non_null(strstr(t, "Usage: nl-detect"));
    free(t);
    const char *none[] = {NULL};
    assert_int_equal(run(NULL, o, e, none), 2);
    t = t_slurp(e, NULL);
    assert_non_null(strstr(t, "nothing to watch"));
    free(t);
    FILE *f = fopen(conf, "w");
    fputs("# ok\nstream s event=m algo=msd-xx\n", f);
    fclose(f);
    const char *badconf[] = {"-c", conf, NULL};
    assert_int_equal(run(NULL, o, e, badconf), 2);
    t = t_slurp(e, NULL);
    assert_non_null(strstr(t, "bad.conf:2:23: unknown algorithm"));
    free(t);
    const char *badopt[] = {"--event", "m", "--history", "1", NULL};
    assert_int_equal(run(NULL, o, e, badopt), 2);
    const char *noin[] = {"-e", "m", "/nonexistent/in.log", NULL};
    assert_int_equal(run(NULL, o, e, noin), 1);
    t = t_slurp(e, NULL);
    assert_non_null(strstr(t, "/nonexistent/in.log: No such file"));
    free(t);
    t_rmtree(dir);
}

/* --metrics: what cannot be served is a usage error (2) saying why, before any input. */
static void test_metrics_errors(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char o[512], e[512], conf[512];
    snprintf(o, sizeof o, "%s", t_path(dir, "o"));
    snprintf(e, sizeof e, "%s", t_path(dir, "e"));
    snprintf(conf, sizeof conf, "%s", t_path(dir, "k.conf"));
    FILE *f = fopen(conf, "w");
    fputs("stream s event=x key=a.b,a_b\n", f);
    fclose(f);
    static const struct {
        const char *args[8], *says;
    } cases[] = {
        {{"-c", "CONF", "--metrics", "127.0.0.1:0"}, "stream s: key fields a.b and a_b"},
        {{"-e", "x", "--metrics", "0", "--metrics-keys", "host,host"}, "would be one label"},
        {{"-e", "x", "--metrics", "0", "--metrics-buckets", "3"}, "1, 2, 4, 8, 16 or 32"},
        {{"-e", "x", "--metrics", "127.0.0.1:70000"}, "give HOST:PORT"},
        {{"-e", "x", "--metrics", "[::1"}, "give HOST:PORT"},
        {{"-e", "x", "--metrics", "0", "--metrics-max-series", "0"}, "must be positive"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[9];
        int n = 0;
        for (; n < 8 && cases[i].args[n]; n++)
            args[n] = strcmp(cases[i].args[n], "CONF") ? cases[i].args[n] : conf;
        args[n] = NULL;
        assert_int_equal(run(NULL, o, e, args), 2);
        char *t = t_slurp(e, NULL);
        if (!strstr(t, cases[i].says)) print_message("case %zu said: %s\n", i, t);
        assert_non_null(strstr(t, cases[i].says));
        free(t);
    }
    t_rmtree(dir);
}

static void test_junk_and_long_lines(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char in[512], o[512], e[512];
    snprintf(in, sizeof in, "%s", t_path(dir, "in"));
    snprintf(o, sizeof o, "%s", t_path(dir, "o"));
    snprintf(e, sizeof e, "%s", t_path(dir, "e"));
    FILE *f = fopen(in, "w");
    for (int t = 0; t < 30; t++)
        fprintf(f, "ts=2026-11-22T12:00:%02d.000000Z event=m level=Info x=%d\n", t, 10 + t % 2);
    for (int i = 0; i < 3 * 1024 * 1024; i++) fputc(i % 251 == 10 ? 'x' : i % 251, f); /* 3 MB */
    fputc('\n', f);
    fprintf(f, "ts=2026-11-22T12:00:40.000000Z event=m level=Info x=99\n");
    fclose(f);
    const char *a[] = {"-e", "m",       "-v", "x", "-a", "msd-hu", "--min", "20", "--episode-min",
                       "1",  "--stats", in,   NULL};
    assert_int_equal(run(NULL, o, e, a), 0);
    char *t = t_slurp(e, NULL);
    assert_non_null(strstr(t, ":31:1: line longer than NL_LINE_MAX"));
    assert_non_null(strstr(t, "bad=1 "));
    assert_non_null(strstr(t, "values=31 "));
    free(t);
    t = t_slurp(o, NULL);
    assert_non_null(strstr(t, "event=nl.anomaly.start")); /* the line after the junk counted */
    assert_non_null(strstr(t, "x=99"));
    free(t);
    t_rmtree(dir);
}

/* nl-detect --netlogger: summaries written NetLogger's way (floats as %f, a lowercase z,
 * the level in capitals, a word that is no field) are values like any other; strictly
 * read, the same lines are refused. */
static void test_netlogger_input(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char in[512], o[512], e[512];
    snprintf(in, sizeof in, "%s", t_path(dir, "in"));
    snprintf(o, sizeof o, "%s", t_path(dir, "o"));
    snprintf(e, sizeof e, "%s", t_path(dir, "e"));
    FILE *f = fopen(in, "w");
    for (int t = 0; t < 40; t++)
        fprintf(f,
                "ts=2026-11-22T12:00:%02d.000000z event=x.summary level=INFO host=h1 note "
                "n=4 dur.sum=%f v.sum=%f int=1.000000\n",
                t, 0.5, (t == 35 ? 1e3 : 50e6 + 1e6 * (t % 3)));
    fclose(f);
    const char *a[] = {"--netlogger", "-e", "x.summary",     "-v", "rate",    "-a", "msd-hu",
                       "--min",       "20", "--episode-min", "1",  "--stats", in,   NULL};
    assert_int_equal(run(NULL, o, e, a), 0);
    char *t = t_slurp(e, NULL);
    assert_non_null(strstr(t, "bad=0 "));
    assert_non_null(strstr(t, "values=40 "));
    free(t);
    t = t_slurp(o, NULL);
    assert_non_null(strstr(t, "event=nl.anomaly.start")); /* the dip at 35 s */
    free(t);
    const char *strict[] = {"-e", "x.summary", "-v", "rate", "--stats", in, NULL};
    assert_int_equal(run(NULL, o, e, strict), 0);
    t = t_slurp(e, NULL);
    assert_non_null(strstr(t, "bad=40 "));
    free(t);
    t_rmtree(dir);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_detect_cli PATH-TO-nl-detect\n");
        return 2;
    }
    prog = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_identical), cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_metrics_errors),   cmocka_unit_test(test_junk_and_long_lines),
        cmocka_unit_test(test_netlogger_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
