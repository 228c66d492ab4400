/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_bars.c — issue 45's bars over the whole cross grid (see realdata_bars.h). */
#include "realdata_bars.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nab.h"

enum { BAR_F = 1, BAR_W = 2, BAR_Q = 4, BAR_S = 8 };

double rd_ladder(int j) { return j < 10 ? 1.0 + 0.1 * j : 2.0 + 0.25 * (j - 10); }

void rd_bars_init(rd_bars_t *b, const rd_set_t *sets)
{
    static const nab_profile_t *const prof[2] = {&nab_standard, &nab_low_fp};
    memset(b, 0, sizeof *b);
    for (int x = 0; x < 2; x++) {
        for (int q = 0; q < 2; q++) {
            nab_result_t r;
            if (nab_score(&sets[x].corpus, sets[x].wg, NULL, prof[q], &r)) {
                fprintf(stderr, "bench-realdata: out of memory\n");
                exit(1);
            }
            b->wg[x][q] = r.score;
        }
        b->qdays += rd_set_quiet_days(&sets[x]);
    }
}

/* The bars point p meets (BAR_ bits). */
static int bars_of(const rd_bars_t *b, const rd_bar_pt_t *p)
{
    int f = 1, w = 1, s = 1;
    for (int x = 0; x < 2; x++) {
        f &= p->fp1k[x] <= RD_BAR_FP_1K;
        w &= p->found[x] >= RD_BAR_FOUND;
        s &= p->std[x] >= b->wg[x][0] + 15 && p->lowfp[x] >= b->wg[x][1] + 10 &&
             p->lowfp[x] >= 40;
    }
    return (f ? BAR_F : 0) | (w ? BAR_W : 0) | (p->quiet10 <= RD_BAR_QUIET_10D ? BAR_Q : 0) |
           (s ? BAR_S : 0);
}

void rd_bars_config(rd_bars_t *b, const rd_set_t *sets, const rd_sweep_t *sw, rd_ep_t ep,
                    int per_day, const char *desc)
{
    static const nab_profile_t *const prof[2] = {&nab_standard, &nab_low_fp};
    for (int j = 0; j < RD_LADDER; j++) {
        rd_bar_pt_t p = {.lg = rd_ladder(j)};
        double t = per_day ? p.lg : p.lg / (p.lg + 1);
        size_t quiet = 0;
        for (int x = 0; x < 2; x++) {
            nab_result_t r[2];
            size_t qx;
            rd_sweep_at(&sw[x], t, ep, prof, 2, r, &qx);
            quiet += qx;
            p.found[x] = r[0].windows ? (double)r[0].found / (double)r[0].windows : 0;
            p.fp1k[x] = rd_set_fp_per_1k(&sets[x], r[0].fp);
            p.std[x] = r[0].score;
            p.lowfp[x] = r[1].score;
        }
        p.quiet10 = b->qdays > 0 ? 10.0 * (double)quiet / b->qdays : 0;
        int m = bars_of(b, &p);
        b->points++;
        b->n[m]++;
        double fmin_ = fmin(p.found[0], p.found[1]), fpmax = fmax(p.fp1k[0], p.fp1k[1]);
        if ((m & (BAR_F | BAR_Q)) == (BAR_F | BAR_Q) &&
            (!b->have_fq || fmin_ > fmin(b->fq.found[0], b->fq.found[1]))) {
            b->fq = p;
            b->have_fq = 1;
            snprintf(b->fq.desc, sizeof b->fq.desc, "%s", desc);
        }
        if ((m & (BAR_F | BAR_W)) == (BAR_F | BAR_W) && (!b->have_fw || p.quiet10 < b->fw.quiet10)) {
            b->fw = p;
            b->have_fw = 1;
            snprintf(b->fw.desc, sizeof b->fw.desc, "%s", desc);
        }
        if ((m & (BAR_W | BAR_Q)) == (BAR_W | BAR_Q) &&
            (!b->have_wq || fpmax < fmax(b->wq.fp1k[0], b->wq.fp1k[1]))) {
            b->wq = p;
            b->have_wq = 1;
            snprintf(b->wq.desc, sizeof b->wq.desc, "%s", desc);
        }
        if ((m & BAR_W) && (!b->have_wf || fpmax < fmax(b->wf.fp1k[0], b->wf.fp1k[1]))) {
            b->wf = p;
            b->have_wf = 1;
            snprintf(b->wf.desc, sizeof b->wf.desc, "%s", desc);
        }
        if ((m & BAR_W) && (!b->have_wqq || p.quiet10 < b->wqq.quiet10)) {
            b->wqq = p;
            b->have_wqq = 1;
            snprintf(b->wqq.desc, sizeof b->wqq.desc, "%s", desc);
        }
    }
}

