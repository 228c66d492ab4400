/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_shape.c — the nearest earlier window of the stream's last values (see nld_shape.h). */
#include "nld_shape.h"

#include <math.h>
#include <stdlib.h>

#include "nlkit/nl_bp.h"

int nld_shape_init(nld_shape_t *s, uint32_t w, uint32_t len)
{
    *s = (nld_shape_t){0};
    if (!w) return 0;
    if (w < 2 || w > NLD_SHAPE_W_MAX || len < NLD_SHAPE_LEN_MIN || len > NLD_SHAPE_LEN_MAX ||
        len < 4 * w)
        return NL_EINVAL;
    s->w = w;
    s->len = len;
    s->fresh = 1;
    /* zeros stand for the values before the first: the distances by lag stay exact sums
     * over them, and a lag is used only once both its windows are real */
    s->buf = calloc(2 * (size_t)len, sizeof *s->buf);
    s->d = calloc(len, sizeof *s->d);
    if (!s->buf || !s->d) {
        nld_shape_free(s);
        return NL_ENOMEM;
    }
    return 0;
}

void nld_shape_free(nld_shape_t *s)
{
    free(s->buf);
    free(s->d);
    *s = (nld_shape_t){0};
}

/* The lags kept: an earlier window must not overlap the newest (lag >= w is the caller's)
 * and its oldest value must still be in the ring. */
static uint32_t max_lag(const nld_shape_t *s) { return s->len - 1 - s->w; }

/* The squared distance of the windows ending at r[0] and r[lag] (r[l]: the value l before
 * the newest), in full. */
static double full_dist(const double *r, uint32_t w, uint32_t lag)
{
    double d = 0;
    for (uint32_t k = 0; k < w; k++) {
        double e = r[k] - r[k + lag];
        d += e * e;
    }
    return d;
}

/* The lags' distances move on by one value: the newest pair of values comes in, the
 * oldest pair of each window goes out. The ring runs backwards in memory so that r[l] is
 * the value l before the newest: one pass over contiguous memory, which the compiler
 * vectorises (restrict: d and the ring never overlap). */
static void slide(double *restrict d, const double *restrict r, uint32_t w, uint32_t top)
{
    double a = r[0], b = r[w];
    for (uint32_t l = 1; l <= top; l++) {
        double in = a - r[l], out = b - r[w + l];
        d[l] += in * in - out * out;
    }
}

/* x joins the ring, and every lag's distance moves on. */
static void push(nld_shape_t *s, double x)
{
    uint32_t L = s->len, W = s->w;
    uint32_t h = s->head == 0 ? L - 1 : s->head - 1;
    double old = s->buf[h]; /* the value len before x, now forgotten */
    s->buf[h] = s->buf[h + L] = x;
    s->head = h;
    s->n++;
    if (++s->since >= L) { /* the running sum, recomputed before rounding builds up */
        double sum = 0;
        for (uint32_t i = 0; i < L; i++) sum += s->buf[i];
        s->sum = sum;
        s->since = 0;
    } else {
        s->sum += x - old;
    }
    const double *r = s->buf + h;
    uint32_t top = max_lag(s);
    slide(s->d, r, W, top);
    s->d[s->fresh] = full_dist(r, W, s->fresh);
    s->fresh = s->fresh >= top ? 1 : s->fresh + 1;
}

double nld_shape_step(nld_shape_t *s, double x, double spacing_s)
{
    if (!s->buf || !isfinite(x)) return 1;
    push(s, x > NLD_SHAPE_HOLD ? NLD_SHAPE_HOLD : x < -NLD_SHAPE_HOLD ? -NLD_SHAPE_HOLD : x);
    if (!(spacing_s > 0)) return 1;
    uint32_t W = s->w;
    double ago = ceil(NLD_SHAPE_AGO_S / spacing_s - 1e-9);
    uint64_t lo = ago > W ? (ago < 1e18 ? (uint64_t)ago : UINT64_MAX) : W;
    uint64_t hi = max_lag(s);
    if (s->n < W || s->n - W < hi) hi = s->n < W ? 0 : s->n - W; /* both windows real */
    if (lo > hi) return 1;
    double nn = INFINITY;
    for (uint64_t l = lo; l <= hi; l++) nn = s->d[l] < nn ? s->d[l] : nn;
    if (nn < 0) nn = 0; /* rounding of a running sum */
    double mu = s->sum / (double)(s->n < s->len ? s->n : s->len), e = 0;
    const double *r = s->buf + s->head;
    for (uint32_t k = 0; k < W; k++) {
        double v = r[k] - mu;
        e += v * v;
    }
    if (!(e > 0)) return 1; /* the window is the mean: nothing to discount */
    double keep = nn / (NLD_SHAPE_NEWS * e);
    return keep >= 1 ? 1 : keep > NLD_SHAPE_KEEP ? keep : NLD_SHAPE_KEEP;
}
