/* SPDX-License-Identifier: BSD-3-Clause */
/* eval.c — bench-eval: the paper's detection-quality tables, reproducible. For each
 * scenario of workload.h it writes the summary log and the ground truth, runs the real
 * nl-detect with all eight algorithms over it, reads the anomaly episodes back and scores
 * them per algorithm (eval_match.h): Correct, FP, FN, Badness, precision, recall, which
 * kinds of fault were found, and how much of a lasting fault stayed flagged; --seeds sums
 * several runs. Same seeds, same options: the same tables byte for byte (event time only,
 * no wall clock). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "eval_match.h"
#include "eval_plot.h"
#include "nlkit/nl_bp.h"
#include "workload.h"

#ifndef EVAL_NL_DETECT
#define EVAL_NL_DETECT "nl-detect"
#endif

/* The table's rows: the eight algorithms, then nl-detect's combined verdicts (combine=),
 * each run as a stream of its own over the same values. */
#define NALGO 8
#define NROWS 14
static const char *const algos[NROWS] = {"msd-ss", "msd-su", "msd-hs",     "msd-hu", "cdf-ss",
                                         "cdf-su", "cdf-hs", "cdf-hu",     "any",    "majority",
                                         "all",    "shifts", "transients", "default"};

typedef struct {
    uint64_t seed, seeds;                   /* seeds seed .. seed + seeds - 1 */
    const char *dir, *detect, *only, *plot; /* plot: where Figure 6 SVGs go, or NULL */
    double grace;
    int count_weak;
    char params[512]; /* the stream options given to nl-detect */
} eval_opts_t;

/* What each scenario watches, what its plot shows, and what the paper found on it. */
typedef struct {
    const char *name;
    const char *streams[2][3]; /* watched: name, event glob, value (up to two) */
    const char *paper;
    const char *plot_event, *plot_field, *plot_label; /* the plotted series */
    double plot_scale;
} scen_t;

static const scen_t scens[] = {
    {"xfer-controlled",
     {{"tput", "xfer.network.read", "avgrate"}, {"disk", "xfer.disk.write", "rate"}},
     "paper (Table III): a heuristic-smoothed algorithm has the lowest badness; only the static "
     "ones detect the latency shift",
     "xfer.network.read.summary",
     "v.sum",
     "Mb/s",
     8e-6},
    {"xfer-random",
     {{"tput", "xfer.network.read", "avgrate"}, {"disk", "xfer.disk.write", "rate"}},
     "paper (Table V): CDF-hs best on transient disk/network contention",
     "xfer.network.read.summary",
     "v.sum",
     "Mb/s",
     8e-6},
    {"cpu-job",
     {{"iters", "job.fft", "n"}, {NULL, NULL, NULL}},
     "paper (Table VI): static-smoothed perfect on the steady CPU-bound job",
     "job.fft.summary",
     "n",
     "iter/s",
     1},
};

static int algo_index(const nl_field_t *f)
{
    for (int i = 0; i < NROWS; i++)
        if (nl_field_is(f, algos[i])) return i;
    return -1;
}

/* Run nl-detect -c conf log > out; 0 if it exited 0. */
static int run_detect(const eval_opts_t *o, const char *conf, const char *log, const char *out)
{
    char *const argv[] = {(char *)o->detect, "-c", (char *)conf, (char *)log, NULL};
    return bench_run_to(out, argv);
}

/* Make room for `need` elements of `size` bytes in *p (capacity *cap, doubled as needed).
 * 0, or -1 with *p unchanged when memory is short. */
static int grow(void *p, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    if (c == *cap) return 0;
    void *np = realloc(*(void **)p, c * size);
    if (!np) return -1;
    *(void **)p = np;
    *cap = c;
    return 0;
}

#define NKINDS 5
static const char *const kinds[NKINDS] = {"net-strong", "net-weak", "disk", "latency", "cpu-hog"};
#define K_LATENCY 3

/* The ground truth: spans, and each one's kind (an index into kinds). */
static int read_truth(const char *path, em_span_t **out, int **kind, size_t *n, int *weak)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t cap = 0, kcap = 0;
    *out = NULL;
    *kind = NULL;
    *n = 0;
    *weak = 0;
    long t0, t1;
    char name[32];
    double strength;
    int w;
    while (fscanf(f, "%ld %ld %31s %lf %d", &t0, &t1, name, &strength, &w) == 5) {
        if (grow(out, &cap, *n + 1, sizeof **out) || grow(kind, &kcap, *n + 1, sizeof **kind)) {
            fclose(f);
            return -1;
        }
        int k = 0;
        while (k < NKINDS - 1 && strcmp(kinds[k], name)) k++;
        (*kind)[*n] = k;
        (*out)[(*n)++] = (em_span_t){(double)t0, (double)t1, w};
        *weak += w;
    }
    fclose(f);
    return 0;
}

