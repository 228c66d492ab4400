/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nab.c — bench-realdata's NAB scorer on hand-made series whose answers are worked out
 * by hand from the protocol (../shared/datasets/README.md): windows and probation, the
 * reward of an early or late first detection, the cost of a detection before any window
 * and after one, one threshold for the whole corpus, the three profiles. */
#include <math.h>
#include <string.h>

#include "nab.h"
#include "nl_test.h"

#define N 100

/* NAB's scaled sigmoid, written out again here from the protocol's text. */
static double sig(double y) { return 2.0 / (1.0 + exp(5.0 * y)) - 1.0; }

/* One series of N rows, anomalous rows [a, b]: one window of width floor(0.1 N / 1) = 10
 * around the run's middle row m = (a + b) / 2: [m - 5, m + 5]; probation 15 rows. */
static void one_series(nab_corpus_t *c, size_t a, size_t b)
{
    uint8_t lab[N] = {0};
    for (size_t i = a; i <= b; i++) lab[i] = 1;
    nab_corpus_init(c);
    assert_int_equal(nab_corpus_add(c, lab, N), 0);
}

static double score_of(const nab_corpus_t *c, double *x, const nab_profile_t *p,
                       nab_result_t *r)
{
    double *sc[1] = {x};
    assert_int_equal(nab_score(c, sc, NULL, p, r), 0);
    return r->score;
}

static void test_windows(void **state)
{
    (void)state;
    nab_corpus_t c;
    one_series(&c, 50, 51);
    assert_int_equal(c.s[0].nw, 1);
    assert_int_equal(c.s[0].w[0].s, 45);
    assert_int_equal(c.s[0].w[0].e, 55);
    assert_int_equal(c.s[0].probation, 15);
    nab_corpus_free(&c);

    /* a run longer than the width: the window covers the whole run */
    one_series(&c, 30, 70);
    assert_int_equal(c.s[0].w[0].s, 30);
    assert_int_equal(c.s[0].w[0].e, 70);
    nab_corpus_free(&c);

    /* three runs: width floor(10 / 3) = 3; runs close together merge into one window; a
     * window that ends inside probation is kept but not counted */
    uint8_t lab[N] = {0};
    lab[5] = 1;            /* window [4, 6]: in probation */
    lab[60] = lab[62] = 1; /* windows [59, 61] and [61, 63] overlap: one [59, 63] */
    nab_corpus_init(&c);
    assert_int_equal(nab_corpus_add(&c, lab, N), 0);
    assert_int_equal(c.s[0].nw, 2);
    assert_int_equal(c.s[0].w[1].s, 59);
    assert_int_equal(c.s[0].w[1].e, 63);
    assert_int_equal(c.s[0].scored_w, 1);
    size_t scored;
    assert_int_equal(nab_corpus_windows(&c, &scored), 2);
    assert_int_equal(scored, 1);
    nab_corpus_free(&c);
}

static void test_perfect_and_never(void **state)
{
    (void)state;
    nab_corpus_t c;
    one_series(&c, 50, 51);
    double x[N] = {0};
    nab_result_t r;
    x[45] = 1; /* at the window's first row */
    assert_true(fabs(score_of(&c, x, &nab_standard, &r) - 100.0) < 1e-9);
    assert_int_equal(r.found, 1);
    assert_int_equal(r.fp, 0);
    assert_true(r.threshold == 1.0);
    /* the same score everywhere: detecting every row costs more than it earns, so the best
     * threshold detects nothing */
    for (int i = 0; i < N; i++) x[i] = 0.3;
    assert_true(fabs(score_of(&c, x, &nab_standard, &r)) < 1e-9);
    assert_true(isinf(r.threshold));
    assert_int_equal(r.found, 0);
    /* a detection inside probation is not scored at all */
    memset(x, 0, sizeof x);
    x[10] = 1;
    assert_true(fabs(score_of(&c, x, &nab_standard, &r)) < 1e-9);
    nab_corpus_free(&c);
}

static void test_late_detection(void **state)
{
    (void)state;
    nab_corpus_t c;
    one_series(&c, 50, 51);
    double x[N] = {0};
    nab_result_t r;
    x[55] = 1; /* the window's last row: reward sig(-1/11) / sig(-1) */
    double tp = sig(-1.0 / 11.0) / sig(-1.0);
    assert_true(fabs(score_of(&c, x, &nab_standard, &r) - 100.0 * (tp + 1.0) / 2.0) < 1e-9);
    /* low-FN: null is -2, the same detection is worth (tp + 2) / 3 */
    assert_true(fabs(score_of(&c, x, &nab_low_fn, &r) - 100.0 * (tp + 2.0) / 3.0) < 1e-9);
    /* only the first detection in a window counts: a later one adds nothing */
    x[50] = 1;
    double tp50 = sig(-6.0 / 11.0) / sig(-1.0);
    assert_true(fabs(score_of(&c, x, &nab_standard, &r) - 100.0 * (tp50 + 1.0) / 2.0) < 1e-9);
    assert_int_equal(r.found, 1);
    nab_corpus_free(&c);
}

