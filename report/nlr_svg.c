/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_svg.c — the report's pictures as inline SVG, written straight to the page: a chart
 * per activity and host in the style of the paper's Figure 6 (the series over time, the
 * baseline band behind it, anomaly episodes and alerts shaded, missing ends and peer
 * verdicts marked) and a lifeline per GUID. Geometry is fixed (a plot of NLR_COLS pixels),
 * so the size of a page depends on the number of charts, never on the archive's. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "nl_line.h"
#include "nlr.h"

#define PL 76.0               /* plot left edge */
#define PW ((double)NLR_COLS) /* plot width */
#define PT 14.0               /* plot top */
#define PH 150.0              /* plot height */
#define SW (PL + PW + 16)     /* svg width */
#define SH (PT + PH + 30)     /* svg height */

void nlr_esc(FILE *f, const char *s)
{
    for (; *s; s++) switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            /* control bytes have no place in HTML text; show where one was */
            if ((unsigned char)*s < 0x20 && *s != '\t')
                fputs("\xef\xbf\xbd", f);
            else
                fputc(*s, f);
        }
}

void nlr_fmt_si(char *out, size_t cap, double v)
{
    static const struct {
        double f;
        const char *s;
    } si[] = {{1e12, "T"}, {1e9, "G"},  {1e6, "M"},        {1e3, "k"},
              {1, ""},     {1e-3, "m"}, {1e-6, "\xc2\xb5"}};
    if (!isfinite(v)) {
        snprintf(out, cap, "\xe2\x80\x94"); /* an em dash: not known */
        return;
    }
    double a = fabs(v);
    if (a == 0) {
        snprintf(out, cap, "0");
        return;
    }
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (a >= si[i].f * 0.9995 || i + 1 == sizeof si / sizeof si[0]) {
            snprintf(out, cap, "%.3g%s", v / si[i].f, si[i].s);
            return;
        }
}

void nlr_fmt_time(char *out, size_t cap, double t, int ms)
{
    /* to the nearest millisecond: a tick at 0.6 s computed as 0.59999 read ".599" */
    double msec = ms ? floor(t * 1000 + 0.5) : 0;
    time_t s = (time_t)(ms ? floor(msec / 1000) : floor(t));
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t n = strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm);
    if (ms && n < cap) snprintf(out + n, cap - n, ".%03d", (int)(msec - (double)s * 1000));
}

static double x_of(const nlr_report_t *r, double t)
{
    return PL + (t - r->t0) / (r->t1 - r->t0) * PW;
}

static double y_of(const nlr_chart_t *c, double v)
{
    return PT + PH - (v - c->ymin) / (c->ymax - c->ymin) * PH;
}

static double clampx(double x) { return x < PL ? PL : x > PL + PW ? PL + PW : x; }

/* A step of 1, 2 or 5 times a power of ten giving about `want` ticks over `span`. */
static double nice_step(double span, int want)
{
    double raw = span / want, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* A step in time that reads well on a clock: seconds, minutes, hours, days. */
static double time_step(double span)
{
    static const double steps[] = {0.001, 0.002, 0.005, 0.01,   0.02,   0.05,    0.1,    0.2,
                                   0.5,   1,     2,     5,      10,     15,      30,     60,
                                   120,   300,   600,   900,    1800,   3600,    7200,   10800,
                                   21600, 43200, 86400, 172800, 604800, 1209600, 2592000};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span / steps[i] <= 8) return steps[i];
    return 2592000 * ceil(span / 8 / 2592000);
}

