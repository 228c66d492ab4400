/* SPDX-License-Identifier: BSD-3-Clause */
/* perturb.c — the paper's Figure 3 on today's machine: how much does instrumenting every
 * iteration of a loop slow the loop down? An outer loop is calibrated to run at a target
 * rate (200 ... 40,000 iterations/s) without logging; each iteration wraps a kernel of
 * work in a start/end pair. Two kernels: compute (a dependent chain of floating-point
 * operations) and I/O (4 KiB pwrite(2)s into a file in the page cache). The three ways to
 * run it — no logging, full logging to a file, logging summarized every second, and full
 * logging deferred (NL_MODE=deferred's path; three logs open for the whole measurement) —
 * are interleaved in blocks of ~10 ms in a fresh random
 * order, so whatever else the machine does lands on all three alike; a repetition is
 * `secs` of each. The perturbation of a repetition is the logged blocks' time per iteration
 * over the unlogged blocks', minus one. Prints the mean with a 95% confidence interval
 * (Student's t) over the repetitions.
 *
 *   bench-perturb [--quick] [--csv FILE] [--reps N] [--secs S] [--dir DIR] [RATE ...]
 *        default rates 200 1000 5000 10000 20000 40000, 20 reps of 0.25 s of each mode, /tmp
 *        --quick: rates 1000 10000, 3 reps of 0.05 s (a smoke test, not a measurement) */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "nlkit/nl.h"

enum { MODE_NONE, MODE_FULL, MODE_SUMM, MODE_DEFER, NMODE };
static const char *const mode_name[NMODE] = {"none", "full -> file", "summarized 1 s",
                                             "full deferred -> file"};
static const char *const mode_csv[NMODE] = {"none", "full", "summarized", "deferred"};
enum { K_COMPUTE, K_IO, NKERNEL };
static const char *const kernel_name[NKERNEL] = {"compute", "I/O"};

#define IO_BLOCK 4096
#define IO_SPAN (4 << 20) /* the I/O kernel cycles through 4 MiB: stays in the page cache */
#define MAX_REPS 100
#define MAX_RATES 32
#define BLOCK_S 0.01    /* one block of one mode: ~10 ms */
#define MAX_BLOCKS 6000 /* 60 s of blocks per mode */

typedef struct {
    int io_fd;
    off_t io_off;
    char block[IO_BLOCK];
    volatile double sink; /* keeps the compute kernel from being optimised away */
} kernel_t;

/* One unit of work: a compute unit is 16 dependent multiply-adds (a few ns); an I/O unit
 * is one 4 KiB pwrite. A failed write is fatal: the I/O kernel would measure nothing. */
static void kernel_run(kernel_t *k, int kind, long units)
{
    if (kind == K_COMPUTE) {
        double x = k->sink;
        for (long u = 0; u < units; u++)
            for (int j = 0; j < 16; j++) x = x * 1.0000001 + 1e-9;
        k->sink = x;
        return;
    }
    for (long u = 0; u < units; u++) {
        if (pwrite(k->io_fd, k->block, IO_BLOCK, k->io_off) != IO_BLOCK) {
            fprintf(stderr, "bench-perturb: I/O kernel: pwrite: %s\n", strerror(errno));
            exit(1);
        }
        k->io_off = (k->io_off + IO_BLOCK) % IO_SPAN;
    }
}

/* `iters` iterations of `units` of work, each wrapped in a start/end pair unless log is
 * NULL; *i numbers the iterations across blocks. Returns the seconds it took. */
static double loop(nl_log_t *log, kernel_t *k, int kind, long units, long iters, const char *g,
                   long long *i)
{
    double t0 = bench_now_s();
    if (!log) {
        for (long n = 0; n < iters; n++) kernel_run(k, kind, units);
        return bench_now_s() - t0;
    }
    for (long n = 0; n < iters; n++, (*i)++) {
        nl_write(log, "example.loop.start", "guid=s i=l", g, *i);
        kernel_run(k, kind, units);
        nl_write(log, "example.loop.end", "guid=s i=l value=l", g, *i, (long long)IO_BLOCK);
    }
    return bench_now_s() - t0;
}

