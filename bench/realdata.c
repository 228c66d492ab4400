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
 * breaks that hold-off's starts down by folder; RD_PER_SERIES (set to anything) prints each
 * series' false reports (before and now), the rows from each window's start to its first
 * report ("-": none), and the false reports of each series without anomalies, on stderr;
 * RD_WORDS="combine=default ..." replays those words in the default's place (--quick: a
 * change measured as a user would get it).
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
#include "realdata_set.h"

#ifndef RD_DEFAULT_DATA
#define RD_DEFAULT_DATA "../shared/datasets"
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

static const rd_set_t *cur; /* the set the tables are about (use_set) */

static void header(const char *what)
{
    printf("| %-44s | %8s | %8s | %8s | %6s | %6s | %10s | %8s |\n", what, "standard", "low-FP",
           "low-FN", "found", "false", "FP/1k rows", "FP/day");
    printf("|%s|---------:|---------:|---------:|-------:|-------:|-----------:|---------:|\n",
           "----------------------------------------------");
}

/* One row: the three profiles, then at the standard profile's threshold the windows found,
 * the false reports, per 1,000 scored rows and per day of one stream. */
static void print_results(const char *label, const nab_result_t r[3])
{
    printf("| %-44s | %8.1f | %8.1f | %8.1f | %5.1f%% | %6zu | %10.2f | %8.3f |\n", label,
           r[0].score, r[1].score, r[2].score,
           100.0 * (double)r[0].found / (double)(r[0].windows ? r[0].windows : 1), r[0].fp,
           rd_set_fp_per_1k(cur, r[0].fp), rd_set_fp_per_day(cur, r[0].fp));
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
/* what combine=default was until 2026-11-26, chosen on cloud-monitoring alone */
#define BEFORE_WORDS NLD_BEFORE_WORDS

/* NLD_DEFAULT_ALGOS by name, e.g. "cdf-hu" */
static const char *default_algos(void)
{
    static char text[96];
    size_t n = 0;
    for (int a = 0; a < NLD_ALGOS; a++)
        if (NLD_DEFAULT_ALGOS >> a & 1)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", n ? "," : "",
                                  nld_algo_name(a));
    return text;
}

/* The threshold combine=default's budget means (its rate is per value). */
static double default_thr(void) { return nld_rate_threshold(NLD_DEFAULT_RATE); }

/* hold-offs --try prints: negative = that many values (holdoff=N), else event time in usec */
#define HOUR 3600000000LL
static const int64_t grid_holdoff[] = {0, -3, HOUR, 3 * HOUR, 6 * HOUR};
static const char *const grid_holdoff_text[] = {"0", "3", "1h", "3h", "6h"};
#define NG(a) (sizeof(a) / sizeof(a)[0])

/* A bank's parameters as the tables name them; relearn is a count of values, or with m or
 * h event time; season a period in seconds (0: off). */
static int params_for(const char *algos, uint32_t hist, const char *relearn, double season_s,
                      nld_params_t *p)
{
    nld_params_default(p);
    p->season_s = season_s;
    p->n = hist;
    char *end;
    double r = strtod(relearn, &end);
    if (*end == 'm' || *end == 'h')
        p->relearn_s = r * (*end == 'm' ? 60 : 3600);
    else
        p->relearn = (uint32_t)r;
    p->admit = 0;
    return nld_algo_parse(algos, &p->algos, NULL);
}

/* ---- the whole table ---------------------------------------------------------------- */


static const char *const algo_names[] = {"msd-ss", "msd-su", "msd-hs", "msd-hu", "cdf-ss",
                                         "cdf-su", "cdf-hs", "cdf-hu", "cusum",  "relent"};

/* Each algorithm's per-value score at its own settings: history and relearn chosen on one
 * half (the best score there, threshold swept), scored on the other half with that
 * threshold, and for the table the setting best on both halves together. */
static const uint32_t algo_history[] = {300, 1000};
static const char *const algo_relearn[] = {"5", "10m", "1h"};

