/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_line.h — internal: the naming conventions of the line format, in one place for every
 * part that writes or reads them (the summarizer writes summaries from this table; the
 * loader files them into columns, and nl-detect and nl-peers read them, by it):
 *
 *   - an event's kind is its name's suffix: NAME.start, NAME.end (a pair the summarizer
 *     folds, NAME being the activity), NAME.summary (what it writes), anything else;
 *   - identity fields: guid, and every field whose name ends in ".id" (with something
 *     before it): the summarizer pairs and groups by them, the loader files them in `ident`;
 *   - the fields of a NAME.summary line, in the order they are written, and the archive
 *     column each has (tests/lib/test_line_format.c holds them against schemas/).
 *
 * Renaming a summary field here renames it everywhere; a column added to the schema and
 * not here (or the reverse) fails that test. */
#ifndef NLKIT_NL_LINE_H
#define NLKIT_NL_LINE_H

#include <stddef.h>
#include <string.h>

/* ---- event kinds -------------------------------------------------------------------------- */

enum nl_kind {
    NL_KIND_OTHER = 0,  /* a point event: written as it is */
    NL_KIND_START = 1,  /* NAME.start */
    NL_KIND_END = 2,    /* NAME.end */
    NL_KIND_SUMMARY = 3 /* NAME.summary */
};

/* The kind of an event by its name, and *activity_len, the length of NAME (the whole name
 * for NL_KIND_OTHER). A bare suffix (".start") has no activity and is NL_KIND_OTHER. */
static inline int nl__event_kind(const char *ev, size_t len, size_t *activity_len)
{
    *activity_len = len;
    if (len > 6 && !memcmp(ev + len - 6, ".start", 6))
        return *activity_len = len - 6, NL_KIND_START;
    if (len > 4 && !memcmp(ev + len - 4, ".end", 4)) return *activity_len = len - 4, NL_KIND_END;
    if (len > 8 && !memcmp(ev + len - 8, ".summary", 8))
        return *activity_len = len - 8, NL_KIND_SUMMARY;
    return NL_KIND_OTHER;
}

/* 1 if an event of this name is one of the tools' reports (nl.anomaly.*, nl.alert.*,
 * nl.missing*, nl.peer.*, ...: every nl.* name but the library's own nl.log.* and
 * nl.summary.*), which a collector archives only from its own reports socket
 * (syslog-ng.conf.d/nlkit-central.conf holds the same rule as a syslog-ng filter). */
static inline int nl__is_report_event(const char *ev, size_t len)
{
    return len > 3 && !memcmp(ev, "nl.", 3) && !(len >= 7 && !memcmp(ev + 3, "log.", 4)) &&
           !(len >= 11 && !memcmp(ev + 3, "summary.", 8));
}

/* 1 if a field of this name is one of the four every line begins with (ts, event, level,
 * guid): a constant or a pair's value field may not take their names, and a format only
 * guid's (nl_write's own guid field). */
static inline int nl__is_head_field(const char *name, size_t len)
{
    return (len == 2 && !memcmp(name, "ts", 2)) || (len == 4 && !memcmp(name, "guid", 4)) ||
           (len == 5 && (!memcmp(name, "event", 5) || !memcmp(name, "level", 5)));
}

/* 1 if a field of this name is an identity field ("stream.id"; not a bare ".id"), or the
 * parent link parent.guid (nl_open writes it when NL_GUID handed a GUID down). guid is one
 * too, known by its own name. */
static inline int nl__is_id_field(const char *name, size_t len)
{
    return (len > 3 && !memcmp(name + len - 3, ".id", 3)) ||
           (len == 11 && !memcmp(name, "parent.guid", 11));
}

/* ---- the fields of a NAME.summary line ------------------------------------------------- */

/* X(ID, "name on the line", archive column type, "column"): in the order the summarizer
 * writes them (after ts, event, level, guid, the log's constants and the identity fields).
 * INT and REAL fields have a column in the archive's `summary` table; NONE fields (the
 * counts written only when fewer pairs than n carried a value) are kept in `value`.
 *
 *   n          completed start/end pairs in the interval
 *   err.n      those whose end's result field (status=, or the rule's result=) says an
 *              error (summarizer/README.md); written whenever an end carried one
 *   res.n      pairs whose end carried a result field (when fewer than n)
 *   res.2xx ... res.5xx  results that were HTTP statuses, by class (when not 0)
 *   dur.*      their durations, seconds: min max sum sd, and the 50th, 90th and 99th
 *              percentiles from the interval's histogram (internal/nl_hist.h: within 1.6 %)
 *   v.*        the end events' value field: n (if not every pair had one) min max sum sd,
 *              and percentiles as for durations (of the values >= 0)
 *   r.*        value / duration, per pair: likewise
 *   span       last end - first start, seconds
 *   open       pairs started and not ended at the interval's close (as the flusher counted)
 *   int        the interval's length, seconds
 *   orphan.*   starts restarted before their end; ends without a start (when not 0)
 *   v.refused  values that could not enter v.* and r.*: not finite, or beyond
 *              ±NL_MOM_ABS_MAX (when not 0; those pairs count in n, not in v.n)
 *   dur.h.refused, v.h.refused  values left out of a histogram (negative, or more than
 *              64 powers of two from the others; when not 0)
 * After these, the histograms themselves, as text (nl_hist.h's line form), kept in
 * `value`: dur.h, and v.h when values were counted. */