static void time_axis(FILE *f, double t0, double t1, double left, double width, double y)
{
    double step = time_step(t1 - t0);
    fprintf(f, "<g class=\"xaxis\">");
    /* ticks by index, not by adding steps: a step below the times' precision never stalls */
    double first = ceil(t0 / step) * step;
    for (int i = 0; i <= 40 && first + i * step <= t1 + step * 1e-9; i++) {
        double t = first + i * step;
        double x = left + (t - t0) / (t1 - t0) * width;
        char lab[40], full[40];
        nlr_fmt_time(full, sizeof full, t, step < 1);
        /* the date only where it changes the reading: spans of a day or more */
        const char *l = t1 - t0 >= 86400 ? full + 5 : full + 11;
        snprintf(lab, sizeof lab, "%s", l);
        if (step >= 60 && t1 - t0 < 86400) lab[5] = 0;     /* HH:MM */
        if (t1 - t0 >= 86400 && step >= 86400) lab[5] = 0; /* MM-DD */
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, y, y + 4);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x, y + 15, lab);
    }
    fprintf(f, "</g>\n");
}

static void y_axis(FILE *f, const nlr_chart_t *c)
{
    double step = nice_step(c->ymax - c->ymin, 4);
    fprintf(f, "<g class=\"yaxis\">");
    double first = ceil(c->ymin / step) * step;
    for (int i = 0; i <= 12 && isfinite(first) && first + i * step <= c->ymax; i++) {
        double v = first + i * step;
        char lab[32];
        nlr_fmt_si(lab, sizeof lab, fabs(v) < step * 1e-9 ? 0 : v);
        double y = y_of(c, v);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", PL,
                PL + PW, y, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", PL - 5, y + 4, lab);
    }
    fprintf(f, "</g>\n");
}

/* Where a series of points at times t[0..n) (at most NLR_COLS) has a gap: more than three
 * times the median distance between its points (and at least three columns); 0 for none. */
static double gap_of(const nlr_report_t *r, const double *t, int n)
{
    if (n <= 2) return 0;
    double d[NLR_COLS];
    for (int i = 1; i < n; i++) d[i - 1] = t[i] - t[i - 1];
    int m = n - 1;
    for (int i = 1; i < m; i++) /* insertion sort: at most NLR_COLS values */
        for (int j = i; j > 0 && d[j] < d[j - 1]; j--) {
            double x = d[j];
            d[j] = d[j - 1], d[j - 1] = x;
        }
    double gap = 3 * d[m / 2];
    return gap < (r->t1 - r->t0) / NLR_COLS * 3 ? (r->t1 - r->t0) / NLR_COLS * 3 : gap;
}

/* The mean line, broken where the series has a gap (more than three times the usual
 * distance between its points), and the min-max envelope behind it. A chart of several
 * processes on its host draws each process's mean line apart instead (series s0, s1, ...,
 * with data-prog, data-pid and data-label for the legend). */
