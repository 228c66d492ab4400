/* SPDX-License-Identifier: BSD-3-Clause */
/* test_exit.c — a program that ends without nl_close (libnl/nl_exit.h), in sync and deferred
 * mode, each in a child process whose file the test reads back:
 *   - exit(0) after short lines and after 4 KiB records: every line arrives (before the exit
 *     handler, 666 of 20,000 short lines were lost in sync mode, 2,780 in deferred mode);
 *   - exit(0) with lines a destination never takes (/dev/full): the loss said on stderr,
 *     counted, the destination named;
 *   - a crash (abort, SIGSEGV) after 4 KiB records: what is lost is a tail of the lines, no
 *     more than LIMITS.md says (sync: the two buffers and a stage; deferred: that and a ring
 *     per writing thread — the docs once promised deferred lost only the ring);
 *   - a thread that holds a log's lock for good while main calls exit: the exit ends within
 *     its bound, says which log it gave up on, and the other log's lines all arrive;
 *   - threads writing flat out while main calls exit: no deadlock, every thread's lines
 *     arrive in order without a gap, at least all it had written when exit was called;
 *   - a program whose own exit handler closes the log, or writes after the library's flush:
 *     each line exactly once;
 *   - a forked child that exits: its own lines, not its parent's a second time. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nl_log_int.h"
#include "nl_test.h"
#include "nlkit/nl.h"

enum { END_EXIT, END_ABORT, END_SEGV };

#define BUF 65536 /* buffer= of the crash tests: the bounds below are in its terms */
#define BIG 4096  /* the large records' string */
#define CHILD_MS 60000

static const char *dir;
static char *big;
static nl_log_t *g_log; /* the child's open log: reachable at exit, so no leak is reported */

static int setup(void **state)
{
    (void)state;
    dir = t_tmpdir();
    big = malloc(BIG + 1);
    memset(big, 'x', BIG);
    big[BIG] = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    t_rmtree(dir);
    free(big);
    return 0;
}

/* A child's end: exit(0) without nl_close, or a crash with the default action (no core). */
static void finish(int end)
{
    if (end == END_EXIT) exit(0);
    struct rlimit no = {0, 0};
    setrlimit(RLIMIT_CORE, &no);
    int sig = end == END_ABORT ? SIGABRT : SIGSEGV;
    signal(sig, SIG_DFL); /* a sanitizer's handler would turn the crash into an exit */
    raise(sig);
    _exit(99);
}

/* A child's standard error, to ours. */
static void show_file(const char *path)
{
    size_t len;
    char *t = t_slurp(path, &len);
    if (t) print_message("child's stderr:\n%s", t);
    free(t);
}

/* Fork a child that runs fn(arg) with its stderr to errpath; wait at most CHILD_MS for it.
 * Its wait status. A child still running then fails the test (deadlocked at exit). */
static int in_child(void (*fn)(void *), void *arg, const char *errpath)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *e = freopen(errpath, "w", stderr);
        if (!e) _exit(98);
        fn(arg);
        _exit(97);
    }
    int st = 0;
    for (int w = 0; w < CHILD_MS; w += 10) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        assert_true(r >= 0);
        if (r == pid) {
            if (WIFEXITED(st) && WEXITSTATUS(st)) show_file(errpath); /* what went wrong */
            return st;
        }
        t_sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fail_msg("child still running after %d ms: the exit deadlocked", CHILD_MS);
    return -1;
}

/* The file's whole lines (a last line cut by the process' end is left out). */
static size_t whole_lines(const char *path, char **text, char ***lines)
{
    size_t len = 0;
    *text = t_slurp(path, &len);
    assert_non_null(*text);
    char *end = strrchr(*text, '\n');
    if (end)
        end[1] = 0;
    else
        (*text)[0] = 0;
    return t_lines(*text, lines);
}

