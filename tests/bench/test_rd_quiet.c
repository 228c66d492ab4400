/* SPDX-License-Identifier: BSD-3-Clause */
/* test_rd_quiet.c — bench-realdata's count on the series without anomalies
 * (rd_set_quiet, bench/realdata_set.c): only those series, only after probation, and their
 * days of rows from their own times. */
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "realdata_set.h"

#define ROWS 1000 /* probation: 150 rows */

static void test_quiet_counts(void **state)
{
    (void)state;
    rd_set_t set;
    memset(&set, 0, sizeof set);
    set.nser = 3;
    set.ser = calloc(3, sizeof *set.ser);
    assert_non_null(set.ser);
    nab_corpus_init(&set.corpus);
    double *det[3];
    for (int k = 0; k < 3; k++) {
        rd_series_t *s = &set.ser[k];
        s->n = ROWS;
        s->name = (char *)"quiet";
        s->ts = malloc(ROWS * sizeof *s->ts);
        s->label = calloc(ROWS, 1);
        det[k] = calloc(ROWS, sizeof *det[k]);
        assert_non_null(s->ts);
        assert_non_null(s->label);
        assert_non_null(det[k]);
        /* series 2 has a value an hour, the others one every 5 minutes */
        for (size_t i = 0; i < ROWS; i++) s->ts[i] = (int64_t)i * (k == 2 ? 3600 : 300) * 1000000;
        det[k][10] = 1;  /* in probation: not counted */
        det[k][400] = 1; /* counted where the series has no window */
        det[k][401] = 1;
    }
    set.ser[1].label[600] = 1; /* series 1 has an anomaly: none of its reports count */
    for (int k = 0; k < 3; k++)
        assert_int_equal(nab_corpus_add(&set.corpus, set.ser[k].label, ROWS), 0);
    assert_int_equal(set.corpus.s[0].probation, 150);
    int nq = -1;
    double days = -1;
    assert_int_equal(rd_set_quiet(&set, det, NULL, &nq, &days), 4);
    assert_int_equal(nq, 2);
    double want = (double)(ROWS - 1 - 150) * (300 + 3600) / 86400;
    assert_true(days > want - 1e-9 && days < want + 1e-9);
    /* no report at all */
    for (int k = 0; k < 3; k++) memset(det[k], 0, ROWS * sizeof *det[k]);
    assert_int_equal(rd_set_quiet(&set, det, NULL, &nq, &days), 0);
    assert_int_equal(nq, 2);
    nab_corpus_free(&set.corpus);
    for (int k = 0; k < 3; k++) {
        free(set.ser[k].ts);
        free(set.ser[k].label);
        free(det[k]);
    }
    free(set.ser);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_quiet_counts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
