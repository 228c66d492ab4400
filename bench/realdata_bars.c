/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_bars.c — issue 45's bars over the whole cross grid (see realdata_bars.h). */
#include "realdata_bars.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nab.h"

#define EDGE_STEPS 8 /* bisections of the edge of W: 1/256 of a ladder step */

static const nab_profile_t *const prof2[2] = {&nab_standard, &nab_low_fp};

double rd_ladder(int j) { return j < 10 ? 1.0 + 0.1 * j : 2.0 + 0.25 * (j - 10); }

double rd_ladder_threshold(double lg, int per_day) { return per_day ? lg : lg / (lg + 1); }

int rd_bars_of(const rd_bars_t *b, const rd_bar_pt_t *p)
{
    int f = 1, w = 1, s = 1;
    for (int x = 0; x < 2; x++) {
        f &= p->fp1k[x] <= RD_BAR_FP_1K;
        w &= p->found[x] >= RD_BAR_FOUND;
        if (b)
            s &= p->std[x] >= b->wg[x][0] + 15 && p->lowfp[x] >= b->wg[x][1] + 10 &&
                 p->lowfp[x] >= 40;
    }
    return (f ? RD_BAR_F : 0) | (w ? RD_BAR_W : 0) |
           (p->quiet10 <= RD_BAR_QUIET_10D ? RD_BAR_Q : 0) | (b && s ? RD_BAR_S : 0);
}

void rd_bars_init(rd_bars_t *b, const rd_set_t *sets)
{
    memset(b, 0, sizeof *b);
    for (int x = 0; x < 2; x++) {
        for (int q = 0; q < 2; q++) {
            nab_result_t r;
            if (nab_score(&sets[x].corpus, sets[x].wg, NULL, prof2[q], &r)) rd_oom();
            b->wg[x][q] = r.score;
        }
        b->qdays += rd_set_quiet_days(&sets[x]);
    }
}

/* Budget lg's figures on both sets (desc left empty). */
static rd_bar_pt_t point_at(const rd_bars_t *b, const rd_set_t *sets, const rd_sweep_t *sw,
                            rd_ep_t ep, int per_day, double lg)
{
    rd_bar_pt_t p = {.lg = lg, .per_day = per_day};
    double t = rd_ladder_threshold(lg, per_day);
    size_t quiet = 0;
    for (int x = 0; x < 2; x++) {
        nab_result_t r[2];
        size_t qx;
        rd_sweep_at(&sw[x], t, ep, prof2, 2, r, &qx);
        quiet += qx;
        p.found[x] = r[0].windows ? (double)r[0].found / (double)r[0].windows : 1;
        p.fp1k[x] = rd_set_fp_per_1k(&sets[x], r[0].fp);
        p.std[x] = r[0].score;
        p.lowfp[x] = r[1].score;
    }
    p.quiet10 = b->qdays > 0 ? 10.0 * (double)quiet / b->qdays : NAN;
    return p;
}

/* Keep p as nearest miss i when it meets the bars in mask and has a smaller key. */
static void keep(rd_bars_t *b, int i, int met, int mask, const rd_bar_pt_t *p, double key,
                 const char *desc)
{
    if ((met & mask) != mask || (b->have[i] && !(key < b->key[i]))) return;
    b->miss[i] = *p;
    snprintf(b->miss[i].desc, sizeof b->miss[i].desc, "%s", desc);
    b->key[i] = key;
    b->have[i] = 1;
}

/* Offer p to every nearest miss. */
static void offer(rd_bars_t *b, const rd_bar_pt_t *p, const char *desc)
{
    int m = rd_bars_of(b, p);
    double least_found = fmin(p->found[0], p->found[1]);
    double most_fp = fmax(p->fp1k[0], p->fp1k[1]);
    keep(b, 0, m, RD_BAR_F | RD_BAR_Q, p, -least_found, desc);
    keep(b, 1, m, RD_BAR_F | RD_BAR_W, p, p->quiet10, desc);
    keep(b, 2, m, RD_BAR_W | RD_BAR_Q, p, most_fp, desc);
    keep(b, 3, m, RD_BAR_W, p, most_fp, desc);
    keep(b, 4, m, RD_BAR_W, p, p->quiet10, desc);
}

