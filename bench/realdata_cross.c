/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_cross.c — choosing the default across two data sets of different character
 * (see realdata_set.h): a configuration is chosen on one set (its threshold swept there)
 * and scored on the other, then the reverse; the default is the configuration whose worse
 * held-out score is best, under the standard profile and under low-FP. A setting that fits
 * one kind of series and not the other loses here, whatever it scores at home. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realdata_bank.h"
#include "realdata_bars.h"
#include "nld_combine.h"
#include "realdata_set.h"


/* The grid: each dimension's values, as the config words write them. RD_GRID_<DIM>
 * (e.g. RD_GRID_ALGO="cusum;cdf-hu") replaces a dimension for exploring; not a result. */
#define DIM_MAX 8
typedef struct dim {
    const char *env, *name;
    int n;
    char v[DIM_MAX][32];
} dim_t;

/* the episode rule's dimensions come last: they need no new bank run */
enum {
    D_ALGO, D_HISTORY, D_RELEARN, D_SEASON, D_FLOOR, D_CALIB, D_SHRINK, D_RECORD, D_JUMP,
    D_RECUR, D_YOUNG,
    D_BUDGET,
    D_HOLDOFF, D_FATIGUE, D_ESCALATE, D_CONFIRM, D_N
};
static dim_t dims[D_N] = {
    {"RD_GRID_ALGO", "algo", 3, {"cusum", "cdf-hu", "cdf-hu,cusum"}},
    {"RD_GRID_HISTORY", "history", 2, {"300", "2000"}},
    {"RD_GRID_RELEARN", "relearn", 1, {"10m"}},
    {"RD_GRID_SEASON", "season", 2, {"off", "1d"}},
    {"RD_GRID_FLOOR", "floor", 2, {"0", "5"}},
    {"RD_GRID_CALIB", "calib", 2, {"0", "1000"}},
    {"RD_GRID_SHRINK", "calib.shrink", 2, {"0", "10"}},
    {"RD_GRID_RECORD", "calib.record", 2, {"0", "6"}},
    {"RD_GRID_JUMP", "jump", 2, {"0", "0.5"}},
    {"RD_GRID_RECUR", "recur", 2, {"0", "3d"}},
    {"RD_GRID_YOUNG", "young", 1, {"300"}},
    /* the threshold per value (threshold=), or per day of the stream (alarms=N/day) */
    {"RD_GRID_BUDGET", "per", 1, {"value", "day"}},
    {"RD_GRID_HOLDOFF", "holdoff", 2, {"1h", "3h"}},
    {"RD_GRID_FATIGUE", "fatigue", 2, {"off", "3d"}},
    {"RD_GRID_ESCALATE", "escalate", 3, {"off", "2", "3"}},
    {"RD_GRID_CONFIRM", "confirm", 2, {"off", "2"}},
};

static void dims_from_env(void)
{
    for (int d = 0; d < D_N; d++) {
        const char *e = getenv(dims[d].env);
        if (!e || !*e) continue;
        dims[d].n = 0;
        while (*e && dims[d].n < DIM_MAX) {
            size_t len = strcspn(e, ";");
            snprintf(dims[d].v[dims[d].n++], sizeof dims[d].v[0], "%.*s", (int)len, e);
            e += len + (e[len] == ';');
        }
    }
}

/* "10m", "1h", "1d" in seconds ("off" and "0" are 0). */
static double secs(const char *t)
{
    char *end;
    double v = strtod(t, &end);
    return v * (*end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? 86400 : 1);
}

typedef struct cfg {
    int i[D_N];
} cfg_t;

