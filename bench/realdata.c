/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata.c — bench-realdata: nl-detect on real, expert-labelled operations series
 * (../shared/datasets/cloud-monitoring), scored the NAB way (bench/nab.h) for the three
 * profiles, beside the windowed Gaussian anchor in the same run.
 *
 *   bench-realdata [--data DIR] [--tmp DIR] [--quick] [--try WORDS]
 *
 * 1. The table: every series replayed through the detector engine as event lines in event
 *    time (realdata_replay.h): the paper's eight algorithms and the two beyond them (and
 *    cusum with the daily season), each as a per-value score (the best threshold for the
 *    whole corpus) and as the episode starts of its own rule; the combine= presets; the recommended default (combine=default,
 *    a fixed threshold) as nl-detect reports it.
 * 2. The two-fold choice: the folders split in two halves (even and odd in name order); on
 *    each half, every configuration of a small grid declared below is scored (fast, straight
 *    from the algorithm bank: realdata_bank.h) and the best is then scored, with the
 *    threshold chosen there, on the other half. The default must come out of this.
 * --quick: the anchor and the default only. --select: the two-fold choice only. --try WORDS:
 * one stream configuration, every score column it gives (for exploring; not a result).
 * --plot SERIES OUT.svg: one series ("folder/file.csv") with its labels, the default's
 * episodes and the anchor's flags, as SVG.
 * Environment: RD_VERBOSE=1 prints every configuration of the choice on stderr (nested,
 * chosen-half and held-out scores, threshold); with --try, RD_FOLDERS=HOLDOFF (e.g. 1h)
 * breaks that hold-off's starts down by folder.
 *
 * Exits 0 after printing; 2 when the data set is absent or unreadable (the message says). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval_plot.h"
#include "nab.h"
#include "nld_combine.h"
#include "realdata_anchor.h"
#include "realdata_bank.h"
#include "realdata_csv.h"
#include "realdata_replay.h"

#ifndef RD_DEFAULT_DATA
#define RD_DEFAULT_DATA "../shared/datasets/cloud-monitoring"
#endif

static rd_series_t *ser;
static int nser;
static nab_corpus_t corpus;
static const nab_profile_t *const profiles[3] = {&nab_standard, &nab_low_fp, &nab_low_fn};

static double **alloc_scores(void)
{
    double **sc = calloc((size_t)nser, sizeof *sc);
    if (!sc) goto oom;
    for (int k = 0; k < nser; k++)
        if (!(sc[k] = calloc(ser[k].n ? ser[k].n : 1, sizeof(double)))) goto oom;
    return sc;
oom:
    fprintf(stderr, "bench-realdata: out of memory\n");
    exit(1);
}

static void free_scores(double **sc)
{
    for (int k = 0; sc && k < nser; k++) free(sc[k]);
    free(sc);
}

static void header(const char *what)
{
    printf("| %-44s | %8s | %8s | %8s | %10s | %6s |\n", what, "standard", "low-FP", "low-FN",
           "FP/1k rows", "found");
    printf("|%s|---------:|---------:|---------:|-----------:|-------:|\n",
           "----------------------------------------------");
}

static void print_results(const char *label, const nab_result_t r[3])
{
    printf("| %-44s | %8.1f | %8.1f | %8.1f | %10.2f | %5.1f%% |\n", label, r[0].score,
           r[1].score, r[2].score, 1000.0 * (double)r[0].fp / (double)(r[0].rows ? r[0].rows : 1),
           100.0 * (double)r[0].found / (double)(r[0].windows ? r[0].windows : 1));
    fflush(stdout);
}

/* A score column, each profile with its own best threshold for the corpus (or half). */
static double row_swept(const char *label, double *const *sc, const unsigned char *only)
{
    nab_result_t r[3];
    for (int p = 0; p < 3; p++)
        if (nab_score(&corpus, sc, only, profiles[p], &r[p])) {
            fprintf(stderr, "bench-realdata: out of memory\n");
            exit(1);
        }
    print_results(label, r);
    return r[0].score;
}

/* Detections that are what they are (reports, or starts at a fixed threshold). */
static double row_fixed(const char *label, double *const *det, const unsigned char *only)
{
    nab_result_t r[3];
    for (int p = 0; p < 3; p++) nab_score_at(&corpus, det, only, profiles[p], 0.5, &r[p]);
    print_results(label, r);
    return r[0].score;
}

