/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fork.c — fork() in an instrumented program. While three threads write raw lines and
 * summarized pairs as fast as they can (so locks are held at the moment of the fork), the
 * main thread forks twenty children that each write their own lines and pairs (every other
 * pair through a shared pair handle, nl_pair, the rest through nl_write): no child
 * may deadlock, no parent line may appear twice or go missing, and no summary may count the
 * parent's pairs twice. A child's first call restarts the flusher (its lines go out on the
 * flush period, carrying its own pid); a TCP child gets its own connection; parent and
 * child writing to one pipe at once never tear each other's lines. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nl_test.h"
#include "nlkit/nl.h"

/* Wait for a child for up to `ms`; a child still running then is taken as deadlocked.
 * Returns its exit status. */
static int wait_child(pid_t pid, int ms)
{
    int st = 0;
    for (int w = 0; w < ms; w += 5) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        assert_true(r >= 0);
        if (r == pid) {
            if (!WIFEXITED(st)) fail_msg("child %d killed by signal %d", (int)pid, WTERMSIG(st));
            return WEXITSTATUS(st);
        }
        t_sleep_ms(5);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fail_msg("child %d still running after %d ms: deadlocked after fork", (int)pid, ms);
    return -1;
}

/* ---- fork while other threads write ---- */

#define WRITERS 3
#define CHILDREN 20
#define CHILD_LINES 5

typedef struct writer {
    nl_log_t *log;
    nl_pair_t *pair; /* t.pair's handle, shared by every thread and inherited by the children */
    int id;
    _Atomic int *stop;
    long raw, pairs; /* how many this thread wrote */
} writer_t;

static void guid_of(char *g, int kind, int id) /* a valid UUID per writer / child */
{
    sprintf(g, "%08x-0000-4000-8000-%012x", kind, id);
}

static void *writer_main(void *arg)
{
    writer_t *w = arg;
    char g[40];
    guid_of(g, 1, w->id);
    while (!atomic_load(w->stop)) {
        nl_write(w->log, "t.raw", "tid=i seq=l", w->id, (long long)w->raw++);
        if (w->pairs & 1) {
            nl_pair_start(w->pair, g);
            nl_pair_end(w->pair, g, 1);
        } else {
            nl_write(w->log, "t.pair.start", "guid=s", g);
            nl_write(w->log, "t.pair.end", "guid=s v=i", g, 1);
        }
        w->pairs++;
    }
    return NULL;
}

/* The child's part: its own lines and pairs; exit status 0 if its counters are its own. */
static void child_main(nl_log_t *log, nl_pair_t *pair, int k)
{
    char g[40];
    guid_of(g, 2, k);
    for (int i = 0; i < CHILD_LINES; i++) {
        nl_write(log, "t.child", "kid=i seq=i", k, i);
        if (i & 1) {
            nl_pair_start(pair, g);
            nl_pair_end(pair, g, 2);
        } else {
            nl_write(log, "t.pair.start", "guid=s", g);
            nl_write(log, "t.pair.end", "guid=s v=i", g, 2);
        }
    }
    nl_stats_t st;
    nl_stats(log, &st);
    /* what it inherited is not counted as its own (the pairs are counted at nl_close) */
    int own = st.written == CHILD_LINES && st.dropped == 0 && st.errors == 0;
    nl_close(log);
    _exit(own ? 0 : 3);
}

