/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ep_engine.c — the benchmarks' episode rule (ep_row in bench/realdata_bank.c, which
 * bench-realdata's choice and bench-quiet count reports with) held to nl-detect's engine:
 * generated series of several kinds and spacings go through the engine with the config a
 * user writes (rd_replay: `combine=default`, scores on), and the starts rd_starts_at
 * derives from the engine's own scores must be the engine's starts, row for row. A change
 * to the engine's episode life (nld_keyed.c) that the fast path does not follow, or the
 * reverse, fails here and not only in a benchmark's printout. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_test.h"
#include "nld_combine.h"
#include "realdata_bank.h"
#include "realdata_replay.h"
#include "t_kinds.h"

#define T0 1577836800000000LL /* 2020-01-01T00:00:00Z */

/* kind k's value at row i (time of day h): white noise, bursty counts, quantised runs, a
 * spike a day, a level that shifts every 2 days, a job every 11 hours that lasts three
 * rows (every sixth one skipped: the beat of beat= holds some, breaks, holds again) */
static double value(int k, uint64_t *rs, double *state, size_t i, double per_day)
{
    switch (k) {
    case 0: return t_kinds_noise(t_unit, rs);
    case 1: return t_kinds_bursty(t_unit, rs);
    case 2: return t_kinds_quantised(t_unit, rs, state);
    case 3: return t_kinds_spike(t_unit, rs, per_day);
    case 5: {
        size_t beat = (size_t)(per_day * 11 / 24); /* out of step with the day (recur=) */
        return t_kinds_noise(t_unit, rs) + (i % beat < 3 && (i / beat) % 6 != 5 ? 60 : 0);
    }
    default: return t_kinds_noise(t_unit, rs) + 40 * (double)((size_t)((double)i / (2 * per_day)) % 2);
    }
}

static void test_fast_path_is_engine(void **state)
{
    (void)state;
    static const int64_t spacing[] = {60000000LL, 300000000LL, 3600000000LL};
    static const double days[] = {6, 20, 120};
    const char *want[2] = {"start.default", "score.default"};
    size_t reports = 0, rows_all = 0;
    char tmp[] = "/tmp/nlkit-ep-XXXXXX", err[256] = "";
    assert_non_null(mkdtemp(tmp));
    for (int sp = 0; sp < 3; sp++)
        for (int k = 0; k < 6; k++) {
            double per_day = 86400e6 / (double)spacing[sp], level = 0;
            rd_series_t s = {.name = (char *)"generated"};
            s.n = (size_t)(days[sp] * per_day);
            s.ts = malloc(s.n * sizeof *s.ts);
            s.v = malloc(s.n * sizeof *s.v);
            s.label = calloc(s.n, 1);
            assert_true(s.ts && s.v && s.label);
            uint64_t rs = 77 + (uint64_t)(10 * sp + k);
            for (size_t i = 0; i < s.n; i++) {
                s.ts[i] = T0 + (int64_t)i * spacing[sp];
                s.v[i] = value(k, &rs, &level, i, per_day);
            }
            rd_cols_t c;
            if (rd_replay(&s, "combine=default", want, 2, tmp, &c, err, sizeof err))
                fail_msg("replay: %s", err);
            double *start = rd_col(&c, "start.default"), *score = rd_col(&c, "score.default");
            double *sim = calloc(s.n, sizeof *sim), *off = calloc(s.n, sizeof *off);
            rd_ep_t nobeat = rd_ep_default();
            nobeat.beat = 0;
            assert_true(start && score && sim && off);
            /* the familiar spikes, which the engine does not write: from the bank, whose
             * scores must then be the engine's */
            double *bank = calloc(s.n, sizeof *bank);
            unsigned char *fam = calloc(s.n, 1);
            nld_params_t p;
            rd_default_params(&p);
            assert_true(bank && fam);
            assert_int_equal(rd_bank_scores(&s, &p, bank, fam), 0);
            for (size_t i = 0; i < s.n; i++)
                if (bank[i] != score[i])
                    fail_msg("spacing %lld s, kind %d, row %zu: engine score %.17g, bank %.17g",
                             (long long)(spacing[sp] / 1000000), k, i, score[i], bank[i]);
            rd_starts_at(score, fam, s.ts, s.n, nld_rate_threshold(NLD_DEFAULT_RATE),
                         rd_ep_default(), sim);
            rd_starts_at(score, fam, s.ts, s.n, nld_rate_threshold(NLD_DEFAULT_RATE), nobeat, off);
            free(bank);
            free(fam);
            size_t held = 0;
            for (size_t i = 0; i < s.n; i++) {
                held += off[i] != 0 && sim[i] == 0;
                if ((sim[i] != 0) != (start[i] != 0))
                    fail_msg("spacing %lld s, kind %d, row %zu: engine %g, fast path %g",
                             (long long)(spacing[sp] / 1000000), k, i, start[i], sim[i]);
                reports += start[i] != 0;
            }
            /* the jobs on their beat are held, not paged (hourly, 3 rows in 11 are the
             * stream's normal: no flags to hold; at a row a minute the runs of three flags
             * are persistent, and confirm= holds most of them before beat= sees them) */
            if (k == 5 && sp == 1 && held < 3)
                fail_msg("spacing %lld s: beat=2 held %zu of the jobs' reports",
                         (long long)(spacing[sp] / 1000000), held);
            rows_all += s.n;
            free(off);
            free(sim);
            rd_cols_free(&c);
            free(s.ts);
            free(s.v);
            free(s.label);
        }
    rmdir(tmp);
    /* not a comparison of silences: the series raise reports */
    if (reports < 20) fail_msg("only %zu reports in %zu rows", reports, rows_all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fast_path_is_engine)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