static void per_algorithm(double **wg, const unsigned char *half[2])
{
    printf("\nPer-value scores (nl-detect --scores), one threshold for the whole corpus; each "
           "algorithm at its own history and relearn (of %zu x %zu), chosen on one half and "
           "scored on the other with the threshold from there:\n\n",
           NG(algo_history), NG(algo_relearn));
    printf("| %-44s | %8s | %8s | %8s | %6s | %6s | %10s | %8s | setting | held A | held B |\n",
           "detector", "standard", "low-FP", "low-FN", "found", "false", "FP/1k rows", "FP/day");
    printf("|%s|---------:|---------:|---------:|-------:|-------:|-----------:|---------:|---|---:|"
           "---:|\n",
           "----------------------------------------------");
    row_swept("windowed Gaussian (anchor)", wg, NULL);
    double **sc = alloc_scores(), **keep = alloc_scores();
    /* the ten, then the seasonal baseline under the algorithm combine=default uses */
    for (int a = 0; a < 11; a++) {
        const char *algo = a < 10 ? algo_names[a] : default_algos();
        double season = a < 10 ? 0 : NLD_DEFAULT_SEASON_S;
        double best_sum = -1e9, held[2] = {0, 0};
        uint32_t bh = 0;
        const char *br = "";
        for (size_t hi = 0; hi < NG(algo_history); hi++)
            for (size_t ri = 0; ri < NG(algo_relearn); ri++) {
                nld_params_t p;
                params_for(algo, algo_history[hi], algo_relearn[ri], season, &p);
                for (int k = 0; k < nser; k++)
                    if (rd_bank_scores(&ser[k], &p, sc[k], NULL)) exit(1);
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
        printf("| %-44s | %8.1f | %8.1f | %8.1f | %5.1f%% | %6zu | %10.2f | %8.3f | history=%u "
               "relearn=%s | %7.1f | %7.1f |\n",
               a < 10 ? algo_names[a] : "the default's, season=1d", r[0].score, r[1].score,
               r[2].score, 100.0 * (double)r[0].found / (double)(r[0].windows ? r[0].windows : 1),
               r[0].fp, rd_set_fp_per_1k(cur, r[0].fp), rd_set_fp_per_day(cur, r[0].fp), bh, br,
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

/* What combine=default was before 2026-11-26 (BEFORE_WORDS), for the fast path: its
 * bank, threshold and hold-off. */
static void before_params(nld_params_t *p, double *thr, int64_t *hold)
{
    params_for("cusum", 300, "10m", 86400, p);
    *thr = 0.86;
    *hold = 3600000000LL;
}

/* The old default's reports from the fast path (the run checks below that it is what
 * nl-detect reports given BEFORE_WORDS, as it does for the default). */
static double **before_starts(void)
{
    nld_params_t p;
    double thr;
    int64_t hold;
    before_params(&p, &thr, &hold);
    double **sc = alloc_scores(), **st = alloc_scores();
    for (int k = 0; k < nser; k++) {
        if (rd_bank_scores(&ser[k], &p, sc[k], NULL)) {
            fprintf(stderr, "bench-realdata: out of memory\n");
            exit(1);
        }
        rd_starts_at(sc[k], NULL, ser[k].ts, ser[k].n, thr, rd_ep_hold(hold), st[k]);
    }
    free_scores(sc);
    return st;
}

/* A series' episode starts that are false (after probation, outside every window). */
static size_t false_starts(int k, const double *start)
{
    const nab_series_t *ns = &corpus.s[k];
    size_t fp = 0, w = 0;
    for (size_t i = ns->probation; i < ser[k].n; i++) {
        while (w < ns->nw && ns->w[w].e < i) w++;
        if (start[i] != 0 && !(w < ns->nw && ns->w[w].s <= i)) fp++;
    }
    return fp;
}

/* Series k's scored windows with a report, as a string of the first report's offset into
 * each window in rows ("-" for none): where two settings part, for RD_PER_SERIES. */
static void found_in(int k, const double *start, char *out, size_t cap)
{
    const nab_series_t *ns = &corpus.s[k];
    size_t len = 0;
    out[0] = 0;
    for (size_t w = 0; w < ns->nw && len + 12 < cap; w++) {
        if (ns->w[w].e < ns->probation) continue;
        size_t i = ns->w[w].s;
        while (i <= ns->w[w].e && i < ser[k].n && start[i] == 0) i++;
        len += (size_t)(i <= ns->w[w].e && i < ser[k].n
                            ? snprintf(out + len, cap - len, " %zu", i - ns->w[w].s)
                            : snprintf(out + len, cap - len, " -"));
    }
}

/* The series without any labelled anomaly: their false reports per 10 days of rows. */
static void quiet_series(const char *who, double *const *det)
{
    int n;
    double days;
    size_t fp = rd_set_quiet(cur, det, who, &n, &days);
    printf("|   %s, the %d series without anomalies: %zu false reports in %.0f days of rows, "
           "%.2f per 10 days |\n",
           who, n, fp, days, days > 0 ? 10 * (double)fp / days : 0);
}

/* The default as nl-detect reports it, on the whole set and each half. */
static void default_rows(const char *tmp, double **wg, const unsigned char *half[2])
{
    /* one replay through the engine gives both columns */
    double **st = alloc_scores(), **sc = alloc_scores();
    size_t old_reports = 0, old_differ = 0;
    const char *cols[2] = {"start.default", "score.default"};
    double **both[2] = {st, sc};
    /* RD_WORDS: other words in the default's place, for trying a change as a user gets it */
    const char *words = getenv("RD_WORDS") ? getenv("RD_WORDS") : DEFAULT_WORDS;
    replay_all(words, cols, 2, both, tmp);
    printf("\nThe recommended default, `%s` (= algo=%s history=%d relearn=%gs season=%gs "
           "floor=%g calib=%u calib.shrink=%g calib.record=%g jump=%g recur=%ud rate=%g "
           "(threshold %.4f) holdoff=%gs fatigue=%gs escalate=%g confirm=%g episode.min=10 "
           "episode.for=10s clear=30s: one flag a run at these spacings), "
           "as nl-detect reports it, beside the anchor and the default before 2026-11-26 (`%s`) "
           "in the same run:\n\n",
           words, default_algos(), NLD_DEFAULT_HISTORY, NLD_DEFAULT_RELEARN_S,
           NLD_DEFAULT_SEASON_S, NLD_DEFAULT_FLOOR, NLD_DEFAULT_CALIB, NLD_DEFAULT_CALIB_SHRINK,
           NLD_DEFAULT_CALIB_RECORD, NLD_DEFAULT_JUMP, NLD_DEFAULT_RECUR_DAYS, NLD_DEFAULT_RATE,
           default_thr(),
           NLD_DEFAULT_HOLDOFF_S, NLD_DEFAULT_FATIGUE_S, NLD_DEFAULT_ESCALATE, NLD_DEFAULT_CONFIRM,
           BEFORE_WORDS);
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
        if (!h) {
            double **old = before_starts();
            /* the old default's fast path against the engine given BEFORE_WORDS */
            double **eng = replay_one(BEFORE_WORDS, "start.default", tmp);
            for (int k = 0; k < nser; k++)
                for (size_t i = 0; i < ser[k].n; i++) {
                    old_reports += eng[k][i] != 0;
                    old_differ += (eng[k][i] != 0) != (old[k][i] != 0);
                }
            free_scores(eng);
            row_fixed("before: reports, whole data set", old, NULL);
            quiet_series("before", old);
            if (getenv("RD_PER_SERIES"))
                for (int k = 0; k < nser; k++) {
                    char found[256];
                    found_in(k, st[k], found, sizeof found);
                    fprintf(stderr, "%s: false reports before %zu, now %zu; windows:%s\n",
                            ser[k].name, false_starts(k, old[k]), false_starts(k, st[k]), found);
                }
            free_scores(old);
            quiet_series("default", st);
        }
    }
    /* the fast path used for choosing must be what the engine does: its scores from the
     * bank, and the starts it derives from the engine's scores (out of memory ends the run,
     * so no row goes uncompared) */
    size_t differ = 0, reports = 0, sdiff = 0;
    nld_params_t p;
    rd_default_params(&p);
    double **sim = alloc_scores(), **bank = alloc_scores();
    unsigned char **fam = calloc((size_t)nser, sizeof *fam);
    if (!fam) {
        fprintf(stderr, "bench-realdata: out of memory\n");
        exit(1);
    }
    for (int k = 0; k < nser; k++) {
        /* which spikes are familiar the engine does not write: the bank says, on the
         * scores it gives (sdiff counts any that differ) */
        fam[k] = malloc(ser[k].n ? ser[k].n : 1);
        if (!fam[k] || rd_bank_scores(&ser[k], &p, bank[k], fam[k])) {
            fprintf(stderr, "bench-realdata: out of memory\n");
            exit(1);
        }
        rd_starts_at(sc[k], fam[k], ser[k].ts, ser[k].n, default_thr(), rd_ep_default(), sim[k]);
        for (size_t i = 0; i < ser[k].n; i++) {
            differ += sim[k][i] != st[k][i];
            reports += st[k][i] != 0;
            sdiff += bank[k][i] != sc[k][i];
        }
    }
    free_scores(sim);
    free_scores(bank);
    double bw;
    double bt = rd_best_start_threshold(&corpus, ser, nser, sc, fam, NULL, rd_ep_default(),
                                        &nab_standard, &bw);
    for (int k = 0; k < nser; k++) free(fam[k]);
    free(fam);
    printf("\nThe best threshold for these reports on the whole data set: %.4f (%.1f; "
           "combine=default's budget means %.4f).\n",
           bt, bw, default_thr());
    printf("\nThe choosing procedure's fast path against nl-detect: of %zu rows, %zu scores "
           "differ; of nl-detect's %zu reports, %zu rows differ from the starts computed from "
           "its scores.\n",
           rows_all(), sdiff, reports, differ);
    printf("\nThe default before 2026-11-26 from the fast path against nl-detect given its words: "
           "of nl-detect's %zu reports, %zu rows differ.\n",
           old_reports, old_differ);
    free_scores(st);
    free_scores(sc);
}

/* Spans of the rows whose score reaches t, merged across gaps of at most `hold` usec; a
 * span begins only where a report starts (start[i] != 0, or any row when start is NULL),
 * so flags that did not clear fatigue='s bar draw nothing. */
static size_t spans_of(const rd_series_t *s, const double *sc, const double *start, double t,
                       int64_t hold, em_span_t *out)
{
    size_t n = 0;
    int open = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!(sc[i] >= t)) continue;
        if (open && s->ts[i] - s->ts[(size_t)out[n - 1].t1 - 1] <= hold && !(start && start[i]))
            out[n - 1].t1 = (double)i + 1;
        else if ((open = !start || start[i] != 0))
            out[n++] = (em_span_t){(double)i + 1, (double)i + 1, 0};
    }
    return n;
}

/* --plot NAME OUT.svg: one series, its labelled rows and windows, the default's episodes
 * now and before 2026-11-26, and the anchor's flagged spans at its best threshold for the
 * corpus; then each one's windows found and false reports on that series. */
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
    double *y = malloc(s->n * sizeof *y), **sc = alloc_scores(), **st = alloc_scores();
    em_span_t *inj = malloc((s->n + ns->nw) * sizeof *inj), *ep[3];
    int *kind = malloc((s->n + ns->nw) * sizeof *kind);
    for (int j = 0; j < 3; j++) ep[j] = malloc(s->n * sizeof *ep[j]);
    if (!y || !inj || !kind || !ep[0] || !ep[1] || !ep[2]) return 1;
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
    /* now and before: the bank's scores, their thresholds and hold-offs */
    nld_params_t p[2];
    double thr[2] = {default_thr(), 0};
    int64_t hold[2] = {(int64_t)(NLD_DEFAULT_HOLDOFF_S * 1e6), 0};
    rd_default_params(&p[0]);
    before_params(&p[1], &thr[1], &hold[1]);
    size_t nep[3], found[3], fp[3];
    unsigned char *only = calloc((size_t)nser, 1);
    if (!only) return 1;
    only[k] = 1;
    for (int j = 0; j < 2; j++) {
        if (rd_bank_scores(s, &p[j], sc[k], NULL)) return 1;
        nab_result_t r;
        rd_starts_score(&corpus, ser, nser, sc, NULL, only, thr[j],
                        j ? rd_ep_hold(hold[j]) : rd_ep_default(), &nab_standard, st, &r);
        nep[j] = spans_of(s, sc[k], st[k], thr[j], hold[j], ep[j]);
        found[j] = r.found;
        fp[j] = false_starts(k, st[k]);
    }
    nab_result_t ra, r;
    if (nab_score(&corpus, wg, NULL, &nab_standard, &r)) return 1;
    nep[2] = spans_of(s, wg[k], NULL, r.threshold, 0, ep[2]);
    nab_score_at(&corpus, wg, only, &nab_standard, r.threshold, &ra);
    found[2] = ra.found;
    fp[2] = ra.fp;
    static const char *const kinds[] = {"labelled anomaly", "", "NAB window"};
    static const char *const rows[] = {"nl-detect now", "before", "anchor"};
    char title[256];
    snprintf(title, sizeof title,
             "%s: labels and NAB windows; nl-detect combine=default now and before 2026-11-26; "
             "windowed Gaussian at its best threshold",
             name);
    const em_span_t *const eps[3] = {ep[0], ep[1], ep[2]};
    ep_plot_t pl = {title, "value", y, s->n, inj, kind, ninj, kinds, 3, eps, nep, rows, 3,
                    "d", 0, 0};
    /* one tick a day: rows per day from the series' own spacing */
    double step_s = s->n > 1 ? (double)(s->ts[s->n - 1] - s->ts[0]) / 1e6 / (double)(s->n - 1) : 3600;
    pl.per_unit = 86400.0 / (step_s > 0 ? step_s : 3600);
    pl.step = s->n / pl.per_unit > 20 ? 7 : 1;
    int rc = ep_svg(out, &pl);
    printf("plot: %s; of %zu windows after probation found, and false reports (anchor: false "
           "flagged rows): now %zu, %zu; before %zu, %zu; anchor %zu, %zu\n",
           out, ra.windows, found[0], fp[0], found[1], fp[1], found[2], fp[2]);
    free(only);
    free_scores(sc);
    free_scores(st);
    free(y);
    free(inj);
    free(kind);
    for (int j = 0; j < 3; j++) free(ep[j]);
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
            double b, t = rd_best_start_threshold(&corpus, ser, nser, dst[j], NULL, NULL,
                                                  rd_ep_hold(grid_holdoff[q]), &nab_standard,
                                                  &b);
            printf("|   starts holdoff=%-3s threshold=%-10.6g | %8.1f |\n", grid_holdoff_text[q],
                   t, b);
            if (!getenv("RD_FOLDERS") || strcmp(grid_holdoff_text[q], getenv("RD_FOLDERS")))
                continue;
            unsigned char *only = calloc((size_t)nser, 1);
            for (int f = 0; f < 9; f++) {
                for (int k = 0; k < nser; k++) only[k] = ser[k].folder == f;
                nab_result_t r;
                rd_starts_score(&corpus, ser, nser, dst[j], NULL, only, t,
                                rd_ep_hold(grid_holdoff[q]), &nab_standard, tmpb, &r);
                double bb, bt = rd_best_start_threshold(&corpus, ser, nser, dst[j], NULL, only,
                                                        rd_ep_hold(grid_holdoff[q]),
                                                        &nab_standard, &bb);
                printf("|     folder %d: %6.1f (found %zu/%zu, fp %zu) own best t=%.4f: %.1f\n", f,
                       r.score, r.found, r.windows, r.fp, bt, bb);
            }
            free(only);
        }
    }
    for (int j = 0; j < n; j++) free_scores(dst[j]);
    free_scores(tmpb);
}

