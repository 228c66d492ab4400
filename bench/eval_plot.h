/* SPDX-License-Identifier: BSD-3-Clause */
/* eval_plot.h — the paper's Figure 6 for one evaluated run, as an SVG file written
 * directly (no plotting tool needed): the watched series, the injected faults as shaded
 * spans, and under it one row per algorithm with its anomaly episodes. */
#ifndef NLKIT_BENCH_EVAL_PLOT_H
#define NLKIT_BENCH_EVAL_PLOT_H

#include <stddef.h>

#include "eval_match.h"

typedef struct ep_plot {
    const char *title, *y_label;
    const double *y; /* y[i]: the value at second i + 1 (NAN: none) */
    size_t n;
    const em_span_t *inj; /* injections, with their kinds (indexes into kind_names) */
    const int *kind;
    size_t ninj;
    const char *const *kind_names;
    int nkinds;
    const em_span_t *const *ep; /* episodes per row */
    const size_t *nep;
    const char *const *rows; /* row names (algorithms) */
    int nrows;
    const char *unit; /* time axis: NULL for minutes of seconds; else ticks every `step` of
                         `per_unit` x positions, labelled "N unit" (e.g. 24 rows = "1 d") */
    double per_unit;
    int step;
} ep_plot_t;

/* Write the plot to path. Returns 0, or -1 with errno set. */
int ep_svg(const char *path, const ep_plot_t *p);

#endif
