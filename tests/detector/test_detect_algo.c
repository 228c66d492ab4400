/* SPDX-License-Identifier: BSD-3-Clause */
/* test_detect_algo.c — the eight detection algorithms: hand-computed cases (a 3-sigma
 * outlier flagged and a 1-sigma value not, CDF tails on a known history, static vs
 * heuristic on a drift, EWMA delaying a step by exactly the predicted number of values,
 * one-sided tests), and every algorithm against a brute-force model that re-sorts and
 * re-sums its history for every value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nld_algo.h"
#include "nld_change.h"
#include "nld_hist.h"
#include "nld_tail.h"

enum { MSD_SS, MSD_SU, MSD_HS, MSD_HU, CDF_SS, CDF_SU, CDF_HS, CDF_HU };

/* the paper's eight algorithms, which the brute-force model covers */
#define PAPER 8

static void bank(nld_bank_t *b, unsigned algos, uint32_t n, uint32_t min)
{
    nld_params_t p;
    nld_params_default(&p);
    p.algos = algos;
    p.n = n;
    p.min = min;
    p.alpha = 0.2; /* the paper's parameters, which the hand computations below use */
    p.admit = 0;
    const char *why = NULL;
    assert_int_equal(nld_params_check(&p, &why), 0);
    assert_int_equal(nld_bank_init(b, &p), 0);
}

static double step(nld_bank_t *b, double x, nld_verdict_t *v)
{
    int err;
    double s = nld_bank_step(b, x, v, &err);
    assert_int_equal(err, 0);
    return s;
}

static void test_names(void **state)
{
    (void)state;
    unsigned m = 0;
    const char *bad = NULL;
    assert_int_equal(nld_algo_parse("msd-hu,cdf-ss", &m, &bad), 0);
    assert_int_equal(m, (1u << MSD_HU) | (1u << CDF_SS));
    assert_int_equal(nld_algo_parse("all", &m, &bad), 0);
    assert_int_equal(m, 0xff);
    assert_int_equal(nld_algo_parse("msd-hu,cdf-xx", &m, &bad), NL_EINVAL);
    assert_string_equal(bad, "cdf-xx");
    assert_int_equal(nld_algo_parse("", &m, &bad), NL_EINVAL);
    for (int i = 0; i < NLD_ALGOS; i++) {
        assert_int_equal(nld_algo_parse(nld_algo_name(i), &m, NULL), 0);
        assert_int_equal(m, 1u << i);
    }
    nld_params_t p;
    nld_params_default(&p);
    const char *why;
    p.min = 1;
    assert_int_equal(nld_params_check(&p, &why), NL_EINVAL);
    assert_non_null(strstr(why, "min"));
    nld_params_default(&p);
    p.p = 1.5;
    assert_int_equal(nld_params_check(&p, &why), NL_EINVAL);
}

/* History 9 11 9 11 ... (10 values): mean 10, sd sqrt(10/9) = 1.0541, k = 2: bounds
 * 7.8918 .. 12.1082. 13.2 (3.1 sd) is flagged, 11.05 (1 sd) is not; nothing is flagged
 * before the history holds min values. */
static void test_msd_outlier(void **state)
{
    (void)state;
    nld_bank_t b;
    bank(&b, (1u << MSD_SU) | (1u << MSD_HU), 10, 10);
    nld_verdict_t v[NLD_ALGOS];
    for (int i = 0; i < 10; i++) {
        step(&b, i % 2 ? 11 : 9, v);
        assert_int_equal(v[MSD_SU].state, NLD_WARMUP);
        assert_int_equal(v[MSD_HU].state, NLD_WARMUP);
    }
    step(&b, 13.2, v);
    double sd = sqrt(10.0 / 9.0);
    for (int a = MSD_SU; a <= MSD_HU; a += 2) {
        assert_int_equal(v[a].state, NLD_HIGH);
        assert_true(fabs(v[a].centre - 10.0) < 1e-12);
        assert_true(fabs(v[a].lo - (10 - 2 * sd)) < 1e-12);
        assert_true(fabs(v[a].hi - (10 + 2 * sd)) < 1e-12);
        assert_int_equal(v[a].hist_n, 10);
    }
    step(&b, 11.05, v);
    assert_int_equal(v[MSD_SU].state, NLD_NORMAL);
    assert_int_equal(v[MSD_HU].state, NLD_NORMAL);
    step(&b, 6.8, v); /* 3 sd below */
    assert_int_equal(v[MSD_SU].state, NLD_LOW);
    nld_bank_free(&b);
}

/* History 1..20, p = 0.1 (5% per tail): Q(0.05) = 1 + 0.95 = 1.95, Q(0.95) = 19.05,
 * median 10.5. */
