/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr.h — nl-report's modules: what a report holds (the charts of each activity and host,
 * the detector's and nl-peers' reports laid on them, lifelines of GUIDs), how it is read
 * from the archive (nlr_charts.c, nlr_marks.c, nlr_life.c) and how it is drawn (nlr_svg.c,
 * nlr_page.c). Prefix nlr_. Reading functions return 0 or a negative NL_E* code and fill
 * the caller's nll_err_t. */
#ifndef NLKIT_NLR_H
#define NLKIT_NLR_H

#include <stdint.h>
#include <stdio.h>

#include "nll.h"

/* Pixel columns of a chart's plot area: a series is aggregated to at most this many
 * points (min, mean, max per column), however many events the archive holds. */
#define NLR_COLS 800
/* Charts drawn at most by default (the most unusual first); --max-charts changes it. */
#define NLR_MAX_CHARTS 60
/* Baselines from history before the window need this many summaries, else the window's
 * own values are the baseline. */
#define NLR_BASE_MIN 30
/* Values kept per summary chart for the window's percentiles: all of them up to this many,
 * a uniform sample beyond (so memory is bounded whatever the archive). */
#define NLR_BASE_KEEP 100000
/* A baseline from history reads the newest this many summaries before the window. */
#define NLR_BASE_HIST 5000
/* Values kept per summary chart while every chart is read, before the charts are ranked:
 * a uniform sample of them beyond this many gives a chart not drawn its window baseline
 * (the overview table's median, and the rank), so an activity x host costs at most about
 * 2 x 4 KiB however many summaries it has. A drawn chart is read again in full
 * (NLR_BASE_KEEP, NLR_COLS). */
#define NLR_RANK_KEEP 512
/* Pairs kept per activity and host (the first; more are counted, not plotted). */
#define NLR_PAIRS_MAX 2000000
/* Reports (and pair starts) up to this long before the window still count in it. */
#define NLR_LOOKBACK 86400.0
/* Processes (program, or program and pid) drawn apart on one chart at most; the values of
 * more are counted and drawn only in the chart's figures (and its scale). */
#define NLR_SERIES_MAX 6
/* Events drawn on one GUID's lifeline at most. */
#define NLR_LIFE_MAX 2000
/* Child GUIDs (parent.guid, recursively) read into one lifeline at most. */
#define NLR_LIFE_GUIDS 256
/* Rows (activities) of one lifeline drawn at most. */
#define NLR_LIFE_ROWS 200

/* What the report covers, from the command line. */
typedef struct nlr_opts {
    const char *db;
    const char *host_glob;  /* NULL: every host */
    const char *event_glob; /* NULL: every activity (matched against NAME and NAME.summary) */
    const char *guids[8];   /* lifelines asked for; none: chosen (see nlr_life_pick) */
    int nguids;
    double since, until; /* -INFINITY / INFINITY when open */
    int max_charts;
    const char *title;
} nlr_opts_t;

/* One pixel column of a series: the values whose time falls in it. */
typedef struct nlr_col {
    double t;  /* mean time of the values in the column */
    int64_t n; /* values */
    double lo, mean, hi;
} nlr_col_t;

/* One pixel column of a summarized activity's durations and outcomes: the percentiles of
 * its summaries' duration histograms (dur.h) merged, and its error ratio. */
typedef struct nlr_dcol {
    double t;             /* mean time of the summaries in the column */
    double p50, p90, p99; /* seconds; NAN where none of them carries a histogram */
    double err;           /* err.n / n over those that counted outcomes; NAN if none did */
} nlr_dcol_t;

/* One process's series on a chart of several processes on one host: by program, and by
 * pid where one program ran as several processes in the window. */
typedef struct nlr_series {
    char *prog, *pid; /* "" when the events name none */
    char *label;      /* what the legend says: the program, or program[pid] */
    nlr_col_t *cols;
    int ncols;
    int64_t values;
} nlr_series_t;

/* Something that lasted: an anomaly episode of one algorithm, or an alert. */
enum { NLR_SPAN_EPISODE, NLR_SPAN_ALERT };
typedef struct nlr_span {
    int kind;
    double t0, t1;
    int open;     /* not ended within the window: drawn to its end */
    char *label;  /* algorithm, or alert name */
    char *detail; /* shown on hover */
} nlr_span_t;

/* Something that happened at one time: a missing end, a peer verdict, or a start cut off
 * where its host's log ends with the run (reported missing, but no incident: see
 * nlr_marks.c). */
enum { NLR_MARK_MISSING, NLR_MARK_PEER, NLR_MARK_CUTOFF };
typedef struct nlr_mark {
    int kind;
    double t, t_from; /* t_from: the start that never ended (NAN if none) */
    char *label, *detail;
    char *guid; /* a missing end's GUID (for its lifeline), else NULL */
} nlr_mark_t;

/* Where a chart's baseline came from. */
enum { NLR_BASE_NONE, NLR_BASE_HISTORY, NLR_BASE_WINDOW };