/* Replay every series through one stream configuration; dst[j][k] gets column j. */
static void replay_all(const char *words, const char *const *cols, int ncols, double ***dst,
                       const char *tmp)
{
    for (int k = 0; k < nser; k++) {
        rd_cols_t c;
        char err[512];
        if (rd_replay(&ser[k], words, cols, ncols, tmp, &c, err, sizeof err)) {
            fprintf(stderr, "bench-realdata: %s: %s\n", ser[k].name, err);
            exit(1);
        }
        for (int j = 0; j < ncols; j++) memcpy(dst[j][k], c.v[j], ser[k].n * sizeof(double));
        rd_cols_free(&c);
    }
}

/* One replay with one column: its rows. */
static double **replay_one(const char *words, const char *col, const char *tmp)
{
    double **d = alloc_scores();
    replay_all(words, &col, 1, &d, tmp);
    return d;
}

/* ---- the recommended default ---------------------------------------------------------- */

/* combine=default (nld_combine.h) is what the two-fold procedure below picks (see
 * bench/README.md, "bench-realdata"); the table's per-algorithm rows use its history and
 * relearn. */
#define DEFAULT_WORDS "combine=default"
#define DEFAULT_ALGOS "cusum" /* NLD_DEFAULT_ALGOS by name */
#define DEFAULT_RELEARN_TEXT "10m" /* NLD_DEFAULT_RELEARN(_S) as the grid writes it */
#define DEFAULT_HISTORY NLD_DEFAULT_HISTORY
#define DEFAULT_RELEARN NLD_DEFAULT_RELEARN

/* ---- the grid the two-fold procedure chooses from --------------------------------------- */
static const char *const grid_algos[] = {"cdf-hu",       "msd-hu",        "cusum",
                                         "relent",       "cdf-hu,msd-hu", "cdf-hu,cusum",
                                         "cdf-hu,msd-hu,cusum,relent"};
static const uint32_t grid_history[] = {150, 300, 600};
static const char *const grid_relearn[] = {"1", "2", "5", "10m", "30m", "1h", "2h"}; /* values, or time */
/* the seasonal baseline: off, or a day (its levels weighing about the last four days) */
static const struct {
    const char *text;
    double period_s, alpha;
} grid_season[] = {{"off", 0, 0.25}, {"1d", 86400, 0.25}};
/* hold-offs: negative = that many values (holdoff=N), else event time in usec (holdoff=DUR) */
#define HOUR 3600000000LL
static const int64_t grid_holdoff[] = {0, -3, HOUR, 3 * HOUR, 6 * HOUR};
static const char *const grid_holdoff_text[] = {"0", "3", "1h", "3h", "6h"};
#define NG(a) (sizeof(a) / sizeof(a)[0])

typedef struct choice {
    double train, held, t;
    int a, hi, ri, si, oi;
} choice_t;

static int params_for(const char *algos, uint32_t hist, const char *relearn, size_t season,
                      nld_params_t *p)
{
    nld_params_default(p);
    p->season_s = grid_season[season].period_s;
    p->season_alpha = grid_season[season].alpha;
    p->n = hist;
    char *end;
    double r = strtod(relearn, &end); /* a count of values, or with m / h event time */
    if (*end == 'm' || *end == 'h')
        p->relearn_s = r * (*end == 'm' ? 60 : 3600);
    else
        p->relearn = (uint32_t)r;
    p->admit = 0;
    return nld_algo_parse(algos, &p->algos, NULL);
}

/* How well a configuration's threshold choice carries over inside one training half: for
 * each folder g of the half, the threshold is chosen on the half's other folders and the
 * starts on g are kept; the half is then scored with all of them (nested cross-validation,
 * so that a setting which fits a few folders by luck does not win). */
static double nested_score(double *const *sc, const unsigned char *train, int64_t hold,
                           double **tmp, double **det, unsigned char *rest)
{
    for (int g = 0; g < 64; g++) {
        int any = 0;
        for (int k = 0; k < nser; k++) {
            rest[k] = train[k] && ser[k].folder != g;
            any |= train[k] && ser[k].folder == g;
        }
        if (!any) continue;
        double b, t = rd_best_start_threshold(&corpus, ser, nser, sc, rest, hold, &nab_standard,
                                              tmp, &b);
        for (int k = 0; k < nser; k++)
            if (train[k] && ser[k].folder == g)
                rd_starts_at(sc[k], ser[k].ts, ser[k].n, t, hold, det[k]);
    }
    nab_result_t r;
    nab_score_at(&corpus, det, train, &nab_standard, 0.5, &r);
    return r.score;
}

