/* SPDX-License-Identifier: BSD-3-Clause */
/* quiet.c — bench-quiet: how often nl-detect's reports page on series with nothing wrong.
 *
 *   bench-quiet [--days N] [--seeds N] [--data DIR] [WORDS ...]
 *
 * Generated anomaly-free series of the kinds real metrics have (white noise, heavy tails,
 * bursty counts, quantised values with long runs, a daily cycle out of phase with the clock,
 * a multiplicative daily cycle, lasting level shifts, a spike a day at random times), each
 * one row a minute, every 5 minutes and every hour, go through the configurations given
 * (each a string of nl-detect's stream words; by default combine=default, the same with
 * calib.shrink=off, with alarms=1/day instead of its rate, and the default before
 * 2026-11-26). For each it prints the reports per
 * day of event time after the scoring protocol's probation (the first 15%, at most 750
 * rows), the mean over the seeds: the false-report floor a user meets on a healthy metric,
 * which the labelled sets of bench-realdata cannot show apart from their anomalies.
 *
 * Reports are made as nl-detect makes them (bench-realdata's fast path, which that benchmark
 * checks against the engine): the bank's scores, then the episode rule of the words'
 * threshold=, rate= or alarms=, holdoff=, fatigue=, escalate= and confirm= with
 * episode.min=1. Beside them, the anchor of bench-realdata, the windowed Gaussian, at the
 * threshold that scores best (standard profile) on each labelled set found in --data DIR
 * (../shared/datasets when not given; without them, no anchor rows, and it says so): its
 * flagged rows per day, each a detection as NAB counts it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nld_config.h"
#include "realdata_anchor.h"
#include "realdata_bank.h"
#include "realdata_set.h"
#include "t_kinds.h"

#define QT_MIN 60000000LL /* a minute in usec */
#define QT_DAY 86400000000LL
#define QT_T0 1577836800000000LL /* 2020-01-01T00:00:00Z: rows start at midnight */
#define QT_PI 3.14159265358979323846

enum qt_kind {
    QT_NOISE, QT_HEAVY, QT_BURSTY, QT_QUANTISED, QT_CYCLE, QT_LOGCYCLE, QT_SHIFTS, QT_SPIKE,
    QT_KINDS
};
static const char *const qt_kind_name[QT_KINDS] = {
    "white noise",          "heavy tails (Student t, 3 df)",
    "bursty counts",        "quantised, runs of equal values",
    "daily cycle, 7h13m",   "multiplicative daily cycle",
    "level shift every 5d", "a spike a day, random times"};

/* xorshift64: the same series on every machine */
static double qt_unit(uint64_t *rs)
{
    *rs ^= *rs << 13;
    *rs ^= *rs >> 7;
    *rs ^= *rs << 17;
    return ((double)(*rs >> 11) + 0.5) / 9007199254740992.0;
}

static double qt_normal(uint64_t *rs) { return t_kinds_normal(qt_unit, rs); }

/* The value of kind k at event time ts; *state carries what a kind keeps between rows
 * (the quantised walk, the shifted level); per_day is the rows in a day. Shifts and spikes
 * come at the same rate in event time whatever the spacing. */
static double qt_value(int k, int64_t ts, double per_day, uint64_t *rs, double *state)
{
    double h = fmod((double)(ts - QT_T0) / 3.6e9 + 7 + 13.0 / 60, 24); /* as t_kinds_cycle's */
    switch (k) {
    case QT_NOISE:
        return 100 + 5 * qt_normal(rs);
    case QT_HEAVY:
        return t_kinds_heavy(qt_unit, rs);
    case QT_BURSTY:
        return t_kinds_bursty(qt_unit, rs);
    case QT_QUANTISED:
        return t_kinds_quantised(qt_unit, rs, state);
    case QT_CYCLE:
        return t_kinds_cycle(qt_unit, rs, (double)(ts - QT_T0) / 3.6e9);
    case QT_LOGCYCLE: /* a latency: log-normal, its spread growing with its level */
        return exp(3 + sin(2 * QT_PI * h / 24) + 0.3 * qt_normal(rs));
    case QT_SHIFTS: /* a new level, 8 sd from the last, every 5 days on average, kept */
        if (qt_unit(rs) < 1 / (5 * per_day)) *state += qt_unit(rs) < 0.5 ? -40 : 40;
        return 100 + *state + 5 * qt_normal(rs);
    case QT_SPIKE: /* a utilisation with one brief spike a day on average, at any time */
        return 0.2 + 0.02 * qt_normal(rs) + (qt_unit(rs) < 1 / per_day ? 0.5 + 0.3 * qt_unit(rs) : 0);
    }
    return 0;
}

