/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_calib.c — raw surprises judged against the stream's own (see nld_calib.h). */
#include "nld_calib.h"

#include <math.h>
#include <stdlib.h>

#include "nlkit/nl_bp.h"

#define LN10 2.302585092994046

int nld_calib_init(nld_calib_t *c, uint32_t window, double record)
{
    *c = (nld_calib_t){.beta = 1 / LN10, .record = record};
    if (record > 0 && !(c->rec = calloc(1, sizeof *c->rec))) return NL_ENOMEM;
    if (nld_hist_init(&c->h, window, 1, 1)) {
        nld_calib_free(c);
        return NL_ENOMEM;
    }
    return 0;
}

void nld_calib_free(nld_calib_t *c)
{
    nld_hist_free(&c->h);
    free(c->rec);
    c->rec = NULL;
}

/* The tail above u (the window's 1 - TAIL quantile) as a generalised Pareto distribution,
 * its shape and scale from Pickands' estimator on the quantiles at shares TAIL, TAIL/2 and
 * TAIL/4: heavy-tailed series have surprises whose tail decays like a power, and an
 * exponential fitted between two quantiles would promise far fewer alarms than they give.
 * Shrunk towards the model's own tail (shape 0, scale 1 / ln 10) by the prior, never
 * lighter than it. Refitted every 8 values: four order-statistic descents each time. */
static void fit(nld_calib_t *c)
{
    double k = c->h.n * NLD_CALIB_TAIL, b0 = 1 / LN10;
    double q1 = nld_hist_quantile(&c->h, 1 - NLD_CALIB_TAIL);
    double q2 = nld_hist_quantile(&c->h, 1 - NLD_CALIB_TAIL / 2);
    double q3 = nld_hist_quantile(&c->h, 1 - NLD_CALIB_TAIL / 4);
    double xi = 0, sigma = b0;
    if (q2 > q1 && q3 > q2) {
        xi = log2((q3 - q2) / (q2 - q1));
        xi = xi < 0 ? 0 : xi > 1 ? 1 : xi;
        sigma = xi > 1e-6 ? xi * (q2 - q1) / (exp2(xi) - 1) : (q2 - q1) / M_LN2;
    }
    double w = k / (k + NLD_CALIB_PRIOR);
    c->u = q1;
    c->xi = w * xi;
    c->beta = w * sigma + (1 - w) * b0;
    if (c->beta < b0) c->beta = b0;
    c->fresh = 0;
}

/* The raw surprise whose calibrated one is `cal` (>= the tail's start) under the fit. */
static double inverse(const nld_calib_t *c, double cal)
{
    double x = cal + log10(NLD_CALIB_TAIL); /* -log10 of the share within the tail */
    return c->u + (c->xi > 1e-6 ? c->beta * (pow(10, c->xi * x) - 1) / c->xi : c->beta * LN10 * x);
}

/* The calibrated surprise of raw surprise s (the fit's tail; a straight line below it). */
static double fitted(const nld_calib_t *c, double s)
{
    double lt = -log10(NLD_CALIB_TAIL);
    if (s >= c->u) /* -log10 of TAIL (1 + xi (s - u) / beta)^(-1 / xi) */
        return lt + (c->xi > 1e-6 ? log10(1 + c->xi * (s - c->u) / c->beta) / c->xi
                                  : (s - c->u) / (c->beta * LN10));
    return c->u > 0 ? lt * s / c->u : 0; /* below the tail: never an alarm, order kept */
}

/* The most the record lets raw surprise s claim (+inf while it holds too few): the rank of s
 * among the record's values over the values seen since its oldest; beyond the largest of
 * them, that one's rank plus what the fit adds from it to s (the fit's shape, anchored at
 * the stream's own rate). Never below the floor. */
static double record_bound(const nld_calib_t *c, double s)
{
    const nld_calib_rec_t *r = c->rec;
    if (r->n < NLD_CALIB_RECORD_MIN) return INFINITY;
    uint64_t oldest = c->seen;
    uint32_t k = 1; /* s itself */
    double top = 0;
    for (uint32_t j = 0; j < r->n; j++) {
        k += r->s[j] >= s;
        if (r->s[j] > top) top = r->s[j];
        if (r->at[j] < oldest) oldest = r->at[j];
    }
    double b = -log10((double)k / (double)(c->seen - oldest + 1));
    if (s > top) b += fitted(c, s) - fitted(c, top);
    return b > c->record ? b : c->record;
}

/* Whether the record holds a raw surprise at least s among the last c->within values. */
static int familiar(const nld_calib_t *c, double s)
{
    const nld_calib_rec_t *r = c->rec;
    if (!c->within || r->n < NLD_CALIB_RECORD_MIN) return 0;
    for (uint32_t j = 0; j < r->n; j++)
        if (r->s[j] >= s && c->seen - r->at[j] <= c->within) return 1;
    return 0;
}

double nld_calib_step(nld_calib_t *c, double s)
{
    double out, raw = s;
    c->seen++;
    c->familiar = 0;
    /* too few surprises to say where the tail starts: the model's own word */
    if (c->h.n < 1 / NLD_CALIB_TAIL * 2) {
        out = s;
    } else {
        if (c->fresh >= 8 || c->h.n < c->h.cap) fit(c);
        out = fitted(c, s);
    }
    /* A surprise rarer than one in a hundred of the stream's own enters as the surprise
     * of one in a hundred: a long anomaly would otherwise fill the tail and hide the next
     * one (as flagged values stay out of a heuristic history), while dropping it would
     * hide from the fit how often such values come. The fit's quantiles (shares down to
     * TAIL/4) lie below it, so they see the values' number and not their size — as long
     * as such values stay rarer than RECUR: beyond that (a recurring fault, an anomaly
     * that lasts) they would become the quantiles and raise the cap with each refit, so
     * they are left out instead. */
    int over = c->h.n >= 1 / NLD_CALIB_TAIL * 2 && out > NLD_CALIB_CENSOR;
    if (over && c->rec) {
        double b = record_bound(c, raw);
        if (out > b) out = b;
        c->familiar = familiar(c, raw);
    }
    c->capped += ((double)over - c->capped) / c->h.cap;
    /* The record takes what the censor lets into the fit (so a fault that lasts enters
     * until it is a twentieth of the recent values, as there); never an infinite surprise,
     * which would stand above every later value and so deny them the fit's shape. */
    if (over && c->rec && c->capped < NLD_CALIB_RECUR && isfinite(raw)) {
        c->rec->s[c->rec->next] = raw;
        c->rec->at[c->rec->next] = c->seen;
        c->rec->next = (c->rec->next + 1) % NLD_CALIB_RECORD;
        if (c->rec->n < NLD_CALIB_RECORD) c->rec->n++;
    }
    if (over) s = c->capped < NLD_CALIB_RECUR ? inverse(c, NLD_CALIB_CENSOR) : NAN;
    if (isfinite(s)) {
        if (nld_hist_add(&c->h, s)) return NAN;
        c->fresh++;
    }
    return out;
}
