/* SPDX-License-Identifier: BSD-3-Clause */
/* eval_plot.c — Figure 6 as SVG (see eval_plot.h). Coordinates are printed with one
 * decimal, so the same run gives the same file byte for byte. */
#include "eval_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define W 1200.0   /* plot area width */
#define LEFT 90.0  /* room for row names */
#define TOP 40.0   /* room for the title */
#define SERIES 180 /* series panel height */
#define ROW 18     /* one algorithm's row */

static const char *const kind_color[] = {"#d62728", "#ff9896", "#1f77b4",
                                         "#9467bd", "#2ca02c", "#8c564b"};

static double x_of(double t, double t_end) { return LEFT + W * t / t_end; }

/* Shaded spans of the injections over a band [y0, y0 + h). */
static void spans(FILE *f, const ep_plot_t *p, double t_end, double y0, double h)
{
    for (size_t i = 0; i < p->ninj; i++) {
        int k = p->kind[i] >= 0 && p->kind[i] < 6 ? p->kind[i] : 5;
        double a = x_of(p->inj[i].t0, t_end), b = x_of(p->inj[i].t1, t_end);
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                "fill-opacity=\"%s\"/>\n",
                a, y0, b - a > 0.5 ? b - a : 0.5, h, kind_color[k],
                p->inj[i].weak ? "0.12" : "0.25");
    }
}

int ep_svg(const char *path, const ep_plot_t *p)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    double t_end = p->n ? (double)p->n : 1, ymax = 0;
    for (size_t i = 0; i < p->n; i++)
        if (!isnan(p->y[i]) && p->y[i] > ymax) ymax = p->y[i];
    if (ymax <= 0) ymax = 1;
    double rows_y = TOP + SERIES + 20, height = rows_y + p->nrows * ROW + 50;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%.0f\" y=\"22\" font-size=\"15\">%s</text>\n",
            LEFT + W + 20, height, LEFT, p->title);
    /* the series, with the faults behind it */
    spans(f, p, t_end, TOP, SERIES);
    fprintf(f, "<polyline fill=\"none\" stroke=\"black\" stroke-width=\"0.6\" points=\"");
    for (size_t i = 0; i < p->n; i++)
        if (!isnan(p->y[i]))
            fprintf(f, "%.1f,%.1f ", x_of((double)i + 1, t_end),
                    TOP + SERIES - SERIES * p->y[i] / (ymax * 1.05));
    fprintf(f, "\"/>\n");
    fprintf(f,
            "<text x=\"4\" y=\"%.0f\">%s</text>\n<text x=\"4\" y=\"%.0f\">%.4g</text>\n"
            "<text x=\"4\" y=\"%.0f\">0</text>\n",
            TOP + SERIES / 2, p->y_label, TOP + 12, ymax * 1.05, TOP + SERIES);
    /* one row per algorithm: its episodes */
    for (int r = 0; r < p->nrows; r++) {
        double y = rows_y + r * ROW;
        fprintf(f, "<text x=\"4\" y=\"%.0f\">%s</text>\n", y + ROW - 5, p->rows[r]);
        spans(f, p, t_end, y + 1, ROW - 2);
        for (size_t e = 0; e < p->nep[r]; e++) {
            double a = x_of(p->ep[r][e].t0 - 1, t_end), b = x_of(p->ep[r][e].t1, t_end);
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"black\"/>\n",
                    a, y + 4, b - a > 1 ? b - a : 1, ROW - 8);
        }
    }
    /* time axis (minutes) and legend */
    double ay = rows_y + p->nrows * ROW + 14;
    int step = p->unit ? p->step : t_end > 4 * 3600 ? 30 : 10;
    double per = p->unit ? p->per_unit : 60;
    for (int m = 0; m * per <= t_end && step > 0; m += step)
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d %s</text>\n",
                x_of(m * per, t_end), ay, m, p->unit ? p->unit : "min");
    double lx = LEFT;
    for (int k = 0; k < p->nkinds; k++) {
        int used = 0;
        for (size_t i = 0; i < p->ninj && !used; i++) used = p->kind[i] == k;
        if (!used) continue;
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\" "
                "fill-opacity=\"0.4\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                lx, ay + 12, kind_color[k < 6 ? k : 5], lx + 16, ay + 22, p->kind_names[k]);
        lx += 30 + 7 * (double)strlen(p->kind_names[k]); /* room for the name */
    }
    fprintf(f,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"black\"/>"
            "<text x=\"%.0f\" y=\"%.0f\">anomaly episode</text>\n</svg>\n",
            lx, ay + 12, lx + 16, ay + 22);
    return fclose(f) ? -1 : 0;
}