static void params_of(const cfg_t *c, nld_params_t *p)
{
    nld_params_default(p);
    nld_algo_parse(dims[D_ALGO].v[c->i[D_ALGO]], &p->algos, NULL);
    p->n = (uint32_t)atoi(dims[D_HISTORY].v[c->i[D_HISTORY]]);
    p->relearn_s = secs(dims[D_RELEARN].v[c->i[D_RELEARN]]);
    p->season_s = secs(dims[D_SEASON].v[c->i[D_SEASON]]);
    p->res_floor = atof(dims[D_FLOOR].v[c->i[D_FLOOR]]);
    p->calib = (uint32_t)atoi(dims[D_CALIB].v[c->i[D_CALIB]]);
    p->calib_shrink = atof(dims[D_SHRINK].v[c->i[D_SHRINK]]);
    p->calib_record = atof(dims[D_RECORD].v[c->i[D_RECORD]]);
    p->jump = atof(dims[D_JUMP].v[c->i[D_JUMP]]);
    p->recur_days = (uint32_t)(secs(dims[D_RECUR].v[c->i[D_RECUR]]) / 86400);
    p->young = (uint32_t)atoi(dims[D_YOUNG].v[c->i[D_YOUNG]]);
    p->admit = 0;
}

static rd_ep_t ep_of(const cfg_t *c)
{
    return (rd_ep_t){(int64_t)(secs(dims[D_HOLDOFF].v[c->i[D_HOLDOFF]]) * 1e6),
                     secs(dims[D_FATIGUE].v[c->i[D_FATIGUE]]),
                     atof(dims[D_ESCALATE].v[c->i[D_ESCALATE]]),
                     atof(dims[D_CONFIRM].v[c->i[D_CONFIRM]]), 0, 0};
}

static void describe(const cfg_t *c, char *out, size_t len)
{
    size_t at = 0;
    for (int d = 0; d < D_N && at < len; d++)
        at += (size_t)snprintf(out + at, len - at, "%s%s=%s", d ? " " : "", dims[d].name,
                               dims[d].v[c->i[d]]);
}

/* The next configuration, the episode rule varying fastest (it needs no new bank run);
 * 0 at the end. */
static int step_cfg(cfg_t *c)
{
    for (int d = D_N - 1; d >= 0; d--) {
        if (++c->i[d] < dims[d].n) return 1;
        c->i[d] = 0;
    }
    return 0;
}

/* calib.shrink and calib.record bound the calibration: without one, every bound is the
 * same run */
static int redundant(const cfg_t *c)
{
    return atoi(dims[D_CALIB].v[c->i[D_CALIB]]) == 0 &&
           (c->i[D_SHRINK] != 0 || c->i[D_RECORD] != 0);
}

static int next_cfg(cfg_t *c)
{
    int more;
    while ((more = step_cfg(c)) && redundant(c)) {
    }
    return more;
}

/* One configuration's scores on both sets (by profile p: 0 standard, 1 low-FP): own[x]
 * at x's best threshold t[x], held[x] = the other set at x's threshold. */
typedef struct cross {
    double own[2][2], held[2][2], t[2][2];
    nab_result_t res[2][2]; /* held-out results */
} cross_t;

static const nab_profile_t *const prof2[2] = {&nab_standard, &nab_low_fp};

/* The chosen configuration at one threshold for both sets, as the default must have one:
 * rate= budgets from 1 in 10 values to 1 in 10 million (finer above 1 in 100, where the
 * weighed defaults' best lie); each set's three profiles, windows found, false reports,
 * and reports per 10 days on its series without anomalies. The rate whose worse standard
 * score is best, and the one whose worse low-FP score is best, are marked, and so is each
 * bar a rate meets (F: false reports on both sets, W: windows found on both, Q: the quiet
 * series of both together). mark: a rate per value shown as a row of its own, in its place
 * (combine=default's; 0: none). */