static void test_cdf_tails(void **state)
{
    (void)state;
    nld_bank_t b;
    bank(&b, (1u << CDF_SU) | (1u << CDF_HU), 20, 20);
    b.p.p = 0.1;
    nld_verdict_t v[NLD_ALGOS];
    for (int i = 1; i <= 20; i++) step(&b, i, v);
    step(&b, 1.5, v);
    for (int a = CDF_SU; a <= CDF_HU; a += 2) {
        assert_int_equal(v[a].state, NLD_LOW);
        assert_true(fabs(v[a].lo - 1.95) < 1e-12 && fabs(v[a].hi - 19.05) < 1e-12);
        assert_true(v[a].centre == 10.5);
    }
    step(&b, 19.5, v);
    assert_int_equal(v[CDF_SU].state, NLD_HIGH);
    assert_int_equal(v[CDF_HU].state, NLD_HIGH);
    step(&b, 2, v);
    assert_int_equal(v[CDF_SU].state, NLD_NORMAL);
    assert_int_equal(v[CDF_HU].state, NLD_NORMAL);
    /* the heuristic window took 2 in (dropping 1); the static one did not */
    step(&b, 1.99, v);
    assert_int_equal(v[CDF_SU].state, NLD_NORMAL); /* 1.99 > 1.95 */
    assert_true(v[CDF_HU].lo == 2.0);              /* sorted 2,2,3,...,20: Q(0.05) = 2 + 0.95 * 0 */
    assert_int_equal(v[CDF_HU].state, NLD_LOW);
    nld_bank_free(&b);
}

/* A slow upward drift of 0.1 per value, with the same +-1 noise, after a 9/11 history: the
 * static history (frozen at mean 10, hi 12.108) flags more and more of it; the heuristic
 * window follows the drift and flags none of it. */
static void test_static_vs_heuristic_drift(void **state)
{
    (void)state;
    nld_bank_t b;
    bank(&b, (1u << MSD_SU) | (1u << MSD_HU), 10, 10);
    nld_verdict_t v[NLD_ALGOS];
    for (int i = 0; i < 10; i++) step(&b, i % 2 ? 11 : 9, v);
    int st_flags = 0, he_flags = 0, first_static = -1;
    for (int i = 1; i <= 60; i++) {
        double x = 10 + 0.1 * i + (i % 2 ? 1 : -1);
        step(&b, x, v);
        if (v[MSD_SU].state == NLD_HIGH) {
            st_flags++;
            if (first_static < 0) first_static = i;
        }
        he_flags += v[MSD_HU].state == NLD_HIGH;
    }
    /* odd i from 13 (10 + 1.3 + 1 = 12.3 > 12.108): 24 values; even i from 32 (12.2): 15 */
    assert_int_equal(first_static, 13);
    assert_int_equal(st_flags, 24 + 15);
    assert_int_equal(he_flags, 0);
    nld_bank_free(&b);
}

/* A step to 16 after a history of slow swings between 12 and 8 (blocks of ten, ending
 * low). The raw algorithm flags the first value of the step; the smoothed one sees
 * s_k = 16 - (16 - s_0) 0.8^k and flags at the first k where that exceeds its upper bound:
 * the delay EWMA predicts. */
static void test_smoothing_delays_step(void **state)
{
    (void)state;
    nld_bank_t b;
    bank(&b, (1u << MSD_SS) | (1u << MSD_SU), 40, 40);
    nld_verdict_t v[NLD_ALGOS];
    double s0 = 0;
    for (int i = 0; i < 40; i++) s0 = step(&b, (i / 10) % 2 ? 8 : 12, v);
    double s = step(&b, 16, v);
    assert_int_equal(v[MSD_SU].state, NLD_HIGH);
    double hi = v[MSD_SS].hi;
    int predicted = (int)ceil(log((16 - hi) / (16 - s0)) / log(0.8));
    if (16 - (16 - s0) * pow(0.8, predicted) <= hi) predicted++; /* exactly on the bound */
    assert_true(predicted >= 2);
    int k = 1, first = v[MSD_SS].state == NLD_HIGH ? 1 : 0;
    while (!first && k < 50) {
        assert_true(fabs(s - (16 - (16 - s0) * pow(0.8, k))) < 1e-9);
        s = step(&b, 16, v);
        k++;
        if (v[MSD_SS].state == NLD_HIGH) first = k;
    }
    assert_int_equal(first, predicted);
    nld_bank_free(&b);
}

