/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_detect.c — how fast the detector judges values: each of the ten algorithms
 * alone, the bank of the paper's eight, of all ten, and combine=default's as configured
 * (its algorithm, history, calibration, floor, budget, relearn, daily season, jump= and
 * calib.shrink=, as nld_default_params sets them; one value a minute), beside the same
 * without jump= and calib.shrink=, and with shape=32 (def+shape);
 * history N = 1800 unless said, on VALUES values (default 1M) of a noisy series with
 * spikes and a dip; beside the obvious implementation a user would write instead (re-sum
 * the window for MSD, sort it for CDF, for every value), in the same run; the same values
 * dealt round-robin to 50 streams (one keyed detector watching 50 hosts: 50 histories,
 * each visited once in 50 values, so what matters there is how much memory a history
 * touches); and end to end, event lines per second through nl-detect's engine (parse,
 * select, key, judge, report) for 4 streams.
 *
 *   bench-detect [VALUES [NAIVE_VALUES]]      defaults 1000000, 20000
 *
 * The naive variant is run on fewer values (it is O(N log N) per value); rates are per
 * value either way, so the ratio is like for like. Prints a table; median of 3 rounds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "nld.h"
#include "nld_combine.h"

#define N_HIST 1800
#define KEYED 50 /* streams of one keyed detector (key=host over 50 hosts) */

static double *make_series(long n)
{
    double *x = malloc((size_t)n * sizeof *x);
    uint64_t s = 88172645463325252ULL;
    for (long i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u1 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u2 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
        x[i] = 100 + 10 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        if (s % 97 == 0) x[i] += 60;
        if (i % 50000 > 45000) x[i] -= 30;
    }
    return x;
}

/* Seconds to run the bank (history `hist`) over the series; flags into *flags. With
 * as_default, combine=default's other settings too (nld_default_params), the values one a
 * minute in event time; as_default 2: without its jump=, calib.shrink=, calib.record= and
 * recur= (the bank of the morning of 2026-11-26, side by side); 3: with shape=32 too (the
 * opt-in discount, nld_shape.h, side by side with the default). */
static double run_bank(unsigned algos, uint32_t hist, int as_default, const double *x, long n,
                       int streams, long *flags)
{
    nld_params_t p;
    nld_params_default(&p);
    p.algos = algos;
    p.n = hist;
    if (as_default) {
        nld_default_params(&p);
        p.algos = algos;
        p.n = hist;
        if (as_default == 2) {
            p.jump = p.calib_shrink = p.calib_record = 0;
            p.recur_days = 0;
            p.wander = 0;
        }
        if (as_default == 3) p.shape_w = 32;
    }
    nld_bank_t *b = malloc((size_t)streams * sizeof *b);
    for (int k = 0; k < streams; k++)
        if (!b || nld_bank_init(&b[k], &p)) abort();
    nld_verdict_t v[NLD_ALGOS];
    long f = 0;
    int err;
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) {
        /* value i to stream i % streams, every stream one value a minute */
        int64_t ts = as_default ? (int64_t)(i / streams) * 60000000 : INT64_MIN;
        nld_bank_step_at(&b[i % streams], x[i], ts, v, &err);
        for (int a = 0; a < NLD_ALGOS; a++)
            if (algos >> a & 1) f += v[a].state >= NLD_LOW;
    }
    double t = bench_now_s() - t0;
    for (int k = 0; k < streams; k++) nld_bank_free(&b[k]);
    free(b);
    *flags = f;
    return t;
}

/* The obvious implementation of one algorithm: a window array, re-summed or re-sorted for
 * every value. */
static double run_naive(int algo, const double *x, long n, long *flags)
{
    int cdf = algo >> 2 & 1, heur = algo >> 1 & 1, raw = algo & 1;
    double *h = malloc(N_HIST * sizeof *h), *s = malloc(N_HIST * sizeof *s);
    int hn = 0, head = 0;
    double sm = 0;
    long f = 0;
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) {
        sm = i ? 0.2 * x[i] + 0.8 * sm : x[i];
        double v = raw ? x[i] : sm;
        int flagged = 0;
        if (hn >= 30) {
            double lo, hi;
            if (cdf) {
                memcpy(s, h, (size_t)hn * sizeof *s);
                qsort(s, (size_t)hn, sizeof *s, bench_cmp_d);
                double a = (hn - 1) * 0.025, b = (hn - 1) * 0.975;
                lo = s[(int)a] + (a - floor(a)) * (s[(int)a + 1] - s[(int)a]);
                hi = s[(int)b] + (b - floor(b)) * (s[(int)b + 1] - s[(int)b]);
            } else {
                double sum = 0, ss = 0;
                for (int k = 0; k < hn; k++) sum += h[k];
                double m = sum / hn;
                for (int k = 0; k < hn; k++) ss += (h[k] - m) * (h[k] - m);
                double sd = sqrt(ss / (hn - 1));
                lo = m - 2 * sd;
                hi = m + 2 * sd;
            }
            flagged = v < lo || v > hi;
        }
        f += flagged;
        if (hn < N_HIST) {
            h[hn++] = v;
        } else if (heur && !flagged) {
            h[head] = v;
            head = (head + 1) % N_HIST;
        }
    }
    double t = bench_now_s() - t0;
    free(h);
    free(s);
    *flags = f;
    return t;
}

