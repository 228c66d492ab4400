/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_calib.c — raw surprises judged against the stream's own (see nld_calib.h). */
#include "nld_calib.h"

#include <math.h>

#include "nlkit/nl_bp.h"

#define LN10 2.302585092994046

int nld_calib_init(nld_calib_t *c, uint32_t window)
{
    *c = (nld_calib_t){.beta = 1 / LN10};
    return nld_hist_init(&c->h, window, 1, 1);
}

void nld_calib_free(nld_calib_t *c) { nld_hist_free(&c->h); }

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

double nld_calib_step(nld_calib_t *c, double s)
{
    double out;
    /* too few surprises to say where the tail starts: the model's own word */
    if (c->h.n < 1 / NLD_CALIB_TAIL * 2) {
        out = s;
    } else {
        if (c->fresh >= 8 || c->h.n < c->h.cap) fit(c);
        double lt = -log10(NLD_CALIB_TAIL);
        if (s >= c->u) /* -log10 of TAIL (1 + xi (s - u) / beta)^(-1 / xi) */
            out = lt + (c->xi > 1e-6 ? log10(1 + c->xi * (s - c->u) / c->beta) / c->xi
                                     : (s - c->u) / (c->beta * LN10));
        else /* below the tail: never an alarm; a straight line keeps the order */
            out = c->u > 0 ? lt * s / c->u : 0;
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
    c->capped += ((double)over - c->capped) / c->h.cap;
    if (over) s = c->capped < NLD_CALIB_RECUR ? inverse(c, NLD_CALIB_CENSOR) : NAN;
    if (isfinite(s)) {
        if (nld_hist_add(&c->h, s)) return NAN;
        c->fresh++;
    }
    return out;
}
