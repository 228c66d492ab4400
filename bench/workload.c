/* SPDX-License-Identifier: BSD-3-Clause */
/* workload.c — the paper's evaluation workloads, simulated (see workload.h).
 *
 * The transfer is a TCP flow simulated one round trip at a time, which is what gives real
 * transfers their 1-second variance: the congestion window grows by one segment per round
 * trip and halves when it overruns the path (capacity plus router buffer) or on a random
 * loss; what is sent per round trip is the window, at most the capacity. On the 10 ms path
 * that is a sawtooth peaking at 400 Mb/s (mean ~350). Network contention takes a share of
 * the capacity; the latency fault quadruples the round trip, where the receiver's window
 * (not the path) then limits the flow to about half its former rate. Disk contention slows
 * the receiver's disk writes (ramping down and up over 15 s), not the transfer: the disk
 * stays faster than the network. Every number comes from one seeded generator, so a seed
 * names a run. */
#include "workload.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"

const char *const wl_scenarios[] = {"xfer-controlled", "xfer-random", "cpu-job", NULL};

typedef enum { K_NET_STRONG, K_NET_WEAK, K_DISK, K_LATENCY, K_CPU_HOG } wl_kind_t;
static const char *const kind_name[] = {"net-strong", "net-weak", "disk", "latency", "cpu-hog"};

typedef struct {
    long t0, t1; /* seconds from WL_T0, [t0, t1) */
    wl_kind_t kind;
    double strength; /* fraction of capacity (or speed) left */
    int weak;
} wl_inj_t;

#define MAX_INJ 256

typedef struct {
    uint64_t rng;
    wl_inj_t inj[MAX_INJ];
    int n_inj;
    FILE *log;
    const char *guid;
    int failed;
} wl_t;

