/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_page.c — the report as one self-contained HTML page: inline CSS and SVG only, no
 * script and nothing fetched, so it opens offline, from a mail attachment or a ticket. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nlkit/nl.h"
#include "nlr.h"

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2630;background:#fff}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid "
    "#d0d7de}h3{font-size:15px;margin:0}"
    ".meta{color:#57606a;margin:2px 0}.findings{margin:10px 0;font-size:15px}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px}"
    ".wide{overflow-x:auto}"
    "th,td{padding:3px 6px;border-bottom:1px solid #eaeef2;text-align:right;white-space:nowrap}"
    "th{background:#f6f8fa;font-weight:600}td.l,th.l{text-align:left}"
    ".dev-ok{background:#dafbe1}.dev-warn{background:#fff1c2}.dev-bad{background:#ffd6d3}"
    ".dev-na{color:#8c959f}.hot{font-weight:600;color:#a40e26}"
    "figure{margin:18px 0}figcaption{margin-bottom:4px}figcaption p{margin:0;color:#57606a}"
    "svg{display:block;font:11px system-ui,sans-serif}"
    ".plot{fill:#fbfcfd;stroke:#d0d7de}.grid{stroke:#eaeef2}"
    ".yaxis text{text-anchor:end;fill:#57606a}.xaxis text{text-anchor:middle;fill:#57606a}"
    ".xaxis line{stroke:#8c959f}"
    ".band{fill:#2f81f7;fill-opacity:.12}.median{stroke:#2f81f7;stroke-dasharray:4 "
    "3;stroke-opacity:.7}"
    ".envelope{fill:#1f4e79;fill-opacity:.16;stroke:none}"
    ".series{fill:none;stroke:#1f4e79;stroke-width:1.6;stroke-linejoin:round}"
    ".episode{fill:#e5534b;fill-opacity:.2;stroke:#e5534b;stroke-opacity:.5}"
    ".alert{fill:#d4a72c;fill-opacity:.85}.open{stroke-dasharray:3 2}"
    ".missing path{fill:#bf8700}.missing line{stroke:#bf8700;stroke-width:2;stroke-dasharray:5 3}"
    ".cutoff path{fill:#8c959f}.cutoff line{stroke:#8c959f;stroke-width:1;stroke-dasharray:2 3}"
    ".peer path{fill:#8250df}"
    ".lane{stroke:#eaeef2}.rowname{fill:#1d2630}.orphan .rowname{fill:#a40e26}"
    ".life-bar{fill:#1f4e79;fill-opacity:.35}.open .life-bar{fill-opacity:.15}"
    ".life-link{stroke:#8c959f;stroke-dasharray:2 2}"
    ".ptname{font-size:10px;fill:#57606a;paint-order:stroke;stroke:#fff;stroke-width:3px}"
    ".pct{fill:none;stroke-width:1.4;stroke-linejoin:round}.p50{stroke:#8fb8de}"
    ".p90{stroke:#3b7dbf}.p99{stroke:#0b2e59;stroke-width:1.8}"
    ".errratio{fill:none;stroke:#cf222e;stroke-width:1.5;stroke-linejoin:round}"
    ".dot{fill:#1f4e79}.life-ev{fill:#1f4e79}"
    ".series.s1,.legend .s1{stroke:#bc4c00;background:#bc4c00}.dot.s1{fill:#bc4c00}"
    ".series.s2,.legend .s2{stroke:#1a7f37;background:#1a7f37}.dot.s2{fill:#1a7f37}"
    ".series.s3,.legend .s3{stroke:#8250df;background:#8250df}.dot.s3{fill:#8250df}"
    ".series.s4,.legend .s4{stroke:#bf3989;background:#bf3989}.dot.s4{fill:#bf3989}"
    ".series.s5,.legend .s5{stroke:#6e7781;background:#6e7781}.dot.s5{fill:#6e7781}"
    ".legend .s0{background:#1f4e79}.legend{margin:2px 0 0}.legend i{display:inline-block;"
    "width:14px;height:3px;margin:0 4px 0 10px;vertical-align:middle}"
    ".key span{display:inline-block;width:14px;height:10px;margin:0 4px 0 12px;"
    "vertical-align:middle}"
    "a{color:#0969da}";

/* Where a chart's baseline came from, said on its caption: history before the window, or
 * the window without what the detector flagged there. */
