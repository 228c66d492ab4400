/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bars.c — the tally of issue 45's bars over a grid (bench/realdata_bars.c): which
 * bars a point meets, at their limits and without windows or quiet series; and on two
 * generated sets, that the tally's counts are what scoring every ladder budget by reading
 * every row gives (rd_starts_score, rd_set_quiet), and that its edge of W holds W with no
 * more false reports than any ladder budget that holds it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "realdata_bars.h"

#define NSER 3
#define ROWS 3000

static uint32_t seed = 45;

static double uniform(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / 16777216.0;
}

static void test_bars_of(void **state)
{
    (void)state;
    rd_bars_t b;
    memset(&b, 0, sizeof b);
    b.wg[0][0] = 30, b.wg[0][1] = 20, b.wg[1][0] = 5, b.wg[1][1] = 1;
    rd_bar_pt_t p = {.found = {0.75, 0.9},
                     .fp1k = {1.0, 0.2},
                     .std = {45, 20},
                     .lowfp = {40, 40},
                     .quiet10 = 1.0};
    assert_int_equal(rd_bars_of(&b, &p), RD_BAR_F | RD_BAR_W | RD_BAR_Q | RD_BAR_S);
    assert_int_equal(rd_bars_of(NULL, &p), RD_BAR_F | RD_BAR_W | RD_BAR_Q);
    p.fp1k[1] = 1.01; /* one set over the bar is enough to miss it */
    assert_int_equal(rd_bars_of(NULL, &p), RD_BAR_W | RD_BAR_Q);
    p.found[0] = 0.7499;
    assert_int_equal(rd_bars_of(NULL, &p), RD_BAR_Q);
    p.quiet10 = NAN; /* no quiet series: Q cannot be met */
    assert_int_equal(rd_bars_of(NULL, &p), 0);
    p.std[0] = 44.9; /* 15 over 30 */
    assert_int_equal(rd_bars_of(&b, &p) & RD_BAR_S, 0);
    p.std[0] = 45, p.lowfp[1] = 39.9; /* at least 40 even where 10 over the anchor is less */
    assert_int_equal(rd_bars_of(&b, &p) & RD_BAR_S, 0);
    assert_true(rd_ladder(0) == 1.0 && rd_ladder(10) == 2.0 && rd_ladder(RD_LADDER - 1) == 7.0);
    assert_true(fabs(rd_ladder_threshold(3, 0) - 0.75) < 1e-12 && rd_ladder_threshold(3, 1) == 3);
}

/* Set x: series 5 minutes apart, low scores with bursts of high ones, labelled runs whose
 * scores spread from 0.45 to 0.95 (so stricter budgets find fewer), series 2 without. */
static void make_set(rd_set_t *set, double **score)
{
    memset(set, 0, sizeof *set);
    set->nser = NSER;
    set->ser = calloc(NSER, sizeof *set->ser);
    set->wg = calloc(NSER, sizeof *set->wg);
    assert_non_null(set->ser);
    assert_non_null(set->wg);
    nab_corpus_init(&set->corpus);
    for (int k = 0; k < NSER; k++) {
        rd_series_t *s = &set->ser[k];
        s->n = ROWS;
        s->name = (char *)"generated";
        s->ts = malloc(ROWS * sizeof *s->ts);
        s->label = calloc(ROWS, 1);
        score[k] = malloc(ROWS * sizeof *score[k]);
        set->wg[k] = malloc(ROWS * sizeof *set->wg[k]);
        assert_non_null(s->ts);
        assert_non_null(s->label);
        assert_non_null(score[k]);
        assert_non_null(set->wg[k]);
        int burst = 0;
        for (size_t i = 0; i < ROWS; i++) {
            s->ts[i] = (int64_t)i * 300000000;
            if (uniform() < 0.001) burst = 1 + (int)(uniform() * 4);
            score[k][i] = burst ? 0.5 + 0.45 * uniform() : 0.5 * pow(uniform(), 8);
            if (burst) burst--;
            if (k != 2 && i % 500 >= 300 && i % 500 < 303) s->label[i] = 1;
            set->wg[k][i] = uniform();
        }
        for (size_t i = 301; k != 2 && i < ROWS; i += 500) score[k][i] = 0.45 + 0.5 * uniform();
        assert_int_equal(nab_corpus_add(&set->corpus, s->label, ROWS), 0);
        set->scored += ROWS - set->corpus.s[k].probation;
    }
}