/* The two-fold choice over the grid; prints each fold's pick and its held-out score. On a
 * half, the configuration with the best nested score is chosen, then its threshold on the
 * whole half; both are scored on the other half. */
static void two_fold(const unsigned char *half[2])
{
    choice_t best[2] = {{-1e9, 0, 0, 0, 0, 0, 0, 0}, {-1e9, 0, 0, 0, 0, 0, 0, 0}}, both = {0};
    double nested_best[2] = {-1e9, -1e9}, both_best = -1e9, both_held[2] = {0, 0}, both_ns[2] = {0, 0}, cur[2][2], both_t[2] = {0, 0};
    double **sc = alloc_scores(), **tmp = alloc_scores(), **det = alloc_scores();
    unsigned char *rest = malloc((size_t)nser);
    for (size_t a = 0; a < NG(grid_algos); a++)
        for (size_t hi = 0; hi < NG(grid_history); hi++)
            for (size_t ri = 0; ri < NG(grid_relearn); ri++)
                for (size_t si = 0; si < NG(grid_season); si++) {
                nld_params_t p;
                params_for(grid_algos[a], grid_history[hi], grid_relearn[ri], si, &p);
                for (int k = 0; k < nser; k++)
                    if (rd_bank_scores(&ser[k], &p, sc[k])) {
                        fprintf(stderr, "bench-realdata: out of memory\n");
                        exit(1);
                    }
                for (size_t oi = 0; oi < NG(grid_holdoff); oi++)
                    for (int f = 0; f < 2; f++) {
                        int64_t hold = grid_holdoff[oi];
                        double ns = nested_score(sc, half[f], hold, tmp, det, rest);
                        double tr, t = rd_best_start_threshold(&corpus, ser, nser, sc, half[f],
                                                               hold, &nab_standard, tmp, &tr);
                        nab_result_t r;
                        double held = rd_starts_score(&corpus, ser, nser, sc, half[!f], t, hold,
                                                      &nab_standard, tmp, &r);
                        if (getenv("RD_VERBOSE"))
                            fprintf(stderr,
                                    "%s h=%u r=%s season=%s o=%s fold=%d nested=%.1f train=%.1f "
                                    "t=%.4f held=%.1f\n",
                                    grid_algos[a], grid_history[hi], grid_relearn[ri],
                                    grid_season[si].text, grid_holdoff_text[oi], f,
                                    ns, tr, t, held);
                        cur[f][0] = ns;
                        cur[f][1] = held;
                        /* the default must mean the same for hourly metrics and 1 s
                         * summaries: its relearn and holdoff are given in event time */
                        int scale_free = strpbrk(grid_relearn[ri], "mh") &&
                                         strchr(grid_holdoff_text[oi], 'h');
                        if (f == 0) both_t[0] = t;
                        if (f == 1 && scale_free && cur[0][0] + cur[1][0] > both_best) {
                            both_t[1] = both_t[0];
                            both_best = cur[0][0] + cur[1][0];
                            both = (choice_t){0, 0, 0, (int)a, (int)hi, (int)ri, (int)si, (int)oi};
                            both_held[0] = cur[1][1]; /* half A, threshold from half B */
                            both_held[1] = cur[0][1];
                            both_ns[0] = cur[0][0];
                            both_ns[1] = cur[1][0];
                        }
                        if (ns <= nested_best[f]) continue;
                        nested_best[f] = ns;
                        best[f] = (choice_t){tr, held, t, (int)a, (int)hi, (int)ri, (int)si, (int)oi};
                    }
            }
    printf("\nTwo-fold choice over %zu configurations (algorithms x history x relearn x "
           "season x holdoff; threshold swept), standard profile: on each half the configuration with "
           "the best nested (leave-one-folder-out) score, its threshold chosen on that half, "
           "then scored on the other half:\n\n",
           NG(grid_algos) * NG(grid_history) * NG(grid_relearn) * NG(grid_season) *
               NG(grid_holdoff));
    printf("| chosen on | configuration | nested | threshold | score there | held-out half |\n");
    printf("|---|---|---:|---:|---:|---:|\n");
    for (int f = 0; f < 2; f++)
        printf("| half %c | algo=%s history=%u relearn=%s season=%s holdoff=%s | %.1f | %.4f | "
               "%.1f | %.1f |\n",
               'A' + f, grid_algos[best[f].a], grid_history[best[f].hi],
               grid_relearn[best[f].ri], grid_season[best[f].si].text,
               grid_holdoff_text[best[f].oi], nested_best[f], best[f].t,
               best[f].train, best[f].held);
    /* its threshold: the best for the whole data set (what combine=default is given) */
    nld_params_t p;
    params_for(grid_algos[both.a], grid_history[both.hi], grid_relearn[both.ri], both.si, &p);
    for (int k = 0; k < nser; k++)
        if (rd_bank_scores(&ser[k], &p, sc[k])) exit(1);
    double whole, t = rd_best_start_threshold(&corpus, ser, nser, sc, NULL,
                                              grid_holdoff[both.oi], &nab_standard, tmp, &whole);
    printf("\nThe default: of the configurations whose relearn and holdoff are event time (so "
           "that it means the same for hourly metrics and 1 s summaries), the best nested score "
           "summed over both halves: algo=%s history=%u relearn=%s season=%s holdoff=%s (nested "
           "%.1f + "
           "%.1f); held out, with the threshold chosen on the other half: half A %.1f, half B "
           "%.1f; threshold chosen on half A %.4f, on the whole data set %.4f (%.1f there); "
           "combine=default has %g (see bench/README.md: the larger loses simulated faults).\n",
           grid_algos[both.a], grid_history[both.hi], grid_relearn[both.ri],
           grid_season[both.si].text, grid_holdoff_text[both.oi], both_ns[0], both_ns[1], both_held[0], both_held[1],
           both_t[1], t, whole, NLD_DEFAULT_THRESHOLD);
    free_scores(sc);
    free_scores(tmp);
    free_scores(det);
    free(rest);
}

