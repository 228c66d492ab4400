/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_recur.c — the stream's envelope at its time of day (see nld_recur.h). */
#include "nld_recur.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "nlkit/nl_bp.h"

#define SLOTS_PER_DAY (86400 / NLD_RECUR_SLOT_S)

int nld_recur_init(nld_recur_t *r, uint32_t days, double within_s)
{
    *r = (nld_recur_t){0};
    if (!days) return 0;
    if (days > NLD_RECUR_DAYS_MAX ||
        !(within_s >= NLD_RECUR_SLOT_S && within_s <= NLD_RECUR_WITHIN_MAX))
        return NL_EINVAL;
    r->days = days;
    r->reach = (uint32_t)ceil(within_s / NLD_RECUR_SLOT_S - 1e-9);
    r->reach_max = (uint32_t)(NLD_RECUR_WITHIN_MAX / NLD_RECUR_SLOT_S);
    r->cur = UINT64_MAX;
    r->t_last = INT64_MIN;
    /* the ring holds the oldest slot looked at (days back, reach before) up to now */
    r->n = (days + 1) * SLOTS_PER_DAY + r->reach_max + 1;
    if (!(r->slot = calloc(r->n, sizeof *r->slot))) {
        nld_recur_free(r);
        return NL_ENOMEM;
    }
    return 0;
}

void nld_recur_free(nld_recur_t *r)
{
    free(r->slot);
    *r = (nld_recur_t){0};
}

/* Slots either side of the same time of day: within=, or NLD_RECUR_SPACINGS of the
 * stream's typical spacing where that is wider. */
static uint32_t reach_of(const nld_recur_t *r)
{
    if (!r->gaps) return r->reach;
    double s = NLD_RECUR_SPACINGS * exp(r->log_gaps / (double)r->gaps) / NLD_RECUR_SLOT_S;
    uint32_t k = s >= r->reach_max ? r->reach_max : (uint32_t)ceil(s - 1e-9);
    return k > r->reach ? k : r->reach;
}

/* The envelope of slot a: the days before it, reach slots either side. One division per
 * day, then the ring is walked (a modulo per slot cost more than the rest of the bank). */
static void gather(nld_recur_t *r, uint64_t a)
{
    float lo = INFINITY, hi = -INFINITY;
    int seen = 0;
    uint32_t reach = reach_of(r);
    for (uint32_t k = 1; k <= r->days; k++) {
        uint64_t back = (uint64_t)k * SLOTS_PER_DAY;
        if (a < back + reach) continue; /* before 1970 */
        uint64_t b = a - back - reach;
        uint32_t i = (uint32_t)(b % r->n);
        for (uint32_t j = 0; j <= 2 * reach; j++, b++) {
            /* selects, not branches: whether a slot was filled is a coin toss */
            const nld_recur_slot_t *sl = &r->slot[i];
            int m = sl->id == (uint32_t)(b + 1);
            float l = m ? sl->lo : INFINITY, h = m ? sl->hi : -INFINITY;
            lo = l < lo ? l : lo;
            hi = h > hi ? h : hi;
            seen |= m;
            if (++i == r->n) i = 0;
        }
    }
    r->cur = a;
    r->cur_t0 = (int64_t)(a * (NLD_RECUR_SLOT_S * 1000000ull));
    r->cur_t1 = r->cur_t0 <= INT64_MAX - NLD_RECUR_SLOT_S * 1000000ll
                    ? r->cur_t0 + NLD_RECUR_SLOT_S * 1000000ll
                    : INT64_MAX; /* the last slot of time, cut short */
    r->cur_i = (uint32_t)(a % r->n);
    r->seen = seen;
    r->elo = lo;
    r->ehi = hi;
}

double nld_recur_step(nld_recur_t *r, double x, int64_t ts_usec)
{
    if (!r->slot || !isfinite(x) || ts_usec < 0) return 1; /* INT64_MIN included */
    if (r->t_last != INT64_MIN && ts_usec > r->t_last) {
        int64_t gap = ts_usec - r->t_last;
        if (gap != r->gap) { /* a log costs more than the rest of a step */
            double s = (double)gap / 1e6;
            r->gap = gap;
            r->log_gap = log(s < 1 ? 1 : s > 86400 ? 86400 : s);
        }
        r->log_gaps += r->log_gap;
        r->gaps++;
    }
    if (ts_usec > r->t_last) r->t_last = ts_usec;
    /* only the current slot is written, never one its envelope reads: it stays valid for
     * every value in the same slot, found without a division */
    if (r->cur == UINT64_MAX || ts_usec < r->cur_t0 || ts_usec >= r->cur_t1)
        gather(r, (uint64_t)ts_usec / (NLD_RECUR_SLOT_S * 1000000ull));
    nld_recur_slot_t *sl = &r->slot[r->cur_i];
    /* a float holds an envelope's bounds; past its range a value is held at its edge (C
     * leaves converting a double beyond it undefined) */
    float xf = x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x;
    if (sl->id != (uint32_t)(r->cur + 1)) {
        sl->id = (uint32_t)(r->cur + 1);
        sl->lo = sl->hi = xf;
    } else if (xf < sl->lo) {
        sl->lo = xf;
    } else if (xf > sl->hi) {
        sl->hi = xf;
    }
    if (!r->seen) return 1;
    double xs = xf, lo = r->elo, hi = r->ehi; /* x as stored: equal to a bound is inside */
    double out = xs > hi ? xs - hi : xs < lo ? lo - xs : 0;
    if (!(out > 0)) return NLD_RECUR_KEEP;
    if (!(hi > lo)) return 1; /* a flat envelope: any way out of it is news */
    double w = out / (NLD_RECUR_SHARE * (hi - lo));
    return w >= 1 ? 1 : w > NLD_RECUR_KEEP ? w : NLD_RECUR_KEEP;
}