#define NL_SUMMARY_FIELDS(X)                                                                       \
    X(N, "n", INT, "n")                                                                            \
    X(ERR_N, "err.n", INT, "err_n")                                                                \
    X(RES_N, "res.n", NONE, "")                                                                    \
    X(RES_2XX, "res.2xx", NONE, "")                                                                \
    X(RES_3XX, "res.3xx", NONE, "")                                                                \
    X(RES_4XX, "res.4xx", NONE, "")                                                                \
    X(RES_5XX, "res.5xx", NONE, "")                                                                \
    X(DUR_MIN, "dur.min", REAL, "dur_min")                                                         \
    X(DUR_MAX, "dur.max", REAL, "dur_max")                                                         \
    X(DUR_SUM, "dur.sum", REAL, "dur_sum")                                                         \
    X(DUR_SD, "dur.sd", REAL, "dur_sd")                                                            \
    X(DUR_P50, "dur.p50", REAL, "dur_p50")                                                         \
    X(DUR_P90, "dur.p90", REAL, "dur_p90")                                                         \
    X(DUR_P99, "dur.p99", REAL, "dur_p99")                                                         \
    X(V_N, "v.n", NONE, "")                                                                        \
    X(V_MIN, "v.min", REAL, "v_min")                                                               \
    X(V_MAX, "v.max", REAL, "v_max")                                                               \
    X(V_SUM, "v.sum", REAL, "v_sum")                                                               \
    X(V_SD, "v.sd", REAL, "v_sd")                                                                  \
    X(V_P50, "v.p50", REAL, "v_p50")                                                               \
    X(V_P90, "v.p90", REAL, "v_p90")                                                               \
    X(V_P99, "v.p99", REAL, "v_p99")                                                               \
    X(R_N, "r.n", NONE, "")                                                                        \
    X(R_MIN, "r.min", REAL, "r_min")                                                               \
    X(R_MAX, "r.max", REAL, "r_max")                                                               \
    X(R_SUM, "r.sum", REAL, "r_sum")                                                               \
    X(R_SD, "r.sd", REAL, "r_sd")                                                                  \
    X(SPAN, "span", REAL, "span")                                                                  \
    X(OPEN, "open", INT, "open")                                                                   \
    X(INTERVAL, "int", REAL, "interval")                                                           \
    X(ORPHAN_START, "orphan.start", INT, "orphan_start")                                           \
    X(ORPHAN_END, "orphan.end", INT, "orphan_end")                                                 \
    X(V_REFUSED, "v.refused", NONE, "")                                                            \
    X(DUR_H_REFUSED, "dur.h.refused", NONE, "")                                                    \
    X(V_H_REFUSED, "v.h.refused", NONE, "")

#define NL__SF_ENUM(id, name, type, column) NL_SF_##id,
enum nl_summary_field { NL_SUMMARY_FIELDS(NL__SF_ENUM) NL_SF_COUNT };
#undef NL__SF_ENUM

enum nl_col_type { NL_COL_NONE = 0, NL_COL_INT = 1, NL_COL_REAL = 2 };

/* One summary field, as the table above gives it. */
typedef struct nl__sf {
    const char *name;   /* on the line: "dur.sum" */
    size_t len;         /* strlen(name) */
    int type;           /* enum nl_col_type: the column's type, NL_COL_NONE for no column */
    const char *column; /* in the archive's summary table: "dur_sum" ("" for none) */
} nl__sf_t;

/* Indexed by enum nl_summary_field. */
extern const nl__sf_t nl__summary_fields[NL_SF_COUNT];

/* The field's name on the line, by its ID: NL_SF_NAME(DUR_SUM) is "dur.sum". */
#define NL_SF_NAME(id) (nl__summary_fields[NL_SF_##id].name)

/* ---- level names ------------------------------------------------------------------------- */

/* How the archive spells a level name written in any case, or NULL for a name that is no
 * level: nlkit's six (Fatal Error Warn Info Debug Trace), "warning" as Warn (Python's
 * name, which NetLogger's writer passes through), and NetLogger's own further names
 * (Debug2, Debug3, NOLOG). So `level = 'Info'` finds NetLogger's "info" and "INFO". */
const char *nl__level_canon(const char *s, size_t len);

#endif
