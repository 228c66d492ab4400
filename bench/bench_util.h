/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_util.h — what every benchmark here needs: a monotonic clock, medians, and running
 * one of the project's programs with its output in a file. */
#ifndef NLKIT_BENCH_UTIL_H
#define NLKIT_BENCH_UTIL_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double bench_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline int bench_cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of n values (sorts them in place). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_d);
    return v[n / 2];
}

/* Run argv[0] (a path) with standard output into the file `out` (truncated); 0 if it
 * exited 0, -1 otherwise (a message on stderr if it could not start). */
static inline int bench_run_to(const char *out, char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(126);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s\n", argv[0]);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

#endif
