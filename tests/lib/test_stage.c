/* SPDX-License-Identifier: BSD-3-Clause */
/* test_stage.c — per-thread staging in front of a sink. The module alone, with a put
 * function that records chunks: lines go out in order, in chunks that never split a line,
 * counted once, and the threads writing through it counted. Then through the log: threads that exit
 * leave no line behind and no stage allocated (ASan checks the latter), nl_flush and the flusher
 * thread deliver what a still-running thread staged, one thread writing to more logs than it has
 * slots keeps each log complete and in order, logs opened and closed over and over at the same
 * address never mix up their stages, and nl_close racing the exits and other writes of
 * the threads that staged lines for it delivers every line and frees every stage. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_stage.h"
#include "nl_test.h"
#include "nlkit/nl.h"

/* ---- the module alone ---- */

typedef struct chunks {
    char text[1 << 16];
    size_t len;
    int chunks;
    uint32_t lines;
} chunks_t;

static void record_put(void *ctx, const char *p, size_t len, uint32_t lines)
{
    chunks_t *c = ctx;
    assert_true(len > 0 && p[len - 1] == '\n'); /* whole lines only */
    assert_true(c->len + len < sizeof c->text);
    memcpy(c->text + c->len, p, len);
    c->len += len;
    c->chunks++;
    c->lines += lines;
}

static void test_stage_chunks_in_order(void **state)
{
    (void)state;
    static chunks_t c;
    nl_stages_t ss;
    nl__stages_init(&ss, 100, record_put, &c);
    char want[1 << 14];
    size_t wl = 0;
    for (int i = 0; i < 200; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "line %d %.*s\n", i, i % 30,
                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        nl_stage_t *st = nl__stage_lock(&ss);
        assert_non_null(st);
        nl__stage_add(st, line, (size_t)n);
        nl__stage_unlock(st);
        memcpy(want + wl, line, (size_t)n);
        wl += (size_t)n;
    }
    assert_true(c.len < wl); /* the last partial stage is still held */
    assert_int_equal(nl__stages_written(&ss), 200);
    nl__stages_drain(&ss);
    assert_int_equal(c.len, wl);
    assert_memory_equal(c.text, want, wl);
    assert_int_equal(c.lines, 200);
    assert_true(c.chunks > 200 / 4); /* at most ~4 lines of <=40 bytes fit in 100 */
    nl__stages_drain(&ss);           /* nothing staged: no empty chunk */
    int chunks = c.chunks;
    nl__stages_drain(&ss);
    assert_int_equal(c.chunks, chunks);
    nl__stages_close(&ss);
}

static void test_stage_off(void **state)
{
    (void)state;
    static chunks_t c;
    nl_stages_t ss;
    nl__stages_init(&ss, 0, record_put, &c);
    assert_null(nl__stage_lock(&ss));
    assert_int_equal(nl__stages_written(&ss), 0);
    nl__stages_close(&ss);
}

/* A stage of a closed list is never handed to a new list made at the same address. */
static void test_stage_not_reused_after_close(void **state)
{
    (void)state;
    static chunks_t a, b;
    nl_stages_t ss;
    nl__stages_init(&ss, 256, record_put, &a);
    nl_stage_t *st = nl__stage_lock(&ss);
    nl__stage_add(st, "one\n", 4);
    nl__stage_unlock(st);
    nl__stages_close(&ss);
    assert_int_equal(a.len, 4); /* close handed it off */
    nl__stages_init(&ss, 256, record_put, &b);
    st = nl__stage_lock(&ss);
    nl__stage_add(st, "two\n", 4);
    nl__stage_unlock(st);
    assert_int_equal(nl__stages_written(&ss), 1); /* a fresh count, not the old stage's */
    nl__stages_close(&ss);
    assert_int_equal(a.len, 4);
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.text, "two\n", 4);
}

/* Threads exiting hand their stages off at the same time: the sink's put takes its lock. */
static pthread_mutex_t put_mu = PTHREAD_MUTEX_INITIALIZER;
static void locked_put(void *ctx, const char *p, size_t len, uint32_t lines)
{
    pthread_mutex_lock(&put_mu);
    record_put(ctx, p, len, lines);
    pthread_mutex_unlock(&put_mu);
}

typedef struct holder {
    nl_stages_t *ss;
    pthread_barrier_t *hold;
} holder_t;

static void *holder_main(void *arg)
{
    holder_t *h = arg;
    nl_stage_t *st = nl__stage_lock(h->ss);
    nl__stage_add(st, "held\n", 5);
    nl__stage_unlock(st);
    pthread_barrier_wait(h->hold); /* main counts the writers now */
    pthread_barrier_wait(h->hold);
    return NULL;
}