/* The smoothed algorithms by hand, alpha = 0.5, N = min = 4, p = 0.5 (tails of 25%):
 * x = 8 12 8 12 gives s = 8 10 9 10.5, so H = {8, 10, 9, 10.5}: mean 9.375,
 * sd = sqrt(3.6875 / 3) = 1.10868, MSD bounds 7.15765 .. 11.59235; sorted 8 9 10 10.5,
 * Q(.25) = 8 + .75 (9 - 8) = 8.75, Q(.75) = 10 + .25 (10.5 - 10) = 10.125, median 9.5.
 * x = 20: s = 15.25, flagged high by all four. x = 8: s = 11.625, still above both upper
 * bounds (15.25 never entered the heuristic windows). x = 9: s = 10.3125, inside the MSD
 * bounds, above Q(.75). */
static void test_smoothed_by_hand(void **state)
{
    (void)state;
    nld_bank_t b;
    bank(&b, (1u << MSD_SS) | (1u << MSD_HS) | (1u << CDF_SS) | (1u << CDF_HS), 4, 4);
    b.p.p = 0.5;
    nl_ewma_init(&b.ew, 0.5);
    nld_verdict_t v[NLD_ALGOS];
    static const double xs[] = {8, 12, 8, 12}, ss[] = {8, 10, 9, 10.5};
    for (int i = 0; i < 4; i++) assert_true(step(&b, xs[i], v) == ss[i]);
    double sd = sqrt(3.6875 / 3);
    assert_true(step(&b, 20, v) == 15.25);
    for (int a = MSD_SS; a <= MSD_HS; a += 2) {
        assert_int_equal(v[a].state, NLD_HIGH);
        assert_true(v[a].centre == 9.375);
        assert_true(fabs(v[a].lo - (9.375 - 2 * sd)) < 1e-12);
        assert_true(fabs(v[a].hi - (9.375 + 2 * sd)) < 1e-12);
        assert_true(fabs(v[a].hi - 11.59235) < 1e-5);
    }
    for (int a = CDF_SS; a <= CDF_HS; a += 2) {
        assert_int_equal(v[a].state, NLD_HIGH);
        assert_true(v[a].lo == 8.75 && v[a].hi == 10.125 && v[a].centre == 9.5);
    }
    assert_true(step(&b, 8, v) == 11.625);
    static const int four[] = {MSD_SS, MSD_HS, CDF_SS, CDF_HS};
    for (int i = 0; i < 4; i++) assert_int_equal(v[four[i]].state, NLD_HIGH);
    assert_true(step(&b, 9, v) == 10.3125);
    assert_int_equal(v[MSD_SS].state, NLD_NORMAL);
    assert_int_equal(v[MSD_HS].state, NLD_NORMAL);
    assert_int_equal(v[CDF_SS].state, NLD_HIGH);
    assert_int_equal(v[CDF_HS].state, NLD_HIGH);
    nld_bank_free(&b);
}

static void test_one_sided(void **state)
{
    (void)state;
    nld_bank_t b;
    bank(&b, (1u << MSD_HU) | (1u << CDF_HU), 20, 20);
    b.p.side = NLD_BELOW;
    nld_verdict_t v[NLD_ALGOS];
    for (int i = 1; i <= 20; i++) step(&b, i, v);
    step(&b, 100, v); /* far above: not a concern for throughput */
    assert_int_equal(v[MSD_HU].state, NLD_NORMAL);
    assert_int_equal(v[CDF_HU].state, NLD_NORMAL);
    step(&b, -30, v);
    assert_int_equal(v[MSD_HU].state, NLD_LOW);
    assert_int_equal(v[CDF_HU].state, NLD_LOW);
    /* 100 was normal for a below-only test, so it entered the windows (1 left them); the
     * whole p is in the low tail: Q(0.05) of 2..20,100 = 2 + 0.95 */
    assert_true(fabs(v[CDF_HU].lo - 2.95) < 1e-12);
    nld_bank_free(&b);
}

/* Each algorithm's score of a candidate value after the same 60-value history: in [0, 1],
 * 0 while warming up, and never smaller for a more extreme value (either side). */
static double score_after_history(int algo, double x, int side)
{
    nld_bank_t b;
    nld_params_t p;
    nld_params_default(&p);
    p.algos = 1u << algo;
    p.n = 60;
    p.min = 20;
    p.side = side;
    p.want_scores = 1;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    nld_verdict_t v[NLD_ALGOS];
    for (int i = 0; i < 60; i++) step(&b, 100 + (i * 7 % 11) - 5, v);
    step(&b, x, v);
    double sc = v[algo].score;
    nld_bank_free(&b);
    return sc;
}

