/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_beat.c — runs of flags on a beat (see nld_beat.h). */
#include "nld_beat.h"

#include <math.h>

void nld_beat_add(nld_beat_t *b, int64_t t)
{
    b->t[b->next] = t;
    b->next = (uint8_t)((b->next + 1) % NLD_BEAT_CAP);
    if (b->n < NLD_BEAT_CAP) b->n++;
}

int nld_beat_on(const nld_beat_t *b, int64_t t, double spacing_s, unsigned need)
{
    double lo = NLD_BEAT_MIN_S;
    if (spacing_s > 0 && spacing_s * NLD_BEAT_SPACINGS > lo) lo = spacing_s * NLD_BEAT_SPACINGS;
    for (unsigned i = 0; i < b->n; i++) {
        double p = (double)(t - b->t[i]) / 1e6; /* a beat of P: a run began one P ago */
        if (p < lo * (1 - NLD_BEAT_TOL) || p > NLD_BEAT_MAX_S * (1 + NLD_BEAT_TOL)) continue;
        unsigned got = 1;
        for (unsigned m = 2; m <= need && got == m - 1; m++) /* ... and one m P ago */
            for (unsigned j = 0; j < b->n; j++)
                if (fabs((double)(t - b->t[j]) / 1e6 - m * p) <= m * NLD_BEAT_TOL * p) {
                    got++;
                    break;
                }
        if (got >= need) return 1;
    }
    return 0;
}