static void rates(rd_set_t *sets, const char *what, const nld_params_t *pp, rd_ep_t ep,
                  int per_day, double mark, double **sc[2], double **tmp[2])
{
    nld_params_t p = *pp;
    for (int x = 0; x < 2; x++) {
        rd_set_bank(&sets[x], &p, sc[x]);
        if (per_day)
            for (int k = 0; k < sets[x].nser; k++) rd_per_day(&sets[x].ser[k], sc[x][k]);
    }
    enum { NGRID = RD_LADDER, NR = NGRID + 1 };
    nab_result_t r[NR][2][3];
    double budget[NR], worse[NR][2], qday[NR][2], lg[NR];
    size_t quiet[NR][2];
    char bars[NR][4];
    int best[2] = {0, 0}, all = 0, nr = 0, marked = -1;
    for (int j = 0; j < NGRID; j++) { /* -log10 of the budgets, the mark in its place */
        double s = rd_ladder(j);
        if (mark > 0 && marked < 0 && -log10(mark) <= s) {
            marked = nr;
            lg[nr++] = -log10(mark);
        }
        lg[nr++] = s;
    }
    if (mark > 0 && marked < 0) {
        marked = nr;
        lg[nr++] = -log10(mark);
    }
    for (int j = 0; j < nr; j++) {
        double s = lg[j];
        budget[j] = pow(10, -s);
        double t = rd_ladder_threshold(s, per_day);
        for (int x = 0; x < 2; x++) {
            for (int q = 0; q < 3; q++)
                rd_starts_score(&sets[x].corpus, sets[x].ser, sets[x].nser, sc[x], sets[x].fam,
                                NULL, t, ep,
                                q == 0   ? &nab_standard
                                : q == 1 ? &nab_low_fp
                                         : &nab_low_fn,
                                tmp[x], &r[j][x][q]);
            int nq;
            quiet[j][x] = rd_set_quiet(&sets[x], tmp[x], NULL, &nq, &qday[j][x]);
        }
        for (int q = 0; q < 2; q++) {
            worse[j][q] = fmin(r[j][0][q].score, r[j][1][q].score);
            if (worse[j][q] > worse[best[q]][q]) best[q] = j;
        }
        rd_bar_pt_t pt = {.lg = s, .per_day = per_day};
        for (int x = 0; x < 2; x++) {
            const nab_result_t *q = &r[j][x][0];
            pt.fp1k[x] = rd_set_fp_per_1k(&sets[x], q->fp);
            pt.found[x] = q->windows ? (double)q->found / (double)q->windows : 1;
        }
        double qd = qday[j][0] + qday[j][1];
        pt.quiet10 = qd > 0 ? 10.0 * (double)(quiet[j][0] + quiet[j][1]) / qd : NAN;
        int m = rd_bars_of(NULL, &pt);
        snprintf(bars[j], sizeof bars[j], "%s%s%s", m & RD_BAR_F ? "F" : "",
                 m & RD_BAR_W ? "W" : "", m & RD_BAR_Q ? "Q" : "");
        all += (m & (RD_BAR_F | RD_BAR_W | RD_BAR_Q)) == (RD_BAR_F | RD_BAR_W | RD_BAR_Q);
    }
    printf("\n%s at one budget for both sets (%s per %s; * best worse standard score, + best "
           "worse low-FP; bars met: F at most %.1f false reports per 1,000 rows on each set, W "
           "at least %.0f%% of windows found on each, Q at most %.0f report per 10 days on "
           "the series without anomalies of both):\n\n",
           what, per_day ? "alarms" : "rate", per_day ? "day" : "value", RD_BAR_FP_1K,
           100 * RD_BAR_FOUND, RD_BAR_QUIET_10D);
    printf("| budget | bars |");
    for (int x = 0; x < 2; x++)
        printf(" %s: standard | low-FP | low-FN | found | false | FP/1k rows | FP/day | "
               "quiet /10 days |",
               sets[x].name);
    printf("\n|---:|---|");
    for (int x = 0; x < 2; x++) printf("---:|---:|---:|---:|---:|---:|---:|---:|");
    printf("\n");
    for (int j = 0; j < nr; j++) {
        printf("| %.3g%s%s%s | %s |", budget[j], j == marked ? " (the default)" : "",
               j == best[0] ? " *" : "", j == best[1] ? " +" : "", bars[j]);
        for (int x = 0; x < 2; x++) {
            const nab_result_t *q = r[j][x];
            printf(" %.1f | %.1f | %.1f | %.1f%% | %zu | %.2f | %.3f | %.2f |", q[0].score,
                   q[1].score, q[2].score,
                   100.0 * (double)q[0].found / (double)(q[0].windows ? q[0].windows : 1),
                   q[0].fp, rd_set_fp_per_1k(&sets[x], q[0].fp),
                   rd_set_fp_per_day(&sets[x], q[0].fp),
                   qday[j][x] > 0 ? 10.0 * (double)quiet[j][x] / qday[j][x] : 0);
        }
        printf("\n");
    }
    printf("\n%d of the %d budgets meet all three bars.\n", all, nr);
}

