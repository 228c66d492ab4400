/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_season.c — the seasonal baseline (see nld_season.h). */
#include "nld_season.h"

#include <stdlib.h>

#include "nlkit/nl_bp.h"

int nld_season_init(nld_season_t *s, double period_s, uint32_t slots, double alpha)
{
    *s = (nld_season_t){.cur = UINT32_MAX};
    if (!(period_s > 0)) return 0;
    if (!(s->slot = calloc(slots, sizeof *s->slot))) return NL_ENOMEM;
    s->slots = slots;
    s->period_us = (int64_t)(period_s * 1e6);
    s->alpha = alpha;
    return 0;
}

void nld_season_free(nld_season_t *s)
{
    free(s->slot);
    *s = (nld_season_t){.cur = UINT32_MAX};
}

/* The shrinkage factor (nld_season.h): the spread of the levels across slots against the
 * noise each level carries. A level that is an exponentially weighted mean of period
 * means with variance d2 has variance d2 * alpha / (2 - alpha). */
static void shrink(nld_season_t *s)
{
    double sum = 0, ss = 0, d2 = 0;
    uint32_t n = 0, nd = 0;
    double mean = s->sum / s->nfilled;
    for (uint32_t i = 0; i < s->slots; i++) {
        const nld_season_slot_t *sl = &s->slot[i];
        if (!sl->filled) continue;
        double d = sl->level - mean;
        sum += d;
        ss += d * d;
        n++;
        if (sl->periods >= 2) {
            d2 += sl->dev2 * (sl->periods > 2 ? 1.0 : 2.0) /* one deviation: less sure */;
            nd++;
        }
    }
    s->w = 0;
    if (n < 2 || !nd) return;
    double spread = (ss - sum * sum / n) / (n - 1);
    double noise = d2 / nd * s->alpha / (2 - s->alpha);
    if (spread > noise) s->w = 1 - noise / spread;
}

/* A slot's sum of a period that is over becomes one step of its level. */
static void fold(nld_season_t *s, nld_season_slot_t *sl)
{
    double mean = sl->sum / sl->n, old = sl->level;
    if (!sl->filled) {
        sl->filled = 1;
        s->nfilled++;
        sl->level = mean;
        s->sum += mean;
    } else {
        double d = mean - sl->level;
        sl->dev2 = sl->periods == 1 ? d * d : sl->dev2 + s->alpha * (d * d - sl->dev2);
        sl->level += s->alpha * d;
        s->sum += sl->level - old;
    }
    sl->periods++;
    sl->sum = 0;
    sl->n = 0;
    shrink(s);
}

double nld_season_offset(nld_season_t *s, int64_t ts_usec)
{
    s->cur = UINT32_MAX;
    if (!s->slot || ts_usec == INT64_MIN) return 0;
    int64_t per = ts_usec / s->period_us, ph = ts_usec % s->period_us;
    if (ph < 0) { /* before 1970 */
        ph += s->period_us;
        per--;
    }
    uint32_t i = (uint32_t)((double)ph / (double)s->period_us * s->slots);
    if (i >= s->slots) i = s->slots - 1;
    nld_season_slot_t *sl = &s->slot[i];
    if (sl->n && sl->period != per) fold(s, sl);
    s->cur = i;
    s->cur_period = per;
    if (2 * s->nfilled < s->slots || !sl->filled) return 0;
    return s->w * (sl->level - s->sum / s->nfilled);
}

void nld_season_learn(nld_season_t *s, double x)
{
    if (s->cur == UINT32_MAX) return;
    nld_season_slot_t *sl = &s->slot[s->cur];
    sl->period = s->cur_period;
    sl->sum += x;
    sl->n++;
}