void rd_bars_config(rd_bars_t *b, const rd_set_t *sets, const rd_sweep_t *sw, rd_ep_t ep,
                    int per_day, const char *desc)
{
    int last_w = -1;
    rd_bar_pt_t edge = {0};
    b->configs++;
    for (int j = 0; j < RD_LADDER; j++) {
        rd_bar_pt_t p = point_at(b, sets, sw, ep, per_day, rd_ladder(j));
        int m = rd_bars_of(b, &p);
        b->points++;
        b->n[m]++;
        if (m & RD_BAR_W) {
            last_w = j;
            edge = p;
        }
        offer(b, &p, desc);
    }
    if (last_w < 0) return;
    /* the edge of W: the strictest budget that still holds it, between last_w and the next */
    double lo = rd_ladder(last_w);
    if (last_w + 1 < RD_LADDER) {
        double hi = rd_ladder(last_w + 1);
        for (int i = 0; i < EDGE_STEPS; i++) {
            double mid = 0.5 * (lo + hi);
            rd_bar_pt_t p = point_at(b, sets, sw, ep, per_day, mid);
            if (rd_bars_of(b, &p) & RD_BAR_W) {
                lo = mid;
                edge = p;
            } else {
                hi = mid;
            }
        }
    }
    int m = rd_bars_of(b, &edge);
    b->edges++;
    b->edge_f += (m & RD_BAR_F) != 0;
    b->edge_q += (m & RD_BAR_Q) != 0;
    offer(b, &edge, desc);
}

/* The ladder points meeting at least the bars in mask. */
static size_t meeting(const rd_bars_t *b, int mask)
{
    size_t n = 0;
    for (int m = 0; m < 16; m++)
        if ((m & mask) == mask) n += b->n[m];
    return n;
}

/* One nearest miss: its budget, configuration and both sets' figures. */
static void print_miss(const char *what, int have, const rd_bar_pt_t *p, const rd_set_t *sets)
{
    if (!have) {
        printf("- %s: no point.\n", what);
        return;
    }
    printf("- %s: %s=%.3g, %s:", what, p->per_day ? "alarms per day" : "rate", pow(10, -p->lg),
           p->desc);
    for (int x = 0; x < 2; x++)
        printf(" %s %.1f / %.1f, %.1f%% found, %.2f false per 1,000 rows;", sets[x].name, p->std[x],
               p->lowfp[x], 100 * p->found[x], p->fp1k[x]);
    printf(" quiet series %.2f per 10 days.\n", p->quiet10);
}

void rd_bars_print(const rd_bars_t *b, const rd_set_t *sets)
{
    printf("\nIssue 45's bars over the whole grid: %zu configurations at %d budgets each (1 in "
           "10 values to 1 in 10 million, or that many alarms a day where the grid's budget "
           "is per day), %zu points. F: at most %.1f false reports per 1,000 rows on each "
           "set; W: at least %.0f%% of windows found on each; Q: at most %.0f report per 10 "
           "days on the series without anomalies of both (%.0f days of rows); S: standard 15 "
           "and low-FP 10 over the windowed Gaussian (%s %.1f / %.1f, %s %.1f / %.1f) and "
           "low-FP at least 40, on each.\n\n",
           b->configs, RD_LADDER, b->points, RD_BAR_FP_1K, 100 * RD_BAR_FOUND, RD_BAR_QUIET_10D,
           b->qdays, sets[0].name, b->wg[0][0], b->wg[0][1], sets[1].name, b->wg[1][0],
           b->wg[1][1]);
    static const struct {
        const char *name;
        int mask;
    } rows[] = {{"S", RD_BAR_S},
                {"F", RD_BAR_F},
                {"W", RD_BAR_W},
                {"Q", RD_BAR_Q},
                {"F and W", RD_BAR_F | RD_BAR_W},
                {"F and Q", RD_BAR_F | RD_BAR_Q},
                {"W and Q", RD_BAR_W | RD_BAR_Q},
                {"S, F and W", RD_BAR_S | RD_BAR_F | RD_BAR_W},
                {"F, W and Q", RD_BAR_F | RD_BAR_W | RD_BAR_Q},
                {"all four", RD_BAR_F | RD_BAR_W | RD_BAR_Q | RD_BAR_S}};
    printf("| bars met (at least) | points |\n|---|---:|\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        printf("| %s | %zu |\n", rows[i].name, meeting(b, rows[i].mask));
    printf("\nAt the edge of W (the strictest budget that still holds it, bisected %d times "
           "between two of the ladder's): %zu configurations hold W somewhere; at that edge "
           "%zu meet F and %zu meet Q.\n",
           EDGE_STEPS, b->edges, b->edge_f, b->edge_q);
    printf("\nThe nearest misses (the ladder's budgets and the edges of W):\n\n");
    static const char *const what[5] = {
        "the most windows found (the worse set) where F and Q hold",
        "the fewest quiet reports where F and W hold",
        "the fewest false reports (the worse set) where W and Q hold",
        "the fewest false reports (the worse set) where W holds",
        "the fewest quiet reports where W holds"};
    for (int i = 0; i < 5; i++) print_miss(what[i], b->have[i], &b->miss[i], sets);
}