/* ---- the whole table ---------------------------------------------------------------- */


static const char *const algo_names[] = {"msd-ss", "msd-su", "msd-hs", "msd-hu", "cdf-ss",
                                         "cdf-su", "cdf-hs", "cdf-hu", "cusum",  "relent"};

/* Each algorithm's per-value score at its own settings: history and relearn chosen on one
 * half (the best score there, threshold swept), scored on the other half with that
 * threshold, and for the table the setting best on both halves together. */
static const uint32_t algo_history[] = {150, 300, 600};
static const char *const algo_relearn[] = {"1", "2", "5", "10", "10m", "1h"};

static void per_algorithm(double **wg, const unsigned char *half[2])
{
    printf("\nPer-value scores (nl-detect --scores), one threshold for the whole corpus; each "
           "algorithm at its own history and relearn (of %zu x %zu), chosen on one half and "
           "scored on the other with the threshold from there:\n\n",
           NG(algo_history), NG(algo_relearn));
    printf("| %-44s | %8s | %8s | %8s | %10s | %6s | %-17s | %7s | %7s |\n", "detector", "standard",
           "low-FP", "low-FN", "FP/1k rows", "found", "setting", "held A", "held B");
    printf("|%s|---------:|---------:|---------:|-----------:|-------:|---|--------:|--------:|\n",
           "----------------------------------------------");
    row_swept("windowed Gaussian (anchor)", wg, NULL);
    double **sc = alloc_scores(), **keep = alloc_scores();
    /* the ten, then the seasonal baseline under the algorithm combine=default uses */
    for (int a = 0; a < 11; a++) {
        const char *algo = a < 10 ? algo_names[a] : DEFAULT_ALGOS;
        size_t season = a < 10 ? 0 : 1;
        double best_sum = -1e9, held[2] = {0, 0};
        uint32_t bh = 0;
        const char *br = "";
        for (size_t hi = 0; hi < NG(algo_history); hi++)
            for (size_t ri = 0; ri < NG(algo_relearn); ri++) {
                nld_params_t p;
                params_for(algo, algo_history[hi], algo_relearn[ri], season, &p);
                for (int k = 0; k < nser; k++)
                    if (rd_bank_scores(&ser[k], &p, sc[k])) exit(1);
                nab_result_t tr[2], ho[2];
                for (int f = 0; f < 2; f++) {
                    if (nab_score(&corpus, sc, half[f], &nab_standard, &tr[f])) exit(1);
                    nab_score_at(&corpus, sc, half[!f], &nab_standard, tr[f].threshold, &ho[f]);
                }
                if (tr[0].score + tr[1].score <= best_sum) continue;
                best_sum = tr[0].score + tr[1].score;
                held[0] = ho[1].score; /* half A with half B's threshold */
                held[1] = ho[0].score;
                bh = algo_history[hi];
                br = algo_relearn[ri];
                for (int k = 0; k < nser; k++) memcpy(keep[k], sc[k], ser[k].n * sizeof(double));
            }
        nab_result_t r[3];
        for (int q = 0; q < 3; q++)
            if (nab_score(&corpus, keep, NULL, profiles[q], &r[q])) exit(1);
        printf("| %-44s | %8.1f | %8.1f | %8.1f | %10.2f | %5.1f%% | history=%u relearn=%s | %7.1f "
               "| %7.1f |\n",
               a < 10 ? algo_names[a] : DEFAULT_ALGOS " season=1d", r[0].score, r[1].score,
               r[2].score, 1000.0 * (double)r[0].fp / (double)(r[0].rows ? r[0].rows : 1),
               100.0 * (double)r[0].found / (double)(r[0].windows ? r[0].windows : 1), bh, br,
               held[0], held[1]);
        fflush(stdout);
    }
    free_scores(sc);
    free_scores(keep);
}

