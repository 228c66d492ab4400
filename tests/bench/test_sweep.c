/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sweep.c — bench-realdata's threshold sweep (bench/realdata_bank.c) gives what reading
 * every row gives: rd_sweep_score is rd_starts_score at every candidate, and rd_sweep_best
 * picks what trying each candidate with rd_starts_score picks (ties to the first), and
 * rd_sweep_at scores both profiles at once and counts the starts after probation on a
 * series without labels as rd_starts_score's rows give them (at the candidates, between
 * them and below them), for episode rules with hold-off in time and in values, fatigue,
 * escalation and confirmation, on series with bursts, long quiet runs and times that go
 * back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "realdata_bank.h"

#define NSER 4
#define ROWS 3000

static uint32_t seed = 2026;

static double uniform(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / 16777216.0;
}

/* Series k: rows 5 minutes apart (series 3's times go back once), scores mostly low with
 * bursts of high ones, a label run every 700 rows (series 2 has none: every start there
 * after probation is a false report on a quiet series). */
static void make(rd_series_t *s, double **score, uint8_t **label)
{
    for (int k = 0; k < NSER; k++) {
        s[k] = (rd_series_t){.n = ROWS};
        s[k].ts = malloc(ROWS * sizeof *s[k].ts);
        score[k] = malloc(ROWS * sizeof *score[k]);
        label[k] = calloc(ROWS, 1);
        assert_non_null(s[k].ts);
        assert_non_null(score[k]);
        assert_non_null(label[k]);
        int burst = 0;
        for (size_t i = 0; i < ROWS; i++) {
            s[k].ts[i] = (int64_t)i * 300000000 - (k == 3 && i > ROWS / 2 ? 3600000000 : 0);
            if (uniform() < 0.01) burst = 1 + (int)(uniform() * 12);
            score[k][i] = burst ? 0.6 + 0.39 * uniform() : pow(uniform(), 6);
            if (burst) burst--;
            if (k != 2 && i % 700 >= 400 && i % 700 < 405) label[k][i] = 1;
        }
    }
}