/* A line's integer field " NAME=", or -1. */
static long field_num(const char *line, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, " %s=", name);
    const char *p = strstr(line, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* The lines of the file are i=0 .. i=k-1 in order, each exactly once (a prefix of what
 * the child wrote); returns k and the length of the first line (0 if none). */
static long prefix_of(const char *path, size_t *first_len)
{
    char *text, **lines;
    size_t n = whole_lines(path, &text, &lines);
    *first_len = n ? strlen(lines[0]) + 1 : 0;
    for (size_t i = 0; i < n; i++) {
        long v = field_num(lines[i], "i");
        if (v != (long)i)
            fail_msg("%s: line %zu has i=%ld: not in order, a gap or twice", path, i, v);
    }
    free(lines);
    free(text);
    return (long)n;
}

static int file_has(const char *path, const char *needle)
{
    size_t len;
    char *t = t_slurp(path, &len);
    int has = t && strstr(t, needle) != NULL;
    free(t);
    return has;
}

/* ---- exit(0) after many lines, and crashes ---- */

typedef struct spec {
    const char *path, *mode;
    int n, size, end;
    long buffer; /* 0: the default; else with flush=3600000 (only full buffers go out) */
} spec_t;

static void write_lines(void *arg)
{
    const spec_t *sp = arg;
    char url[512];
    if (sp->buffer)
        snprintf(url, sizeof url, "file://%s?mode=%s&buffer=%ld&flush=3600000", sp->path, sp->mode,
                 sp->buffer);
    else
        snprintf(url, sizeof url, "file://%s?mode=%s", sp->path, sp->mode);
    g_log = nl_open(url);
    if (!g_log) _exit(3);
    const char *s = sp->size >= BIG ? big : "short";
    for (int i = 0; i < sp->n; i++)
        if (nl_write(g_log, "exit.line", "i=i s=s", i, s) != 0) _exit(4);
    finish(sp->end);
}

/* The child writes sp's lines and ends; the lines that arrived (a prefix, checked), the
 * first one's length. */
static long run_spec(spec_t *sp, const char *name, int *status, size_t *line_len)
{
    sp->path = t_path(dir, name);
    unlink(sp->path);
    *status = in_child(write_lines, sp, t_path(dir, "stderr"));
    return prefix_of(sp->path, line_len);
}

static void exit_all_arrive(const char *mode, int n, int size)
{
    spec_t sp = {.mode = mode, .n = n, .size = size, .end = END_EXIT};
    int st;
    size_t l;
    long got = run_spec(&sp, "exit.log", &st, &l);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    if (got != n) fail_msg("%s mode, %d-byte strings: %ld of %d lines arrived", mode, size, got, n);
    assert_false(file_has(t_path(dir, "stderr"), "could not be delivered"));
}

static void test_exit_sync_short(void **state)
{
    (void)state;
    exit_all_arrive("sync", 20000, 5);
}

static void test_exit_deferred_short(void **state)
{
    (void)state;
    exit_all_arrive("deferred", 20000, 5);
}

static void test_exit_sync_large(void **state)
{
    (void)state;
    exit_all_arrive("sync", 600, BIG);
}

static void test_exit_deferred_large(void **state)
{
    (void)state;
    exit_all_arrive("deferred", 600, BIG);
}

/* A destination that takes nothing (/dev/full), its lines waiting in the buffer until exit:
 * the exit handler's flush fails, and the loss is said on standard error once, counted and
 * with the destination named (nl__log_exit_flush's words, which no other test read). */
static void lost_at_exit_child(void *arg)
{
    char url[128];
    snprintf(url, sizeof url, "file:///dev/full?mode=%s&flush=3600000", (const char *)arg);
    g_log = nl_open(url);
    if (!g_log) _exit(3);
    for (int i = 0; i < 30; i++)
        if (nl_write(g_log, "exit.line", "i=i", i) != 0) _exit(4);
    exit(0);
}

static void lost_at_exit(const char *mode)
{
    const char *errpath = t_path(dir, "stderr");
    int st = in_child(lost_at_exit_child, (void *)mode, errpath);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *said = t_slurp(errpath, NULL);
    assert_non_null(said);
    assert_string_equal(said, "nlkit: at exit, 30 line(s) could not be delivered to the log "
                              "destination /dev/full (No space left on device) and are reported "
                              "nowhere else\n");
    free(said);
}

static void test_lost_at_exit_sync(void **state)
{
    (void)state;
    lost_at_exit("sync");
}

static void test_lost_at_exit_deferred(void **state)
{
    (void)state;
    lost_at_exit("deferred");
}

/* A crash after 4 KiB records, buffer=BUF: the loss is a tail, at most what LIMITS.md says.
 * Sync: the two buffers and a 4 KiB stage, in lines of this length. Deferred: that, and
 * one ring (BUF bytes: it is at least 64 KiB, and BUF is) of records, each longer than its
 * string. */
static void crash_bounded(const char *mode, int end)
{
    const int n = 600;
    spec_t sp = {.mode = mode, .n = n, .size = BIG, .end = end, .buffer = BUF};
    int st;
    size_t l;
    long got = run_spec(&sp, "crash.log", &st, &l);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), end == END_ABORT ? SIGABRT : SIGSEGV);
    assert_true(l > BIG);
    long bound = (2 * BUF + 4096) / (long)l + 1;
    if (!strcmp(mode, "deferred")) bound += BUF / BIG + 1;
    long lost = n - got;
    print_message("%s, %s: %ld of %d records lost (bound %ld)\n", mode,
                  end == END_ABORT ? "abort" : "SIGSEGV", lost, n, bound);
    if (lost > bound)
        fail_msg("%s mode: a crash lost %ld lines of %zu bytes, more than the %ld documented", mode,
                 lost, l, bound);
}