/* A configuration that needs a new bank run: both sets' scores under it (per day when its
 * budget is), and their sweeps (sorted candidates, surprises) made again from them. */
static void new_bank(rd_set_t *sets, const cfg_t *c, double **sc[2], rd_sweep_t sw[2])
{
    nld_params_t p;
    params_of(c, &p);
    for (int x = 0; x < 2; x++) {
        rd_set_bank(&sets[x], &p, sc[x]);
        if (!strcmp(dims[D_BUDGET].v[c->i[D_BUDGET]], "day"))
            for (int k = 0; k < sets[x].nser; k++) rd_per_day(&sets[x].ser[k], sc[x][k]);
        rd_sweep_free(&sw[x]);
        rd_set_sweep(&sets[x], sc[x], &sw[x]);
    }
}

/* Both sets' score arrays and scratch of their sizes, and their free. */
static void scores_both(rd_set_t *sets, double **sc[2], double **tmp[2])
{
    for (int x = 0; x < 2; x++) {
        sc[x] = rd_set_scores(&sets[x]);
        tmp[x] = rd_set_scores(&sets[x]);
    }
}

static void scores_both_free(rd_set_t *sets, double **sc[2], double **tmp[2])
{
    for (int x = 0; x < 2; x++) {
        rd_set_scores_free(&sets[x], sc[x]);
        rd_set_scores_free(&sets[x], tmp[x]);
    }
}

/* combine=default's own bank and episode rule at one rate for both sets, then the cross
 * choice's rule on the same bank (rd_default_rates); sc and tmp: both sets' arrays. */
static void default_rates(rd_set_t *sets, double **sc[2], double **tmp[2])
{
    nld_params_t p;
    rd_default_params(&p);
    printf("\ncombine=default has rate=%g, holdoff=%gs, fatigue=%gs, escalate=%g and "
           "confirm=%g.\n",
           NLD_DEFAULT_RATE, NLD_DEFAULT_HOLDOFF_S, NLD_DEFAULT_FATIGUE_S, NLD_DEFAULT_ESCALATE,
           NLD_DEFAULT_CONFIRM);
    rates(sets, "combine=default's bank and episode rule", &p, rd_ep_default(), 0,
          NLD_DEFAULT_RATE, sc, tmp);
    rd_ep_t pick = rd_ep_default();
    pick.hold = 3600000000LL;
    pick.escalate = 0;
    rates(sets, "combine=default's bank with holdoff=1h escalate=off (the cross choice's rule)",
          &p, pick, 0, NLD_DEFAULT_RATE, sc, tmp);
}

