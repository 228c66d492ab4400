/* SPDX-License-Identifier: BSD-3-Clause */
/* pipeline_gen.c — the load of bench-pipeline: events written at a steady rate through
 * nlkit (destination from NL_DEST, as any instrumented program), then a line saying how
 * many were written, how many the library could not deliver, and the CPU time it used.
 *
 *   nl-pipeline-gen RATE SECONDS        events per second, for that long */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "nlkit/nl.h"

int main(int argc, char **argv)
{
    double rate = argc > 1 ? atof(argv[1]) : 0, secs = argc > 2 ? atof(argv[2]) : 0;
    if (rate <= 0 || secs <= 0) {
        fprintf(stderr, "usage: nl-pipeline-gen RATE SECONDS\n");
        return 2;
    }
    int err;
    nl_log_t *log = nl_open_ex("-", &err);
    if (!log) {
        fprintf(stderr, "nl-pipeline-gen: cannot open the log: %s\n", nl_open_strerror(err));
        return 1;
    }
    long long total = (long long)(rate * secs), sent = 0;
    double t0 = bench_now_s();
    while (sent < total) {
        /* as many as are due by now, then sleep a little: a steady rate, not bursts of a
         * second's worth */
        long long due = (long long)((bench_now_s() - t0) * rate) + 1;
        if (due > total) due = total;
        for (; sent < due; sent++)
            nl_write(log, "bench.pipe.read.end", "seq=l nbytes=l file=s", sent, 262144LL,
                     "/data/run42/part-0007.dat");
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    double took = bench_now_s() - t0;
    /* hand over what is still buffered while the pipeline takes it (up to a minute), so the
     * count below is final: what nl_close could not deliver would be dropped after it */
    for (double end = bench_now_s() + 60; nl_flush(log) != 0 && bench_now_s() < end;) {
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    unsigned long long dropped = nl_dropped(log);
    nl_close(log);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    printf("sent=%lld dropped=%llu seconds=%.2f rate=%.0f cpu=%.2f\n", sent, dropped, took,
           sent / took, cpu);
    return 0;
}
