/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nlb.c — nl-bottleneck's rule (bottleneck/nlb.h) on hand-made stage times: each
 * verdict, the margin's edge, what one endpoint alone can and cannot tell, bad data, and
 * the stage names. */
#include <math.h>
#include <string.h>

#include "nl_test.h"
#include "nlb.h"

/* A transfer with the four stage times (seconds; NAN: not seen). */
static nlb_xfer_t xfer(double dr, double nw, double nr, double dw)
{
    nlb_xfer_t x;
    memset(&x, 0, sizeof x);
    double t[NLB_STAGES] = {dr, nw, nr, dw};
    for (int k = 0; k < NLB_STAGES; k++)
        if (!isnan(t[k])) nlb_add(&x, k, t[k], 1e6, 4);
    return x;
}

static const char *verdict(nlb_xfer_t x, double margin, double *m, unsigned *missing)
{
    nlb_verdict_t v;
    nlb_judge(&x, margin, 3, &v);
    if (m) *m = v.margin;
    if (missing) *missing = v.missing;
    return v.name;
}

static void test_each_verdict(void **state)
{
    (void)state;
    double m;
    /* a slow receiving disk: the sender waits in network.write */
    assert_string_equal(verdict(xfer(0.01, 0.60, 0.01, 0.64), 0.2, &m, NULL), "disk.write");
    assert_true(fabs(m - 63) < 1e-9);
    /* a slow sending disk: the receiver waits in network.read */
    assert_string_equal(verdict(xfer(0.64, 0.01, 0.63, 0.01), 0.2, &m, NULL), "disk.read");
    assert_true(fabs(m - 63) < 1e-9);
    /* a slow link: both ends wait on the network; the margin is the smaller end's */
    assert_string_equal(verdict(xfer(0.01, 0.64, 0.50, 0.02), 0.2, &m, NULL), "network");
    assert_true(fabs(m - 24) < 1e-9);
    /* nothing clearly slower: bound by something else */
    assert_string_equal(verdict(xfer(0.10, 0.11, 0.10, 0.11), 0.2, &m, NULL), "none");
    assert_true(isnan(m));
    /* both disks slow: the one that leans harder */
    assert_string_equal(verdict(xfer(0.9, 0.1, 0.2, 0.8), 0.2, NULL, NULL), "disk.read");
}

static void test_margin_edge(void **state)
{
    (void)state;
    /* 25 % more time in disk.write: slower at a 20 % margin, not at 30 % */
    assert_string_equal(verdict(xfer(0.1, 0.1, 0.4, 0.5), 0.2, NULL, NULL), "disk.write");
    assert_string_equal(verdict(xfer(0.1, 0.1, 0.4, 0.5), 0.3, NULL, NULL), "none");
    /* exactly at the margin is not "clearly" */
    assert_string_equal(verdict(xfer(0.1, 0.1, 0.5, 0.6), 0.2, NULL, NULL), "none");
}

static void test_one_endpoint(void **state)
{
    (void)state;
    unsigned missing;
    /* the sender alone can tell a slow sending disk */
    assert_string_equal(verdict(xfer(0.6, 0.01, NAN, NAN), 0.2, NULL, &missing), "disk.read");
    assert_int_equal(missing, 1u << NLB_NET_READ | 1u << NLB_DISK_WRITE);
    /* but not a slow link from a slow receiving disk: both keep it waiting in network.write */
    assert_string_equal(verdict(xfer(0.01, 0.6, NAN, NAN), 0.2, NULL, &missing), "missing data");
    /* the receiver alone can tell a slow receiving disk */
    assert_string_equal(verdict(xfer(NAN, NAN, 0.01, 0.6), 0.2, NULL, NULL), "disk.write");
    assert_string_equal(verdict(xfer(NAN, NAN, 0.6, 0.01), 0.2, NULL, NULL), "missing data");
    /* a stage seen with no time at all still counts as seen */
    assert_string_equal(verdict(xfer(0, 0.6, 0.6, 0), 0.2, NULL, &missing), "network");
    assert_int_equal(missing, 0);
}

/* A stage seen in fewer pairs than asked for does not count: the sliver of a transfer at
 * an interval's edge (one last disk read, no network write) says nothing. */
static void test_min_pairs(void **state)
{
    (void)state;
    nlb_xfer_t x;
    memset(&x, 0, sizeof x);
    nlb_add(&x, NLB_DISK_READ, 0.005, 0, 1);
    nlb_add(&x, NLB_NET_WRITE, 0.001, 262144, 1);
    nlb_add(&x, NLB_NET_READ, 0.2, 262144 * 8, 8);
    nlb_add(&x, NLB_DISK_WRITE, 0.01, 262144 * 8, 8);
    nlb_verdict_t v;
    nlb_judge(&x, 0.2, 3, &v);
    assert_string_equal(v.name, "missing data");
    assert_int_equal(v.missing, 1u << NLB_DISK_READ | 1u << NLB_NET_WRITE);
    nlb_judge(&x, 0.2, 1, &v);
    assert_string_equal(v.name, "disk.read");
}

static void test_bad_data(void **state)
{
    (void)state;
    nlb_xfer_t x = xfer(0.01, 0.6, 0.6, 0.01);
    nlb_add(&x, NLB_DISK_WRITE, -0.5, 0, 1);
    assert_string_equal(verdict(x, 0.2, NULL, NULL), "bad data");
    x = xfer(0.01, 0.6, 0.6, 0.01);
    nlb_add(&x, NLB_NET_READ, NAN, 0, 1); /* a summary without dur.sum */
    assert_string_equal(verdict(x, 0.2, NULL, NULL), "bad data");
}

static void test_stage_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int stage;
    } cases[] = {{"disk.read", NLB_DISK_READ},
                 {"gridftp.disk.write", NLB_DISK_WRITE},
                 {"xfer.network.read", NLB_NET_READ},
                 {"network.write", NLB_NET_WRITE},
                 {"mydisk.read", -1},
                 {"disk.reader", -1},
                 {".disk.read", NLB_DISK_READ},
                 {"read", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (nlb_stage_of(cases[i].name, strlen(cases[i].name)) != cases[i].stage)
            fail_msg("%s: not stage %d", cases[i].name, cases[i].stage);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_verdict), cmocka_unit_test(test_margin_edge),
        cmocka_unit_test(test_one_endpoint), cmocka_unit_test(test_bad_data),
        cmocka_unit_test(test_min_pairs),    cmocka_unit_test(test_stage_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