static void table(const char *tmp, double **wg, const unsigned char *half[2])
{
    char words[256];
    per_algorithm(wg, half);
    /* own-rule episode starts of the eight and the two new ones, one replay, the stream
     * defaults as they were */
    const char *cols[10];
    char names[10][24];
    for (int a = 0; a < 10; a++) {
        snprintf(names[a], sizeof names[a], "start.%s", algo_names[a]);
        cols[a] = names[a];
    }
    double **d[10];
    for (int j = 0; j < 10; j++) d[j] = alloc_scores();
    replay_all("algo=all,cusum,relent", cols, 10, d, tmp);
    printf("\nEpisode starts (nl.anomaly.start), each algorithm's own rule (k=2, p=5%%, "
           "cusum.h=5, relent.p=0.001) with the stream defaults (history=300, episode.min=10), "
           "and the combine= presets (holdoff=30):\n\n");
    header("detector");
    for (int a = 0; a < 10; a++) {
        char label[64];
        snprintf(label, sizeof label, "%s starts", algo_names[a]);
        row_fixed(label, d[a], NULL);
    }
    for (int j = 0; j < 10; j++) free_scores(d[j]);
    /* the combine= presets over the paper's eight, as they were chosen on the simulator */
    static const char *const presets[] = {"any", "majority", "all", "shifts", "transients"};
    for (size_t i = 0; i < NG(presets); i++) {
        char col[32], label[64];
        snprintf(words, sizeof words, "combine=%s holdoff=30%s", presets[i],
                 i < 3 ? " algo=all" : "");
        snprintf(col, sizeof col, "start.%s", presets[i]);
        snprintf(label, sizeof label, "combine=%s holdoff=30 starts", presets[i]);
        double **c = replay_one(words, col, tmp);
        row_fixed(label, c, NULL);
        free_scores(c);
    }
    double **old = replay_one("algo=all combine=majority holdoff=30", "start.majority", tmp);
    row_fixed("before: combine=default holdoff=30 (8-majority)", old, NULL);
    free_scores(old);
}

static size_t rows_all(void)
{
    size_t n = 0;
    for (int k = 0; k < nser; k++) n += ser[k].n;
    return n;
}

static int params_for(const char *algos, uint32_t hist, const char *relearn, size_t season,
                      nld_params_t *p);

/* combine=default's bank, as the grid writes it (its season is the grid's "1d" or "off") */
static void default_params(nld_params_t *p)
{
    size_t si = 0;
    for (size_t i = 0; i < NG(grid_season); i++)
        if (grid_season[i].period_s == NLD_DEFAULT_SEASON_S && grid_season[i].alpha == 0.25) si = i;
    params_for(DEFAULT_ALGOS, NLD_DEFAULT_HISTORY, DEFAULT_RELEARN_TEXT, si, p);
}