static void base_name(FILE *f, const nlr_chart_t *c)
{
    if (c->base_from == NLR_BASE_HISTORY)
        fputs("history before the window", f);
    else if (c->base_from == NLR_BASE_WINDOW && c->base_flagged)
        fprintf(f, "this window without the %lld value%s inside anomaly episodes or alerts",
                (long long)c->base_flagged, c->base_flagged == 1 ? "" : "s");
    else if (c->base_from == NLR_BASE_WINDOW)
        fputs("this window, nothing flagged in it", f);
    else
        fputs("none", f);
}

static void fmt_pct(char *out, size_t cap, double v)
{
    if (isnan(v))
        snprintf(out, cap, "\xe2\x80\x94");
    else if (fabs(v) < 0.005)
        snprintf(out, cap, "0%%"); /* not "-0%" */
    else
        snprintf(out, cap, "%+.0f%%", v * 100);
}

static const char *dev_class(double dev)
{
    if (isnan(dev)) return "dev-na";
    double a = fabs(dev);
    return a < 0.10 ? "dev-ok" : a < 0.25 ? "dev-warn" : "dev-bad";
}

static int count_spans(const nlr_chart_t *c, int kind)
{
    int n = 0;
    for (int i = 0; i < c->nspans; i++) n += c->spans[i].kind == kind;
    return n;
}

static int count_marks(const nlr_chart_t *c, int kind)
{
    int n = 0;
    for (int i = 0; i < c->nmarks; i++) n += c->marks[i].kind == kind;
    return n;
}

static void cell_n(FILE *f, int n)
{
    if (n)
        fprintf(f, "<td class=\"hot\">%d</td>", n);
    else
        fprintf(f, "<td>0</td>");
}

static void cell_si(FILE *f, double v, const char *unit)
{
    char s[32];
    nlr_fmt_si(s, sizeof s, v);
    fprintf(f, "<td>%s%s</td>", s, isfinite(v) ? unit : "");
}

static int by_name(const void *a, const void *b)
{
    const nlr_chart_t *x = *(const nlr_chart_t *const *)a, *y = *(const nlr_chart_t *const *)b;
    int c = strcmp(x->activity, y->activity);
    return c ? c : strcmp(x->host, y->host);
}

static void metric_name(FILE *f, const nlr_chart_t *c)
{
    fputs(!strcmp(c->metric, "rate")       ? "rate (value/s)"
          : !strcmp(c->metric, "mean.dur") ? "mean duration (s)"
                                           : "duration (s)",
          f);
}