/* A series of one activity on one host, with everything drawn over it. */
enum { NLR_SUMMARY, NLR_PAIRS };
typedef struct nlr_chart {
    char *activity; /* NAME of NAME.summary, or of NAME.start/NAME.end pairs */
    char *host;     /* "" when the events name none */
    int kind;
    const char *metric; /* what is plotted: rate, mean.dur (summaries), dur (pairs) */
    const char *unit;
    int64_t events;                    /* completed start/end pairs (a summary's n) */
    int64_t values;                    /* plotted values (summaries or pairs) */
    double mean;                       /* of the plotted metric */
    double busy;                       /* share of time inside the activity, NAN if unknown */
    double dur_mean, dur_max, dur_p99; /* seconds; p99 NAN where not available */
    int64_t base_n;
    int base_from;
    int64_t base_flagged; /* a window baseline: values left out, inside the chart's anomaly
                             episodes and alerts (a baseline must not hold the fault) */
    double base_p5, base_p50, base_p95;
    double dev; /* mean / base_p50 - 1: how far from the baseline */
    nlr_col_t *cols;
    int ncols;
    nlr_series_t *series; /* drawn charts whose values came from two processes or more: one
                             series each (cols then only sets the scale); else none */
    int nseries;
    int64_t series_more;  /* values of processes past NLR_SERIES_MAX, not drawn apart */
    double ymin, ymax; /* over the columns, baseline band included */
    nlr_span_t *spans;
    int nspans, capspans;
    nlr_mark_t *marks;
    int nmarks, capmarks;
    int64_t err_n, err_pairs; /* summaries: err.n summed over those that counted outcomes,
                                 and their n (the error ratio is err_n / err_pairs) */
    nlr_dcol_t *dcols;        /* drawn summary charts: durations and errors per column */
    int ndcols;
    double dmax, emax;  /* tops of their axes (seconds; error ratio, 0 if none counted) */
    int64_t hist_bad;   /* dur.h that could not be read: left out of the percentiles */
    int64_t truncated;  /* pairs past NLR_PAIRS_MAX, left out of percentiles */
    char *slowest_guid; /* pairs: the GUID of the longest pair (a lifeline worth seeing) */
    double slowest;
} nlr_chart_t;

/* A peer verdict (nl-peers' nl.peer.* lines), for the table. */
typedef struct nlr_peer {
    double t;
    char *kind, *host, *culprit;
    double score;
} nlr_peer_t;

/* One event of a GUID's lifeline. */
typedef struct nlr_life_ev {
    double t;
    char *host, *event;
    char *guid, *pguid;   /* its guid and parent.guid ("" for none) */
    char *pspan_id;       /* its parent.span.id as written ("" for none) */
    uint64_t span, pspan; /* span.id, parent.span.id as numbers (0: none) */
} nlr_life_ev_t;

/* One row of a lifeline: an activity from its start to its end, or point events with no
 * activity around them, placed in the request's tree (internal/nl_tree.h, the tree nl-flows
 * builds): a child GUID's activities under the activity of its parent that encloses them. */
typedef struct nlr_life_row {
    double t0, t1;
    char *name;   /* the activity (NAME of NAME.start/.end), or the point event's name */
    char *host;   /* "" for none */
    char *guid;
    char *note;   /* NULL, or what is odd about it: an orphan's missing parent */
    int depth;    /* 0 for a root */
    int parent;   /* row index, -1 for a root */
    int open;     /* started, never ended: drawn to its GUID's last event */
    int point;    /* point events only */
    int orphan;   /* its GUID names a parent that is not in the archive */
} nlr_life_row_t;

/* One event as drawn: on its activity's row (its start or end), or a point event on the
 * row of the activity open around it. */
typedef struct nlr_life_dot {
    double t;
    int row;
    int kind;          /* NL_KIND_START, _END or _OTHER */
    const char *event; /* the row's name for a start or end; else the point's (row strings) */
    const char *host;
} nlr_life_dot_t;

typedef struct nlr_life {
    char *guid, *why; /* guid: the identity followed, a GUID or (by_trace) a trace id */
    int by_trace;     /* the events of a trace (trace.id), across its processes' GUIDs */
    nlr_life_ev_t *ev;
    int n;
    int64_t more;     /* events past NLR_LIFE_MAX */
    int children;     /* child GUIDs found (parent.guid, recursively), their events read */
    int64_t guids_more; /* child GUIDs past NLR_LIFE_GUIDS, not read */
    nlr_life_row_t *rows;
    int nrows;
    int64_t rows_more; /* rows past NLR_LIFE_ROWS, not drawn (their events are counted in n) */
    nlr_life_dot_t *dots;
    int ndots;
    char **strs; /* the rows' and dots' strings */
    int nstrs, capstrs;
} nlr_life_t;