/* The default as nl-detect reports it, on the whole set and each half. */
static void default_rows(const char *tmp, double **wg, const unsigned char *half[2])
{
    double **st = replay_one(DEFAULT_WORDS, "start.default", tmp);
    double **sc = replay_one(DEFAULT_WORDS, "score.default", tmp);
    printf("\nThe recommended default, `%s` (= algo=%s history=%d relearn=%s season=%gs "
           "threshold=%g holdoff=%gs episode.min=1), as nl-detect reports it, beside the anchor "
           "in the same run:\n\n",
           DEFAULT_WORDS, DEFAULT_ALGOS, NLD_DEFAULT_HISTORY, DEFAULT_RELEARN_TEXT,
           NLD_DEFAULT_SEASON_S, NLD_DEFAULT_THRESHOLD, NLD_DEFAULT_HOLDOFF_S);
    header("detector, series");
    const char *what[3] = {"whole data set", "half A (even folders)", "half B (odd folders)"};
    for (int h = 0; h < 3; h++) {
        const unsigned char *only = h ? half[h - 1] : NULL;
        char label[96];
        snprintf(label, sizeof label, "default: reports, %s", what[h]);
        row_fixed(label, st, only);
        snprintf(label, sizeof label, "default: per-value score, %s", what[h]);
        row_swept(label, sc, only);
        snprintf(label, sizeof label, "windowed Gaussian, %s", what[h]);
        row_swept(label, wg, only);
    }
    /* the fast path used for choosing must be what the engine does: its scores from the
     * bank, and the starts it derives from the engine's scores (out of memory ends the run,
     * so no row goes uncompared) */
    size_t differ = 0, reports = 0, sdiff = 0;
    int64_t hold = (int64_t)(NLD_DEFAULT_HOLDOFF_S * 1e6);
    nld_params_t p;
    default_params(&p);
    double **sim = alloc_scores(), **bank = alloc_scores();
    for (int k = 0; k < nser; k++) {
        rd_starts_at(sc[k], ser[k].ts, ser[k].n, NLD_DEFAULT_THRESHOLD, hold, sim[k]);
        if (rd_bank_scores(&ser[k], &p, bank[k])) {
            fprintf(stderr, "bench-realdata: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < ser[k].n; i++) {
            differ += sim[k][i] != st[k][i];
            reports += st[k][i] != 0;
            sdiff += bank[k][i] != sc[k][i];
        }
    }
    free_scores(sim);
    free_scores(bank);
    double **tmpb = alloc_scores(), bw;
    double bt = rd_best_start_threshold(&corpus, ser, nser, sc, NULL, hold, &nab_standard, tmpb,
                                        &bw);
    free_scores(tmpb);
    printf("\nThe best threshold for these reports on the whole data set: %.4f (%.1f; "
           "combine=default has %g).\n",
           bt, bw, NLD_DEFAULT_THRESHOLD);
    printf("\nThe choosing procedure's fast path against nl-detect: of %zu rows, %zu scores "
           "differ; of nl-detect's %zu reports, %zu rows differ from the starts computed from "
           "its scores.\n",
           rows_all(), sdiff, reports, differ);
    free_scores(st);
    free_scores(sc);
}

/* Spans of the rows whose score reaches t, merged across gaps of at most `hold` usec. */
static size_t spans_of(const rd_series_t *s, const double *sc, double t, int64_t hold,
                       em_span_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!(sc[i] >= t)) continue;
        if (n && s->ts[i] - s->ts[(size_t)out[n - 1].t1 - 1] <= hold)
            out[n - 1].t1 = (double)i + 1;
        else
            out[n++] = (em_span_t){(double)i + 1, (double)i + 1, 0};
    }
    return n;
}

/* --plot NAME OUT.svg: one series, its labelled rows and windows, the default's episodes
 * and the anchor's flagged spans at its best threshold for the corpus. */