/* Hosts x activities: what ran, how busy, how far from normal, and what was reported. */
static int overview(FILE *f, const nlr_report_t *r)
{
    const nlr_chart_t **idx = malloc(sizeof *idx * (size_t)(r->ncharts ? r->ncharts : 1));
    if (!idx) return NL_ENOMEM;
    for (int i = 0; i < r->ncharts; i++) idx[i] = &r->charts[i];
    qsort(idx, (size_t)r->ncharts, sizeof *idx, by_name);
    fputs("<section id=\"overview\"><h2>Overview: activities \xc3\x97 hosts</h2>\n", f);
    if (!r->ncharts) {
        fputs("<p>No summarized or start/end activity in this window.</p></section>\n", f);
        free(idx);
        return 0;
    }
    fputs("<div class=\"wide\"><table class=\"overview\"><thead><tr><th "
          "class=\"l\">activity</th><th class=\"l\">"
          "host</th><th>pairs</th><th title=\"of the plotted value: the rate (value/s) of "
          "summaries with values, else the duration\">mean (value/s | s)</th><th>busy (%)</th>"
          "<th>mean dur (s)</th><th>max dur (s)</th><th>p99 dur (s)</th>"
          "<th title=\"err.n / n of the summaries that counted outcomes\">errors (%)</th>"
          "<th>baseline p50 (value/s | s)</th>"
          "<th title=\"the window's mean against the baseline's median\">vs baseline</th>"
          "<th>anomalies</th><th>alerts</th><th>missing</th><th>peers</th></tr></thead><tbody>\n",
          f);
    for (int k = 0; k < r->ncharts; k++) {
        const nlr_chart_t *c = idx[k];
        int i = (int)(c - r->charts);
        fprintf(f, "<tr class=\"%s\"><td class=\"l\">", dev_class(c->dev));
        if (i < r->shown) fprintf(f, "<a href=\"#chart-%d\">", i);
        nlr_esc(f, c->activity);
        if (i < r->shown) fputs("</a>", f);
        fputs("</td><td class=\"l\">", f);
        nlr_esc(f, c->host[0] ? c->host : "\xe2\x80\x94");
        fprintf(f, "</td><td>%lld</td>", (long long)c->events);
        cell_si(f, c->mean, c->unit ? c->unit : "");
        if (isfinite(c->busy))
            fprintf(f, "<td>%.1f%%</td>", c->busy * 100);
        else
            fputs("<td>\xe2\x80\x94</td>", f);
        cell_si(f, c->dur_mean, "s");
        cell_si(f, c->dur_max, "s");
        cell_si(f, c->dur_p99, "s");
        if (c->err_pairs > 0)
            fprintf(f, "<td class=\"errors\">%.3g%%</td>",
                    100.0 * (double)c->err_n / (double)c->err_pairs);
        else
            fputs("<td>\xe2\x80\x94</td>", f);
        cell_si(f, c->base_p50, c->unit ? c->unit : "");
        char pct[32];
        fmt_pct(pct, sizeof pct, c->dev);
        fprintf(f, "<td class=\"%s\">%s</td>", dev_class(c->dev), pct);
        cell_n(f, count_spans(c, NLR_SPAN_EPISODE));
        cell_n(f, count_spans(c, NLR_SPAN_ALERT));
        cell_n(f, count_marks(c, NLR_MARK_MISSING));
        cell_n(f, count_marks(c, NLR_MARK_PEER));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n<p class=\"meta\">pairs: completed start/end pairs (for "
          "summaries, "
          "the sum of n). busy: the share of time inside the activity. p99 dur: exact, from "
          "pairs logged in full; from summaries, their histograms (dur.h) merged, within 1.6 % "
          "(\xe2\x80\x94 where they carry none). errors: the share of pairs whose end's result "
          "said they failed (err.n / n), where the summaries counted outcomes. A unit /s is value per second (bytes/s for "
          "bytes). vs baseline: the "
          "window's mean of the plotted value against the baseline's median; green within 10%, "
          "yellow within 25%, red beyond.</p></section>\n",
          f);
    free(idx);
    return 0;
}

static void figure(FILE *f, const nlr_report_t *r, const nlr_chart_t *c, int id)
{
    char p5[32], p50[32], p95[32];
    nlr_fmt_si(p5, sizeof p5, c->base_p5);
    nlr_fmt_si(p50, sizeof p50, c->base_p50);
    nlr_fmt_si(p95, sizeof p95, c->base_p95);
    fprintf(f, "<figure id=\"fig-%d\"><figcaption><h3>", id);
    nlr_esc(f, c->activity);
    fputs(" on ", f);
    nlr_esc(f, c->host[0] ? c->host : "(no host)");
    fputs("</h3><p>", f);
    metric_name(f, c);
    fprintf(f, ": %lld value%s, mean, min\xe2\x80\x93max per pixel column. Baseline (",
            (long long)c->values, c->values == 1 ? "" : "s");
    base_name(f, c);
    fprintf(f, ", n=%lld): p5 %s, median %s, p95 %s.", (long long)c->base_n, p5, p50, p95);
    if (c->truncated)
        fprintf(f, " %lld pairs beyond the first %d are counted, not plotted.",
                (long long)c->truncated, NLR_PAIRS_MAX);
    if (c->ndcols && (c->dmax > 0 || c->err_pairs > 0)) {
        fputs(" Under it, the same columns' durations", f);
        if (c->dmax > 0) fputs(": p50, p90 and p99 (dark) of their pairs, dur.h merged", f);
        if (c->err_pairs > 0) fputs("; the share of pairs that failed (err.n / n, red)", f);
        fputc('.', f);
        if (c->hist_bad)
            fprintf(f, " %lld unreadable histogram%s left out.", (long long)c->hist_bad,
                    c->hist_bad == 1 ? "" : "s");
    }
    if (c->nseries > 1) { /* the legend: which process each line is */
        fprintf(f, " %d processes on this host, a line each:", c->nseries);
        fputs("</p><p class=\"legend\">", f);
        for (int k = 0; k < c->nseries; k++) {
            fprintf(f, "<span class=\"proc\" data-series=\"s%d\" data-prog=\"", k);
            nlr_esc(f, c->series[k].prog);
            fputs("\" data-pid=\"", f);
            nlr_esc(f, c->series[k].pid);
            fprintf(f, "\"><i class=\"s%d\"></i>", k % NLR_SERIES_MAX);
            nlr_esc(f, c->series[k].label);
            fprintf(f, " (%lld)</span>", (long long)c->series[k].values);
        }
        if (c->series_more)
            fprintf(f, " and %lld value%s of more processes, in the scale but not drawn apart.",
                    (long long)c->series_more, c->series_more == 1 ? "" : "s");
    }
    fputs("</p></figcaption>\n", f);
    nlr_svg_chart(f, r, c, id);
    if (c->kind == NLR_SUMMARY) nlr_svg_durations(f, r, c, id);
    fputs("</figure>\n", f);
}