static void test_scores_monotone(void **state)
{
    (void)state;
    for (int a = 0; a < PAPER; a++) {
        double prev_hi = -1, prev_lo = -1;
        /* further and further from the centre, both ways, from where even a smoothed value
         * (half the last history value) lies on the same side as the raw one */
        for (int j = 8; j <= 30; j++) {
            double hi = score_after_history(a, 100 + j, NLD_BOTH),
                   lo = score_after_history(a, 100 - j, NLD_BOTH);
            if (!(hi >= 0 && hi <= 1 && lo >= 0 && lo <= 1))
                fail_msg("%s: score out of [0, 1] at distance %d", nld_algo_name(a), j);
            if (hi < prev_hi - 1e-12 || lo < prev_lo - 1e-12)
                fail_msg("%s: score fell from %g/%g to %g/%g at distance %d", nld_algo_name(a),
                         prev_hi, prev_lo, hi, lo, j);
            prev_hi = hi;
            prev_lo = lo;
        }
        /* 30 away from a +-5 history: P < 1e-9 under either model */
        assert_true(prev_hi > 0.9 && prev_lo > 0.9);
        /* one-sided: only the watched side scores high */
        assert_true(score_after_history(a, 70, NLD_BELOW) > 0.9);
        assert_true(score_after_history(a, 130, NLD_BELOW) < 0.01);
        assert_true(score_after_history(a, 130, NLD_ABOVE) > 0.9);
        /* no saturation: far into the tail, values still rank */
        double s200 = score_after_history(a, 200, NLD_BOTH),
               s1000 = score_after_history(a, 1000, NLD_BOTH),
               s1e6 = score_after_history(a, 1e6, NLD_BOTH);
        if (!(s200 < s1000 && s1000 < s1e6 && s1e6 < 1))
            fail_msg("%s: scores %.17g %.17g %.17g do not rank", nld_algo_name(a), s200, s1000,
                     s1e6);
    }
    /* warming up: no score yet */
    nld_bank_t b;
    bank(&b, NLD_ALL_ALGOS, 50, 10);
    nld_verdict_t v[NLD_ALGOS];
    step(&b, 1e9, v);
    for (int a = 0; a < PAPER; a++) assert_true(v[a].state == NLD_WARMUP && v[a].score == 0);
    nld_bank_free(&b);
}

/* ---- brute-force model: explicit arrays, a sort and a full sum for every value ---------- */
typedef struct model {
    double h[64];
    int n;
} model_t;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double m_quant(const model_t *m, double u)
{
    double s[64];
    memcpy(s, m->h, (size_t)m->n * sizeof *s);
    qsort(s, (size_t)m->n, sizeof *s, cmp_d);
    double h = (m->n - 1) * u, f = floor(h);
    int i = (int)f;
    return i + 1 >= m->n || h == f ? s[i] : s[i] + (h - f) * (s[i + 1] - s[i]);
}

static int m_judge(const model_t *m, int cdf, double v, double k, double p, int min)
{
    if (m->n < min) return NLD_WARMUP;
    double lo, hi;
    if (cdf) {
        lo = m_quant(m, p / 2);
        hi = m_quant(m, 1 - p / 2);
    } else {
        double sum = 0, ss = 0;
        for (int i = 0; i < m->n; i++) sum += m->h[i];
        double mean = sum / m->n;
        for (int i = 0; i < m->n; i++) ss += (m->h[i] - mean) * (m->h[i] - mean);
        double sd = sqrt(ss / (m->n - 1));
        lo = mean - k * sd;
        hi = mean + k * sd;
    }
    return v < lo ? NLD_LOW : v > hi ? NLD_HIGH : NLD_NORMAL;
}

static void m_add(model_t *m, double v, int sliding, int cap)
{
    if (m->n < cap) {
        m->h[m->n++] = v;
    } else if (sliding) {
        memmove(m->h, m->h + 1, (size_t)(cap - 1) * sizeof *m->h);
        m->h[cap - 1] = v;
    }
}

/* The model with a run of flags held back: if the run ends within `admit` values, its
 * values enter the heuristic history before the value that ended it. */