/* Units of work per iteration so that the unlogged loop runs `rate` iterations/s: time a
 * batch long enough to measure, then scale. */
static long calibrate(kernel_t *k, int kind, double rate)
{
    long units = 64;
    double t;
    for (;;) {
        t = loop(NULL, k, kind, units, 1, NULL, NULL);
        if (t > 0.02 || units > (1L << 40)) break;
        units *= 4;
    }
    long u = (long)((double)units / (t * rate) + 0.5);
    return u < 1 ? 1 : u;
}

static nl_log_t *open_log(int mode, const char *path)
{
    unlink(path);
    char url[600];
    snprintf(url, sizeof url, mode == MODE_DEFER ? "file://%s?mode=deferred" : "%s", path);
    nl_log_t *log = nl_open(url);
    if (!log) {
        fprintf(stderr, "bench-perturb: cannot open %s\n", path);
        exit(1);
    }
    if (mode == MODE_SUMM) nl_summarize(log, "example.loop", NL_SUMM_SUMMARY, 1, NULL);
    return log;
}

/* Student's t for a two-sided 95% interval with df degrees of freedom. */
static double t95(int df)
{
    static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                               2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                               2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                               2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    return df < 1 ? NAN : df <= 30 ? t[df] : 1.96 + 2.4 / df;
}

/* Mean and the half-width of its 95% confidence interval. */
static void mean_ci(const double *v, int n, double *mean, double *ci)
{
    double s = 0, ss = 0;
    for (int i = 0; i < n; i++) s += v[i];
    *mean = s / n;
    for (int i = 0; i < n; i++) ss += (v[i] - *mean) * (v[i] - *mean);
    *ci = n > 1 ? t95(n - 1) * sqrt(ss / (n - 1)) / sqrt(n) : NAN;
}

static uint64_t rng_state;
static int rng_below(int n) /* xorshift64*: the order of the modes in a repetition */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (int)((rng_state * 0x2545F4914F6CDD1DULL >> 33) % (uint64_t)n);
}