/* The points meeting at least the bars in mask. */
static size_t meeting(const rd_bars_t *b, int mask)
{
    size_t n = 0;
    for (int m = 0; m < 16; m++)
        if ((m & mask) == mask) n += b->n[m];
    return n;
}

static void print_pt(const char *what, int have, const rd_bar_pt_t *p, const rd_set_t *sets)
{
    if (!have) {
        printf("- %s: no point.\n", what);
        return;
    }
    printf("- %s: rate=%.3g, %s:", what, pow(10, -p->lg), p->desc);
    for (int x = 0; x < 2; x++)
        printf(" %s %.1f / %.1f, %.1f%% found, %.2f false per 1,000 rows;", sets[x].name,
               p->std[x], p->lowfp[x], 100 * p->found[x], p->fp1k[x]);
    printf(" quiet series %.2f per 10 days.\n", p->quiet10);
}

void rd_bars_print(const rd_bars_t *b, const rd_set_t *sets)
{
    printf("\nIssue 45's bars over the whole grid, at %d budgets each (1 in 10 values to 1 in "
           "10 million): %zu points. F: at most %.1f false reports per 1,000 rows on each set; "
           "W: at least %.0f%% of windows found on each; Q: at most %.0f report per 10 days "
           "on the series without anomalies of both (%.0f days of rows); S: standard 15 and "
           "low-FP 10 over the windowed Gaussian (%s %.1f / %.1f, %s %.1f / %.1f) and low-FP "
           "at least 40, on each.\n\n",
           RD_LADDER, b->points, RD_BAR_FP_1K, 100 * RD_BAR_FOUND, RD_BAR_QUIET_10D, b->qdays,
           sets[0].name, b->wg[0][0], b->wg[0][1], sets[1].name, b->wg[1][0], b->wg[1][1]);
    static const struct {
        const char *name;
        int mask;
    } rows[] = {{"S", BAR_S},
                {"F", BAR_F},
                {"W", BAR_W},
                {"Q", BAR_Q},
                {"F and W", BAR_F | BAR_W},
                {"F and Q", BAR_F | BAR_Q},
                {"W and Q", BAR_W | BAR_Q},
                {"S, F and W", BAR_S | BAR_F | BAR_W},
                {"F, W and Q", BAR_F | BAR_W | BAR_Q},
                {"all four", BAR_F | BAR_W | BAR_Q | BAR_S}};
    printf("| bars met (at least) | points |\n|---|---:|\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("| %s | %zu |\n", rows[i].name, meeting(b, rows[i].mask));
    printf("\nThe nearest misses:\n\n");
    print_pt("the most windows found (the worse set) where F and Q hold", b->have_fq, &b->fq,
             sets);
    print_pt("the fewest quiet reports where F and W hold", b->have_fw, &b->fw, sets);
    print_pt("the fewest false reports (the worse set) where W and Q hold", b->have_wq, &b->wq,
             sets);
    print_pt("the fewest false reports (the worse set) where W holds", b->have_wf, &b->wf, sets);
    print_pt("the fewest quiet reports where W holds", b->have_wqq, &b->wqq, sets);
}
