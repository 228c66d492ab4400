/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_jump.c — a flag must be news at the stream's own scale (see nld_jump.h). */
#include "nld_jump.h"

#include <math.h>

void nld_jump_init(nld_jump_t *j) { *j = (nld_jump_t){.t = INT64_MIN}; }

/* The median of the ring's k values (k <= NLD_JUMP_LEVEL): with all five, a network of
 * seven compare-exchanges (minsd/maxsd, no branch to mispredict: an insertion sort cost
 * as much as the rest of the bank's extra work); while filling, an insertion sort. */
#define NLD_CX(a, b)                      \
    do {                                  \
        double lo_ = a < b ? a : b;       \
        double hi_ = a < b ? b : a;       \
        a = lo_;                          \
        b = hi_;                          \
    } while (0)

static double level_of(const nld_jump_t *j, uint32_t k)
{
    double v[NLD_JUMP_LEVEL];
    if (k == NLD_JUMP_LEVEL) {
        double a = j->last[0], b = j->last[1], c = j->last[2], d = j->last[3], e = j->last[4];
        NLD_CX(a, b);
        NLD_CX(d, e);
        NLD_CX(a, d);
        NLD_CX(b, e);
        NLD_CX(b, c);
        NLD_CX(c, d);
        NLD_CX(b, c);
        return c;
    }
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
    if (ts_usec != INT64_MIN && j->t != INT64_MIN && ts_usec > j->t && halflife_s > 0) {
        /* exp2 costs more than the rest of a step: most streams repeat their gap */
        int64_t gap = ts_usec - j->t;
        if (gap != j->gap) {
            j->gap = gap;
            j->decay = exp2(-(double)gap / 1e6 / halflife_s);
        }
        j->scale *= j->decay;
    }
    if (ts_usec != INT64_MIN) j->t = ts_usec;
    double bar = f * j->scale, w = bar > 0 && jump < bar ? jump / bar : 1;
    if (jump > j->scale) j->scale = jump;
    j->last[j->pos] = x;
    j->pos = (j->pos + 1) % NLD_JUMP_LEVEL;
    if (j->n < NLD_JUMP_LEVEL) j->n++;
    return w;
}
