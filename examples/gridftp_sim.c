/* SPDX-License-Identifier: BSD-3-Clause */
/* gridftp_sim.c — a GridFTP-like transfer server for the live demo: it serves one transfer
 * after another, each a run of 4 MiB disk writes, every write wrapped in a start/end pair
 * (gridftp.disk.write, value = bytes) and every transfer in its own pair
 * (gridftp.transfer, guid = the transfer's). The "disk" is a sleep of 4 MiB at about
 * 400 MB/s with some noise, so it runs in real time with little CPU. Destination and
 * summarization come from the environment (NL_DEST, NL_SUMMARY), as for any nlkit program.
 *
 * Disturbances to detect: the disk slows to FACTOR of its speed for SLOW_LEN seconds from
 * SLOW_FROM (failing one write in 8 meanwhile: status=5 on its end, else status=0), and at
 * HANG_AT one transfer hangs: its start is written, its end never is.
 * At exit it prints the disk writes and transfers it logged and the lines it dropped.
 *
 *   nl-gridftp-sim HOST SECONDS [SLOW_FROM SLOW_LEN FACTOR [HANG_AT]]   (negative: none) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nlkit/nl.h"

enum { BLOCK = 4 << 20 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Uniform in [0, 1) from a per-process xorshift: no shared state, reproducible per seed. */
static double uniform(unsigned long long *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return (double)(*x >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: nl-gridftp-sim HOST SECONDS [SLOW_FROM SLOW_LEN FACTOR "
                        "[HANG_AT]]\n");
        return 2;
    }
    const char *host = argv[1];
    double secs = atof(argv[2]);
    double slow_from = argc > 5 ? atof(argv[3]) : -1, slow_len = argc > 5 ? atof(argv[4]) : 0;
    double factor = argc > 5 ? atof(argv[5]) : 1, hang_at = argc > 6 ? atof(argv[6]) : -1;
    if (secs <= 0 || factor <= 0) {
        fprintf(stderr, "nl-gridftp-sim: SECONDS and FACTOR must be positive\n");
        return 2;
    }
    int err;
    nl_log_t *log = nl_open_ex("-", &err);
    if (!log) {
        fprintf(stderr, "nl-gridftp-sim: cannot open the log: %s\n", nl_open_strerror(err));
        return 1;
    }
    nl_const_std(log);
    nl_const_set(log, "host", host); /* one machine plays several hosts */
    unsigned long long rng = 0x9e3779b97f4a7c15ULL;
    for (const char *c = host; *c; c++) rng = rng * 31 + (unsigned char)*c;
    long writes = 0, transfers = 0;
    int hung = 0;
    double t0 = now_s(), t;
    while ((t = now_s() - t0) < secs) {
        char guid[40], file[64];
        nl_guid_new(guid);
        long blocks = 150 + (long)(100 * uniform(&rng)); /* 1.5-2.5 s at full speed */
        snprintf(file, sizeof file, "/data/run42/part-%04ld.dat", transfers);
        nl_write(log, "gridftp.transfer.start", "guid=s file=s size=l", guid, file,
                 (long long)blocks * BLOCK);
        transfers++;
        if (!hung && hang_at >= 0 && t >= hang_at) {
            hung = 1; /* this one hangs: no end is ever written; the server goes on */
            continue;
        }
        /* a transfer under way when the time is up is finished, as a server drains at
         * shutdown: cut short, its end read as a quick transfer, an incident on the page */
        long b = 0;
        for (; b < blocks; b++) {
            double at = now_s() - t0;
            double speed = 400e6 * (1 + 0.05 * (uniform(&rng) - 0.5) * 2);
            int slow = at >= slow_from && at < slow_from + slow_len;
            if (slow) speed *= factor;
            nl_write(log, "gridftp.disk.write.start", "block=l", (long long)b);
            sleep_s(BLOCK / speed);
            /* the slow disk also fails one write in 8 (EIO, retried at once): the
             * summaries' err.n, the page's error ratio */
            nl_write(log, "gridftp.disk.write.end", "block=l value=l status=l", (long long)b,
                     (long long)BLOCK, slow && b % 8 == 7 ? 5LL : 0LL);
            writes++;
        }
        nl_write(log, "gridftp.transfer.end", "guid=s nbytes=l", guid, (long long)b * BLOCK);
    }
    nl_flush(log);
    unsigned long long dropped = nl_dropped(log);
    nl_close(log); /* writes the last partial summary */
    printf("host=%s writes=%ld transfers=%ld dropped=%llu\n", host, writes, transfers, dropped);
    return dropped ? 1 : 0;
}