static void peers(FILE *f, const nlr_report_t *r)
{
    fputs("<section id=\"peers\"><h2>Peer comparison (nl-peers)</h2>\n", f);
    if (!r->npeers) {
        fputs("<p>No nl-peers verdict in the archive for this window (run <code>nl-peers</code> "
              "over the summaries and load its output with <code>nl-load</code> to see the odd "
              "host out here).</p></section>\n",
              f);
        return;
    }
    fputs("<table class=\"peers\"><thead><tr><th class=\"l\">time (UTC)</th><th class=\"l\">"
          "verdict</th><th class=\"l\">host</th><th class=\"l\">activity to blame</th>"
          "<th>score</th></tr></thead><tbody>\n",
          f);
    for (int i = 0; i < r->npeers; i++) {
        const nlr_peer_t *p = &r->peers[i];
        char at[40], sc[32];
        nlr_fmt_time(at, sizeof at, p->t, 0);
        nlr_fmt_si(sc, sizeof sc, p->score);
        fprintf(f, "<tr><td class=\"l\">%s</td><td class=\"l\">", at);
        nlr_esc(f, p->kind);
        fputs("</td><td class=\"l\">", f);
        nlr_esc(f, p->host);
        fputs("</td><td class=\"l\">", f);
        nlr_esc(f, p->culprit[0] ? p->culprit : "\xe2\x80\x94");
        fprintf(f, "</td><td>%s</td></tr>\n", sc);
    }
    fputs("</tbody></table></section>\n", f);
}

static void lifelines(FILE *f, const nlr_report_t *r)
{
    fputs("<section id=\"lifelines\"><h2>Lifelines</h2>\n", f);
    if (!r->nlife)
        fputs("<p>No GUID to follow in this window (ask for one with <code>--guid</code>).</p>\n",
              f);
    for (int i = 0; i < r->nlife; i++) {
        const nlr_life_t *l = &r->life[i];
        fputs(l->by_trace ? "<figure><figcaption><h3>trace " : "<figure><figcaption><h3>guid ", f);
        nlr_esc(f, l->guid);
        fputs("</h3><p>", f);
        nlr_esc(f, l->why);
        fprintf(f, ": %d event%s", l->n, l->n == 1 ? "" : "s");
        if (l->more) fprintf(f, " (and %lld more, not drawn)", (long long)l->more);
        if (l->children)
            fprintf(f, ", with %d child GUID%s (parent.guid)", l->children,
                    l->children == 1 ? "" : "s");
        if (l->guids_more)
            fprintf(f, " (and %lld more child GUIDs, not read)", (long long)l->guids_more);
        fputs("; one row per activity, each child under the activity of its parent that "
              "holds it (the tree nl-flows builds)",
              f);
        if (l->rows_more) fprintf(f, " (and %lld more rows, not drawn)", (long long)l->rows_more);
        int orphans = 0;
        for (int k = 0; k < l->nrows; k++) orphans += l->rows[k].orphan;
        if (orphans)
            fprintf(f, "; %d orphan%s: %s parent is not in the archive", orphans,
                    orphans == 1 ? "" : "s", orphans == 1 ? "its" : "their");
        fputs(".</p></figcaption>\n", f);
        nlr_svg_life(f, l, i);
        fputs("</figure>\n", f);
    }
    fputs("</section>\n", f);
}

