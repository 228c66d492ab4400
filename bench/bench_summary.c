/* bench_summary.c — what summarization buys: the Figure 2 loop's start/end events written
 * in full to /dev/null, in full to a file, and summarized every second (to a file, where
 * the summaries land), with 1, 2 and 8 threads, in the same run, rounds interleaved.
 *
 *   bench-summary [CALLS_PER_THREAD [ROUNDS [DIR]]]   default 1000000 x 5, DIR /tmp
 *
 * Every thread has its own guid (a "guid=s" field), as instrumented threads should, so
 * each thread's pairs are one identity. A "call" is one nl_write (a start or an end).
 * Prints, per configuration, the median over rounds of ns per call (wall time of the
 * slowest thread over its calls) and the total events per second of all threads; then the
 * speed-up of summarized over full-to-file, and the cost of one clock_gettime for
 * reference, since a summarized call must read the clock once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "nlkit/nl.h"

enum { FULL_NULL, FULL_FILE, SUMMARY, NCONF };
static const char *const conf_name[NCONF] = {"full -> /dev/null", "full -> file",
                                             "summarized 1 s -> file"};

typedef struct {
    nl_log_t *log;
    long calls;
    pthread_barrier_t *go;
    double secs;
} worker_t;

/* The Figure 2 loop: each iteration a start and an end carrying i and a value. */
static void *worker(void *arg)
{
    worker_t *w = arg;
    char guid[NL_GUID_LEN + 1];
    nl_guid_new(guid);
    pthread_barrier_wait(w->go);
    double t0 = bench_now_s();
    for (long i = 0; i < w->calls / 2; i++) {
        nl_write(w->log, "example.loop.start", "guid=s i=l", guid, (long long)i);
        nl_write(w->log, "example.loop.end", "guid=s i=l value=l", guid, (long long)i,
                 (long long)65536);
    }
    w->secs = bench_now_s() - t0;
    return NULL;
}

/* One round: returns ns per call (slowest thread) and stores events/s of all threads. */
static double run(int conf, int threads, long calls, const char *dir, double *evps)
{
    char url[512];
    if (conf == FULL_NULL)
        snprintf(url, sizeof url, "/dev/null");
    else
        snprintf(url, sizeof url, "%s/bench-summary-%d.log", dir, (int)getpid());
    unlink(url);
    nl_log_t *log = nl_open(url);
    if (!log) {
        fprintf(stderr, "bench-summary: cannot open %s\n", url);
        exit(1);
    }
    nl_const_std(log);
    if (conf == SUMMARY) nl_summarize(log, "example.loop", NL_SUMM_SUMMARY, 1, NULL);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)threads);
    worker_t w[8];
    pthread_t th[8];
    for (int i = 0; i < threads; i++) {
        w[i] = (worker_t){log, calls, &go, 0};
        pthread_create(&th[i], NULL, worker, &w[i]);
    }
    double slowest = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        if (w[i].secs > slowest) slowest = w[i].secs;
    }
    nl_stats_t st;
    nl_stats(log, &st);
    nl_close(log);
    if (conf != FULL_NULL) unlink(url);
    pthread_barrier_destroy(&go);
    if (st.dropped || st.errors || st.overflow) {
        fprintf(stderr, "bench-summary: lost lines (dropped %llu errors %llu overflow %llu)\n",
                (unsigned long long)st.dropped, (unsigned long long)st.errors,
                (unsigned long long)st.overflow);
        exit(1);
    }
    *evps = (double)calls * threads / slowest;
    return slowest / (double)calls * 1e9;
}

static double clock_cost_ns(void)
{
    struct timespec t;
    long n = 2000000;
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) clock_gettime(CLOCK_MONOTONIC, &t);
    return (bench_now_s() - t0) / (double)n * 1e9;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    const char *dir = argc > 3 ? argv[3] : "/tmp";
    if (calls < 2 || rounds < 1 || rounds > 99) {
        fprintf(stderr, "usage: bench-summary [CALLS_PER_THREAD>=2 [ROUNDS 1-99 [DIR]]]\n");
        return 2;
    }
    const int thread_counts[] = {1, 2, 8};
    printf("bench-summary: %ld calls per thread, median of %d rounds, %ld CPUs\n", calls, rounds,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("%-24s %7s %10s %12s\n", "configuration", "threads", "ns/call", "events/s");
    for (int ti = 0; ti < 3; ti++) {
        int threads = thread_counts[ti];
        double ns[NCONF][99], ev[NCONF][99];
        for (int r = 0; r < rounds; r++)
            for (int c = 0; c < NCONF; c++) ns[c][r] = run(c, threads, calls, dir, &ev[c][r]);
        double med_ns[NCONF], med_ev[NCONF];
        for (int c = 0; c < NCONF; c++) {
            med_ns[c] = bench_median(ns[c], rounds);
            med_ev[c] = bench_median(ev[c], rounds);
            printf("%-24s %7d %10.1f %12.0f\n", conf_name[c], threads, med_ns[c], med_ev[c]);
        }
        printf("  -> summarized vs full-to-file: %.1fx the events/s; vs full-to-/dev/null: "
               "%.1fx\n",
               med_ev[SUMMARY] / med_ev[FULL_FILE], med_ev[SUMMARY] / med_ev[FULL_NULL]);
    }
    printf("reference: one clock_gettime(CLOCK_MONOTONIC) here costs %.1f ns\n", clock_cost_ns());
    return 0;
}
