/* SPDX-License-Identifier: BSD-3-Clause */
/* test_threads.c — many threads, one log: 8 threads x 100k lines into one file, every line
 * intact, every (thread, seq) present exactly once and each thread's lines in the order it
 * wrote them (the sink's two buffers must go out oldest first); while they write, another thread
 * changes constants, level and GUID (the copy-on-write head must keep writers safe). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nlkit/nl.h"

#define THREADS 8
#define PER_THREAD 100000

typedef struct {
    nl_log_t *log;
    int id;
    int errors;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    for (long i = 0; i < PER_THREAD; i++) {
        /* alternate formats so the template cache is exercised concurrently too */
        int rc =
            i & 1
                ? nl_write(w->log, "t.thread", "th=i seq=l msg=s", w->id, (long long)i, "odd line")
                : nl_write(w->log, "t.thread", "th=i seq=l v=d", w->id, (long long)i, i * 0.5);
        if (rc) w->errors++;
    }
    return NULL;
}

static atomic_int stop_meddling;

static void *meddler(void *arg)
{
    nl_log_t *log = arg;
    char v[32];
    for (int k = 0; !atomic_load(&stop_meddling); k++) {
        snprintf(v, sizeof v, "value %d", k);
        nl_const_set(log, k % 2 ? "site" : "host", v);
        nl_set_level(log, NL_LVL_INFO + k % 2); /* never below Info: nothing is filtered */
        char g[NL_GUID_LEN + 1];
        nl_guid_new(g);
        nl_set_guid(log, g);
        t_sleep_ms(1);
    }
    return NULL;
}

static void test_threads_no_torn_lines(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "threads.log");
    nl_log_t *log = nl_open(path);
    pthread_t th[THREADS], med;
    worker_t w[THREADS];
    atomic_store(&stop_meddling, 0);
    pthread_create(&med, NULL, meddler, log);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker_t){log, i, 0};
        pthread_create(&th[i], NULL, worker, &w[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    atomic_store(&stop_meddling, 1);
    pthread_join(med, NULL);
    nl_stats_t st;
    nl_stats(log, &st);
    nl_close(log);
    for (int i = 0; i < THREADS; i++) assert_int_equal(w[i].errors, 0);
    assert_int_equal(st.written, (uint64_t)THREADS * PER_THREAD);
    assert_int_equal(st.dropped, 0);

    char *text = t_slurp(path, NULL);
    char **lines;
    size_t n = t_lines(text, &lines);
    assert_int_equal(n, (size_t)THREADS * PER_THREAD);
    unsigned char *seen = calloc((size_t)THREADS * PER_THREAD, 1);
    long last[THREADS];
    for (int i = 0; i < THREADS; i++) last[i] = -1;
    nl_rec_t rec;
    nl_rec_init(&rec);
    for (size_t i = 0; i < n; i++) {
        nl_perr_t err;
        if (nl_parse(&rec, lines[i], strlen(lines[i]), (long)i + 1, 0, &err) != 1)
            fail_msg("line %zu torn (col %d: %s): %s", i + 1, err.col, err.msg, lines[i]);
        const nl_field_t *t = nl_rec_get(&rec, "th"), *s = nl_rec_get(&rec, "seq");
        assert_non_null(t);
        assert_non_null(s);
        long tid = strtol(t->value, NULL, 10), seq = strtol(s->value, NULL, 10);
        assert_true(tid >= 0 && tid < THREADS && seq >= 0 && seq < PER_THREAD);
        unsigned char *slot = &seen[tid * PER_THREAD + seq];
        if (*slot) fail_msg("thread %ld seq %ld written twice", tid, seq);
        *slot = 1;
        if (seq <= last[tid])
            fail_msg("thread %ld: seq %ld after seq %ld (line %zu)", tid, seq, last[tid], i + 1);
        last[tid] = seq;
        /* the odd/even format must match the seq: templates never mixed up */
        assert_true((nl_rec_get(&rec, "msg") != NULL) == (seq & 1));
    }
    nl_rec_free(&rec);
    free(seen);
    free(lines);
    free(text);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_threads_no_torn_lines)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