static void test_fork_while_writing(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path = t_path(dir, "fork.log");
    char url[512];
    snprintf(url, sizeof url, "file://%s?flush=60000", path); /* lines wait in buffers */
    nl_log_t *log = nl_open(url);
    assert_non_null(log);
    assert_int_equal(nl_summarize(log, "t.pair", NL_SUMM_SUMMARY, 0, "v"), 0);
    nl_pair_t *pair = nl_pair(log, "t.pair", "v", NULL);
    assert_non_null(pair);
    _Atomic int stop = 0;
    writer_t w[WRITERS];
    pthread_t th[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        w[i] = (writer_t){.log = log, .pair = pair, .id = i, .stop = &stop};
        pthread_create(&th[i], NULL, writer_main, &w[i]);
    }
    t_sleep_ms(20);
    for (int k = 0; k < CHILDREN; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) child_main(log, pair, k);
        assert_int_equal(wait_child(pid, 10000), 0);
        t_sleep_ms(3);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < WRITERS; i++) pthread_join(th[i], NULL);
    nl_close(log);

    t_readback_t rb;
    t_rb_load(&rb, path);
    long next[WRITERS] = {0}, pair_n = 0;
    int child_seq[CHILDREN] = {0}, child_sum = 0, parent_sum = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        const char *ev = t_field(r, "event");
        if (!strcmp(ev, "t.raw")) {
            int tid = (int)t_num(r, "tid");
            long seq = (long)t_num(r, "seq");
            assert_true(tid >= 0 && tid < WRITERS);
            if (seq != next[tid])
                fail_msg("line %zu: writer %d seq %ld, expected %ld", i + 1, tid, seq, next[tid]);
            next[tid]++;
        } else if (!strcmp(ev, "t.child")) {
            int kid = (int)t_num(r, "kid"), seq = (int)t_num(r, "seq");
            assert_true(kid >= 0 && kid < CHILDREN);
            assert_int_equal(seq, child_seq[kid]);
            child_seq[kid]++;
        } else if (!strcmp(ev, "t.pair.summary")) {
            /* one summary per process (guids match pairs, they do not split summaries):
             * the parent's pairs have value 1, a child's 2 */
            long n = (long)t_num(r, "n"), v = (long)t_num(r, "v.sum");
            if (v == n) {
                parent_sum++;
                pair_n += n;
            } else {
                assert_int_equal(v, 2 * n);
                child_sum++;
                assert_int_equal(n, CHILD_LINES); /* the child's own pairs, nothing inherited */
            }
        }
    }
    long pairs = 0;
    for (int i = 0; i < WRITERS; i++) {
        assert_int_equal(next[i], w[i].raw); /* every line once, in order */
        pairs += w[i].pairs;
    }
    assert_int_equal(parent_sum, 1); /* once per run: one summary, from the parent */
    assert_int_equal(pair_n, pairs);
    for (int k = 0; k < CHILDREN; k++) assert_int_equal(child_seq[k], CHILD_LINES);
    assert_int_equal(child_sum, CHILDREN);
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* ---- the child's flusher and pid ---- */

static void test_fork_child_flushes_on_time(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path = t_path(dir, "child.log");
    char url[512];
    snprintf(url, sizeof url, "file://%s?flush=50", path);
    nl_log_t *log = nl_open(url);
    assert_non_null(log);
    assert_int_equal(nl_const_std(log), 0);
    nl_write(log, "t.parent", NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        nl_write(log, "t.child", NULL); /* no nl_flush: the restarted flusher sends it */
        char pid_field[32];
        snprintf(pid_field, sizeof pid_field, " pid=%ld", (long)getpid());
        int seen = 0;
        for (int ms = 0; ms < 3000 && !seen; ms += 10) {
            size_t len;
            char *text = t_slurp(path, &len);
            char *at = text ? strstr(text, "event=t.child ") : NULL;
            seen = at && strstr(at, pid_field);
            free(text);
            if (!seen) t_sleep_ms(10);
        }
        _exit(seen ? 0 : 4);
    }
    assert_int_equal(wait_child(pid, 10000), 0);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    int parents = 0, children = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        const char *ev = t_field(r, "event");
        parents += !strcmp(ev, "t.parent");
        children += !strcmp(ev, "t.child");
        if (!strcmp(ev, "t.parent")) assert_int_equal((long)t_num(r, "pid"), (long)getpid());
        if (!strcmp(ev, "t.child")) assert_int_equal((long)t_num(r, "pid"), (long)pid);
    }
    assert_int_equal(parents, 1); /* the child ended without nl_close: still once */
    assert_int_equal(children, 1);
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* ---- TCP: the child connects on its own ---- */

typedef struct collector {
    int lfd;
    char *text[4];
    size_t len[4];
    int conns;
} collector_t;

/* Accept two connections and read both to their end. */
static void *collector_main(void *arg)
{
    collector_t *c = arg;
    struct pollfd p[3] = {{c->lfd, POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
    int open = 0;
    double until = t_now_s() + 20;
    while ((c->conns < 2 || open > 0) && t_now_s() < until) {
        if (poll(p, 3, 100) <= 0) continue;
        if ((p[0].revents & POLLIN) && c->conns < 2) {
            p[1 + c->conns].fd = accept(c->lfd, NULL, NULL);
            c->conns++;
            open++;
        }
        for (int i = 1; i < 3; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[8192];
            ssize_t r = read(p[i].fd, buf, sizeof buf);
            if (r <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                open--;
                continue;
            }
            c->text[i - 1] = realloc(c->text[i - 1], c->len[i - 1] + (size_t)r + 1);
            memcpy(c->text[i - 1] + c->len[i - 1], buf, (size_t)r);
            c->len[i - 1] += (size_t)r;
            c->text[i - 1][c->len[i - 1]] = '\0';
        }
    }
    return NULL;
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, needle)) != NULL; p++) n++;
    return n;
}

