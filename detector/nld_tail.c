/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_tail.c — tail probabilities as surprises (see nld_tail.h). */
#include "nld_tail.h"

#include <math.h>

#define LN10 2.302585092994046

/* ln P(Z >= z) for z >= 0: erfc while it does not underflow, then the asymptotic series
 * (relative error < 1e-9 from z = 30 on). */
static double ln_upper(double z)
{
    if (z < 30) return log(0.5 * erfc(z / M_SQRT2));
    double z2 = z * z;
    return -0.5 * z2 - log(z) - 0.5 * log(2 * M_PI) + log1p(-1 / z2 + 3 / (z2 * z2));
}

double nld_surprise_normal(double z, int side)
{
    if (isnan(z)) return 0;
    if (side == 1) z = -z; /* below: the upper tail of -z */
    if (side != 0) {
        if (z <= 0) return -log1p(-0.5 * erfc(-z / M_SQRT2)) / LN10; /* the wrong side */
        return isinf(z) ? INFINITY : -ln_upper(z) / LN10;
    }
    z = fabs(z);
    if (isinf(z)) return INFINITY;
    double lp = ln_upper(z) + log(2.0); /* P = 2 Q(|z|), at most 1 */
    return lp >= 0 ? 0 : -lp / LN10;
}

/* ln of the regularized upper incomplete gamma Q(a, x): the series for P(a, x) below
 * a + 1, a continued fraction (modified Lentz) above, both in logs so that far tails do
 * not underflow. */
static double ln_gamma_q(double a, double x)
{
    if (x <= 0) return 0;
    double lpre = -x + a * log(x) - lgamma(a);
    if (x < a + 1) {
        double sum = 1.0 / a, term = sum;
        for (int n = 1; n < 1000; n++) {
            term *= x / (a + n);
            sum += term;
            if (term < sum * 1e-15) break;
        }
        double p = exp(lpre + log(sum));
        return p >= 1 ? -INFINITY : log1p(-p);
    }
    double tiny = 1e-300, b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 1000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15) break;
    }
    return lpre + log(h);
}

/* ln Q(dof / 2, x) from its finite sum, for x <= 600 (where exp(-x) and erfc do not
 * underflow): Q(k, x) = e^-x sum_{j<k} x^j / j!, Q(k + 1/2, x) = erfc(sqrt x) +
 * e^-x sum_{j=1..k} x^(j-1/2) / Gamma(j + 1/2). Every term is positive (nothing cancels),
 * and it takes a few multiplications where the series or continued fraction of
 * ln_gamma_q took tens of divisions and an lgamma: relent asks it for every value. */
static double ln_chi2_q_sum(int dof, double x)
{
    int k = dof / 2;
    if (dof % 2 == 0) {
        double t = 1, sum = 1;
        for (int j = 1; j < k; j++) {
            t *= x / j;
            sum += t;
        }
        return -x + log(sum);
    }
    double rx = sqrt(x), t = 2 * rx / sqrt(M_PI), sum = 0; /* x^(1/2) / Gamma(3/2) */
    for (int j = 1; j <= k; j++) {
        sum += t;
        t *= x / (j + 0.5);
    }
    return log(erfc(rx) + exp(-x) * sum);
}

double nld_surprise_chi2(double g, int dof)
{
    if (!(g > 0) || dof < 1) return 0;
    if (isinf(g)) return INFINITY;
    double x = 0.5 * g;
    double s = -(x <= 600 && dof <= 64 ? ln_chi2_q_sum(dof, x) : ln_gamma_q(0.5 * dof, x)) / LN10;
    return s > 0 ? s : 0;
}

double nld_score_of(double s)
{
    if (!(s > 0)) return 0;
    return isinf(s) ? 1.0 : s / (s + 1.0);
}

double nld_surprise_of(double score)
{
    if (!(score > 0)) return 0;
    return score >= 1 ? INFINITY : score / (1.0 - score);
}
