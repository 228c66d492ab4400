/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_wander.c — how many independent values a stream's history holds (see nld_wander.h). */
#include "nld_wander.h"

#include <math.h>
#include <stdint.h>

void nld_wander_init(nld_wander_t *w) { *w = (nld_wander_t){.hour_i = -1}; }

double nld_wander_independent(const nld_wander_t *w, double hist)
{
    if (!(w->v > 0)) return hist; /* no spread: nothing wanders */
    double r = w->c / w->v;
    if (r < 0) r = 0;
    if (r > 1) r = 1;
    return hist * (1 - r) / (1 + r);
}

#define HOUR_US 3600000000LL

/* The hour of the UTC day of event time ts_usec, or -1 where it is unknown (or within an
 * hour of the ends of int64_t); most values fall in the hour of the one before, which
 * costs no division (three cost a tenth of the bank's time). */
static int hour_of(nld_wander_t *w, int64_t ts_usec)
{
    if (ts_usec <= INT64_MIN + HOUR_US || ts_usec >= INT64_MAX - HOUR_US) return -1;
    if (w->hour_i >= 0 && ts_usec >= w->h0 && ts_usec < w->h1) return w->hour_i;
    int64_t r = ts_usec % HOUR_US;
    if (r < 0) r += HOUR_US; /* before 1970 */
    w->h0 = ts_usec - r;
    w->h1 = w->h0 + HOUR_US;
    int64_t h = w->h0 / HOUR_US % 24;
    w->hour_i = (int)(h < 0 ? h + 24 : h);
    return w->hour_i;
}

double nld_wander_step(nld_wander_t *w, double x, int64_t ts_usec, double hist, double n0,
                       uint32_t min, int applies)
{
    if (!isfinite(x)) return 1;
    double share = 1;
    if (applies && n0 > 1 && w->n >= min) {
        double n = nld_wander_independent(w, hist);
        if (n < n0) share = log1p(n) / log1p(n0);
    }
    /* the value less its hour's recent mean: each hour remembers its last hist / 24 values
     * (a running mean until it has them), the span of days the history has */
    int h = hour_of(w, ts_usec);
    double e = x;
    if (h >= 0) {
        double keep = hist / NLD_WANDER_SLOTS;
        double a = w->hour_n[h] < keep ? 1.0 / (w->hour_n[h] + 1.0) : 1 / keep;
        if (w->hour_n[h] < UINT32_MAX) w->hour_n[h]++;
        w->hour[h] += a * (x - w->hour[h]);
        e = x - w->hour[h];
    }
    /* the residuals' moments over about the last hist values (a running mean before) */
    double a = w->n < hist ? 1.0 / (double)(w->n + 1) : 1 / hist;
    if (w->n) {
        double d = e - w->m;
        w->c += a * (d * (w->prev - w->m) - w->c);
        w->v += a * (d * d - w->v);
    }
    w->m += a * (e - w->m);
    w->prev = e;
    w->n++;
    return share;
}
