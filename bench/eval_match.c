/* SPDX-License-Identifier: BSD-3-Clause */
/* eval_match.c — scoring episodes against injections (see eval_match.h). Quadratic in
 * the number of injections times episodes, which is a few hundred each at most. */
#include "eval_match.h"

#include <math.h>
#include <stdlib.h>

static int overlaps(const em_span_t *inj, const em_span_t *ep, double grace)
{
    return ep->t0 < inj->t1 + grace && ep->t1 >= inj->t0;
}

void em_score(const em_span_t *inj, size_t ninj, const em_span_t *ep, size_t nep, double grace,
              int count_weak, em_score_t *out)
{
    *out = (em_score_t){0};
    for (size_t i = 0; i < ninj; i++) {
        int found = 0;
        for (size_t e = 0; e < nep && !found; e++) found = overlaps(&inj[i], &ep[e], grace);
        if (inj[i].weak && !count_weak)
            out->weak_found += found;
        else if (found)
            out->correct++;
        else
            out->fn++;
    }
    for (size_t e = 0; e < nep; e++) {
        int scored = 0, weak_only = 0;
        for (size_t i = 0; i < ninj; i++) {
            if (!overlaps(&inj[i], &ep[e], grace)) continue;
            if (inj[i].weak && !count_weak)
                weak_only = 1;
            else
                scored = 1;
        }
        if (scored)
            out->ep_true++;
        else if (!weak_only)
            out->fp++;
    }
}

double em_badness(const em_score_t *s)
{
    if (s->correct) return (double)(s->fp + s->fn) / s->correct;
    return s->fp + s->fn ? INFINITY : 0.0;
}

double em_recall(const em_score_t *s)
{
    return s->correct + s->fn ? (double)s->correct / (s->correct + s->fn) : NAN;
}

double em_precision(const em_score_t *s)
{
    return s->ep_true + s->fp ? (double)s->ep_true / (s->ep_true + s->fp) : NAN;
}

static int by_start(const void *a, const void *b)
{
    const em_span_t *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

double em_coverage(const em_span_t *inj, const em_span_t *ep, size_t nep, double step)
{
    double len = inj->t1 - inj->t0;
    if (len <= 0) return 0;
    em_span_t *c = malloc((nep ? nep : 1) * sizeof *c);
    if (!c) return NAN;
    size_t n = 0;
    for (size_t e = 0; e < nep; e++) { /* clip each episode to the injection */
        double a = fmax(ep[e].t0 - step, inj->t0), b = fmin(ep[e].t1, inj->t1);
        if (a < b) c[n++] = (em_span_t){a, b, 0};
    }
    qsort(c, n, sizeof *c, by_start);
    double covered = 0, end = -INFINITY;
    for (size_t i = 0; i < n; i++) { /* union of the clipped spans */
        double a = fmax(c[i].t0, end);
        if (c[i].t1 > a) covered += c[i].t1 - a;
        end = fmax(end, c[i].t1);
    }
    free(c);
    return covered / len;
}
