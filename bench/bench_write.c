/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_write.c — ns per call of nl_write for the Figure 2 loop's end event, beside
 * fprintf writing an identical line (what a C programmer writes by hand: clock_gettime,
 * gmtime_r, one fprintf), both to /dev/null, in the same run, rounds interleaved.
 *
 *   bench-write [CALLS_PER_ROUND [ROUNDS]]      default 1000000 x 5
 *
 * Prints the lines each side writes (so they can be compared), the median ns/call of each
 * side and the ratio fprintf/nl_write (> 1 means nl_write is faster). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "nlkit/nl.h"

static char host[256], guid[NL_GUID_LEN + 1];
static const char *prog = "bench-write";
static int pid;

/* The hand-written equivalent of nl_write(log, "example.loop.end", "i=l value=l", ...) with
 * the log's constants host, prog and pid. */
static void fprintf_end_event(FILE *f, long long i, long long value)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    fprintf(f,
            "ts=%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ event=example.loop.end level=Info guid=%s "
            "host=%s prog=%s pid=%d i=%lld value=%lld\n",
            tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
            ts.tv_nsec / 1000, guid, host, prog, pid, i, value);
}

static double round_nl(nl_log_t *log, long calls)
{
    double t0 = bench_now_s();
    for (long i = 0; i < calls; i++)
        nl_write(log, "example.loop.end", "i=l value=l", (long long)i, (long long)65536);
    return (bench_now_s() - t0) / (double)calls * 1e9;
}

static double round_fprintf(FILE *f, long calls)
{
    double t0 = bench_now_s();
    for (long i = 0; i < calls; i++) fprintf_end_event(f, i, 65536);
    return (bench_now_s() - t0) / (double)calls * 1e9;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (calls < 1 || rounds < 1 || rounds > 100) {
        fprintf(stderr, "usage: bench-write [CALLS_PER_ROUND [ROUNDS<=100]]\n");
        return 2;
    }
    gethostname(host, sizeof host - 1);
    pid = (int)getpid();
    nl_log_t *log = nl_open("/dev/null");
    FILE *f = fopen("/dev/null", "w");
    if (!log || !f) {
        fprintf(stderr, "bench-write: cannot open /dev/null\n");
        return 1;
    }
    nl_const_set(log, "host", host);
    nl_const_set(log, "prog", prog);
    char pids[16];
    snprintf(pids, sizeof pids, "%d", pid);
    nl_const_set(log, "pid", pids);
    snprintf(guid, sizeof guid, "%s", nl_guid(log));

    /* show one line of each side */
    nl_log_t *show = nl_open("&");
    nl_const_set(show, "host", host);
    nl_const_set(show, "prog", prog);
    nl_const_set(show, "pid", pids);
    nl_set_guid(show, guid);
    printf("line written by each side (one sample each, to stderr):\n");
    fflush(stdout);
    nl_write(show, "example.loop.end", "i=l value=l", 7LL, 65536LL);
    nl_close(show);
    fprintf_end_event(stderr, 7, 65536);

    double nl_ns[100], fp_ns[100];
    round_nl(log, calls / 10 + 1); /* warm up both */
    round_fprintf(f, calls / 10 + 1);
    for (int r = 0; r < rounds; r++) {
        nl_ns[r] = round_nl(log, calls);
        fp_ns[r] = round_fprintf(f, calls);
    }
    double a = bench_median(nl_ns, rounds), b = bench_median(fp_ns, rounds);
    printf("\nFigure 2 end event to /dev/null, %ld calls x %d rounds, 1 thread (median round)\n",
           calls, rounds);
    printf("%-34s %10s %14s\n", "writer", "ns/call", "calls/s");
    printf("%-34s %10.1f %14.0f\n", "nl_write (libnlkit)", a, 1e9 / a);
    printf("%-34s %10.1f %14.0f\n", "fprintf + gmtime_r (hand-written)", b, 1e9 / b);
    printf("ratio fprintf/nl_write: %.2f  (> 1: nl_write is faster)\n", b / a);
    nl_stats_t st;
    nl_stats(log, &st);
    nl_close(log);
    fclose(f);
    if (st.dropped || st.errors) {
        fprintf(stderr, "bench-write: %llu dropped, %llu errors\n", (unsigned long long)st.dropped,
                (unsigned long long)st.errors);
        return 1;
    }
    return 0;
}