static void usage(void)
{
    fprintf(stderr, "usage: bench-perturb [--quick] [--csv FILE] [--reps N] [--secs S] "
                    "[--dir DIR] [RATE ...]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double rates[MAX_RATES] = {200, 1000, 5000, 10000, 20000, 40000};
    int nrates = 6, reps = 20, quick = 0, user_rates = 0;
    double secs = 0.25;
    const char *csv_path = NULL, *dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--secs") && i + 1 < argc) {
            secs = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
            dir = argv[++i];
        } else if (argv[i][0] != '-' && nrates < MAX_RATES) {
            if (!user_rates) nrates = 0;
            user_rates = 1;
            rates[nrates] = atof(argv[i]);
            if (!(rates[nrates] >= 1 && rates[nrates] <= 1e6)) usage();
            nrates++;
        } else {
            usage();
        }
    }
    if (quick) {
        reps = 3;
        secs = 0.05;
        if (!user_rates) {
            rates[0] = 1000;
            rates[1] = 10000;
            nrates = 2;
        }
    }
    if (reps < 2 || reps > MAX_REPS || !(secs > 0 && secs <= 60)) usage();

    FILE *csv = NULL;
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "bench-perturb: %s: %s\n", csv_path, strerror(errno));
        return 1;
    }
    if (csv)
        fprintf(csv, "kernel,target_per_s,achieved_per_s,mode,reps,mean_pct,ci95_pct,"
                     "median_pct\n");

    char io_path[512], full_path[512], summ_path[512], defer_path[512];
    snprintf(io_path, sizeof io_path, "%s/bench-perturb-%d.io", dir, (int)getpid());
    snprintf(full_path, sizeof full_path, "%s/bench-perturb-%d.full.log", dir, (int)getpid());
    snprintf(summ_path, sizeof summ_path, "%s/bench-perturb-%d.summ.log", dir, (int)getpid());
    snprintf(defer_path, sizeof defer_path, "%s/bench-perturb-%d.defer.log", dir, (int)getpid());
    static kernel_t k;
    memset(k.block, 'x', sizeof k.block);
    k.sink = 1.0;
    k.io_fd = open(io_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (k.io_fd < 0) {
        fprintf(stderr, "bench-perturb: %s: %s\n", io_path, strerror(errno));
        return 1;
    }
    kernel_run(&k, K_IO, IO_SPAN / IO_BLOCK); /* the file exists in the page cache */
    rng_state = (uint64_t)getpid() * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(bench_now_s() * 1e9);
    char guid[NL_GUID_LEN + 1];
    nl_guid_new(guid);

    printf("perturbation of a loop by logging a start/end pair per iteration: %d reps of "
           "%.2f s of each mode, in 10 ms blocks in random order, vs the same rep's unlogged "
           "blocks\n\n",
           reps, secs);
    printf("| kernel | target it/s | achieved it/s | logging | perturbation %% | 95%% CI "
           "| median %% |\n|---|---:|---:|---|---:|---:|---:|\n");
    double goal_mean = NAN, goal_ci = NAN;
    for (int kind = 0; kind < NKERNEL; kind++) {
        for (int ri = 0; ri < nrates; ri++) {
            double rate = rates[ri];
            long units = calibrate(&k, kind, rate);
            /* blocks of ~10 ms (at least one iteration); `secs` of each mode per rep */
            long per_block = (long)(rate * BLOCK_S + 0.5);
            if (per_block < 1) per_block = 1;
            int blocks = (int)(secs / BLOCK_S + 0.5);
            if (blocks < 1) blocks = 1;
            if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
            nl_log_t *logs[NMODE] = {NULL, open_log(MODE_FULL, full_path),
                                     open_log(MODE_SUMM, summ_path),
                                     open_log(MODE_DEFER, defer_path)};
            double pct[NMODE][MAX_REPS], t_none_sum = 0;
            long long seq[NMODE] = {0};
            static int order[NMODE * MAX_BLOCKS];
            for (int r = 0; r < reps; r++) {
                int n = 0;
                for (int m = 0; m < NMODE; m++)
                    for (int b = 0; b < blocks; b++) order[n++] = m;
                for (int i = n - 1; i > 0; i--) {
                    int j = rng_below(i + 1), tmp = order[i];
                    order[i] = order[j];
                    order[j] = tmp;
                }
                double t[NMODE] = {0};
                for (int i = 0; i < n; i++) {
                    int m = order[i];
                    t[m] += loop(logs[m], &k, kind, units, per_block, guid, &seq[m]);
                }
                t_none_sum += t[MODE_NONE];
                for (int m = MODE_FULL; m < NMODE; m++) pct[m][r] = (t[m] / t[MODE_NONE] - 1) * 100;
            }
            for (int m = MODE_FULL; m < NMODE; m++) nl_close(logs[m]);
            long iters = per_block * blocks;
            double achieved = iters * reps / t_none_sum;
            for (int m = MODE_FULL; m < NMODE; m++) {
                double mean, ci;
                mean_ci(pct[m], reps, &mean, &ci);
                double med = bench_median(pct[m], reps);
                printf("| %s | %.0f | %.0f | %s | %+.3f | ±%.3f | %+.3f |\n", kernel_name[kind],
                       rate, achieved, mode_name[m], mean, ci, med);
                if (csv)
                    fprintf(csv, "%s,%.0f,%.0f,%s,%d,%.4f,%.4f,%.4f\n", kernel_name[kind], rate,
                            achieved, mode_csv[m], reps, mean, ci, med);
                if (kind == K_COMPUTE && rate == 10000 && m == MODE_SUMM) {
                    goal_mean = mean;
                    goal_ci = ci;
                }
            }
            fflush(stdout);
        }
    }
    if (goal_mean == goal_mean)
        printf("\nsummarized at 10,000 iterations/s (compute kernel): %+.3f%% ± %.3f "
               "(goal < 0.5%%; the paper estimated 3.4%%)\n",
               goal_mean, goal_ci);
    close(k.io_fd);
    unlink(io_path);
    unlink(full_path);
    unlink(summ_path);
    unlink(defer_path);
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "bench-perturb: %s: %s\n", csv_path, strerror(errno));
        return 1;
    }
    return 0;
}