/* The writers count (the sink's test for a spare CPU) follows the threads that write
 * through the list: up when one makes its stage, down when it exits. */
static void test_writers_counted(void **state)
{
    (void)state;
    static chunks_t c;
    nl_stages_t ss;
    nl__stages_init(&ss, 256, locked_put, &c);
    assert_int_equal(nl__stages_writers(&ss), 0);
    nl_stage_t *st = nl__stage_lock(&ss);
    nl__stage_add(st, "main\n", 5);
    nl__stage_unlock(st);
    assert_int_equal(nl__stages_writers(&ss), 1);
    pthread_barrier_t hold;
    pthread_barrier_init(&hold, NULL, 3);
    holder_t h = {&ss, &hold};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, holder_main, &h);
    pthread_barrier_wait(&hold);
    assert_int_equal(nl__stages_writers(&ss), 3);
    pthread_barrier_wait(&hold);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    assert_int_equal(nl__stages_writers(&ss), 1); /* the threads let go as they exited */
    nl__stages_drain(&ss);
    assert_int_equal(c.lines, 3);
    pthread_barrier_destroy(&hold);
    nl__stages_close(&ss);
}

/* ---- through the log ---- */

typedef struct worker {
    nl_log_t *log;
    int id, n;
    pthread_barrier_t *hold; /* if set: wait here twice after writing (main checks between) */
} worker_t;

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    for (int i = 0; i < w->n; i++) nl_write(w->log, "t.stage", "tid=i seq=i", w->id, i);
    if (w->hold) {
        pthread_barrier_wait(w->hold);
        pthread_barrier_wait(w->hold);
    }
    return NULL;
}

/* Every (tid, seq) once, each thread's in order; returns the number of lines. */
static size_t check_file(const char *path, int threads, int per)
{
    t_readback_t rb;
    t_rb_load(&rb, path);
    int *next = calloc((size_t)threads, sizeof *next);
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        const nl_field_t *t = nl_rec_get(r, "tid"), *s = nl_rec_get(r, "seq");
        assert_non_null(t);
        int tid = atoi(t->value), seq = atoi(s->value);
        assert_true(tid >= 0 && tid < threads);
        if (seq != next[tid])
            fail_msg("%s line %zu: thread %d seq %d, expected %d", path, i + 1, tid, seq,
                     next[tid]);
        next[tid]++;
    }
    for (int i = 0; i < threads; i++) assert_int_equal(next[i], per);
    free(next);
    size_t n = rb.n;
    t_rb_free(&rb);
    return n;
}

static void test_exited_threads_leave_nothing_behind(void **state)
{
    (void)state;
    enum { THREADS = 300, PER = 40 };
    const char *dir = t_tmpdir();
    const char *path = t_path(dir, "exit.log");
    nl_log_t *log = nl_open(path);
    assert_non_null(log);
    worker_t w[THREADS];
    for (int round = 0; round < THREADS / 10; round++) { /* 10 at a time, each exits */
        pthread_t th[10];
        for (int i = 0; i < 10; i++) {
            w[round * 10 + i] = (worker_t){.log = log, .id = round * 10 + i, .n = PER};
            pthread_create(&th[i], NULL, worker_main, &w[round * 10 + i]);
        }
        for (int i = 0; i < 10; i++) pthread_join(th[i], NULL);
    }
    nl_stats_t st;
    nl_stats(log, &st);
    assert_int_equal(st.written, THREADS * PER);
    assert_int_equal(nl_flush(log), 0);
    assert_int_equal(check_file(path, THREADS, PER), THREADS * PER);
    nl_close(log);
    assert_int_equal(check_file(path, THREADS, PER), THREADS * PER);
    t_rmtree(dir);
}

static void test_running_thread_flushed(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    const char *path = t_path(dir, "run.log");
    char url[512];
    snprintf(url, sizeof url, "file://%s?flush=50", path);
    for (int how = 0; how < 2; how++) { /* 0: nl_flush from another thread; 1: the flusher */
        nl_log_t *log = nl_open(url);
        assert_non_null(log);
        pthread_barrier_t hold;
        pthread_barrier_init(&hold, NULL, 2);
        worker_t w = {.log = log, .id = 0, .n = 7, .hold = &hold};
        pthread_t th;
        pthread_create(&th, NULL, worker_main, &w);
        pthread_barrier_wait(&hold); /* written, and the writer is still alive */
        if (how == 0) {
            assert_int_equal(nl_flush(log), 0);
        } else {
            size_t len = 0;
            for (int ms = 0; ms < 3000 && len < 7 * 50; ms += 10) {
                free(t_slurp(path, &len));
                t_sleep_ms(10);
            }
        }
        assert_int_equal(check_file(path, 1, 7), 7);
        pthread_barrier_wait(&hold);
        pthread_join(th, NULL);
        nl_close(log);
        pthread_barrier_destroy(&hold);
        remove(path);
    }
    t_rmtree(dir);
}

