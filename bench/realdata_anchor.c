/* SPDX-License-Identifier: BSD-3-Clause */
/* realdata_anchor.c — the windowed Gaussian of ../shared/datasets/README.md: the simple
 * textbook detector every row of bench-realdata is compared against. */
#include "realdata_anchor.h"

#include <math.h>
#include <stdlib.h>

#define WG_WINDOW 6400
#define WG_STEP 100

/* Mean and population sd of v[0..n). */
static void mean_sd(const double *v, size_t n, double *m, double *sd)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    *m = s / (double)n;
    for (size_t i = 0; i < n; i++) q += (v[i] - *m) * (v[i] - *m);
    *sd = sqrt(q / (double)n);
}

int rd_windowed_gaussian(const double *x, size_t n, double *score)
{
    double *win = malloc(WG_WINDOW * sizeof *win), buf[WG_STEP];
    if (!win) return -1;
    size_t nw = 0, nb = 0;
    double m = 0, sd = 0;
    for (size_t i = 0; i < n; i++) {
        if (nw == 0) {
            score[i] = 0;
        } else if (sd > 0) {
            score[i] = 1.0 - 0.5 * erfc(fabs(x[i] - m) / sd / M_SQRT2);
        } else {
            score[i] = x[i] == m ? 0.5 : 1.0; /* a constant window: z is 0 or infinite */
        }
        if (nw < WG_WINDOW) {
            win[nw++] = x[i];
            mean_sd(win, nw, &m, &sd);
        } else {
            buf[nb++] = x[i];
            if (nb == WG_STEP) {
                for (size_t j = WG_STEP; j < WG_WINDOW; j++) win[j - WG_STEP] = win[j];
                for (size_t j = 0; j < WG_STEP; j++) win[WG_WINDOW - WG_STEP + j] = buf[j];
                nb = 0;
                mean_sd(win, nw, &m, &sd);
            }
        }
    }
    free(win);
    return 0;
}
