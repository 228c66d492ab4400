/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_combine.c — combined verdicts over several algorithms (see nld_combine.h). */
#include "nld_combine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"

#define STATIC_FAMILY 0x33u /* msd-ss msd-su cdf-ss cdf-su */
#define HEUR_SMOOTHED 0x44u /* msd-hs cdf-hs */

static const struct {
    const char *name;
    unsigned algos; /* 0: keep the stream's */
    double quorum;
    int strict;
} modes[] = {
    {"any", 0, 0, 1},
    {"majority", 0, 0.5, 1},
    {"all", 0, 1, 0},
    {"vote", 0, 0.5, 0},
    {"shifts", STATIC_FAMILY, 0, 1},
    {"transients", HEUR_SMOOTHED, 0, 1},
    {"default", NLD_DEFAULT_ALGOS, 0, 1},
};

int nld_combine_parse(const char *spec, nld_combine_t *c, unsigned *algos, int algos_given)
{
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(spec, modes[i].name)) continue;
        c->on = 1;
        snprintf(c->name, sizeof c->name, "%s", spec);
        for (int a = 0; a < NLD_ALGOS; a++) c->weight[a] = 1;
        c->quorum = modes[i].quorum;
        c->strict = modes[i].strict;
        if (modes[i].algos && !algos_given) *algos = modes[i].algos;
        return 0;
    }
    return NL_EINVAL;
}

int nld_combine_weights(const char *list, nld_combine_t *c, const char **bad)
{
    const char *s = list;
    while (*s) {
        const char *colon = strchr(s, ':');
        int a = -1;
        for (int i = 0; i < NLD_ALGOS && colon; i++)
            if ((size_t)(colon - s) == strlen(nld_algo_name(i)) &&
                !strncmp(s, nld_algo_name(i), (size_t)(colon - s)))
                a = i;
        char *end = NULL;
        double w = a >= 0 ? strtod(colon + 1, &end) : -1;
        if (a < 0 || !end || end == colon + 1 || (*end && *end != ',') || !(w >= 0) || w > 1e6) {
            *bad = s;
            return NL_EINVAL;
        }
        c->weight[a] = w;
        s = *end ? end + 1 : end;
    }
    return 0;
}

int nld_combine_judge(const nld_combine_t *c, unsigned algos, const nld_verdict_t *v,
                      unsigned *agree, double *score)
{
    double total = 0, low = 0, high = 0, ssum = 0, smax = 0, smin = 1;
    unsigned lo_m = 0, hi_m = 0;
    int warm = 1;
    for (int a = 0; a < NLD_ALGOS; a++) {
        if (!(algos >> a & 1)) continue;
        double w = c->weight[a];
        total += w;
        ssum += w * v[a].score;
        smax = fmax(smax, v[a].score);
        smin = fmin(smin, v[a].score);
        if (v[a].state != NLD_WARMUP) warm = 0;
        if (v[a].state == NLD_LOW) low += w, lo_m |= 1u << a;
        if (v[a].state == NLD_HIGH) high += w, hi_m |= 1u << a;
    }
    /* any (and default, an "any" of its algorithms): as anomalous as the most surprised
     * algorithm; all: as the least; a vote: the weighted mean */
    *score = !strcmp(c->name, "any") || !strcmp(c->name, "default") ? smax
             : !strcmp(c->name, "all")                              ? (total > 0 ? smin : 0)
             : total > 0                                            ? ssum / total
                                                                    : 0;
    int dir = low >= high ? NLD_LOW : NLD_HIGH;
    double got = dir == NLD_LOW ? low : high;
    *agree = dir == NLD_LOW ? lo_m : hi_m;
    if (warm) return NLD_WARMUP;
    int pass = got > 0 && (c->strict ? got > c->quorum * total : got >= c->quorum * total);
    return pass ? dir : NLD_NORMAL;
}

int nld_combine_familiar(unsigned algos, const nld_verdict_t *v)
{
    int fam = 0;
    double top = -1;
    for (int a = 0; a < NLD_ALGOS; a++)
        if ((algos >> a & 1) && v[a].score > top) {
            top = v[a].score;
            fam = v[a].familiar;
        }
    return fam;
}