static void test_crash_sync_abort(void **state)
{
    (void)state;
    crash_bounded("sync", END_ABORT);
}

static void test_crash_sync_segv(void **state)
{
    (void)state;
    crash_bounded("sync", END_SEGV);
}

static void test_crash_deferred_abort(void **state)
{
    (void)state;
    crash_bounded("deferred", END_ABORT);
}

static void test_crash_deferred_segv(void **state)
{
    (void)state;
    crash_bounded("deferred", END_SEGV);
}

/* ---- a thread stuck holding a log while main exits ---- */

static nl_log_t *g_stuck;
static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_cv = PTHREAD_COND_INITIALIZER;
static int held;

/* Takes the log's sink lock, as a write stuck in the middle would hold it, and never lets
 * go. */
static void *hold_forever(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_stuck->sink.mu);
    pthread_mutex_lock(&held_mu);
    held = 1;
    pthread_cond_signal(&held_cv);
    pthread_mutex_unlock(&held_mu);
    for (;;) pause();
    return NULL;
}

static void stuck_child(void *arg)
{
    const char *mode = arg;
    char url[512];
    snprintf(url, sizeof url, "file://%s?mode=%s&timeout=100", t_path(dir, "stuck.log"), mode);
    g_stuck = nl_open(url);
    snprintf(url, sizeof url, "file://%s?mode=%s", t_path(dir, "ok.log"), mode);
    g_log = nl_open(url);
    if (!g_stuck || !g_log) _exit(3);
    for (int i = 0; i < 100; i++) nl_write(g_stuck, "exit.stuck", "i=i", i);
    pthread_t t;
    if (pthread_create(&t, NULL, hold_forever, NULL) != 0) _exit(5);
    pthread_mutex_lock(&held_mu);
    while (!held) pthread_cond_wait(&held_cv, &held_mu);
    pthread_mutex_unlock(&held_mu);
    for (int i = 0; i < 5000; i++) nl_write(g_log, "exit.ok", "i=i", i);
    exit(0);
}