static void test_fork_tcp_own_connection(void **state)
{
    (void)state;
    collector_t c = {0};
    c.lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(c.lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(c.lfd, 4), 0);
    socklen_t al = sizeof a;
    getsockname(c.lfd, (struct sockaddr *)&a, &al);
    pthread_t th;
    pthread_create(&th, NULL, collector_main, &c);
    char url[128];
    snprintf(url, sizeof url, "x-netlog://127.0.0.1:%d?flush=20", ntohs(a.sin_port));
    nl_log_t *log = nl_open(url);
    assert_non_null(log);
    for (int i = 0; i < 100; i++) nl_write(log, "t.tcp", "who=s seq=i", "parent", i);
    pid_t pid = fork(); /* the parent's 100 lines are still in its buffer */
    assert_true(pid >= 0);
    if (pid == 0) {
        for (int i = 0; i < 100; i++) nl_write(log, "t.tcp", "who=s seq=i", "child", i);
        nl_close(log);
        _exit(0);
    }
    assert_int_equal(wait_child(pid, 10000), 0);
    for (int i = 100; i < 200; i++) nl_write(log, "t.tcp", "who=s seq=i", "parent", i);
    nl_close(log);
    pthread_join(th, NULL);
    close(c.lfd);
    assert_int_equal(c.conns, 2);
    int parent_conn = count_of(c.text[0], "who=parent") ? 0 : 1;
    const char *pt = c.text[parent_conn], *ct = c.text[1 - parent_conn];
    assert_non_null(pt);
    assert_non_null(ct);
    assert_int_equal(count_of(pt, "who=parent"), 200); /* once each, on its own connection */
    assert_int_equal(count_of(pt, "who=child"), 0);
    assert_int_equal(count_of(ct, "who=child"), 100);
    assert_int_equal(count_of(ct, "who=parent"), 0);
    for (int i = 0; i < 2; i++) free(c.text[i]);
}

/* ---- one pipe, two processes ---- */

typedef struct drain {
    int fd;
    char *text;
    size_t len;
} drain_t;

static void *drain_main(void *arg)
{
    drain_t *d = arg;
    size_t cap = 1 << 20;
    d->text = malloc(cap);
    for (;;) {
        if (cap - d->len < 65536) d->text = realloc(d->text, cap *= 2);
        ssize_t r = read(d->fd, d->text + d->len, cap - d->len - 1);
        if (r <= 0) break;
        d->len += (size_t)r;
    }
    d->text[d->len] = '\0';
    return NULL;
}

static void test_fork_shared_pipe_no_torn_lines(void **state)
{
    (void)state;
    enum { LINES = 4000 };
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(p[1], STDOUT_FILENO);
    close(p[1]);
    drain_t d = {.fd = p[0]};
    pthread_t th;
    pthread_create(&th, NULL, drain_main, &d);
    nl_log_t *log = nl_open("-"); /* a pipe: 64 KiB buffered */
    char pad[300];
    memset(pad, 'x', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < LINES; i++)
            nl_write(log, "t.pipe", "who=s seq=i pad=s", "child", i, pad);
        nl_close(log);
        _exit(0);
    }
    for (int i = 0; i < LINES; i++) nl_write(log, "t.pipe", "who=s seq=i pad=s", "parent", i, pad);
    nl_close(log);
    int status = wait_child(pid, 20000);
    dup2(saved, STDOUT_FILENO); /* the last write end closes: the drain sees the end */
    close(saved);
    pthread_join(th, NULL);
    close(p[0]);
    assert_int_equal(status, 0);
    /* every line parses, and each process's lines are all there, once, in order */
    char **lines;
    size_t n = t_lines(d.text, &lines);
    int next[2] = {0, 0};
    nl_rec_t rec;
    nl_rec_init(&rec);
    for (size_t i = 0; i < n; i++) {
        if (nl_parse(&rec, lines[i], strlen(lines[i]), (long)i + 1, 0, NULL) != 1)
            fail_msg("line %zu torn: %.80s", i + 1, lines[i]);
        const char *who = t_field(&rec, "who");
        int k = !strcmp(who, "child");
        assert_int_equal((int)t_num(&rec, "seq"), next[k]);
        next[k]++;
    }
    assert_int_equal(next[0], LINES);
    assert_int_equal(next[1], LINES);
    nl_rec_free(&rec);
    free(lines);
    free(d.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_while_writing),
        cmocka_unit_test(test_fork_child_flushes_on_time),
        cmocka_unit_test(test_fork_tcp_own_connection),
        cmocka_unit_test(test_fork_shared_pipe_no_torn_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