static int plot(const char *name, const char *out, double **wg)
{
    int k = 0;
    while (k < nser && strcmp(ser[k].name, name)) k++;
    if (k == nser) {
        fprintf(stderr, "bench-realdata: no series %s\n", name);
        return 2;
    }
    const rd_series_t *s = &ser[k];
    const nab_series_t *ns = &corpus.s[k];
    double *y = malloc(s->n * sizeof *y), *sc = malloc(s->n * sizeof *sc);
    em_span_t *inj = malloc((s->n + ns->nw) * sizeof *inj), *ep[2];
    int *kind = malloc((s->n + ns->nw) * sizeof *kind);
    ep[0] = malloc(s->n * sizeof *ep[0]);
    ep[1] = malloc(s->n * sizeof *ep[1]);
    if (!y || !sc || !inj || !kind || !ep[0] || !ep[1]) return 1;
    size_t ninj = 0;
    for (size_t j = 0; j < ns->nw; j++) {
        inj[ninj] = (em_span_t){(double)ns->w[j].s, (double)ns->w[j].e + 1, 1};
        kind[ninj++] = 2;
    }
    for (size_t i = 0; i < s->n; i++) {
        y[i] = s->v[i];
        if (s->label[i]) {
            inj[ninj] = (em_span_t){(double)i, (double)i + 1, 0};
            kind[ninj++] = 0;
        }
    }
    nld_params_t p;
    default_params(&p);
    if (rd_bank_scores(s, &p, sc)) return 1;
    size_t nep[2];
    int64_t hold = (int64_t)(NLD_DEFAULT_HOLDOFF_S * 1e6);
    nep[0] = spans_of(s, sc, NLD_DEFAULT_THRESHOLD, hold, ep[0]);
    nab_result_t r;
    if (nab_score(&corpus, wg, NULL, &nab_standard, &r)) return 1;
    nep[1] = spans_of(s, wg[k], r.threshold, 0, ep[1]);
    static const char *const kinds[] = {"labelled anomaly", "", "NAB window"};
    static const char *const rows[] = {"nl-detect", "anchor"};
    char title[256];
    snprintf(title, sizeof title,
             "%s: labels and NAB windows; nl-detect combine=default; windowed Gaussian at its "
             "best threshold",
             name);
    const em_span_t *const eps[2] = {ep[0], ep[1]};
    ep_plot_t pl = {title, "value", y, s->n, inj, kind, ninj, kinds, 3, eps, nep, rows, 2,
                    "d", 0, 0};
    /* one tick a day: rows per day from the series' own spacing */
    double step_s = s->n > 1 ? (double)(s->ts[s->n - 1] - s->ts[0]) / 1e6 / (double)(s->n - 1) : 3600;
    pl.per_unit = 86400.0 / (step_s > 0 ? step_s : 3600);
    pl.step = s->n / pl.per_unit > 20 ? 7 : 1;
    int rc = ep_svg(out, &pl);
    /* windows found in this series, each at the threshold used for the picture */
    unsigned char *only = calloc((size_t)nser, 1);
    nab_result_t rd, ra;
    if (!only) return 1;
    only[k] = 1;
    double **one = alloc_scores(), **tmpb = alloc_scores();
    memcpy(one[k], sc, s->n * sizeof *sc);
    rd_starts_score(&corpus, ser, nser, one, only, NLD_DEFAULT_THRESHOLD, hold, &nab_standard,
                    tmpb, &rd);
    nab_score_at(&corpus, wg, only, &nab_standard, r.threshold, &ra);
    free_scores(one);
    free_scores(tmpb);
    free(only);
    printf("plot: %s (%zu nl-detect episodes, %zu anchor spans; windows found after probation: "
           "nl-detect %zu of %zu, anchor %zu)\n",
           out, nep[0], nep[1], rd.found, rd.windows, ra.found);
    free(y);
    free(sc);
    free(inj);
    free(kind);
    free(ep[0]);
    free(ep[1]);
    return rc ? 1 : 0;
}

/* --try: one configuration, every score column it gives. */
static void try_words(const char *words, const char *tmp)
{
    static const char *const all[] = {
        "score.msd-ss", "score.msd-su", "score.msd-hs",   "score.msd-hu", "score.cdf-ss",
        "score.cdf-su", "score.cdf-hs", "score.cdf-hu",   "score.cusum",  "score.relent",
        "score.any",    "score.all",    "score.majority", "score.default"};
    int n = (int)NG(all);
    double **dst[16];
    for (int j = 0; j < n; j++) dst[j] = alloc_scores();
    replay_all(words, all, n, dst, tmp);
    header(words);
    double **tmpb = alloc_scores();
    for (int j = 0; j < n; j++) {
        int any = 0;
        for (int k = 0; k < nser && !any; k++)
            for (size_t i = 0; i < ser[k].n && !any; i++) any = dst[j][k][i] != 0;
        if (!any) continue;
        row_swept(all[j], dst[j], NULL);
        for (size_t q = 0; q < NG(grid_holdoff); q++) {
            double b, t = rd_best_start_threshold(&corpus, ser, nser, dst[j], NULL,
                                                  grid_holdoff[q], &nab_standard, tmpb, &b);
            printf("|   starts holdoff=%-3s threshold=%-10.6g | %8.1f |\n", grid_holdoff_text[q],
                   t, b);
            if (!getenv("RD_FOLDERS") || strcmp(grid_holdoff_text[q], getenv("RD_FOLDERS")))
                continue;
            unsigned char *only = calloc((size_t)nser, 1);
            for (int f = 0; f < 9; f++) {
                for (int k = 0; k < nser; k++) only[k] = ser[k].folder == f;
                nab_result_t r;
                rd_starts_score(&corpus, ser, nser, dst[j], only, t, grid_holdoff[q],
                                &nab_standard, tmpb, &r);
                double bb, bt = rd_best_start_threshold(&corpus, ser, nser, dst[j], only,
                                                        grid_holdoff[q],
                                                        &nab_standard, tmpb, &bb);
                printf("|     folder %d: %6.1f (found %zu/%zu, fp %zu) own best t=%.4f: %.1f\n", f,
                       r.score, r.found, r.windows, r.fp, bt, bb);
            }
            free(only);
        }
    }
    for (int j = 0; j < n; j++) free_scores(dst[j]);
    free_scores(tmpb);
}

