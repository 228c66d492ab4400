/* SPDX-License-Identifier: BSD-3-Clause */
/* quiet.c — bench-quiet: how often nl-detect's reports page on series with nothing wrong.
 *
 *   bench-quiet [--days N] [--seeds N] [--data DIR [--data DIR]] [WORDS ...]
 *   bench-quiet --lines KIND MINUTES SEED [--days N]
 *
 * Generated anomaly-free series of the kinds real metrics have (white noise, heavy tails,
 * bursty counts, quantised values with long runs, a daily cycle out of phase with the clock,
 * a log-normal latency on a daily cycle, lasting level shifts, a spike a day at random
 * times; tests/t_kinds.h), each at one row a minute, every 5 minutes and every hour, go
 * through the configurations given (each one string of nl-detect's stream words; by default
 * combine=default, the same with calib.shrink=off, with alarms=1/day instead of its rate,
 * and the default before 2026-11-26, NLD_BEFORE_WORDS). For each it prints the reports per
 * day of event time after the scoring protocol's probation (nab_probation), the mean over
 * the seeds: the false-report floor a user meets on a healthy metric, which the labelled
 * sets of bench-realdata cannot show apart from their anomalies.
 *
 * Reports are made as nl-detect makes them (bench-realdata's fast path, which that benchmark
 * checks against the engine): the bank's scores, then the episode rule of the words'
 * threshold=, rate= or alarms= (nld_budget_threshold at the series' spacing), holdoff=,
 * fatigue=, escalate= and confirm=. The fast path knows runs of one flag (episode.min=1, or
 * episode.for= up to a minute, the fastest spacing here) and one score per
 * value (one algorithm, or combine=any or default), so other words are refused.
 *
 * Beside them, the anchor of bench-realdata, the windowed Gaussian, at the threshold that
 * scores best (standard profile) on each labelled set: the --data DIRs given (each one
 * must be there), or both sets of ../shared/datasets (it says so and goes on without the
 * anchor when they are absent). Its flagged rows per day, each a detection as NAB counts it.
 *
 * --lines prints one generated series (KIND 0 to 7 in the order above, a row every MINUTES)
 * as nlkit lines, event m and field x, for nl-detect --scores to show what it reports.
 *
 * Exits 0 after printing; 2 on bad arguments or a labelled set that cannot be used. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nab.h"
#include "nld_combine.h"
#include "nld_config.h"
#include "nlkit/nl_bp.h"
#include "realdata_anchor.h"
#include "realdata_bank.h"
#include "realdata_set.h"
#include "t_kinds.h"

#define QT_MIN 60000000LL /* a minute in usec */
#define QT_DAY 86400000000LL
#define QT_T0 1577836800000000LL /* 2020-01-01T00:00:00Z: rows start at midnight */
#define QT_WORDS_MAX 16

enum qt_kind {
    QT_NOISE,
    QT_HEAVY,
    QT_BURSTY,
    QT_QUANTISED,
    QT_CYCLE,
    QT_LOGCYCLE,
    QT_SHIFTS,
    QT_SPIKE,
    QT_KINDS
};
static const char *const qt_kind_name[QT_KINDS] = {
    "white noise",          "heavy tails (Student t, 3 df)",
    "bursty counts",        "quantised, runs of equal values",
    "daily cycle, 7h13m",   "multiplicative daily cycle",
    "level shift every 5d", "a spike a day, random times"};
static const int64_t qt_spacing[3] = {QT_MIN, 5 * QT_MIN, 60 * QT_MIN};

/* xorshift64: the same series on every machine */
static double qt_unit(uint64_t *rs)
{
    *rs ^= *rs << 13;
    *rs ^= *rs >> 7;
    *rs ^= *rs << 17;
    return ((double)(*rs >> 11) + 0.5) / 9007199254740992.0;
}

/* The value of kind k at event time ts; *state carries what a kind keeps between rows
 * (the quantised walk, the shifted level); per_day is the rows in a day. Shifts and spikes
 * come at the same rate in event time whatever the spacing. */