/* End to end: summary lines through the engine, one stream, msd-hu. */
static double run_lines(long n, long *flags)
{
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    char err[256];
    if (nld_cfg_parse(&cfg, "stream s event=gridftp.disk.write value=rate key=host algo=msd-hu\n",
                      "bench", err, sizeof err))
        abort();
    nl_log_t *out = nl_open("/dev/null");
    nld_t *d = nld_new(&cfg, out, NULL, err, sizeof err);
    double *x = make_series(n);
    char **lines = malloc((size_t)n * sizeof *lines);
    for (long i = 0; i < n; i++) {
        char buf[256];
        long sec = i / 4;
        int len = snprintf(
            buf, sizeof buf,
            "ts=2026-11-22T%02ld:%02ld:%02ld.%06ldZ event=gridftp.disk.write.summary "
            "level=Info guid=6f1c0e1e-3c2b-4d5e-8f90-0123456789ab host=gw%ld n=10 "
            "dur.sum=0.5 v.sum=%.6g int=1",
            (sec / 3600) % 24, (sec / 60) % 60, sec % 60, (i % 4) * 1000, i % 4, x[i] * 0.5);
        lines[i] = malloc((size_t)len + 1);
        memcpy(lines[i], buf, (size_t)len + 1);
    }
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) nld_line(d, lines[i], strlen(lines[i]), "bench", i + 1);
    double t = bench_now_s() - t0;
    nld_counts_t c;
    nld_counts(d, &c);
    *flags = (long)c.flags;
    nld_free(d);
    nl_close(out);
    for (long i = 0; i < n; i++) free(lines[i]);
    free(lines);
    free(x);
    nld_cfg_free(&cfg);
    return t;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    long nn = argc > 2 ? atol(argv[2]) : 20000;
    if (n < N_HIST * 2 || nn < 100) {
        fprintf(stderr, "usage: bench-detect [VALUES >= 3600 [NAIVE_VALUES >= 100]]\n");
        return 2;
    }
    double *x = make_series(n);
    printf("nl-detect algorithms, history N = %d, %ld values (naive: %ld), median of 3\n\n", N_HIST,
           n, nn);
    printf("%-10s %12s %10s %14s %8s %10s %14s\n", "algorithm", "values/s", "ns/value",
           "naive values/s", "speedup", "flagged", "50 streams v/s");
    /* the paper's eight (beside the naive way), cusum and relent (no naive form: their
     * statistics are sums and windows over the same order-statistic histories), the bank of
     * the eight, of all ten, and combine=default's bank as it is configured */
    static const struct {
        const char *name;
        unsigned mask;
        uint32_t hist;
        int count;
    } banks[] = {{"all 8", NLD_ALL_ALGOS, N_HIST, 8},
                 {"all 10", NLD_EVERY_ALGO, N_HIST, 10},
                 {"default", NLD_DEFAULT_ALGOS, NLD_DEFAULT_HISTORY, 1},
                 {"def-bare", NLD_DEFAULT_ALGOS, NLD_DEFAULT_HISTORY, 1},
                 {"def+shape", NLD_DEFAULT_ALGOS, NLD_DEFAULT_HISTORY, 1}};
    for (int a = 0; a < NLD_ALGOS + 5; a++) {
        int bk = a - NLD_ALGOS;
        unsigned mask = bk < 0 ? 1u << a : banks[bk].mask;
        uint32_t hist = bk < 0 ? N_HIST : banks[bk].hist;
        int naive = a < 8;
        double t[3], tn[3], tk[3];
        long flags = 0, nf = 0, kf = 0;
        for (int r = 0; r < 3; r++) {
            int as_default = bk >= 2 ? bk - 1 : 0;
            t[r] = run_bank(mask, hist, as_default, x, n, 1, &flags);
            tk[r] = run_bank(mask, hist, as_default, x, n, KEYED, &kf);
            tn[r] = naive ? run_naive(a, x, nn, &nf) : 0;
        }
        double rate = (double)n / bench_median(t, 3), krate = (double)n / bench_median(tk, 3);
        const char *name = bk < 0 ? nld_algo_name(a) : banks[bk].name;
        printf("%-10s %12.0f %10.1f ", name, rate, 1e9 / rate);
        if (naive) {
            double nrate = (double)nn / bench_median(tn, 3);
            printf("%14.0f %7.1fx ", nrate, rate / nrate);
        } else {
            printf("%14s %8s ", "-", "-");
        }
        printf("%9.2f%% %14.0f\n",
               100.0 * (double)flags / (double)n / (bk < 0 ? 1 : banks[bk].count), krate);
    }
    double tl[3];
    long lf = 0;
    for (int r = 0; r < 3; r++) tl[r] = run_lines(n, &lf);
    double lrate = (double)n / bench_median(tl, 3);
    printf("\nend to end (parse + select + key + msd-hu + report), 4 streams: %.0f lines/s, "
           "%.0f ns/line, %ld flags\n",
           lrate, 1e9 / lrate, lf);
    free(x);
    return 0;
}