/* splitmix64: small, fast, and the same sequence everywhere */
static uint64_t next_u64(wl_t *w)
{
    uint64_t z = (w->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double u01(wl_t *w) { return (double)(next_u64(w) >> 11) * 0x1.0p-53; }

static double gauss(wl_t *w)
{
    double u = u01(w), v = u01(w);
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void add_inj(wl_t *w, long t0, long t1, wl_kind_t k, double strength, int weak)
{
    if (w->n_inj < MAX_INJ) w->inj[w->n_inj++] = (wl_inj_t){t0, t1, k, strength, weak};
}

/* One summary line; values rounded to what a summarizer would print (microseconds). */
static void summary(wl_t *w, long sec, const char *event, long n, double dur_sum, double v_sum)
{
    char store[512];
    nl_buf_t b;
    nl_buf_init(&b, store, sizeof store);
    nl_enc_begin(&b, (WL_T0 + sec) * 1000000LL, event, NL_LVL_INFO, w->guid);
    nl_enc_str(&b, "host", "sim", 3);
    nl_enc_i64(&b, "n", n);
    nl_enc_dbl(&b, "dur.sum", round(dur_sum * 1e6) / 1e6);
    nl_enc_dbl(&b, "v.sum", v_sum);
    nl_enc_i64(&b, "open", 0);
    nl_enc_i64(&b, "int", 1);
    if (nl_enc_end(&b) == 0 && fwrite(b.p, 1, b.len, w->log) != b.len) w->failed = 1;
    nl_buf_free(&b);
}

/* ---- the transfer ---- */

#define MSS 1460.0
#define CAPACITY 50e6      /* bytes/s: 400 Mb/s */
#define BASE_RTT 0.010     /* s */
#define BUFFER_SEGS 86.0   /* router buffer: a quarter of the 10 ms path */
#define WINDOW_SEGS 616.0  /* receiver window: binds only on a long path */
#define LOSS_PER_RTT 0.003 /* random loss */
#define BLOCK 262144.0     /* the transfer's block: one event per block */
#define DISK_READ 1.2e9    /* bytes/s */
#define DISK_WRITE 0.9e9   /* bytes/s */
#define DISK_RAMP 15.0     /* s */

static void run_transfer(wl_t *w, long secs)
{
    double cwnd = 10, sent_total = 0;
    for (long s = 0; s < secs; s++) {
        double avail = 1, rtt = BASE_RTT, disk = 1;
        for (int i = 0; i < w->n_inj; i++) {
            const wl_inj_t *j = &w->inj[i];
            if (s < j->t0 || s >= j->t1) continue;
            switch (j->kind) {
            case K_NET_STRONG:
            case K_NET_WEAK: avail *= j->strength; break;
            case K_LATENCY: rtt = 4 * BASE_RTT; break;
            case K_DISK: {
                double ramp =
                    fmin(1.0, fmin((double)(s - j->t0 + 1), (double)(j->t1 - s)) / DISK_RAMP);
                disk *= 1 - (1 - j->strength) * ramp;
                break;
            }
            case K_CPU_HOG: break;
            }
        }
        double pipe = avail * CAPACITY * rtt / MSS, segs = 0;
        for (double t = 0; t < 1.0; t += rtt) {
            cwnd += 1;
            if (cwnd > pipe + BUFFER_SEGS || u01(w) < LOSS_PER_RTT) cwnd /= 2;
            if (cwnd > WINDOW_SEGS) cwnd = WINDOW_SEGS;
            segs += fmin(cwnd, pipe);
        }
        double bytes = segs * MSS * (1 + 0.02 * gauss(w)); /* cross traffic, timer jitter */
        long before = (long)(sent_total / BLOCK);
        sent_total += bytes > 0 ? bytes : 0;
        long blocks = (long)(sent_total / BLOCK) - before;
        double v = (double)blocks * BLOCK;
        double rd = v / (DISK_READ * (1 + 0.05 * gauss(w)));
        double wr = v / (DISK_WRITE * disk * (1 + 0.05 * gauss(w)));
        summary(w, s + 1, "xfer.disk.read.summary", blocks, rd, v);
        summary(w, s + 1, "xfer.network.write.summary", blocks, 1 - rd, v);
        summary(w, s + 1, "xfer.network.read.summary", blocks, 1 - wr, v);
        summary(w, s + 1, "xfer.disk.write.summary", blocks, wr, v);
    }
}

/* The paper's controlled run: each kind of fault once or twice, then for the last 30
 * minutes a four-times longer path. */
static void xfer_controlled(wl_t *w)
{
    add_inj(w, 600, 900, K_NET_STRONG, 0.35, 0);
    add_inj(w, 1200, 1500, K_NET_WEAK, 0.85, 1);
    add_inj(w, 1800, 2100, K_DISK, 0.30, 0);
    add_inj(w, 2400, 2580, K_NET_STRONG, 0.35, 0);
    add_inj(w, 2880, 3120, K_DISK, 0.40, 0);
    add_inj(w, 3600, 5400, K_LATENCY, 0.5, 0);
    run_transfer(w, 5400);
}

/* Five hours; faults start as a Poisson process (mean gap 15 min), so they overlap. */
static void xfer_random(wl_t *w)
{
    const long secs = 5 * 3600;
    double t = 600;
    for (;;) {
        t += -900.0 * log(1 - u01(w));
        if (t >= secs - 60) break;
        double k = u01(w);
        long len = 60 + (long)(540 * u01(w));
        if (k < 0.35)
            add_inj(w, (long)t, (long)t + len, K_NET_STRONG, 0.2 + 0.3 * u01(w), 0);
        else if (k < 0.60)
            add_inj(w, (long)t, (long)t + len, K_NET_WEAK, 0.8 + 0.1 * u01(w), 1);
        else if (k < 0.85)
            add_inj(w, (long)t, (long)t + len, K_DISK, 0.2 + 0.3 * u01(w), 0);
        else
            add_inj(w, (long)t, (long)t + 600 + (long)(1200 * u01(w)), K_LATENCY, 0.5, 0);
    }
    for (int i = 0; i < w->n_inj; i++)
        if (w->inj[i].t1 > secs) w->inj[i].t1 = secs;
    run_transfer(w, secs);
}

/* ---- the CPU-bound job ---- */

#define ITER_RATE 120.0 /* iterations/s */
#define FFT_POINTS 1048576.0

/* Five clean minutes, then for an hour a CPU hog takes half the CPU for 20 s a minute. */
static void cpu_job(wl_t *w)
{
    const long secs = 65 * 60;
    for (long m = 5; m < 65; m++) add_inj(w, m * 60 + 20, m * 60 + 40, K_CPU_HOG, 0.5, 0);
    for (long s = 0; s < secs; s++) {
        double share = 1;
        for (int i = 0; i < w->n_inj; i++)
            if (s >= w->inj[i].t0 && s < w->inj[i].t1) share = w->inj[i].strength;
        double noise = share < 1 ? 0.04 : 0.01; /* a hog also makes the job jittery */
        long n = lround(ITER_RATE * share * (1 + noise * gauss(w)));
        if (n < 0) n = 0;
        summary(w, s + 1, "job.fft.summary", n, (double)n / (ITER_RATE * share),
                (double)n * FFT_POINTS);
    }
}

int wl_write(const char *name, uint64_t seed, FILE *log, FILE *truth)
{
    wl_t *w = calloc(1, sizeof *w);
    if (!w) return -1;
    w->rng = seed;
    w->log = log;
    w->guid = "5e1f0a2c-7b3d-4c8e-9f10-2a3b4c5d6e7f";
    if (!strcmp(name, "xfer-controlled"))
        xfer_controlled(w);
    else if (!strcmp(name, "xfer-random"))
        xfer_random(w);
    else if (!strcmp(name, "cpu-job"))
        cpu_job(w);
    else {
        free(w);
        errno = EINVAL;
        return -1;
    }
    for (int i = 0; i < w->n_inj; i++) {
        const wl_inj_t *j = &w->inj[i];
        if (fprintf(truth, "%ld %ld %s %.2f %d\n", j->t0, j->t1, kind_name[j->kind], j->strength,
                    j->weak) < 0)
            w->failed = 1;
    }
    int rc = w->failed || ferror(log) || ferror(truth) ? -1 : 0;
    free(w);
    return rc;
}