static double qt_value(int k, int64_t ts, double per_day, uint64_t *rs, double *state)
{
    double hours = (double)(ts - QT_T0) / 3.6e9;
    switch (k) {
    case QT_NOISE: return t_kinds_noise(qt_unit, rs);
    case QT_HEAVY: return t_kinds_heavy(qt_unit, rs);
    case QT_BURSTY: return t_kinds_bursty(qt_unit, rs);
    case QT_QUANTISED: return t_kinds_quantised(qt_unit, rs, state);
    case QT_CYCLE: return t_kinds_cycle(qt_unit, rs, hours);
    case QT_LOGCYCLE: return t_kinds_logcycle(qt_unit, rs, hours);
    case QT_SHIFTS: /* a new level, 8 sd from the last, every 5 days on average, kept */
        if (qt_unit(rs) < 1 / (5 * per_day)) *state += qt_unit(rs) < 0.5 ? -40 : 40;
        return *state + t_kinds_noise(qt_unit, rs);
    case QT_SPIKE: return t_kinds_spike(qt_unit, rs, per_day);
    }
    return 0;
}

/* One configuration as nl-detect reads it from its words. */
typedef struct qt_cfg {
    const char *words;
    nld_params_t p;
    rd_ep_t ep;
} qt_cfg_t;

/* Read words as one stream's; 0, or -1 with a message when nl-detect refuses them or the
 * fast path would measure something else. */
static int qt_cfg_read(qt_cfg_t *c, const char *words)
{
    char text[1024], err[256] = "";
    if ((size_t)snprintf(text, sizeof text, "stream s event=m value=x %s\n", words) >=
        sizeof text) {
        fprintf(stderr, "bench-quiet: %.40s...: longer than %zu bytes\n", words, sizeof text - 40);
        return -1;
    }
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    if (nld_cfg_parse(&cfg, text, "bench-quiet", err, sizeof err)) {
        fprintf(stderr, "bench-quiet: %s: %s\n", words, err);
        nld_cfg_free(&cfg);
        return -1;
    }
    const nld_sdef_t *d = &cfg.s[0];
    const char *why = NULL;
    unsigned algos = d->p.algos;
    /* one flag opens an episode at every spacing measured here (1 minute and slower) */
    if (!(d->episode_min == 1 || (d->episode_for_s > 0 && d->episode_for_s <= 60)) || d->p.admit)
        why = "measures runs of one flag only: episode.min=1, or episode.for= up to 60s "
              "(admit= stays 0)";
    else if ((algos & (algos - 1)) &&
             !(d->comb.on && (!strcmp(d->comb.name, "any") || !strcmp(d->comb.name, "default"))))
        why = "measures one score a value: one algorithm, or several with combine=any";
    else if (!(d->p.threshold > 0 || d->p.rate > 0 || d->p.alarms_per_s > 0))
        why = "needs threshold=, rate= or alarms= (the algorithms' own rules have no "
              "threshold to report at)";
    if (!why) {
        c->words = words;
        c->p = d->p;
        c->ep = rd_ep_of(d);
    } else
        fprintf(stderr, "bench-quiet: %s: the fast path %s\n", words, why);
    nld_cfg_free(&cfg);
    return why ? -1 : 0;
}

/* One generated series of kind k, `days` long, rows `spacing` usec apart. 0, or -1 when
 * out of memory (nothing left allocated). */
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
    size_t from = nab_probation(s->n), n = 0;
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
    unsigned char *fam = malloc(s.n ? s.n : 1);
    if (sc && st && fam) {
        if (c && !rd_bank_scores(&s, &c->p, sc, fam)) {
            double t = nld_budget_threshold(&c->p, (double)spacing / 1e6);
            rd_starts_at(sc, fam, s.ts, s.n, t, c->ep, st);
            r = qt_per_day(&s, st);
        } else if (!c && !rd_windowed_gaussian(s.v, s.n, sc)) {
            for (size_t i = 0; i < s.n; i++) st[i] = sc[i] >= anchor_t;
            r = qt_per_day(&s, st);
        }
    }
    free(s.ts);
    free(s.v);
    free(sc);
    free(fam);
    free(st);
    return r;
}

/* One table: reports per day of every kind at every spacing, the mean over the seeds; c
 * NULL for the anchor at anchor_t. Returns 0, or -1 when out of memory. */