static void test_more_logs_than_slots(void **state)
{
    (void)state;
    enum { LOGS = 7, PER = 3000 };
    const char *dir = t_tmpdir();
    nl_log_t *log[LOGS];
    char path[LOGS][512];
    for (int k = 0; k < LOGS; k++) {
        snprintf(path[k], sizeof path[k], "%s", t_path(dir, k % 2 ? "odd" : "even"));
        snprintf(path[k] + strlen(path[k]), sizeof path[k] - strlen(path[k]), "%d.log", k);
        log[k] = nl_open(path[k]);
        assert_non_null(log[k]);
    }
    for (int i = 0; i < PER; i++) /* round robin: every call evicts a stage */
        for (int k = 0; k < LOGS; k++) nl_write(log[k], "t.stage", "tid=i seq=i", 0, i);
    for (int k = 0; k < LOGS; k++) {
        nl_stats_t st;
        nl_stats(log[k], &st);
        assert_int_equal(st.written, PER);
        nl_close(log[k]);
        assert_int_equal(check_file(path[k], 1, PER), PER);
    }
    t_rmtree(dir);
}

static void test_reopen_same_address(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    for (int round = 0; round < 200; round++) {
        char path[512];
        snprintf(path, sizeof path, "%s", t_path(dir, round % 2 ? "a.log" : "b.log"));
        remove(path);
        nl_log_t *log = nl_open(path);
        assert_non_null(log);
        for (int i = 0; i < 5 + round % 7; i++) nl_write(log, "t.stage", "tid=i seq=i", 0, i);
        nl_stats_t st;
        nl_stats(log, &st);
        assert_int_equal(st.written, 5 + round % 7);
        nl_close(log);
        assert_int_equal(check_file(path, 1, 5 + round % 7), 5 + round % 7);
    }
    t_rmtree(dir);
}

/* nl_close racing the threads that wrote to the log: they have staged lines for it and
 * are, at that moment, exiting (their stages let go from the thread-exit destructor) or
 * writing to another log (their stale stage is found detached and freed). */
typedef struct racer {
    nl_log_t *a, *b;
    int id, n, exits;
    _Atomic int *done_a, *stop;
    long on_b;
} racer_t;

static void *racer_main(void *arg)
{
    racer_t *r = arg;
    for (int i = 0; i < r->n; i++) nl_write(r->a, "t.stage", "tid=i seq=i", r->id, i);
    atomic_fetch_add(r->done_a, 1);
    if (r->exits) return NULL;
    while (!atomic_load(r->stop)) nl_write(r->b, "t.stage", "tid=i seq=i", r->id, (int)r->on_b++);
    return NULL;
}

static void test_close_races_writers(void **state)
{
    (void)state;
    enum { THREADS = 8, PER = 500, ROUNDS = 20 };
    const char *dir = t_tmpdir();
    for (int round = 0; round < ROUNDS; round++) {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s", t_path(dir, "a.log"));
        snprintf(pb, sizeof pb, "%s", t_path(dir, "b.log"));
        remove(pa);
        remove(pb);
        nl_log_t *a = nl_open(pa), *b = nl_open(pb);
        assert_non_null(a);
        assert_non_null(b);
        _Atomic int done_a = 0, stop = 0;
        racer_t r[THREADS];
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; i++) {
            r[i] = (racer_t){.a = a,
                             .b = b,
                             .id = i,
                             .n = PER,
                             .exits = i % 2,
                             .done_a = &done_a,
                             .stop = &stop};
            pthread_create(&th[i], NULL, racer_main, &r[i]);
        }
        while (atomic_load(&done_a) < THREADS) sched_yield();
        nl_close(a); /* half the writers are exiting, half writing to b, right now */
        assert_int_equal(check_file(pa, THREADS, PER), THREADS * PER);
        atomic_store(&stop, 1);
        for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
        nl_stats_t st;
        nl_stats(b, &st);
        long on_b = 0;
        for (int i = 0; i < THREADS; i++) on_b += r[i].on_b;
        assert_int_equal(st.written, on_b);
        assert_int_equal(st.dropped, 0);
        nl_close(b);
    }
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage_chunks_in_order),
        cmocka_unit_test(test_stage_off),
        cmocka_unit_test(test_stage_not_reused_after_close),
        cmocka_unit_test(test_writers_counted),
        cmocka_unit_test(test_exited_threads_leave_nothing_behind),
        cmocka_unit_test(test_running_thread_flushed),
        cmocka_unit_test(test_more_logs_than_slots),
        cmocka_unit_test(test_reopen_same_address),
        cmocka_unit_test(test_close_races_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
