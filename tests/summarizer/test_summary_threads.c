/* SPDX-License-Identifier: BSD-3-Clause */
/* test_summary_threads.c — the summarizer under concurrency: 8 threads, each with its own
 * guid, fold the same pairs into one summary (guids match pairs, they do not split
 * summaries) as one thread folding them all: the same count, extremes and value sum, and
 * sums that agree to rounding (the order of the additions differs); so do 8 threads sharing
 * one pair handle (nl_pair). Each thread keeps its own injected time, so the durations do
 * not depend on how the threads interleave. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nlkit/nl.h"
#include "nls.h"

#define THREADS 8
#define PAIRS 20000

static _Thread_local int64_t my_now;
static int64_t thread_clock(void *arg)
{
    (void)arg;
    return my_now;
}

typedef struct {
    nl_log_t *log;
    nl_pair_t *pair; /* NULL: nl_write */
    int id;
} job_t;

static void guid_of(int id, char *g)
{
    snprintf(g, NL_GUID_LEN + 1, "%08x-0000-4000-8000-%012x", 0xabc00000u + (unsigned)id,
             (unsigned)id);
}

/* The pairs of thread `id`: durations and values from a seeded generator. */
static void *run(void *arg)
{
    job_t *j = arg;
    char g[NL_GUID_LEN + 1];
    guid_of(j->id, g);
    uint64_t rnd = 12345u + (uint64_t)j->id;
    my_now = 1000000000000000000LL;
    for (int i = 0; i < PAIRS; i++) {
        my_now += (int64_t)(t_rand(&rnd) % 1000);
        if (j->pair)
            nl_pair_start(j->pair, g);
        else
            nl_write(j->log, "work.start", "guid=s", g);
        my_now += 1 + (int64_t)(t_rand(&rnd) % 1000000);
        long long v = (long long)(t_rand(&rnd) % 100000);
        if (j->pair)
            nl_pair_end(j->pair, g, (double)v);
        else
            nl_write(j->log, "work.end", "guid=s value=l", g, v);
    }
    return NULL;
}

/* Run the jobs on `threads` threads (jobs spread round-robin), through nl_write or one
 * shared pair handle; return the log's text. */
static char *fold(const char *dir, const char *name, int threads, int use_pair)
{
    const char *path = t_path(dir, name);
    nl_log_t *log = nl_open(path);
    assert_non_null(log);
    assert_int_equal(nl__set_clock(log, thread_clock, NULL), 0);
    assert_int_equal(nl_summarize(log, "work", NL_SUMM_SUMMARY, 0, NULL), 0);
    nl_pair_t *pair = use_pair ? nl_pair(log, "work", "value", NULL) : NULL;
    assert_true(!use_pair || pair);
    job_t jobs[THREADS];
    for (int i = 0; i < THREADS; i++) jobs[i] = (job_t){log, pair, i};
    if (threads == 1) {
        for (int i = 0; i < THREADS; i++) run(&jobs[i]);
    } else {
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; i++)
            assert_int_equal(pthread_create(&th[i], NULL, run, &jobs[i]), 0);
        for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    }
    nl_stats_t st;
    nl_stats(log, &st);
    assert_int_equal(st.overflow, 0);
    nl_close(log);
    return t_slurp(path, NULL);
}

/* The one work.summary line of text: its fields exact (integers, extremes) joined into
 * out, and its sums and deviations into sums[]. */
static const char *const sum_names[] = {"dur.sum", "dur.sd", "v.sd", "r.sum", "r.sd"};
#define NSUMS (sizeof sum_names / sizeof *sum_names)

static void stats_of(char *text, char *out, size_t cap, double *sums)
{
    t_readback_t rb = {0};
    rb.text = strdup(text);
    rb.n = t_lines(rb.text, &rb.lines);
    nl_rec_init(&rb.rec);
    out[0] = '\0';
    int found = 0;
    for (size_t i = 0; i < rb.n; i++) {
        nl_rec_t *r = t_rb_rec(&rb, i);
        if (strcmp(t_field(r, "event"), "work.summary") != 0) continue;
        found++;
        const char *names[] = {"n", "dur.min", "dur.max", "v.sum", "r.min", "r.max", "span"};
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            const char *v = t_field(r, names[k]);
            assert_non_null(v);
            size_t l = strlen(out);
            snprintf(out + l, cap - l, "%s=%s ", names[k], v);
        }
        for (size_t k = 0; k < NSUMS; k++) sums[k] = t_num(r, sum_names[k]);
    }
    assert_int_equal(found, 1);
    t_rb_free(&rb);
}

/* Threads through nl_write (use_pair 0) or one shared handle (1) against one thread
 * through nl_write. */
static void threads_equal_single(int use_pair)
{
    const char *dir = t_tmpdir();
    char *one = fold(dir, "one", 1, 0), *many = fold(dir, "many", THREADS, use_pair);
    char a[1024], b[1024];
    double sa[NSUMS], sb[NSUMS];
    stats_of(one, a, sizeof a, sa);
    stats_of(many, b, sizeof b, sb);
    assert_string_equal(a, b);
    char want[32];
    snprintf(want, sizeof want, "n=%d ", THREADS * PAIRS);
    assert_memory_equal(a, want, strlen(want));
    for (size_t k = 0; k < NSUMS; k++)
        if (!(fabs(sa[k] - sb[k]) <= 1e-9 * fabs(sa[k])))
            fail_msg("%s: %.17g alone, %.17g on %d threads", sum_names[k], sa[k], sb[k], THREADS);
    free(one);
    free(many);
    t_rmtree(dir);
}

static void test_threads_equal_single(void **state)
{
    (void)state;
    threads_equal_single(0);
}

static void test_threads_sharing_a_pair_handle(void **state)
{
    (void)state;
    threads_equal_single(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_equal_single),
        cmocka_unit_test(test_threads_sharing_a_pair_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