static void test_sweep_same(void **state)
{
    (void)state;
    rd_series_t s[NSER];
    double *score[NSER], *tmp[NSER];
    uint8_t *label[NSER];
    make(s, score, label);
    nab_corpus_t c;
    nab_corpus_init(&c);
    for (int k = 0; k < NSER; k++) {
        assert_int_equal(nab_corpus_add(&c, label[k], ROWS), 0);
        tmp[k] = malloc(ROWS * sizeof *tmp[k]);
        assert_non_null(tmp[k]);
    }
    const rd_ep_t eps[] = {
        {3600000000, 0, 0, 0, 0, 0},        {-1, 0, 0, 0, 0, 0},
        {-3, 0, 0, 2, 0, 0},                {10800000000, 259200, 0, 0, 0, 0},
        {3600000000, 0, 2, 2, 0, 0},        {3600000000, 259200, 3, 2, 0, 0},
        {-3, 0, 0, 3, 600, 0},              {10800000000, 259200, 3, 3, 600, 0},
        {-3, 0, 0, 0, 0, 2},                {10800000000, 259200, 3, 3, 600, 2},
    };
    const nab_profile_t *prof[2] = {&nab_standard, &nab_low_fp};
    unsigned char only[NSER] = {1, 0, 1, 1}, *famv[NSER];
    for (int k = 0; k < NSER; k++) { /* half the rows familiar, at random */
        famv[k] = malloc(ROWS);
        assert_non_null(famv[k]);
        for (size_t i = 0; i < ROWS; i++) famv[k][i] = uniform() < 0.5;
    }
    { /* the familiar rows matter: a lone spike that paged at once waits among them */
        double a0[ROWS], b0[ROWS];
        size_t differ = 0;
        rd_starts_at(score[0], famv[0], s[0].ts, ROWS, 0.6, eps[6], a0);
        rd_starts_at(score[0], NULL, s[0].ts, ROWS, 0.6, eps[6], b0);
        for (size_t i = 0; i < ROWS; i++) differ += a0[i] != b0[i];
        assert_true(differ > 0);
    }
    for (int o = 0; o < 4; o++) { /* only, or not; familiar rows (o & 2), or none */
        rd_sweep_t w;
        unsigned char *const *fm = o & 2 ? famv : NULL;
        assert_int_equal(rd_sweep_init(&w, &c, s, NSER, score, fm, o & 1 ? only : NULL), 0);
        assert_true(w.ncand > 50);
        for (size_t e = 0; e < sizeof eps / sizeof eps[0]; e++) {
            double bt[2], best[2], want_t[2] = {INFINITY, INFINITY};
            double want[2] = {-INFINITY, -INFINITY};
            size_t quiet_seen = 0;
            for (int j = 0; j < w.ncand; j++) {
                nab_result_t at[2];
                size_t quiet = 0, want_quiet = 0;
                rd_sweep_at(&w, w.cand[j], eps[e], prof, 2, at, &quiet);
                for (int p = 0; p < 2; p++) {
                    nab_result_t a, b;
                    double sa = rd_starts_score(&c, s, NSER, score, fm, w.only, w.cand[j], eps[e],
                                                prof[p], tmp, &a);
                    double sb = rd_sweep_score(&w, w.cand[j], eps[e], prof[p], &b);
                    assert_true(sa == sb && a.raw == b.raw);
                    assert_int_equal(a.found, b.found);
                    assert_int_equal(a.fp, b.fp);
                    assert_true(at[p].score == sa && at[p].raw == a.raw);
                    assert_int_equal(at[p].fp, a.fp);
                    assert_int_equal(at[p].found, a.found);
                    assert_int_equal(at[p].windows, a.windows);
                    if (sa > want[p]) {
                        want[p] = sa;
                        want_t[p] = w.cand[j];
                    }
                }
                for (size_t i = c.s[2].probation; i < ROWS; i++) want_quiet += tmp[2][i] != 0;
                assert_int_equal(quiet, want_quiet);
                quiet_seen += quiet;
            }
            assert_true(quiet_seen > 0); /* the quiet series does get starts */
            /* and between the candidates, and below the lowest, where bench-realdata's tally
             * of bars asks (its ladder of budgets is not the candidates) */
            for (int j = -1; j < w.ncand; j++) {
                double t = j < 0 ? 0.5 * w.cand[0]
                           : j + 1 < w.ncand ? 0.5 * (w.cand[j] + w.cand[j + 1])
                                             : 1.01 * w.cand[j];
                nab_result_t at[2], a;
                size_t quiet = 0, want_quiet = 0;
                rd_sweep_at(&w, t, eps[e], prof, 2, at, &quiet);
                for (int p = 0; p < 2; p++) {
                    rd_starts_score(&c, s, NSER, score, fm, w.only, t, eps[e], prof[p], tmp, &a);
                    assert_true(at[p].score == a.score && at[p].raw == a.raw);
                    assert_int_equal(at[p].found, a.found);
                    assert_int_equal(at[p].fp, a.fp);
                }
                for (size_t i = c.s[2].probation; i < ROWS; i++) want_quiet += tmp[2][i] != 0;
                assert_int_equal(quiet, want_quiet);
            }
            rd_sweep_best(&w, eps[e], prof, 2, bt, best);
            for (int p = 0; p < 2; p++) assert_true(bt[p] == want_t[p] && best[p] == want[p]);
            double b1;
            double t1 =
                rd_best_start_threshold(&c, s, NSER, score, fm, w.only, eps[e], prof[1], &b1);
            assert_true(t1 == want_t[1] && b1 == want[1]);
        }
        rd_sweep_free(&w);
    }
    nab_corpus_free(&c);
    for (int k = 0; k < NSER; k++) {
        free(famv[k]);
        free(s[k].ts);
        free(score[k]);
        free(label[k]);
        free(tmp[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_sweep_same)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
