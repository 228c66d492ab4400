/* SPDX-License-Identifier: BSD-3-Clause */
/* t_live.h — a service summarized each second, as the library's summarizer writes it
 * (`NL_SUMMARY='request=summary:1'`), with the faults operators meet, for judging nl-detect
 * live (tests/detector/test_live.c, bench/live.c). Header-only and deterministic: the
 * seed gives the numbers, event time starts at a fixed epoch.
 *
 * Each second the service takes a Poisson number of requests (120 a second, on a daily
 * cycle where the scenario has one); a request takes a log-normal time (median 4 ms,
 * sigma 0.5) plus a database step (median 2 ms, sigma 0.5), and one in 200 stalls on a
 * lock for an exponential time (mean 60 ms): the second's mean duration is bursty with
 * a heavy right tail, as real ones are. One in a thousand requests fails (`err`).
 *
 * A scenario's fault begins at `on` seconds and lasts `len`; `t_live_fault` tells whether
 * a second is inside it. */
#ifndef NLKIT_T_LIVE_H
#define NLKIT_T_LIVE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nlkit/nl_bp.h"

enum t_live_kind {
    T_LIVE_HEALTHY,  /* nothing wrong */
    T_LIVE_LAT2,     /* every request twice as slow for len seconds */
    T_LIVE_LAT5,     /* five times as slow */
    T_LIVE_ERRORS,   /* a fifth of the requests fail (fast) */
    T_LIVE_DROP,     /* throughput falls to 40% */
    T_LIVE_DEPLOY,   /* from `on` on, requests are 40% slower for good */
    T_LIVE_DAILY,    /* a daily cycle of load and latency, nothing wrong */
    T_LIVE_CRON,     /* every hour at :00 a job makes requests 3x slower for 20 s: normal */
    T_LIVE_KINDS
};

static const char *const t_live_names[T_LIVE_KINDS] = {
    "healthy", "latency 2x", "latency 5x", "error burst", "throughput drop", "deploy +40%",
    "daily cycle", "hourly cron spike"};

typedef struct t_live {
    int kind;
    long secs, on, len; /* the run, the fault's start and length (seconds) */
    uint64_t rs;        /* the generator's state */
    int64_t t0;         /* event time of second 0, usec */
    char host[16];
} t_live_t;

#define T_LIVE_EPOCH ((int64_t)1795348800 * 1000000) /* 2026-11-22T12:00:00Z */

static inline void t_live_init(t_live_t *g, int kind, long secs, long on, long len, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->secs = secs;
    g->on = on;
    g->len = kind == T_LIVE_DEPLOY ? secs - on : len;
    g->rs = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    g->t0 = T_LIVE_EPOCH;
    snprintf(g->host, sizeof g->host, "svc%u", (unsigned)(seed % 100));
}

static inline double t_live_unit(t_live_t *g)
{
    g->rs ^= g->rs << 13, g->rs ^= g->rs >> 7, g->rs ^= g->rs << 17;
    return ((double)(g->rs >> 11) + 0.5) / 9007199254740992.0;
}

static inline double t_live_normal(t_live_t *g)
{
    return sqrt(-2 * log(t_live_unit(g))) * cos(6.283185307179586 * t_live_unit(g));
}

static inline long t_live_poisson(t_live_t *g, double lambda)
{
    /* normal approximation above 30, exact below: both fast enough for hours of seconds */
    if (lambda > 30) {
        double k = floor(lambda + sqrt(lambda) * t_live_normal(g) + 0.5);
        return k < 0 ? 0 : (long)k;
    }
    double l = exp(-lambda), p = 1;
    long k = 0;
    do {
        k++;
        p *= t_live_unit(g);
    } while (p > l);
    return k - 1;
}

/* Whether second s lies inside the scenario's fault (the cron job's spikes are not one). */
static inline int t_live_fault(const t_live_t *g, long s)
{
    switch (g->kind) {
    case T_LIVE_LAT2:
    case T_LIVE_LAT5:
    case T_LIVE_ERRORS:
    case T_LIVE_DROP:
    case T_LIVE_DEPLOY:
        return s >= g->on && s < g->on + g->len;
    default:
        return 0;
    }
}

/* Second s's summary line (with its newline) into buf; its length, or 0 if it did not fit. */
static inline size_t t_live_line(t_live_t *g, long s, char *buf, size_t cap)
{
    int in = t_live_fault(g, s);
    double rate = 120, slow = 1, fail = 0.001;
    double day = 2 * 3.141592653589793 * (double)s / 86400.0;
    if (g->kind == T_LIVE_DAILY) {
        rate *= 1 + 0.6 * sin(day);
        slow *= 1 + 0.3 * sin(day);
    }
    if (g->kind == T_LIVE_CRON && s % 3600 < 20) slow *= 3;
    if (in && g->kind == T_LIVE_LAT2) slow *= 2;
    if (in && g->kind == T_LIVE_LAT5) slow *= 5;
    if (in && g->kind == T_LIVE_DEPLOY) slow *= 1.4;
    if (in && g->kind == T_LIVE_ERRORS) fail = 0.2;
    if (in && g->kind == T_LIVE_DROP) rate *= 0.4;
    long n = t_live_poisson(g, rate), err = 0;
    double sum = 0, mx = 0;
    for (long i = 0; i < n; i++) {
        double d;
        if (t_live_unit(g) < fail) {
            err++;
            d = 0.0002 * exp(0.3 * t_live_normal(g)); /* refused at once */
        } else {
            d = 0.004 * exp(0.5 * t_live_normal(g)) + 0.002 * exp(0.5 * t_live_normal(g));
            if (t_live_unit(g) < 0.005) d += -0.06 * log(t_live_unit(g));
            d *= slow;
        }
        sum += d;
        if (d > mx) mx = d;
    }
    nl_buf_t b;
    nl_buf_init(&b, buf, cap);
    nl_enc_begin(&b, g->t0 + (int64_t)s * 1000000, "request.summary", NL_LVL_INFO, NULL);
    nl_enc_str(&b, "host", g->host, strlen(g->host));
    nl_enc_str(&b, "prog", "api", 3);
    nl_enc_i64(&b, "n", n);
    nl_enc_i64(&b, "err", err);
    nl_enc_dbl(&b, "dur.sum", sum);
    nl_enc_dbl(&b, "dur.max", mx);
    nl_enc_dbl(&b, "span", 1.0);
    nl_enc_i64(&b, "int", 1);
    size_t len = nl_enc_end(&b) == 0 && b.p == buf ? b.len : 0;
    nl_buf_free(&b);
    return len;
}

#endif