/* The globals the tables read, pointed at one set. */
static void use_set(const rd_set_t *set)
{
    cur = set;
    ser = set->ser;
    nser = set->nser;
    corpus = set->corpus;
}

int main(int argc, char **argv)
{
    const char *dirs[2] = {NULL, NULL}, *tmp = "/tmp", *try = NULL, *plot_name = NULL,
               *plot_out = NULL;
    int quick = 0, ndirs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc && ndirs < 2)
            dirs[ndirs++] = argv[++i];
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
        else if (!strcmp(argv[i], "--rates"))
            quick = 3;
        else {
            fprintf(stderr,
                    "usage: bench-realdata [--data DIR [--data DIR]] [--tmp DIR]\n"
                    "       [--quick | --select | --rates | --try WORDS | --plot SERIES OUT.svg]\n");
            return 2;
        }
    }
    if (!ndirs) {
        dirs[ndirs++] = RD_DEFAULT_DATA "/cloud-monitoring";
        dirs[ndirs++] = RD_DEFAULT_DATA "/server-asd";
    }
    unsetenv("NL_DEST");
    rd_set_t sets[2];
    int nsets = 0;
    for (int i = 0; i < ndirs; i++) {
        char err[1024] = "";
        int got = rd_set_load(&sets[nsets], dirs[i], err, sizeof err);
        if (got < 0) {
            fprintf(stderr, "bench-realdata: %s: %s\n", dirs[i], err);
            return 2;
        }
        if (!got) {
            fprintf(stderr, "bench-realdata: the labelled data set %s is absent; not measured\n",
                    dirs[i]);
            continue;
        }
        rd_set_t *st = &sets[nsets++];
        printf("bench-realdata: %s: %d series in %d %s: %zu rows (%zu after probation, %.0f "
               "stream-days; %zu empty values: the last value carried forward), %zu windows, "
               "%zu after probation\n",
               dirs[i], st->nser, st->nfold, rd_is_asd(dirs[i]) ? "servers" : "folders",
               st->rows, st->scored, st->scored_days, st->empty,
               nab_corpus_windows(&st->corpus, &st->scored_w), st->scored_w);
    }
    if (!nsets) {
        fprintf(stderr, "bench-realdata: no labelled data set found; nothing measured\n");
        return 2;
    }
    int rc = 0, plotted = 0;
    for (int x = 0; x < nsets && !rc; x++) {
        const rd_set_t *st = &sets[x];
        use_set(st);
        unsigned char *half[2] = {calloc((size_t)nser, 1), calloc((size_t)nser, 1)};
        if (!half[0] || !half[1]) return 1;
        for (int k = 0; k < nser; k++) half[ser[k].folder % 2][k] = 1;
        const unsigned char *halves[2] = {half[0], half[1]};
        if (try) {
            printf("\n## %s\n\n", st->name);
            try_words(try, tmp);
        } else if (plot_name) {
            int k = 0;
            while (k < nser && strcmp(ser[k].name, plot_name)) k++;
            if (k < nser) {
                rc = plot(plot_name, plot_out, st->wg);
                plotted = 1;
            } else if (x == nsets - 1 && !plotted) {
                fprintf(stderr, "bench-realdata: no series %s\n", plot_name);
                rc = 2;
            }
        } else if (quick < 2) {
            printf("\n## %s\n", st->name);
            if (!quick) table(tmp, st->wg, halves);
            default_rows(tmp, st->wg, halves);
        }
        free(half[0]);
        free(half[1]);
    }
    if (!try && !plot_name && (quick == 0 || quick == 2)) rd_cross_choice(sets, nsets);
    if (quick == 3) rd_default_rates(sets, nsets);
    for (int x = 0; x < nsets; x++) rd_set_free(&sets[x]);
    return rc;
}