static void against_model(uint32_t admit)
{
    enum { CAP = 50, MIN = 12, N = 4000 };
    nld_bank_t b;
    bank(&b, NLD_ALL_ALGOS, CAP, MIN);
    b.p.admit = admit;
    model_t m[PAPER] = {0};
    static double run[PAPER][N];
    int run_n[PAPER] = {0};
    double sm = 0;
    uint64_t rs = 7;
    int flagged[PAPER] = {0};
    for (int t = 0; t < N; t++) {
        uint64_t r = t_rand(&rs);
        double u1 = ((double)(r >> 11) + 0.5) / 9007199254740992.0;
        double u2 = t_unit(&rs);
        double x = 100 + 10 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        if (r % 50 == 0) x += 80;          /* spikes */
        if (t > 2000 && t < 2300) x -= 40; /* a dip */
        sm = t == 0 ? x : 0.2 * x + 0.8 * sm;
        nld_verdict_t v[NLD_ALGOS];
        double s = step(&b, x, v);
        assert_true(fabs(s - sm) <= 1e-9 * fabs(sm));
        sm = s; /* follow the bank's rounding exactly */
        for (int i = 0; i < PAPER; i++) {
            int cdf = i >> 2 & 1, heur = i >> 1 & 1, raw = i & 1;
            double val = raw ? x : s;
            int want = m_judge(&m[i], cdf, val, 2.0, 0.05, MIN);
            if (want != v[i].state) {
                print_message("t=%d algo=%s model=%d bank=%d v=%.17g lo=%.17g hi=%.17g\n", t,
                              nld_algo_name(i), want, v[i].state, val, v[i].lo, v[i].hi);
                fail();
            }
            int flag = want == NLD_LOW || want == NLD_HIGH;
            flagged[i] += flag;
            if (!heur) {
                m_add(&m[i], val, 0, CAP);
            } else if (flag) {
                run[i][run_n[i]++] = val;
            } else {
                if (run_n[i] <= (int)admit)
                    for (int j = 0; j < run_n[i]; j++) m_add(&m[i], run[i][j], 1, CAP);
                run_n[i] = 0;
                m_add(&m[i], val, 1, CAP);
            }
        }
    }
    for (int i = 0; i < PAPER; i++) assert_true(flagged[i] > 20); /* not vacuous */
    nld_bank_free(&b);
}

static void test_against_model(void **state)
{
    (void)state;
    against_model(0);
}

static void test_against_model_admit(void **state)
{
    (void)state;
    against_model(3);
}

/* admit=2 on a flat history: a lone spike and a pair enter the heuristic window once their
 * run ends; a run of three stays out. */
static void test_admit_short_runs(void **state)
{
    (void)state;
    nld_bank_t b;
    bank(&b, 1u << MSD_HU, 100, 10);
    b.p.admit = 2;
    nld_verdict_t v[NLD_ALGOS];
    for (int i = 0; i < 20; i++) step(&b, i % 2 ? 9.0 : 11.0, v);
    assert_int_equal(b.heur[MSD_HU].n, 20);
    step(&b, 50, v);
    assert_int_equal(v[MSD_HU].state, NLD_HIGH);
    assert_int_equal(b.heur[MSD_HU].n, 20); /* held back */
    step(&b, 10, v);
    assert_int_equal(v[MSD_HU].state, NLD_NORMAL);
    assert_int_equal(b.heur[MSD_HU].n, 22); /* the spike, then 10 */
    for (int i = 0; i < 3; i++) step(&b, -1000, v);
    assert_int_equal(v[MSD_HU].state, NLD_LOW);
    step(&b, 10, v);
    assert_int_equal(b.heur[MSD_HU].n, 23); /* only 10: the run of three stayed out */
    nld_bank_free(&b);
}

/* ---- scores on one scale, cusum, relent, threshold=, relearn ------------------------- */

/* The surprise of a normal deviate against values worked out by hand, and ranking far into
 * the tail where a probability itself is 1.0 in double precision. */