/* One algorithm's results, summed over seeds. */
typedef struct {
    em_score_t s;
    size_t episodes;
    int found[NKINDS], total[NKINDS]; /* scored injections of each kind, and found */
    double covered;                   /* sum of latency coverage */
    int nlat;
} tally_t;

/* Score one algorithm's episodes of one run into its tally. */
static void tally_run(const eval_opts_t *o, tally_t *t, const em_span_t *inj, const int *kind,
                      size_t ninj, const em_span_t *ep, size_t nep)
{
    em_score_t s;
    em_score(inj, ninj, ep, nep, o->grace, o->count_weak, &s);
    t->s.correct += s.correct;
    t->s.fp += s.fp;
    t->s.fn += s.fn;
    t->s.ep_true += s.ep_true;
    t->s.weak_found += s.weak_found;
    t->episodes += nep;
    for (size_t i = 0; i < ninj; i++) {
        if (inj[i].weak && !o->count_weak) continue;
        em_score(&inj[i], 1, ep, nep, o->grace, 1, &s);
        t->total[kind[i]]++;
        t->found[kind[i]] += s.correct;
        if (kind[i] == K_LATENCY) {
            t->covered += em_coverage(&inj[i], ep, nep, 1.0);
            t->nlat++;
        }
    }
}

/* Episodes per algorithm from nl-detect's nl.anomaly.end lines. */
static int read_episodes(const char *path, em_span_t *ep[NROWS], size_t nep[NROWS])
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t cap[NROWS] = {0};
    nl_rec_t rec;
    nl_rec_init(&rec);
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    long lineno = 0;
    int rc = 0;
    while ((len = getline(&line, &lcap, f)) > 0) {
        lineno++;
        nl_perr_t err;
        if (nl_parse(&rec, line, (size_t)len, lineno, 0, &err) != 1) {
            fprintf(stderr, "bench-eval: %s:%ld:%d: %s\n", path, lineno, err.col, err.msg);
            rc = -1;
            break;
        }
        if (!nl_field_is(&rec.f[rec.i_event], "nl.anomaly.end")) continue;
        const nl_field_t *a = nl_rec_get(&rec, "algo"), *st = nl_rec_get(&rec, "start.ts"),
                         *du = nl_rec_get(&rec, "dur");
        int64_t t0;
        double dur;
        int i = a ? algo_index(a) : -1;
        if (i < 0 || !st || !du || nl_ts_parse(st->value, st->value_len, &t0) ||
            nl_field_double(du, &dur)) {
            fprintf(stderr, "bench-eval: %s:%ld: an anomaly end without algo/start.ts/dur\n", path,
                    lineno);
            rc = -1;
            break;
        }
        if (grow(&ep[i], &cap[i], nep[i] + 1, sizeof *ep[i])) {
            fprintf(stderr, "bench-eval: out of memory reading %s\n", path);
            rc = -1;
            break;
        }
        double s = (double)t0 / 1e6 - (double)WL_T0;
        ep[i][nep[i]++] = (em_span_t){s, s + dur, 0};
    }
    free(line);
    nl_rec_free(&rec);
    fclose(f);
    return rc;
}

/* The plotted series: one value per second of the run, NAN where there is none. */
static double *read_series(const char *path, const scen_t *sc, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 0;
    double *y = NULL;
    *n = 0;
    nl_rec_t rec;
    nl_rec_init(&rec);
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    nl_perr_t err;
    int oom = 0;
    while (!oom && (len = getline(&line, &lcap, f)) > 0) {
        if (nl_parse(&rec, line, (size_t)len, 0, 0, &err) != 1 ||
            !nl_field_is(&rec.f[rec.i_event], sc->plot_event))
            continue;
        const nl_field_t *v = nl_rec_get(&rec, sc->plot_field);
        double x;
        long long i = rec.ts_usec / 1000000 - WL_T0 - 1;
        if (!v || nl_field_double(v, &x) || i < 0 || i > 10 * 86400) continue;
        if ((oom = grow(&y, &cap, (size_t)i + 1, sizeof *y)) != 0) break;
        for (; *n <= (size_t)i; (*n)++) y[*n] = NAN;
        y[i] = x * sc->plot_scale;
    }
    free(line);
    nl_rec_free(&rec);
    fclose(f);
    if (oom) {
        free(y);
        return NULL;
    }
    return y;
}