static void free_set(rd_set_t *set, double **score)
{
    for (int k = 0; k < NSER; k++) {
        free(set->ser[k].ts);
        free(set->ser[k].label);
        free(set->wg[k]);
        free(score[k]);
    }
    free(set->ser);
    free(set->wg);
    nab_corpus_free(&set->corpus);
}

static void test_bars_tally(void **state)
{
    (void)state;
    rd_set_t sets[2];
    double *score[2][NSER], *tmp[2][NSER];
    rd_sweep_t sw[2];
    for (int x = 0; x < 2; x++) {
        make_set(&sets[x], score[x]);
        for (int k = 0; k < NSER; k++) assert_non_null(tmp[x][k] = malloc(ROWS * sizeof(double)));
        assert_int_equal(
            rd_sweep_init(&sw[x], &sets[x].corpus, sets[x].ser, NSER, score[x], NULL, NULL), 0);
    }
    rd_bars_t b;
    rd_bars_init(&b, sets);
    /* one quiet series a set, each 2549 steps of 5 minutes after probation */
    double want_days = 2 * 2549 * 300.0 / 86400;
    assert_true(fabs(b.qdays - want_days) < 1e-9);
    rd_ep_t ep = {3600000000, 0, 0, 0, 0, 0};
    rd_bars_config(&b, sets, sw, ep, 0, "generated");
    size_t want[16] = {0};
    double least_fp = INFINITY;
    int any_w = 0, seen = 0;
    for (int j = 0; j < RD_LADDER; j++) {
        rd_bar_pt_t p = {.lg = rd_ladder(j)};
        double t = rd_ladder_threshold(p.lg, 0);
        size_t quiet = 0;
        for (int x = 0; x < 2; x++) {
            nab_result_t r[2];
            for (int q = 0; q < 2; q++)
                rd_starts_score(&sets[x].corpus, sets[x].ser, NSER, score[x], NULL, NULL, t, ep,
                                q ? &nab_low_fp : &nab_standard, tmp[x], &r[q]);
            int nq;
            double days;
            quiet += rd_set_quiet(&sets[x], tmp[x], NULL, &nq, &days);
            p.found[x] = (double)r[0].found / (double)r[0].windows;
            p.fp1k[x] = rd_set_fp_per_1k(&sets[x], r[0].fp);
            p.std[x] = r[0].score;
            p.lowfp[x] = r[1].score;
        }
        p.quiet10 = 10.0 * (double)quiet / b.qdays;
        int m = rd_bars_of(&b, &p);
        want[m]++;
        seen |= m;
        if (m & RD_BAR_W) {
            any_w = 1;
            least_fp = fmin(least_fp, fmax(p.fp1k[0], p.fp1k[1]));
        }
    }
    assert_int_equal(b.points, RD_LADDER);
    for (int m = 0; m < 16; m++) assert_int_equal(b.n[m], want[m]);
    /* the generated sets hold W at some budgets and not at others, and have false reports */
    assert_true(any_w && (seen & RD_BAR_W) && want[0] + want[RD_BAR_F] + want[RD_BAR_Q] > 0);
    assert_int_equal(b.edges, 1);
    assert_true(b.have[3]);
    assert_true(rd_bars_of(&b, &b.miss[3]) & RD_BAR_W);
    assert_true(fmax(b.miss[3].fp1k[0], b.miss[3].fp1k[1]) <= least_fp);
    /* here W holds at the first budget only: the edge lies between it and the next, beyond
     * the first (at 1.087: the windows found are those of the first budget there) */
    assert_int_equal(want[RD_BAR_W | RD_BAR_S], 1);
    assert_true(b.miss[3].lg > rd_ladder(0) && b.miss[3].lg < rd_ladder(1));
    assert_string_equal(b.miss[3].desc, "generated");
    for (int x = 0; x < 2; x++) {
        rd_sweep_free(&sw[x]);
        for (int k = 0; k < NSER; k++) free(tmp[x][k]);
        free_set(&sets[x], score[x]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bars_of),
                                       cmocka_unit_test(test_bars_tally)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