static void test_surprise(void **state)
{
    (void)state;
    assert_true(nld_surprise_normal(0, NLD_BOTH) == 0);
    assert_true(fabs(nld_surprise_normal(1.959963984540054, NLD_BOTH) - 1.3010299956639812) < 1e-9);
    assert_true(fabs(nld_surprise_normal(-3.090232306167813, NLD_BELOW) - 3.0) < 1e-9);
    assert_true(nld_surprise_normal(3, NLD_BELOW) < 0.001); /* the side not watched */
    /* 1 - P(|Z| >= 10) rounds to 1.0; the surprise goes on: about z^2 / (2 ln 10) */
    double prev = 0;
    for (double z = 5; z < 1e6; z *= 1.7) {
        double s = nld_surprise_normal(z, NLD_BOTH);
        assert_true(s > prev);
        prev = s;
    }
    assert_true(fabs(nld_surprise_normal(100, NLD_BOTH) - 2173.9) < 1.0); /* asymptotic */
    assert_true(fabs(nld_surprise_normal(29.9, NLD_BOTH) - nld_surprise_normal(30.1, NLD_BOTH)) <
                3.0); /* erfc and the series meet smoothly */
    /* chi-square: P(X >= 3.841) = 0.05 with 1 dof; P(X >= 11.07) = 0.05 with 5 */
    assert_true(fabs(nld_surprise_chi2(3.841458820694124, 1) - 1.3010299956639812) < 1e-6);
    assert_true(fabs(nld_surprise_chi2(11.070497693516351, 5) - 1.3010299956639812) < 1e-6);
    assert_true(nld_surprise_chi2(2000, 5) > nld_surprise_chi2(1000, 5));
    /* the tables' 0.001 points: a surprise of 3 at every number of degrees of freedom */
    static const struct {
        int dof;
        double g;
    } crit[] = {{2, 13.816}, {3, 16.266}, {4, 18.467}, {5, 20.515}, {10, 29.588}, {20, 45.315}};
    for (size_t i = 0; i < sizeof crit / sizeof crit[0]; i++)
        if (fabs(nld_surprise_chi2(crit[i].g, crit[i].dof) - 3.0) > 1e-3)
            fail_msg("chi2 %g with %d dof: surprise %.6f, want 3", crit[i].g, crit[i].dof,
                     nld_surprise_chi2(crit[i].g, crit[i].dof));
    /* exact forms: 2 dof, Q = e^-(g/2); 1 dof, Q = erfc(sqrt(g/2)); and where the finite
     * sums give way to the continued fraction (g = 1200), no step and no turn back */
    for (double g = 0.01; g < 5000; g *= 1.3) {
        assert_true(fabs(nld_surprise_chi2(g, 2) - g / 2 / M_LN10) < 1e-9 * (1 + g));
        if (g < 1000)
            assert_true(fabs(nld_surprise_chi2(g, 1) + log10(erfc(sqrt(g / 2)))) < 1e-9 * (1 + g));
    }
    for (int dof = 1; dof <= 31; dof++) {
        double below = nld_surprise_chi2(1199.999, dof), above = nld_surprise_chi2(1200.001, dof);
        double next = nld_surprise_chi2(1200.003, dof); /* the same step, one side only */
        if (!(above > below) || fabs((above - below) - (next - above)) > 1e-7)
            fail_msg("%d dof: %.9f just below the switch, %.9f and %.9f above", dof, below, above,
                     next);
    }
    /* scores: S / (S + 1), and back */
    assert_true(nld_score_of(0) == 0 && nld_score_of(1) == 0.5 && nld_score_of(9) == 0.9);
    assert_true(nld_score_of(INFINITY) == 1);
    assert_true(fabs(nld_surprise_of(0.99) - 99) < 1e-9);
}

static void params(nld_params_t *p, unsigned algos)
{
    nld_params_default(p);
    p->algos = algos;
    p->n = 100;
    p->min = 20;
    p->want_scores = 1;
}

/* A noisy level, then a lasting shift of one robust sd: a single value of it is ordinary,
 * but cusum's sum reaches h within about h / (1 - k) values; one wild spike cannot hold it
 * (z is clipped at 4), and after an alarm it starts again. */
/* 300 values uniform in 100 +- 5 (IQR 5, robust spread 3.7), the same every time; how many
 * of them cusum flagged. */
static int noisy_level(nld_bank_t *b, nld_verdict_t *v)
{
    uint64_t rs = 3;
    int flagged = 0;
    for (int i = 0; i < 300; i++) {
        step(b, 100 + 10 * (t_unit(&rs) - 0.5), v);
        flagged += v[NLD_CUSUM].state == NLD_HIGH || v[NLD_CUSUM].state == NLD_LOW;
    }
    return flagged;
}

static void test_cusum(void **state)
{
    (void)state;
    nld_params_t p;
    params(&p, 1u << NLD_CUSUM);
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    nld_verdict_t v[NLD_ALGOS];
    assert_true(noisy_level(&b, v) <= 3);
    int first = -1;
    for (int i = 0; i < 40 && first < 0; i++) {
        step(&b, 104, v); /* about +1.1 spread */
        if (v[NLD_CUSUM].state == NLD_HIGH) first = i;
    }
    assert_true(first >= 4 && first <= 12);
    assert_true(v[NLD_CUSUM].score > 0);
    nld_bank_free(&b);

    /* one spike, however large: g = 4 - k = 3.5 < h, not flagged; its score still ranks it
     * (the Shewhart part) */
    assert_int_equal(nld_bank_init(&b, &p), 0);
    noisy_level(&b, v);
    step(&b, 1e6, v);
    assert_int_equal(v[NLD_CUSUM].state, NLD_NORMAL);
    assert_true(v[NLD_CUSUM].score > 0.99);
    nld_bank_free(&b);
}

/* Relative entropy: a window drawn like the history is ordinary; a window whose values all
 * sit in the history's top bin is not, though no single value is extreme. */
