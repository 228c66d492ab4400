/* SPDX-License-Identifier: BSD-3-Clause */
/* live.c — bench-live: what an operator gets from nl-detect on a service summarized each
 * second (tests/t_live.h): for each scenario and seed, the reports in the healthy hours,
 * how long after a fault's onset the first report came, whether its episode ended while the
 * fault lasted, and how long after the fault's end it did.
 *
 *   bench-live [--hours H] [--seeds N] [--on S] [--len S] [CONFIG-LINE ...]
 *   bench-live --lines KIND SEED [--hours H] [--on S] [--len S]
 *   bench-live --quiet DAYS [--seeds N] [WORDS]
 *
 * --quiet: bench-quiet's kinds of healthy series (tests/t_kinds.h) at one value a second,
 * through the engine with a stream of WORDS (default: combine=default), reports a day after
 * a first day of learning; bench-quiet itself measures a row a minute and slower.
 *
 * The second form writes scenario KIND's (0-7, in the order of the table) summary lines to
 * standard output instead, to feed nl-detect itself.
 *
 * Each CONFIG-LINE is one nl-detect configuration (default: the three streams the docs
 * recommend, with nothing but their names, events and values). The faults begin at `--on`
 * seconds (default 3 h) and last `--len` (60 s); the run lasts `--hours` (6; the daily cycle
 * 3 days). Exits 0 after printing, 2 on bad arguments or configuration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_run.h"
#include "nld.h"
#include "t_kinds.h"

/* --quiet: the kinds of bench-quiet (tests/t_kinds.h) at one value a second */
enum { LQ_NOISE, LQ_HEAVY, LQ_BURSTY, LQ_QUANTISED, LQ_CYCLE, LQ_LOGCYCLE, LQ_SPIKE, LQ_KINDS };
static const char *const lq_names[LQ_KINDS] = {
    "white noise", "heavy tails (Student t, 3 df)", "bursty counts",
    "quantised, runs of equal values", "daily cycle, 7h13m", "multiplicative daily cycle",
    "a spike a day, random times"};

static double lq_unit(uint64_t *rs)
{
    *rs ^= *rs << 13, *rs ^= *rs >> 7, *rs ^= *rs << 17;
    return ((double)(*rs >> 11) + 0.5) / 9007199254740992.0;
}

static void lq_count(void *ctx, const nld_report_t *r)
{
    if (r->kind == NLD_R_ANOMALY && r->phase == NLD_R_START) ++*(long *)ctx;
}

/* Reports a day of one stream of `words` on kind k at 1 s for `days`, after a day's
 * learning (bench-quiet's probation is 15% of the rows, at most 750: at 1 s, 12.5 min;
 * a day here, as a live service's first day); -1 on a configuration error. */
static double lq_reports_per_day(const char *words, int k, double days, uint64_t seed)
{
    char conf[1024], err[256], line[256];
    snprintf(conf, sizeof conf, "stream q event=q value=value %s\n", words);
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    if (nld_cfg_parse(&cfg, conf, "bench-live", err, sizeof err)) {
        fprintf(stderr, "bench-live: %s\n", err);
        nld_cfg_free(&cfg);
        return -1;
    }
    nl_log_t *out = nl_open("/dev/null");
    long starts = 0, learning_starts = 0;
    nld_opts_t o = {.diag = stderr, .diag_max = 3, .report = lq_count, .report_ctx = &starts};
    nld_t *d = out ? nld_new(&cfg, out, &o, err, sizeof err) : NULL;
    if (!d) {
        fprintf(stderr, "bench-live: %s\n", out ? err : "cannot open /dev/null");
        if (out) nl_close(out);
        nld_cfg_free(&cfg);
        return -1;
    }
    uint64_t rs = seed * 0x9E3779B97F4A7C15ULL + 7;
    double state = 0;
    long secs = (long)((days + 1) * 86400);
    for (long s = 0; s < secs; s++) {
        if (s == 86400) learning_starts = starts;
        double hours = s / 3600.0, x = 0;
        switch (k) {
        case LQ_NOISE: x = t_kinds_noise(lq_unit, &rs); break;
        case LQ_HEAVY: x = t_kinds_heavy(lq_unit, &rs); break;
        case LQ_BURSTY: x = t_kinds_bursty(lq_unit, &rs); break;
        case LQ_QUANTISED: x = t_kinds_quantised(lq_unit, &rs, &state); break;
        case LQ_CYCLE: x = t_kinds_cycle(lq_unit, &rs, hours); break;
        case LQ_LOGCYCLE: x = t_kinds_logcycle(lq_unit, &rs, hours); break;
        case LQ_SPIKE: x = t_kinds_spike(lq_unit, &rs, 86400); break;
        }
        nl_buf_t b;
        nl_buf_init(&b, line, sizeof line);
        nl_enc_begin(&b, T_LIVE_EPOCH + (int64_t)s * 1000000, "q", NL_LVL_INFO, NULL);
        nl_enc_dbl(&b, "value", x);
        if (nl_enc_end(&b) == 0) nld_line(d, b.p, b.len, "quiet", s + 1);
        nl_buf_free(&b);
    }
    nld_finish(d);
    nld_free(d);
    nl_close(out);
    nld_cfg_free(&cfg);
    return (double)(starts - learning_starts) / days;
}