int nlr_page_write(FILE *f, const nlr_report_t *r)
{
    char a[40], b[40], now[40];
    nlr_fmt_time(a, sizeof a, r->t0, 0);
    nlr_fmt_time(b, sizeof b, r->t1, 0);
    nlr_fmt_time(now, sizeof now, (double)time(NULL), 0);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\">"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n<title>",
          f);
    nlr_esc(f, r->o->title);
    fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<header><h1>", css);
    nlr_esc(f, r->o->title);
    fputs("</h1><p class=\"meta\">archive ", f);
    char name[4096]; /* a PostgreSQL URI without its password: the page is mailed around */
    nll_db_display_name(r->o->db, name, sizeof name);
    nlr_esc(f, name);
    fprintf(f,
            " \xc2\xb7 %s \xe2\x80\x93 %s UTC \xc2\xb7 %lld events \xc2\xb7 written %s UTC by "
            "nl-report " NLKIT_VERSION "</p>\n",
            a, b, (long long)r->events_total, now);
    fprintf(f,
            "<p class=\"findings\" id=\"findings\"><b>%lld</b> anomaly episode%s, <b>%lld</b> "
            "alert%s, <b>%lld</b> missing end%s, <b>%d</b> peer verdict%s in %d activit%s "
            "\xc3\x97 host%s.",
            (long long)r->episodes, r->episodes == 1 ? "" : "s", (long long)r->alerts,
            r->alerts == 1 ? "" : "s", (long long)r->missing, r->missing == 1 ? "" : "s", r->npeers,
            r->npeers == 1 ? "" : "s", r->ncharts, r->ncharts == 1 ? "y" : "ies",
            r->ncharts == 1 ? "" : "s");
    if (r->cutoff)
        fprintf(f,
                " %lld start%s cut off by the end of the run (its host logged nothing after "
                "it): marked in grey, not counted as missing.",
                (long long)r->cutoff, r->cutoff == 1 ? "" : "s");
    if (r->unplaced)
        fprintf(f,
                " %lld report%s concern%s no chart shown here (another host or activity, or "
                "a start before the window).",
                (long long)r->unplaced, r->unplaced == 1 ? "" : "s", r->unplaced == 1 ? "s" : "");
    if (r->nonfinite)
        fprintf(f,
                " %lld derived value%s (rate or mean duration) past a double's range left "
                "out of the charts.",
                (long long)r->nonfinite, r->nonfinite == 1 ? "" : "s");
    if (r->left_out)
        fprintf(f, " %lld summar%s left out: event and host names longer than 1 KiB together.",
                (long long)r->left_out, r->left_out == 1 ? "y" : "ies");
    fputs("</p>\n<p class=\"key\">"
          "<span style=\"background:#1f4e79\"></span>series"
          "<span style=\"background:#2f81f7;opacity:.3\"></span>baseline p5\xe2\x80\x93p95 "
          "(history before the window, or the window without its flagged values)"
          "<span style=\"background:#e5534b;opacity:.4\"></span>anomaly episode (nl-detect)"
          "<span style=\"background:#d4a72c\"></span>alert"
          "<span style=\"background:#bf8700\"></span>missing end"
          "<span style=\"background:#8250df\"></span>peer verdict"
          "<span style=\"background:#0b2e59\"></span>p99, "
          "<span style=\"background:#3b7dbf\"></span>p90, "
          "<span style=\"background:#8fb8de\"></span>p50 duration (summaries)"
          "<span style=\"background:#cf222e\"></span>error ratio</p></header>\n",
          f);
    if (overview(f, r)) return NL_ENOMEM;
    fputs("<section id=\"charts\"><h2>Series</h2>\n", f);
    for (int i = 0; i < r->shown; i++) figure(f, r, &r->charts[i], i);
    if (r->shown < r->ncharts)
        fprintf(f,
                "<p class=\"meta\">%d more chart%s not drawn (the most unusual %d are); narrow "
                "with --host and --event, or raise --max-charts.</p>\n",
                r->ncharts - r->shown, r->ncharts - r->shown == 1 ? "" : "s", r->shown);
    fputs("</section>\n", f);
    peers(f, r);
    lifelines(f, r);
    fputs("</body></html>\n", f);
    return ferror(f) ? NL_EIO : 0;
}