static void series(FILE *f, const nlr_report_t *r, const nlr_chart_t *c)
{
    if (!c->ncols) return;
    if (c->nseries > 1) {
        for (int k = 0; k < c->nseries; k++) {
            const nlr_series_t *w = &c->series[k];
            if (!w->ncols) continue;
            double ts[NLR_COLS];
            for (int i = 0; i < w->ncols; i++) ts[i] = w->cols[i].t;
            double gap = gap_of(r, ts, w->ncols);
            fprintf(f, "<path class=\"series s%d\" data-points=\"%d\" data-prog=\"",
                    k % NLR_SERIES_MAX, w->ncols);
            nlr_esc(f, w->prog);
            fputs("\" data-pid=\"", f);
            nlr_esc(f, w->pid);
            fputs("\" data-label=\"", f);
            nlr_esc(f, w->label);
            fputs("\" d=\"", f);
            for (int i = 0; i < w->ncols; i++) {
                int brk = i == 0 || (gap > 0 && w->cols[i].t - w->cols[i - 1].t > gap);
                fprintf(f, "%c%.1f %.1f", brk ? 'M' : 'L', x_of(r, w->cols[i].t),
                        y_of(c, w->cols[i].mean));
            }
            fputs("\"><title>", f);
            nlr_esc(f, w->label);
            fputs("</title></path>\n", f);
            if (w->ncols <= 100)
                for (int i = 0; i < w->ncols; i++)
                    fprintf(f, "<circle class=\"dot s%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\"/>",
                            k % NLR_SERIES_MAX, x_of(r, w->cols[i].t), y_of(c, w->cols[i].mean));
        }
        return;
    }
    double ts[NLR_COLS];
    for (int i = 0; i < c->ncols; i++) ts[i] = c->cols[i].t;
    double gap = gap_of(r, ts, c->ncols);
    fprintf(f, "<path class=\"envelope\" d=\"");
    for (int i = 0, s = 0; i <= c->ncols; i++) {
        if (i == c->ncols || (i > s && gap > 0 && c->cols[i].t - c->cols[i - 1].t > gap)) {
            /* close the segment s..i-1: along the maxima, back along the minima */
            for (int j = s; j < i; j++)
                fprintf(f, "%c%.1f %.1f", j == s ? 'M' : 'L', x_of(r, c->cols[j].t),
                        y_of(c, c->cols[j].hi));
            for (int j = i - 1; j >= s; j--)
                fprintf(f, "L%.1f %.1f", x_of(r, c->cols[j].t), y_of(c, c->cols[j].lo));
            fputc('Z', f);
            s = i;
        }
    }
    fprintf(f, "\"/>\n<path class=\"series\" data-points=\"%d\" d=\"", c->ncols);
    for (int i = 0; i < c->ncols; i++) {
        int brk = i == 0 || (gap > 0 && c->cols[i].t - c->cols[i - 1].t > gap);
        double x = x_of(r, c->cols[i].t), y = y_of(c, c->cols[i].mean);
        fprintf(f, "%c%.1f %.1f", brk ? 'M' : 'L', x, y);
    }
    fprintf(f, "\"/>\n");
    if (c->ncols <= 100) /* few points: each one shown, a lone one too */
        for (int i = 0; i < c->ncols; i++)
            fprintf(f, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\"/>",
                    x_of(r, c->cols[i].t), y_of(c, c->cols[i].mean));
}

static void spans(FILE *f, const nlr_report_t *r, const nlr_chart_t *c)
{
    for (int i = 0; i < c->nspans; i++) {
        const nlr_span_t *s = &c->spans[i];
        double x0 = clampx(x_of(r, s->t0)), x1 = clampx(x_of(r, s->t1));
        if (x1 - x0 < 2) x1 = x0 + 2; /* an instant still shows */
        int ep = s->kind == NLR_SPAN_EPISODE;
        char a[40], b[40];
        nlr_fmt_time(a, sizeof a, s->t0, 1);
        nlr_fmt_time(b, sizeof b, s->t1, 1);
        fprintf(f, "<rect class=\"%s%s\" data-t0=\"%.6f\" data-t1=\"%.6f\" data-label=\"",
                ep ? "episode" : "alert", s->open ? " open" : "", s->t0, s->t1);
        nlr_esc(f, s->label);
        fprintf(f, "\" x=\"%.1f\" width=\"%.1f\" y=\"%.1f\" height=\"%.1f\"><title>", x0, x1 - x0,
                ep ? PT : PT - 10, ep ? PH : 8.0);
        nlr_esc(f, s->detail);
        fprintf(f, "\n%s \xe2\x80\x93 %s%s</title></rect>\n", a, b, s->open ? " (still open)" : "");
    }
}

static void marks(FILE *f, const nlr_report_t *r, const nlr_chart_t *c)
{
    for (int i = 0; i < c->nmarks; i++) {
        const nlr_mark_t *m = &c->marks[i];
        double x = clampx(x_of(r, m->t));
        int miss = m->kind != NLR_MARK_PEER; /* a missing end, or a start cut off */
        fprintf(f, "<g class=\"%s\" data-t=\"%.6f\">",
                m->kind == NLR_MARK_PEER             ? "peer"
                : miss && m->kind == NLR_MARK_CUTOFF ? "cutoff"
                                                     : "missing",
                m->t);
        if (miss && isfinite(m->t_from)) /* from the start that never ended to the report */
            fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                    clampx(x_of(r, m->t_from)), x, PT + PH - 6, PT + PH - 6);
        if (miss)
            fprintf(f, "<path d=\"M%.1f %.1fl-6 -10h12z\"/>", x, PT + PH - 6);
        else
            fprintf(f, "<path d=\"M%.1f %.1fl6 6l-6 6l-6 -6z\"/>", x, PT + 2);
        char at[40];
        nlr_fmt_time(at, sizeof at, m->t, 1);
        fprintf(f, "<title>");
        nlr_esc(f, m->detail);
        fprintf(f, "\n%s</title></g>\n", at);
    }
}

