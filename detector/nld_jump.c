/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_jump.c — a flag must be news at the stream's own scale (see nld_jump.h). */
#include "nld_jump.h"

#include <math.h>

void nld_jump_init(nld_jump_t *j) { *j = (nld_jump_t){.t = INT64_MIN}; }

/* The median of the ring's k values (k <= NLD_JUMP_LEVEL): an insertion sort of a copy. */
static double level_of(const nld_jump_t *j, uint32_t k)
{
    double v[NLD_JUMP_LEVEL];
    for (uint32_t i = 0; i < k; i++) {
        double x = j->last[i];
        uint32_t p = i;
        for (; p > 0 && v[p - 1] > x; p--) v[p] = v[p - 1];
        v[p] = x;
    }
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

double nld_jump_step(nld_jump_t *j, double x, int64_t ts_usec, double f, double halflife_s)
{
    if (!isfinite(x)) return 1;
    double jump = j->n ? fabs(x - level_of(j, j->n)) : 0;
    if (ts_usec != INT64_MIN && j->t != INT64_MIN && ts_usec > j->t && halflife_s > 0)
        j->scale *= exp2(-(double)(ts_usec - j->t) / 1e6 / halflife_s);
    if (ts_usec != INT64_MIN) j->t = ts_usec;
    double bar = f * j->scale, w = bar > 0 && jump < bar ? jump / bar : 1;
    if (jump > j->scale) j->scale = jump;
    j->last[j->pos] = x;
    j->pos = (j->pos + 1) % NLD_JUMP_LEVEL;
    if (j->n < NLD_JUMP_LEVEL) j->n++;
    return w;
}