static void test_false_detections(void **state)
{
    (void)state;
    nab_corpus_t c;
    one_series(&c, 50, 51);
    double x[N] = {0};
    nab_result_t r;
    x[45] = 1;
    x[20] = 1; /* before any window: full cost A_FP */
    assert_true(fabs(score_of(&c, x, &nab_standard, &r) - 100.0 * (2.0 - 0.11) / 2.0) < 1e-9);
    assert_int_equal(r.fp, 1);
    assert_true(fabs(score_of(&c, x, &nab_low_fp, &r) - 100.0 * (2.0 - 0.22) / 2.0) < 1e-9);
    /* after the window (end 55, width 11): cost A_FP * sig((60 - 55) / 10) */
    x[20] = 0;
    x[60] = 1;
    double fp = 0.11 * sig(0.5);
    assert_true(fabs(score_of(&c, x, &nab_standard, &r) - 100.0 * (2.0 + fp) / 2.0) < 1e-9);
    /* a weaker false detection is left out by the threshold: detections at 45 (score 0.9)
     * and 20 (0.5): the threshold 0.9 keeps only the true one */
    x[60] = 0;
    x[45] = 0.9;
    x[20] = 0.5;
    assert_true(fabs(score_of(&c, x, &nab_standard, &r) - 100.0) < 1e-9);
    assert_true(r.threshold == 0.9);
    nab_corpus_free(&c);
}

/* Two series, one threshold: what is best for the corpus, not for each series. */
static void test_one_threshold(void **state)
{
    (void)state;
    uint8_t lab[N] = {0};
    lab[50] = 1;
    nab_corpus_t c;
    nab_corpus_init(&c);
    assert_int_equal(nab_corpus_add(&c, lab, N), 0);
    assert_int_equal(nab_corpus_add(&c, lab, N), 0);
    double a[N] = {0}, b[N] = {0};
    a[45] = 0.8; /* series a: found at its window's start if t <= 0.8 */
    b[45] = 0.6; /* series b: found at its start if t <= 0.6 ... */
    b[20] = 0.7; /* ... but a false detection at 0.7 */
    double *sc[2] = {a, b};
    nab_result_t r;
    assert_int_equal(nab_score(&c, sc, NULL, &nab_standard, &r), 0);
    /* t = 0.6 finds both (raw 2 - 0.11), t = 0.8 finds one (raw 0): 0.6 wins */
    assert_true(r.threshold == 0.6);
    assert_true(fabs(r.score - 100.0 * (4.0 - 0.11) / 4.0) < 1e-9);
    /* restricted to series b alone */
    unsigned char only[2] = {0, 1};
    assert_int_equal(nab_score(&c, sc, only, &nab_standard, &r), 0);
    assert_true(fabs(r.score - 100.0 * (2.0 - 0.11) / 2.0) < 1e-9);
    /* at a threshold chosen elsewhere */
    nab_score_at(&c, sc, NULL, &nab_standard, 0.8, &r);
    assert_true(fabs(r.score - 50.0) < 1e-9);
    nab_corpus_free(&c);
}

/* Detections given as rows score what the same detections as 0/1 scores do at 0.5, to the
 * last bit: in probation, twice in a window, before, between and after windows, with a
 * window inside probation, on all or some series, under every profile. */
static void test_score_rows(void **state)
{
    (void)state;
    uint8_t lab1[N] = {0}, lab2[N] = {0};
    lab1[50] = lab1[51] = 1;
    lab2[5] = lab2[60] = lab2[62] = lab2[90] = 1;
    nab_corpus_t c;
    nab_corpus_init(&c);
    assert_int_equal(nab_corpus_add(&c, lab1, N), 0);
    assert_int_equal(nab_corpus_add(&c, lab2, N), 0);
    const nab_profile_t *prof[3] = {&nab_standard, &nab_low_fp, &nab_low_fn};
    unsigned char only[2] = {0, 1};
    uint32_t seed = 12345;
    for (int round = 0; round < 200; round++) {
        double x[2][N];
        size_t rows[2][N], nrows[2] = {0, 0};
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < N; i++) {
                seed = seed * 1664525u + 1013904223u;
                x[k][i] = (seed >> 24) < (uint32_t)(8 + round % 40);
                if (x[k][i] != 0) rows[k][nrows[k]++] = i;
            }
        double *sc[2] = {x[0], x[1]};
        size_t *rp[2] = {rows[0], rows[1]};
        for (int p = 0; p < 3; p++) {
            nab_result_t a, b;
            nab_score_at(&c, sc, round % 2 ? only : NULL, prof[p], 0.5, &a);
            nab_score_rows(&c, rp, nrows, round % 2 ? only : NULL, prof[p], &b);
            assert_true(a.score == b.score && a.raw == b.raw && a.threshold == b.threshold);
            assert_int_equal(a.found, b.found);
            assert_int_equal(a.fp, b.fp);
            assert_int_equal(a.windows, b.windows);
            assert_int_equal(a.rows, b.rows);
        }
    }
    nab_corpus_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows),          cmocka_unit_test(test_perfect_and_never),
        cmocka_unit_test(test_late_detection),   cmocka_unit_test(test_false_detections),
        cmocka_unit_test(test_one_threshold),    cmocka_unit_test(test_score_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