static int qt_table(const qt_cfg_t *c, double anchor_t, double days, int seeds)
{
    printf("| series | 1 min | 5 min | 1 h |\n|---|---:|---:|---:|\n");
    double worst = 0;
    for (int k = 0; k < QT_KINDS; k++) {
        printf("| %s", qt_kind_name[k]);
        for (int sp = 0; sp < 3; sp++) {
            double sum = 0;
            for (int s = 0; s < seeds; s++) {
                double r =
                    qt_reports_per_day(c, anchor_t, k, qt_spacing[sp], days, (uint64_t)s + 1);
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
 * *t, 0 when the set is absent, -1 when it cannot be used (a message says why). */
static int qt_anchor_threshold(const char *dir, double *t)
{
    rd_set_t set;
    char err[1024] = "";
    int got = rd_set_load(&set, dir, err, sizeof err);
    if (got < 0) fprintf(stderr, "bench-quiet: %s: %s\n", dir, err);
    if (got <= 0) return got;
    nab_result_t r;
    int rc = -1;
    if (nab_score(&set.corpus, set.wg, NULL, &nab_standard, &r))
        fprintf(stderr, "bench-quiet: %s: out of memory\n", dir);
    else if (!(r.threshold <= 1))
        fprintf(stderr,
                "bench-quiet: %s: no threshold scores better than never detecting "
                "(no labelled window after probation?)\n",
                dir);
    else {
        *t = r.threshold;
        rc = 1;
    }
    rd_set_free(&set);
    return rc;
}

/* The anchor's threshold on each labelled set, into t[] (NAN: that set is absent and was
 * not named by the user: given is 0). 0, or 2 when a set cannot be used or a named one is
 * absent (a message says which). */
static int qt_anchor_thresholds(const char *const *data, int nd, int given, double *t)
{
    for (int d = 0; d < nd; d++) {
        int got = qt_anchor_threshold(data[d], &t[d]);
        if (got < 0) return 2;
        if (!got) {
            fprintf(stderr, "bench-quiet: the labelled set %s is absent (or holds no series)%s\n",
                    data[d],
                    given ? "" : ": the windowed Gaussian's threshold is unknown, not measured");
            if (given) return 2;
            t[d] = NAN;
        }
    }
    return 0;
}

/* The anchor's tables, one per labelled set with a threshold. 0, or -1 when out of memory. */
static int qt_anchor_tables(const char *const *data, int nd, const double *t, double days,
                            int seeds)
{
    for (int d = 0; d < nd; d++) {
        if (isnan(t[d])) continue;
        const char *name = strrchr(data[d], '/') ? strrchr(data[d], '/') + 1 : data[d];
        char tt[64];
        if (t[d] >= 1) /* scores round to 1 beyond about 8 sd */
            snprintf(tt, sizeof tt, "1, about 8 sd and beyond");
        else
            snprintf(tt, sizeof tt, "1 - %.3g", 1 - t[d]);
        printf("\nThe windowed Gaussian (bench-realdata's anchor) at its best threshold on %s "
               "(standard profile: %s); flagged rows per day, each a detection:\n\n",
               name, tt);
        if (qt_table(NULL, t[d], days, seeds)) return -1;
    }
    return 0;
}

/* One series as nlkit lines on stdout (--lines): the reports bench-quiet counts, for
 * nl-detect to show one by one. 0, or 1 when out of memory. */
static int qt_lines(int k, double minutes, double days, uint64_t seed)
{
    rd_series_t s;
    if (qt_series(&s, k, (int64_t)(minutes * (double)QT_MIN), days, seed)) return 1;
    char st[256];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    for (size_t i = 0; i < s.n; i++) {
        nl_buf_reset(&b);
        nl_enc_begin(&b, s.ts[i], "m", NL_LVL_INFO, NULL);
        nl_enc_dbl(&b, "x", s.v[i]);
        nl_enc_end(&b);
        fwrite(b.p, 1, b.len, stdout);
    }
    nl_buf_free(&b);
    free(s.ts);
    free(s.v);
    return 0;
}

static void qt_usage(FILE *f)
{
    fprintf(f, "usage: bench-quiet [--days N] [--seeds N] [--data DIR [--data DIR]] "
               "[WORDS ...]\n"
               "  N days of each generated kind (2-400, 60) for N seeds (1-100, 3); WORDS: "
               "one quoted string of\n"
               "  stream words per configuration (default: combine=default and three "
               "others); --data: the\n"
               "  labelled sets for the anchor's threshold (default: both under "
               "../shared/datasets)\n"
               "       bench-quiet --lines KIND MINUTES SEED [--days N]\n"
               "  one series as nlkit lines (KIND 0-%d: white, heavy, bursty, quantised, "
               "cycle, log cycle,\n  shifts, spike)\n", QT_KINDS - 1);
}

/* A whole number or a decimal in [lo, hi], all of the text. */
static int qt_number(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    return end != text && !*end && !errno && *out >= lo && *out <= hi;
}

int main(int argc, char **argv)
{
    double days = 60, seeds_d = 3;
    int nw = 0, nd = 0;
    const char *words[QT_WORDS_MAX], *data[2];
    double lines[3] = {-1, 0, 0}; /* --lines KIND MINUTES SEED */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            qt_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--days") && i + 1 < argc) {
            if (!qt_number(argv[++i], 2, 400, &days)) {
                fprintf(stderr, "bench-quiet: --days %s: a number of days, 2 to 400\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
            if (!qt_number(argv[++i], 1, 100, &seeds_d) || seeds_d != floor(seeds_d)) {
                fprintf(stderr, "bench-quiet: --seeds %s: a whole number, 1 to 100\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--data") && i + 1 < argc) {
            if (nd == 2) {
                fprintf(stderr, "bench-quiet: --data: at most two labelled sets\n");
                return 2;
            }
            data[nd++] = argv[++i];
        } else if (!strcmp(argv[i], "--lines") && i + 3 < argc) {
            if (!qt_number(argv[i + 1], 0, QT_KINDS - 1, &lines[0]) ||
                !qt_number(argv[i + 2], 1.0 / 60, 1440, &lines[1]) ||
                !qt_number(argv[i + 3], 0, 1e6, &lines[2])) {
                fprintf(stderr, "bench-quiet: --lines %s %s %s: KIND 0-%d, MINUTES 1/60-1440, "
                                "SEED 0-1000000\n",
                        argv[i + 1], argv[i + 2], argv[i + 3], QT_KINDS - 1);
                return 2;
            }
            i += 3;
        } else if (argv[i][0] == '-') {
            qt_usage(stderr);
            return 2;
        } else if (nw == QT_WORDS_MAX) {
            fprintf(stderr, "bench-quiet: at most %d configurations\n", QT_WORDS_MAX);
            return 2;
        } else
            words[nw++] = argv[i];
    }
    if (lines[0] >= 0) {
        if (qt_lines((int)lines[0], lines[1], days, (uint64_t)lines[2])) {
            fprintf(stderr, "bench-quiet: out of memory\n");
            return 1;
        }
        return 0;
    }
    int seeds = (int)seeds_d, given = nd > 0;
    if (!nw) {
        words[nw++] = "combine=default";
        words[nw++] = "combine=default calib.shrink=off";
        words[nw++] = "combine=default alarms=1/day";
        words[nw++] = NLD_BEFORE_WORDS;
    }
    if (!given) {
        data[nd++] = RD_DEFAULT_DATA "/cloud-monitoring";
        data[nd++] = RD_DEFAULT_DATA "/server-asd";
    }
    /* every configuration and labelled set is checked before anything is measured */
    qt_cfg_t cfg[QT_WORDS_MAX];
    double anchor_t[2];
    for (int w = 0; w < nw; w++)
        if (qt_cfg_read(&cfg[w], words[w])) return 2;
    if (qt_anchor_thresholds(data, nd, given, anchor_t)) return 2;
    printf("# Reports per day on anomaly-free generated series (%g days, mean of %d seeds, "
           "after probation)\n",
           days, seeds);
    for (int w = 0; w < nw; w++) {
        printf("\n`%s` (threshold at 1 min, 5 min, 1 h: %.4f, %.4f, %.4f):\n\n", words[w],
               nld_budget_threshold(&cfg[w].p, 60), nld_budget_threshold(&cfg[w].p, 300),
               nld_budget_threshold(&cfg[w].p, 3600));
        if (qt_table(&cfg[w], 0, days, seeds)) goto oom;
    }
    if (qt_anchor_tables(data, nd, anchor_t, days, seeds)) goto oom;
    return 0;
oom:
    fprintf(stderr, "bench-quiet: out of memory\n");
    return 1;
}