void nlr_svg_chart(FILE *f, const nlr_report_t *r, const nlr_chart_t *c, int id)
{
    fprintf(f,
            "<svg class=\"chart\" id=\"chart-%d\" xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-activity=\"",
            id, SW, SH, SW, SH);
    nlr_esc(f, c->activity);
    fprintf(f, "\" data-host=\"");
    nlr_esc(f, c->host);
    fprintf(f, "\" data-t0=\"%.6f\" data-t1=\"%.6f\" data-x0=\"%.1f\" data-width=\"%.1f\">\n",
            r->t0, r->t1, PL, PW);
    fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", PL,
            PT, PW, PH);
    y_axis(f, c);
    if (isfinite(c->base_p5) && isfinite(c->base_p95)) {
        double y5 = y_of(c, c->base_p5), y95 = y_of(c, c->base_p95), y50 = y_of(c, c->base_p50);
        fprintf(f,
                "<rect class=\"band\" data-p5=\"%.9g\" data-p95=\"%.9g\" data-from=\"%s\" "
                "x=\"%.1f\" width=\"%.1f\" y=\"%.1f\" height=\"%.1f\"/>"
                "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                c->base_p5, c->base_p95,
                c->base_from == NLR_BASE_HISTORY ? "history"
                : c->base_flagged                ? "window-unflagged"
                                                 : "window",
                PL, PW, y95, y5 - y95 > 0.5 ? y5 - y95 : 0.5, PL, PL + PW, y50, y50);
    }
    spans(f, r, c);
    series(f, r, c);
    marks(f, r, c);
    time_axis(f, r->t0, r->t1, PL, PW, PT + PH);
    fprintf(f, "</svg>\n");
}

/* ---- durations and errors under a summary chart ---------------------------------------- */

#define DH 90.0 /* the durations' plot height */
#define EH 40.0 /* the error ratio's plot height */

/* A strip's vertical axis from 0 to top, with its unit, at plot top y0 and height h. */
static void strip_axis(FILE *f, double top, double y0, double h, const char *unit, double scale)
{
    double step = nice_step(top, 3);
    fprintf(f, "<g class=\"yaxis\">");
    for (int i = 0; i <= 12 && i * step <= top; i++) {
        char lab[32];
        nlr_fmt_si(lab, sizeof lab, i * step * scale);
        double y = y0 + h - i * step / top * h;
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", PL,
                PL + PW, y, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s%s</text>", PL - 5, y + 4, lab, unit);
    }
    fprintf(f, "</g>\n");
}

/* One line over the columns (member `off` of nlr_dcol_t), broken at gaps and where it has no
 * value; data-top is the axis' top, so a test can read the values back off the path. */
static void strip_line(FILE *f, const nlr_report_t *r, const nlr_chart_t *c, double gap,
                       size_t off, const char *cls, double top, double y0, double h)
{
    fprintf(f, "<path class=\"%s\" data-top=\"%.9g\" data-y0=\"%.1f\" data-h=\"%.1f\" d=\"", cls,
            top, y0, h);
    int pen = 0;
    for (int i = 0; i < c->ndcols; i++) {
        double v;
        memcpy(&v, (const char *)&c->dcols[i] + off, sizeof v);
        if (!isfinite(v)) {
            pen = 0;
            continue;
        }
        int brk = !pen || (gap > 0 && c->dcols[i].t - c->dcols[i - 1].t > gap);
        fprintf(f, "%c%.1f %.2f", brk ? 'M' : 'L', x_of(r, c->dcols[i].t), y0 + h - v / top * h);
        pen = 1;
    }
    fprintf(f, "\"/>\n");
}