void rd_cross_choice(rd_set_t *sets, int nsets)
{
    if (nsets < 2) {
        printf("\nThe cross-set choice needs both data sets; only %s is here.\n",
               nsets ? sets[0].name : "none");
        return;
    }
    double **sc[2], **tmp[2];
    scores_both(sets, sc, tmp);
    dims_from_env();
    cfg_t best = {{0}}, c = {{0}};
    cross_t bx = {0};
    double best_rank = -1e9;
    size_t ncfg = 0;
    rd_sweep_t sw[2] = {{0}};
    rd_bars_t bars;
    rd_bars_init(&bars, sets);
    do {
        if (c.i[D_HOLDOFF] == 0 && c.i[D_FATIGUE] == 0 && c.i[D_ESCALATE] == 0 &&
            c.i[D_CONFIRM] == 0)
            new_bank(sets, &c, sc, sw);
        rd_ep_t ep = ep_of(&c);
        cross_t r;
        ncfg++;
        for (int x = 0; x < 2; x++) {
            double t[2], own[2];
            rd_sweep_best(&sw[x], ep, prof2, 2, t, own);
            for (int q = 0; q < 2; q++) {
                r.t[q][x] = t[q];
                r.own[q][x] = own[q];
            }
        }
        for (int q = 0; q < 2; q++)
            for (int x = 0; x < 2; x++)
                r.held[q][x] = rd_sweep_score(&sw[!x], r.t[q][x], ep, prof2[q], &r.res[q][x]);
        double rank = fmin(r.held[0][0], r.held[0][1]) + fmin(r.held[1][0], r.held[1][1]);
        char d[200];
        describe(&c, d, sizeof d);
        rd_bars_config(&bars, sets, sw, ep, !strcmp(dims[D_BUDGET].v[c.i[D_BUDGET]], "day"),
                       d);
        if (getenv("RD_VERBOSE"))
            fprintf(stderr,
                    "%-70s std: own %5.1f %5.1f held %5.1f %5.1f t %.4f %.4f | lowFP: own %5.1f "
                    "%5.1f held %5.1f %5.1f | rank %.1f | held std: found %.0f%% %.0f%% FP/1k %.2f %.2f\n",
                    d, r.own[0][0], r.own[0][1], r.held[0][0], r.held[0][1], r.t[0][0],
                    r.t[0][1], r.own[1][0], r.own[1][1], r.held[1][0], r.held[1][1], rank,
                    100.0 * r.res[0][1].found / r.res[0][1].windows,
                    100.0 * r.res[0][0].found / r.res[0][0].windows,
                    rd_set_fp_per_1k(&sets[0], r.res[0][1].fp),
                    rd_set_fp_per_1k(&sets[1], r.res[0][0].fp));
        if (rank > best_rank) {
            best_rank = rank;
            best = c;
            bx = r;
        }
    } while (next_cfg(&c));
    for (int x = 0; x < 2; x++) rd_sweep_free(&sw[x]);
    char d[200];
    describe(&best, d, sizeof d);
    printf("\nThe cross-set choice over %zu configurations (algorithm x relearn x season x "
           "floor x calib x calib.shrink x calib.record x jump x recur x young x holdoff x fatigue x escalate x confirm; threshold swept on the set it is chosen on): the best worse "
           "held-out score under the standard profile plus the same under low-FP: %s\n\n",
           ncfg, d);
    printf("| profile | chosen on | threshold | score there | scored on | score there |\n");
    printf("|---|---|---:|---:|---|---:|\n");
    for (int q = 0; q < 2; q++)
        for (int x = 0; x < 2; x++)
            printf("| %s | %s | %.4f | %.1f | %s | %.1f |\n", prof2[q]->name, sets[x].name,
                   bx.t[q][x], bx.own[q][x], sets[!x].name, bx.held[q][x]);
    rd_bars_print(&bars, sets);
    nld_params_t p;
    params_of(&best, &p);
    rates(sets, "The chosen configuration", &p, ep_of(&best),
          !strcmp(dims[D_BUDGET].v[best.i[D_BUDGET]], "day"), 0, sc, tmp);
    default_rates(sets, sc, tmp);
    scores_both_free(sets, sc, tmp);
}

void rd_default_rates(rd_set_t *sets, int nsets)
{
    if (nsets < 2) {
        printf("\nOne budget for both sets needs both data sets; only %s is here.\n",
               nsets ? sets[0].name : "none");
        return;
    }
    double **sc[2], **tmp[2];
    scores_both(sets, sc, tmp);
    default_rates(sets, sc, tmp);
    scores_both_free(sets, sc, tmp);
}