static void stuck_bounded(const char *mode)
{
    const char *ok = t_path(dir, "ok.log");
    unlink(ok);
    unlink(t_path(dir, "stuck.log"));
    double t0 = t_now_s();
    int st = in_child(stuck_child, (void *)mode, t_path(dir, "stderr"));
    double took = t_now_s() - t0;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    size_t l;
    long got = prefix_of(ok, &l);
    if (got != 5000) fail_msg("%s mode: %ld of the free log's 5000 lines arrived", mode, got);
    if (!file_has(t_path(dir, "stderr"), "stuck.log stayed held by another thread"))
        fail_msg("%s mode: the exit gave up on the stuck log without saying so", mode);
    /* the bound: four timeouts (0.1 s) and a second; generous for two busy cores */
    assert_true(took < 30.0);
}

static void test_stuck_sync(void **state)
{
    (void)state;
    stuck_bounded("sync");
}

static void test_stuck_deferred(void **state)
{
    (void)state;
    stuck_bounded("deferred");
}

/* ---- threads writing flat out while main exits ---- */

#define RUNNERS 3
static _Atomic long written[RUNNERS];

static void *runner(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (long i = 0;; i++) {
        nl_write(g_log, "exit.run", "t=i i=l", id, (long long)i);
        atomic_store(&written[id], i + 1);
    }
    return NULL;
}

static void runners_child(void *arg)
{
    const char *mode = arg;
    char url[512];
    snprintf(url, sizeof url, "file://%s?mode=%s", t_path(dir, "run.log"), mode);
    g_log = nl_open(url);
    if (!g_log) _exit(3);
    pthread_t t[RUNNERS];
    for (int i = 0; i < RUNNERS; i++)
        if (pthread_create(&t[i], NULL, runner, (void *)(intptr_t)i) != 0) _exit(5);
    for (int i = 0; i < RUNNERS; i++)
        while (atomic_load(&written[i]) < 2000) sched_yield();
    /* what each had written when exit was called, for the parent */
    long seen[RUNNERS];
    for (int i = 0; i < RUNNERS; i++) seen[i] = atomic_load(&written[i]);
    FILE *f = fopen(t_path(dir, "run.out"), "w");
    if (!f || fprintf(f, "%ld %ld %ld\n", seen[0], seen[1], seen[2]) < 0 || fclose(f) != 0)
        _exit(6);
    exit(0);
}

static void runners_in_order(const char *mode)
{
    const char *path = t_path(dir, "run.log"), *out = t_path(dir, "run.out");
    unlink(path);
    unlink(out);
    int st = in_child(runners_child, (void *)mode, t_path(dir, "stderr"));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    long seen[RUNNERS];
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%ld %ld %ld", &seen[0], &seen[1], &seen[2]), 3);
    fclose(f);
    char *text, **lines;
    size_t n = whole_lines(path, &text, &lines);
    long next[RUNNERS] = {0};
    for (size_t i = 0; i < n; i++) {
        long id = field_num(lines[i], "t"), v = field_num(lines[i], "i");
        assert_true(id >= 0 && id < RUNNERS);
        if (v != next[id])
            fail_msg("%s mode: thread %ld's line %ld came where %ld was due", mode, id, v,
                     next[id]);
        next[id]++;
    }
    for (int id = 0; id < RUNNERS; id++)
        if (next[id] < seen[id])
            fail_msg("%s mode: thread %d had written %ld lines when exit was called, %ld arrived",
                     mode, id, seen[id], next[id]);
    free(lines);
    free(text);
}

static void test_runners_sync(void **state)
{
    (void)state;
    runners_in_order("sync");
}

static void test_runners_deferred(void **state)
{
    (void)state;
    runners_in_order("deferred");
}

/* ---- the program's own exit handlers; fork ---- */

static int late_n;
static void late_close(void) { nl_close(g_log); }

/* Registered before the first nl_open, so it runs after the library's flush: its lines
 * still arrive, written out at once. */
static void late_write(void)
{
    for (int i = 0; i < 100; i++) nl_write(g_log, "exit.line", "i=i s=s", late_n + i, "late");
}