void nlr_svg_durations(FILE *f, const nlr_report_t *r, const nlr_chart_t *c, int id)
{
    int errs = c->emax > 0 || c->err_pairs > 0;
    if (!c->ndcols || (!(c->dmax > 0) && !errs)) return;
    double ts[NLR_COLS];
    for (int i = 0; i < c->ndcols; i++) ts[i] = c->dcols[i].t;
    double gap = gap_of(r, ts, c->ndcols);
    double y = PT, h = (c->dmax > 0 ? DH + 12 : 0) + (errs ? EH + 12 : 0) + 20;
    fprintf(f,
            "<svg class=\"durations\" id=\"dur-%d\" xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-t0=\"%.6f\" "
            "data-t1=\"%.6f\" data-x0=\"%.1f\" data-width=\"%.1f\">\n",
            id, SW, h + PT, SW, h + PT, r->t0, r->t1, PL, PW);
    if (c->dmax > 0) {
        double top = c->dmax * 1.05;
        fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                PL, y, PW, DH);
        strip_axis(f, top, y, DH, "s", 1);
        strip_line(f, r, c, gap, offsetof(nlr_dcol_t, p50), "pct p50", top, y, DH);
        strip_line(f, r, c, gap, offsetof(nlr_dcol_t, p90), "pct p90", top, y, DH);
        strip_line(f, r, c, gap, offsetof(nlr_dcol_t, p99), "pct p99", top, y, DH);
        y += DH + 12;
    }
    if (errs) {
        /* a ratio of 0 throughout still gets an axis: "none failed" is worth seeing */
        double top = c->emax > 0 ? fmin(1, c->emax * 1.1) : 0.01;
        fprintf(f, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                PL, y, PW, EH);
        strip_axis(f, top, y, EH, "%", 100);
        strip_line(f, r, c, gap, offsetof(nlr_dcol_t, err), "errratio", top, y, EH);
        y += EH + 12;
    }
    time_axis(f, r->t0, r->t1, PL, PW, y - 12);
    fprintf(f, "</svg>\n");
}

/* ---- lifelines ------------------------------------------------------------------------ */

#define LL 260.0 /* row labels' width */
#define LW 600.0
#define LANE 18.0
#define INDENT 14.0 /* a child's label, right of its parent's */

/* Who wrote an event of a lifeline: its host, or for a tool's report that names none (nl-detect's
 * nl.missing carries the GUID, not the host; nl-flows' nl.flow.suspect its root GUID) the
 * tool, never "?". */
static const char *life_who(const char *host, const char *event)
{
    if (host[0]) return host;
    if (!strncmp(event, "nl.flow.", 8)) return "nl-flows";
    if (!strncmp(event, "nl.peer.", 8)) return "nl-peers";
    return !strncmp(event, "nl.", 3) ? "nl-detect" : "(no host)";
}

