/* realdata.c — bench-realdata: nl-detect on real, expert-labelled operations series
 * (../shared/datasets/cloud-monitoring), scored the NAB way (bench/nab.h) for the three
 * profiles, beside the windowed Gaussian anchor. Every series is replayed through the
 * detector engine as event lines in event time (realdata_replay.h).
 *
 *   bench-realdata [--data DIR] [--tmp DIR]
 *
 * Exits 0 after printing the table; 2 when the data set is absent or unreadable. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nab.h"
#include "realdata_anchor.h"
#include "realdata_csv.h"
#include "realdata_replay.h"

#ifndef RD_DEFAULT_DATA
#define RD_DEFAULT_DATA "../shared/datasets/cloud-monitoring"
#endif

typedef struct row {
    char label[64];
    double **score; /* per series */
} row_t;

static rd_series_t *ser;
static int nser;
static nab_corpus_t corpus;

static double **alloc_scores(void)
{
    double **sc = calloc((size_t)nser, sizeof *sc);
    for (int k = 0; sc && k < nser; k++)
        if (!(sc[k] = calloc(ser[k].n ? ser[k].n : 1, sizeof(double)))) return NULL;
    return sc;
}

static void print_row(const char *label, double *const *sc, const unsigned char *only)
{
    nab_result_t r[3];
    const nab_profile_t *prof[3] = {&nab_standard, &nab_low_fp, &nab_low_fn};
    for (int p = 0; p < 3; p++)
        if (nab_score(&corpus, sc, only, prof[p], &r[p])) {
            fprintf(stderr, "bench-realdata: out of memory\n");
            exit(1);
        }
    printf("| %-34s | %8.1f | %8.1f | %8.1f | %9.2f | %5.1f%% |\n", label, r[0].score,
           r[1].score, r[2].score, 1000.0 * (double)r[0].fp / (double)(r[0].rows ? r[0].rows : 1),
           100.0 * (double)r[0].found / (double)(r[0].windows ? r[0].windows : 1));
    fflush(stdout);
}

static void header(void)
{
    printf("| %-34s | %8s | %8s | %8s | %9s | %6s |\n", "detector", "standard", "low-FP",
           "low-FN", "FP/1k rows", "found");
    printf("|%s|---------:|---------:|---------:|----------:|-------:|\n",
           "------------------------------------");
}

/* Replay every series through one stream configuration and copy the named columns into
 * per-series score arrays (dst[c][k][row]). */
static int replay_all(const char *words, const char *const *cols, int ncols, double ***dst,
                      const char *tmp)
{
    for (int k = 0; k < nser; k++) {
        rd_cols_t c;
        char err[512];
        if (rd_replay(&ser[k], words, cols, ncols, tmp, &c, err, sizeof err)) {
            fprintf(stderr, "bench-realdata: %s: %s\n", ser[k].name, err);
            return -1;
        }
        for (int j = 0; j < ncols; j++) memcpy(dst[j][k], c.v[j], ser[k].n * sizeof(double));
        rd_cols_free(&c);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *data = RD_DEFAULT_DATA, *tmp = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--data") && i + 1 < argc)
            data = argv[++i];
        else if (!strcmp(argv[i], "--tmp") && i + 1 < argc)
            tmp = argv[++i];
        else {
            fprintf(stderr, "usage: bench-realdata [--data DIR] [--tmp DIR]\n");
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
    for (int k = 0; k < nser; k++) {
        if (nab_corpus_add(&corpus, ser[k].label, ser[k].n)) return 1;
        rows += ser[k].n;
        empty += ser[k].empty;
    }
    size_t scored_w, all_w = nab_corpus_windows(&corpus, &scored_w);
    printf("bench-realdata: %d series in %d folders from %s: %zu rows (%zu empty values carried "
           "forward), %zu windows, %zu after probation\n\n",
           nser, nfold, data, rows, empty, all_w, scored_w);

    header();
    double **wg = alloc_scores();
    for (int k = 0; k < nser; k++) {
        double *x = malloc(ser[k].n * sizeof *x), last = 0;
        for (size_t i = 0; i < ser[k].n; i++) x[i] = isnan(ser[k].v[i]) ? last : (last = ser[k].v[i]);
        rd_windowed_gaussian(x, ser[k].n, wg[k]);
        free(x);
    }
    print_row("windowed Gaussian (anchor)", wg, NULL);

    static const char *const cols[] = {
        "score.msd-ss", "score.msd-su", "score.msd-hs", "score.msd-hu", "score.cdf-ss",
        "score.cdf-su", "score.cdf-hs", "score.cdf-hu", "start.msd-ss", "start.msd-su",
        "start.msd-hs", "start.msd-hu", "start.cdf-ss", "start.cdf-su", "start.cdf-hs",
        "start.cdf-hu"};
    double **dst[16];
    for (int j = 0; j < 16; j++) dst[j] = alloc_scores();
    if (replay_all("algo=all", cols, 16, dst, tmp)) return 1;
    for (int j = 0; j < 16; j++) {
        char label[64];
        snprintf(label, sizeof label, "%s %s", cols[j] + 6, j < 8 ? "score" : "episode starts");
        print_row(label, dst[j], NULL);
    }
    static const char *const ccols[] = {"start.default"};
    double **cd[1] = {alloc_scores()};
    if (replay_all("combine=default holdoff=30", ccols, 1, cd, tmp)) return 1;
    print_row("combine=default holdoff=30 starts", cd[0], NULL);
    return 0;
}