/* One configuration as nl-detect reads it from its words. 0, or -1 with a message. */
typedef struct qt_cfg {
    const char *words;
    nld_params_t p;
    double thr, rate, per_s; /* threshold=, rate=, alarms= per second of event time */
    rd_ep_t ep;
} qt_cfg_t;

static int qt_cfg_read(qt_cfg_t *c, const char *words)
{
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    char text[1024], err[256] = "";
    snprintf(text, sizeof text, "stream s event=m value=x %s episode.min=1\n", words);
    if (nld_cfg_parse(&cfg, text, "bench-quiet", err, sizeof err)) {
        fprintf(stderr, "bench-quiet: %s: %s\n", words, err);
        nld_cfg_free(&cfg);
        return -1;
    }
    const nld_sdef_t *d = &cfg.s[0];
    c->words = words;
    c->p = d->p;
    c->p.admit = 0; /* episode.min=1's */
    c->thr = d->p.threshold;
    c->rate = d->p.rate;
    c->per_s = d->p.alarms_per_s;
    c->ep = (rd_ep_t){d->holdoff_s > 0 ? (int64_t)(d->holdoff_s * 1e6) : -(int64_t)d->holdoff_n,
                      d->fatigue_s, d->escalate, d->confirm};
    nld_cfg_free(&cfg);
    if (!(c->thr > 0 || c->rate > 0 || c->per_s > 0)) {
        fprintf(stderr, "bench-quiet: %s: give threshold=, rate= or alarms= (the algorithms' "
                        "own rules have no threshold to report at)\n", words);
        return -1;
    }
    return 0;
}

/* The threshold in force on a stream with rows `spacing_s` apart: the stricter of
 * threshold=, rate= and alarms= (which, on rows evenly spaced, is the rate of that many
 * alarms per row; held at half, as the bank holds it). */
static double qt_threshold(const qt_cfg_t *c, double spacing_s)
{
    double t = c->thr, r = c->per_s * spacing_s;
    if (c->rate > 0 && nld_rate_threshold(c->rate) > t) t = nld_rate_threshold(c->rate);
    if (r > 0.5) r = 0.5;
    if (r > 0 && nld_rate_threshold(r) > t) t = nld_rate_threshold(r);
    return t;
}

/* One generated series of kind k, `days` long, rows `spacing` usec apart. 0, or -1 when
 * out of memory (s freed). */
static int qt_series(rd_series_t *s, int k, int64_t spacing, double days, uint64_t seed)
{
    *s = (rd_series_t){0};
    s->n = (size_t)(days * (double)QT_DAY / (double)spacing);
    s->ts = malloc(s->n * sizeof *s->ts);
    s->v = malloc(s->n * sizeof *s->v);
    if (!s->ts || !s->v) {
        free(s->ts);
        free(s->v);
        return -1;
    }
    uint64_t rs = seed * 0x9E3779B97F4A7C15ull + (uint64_t)k + 1;
    double state = 0, per_day = (double)QT_DAY / (double)spacing;
    for (size_t i = 0; i < s->n; i++) {
        s->ts[i] = QT_T0 + (int64_t)i * spacing;
        s->v[i] = qt_value(k, s->ts[i], per_day, &rs, &state);
    }
    return 0;
}

/* Detections (rows where det is not 0) per day of s after the protocol's probation. */
static double qt_per_day(const rd_series_t *s, const double *det)
{
    size_t from = s->n * 15 / 100 < 750 ? s->n * 15 / 100 : 750, n = 0;
    for (size_t i = from; i < s->n; i++) n += det[i] != 0;
    return (double)n / ((double)(s->ts[s->n - 1] - s->ts[from]) / (double)QT_DAY);
}

/* Reports per day after probation on one generated series: the configuration c's, or with
 * c NULL the anchor's flagged rows at threshold `anchor_t`. -1 when out of memory. */
static double qt_reports_per_day(const qt_cfg_t *c, double anchor_t, int k, int64_t spacing,
                                 double days, uint64_t seed)
{
    rd_series_t s;
    if (qt_series(&s, k, spacing, days, seed)) return -1;
    double *sc = malloc(s.n * sizeof *sc), *st = malloc(s.n * sizeof *st), r = -1;
    if (sc && st) {
        if (c && !rd_bank_scores(&s, &c->p, sc)) {
            rd_starts_at(sc, s.ts, s.n, qt_threshold(c, (double)spacing / 1e6), c->ep, st);
            r = qt_per_day(&s, st);
        } else if (!c && !rd_windowed_gaussian(s.v, s.n, sc)) {
            for (size_t i = 0; i < s.n; i++) st[i] = sc[i] >= anchor_t;
            r = qt_per_day(&s, st);
        }
    }
    free(s.ts);
    free(s.v);
    free(sc);
    free(st);
    return r;
}

