/* SPDX-License-Identifier: BSD-3-Clause */
/* test_combine.c — combined verdicts on hand-made flag patterns: any, majority, all, a
 * weighted vote, directions, warm-up, presets and their parsing. */
#include <math.h>
#include <string.h>

#include "nl_test.h"
#include "nld_combine.h"

enum { MSD_SS, MSD_SU, MSD_HS, MSD_HU, CDF_SS, CDF_SU, CDF_HS, CDF_HU };

/* Verdicts from a pattern: 'L' low, 'H' high, '.' normal, 'w' warming up; one per algo. */
static void pattern(const char *p, nld_verdict_t v[NLD_ALGOS])
{
    size_t n = strlen(p); /* algorithms beyond the pattern: normal (and not enabled) */
    for (int a = 0; a < NLD_ALGOS; a++) {
        char c = (size_t)a < n ? p[a] : '.';
        v[a] = (nld_verdict_t){.state = c == 'L'   ? NLD_LOW
                                        : c == 'H' ? NLD_HIGH
                                        : c == 'w' ? NLD_WARMUP
                                                   : NLD_NORMAL,
                               .score = c == '.'   ? 0.2
                                        : c == 'w' ? 0
                                                   : 0.9};
    }
}

static int judge(const char *mode, unsigned algos, const char *p, unsigned *agree)
{
    nld_combine_t c;
    unsigned m = algos;
    assert_int_equal(nld_combine_parse(mode, &c, &m, 1), 0);
    nld_verdict_t v[NLD_ALGOS];
    pattern(p, v);
    double score;
    return nld_combine_judge(&c, algos, v, agree, &score);
}

static void test_modes(void **state)
{
    (void)state;
    unsigned ag;
    assert_int_equal(judge("any", NLD_ALL_ALGOS, "...L....", &ag), NLD_LOW);
    assert_int_equal(ag, 1u << MSD_HU);
    assert_int_equal(judge("any", NLD_ALL_ALGOS, "........", &ag), NLD_NORMAL);
    assert_int_equal(judge("majority", NLD_ALL_ALGOS, "LLLL....", &ag), NLD_NORMAL); /* 4 of 8 */
    assert_int_equal(judge("majority", NLD_ALL_ALGOS, "LLLLL...", &ag), NLD_LOW);
    assert_int_equal(ag, 0x1fu);
    assert_int_equal(judge("all", NLD_ALL_ALGOS, "LLLLLLL.", &ag), NLD_NORMAL);
    assert_int_equal(judge("all", NLD_ALL_ALGOS, "HHHHHHHH", &ag), NLD_HIGH);
    /* only the enabled algorithms count: all of msd-ss and cdf-hs */
    unsigned two = 1u << MSD_SS | 1u << CDF_HS;
    assert_int_equal(judge("all", two, "L.....L.", &ag), NLD_LOW);
    assert_int_equal(ag, two);
    /* directions: the larger side decides, and only it agrees */
    assert_int_equal(judge("any", NLD_ALL_ALGOS, "LLLHH...", &ag), NLD_LOW);
    assert_int_equal(ag, 0x7u);
    assert_int_equal(judge("majority", NLD_ALL_ALGOS, "LLLHHHH.", &ag), NLD_NORMAL); /* split */
    /* warming up */
    assert_int_equal(judge("any", NLD_ALL_ALGOS, "wwwwwwww", &ag), NLD_WARMUP);
    assert_int_equal(judge("any", NLD_ALL_ALGOS, "www.wwww", &ag), NLD_NORMAL);
}

static void test_weighted_vote(void **state)
{
    (void)state;
    nld_combine_t c;
    unsigned m = NLD_ALL_ALGOS;
    assert_int_equal(nld_combine_parse("vote", &c, &m, 1), 0);
    const char *bad = NULL;
    assert_int_equal(nld_combine_weights("msd-ss:3,cdf-hs:0", &c, &bad), 0);
    c.quorum = 0.3; /* of a total weight 3 + 6 x 1 + 0 = 9: 2.7 */
    nld_verdict_t v[NLD_ALGOS];
    unsigned ag;
    double score;
    pattern("L.......", v);
    assert_int_equal(nld_combine_judge(&c, m, v, &ag, &score), NLD_LOW); /* 3 >= 2.7 */
    pattern(".LL.....", v);
    assert_int_equal(nld_combine_judge(&c, m, v, &ag, &score), NLD_NORMAL); /* 2 < 2.7 */
    pattern("......L.", v);
    assert_int_equal(nld_combine_judge(&c, m, v, &ag, &score), NLD_NORMAL); /* weight 0 */
    /* the score: weighted mean, 3 x 0.9 + 5 x 0.2 + 0 + 0.2 over 9 */
    pattern("L.......", v);
    nld_combine_judge(&c, m, v, &ag, &score);
    assert_true(fabs(score - (3 * 0.9 + 6 * 0.2) / 9) < 1e-12);
    assert_int_equal(nld_combine_weights("msd-xx:1", &c, &bad), NL_EINVAL);
    assert_int_equal(nld_combine_weights("msd-ss:2,cdf-hs", &c, &bad), NL_EINVAL);
    assert_string_equal(bad, "cdf-hs");
    assert_int_equal(nld_combine_weights("msd-ss:-1", &c, &bad), NL_EINVAL);
}

/* The combined score: any (and default) the largest, all the smallest, a vote the mean. */
static void test_combined_score(void **state)
{
    (void)state;
    static const struct {
        const char *mode;
        double want;
    } cases[] = {{"any", 0.9}, {"default", 0.9}, {"all", 0.2}, {"majority", (0.9 + 3 * 0.2) / 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nld_combine_t c;
        unsigned m = 0xfu; /* msd-ss .. msd-hu */
        assert_int_equal(nld_combine_parse(cases[i].mode, &c, &m, 1), 0);
        nld_verdict_t v[NLD_ALGOS];
        pattern("..H.....", v);
        unsigned ag;
        double score;
        nld_combine_judge(&c, 0xfu, v, &ag, &score);
        if (fabs(score - cases[i].want) > 1e-12)
            fail_msg("%s: score %g, want %g", cases[i].mode, score, cases[i].want);
    }
}

static void test_presets(void **state)
{
    (void)state;
    nld_combine_t c;
    unsigned m = 1u << MSD_HU;
    assert_int_equal(nld_combine_parse("shifts", &c, &m, 0), 0);
    assert_int_equal(m, 1u << MSD_SS | 1u << MSD_SU | 1u << CDF_SS | 1u << CDF_SU);
    m = 1u << MSD_HU;
    assert_int_equal(nld_combine_parse("transients", &c, &m, 1), 0); /* algo= given: kept */
    assert_int_equal(m, 1u << MSD_HU);
    assert_string_equal(c.name, "transients");
    assert_int_equal(nld_combine_parse("often", &c, &m, 0), NL_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_weighted_vote),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_combined_score),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