static void test_relent(void **state)
{
    (void)state;
    nld_params_t p;
    params(&p, 1u << NLD_RELENT);
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    nld_verdict_t v[NLD_ALGOS];
    for (int i = 0; i < 400; i++) step(&b, (double)(i * 37 % 100), v); /* 0..99, mixed */
    assert_int_equal(v[NLD_RELENT].state, NLD_NORMAL);
    double ordinary = v[NLD_RELENT].score;
    int flagged = 0;
    for (int i = 0; i < 24; i++) {
        step(&b, 90 + (i % 9), v); /* inside the range, but only its top tenth */
        flagged |= v[NLD_RELENT].state == NLD_HIGH;
    }
    assert_true(flagged);
    assert_true(v[NLD_RELENT].score > ordinary);
    nld_bank_free(&b);
    /* warming up until the window is full */
    p.min = 2;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    for (int i = 0; i < 10; i++) step(&b, i, v);
    assert_int_equal(v[NLD_RELENT].state, NLD_WARMUP);
    nld_bank_free(&b);
}

/* nld_relent_g against the statistic worked out value by value: each window value's bin is
 * the number of edges at or below it. Windows odd and even, values on the edges, ties and
 * a NaN, a history mostly one value (fewer edges); the same sums, so exactly equal. */
static double relent_direct(const nld_relent_t *r, const nld_hist_t *h, uint32_t bins)
{
    double edge[NLD_RELENT_B_MAX];
    size_t under[NLD_RELENT_B_MAX];
    uint32_t ne = 0;
    for (uint32_t j = 1; j < bins; j++) {
        double e = nld_hist_quantile(h, (double)j / bins);
        if (ne && !(e > edge[ne - 1])) continue;
        size_t below = 0;
        for (uint32_t i = 0; i < h->n; i++) below += h->v[i] < e;
        under[ne] = below;
        edge[ne++] = e;
    }
    uint32_t nb = ne + 1, cnt[NLD_RELENT_B_MAX + 1] = {0};
    for (uint32_t i = 0; i < r->n; i++) {
        uint32_t bin = 0;
        for (uint32_t j = 0; j < ne; j++) bin += edge[j] <= r->ring[i];
        cnt[bin]++;
    }
    double n = (double)h->n, wn = (double)r->n, g = 0, prev = 0;
    for (uint32_t j = 0; j < nb; j++) {
        double below = j < ne ? (double)under[j] : n;
        double ref = (below - prev + 0.5) / (n + 0.5 * nb);
        prev = below;
        double pj = (cnt[j] + 0.5) / (wn + 0.5 * nb);
        g += pj * log(pj / ref);
    }
    return 2.0 * wn * g;
}

static void test_relent_g_direct(void **state)
{
    (void)state;
    static const uint32_t ws[] = {4, 5, 24, 25, 255};
    static const uint32_t bs[] = {2, 6, 7, 32};
    uint64_t rs = 77;
    for (int kind = 0; kind < 3; kind++)
        for (size_t a = 0; a < sizeof ws / sizeof *ws; a++)
            for (size_t c = 0; c < sizeof bs / sizeof *bs; c++) {
                nld_hist_t h;
                assert_int_equal(nld_hist_init(&h, 500, 1, 1), 0);
                for (int i = 0; i < 700; i++) {
                    /* kind 0: spread out; 1: ten values; 2: mostly zero */
                    double u = t_unit(&rs), x = kind == 0   ? 1000 * u
                                                : kind == 1 ? floor(10 * u)
                                                            : (u < 0.9 ? 0 : 100 * u);
                    assert_int_equal(nld_hist_add(&h, x), 0);
                }
                nld_relent_t r = {0};
                for (uint32_t i = 0; i < ws[a] + 3; i++) {
                    /* window values from the history itself (so on the edges too), one NaN */
                    double x = i == ws[a] ? NAN : h.v[(size_t)(t_unit(&rs) * h.n) % h.n];
                    assert_int_equal(nld_relent_push(&r, ws[a], x), 0);
                }
                int dir;
                double g = nld_relent_g(&r, &h, bs[c], 0, &dir),
                       want = relent_direct(&r, &h, bs[c]);
                assert_true(g == want);
                nld_relent_free(&r);
                nld_hist_free(&h);
            }
}

/* threshold=: reported flags follow the score; the histories (and so the scores) do not
 * depend on it. Without want_scores, a value the own rule leaves alone is not scored. */