static void own_handler_child(void *arg)
{
    const char *mode = arg;
    atexit(late_close); /* runs last */
    atexit(late_write);
    char url[512];
    snprintf(url, sizeof url, "file://%s?mode=%s", t_path(dir, "own.log"), mode);
    g_log = nl_open(url);
    if (!g_log) _exit(3);
    late_n = 3000;
    for (int i = 0; i < late_n; i++) nl_write(g_log, "exit.line", "i=i s=s", i, "x");
    exit(0);
}

static void own_handler(const char *mode)
{
    const char *path = t_path(dir, "own.log");
    unlink(path);
    int st = in_child(own_handler_child, (void *)mode, t_path(dir, "stderr"));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    size_t l;
    long got = prefix_of(path, &l);
    if (got != 3100) fail_msg("%s mode: %ld of 3100 lines, once each", mode, got);
}

static void test_own_handler_sync(void **state)
{
    (void)state;
    own_handler("sync");
}

static void test_own_handler_deferred(void **state)
{
    (void)state;
    own_handler("deferred");
}

/* The parent writes 1000 lines (buffered when it forks), the child 500 and exits, then the
 * parent 500 more and exits: 2000 lines, none twice. */
static void fork_child_main(void *arg)
{
    const char *mode = arg;
    char url[512];
    snprintf(url, sizeof url, "file://%s?mode=%s", t_path(dir, "fork.log"), mode);
    g_log = nl_open(url);
    if (!g_log) _exit(3);
    for (int i = 0; i < 1000; i++) nl_write(g_log, "exit.fork", "who=i n=i", 0, i);
    pid_t pid = fork();
    if (pid < 0) _exit(5);
    if (pid == 0) {
        for (int i = 0; i < 500; i++) nl_write(g_log, "exit.fork", "who=i n=i", 1, i);
        exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) _exit(6);
    for (int i = 1000; i < 1500; i++) nl_write(g_log, "exit.fork", "who=i n=i", 0, i);
    exit(0);
}

static void fork_exit(const char *mode)
{
    const char *path = t_path(dir, "fork.log");
    unlink(path);
    int st = in_child(fork_child_main, (void *)mode, t_path(dir, "stderr"));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    char *text, **lines;
    size_t n = whole_lines(path, &text, &lines);
    long next[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        long who = field_num(lines[i], "who"), v = field_num(lines[i], "n");
        assert_true(who == 0 || who == 1);
        if (v != next[who])
            fail_msg("%s mode: process %ld's line %ld where %ld was due", mode, who, v, next[who]);
        next[who]++;
    }
    if (next[0] != 1500 || next[1] != 500)
        fail_msg("%s mode: parent %ld of 1500, child %ld of 500", mode, next[0], next[1]);
    free(lines);
    free(text);
}

static void test_fork_sync(void **state)
{
    (void)state;
    fork_exit("sync");
}

static void test_fork_deferred(void **state)
{
    (void)state;
    fork_exit("deferred");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_sync_short),
        cmocka_unit_test(test_exit_deferred_short),
        cmocka_unit_test(test_exit_sync_large),
        cmocka_unit_test(test_exit_deferred_large),
        cmocka_unit_test(test_lost_at_exit_sync),
        cmocka_unit_test(test_lost_at_exit_deferred),
        cmocka_unit_test(test_crash_sync_abort),
        cmocka_unit_test(test_crash_sync_segv),
        cmocka_unit_test(test_crash_deferred_abort),
        cmocka_unit_test(test_crash_deferred_segv),
        cmocka_unit_test(test_stuck_sync),
        cmocka_unit_test(test_stuck_deferred),
        cmocka_unit_test(test_runners_sync),
        cmocka_unit_test(test_runners_deferred),
        cmocka_unit_test(test_own_handler_sync),
        cmocka_unit_test(test_own_handler_deferred),
        cmocka_unit_test(test_fork_sync),
        cmocka_unit_test(test_fork_deferred),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