static void fmt_num(char *out, size_t cap, double v)
{
    if (isnan(v))
        snprintf(out, cap, "-");
    else if (isinf(v))
        snprintf(out, cap, "inf");
    else
        snprintf(out, cap, "%.2f", v);
}

/* The nl-detect configuration: per watched value, one stream with the eight algorithms
 * and one per combined verdict (presets choose their own algorithms). */
static void write_conf(FILE *cf, const scen_t *sc, const char *params)
{
    for (int i = 0; i < 2 && sc->streams[i][0]; i++) {
        const char *const *st = sc->streams[i];
        fprintf(cf, "stream %s event=%s value=%s algo=all %s\n", st[0], st[1], st[2], params);
        for (int r = NALGO; r < NROWS; r++)
            fprintf(cf, "stream %s.%s event=%s value=%s %s combine=%s %s\n", st[0], algos[r], st[1],
                    st[2], r < NALGO + 3 ? "algo=all" : "", algos[r], params);
    }
}

/* Write the scenario's run for one seed, run nl-detect over it and tally the episodes. */
static int eval_seed(const eval_opts_t *o, const scen_t *sc, uint64_t seed, tally_t t[NROWS],
                     size_t *ninj_all, int *weak_all)
{
    char log[4096], truth[4096], conf[4096], out[4096];
    snprintf(log, sizeof log, "%s/%s.log", o->dir, sc->name);
    snprintf(truth, sizeof truth, "%s/%s.truth", o->dir, sc->name);
    snprintf(conf, sizeof conf, "%s/%s.conf", o->dir, sc->name);
    snprintf(out, sizeof out, "%s/%s.anomalies", o->dir, sc->name);
    FILE *lf = fopen(log, "w"), *tf = fopen(truth, "w"), *cf = fopen(conf, "w");
    if (!lf || !tf || !cf) {
        fprintf(stderr, "bench-eval: cannot write in %s: %s\n", o->dir, strerror(errno));
        return -1;
    }
    int rc = wl_write(sc->name, seed, lf, tf);
    write_conf(cf, sc, o->params);
    if (fclose(lf) | fclose(tf) | fclose(cf) || rc) {
        fprintf(stderr, "bench-eval: writing %s failed: %s\n", sc->name, strerror(errno));
        return -1;
    }
    if (run_detect(o, conf, log, out)) {
        fprintf(stderr, "bench-eval: nl-detect failed on %s (configuration %s)\n", log, conf);
        return -1;
    }
    em_span_t *inj = NULL, *ep[NROWS] = {0};
    int *kind = NULL;
    size_t ninj = 0, nep[NROWS] = {0};
    int weak = 0;
    rc = read_truth(truth, &inj, &kind, &ninj, &weak) || read_episodes(out, ep, nep) ? -1 : 0;
    if (!rc && o->plot && seed == o->seed) { /* Figure 6, for the first seed */
        char svg[4096], title[256];
        snprintf(svg, sizeof svg, "%s/%s.svg", o->plot, sc->name);
        snprintf(title, sizeof title,
                 "%s, seed %llu: %s, injected faults, and each algorithm's episodes", sc->name,
                 (unsigned long long)seed, sc->plot_event);
        size_t n = 0;
        double *y = read_series(log, sc, &n);
        const em_span_t *eps[NALGO];
        for (int i = 0; i < NALGO; i++) eps[i] = ep[i];
        ep_plot_t pl = {title, sc->plot_label, y,   n,   inj,   kind, ninj, kinds,
                        NKINDS, eps, nep, algos, 8, NULL, 0, 0};
        if (!y || ep_svg(svg, &pl)) {
            fprintf(stderr, "bench-eval: cannot write %s: %s\n", svg, strerror(errno));
            rc = -1;
        }
        free(y);
    }
    for (int i = 0; i < NROWS; i++) {
        if (!rc) tally_run(o, &t[i], inj, kind, ninj, ep[i], nep[i]);
        free(ep[i]);
    }
    *ninj_all += ninj;
    *weak_all += weak;
    free(inj);
    free(kind);
    return rc;
}

