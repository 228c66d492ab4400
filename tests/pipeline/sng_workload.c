/* SPDX-License-Identifier: BSD-3-Clause */
/* sng_workload.c — the instrumented program of the syslog-ng pipeline test: PAIRS work
 * iterations, each wrapped in a start/end pair carrying the bytes "moved", with a slowdown
 * injected between two iterations; destination and summarization come from the
 * environment (NL_DEST, NL_SUMMARY) as for any nlkit program. At exit it prints what it
 * handed to the library and what it could not deliver by then, so the test can count them
 * at the far end; lines still undelivered when nl_close gives up on them are said by the
 * library on standard error, which the tests read too.
 * NL_TEST_HOST, when set, is the host= it writes (several "hosts" on one machine).
 *
 *   nl-sng-workload PAIRS [SLOW_FROM SLOW_TO [SPIN_US]] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nlkit/nl.h"

/* Busy work for about us microseconds (a sleep would make the slowdown a scheduler test). */
static void spin(double us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: nl-sng-workload PAIRS [SLOW_FROM SLOW_TO [SPIN_US]]\n");
        return 2;
    }
    long pairs = atol(argv[1]);
    long slow_from = argc > 3 ? atol(argv[2]) : -1, slow_to = argc > 3 ? atol(argv[3]) : -1;
    double us = argc > 4 ? atof(argv[4]) : 20;
    int err;
    nl_log_t *log = nl_open_ex("-", &err);
    if (!log) {
        fprintf(stderr, "nl-sng-workload: cannot open the log: %s\n", nl_strerror(err));
        return 1;
    }
    nl_const_std(log);
    const char *host = getenv("NL_TEST_HOST");
    if (host && nl_const_set(log, "host", host) != 0) {
        fprintf(stderr, "nl-sng-workload: bad NL_TEST_HOST\n");
        return 1;
    }
    for (long i = 0; i < pairs; i++) {
        nl_write(log, "test.work.start", "i=l", (long long)i);
        spin(i >= slow_from && i < slow_to ? 5 * us : us);
        nl_write(log, "test.work.end", "i=l value=l", (long long)i, 262144LL);
    }
    nl_flush(log);
    nl_stats_t st;
    nl_stats(log, &st);
    nl_close(log); /* writes the last partial interval's summary */
    printf("pairs=%ld dropped=%llu\n", pairs, (unsigned long long)st.dropped);
    return 0;
}