/* One table: reports per day of every kind at every spacing, the mean over the seeds; c
 * NULL for the anchor at anchor_t. Returns 0, or -1 when out of memory. */
static int qt_table(const qt_cfg_t *c, double anchor_t, double days, int seeds)
{
    static const int64_t spacing[3] = {QT_MIN, 5 * QT_MIN, 60 * QT_MIN};
    printf("| series | 1 min | 5 min | 1 h |\n|---|---:|---:|---:|\n");
    double worst = 0;
    for (int k = 0; k < QT_KINDS; k++) {
        printf("| %s", qt_kind_name[k]);
        for (int sp = 0; sp < 3; sp++) {
            double sum = 0;
            for (int s = 0; s < seeds; s++) {
                double r = qt_reports_per_day(c, anchor_t, k, spacing[sp], days, (uint64_t)s + 1);
                if (r < 0) return -1;
                sum += r;
            }
            printf(" | %.2f", sum / seeds);
            if (k != QT_SHIFTS && k != QT_SPIKE && sum / seeds > worst) worst = sum / seeds;
        }
        printf(" |\n");
    }
    printf("\nThe most on a series without shifts or spikes: %.2f a day (%.1f per 10 days).\n",
           worst, 10 * worst);
    return 0;
}

/* The anchor's best threshold (standard profile) on the labelled set in dir: 1 with it in
 * *t, 0 when the set is absent, -1 when it cannot be read (a message says why). */
static int qt_anchor_threshold(const char *dir, double *t)
{
    rd_set_t set;
    char err[1024] = "";
    int got = rd_set_load(&set, dir, err, sizeof err);
    if (got < 0) fprintf(stderr, "bench-quiet: %s: %s\n", dir, err);
    if (got <= 0) return got;
    nab_result_t r;
    int rc = nab_score(&set.corpus, set.wg, NULL, &nab_standard, &r) ? -1 : 1;
    if (rc < 0) fprintf(stderr, "bench-quiet: %s: out of memory\n", dir);
    *t = r.threshold;
    rd_set_free(&set);
    return rc;
}

int main(int argc, char **argv)
{
    double days = 60;
    int seeds = 3, nw = 0, nd = 0;
    const char *words[16], *data[2];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--days") && i + 1 < argc)
            days = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc && nd < 2)
            data[nd++] = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "usage: bench-quiet [--days N] [--seeds N] [--data DIR] [WORDS ...]\n");
            return 2;
        } else if (nw < 16)
            words[nw++] = argv[i];
    }
    if (!(days >= 2 && days <= 400) || seeds < 1 || seeds > 100) {
        fprintf(stderr, "bench-quiet: --days 2..400, --seeds 1..100\n");
        return 2;
    }
    if (!nw) {
        words[nw++] = "combine=default";
        words[nw++] = "combine=default calib.shrink=off";
        words[nw++] = "combine=default alarms=1/day";
        words[nw++] = "combine=default algo=cusum history=300 relearn=10m season=1d "
                      "threshold=0.86 holdoff=1h calib=off floor=0";
    }
    if (!nd) {
        data[nd++] = RD_DEFAULT_DATA "/cloud-monitoring";
        data[nd++] = RD_DEFAULT_DATA "/server-asd";
    }
    printf("# Reports per day on anomaly-free generated series (%g days, mean of %d seeds, "
           "after probation)\n", days, seeds);
    for (int w = 0; w < nw; w++) {
        qt_cfg_t c;
        if (qt_cfg_read(&c, words[w])) return 1;
        printf("\n`%s` (threshold %.4f, %.4f, %.4f):\n\n", words[w], qt_threshold(&c, 60),
               qt_threshold(&c, 300), qt_threshold(&c, 3600));
        if (qt_table(&c, 0, days, seeds)) goto oom;
    }
    for (int d = 0; d < nd; d++) {
        double t;
        int got = qt_anchor_threshold(data[d], &t);
        if (got < 0) return 1;
        if (!got) {
            printf("\n(the windowed Gaussian: the labelled set %s is absent, so its threshold "
                   "is unknown; not measured)\n", data[d]);
            continue;
        }
        const char *name = strrchr(data[d], '/') ? strrchr(data[d], '/') + 1 : data[d];
        char tt[64];
        if (t >= 1) /* scores round to 1 beyond about 8 sd */
            snprintf(tt, sizeof tt, "1, about 8 sd and beyond");
        else
            snprintf(tt, sizeof tt, "1 - %.3g", 1 - t);
        printf("\nThe windowed Gaussian (bench-realdata's anchor) at its best threshold on %s "
               "(standard profile: %s); flagged rows per day, each a detection:\n\n", name, tt);
        if (qt_table(NULL, t, days, seeds)) goto oom;
    }
    return 0;
oom:
    fprintf(stderr, "bench-quiet: out of memory\n");
    return 1;
}