int main(int argc, char **argv)
{
    const char *data = RD_DEFAULT_DATA, *tmp = "/tmp", *try = NULL, *plot_name = NULL,
               *plot_out = NULL;
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc)
            data = argv[++i];
        else if (!strcmp(argv[i], "--tmp") && i + 1 < argc)
            tmp = argv[++i];
        else if (!strcmp(argv[i], "--try") && i + 1 < argc)
            try = argv[++i];
        else if (!strcmp(argv[i], "--plot") && i + 2 < argc) {
            plot_name = argv[++i];
            plot_out = argv[++i];
        } else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--select"))
            quick = 2;
        else {
            fprintf(stderr,
                    "usage: bench-realdata [--data DIR] [--tmp DIR] [--quick | --select | --try WORDS |\n"
                    "       --plot SERIES OUT.svg]\n");
            return 2;
        }
    }
    unsetenv("NL_DEST");
    char err[1024];
    int nfold = 0;
    nser = rd_load_dir(data, &ser, &nfold, err, sizeof err);
    if (nser <= 0) {
        fprintf(stderr,
                "bench-realdata: the labelled data set is absent (%s)%s%s; nothing measured\n",
                data, nser < 0 ? ": " : "", nser < 0 ? err : "");
        return 2;
    }
    nab_corpus_init(&corpus);
    size_t rows = 0, empty = 0;
    unsigned char *half[2] = {calloc((size_t)nser, 1), calloc((size_t)nser, 1)};
    for (int k = 0; k < nser; k++) {
        if (nab_corpus_add(&corpus, ser[k].label, ser[k].n)) return 1;
        rows += ser[k].n;
        empty += ser[k].empty;
        half[ser[k].folder % 2][k] = 1;
    }
    size_t scored_w, all_w = nab_corpus_windows(&corpus, &scored_w);
    printf("bench-realdata: %d series in %d folders from %s: %zu rows (%zu empty values: the "
           "last value carried forward), %zu windows, %zu after probation\n",
           nser, nfold, data, rows, empty, all_w, scored_w);
    int rc = 0;
    double **wg = NULL;
    if (try) {
        try_words(try, tmp);
        goto done;
    }
    wg = alloc_scores();
    for (int k = 0; k < nser; k++) {
        double *x = malloc(ser[k].n * sizeof *x), last = 0;
        if (!x) return 1;
        for (size_t i = 0; i < ser[k].n; i++)
            x[i] = isnan(ser[k].v[i]) ? last : (last = ser[k].v[i]);
        if (rd_windowed_gaussian(x, ser[k].n, wg[k])) return 1;
        free(x);
    }
    const unsigned char *halves[2] = {half[0], half[1]};
    if (plot_name) {
        rc = plot(plot_name, plot_out, wg);
    } else if (quick == 2) { /* the choice alone */
        two_fold(halves);
    } else {
        if (!quick) table(tmp, wg, halves);
        default_rows(tmp, wg, halves);
        if (!quick) two_fold(halves);
    }
done:
    free_scores(wg);
    free(half[0]);
    free(half[1]);
    nab_corpus_free(&corpus);
    for (int k = 0; k < nser; k++) rd_series_free(&ser[k]);
    free(ser);
    return rc;
}