static void test_threshold(void **state)
{
    (void)state;
    nld_params_t p, q;
    params(&p, 1u << 7 | 1u << 3); /* cdf-hu, msd-hu */
    q = p;
    q.threshold = 0.9;
    nld_bank_t a, b;
    assert_int_equal(nld_bank_init(&a, &p), 0);
    assert_int_equal(nld_bank_init(&b, &q), 0);
    uint64_t rs = 9;
    int hits = 0;
    for (int i = 0; i < 2000; i++) {
        double x = 100 + 10 * (t_unit(&rs) - 0.5) + (i % 97 == 0 ? 40 : 0);
        nld_verdict_t va[NLD_ALGOS], vb[NLD_ALGOS];
        step(&a, x, va);
        step(&b, x, vb);
        for (int k = 3; k <= 7; k += 4) {
            assert_true(va[k].score == vb[k].score);
            if (vb[k].state == NLD_WARMUP) continue;
            int flag = vb[k].state == NLD_LOW || vb[k].state == NLD_HIGH;
            assert_int_equal(flag, vb[k].score >= 0.9);
            hits += flag;
        }
    }
    assert_true(hits > 20);
    nld_bank_free(&a);
    nld_bank_free(&b);
    p.want_scores = 0;
    assert_int_equal(nld_bank_init(&a, &p), 0);
    nld_verdict_t va[NLD_ALGOS];
    for (int i = 0; i < 100; i++) step(&a, 100 + (i * 7 % 11) - 5, va);
    assert_true(va[3].state == NLD_NORMAL && va[3].score == 0);
    step(&a, 1000, va);
    assert_true(va[3].state == NLD_HIGH && va[3].score > 0.9);
    nld_bank_free(&a);
}

/* relearn=: a lasting new level enters a heuristic history after R flagged values (without
 * it the history keeps the old level and flags for ever), and restarts a static one. */
static void test_relearn(void **state)
{
    (void)state;
    for (int algo = 0; algo < 8; algo += 3) { /* msd-ss, msd-hu, cdf-hs */
        for (int r = 0; r <= 5; r += 5) {
            nld_params_t p;
            params(&p, 1u << algo);
            p.relearn = (uint32_t)r;
            p.admit = 4; /* as a stream sets it: a CDF heuristic history otherwise narrows */
            nld_bank_t b;
            assert_int_equal(nld_bank_init(&b, &p), 0);
            nld_verdict_t v[NLD_ALGOS];
            for (int i = 0; i < 200; i++) step(&b, 100 + (i * 7 % 11) - 5, v);
            int late = 0;
            for (int i = 0; i < 400; i++) {
                step(&b, 200 + (i * 7 % 11) - 5, v);
                if (i >= 300) late += v[algo].state == NLD_HIGH;
            }
            if (r > 0 && late != 0) /* learned */
                fail_msg("%s relearn=%d: %d late flags", nld_algo_name(algo), r, late);
            if (r == 0 && late != 100) /* still judged against the old level */
                fail_msg("%s: %d late flags without relearn", nld_algo_name(algo), late);
            nld_bank_free(&b);
        }
    }
}

/* relearn=DUR: a run of flags lasting longer than DUR of event time is learned; shorter
 * recurring ones (a 20 s hog every minute, 1 s values) stay anomalies. */
static void test_relearn_time(void **state)
{
    (void)state;
    nld_params_t p;
    params(&p, 1u << 3); /* msd-hu */
    p.relearn_s = 30;
    nld_bank_t b;
    assert_int_equal(nld_bank_init(&b, &p), 0);
    nld_verdict_t v[NLD_ALGOS];
    int err, t = 0, last_hog_flags = 0;
    for (; t < 200; t++)
        nld_bank_step_at(&b, 100 + (t * 7 % 11) - 5, (int64_t)t * 1000000, v, &err);
    for (int minute = 0; minute < 10; minute++) { /* 20 s at 150, 40 s at the old level */
        int flags = 0;
        for (int s = 0; s < 60; s++, t++) {
            double x = (s < 20 ? 150 : 100) + (t * 7 % 11) - 5;
            nld_bank_step_at(&b, x, (int64_t)t * 1000000, v, &err);
            flags += s < 20 && v[3].state == NLD_HIGH;
        }
        last_hog_flags = flags;
    }
    assert_int_equal(last_hog_flags, 20); /* the tenth hog is as anomalous as the first */
    int late = 0;
    for (int s = 0; s < 200; s++, t++) { /* a lasting shift: learned after 30 s */
        nld_bank_step_at(&b, 150 + (t * 7 % 11) - 5, (int64_t)t * 1000000, v, &err);
        if (s >= 150) late += v[3].state == NLD_HIGH;
    }
    assert_int_equal(late, 0);
    nld_bank_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_msd_outlier),
        cmocka_unit_test(test_cdf_tails),
        cmocka_unit_test(test_static_vs_heuristic_drift),
        cmocka_unit_test(test_smoothing_delays_step),
        cmocka_unit_test(test_smoothed_by_hand),
        cmocka_unit_test(test_one_sided),
        cmocka_unit_test(test_against_model),
        cmocka_unit_test(test_against_model_admit),
        cmocka_unit_test(test_admit_short_runs),
        cmocka_unit_test(test_scores_monotone),
        cmocka_unit_test(test_surprise),
        cmocka_unit_test(test_cusum),
        cmocka_unit_test(test_relent),
        cmocka_unit_test(test_relent_g_direct),
        cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_relearn),
        cmocka_unit_test(test_relearn_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