void nlr_svg_life(FILE *f, const nlr_life_t *l, int id)
{
    double t0 = INFINITY, t1 = -INFINITY;
    for (int i = 0; i < l->nrows; i++) t0 = fmin(t0, l->rows[i].t0), t1 = fmax(t1, l->rows[i].t1);
    for (int i = 0; i < l->ndots; i++) t0 = fmin(t0, l->dots[i].t), t1 = fmax(t1, l->dots[i].t);
    if (!(t0 <= t1)) t0 = 0, t1 = 1;
    double pad = (t1 - t0) * 0.04;
    if (pad <= 0) pad = 0.5;
    t0 -= pad, t1 += pad;
#define LX(t) (LL + ((t) - t0) / (t1 - t0) * LW)
#define LY(k) (10 + (k) * LANE + LANE / 2)
    double h = 10 + l->nrows * LANE + 30;
    fprintf(f,
            "<svg class=\"lifeline\" id=\"life-%d\" xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-events=\"%d\" "
            "data-rows=\"%d\">\n",
            id, LL + LW + 16, h, LL + LW + 16, h, l->n, l->nrows);
    for (int k = 0; k < l->nrows; k++) { /* each row: its label, indented by depth, and bar */
        const nlr_life_row_t *w = &l->rows[k];
        double y = LY(k);
        fprintf(f, "<g class=\"span%s%s%s\" data-row=\"%d\" data-parent=\"%d\" "
                   "data-depth=\"%d\" data-t0=\"%.6f\" data-t1=\"%.6f\" data-activity=\"",
                w->point ? " point" : "", w->open ? " open" : "", w->orphan ? " orphan" : "", k,
                w->parent, w->depth, w->t0, w->t1);
        nlr_esc(f, w->name);
        fputs("\" data-host=\"", f);
        nlr_esc(f, w->host);
        fputs("\" data-guid=\"", f);
        nlr_esc(f, w->guid);
        fputs("\">", f);
        if (w->note) { /* on hover anywhere on the row */
            fputs("<title>", f);
            nlr_esc(f, w->note);
            fputs("</title>", f);
        }
        fprintf(f, "<line class=\"lane\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                LL, LL + LW, y, y);
        if (w->parent >= 0) /* from its parent's row down to its own, where it began */
            fprintf(f, "<line class=\"life-link\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                       "y2=\"%.1f\"/>", LX(w->t0), LX(w->t0), LY(w->parent), y);
        if (!w->point)
            fprintf(f, "<rect class=\"life-bar\" x=\"%.1f\" width=\"%.1f\" y=\"%.1f\" "
                       "height=\"8\"/>", LX(w->t0), fmax(LX(w->t1) - LX(w->t0), 1), y - 4);
        fprintf(f, "<text class=\"rowname\" x=\"%.1f\" y=\"%.1f\">", 6 + w->depth * INDENT,
                y + 4);
        nlr_esc(f, w->name);
        fputs(" \xc2\xb7 ", f);
        nlr_esc(f, life_who(w->host, w->name));
        if (w->orphan) fputs(" (orphan)", f);
        if (w->open && !w->point) fputs(" (no end)", f);
        fputs("</text></g>\n", f);
    }
    static const char *const suffix[] = {"", ".start", ".end", ""};
    for (int i = 0; i < l->ndots; i++) {
        const nlr_life_dot_t *d = &l->dots[i];
        char at[40];
        nlr_fmt_time(at, sizeof at, d->t, 1);
        fprintf(f,
                "<circle class=\"life-ev\" data-t=\"%.6f\" data-row=\"%d\" cx=\"%.1f\" "
                "cy=\"%.1f\" r=\"4\"><title>",
                d->t, d->row, LX(d->t), LY(d->row));
        nlr_esc(f, d->event);
        fputs(suffix[d->kind & 3], f);
        fprintf(f, d->host[0] ? " on " : " by ");
        nlr_esc(f, life_who(d->host, d->event));
        fprintf(f, "\n%s</title></circle>\n", at);
    }
    /* a point event on an activity's row says its name, where there are few enough to read */
    int points = 0;
    for (int i = 0; i < l->ndots; i++)
        points += l->dots[i].kind == NL_KIND_OTHER && !l->rows[l->dots[i].row].point;
    for (int i = 0; i < l->ndots && points <= 12; i++) {
        const nlr_life_dot_t *d = &l->dots[i];
        if (d->kind != NL_KIND_OTHER || l->rows[d->row].point) continue;
        int left = LX(d->t) > LL + LW * 0.75; /* near the right edge: written leftwards */
        fprintf(f, "<text class=\"ptname\"%s x=\"%.1f\" y=\"%.1f\">",
                left ? " text-anchor=\"end\"" : "", LX(d->t) + (left ? -7 : 7), LY(d->row) + 4);
        nlr_esc(f, d->event);
        fputs("</text>\n", f);
    }
    time_axis(f, t0, t1, LL, LW, 10 + l->nrows * LANE);
    fprintf(f, "</svg>\n");
#undef LX
#undef LY
}
