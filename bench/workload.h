/* SPDX-License-Identifier: BSD-3-Clause */
/* workload.h — seeded simulator of the paper's evaluation workloads: one summary line per
 * activity per second, with injected faults and a ground-truth file naming each injection.
 *
 * Scenarios:
 *   xfer-controlled  90 min of one TCP file transfer on a 10 ms path (AIMD sawtooth peaking
 *                    near 400 Mb/s), with strong and weak network contention, disk
 *                    contention, and from minute 60 on the round-trip time quadrupled
 *   xfer-random      5 h of the same transfer with random, overlapping injections
 *   cpu-job          1 h of a CPU-bound job (~120 iterations/s) with a CPU hog every minute
 *
 * Same scenario and seed give the same bytes, on any run. */
#ifndef NLKIT_BENCH_WORKLOAD_H
#define NLKIT_BENCH_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>

/* When the simulated runs start (2026-01-05T00:00:00Z), in epoch seconds. */
#define WL_T0 1767571200LL

/* The scenarios' names, NULL-terminated. */
extern const char *const wl_scenarios[];

/* Write scenario `name` with `seed`: summary lines to `log`, and to `truth` one line per
 * injection, "START END KIND STRENGTH WEAK" (seconds from WL_T0, kind one of net-strong,
 * net-weak, disk, latency, cpu-hog; strength the fraction of capacity left; WEAK 1 for an
 * injection too small to count by default). Returns 0, or -1 for an unknown scenario or a
 * write error (errno set). */
int wl_write(const char *name, uint64_t seed, FILE *log, FILE *truth);

#endif