typedef struct nlr_report {
    const nlr_opts_t *o;
    nll_db_t *archive; /* the archive the readers' history baselines come from (nll_base) */
    double t0, t1;     /* the window the charts show */
    nlr_chart_t *charts;
    int ncharts, capcharts;
    int shown; /* charts drawn (the first `shown` after nlr_charts_rank) */
    nlr_peer_t *peers;
    int npeers, cappeers;
    nlr_life_t life[8];
    int nlife;
    int64_t episodes, alerts, missing; /* reports read in the window, on the hosts asked for */
    int64_t cutoff;                    /* missing ends that are starts cut off by the run's end */
    int64_t unplaced;                  /* reports whose activity or host has no chart */
    int64_t events_total;              /* events in the window */
    int64_t left_out;    /* summaries whose event and host names are too long to chart */
    int64_t nonfinite;   /* derived values (rate, mean duration) past a double's range */
    int64_t *report_ids; /* rows of nl-detect's and nl-peers' reports (from a day before) */
    int nreports, capreports;
} nlr_report_t;

/* ---- reading (nlr_charts.c) ------------------------------------------------------------ */

/* Find the window (the options', narrowed to the archive's events) and every chart in it:
 * each summarized activity and each start/end-paired activity per host, with its series
 * aggregated per pixel column, its figures and its baseline; and the rows of the tools'
 * reports (r->report_ids), which nlr_marks_read reads. */
int nlr_charts_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err);
/* Sort the charts for the page: most reports laid on them first, then farthest from their
 * baseline; the first r->shown (at most o->max_charts) are drawn. The overview table lists
 * them all in its own order. */
void nlr_charts_rank(nlr_report_t *r);
/* After nlr_charts_rank: read the drawn charts' series (pixel columns) and, for a window
 * baseline, all their values up to NLR_BASE_KEEP, then their vertical ranges. Until then a
 * chart holds its figures only: memory for the series is spent on the charts drawn, not on
 * every activity and host of the archive. */
int nlr_charts_fill(nll_db_t *db, nlr_report_t *r, nll_err_t *err);
/* The chart of this activity and host, or NULL. */
nlr_chart_t *nlr_chart_find(nlr_report_t *r, const char *activity, const char *host);
/* Add a span or a mark to a chart (NL_ENOMEM if out of memory; the strings are copied). */
int nlr_chart_span(nlr_chart_t *c, int kind, double t0, double t1, int open, const char *label,
                   const char *detail);
int nlr_chart_mark(nlr_chart_t *c, int kind, double t, double t_from, const char *label,
                   const char *detail);
/* 1 if time t lies inside one of the chart's anomaly episodes or alerts: a value the
 * detector flagged, which a window baseline leaves out. */
int nlr_chart_flagged(const nlr_chart_t *c, double t);
/* Grow the array *p (*cap elements of `size` bytes) to hold `need`: 0 or NL_ENOMEM. */
int nlr_grow(void **p, int *cap, int need, size_t size);
/* Free everything the report holds. */
void nlr_report_free(nlr_report_t *r);

/* ---- the detector's and nl-peers' reports (nlr_marks.c) ---------------------------------- */

/* Read nl-detect's anomaly episodes, alerts and missing-end reports and nl-peers' verdicts
 * (the rows nlr_charts_read found) and lay them on the charts they concern. */
int nlr_marks_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err);

/* ---- lifelines (nlr_life.c) -------------------------------------------------------------- */

/* Read the lifelines: the GUIDs asked for; or else the odd flows nl-flows reported in the
 * window (the two of highest score, each beside its typical flow, by trace id when it has
 * one) and the GUIDs of missing-end reports; or else the GUID of the slowest start/end pair
 * in the window. A GUID's lifeline holds its child GUIDs' events too (parent.guid,
 * recursively), and each lifeline's events are built into rows: the request's tree as
 * nl-flows builds it, orphans said so. */
int nlr_life_read(nll_db_t *db, nlr_report_t *r, nll_err_t *err);

/* ---- drawing (nlr_svg.c, nlr_page.c) ---------------------------------------------------- */

/* Write text with &, <, >, " and ' escaped for HTML and SVG. */
void nlr_esc(FILE *f, const char *s);
/* A number with three significant digits and an SI suffix (1.23G), for axes and tables. */
void nlr_fmt_si(char *out, size_t cap, double v);
/* A time as "YYYY-MM-DD HH:MM:SS" UTC (with ".mmm", to the nearest millisecond, if `ms`). */
void nlr_fmt_time(char *out, size_t cap, double t, int ms);
/* One chart as an inline SVG: the series (mean line, min-max envelope), the baseline band,
 * spans shaded and marks drawn. Every element carries its times (data-t0, data-t1) so a
 * test can check what is drawn where. */
void nlr_svg_chart(FILE *f, const nlr_report_t *r, const nlr_chart_t *c, int id);
/* A summary chart's durations and outcomes as an inline SVG under it, on the same time
 * axis: the p50, p90 and p99 of each pixel column (its summaries' histograms merged) and,
 * where outcomes were counted, the error ratio. Nothing if the chart has neither. */
void nlr_svg_durations(FILE *f, const nlr_report_t *r, const nlr_chart_t *c, int id);
/* One lifeline as an inline SVG: a row per activity of the request's tree, indented under
 * its parent and labelled with its name (and host), a bar from its start to its end, its
 * events as dots; an orphan's row says its parent is missing. */
void nlr_svg_life(FILE *f, const nlr_life_t *l, int id);
/* The whole page: title, overview table, charts, peer verdicts, lifelines. */
int nlr_page_write(FILE *f, const nlr_report_t *r);

#endif