static int eval_scenario(const eval_opts_t *o, const scen_t *sc)
{
    tally_t t[NROWS];
    memset(t, 0, sizeof t);
    size_t ninj = 0;
    int weak = 0;
    for (uint64_t seed = o->seed; seed < o->seed + o->seeds; seed++)
        if (eval_seed(o, sc, seed, t, &ninj, &weak)) return -1;
    if (o->seeds == 1)
        printf("\n%s (seed %llu)", sc->name, (unsigned long long)o->seed);
    else
        printf("\n%s (seeds %llu-%llu, summed)", sc->name, (unsigned long long)o->seed,
               (unsigned long long)(o->seed + o->seeds - 1));
    printf(": %zu injections (%d weak, %s), grace %.0f s\n", ninj, weak,
           o->count_weak ? "counted" : "not counted", o->grace);
    printf("| algo | Correct | FP | FN | Badness | precision | recall | episodes | found, by kind "
           "| latency fault flagged |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
    for (int i = 0; i < NROWS; i++) {
        if (i == NALGO) printf("| *combined (combine=)* | | | | | | | | | |\n");
        char b[16], p[16], r[16], by[256] = "", cov[16] = "-";
        fmt_num(b, sizeof b, em_badness(&t[i].s));
        fmt_num(p, sizeof p, em_precision(&t[i].s));
        fmt_num(r, sizeof r, em_recall(&t[i].s));
        size_t len = 0;
        for (int k = 0; k < NKINDS && len < sizeof by; k++)
            if (t[i].total[k])
                len += (size_t)snprintf(by + len, sizeof by - len, "%s%s %d/%d", len ? ", " : "",
                                        kinds[k], t[i].found[k], t[i].total[k]);
        if (t[i].nlat) snprintf(cov, sizeof cov, "%.0f%%", 100 * t[i].covered / t[i].nlat);
        printf("| %s | %d | %d | %d | %s | %s | %s | %zu | %s | %s |\n", algos[i], t[i].s.correct,
               t[i].s.fp, t[i].s.fn, b, p, r, t[i].episodes, by, cov);
    }
    printf("%s\n", sc->paper);
    return 0;
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: bench-eval [--seed N] [--seeds COUNT] [--dir DIR] [--plot DIR] [--scenario NAME]\n"
        "                  [--grace S] [--count-weak]\n"
        "                  [--nl-detect PATH] [STREAM-OPTION ...]\n"
        "STREAM-OPTIONs go to every nl-detect stream, e.g. k=2.5 p=2%% history=300 min=30\n"
        "alpha=0.2 side=below episode.min=3 (default: nl-detect's own defaults)\n");
}

int main(int argc, char **argv)
{
    eval_opts_t o = {.seed = 1, .seeds = 1, .dir = NULL, .detect = EVAL_NL_DETECT, .grace = 10};
    size_t pl = 0;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--seed") && v)
            o.seed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--seeds") && v)
            o.seeds = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--plot") && v)
            o.plot = argv[++a];
        else if (!strcmp(argv[a], "--dir") && v)
            o.dir = argv[++a];
        else if (!strcmp(argv[a], "--scenario") && v)
            o.only = argv[++a];
        else if (!strcmp(argv[a], "--grace") && v)
            o.grace = atof(argv[++a]);
        else if (!strcmp(argv[a], "--nl-detect") && v)
            o.detect = argv[++a];
        else if (!strcmp(argv[a], "--count-weak"))
            o.count_weak = 1;
        else if (strchr(argv[a], '=') && argv[a][0] != '-' &&
                 pl + strlen(argv[a]) + 2 < sizeof o.params)
            pl += (size_t)sprintf(o.params + pl, "%s%s", pl ? " " : "", argv[a]);
        else {
            usage();
            return 2;
        }
    }
    if (o.seeds < 1 || o.seeds > 1000) {
        usage();
        return 2;
    }
    char tmp[] = "/tmp/nlkit-eval-XXXXXX";
    if (!o.dir && !(o.dir = mkdtemp(tmp))) {
        fprintf(stderr, "bench-eval: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    mkdir(o.dir, 0755);
    fprintf(stderr, "bench-eval: logs, ground truth and nl-detect's output in %s\n", o.dir);
    printf("bench-eval: nl-detect over simulated runs, all eight algorithms; options: %s\n",
           pl ? o.params : "(nl-detect's defaults)");
    int rc = 0, ran = 0;
    for (size_t i = 0; i < sizeof scens / sizeof scens[0]; i++) {
        if (o.only && strcmp(o.only, scens[i].name)) continue;
        ran++;
        if (eval_scenario(&o, &scens[i])) rc = 1;
    }
    if (!ran) {
        fprintf(stderr, "bench-eval: no scenario named %s\n", o.only);
        return 2;
    }
    return rc;
}