/* The table of --quiet: reports a day per stream on each kind, the mean over the seeds. */
static int lq_table(const char *words, double days, int seeds)
{
    printf("\n`%s`, one value a second, %g days after a day of learning, %d seed(s):\n\n", words,
           days, seeds);
    printf("| series | reports a day |\n|---|---:|\n");
    for (int k = 0; k < LQ_KINDS; k++) {
        double sum = 0;
        for (int s = 1; s <= seeds; s++) {
            double r = lq_reports_per_day(words, k, days, (uint64_t)s);
            if (r < 0) return -1;
            sum += r;
        }
        printf("| %s | %.2f |\n", lq_names[k], sum / seeds);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    double hours = 6;
    int seeds = 3;
    long on = 3 * 3600, len = 60;
    const char *confs[16];
    int nconf = 0, lines_kind = -1;
    double quiet_days = 0;
    uint64_t lines_seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hours") && i + 1 < argc)
            hours = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--on") && i + 1 < argc)
            on = atol(argv[++i]);
        else if (!strcmp(argv[i], "--len") && i + 1 < argc)
            len = atol(argv[++i]);
        else if (!strcmp(argv[i], "--quiet") && i + 1 < argc)
            quiet_days = atof(argv[++i]);
        else if (!strcmp(argv[i], "--lines") && i + 2 < argc) {
            lines_kind = atoi(argv[++i]);
            lines_seed = strtoull(argv[++i], NULL, 10);
        } else if (argv[i][0] != '-' && nconf < 16)
            confs[nconf++] = argv[i];
        else {
            fprintf(stderr, "usage: bench-live [--hours H] [--seeds N] [--on S] [--len S] "
                            "[CONFIG-LINE ...]\n       bench-live --lines KIND SEED | --quiet DAYS "
                            "[--seeds N] [WORDS]\n");
            return 2;
        }
    }
    if (!(hours > 0) || seeds < 1 || on < 1 || len < 1) {
        fprintf(stderr, "bench-live: bad --hours, --seeds, --on or --len\n");
        return 2;
    }
    if (quiet_days > 0)
        return lq_table(nconf ? confs[0] : "combine=default", quiet_days, seeds) ? 2 : 0;
    if (lines_kind >= 0) {
        if (lines_kind >= T_LIVE_KINDS) {
            fprintf(stderr, "bench-live: --lines KIND is 0 to %d\n", T_LIVE_KINDS - 1);
            return 2;
        }
        long secs = lines_kind == T_LIVE_DAILY ? 3 * 86400 : (long)(hours * 3600);
        t_live_t g;
        t_live_init(&g, lines_kind, secs, on, len, lines_seed);
        char line[1024];
        for (long s = 0; s < secs; s++) {
            size_t n = t_live_line(&g, s, line, sizeof line);
            if (n && fwrite(line, 1, n, stdout) != n) return 1;
        }
        return 0;
    }
    if (!nconf) confs[nconf++] = LIVE_DEFAULT_CONF;
    for (int c = 0; c < nconf; c++) {
        printf("\nconfiguration:\n%s\n", confs[c]);
        printf("| scenario | seed | reports before onset | first report after onset (s) | "
               "ended during fault | end after fault (s) | reports after | open at end |\n");
        printf("|---|---:|---:|---:|---|---:|---:|---:|\n");
        for (int k = 0; k < T_LIVE_KINDS; k++)
            for (int s = 1; s <= seeds; s++) {
                long secs = (long)(hours * 3600);
                if (k == T_LIVE_DAILY) secs = 3 * 86400;
                live_result_t r;
                char err[256];
                if (live_run(confs[c], k, secs, on, len, (uint64_t)s, &r, err, sizeof err)) {
                    fprintf(stderr, "bench-live: %s\n", err);
                    return 2;
                }
                printf("| %s | %d | %d | %s | %s | %s | %d | %d |\n", t_live_names[k], s,
                       r.before, live_fmt_delay(r.first_after), r.ended_during ? "yes" : "no",
                       live_fmt_delay(r.end_after), r.after, r.open_at_end);
            }
    }
    return 0;
}
