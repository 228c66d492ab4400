/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics_fmt.c — the exposition (nld_metrics_render): every family in a fixed order,
 * its HELP, TYPE (and UNIT) lines, then its samples, in OpenMetrics 1.0 text or Prometheus'
 * text format 0.0.4. The two differ in a counter's family name (OpenMetrics names it
 * without _total), UNIT lines and the closing "# EOF". */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_num.h"
#include "nld_metrics_int.h"

typedef struct out {
    nl_buf_t b;
    int om; /* OpenMetrics */
} out_t;

static void put_s(out_t *o, const char *s) { nl__put(&o->b, s, strlen(s)); }

static void put_u(out_t *o, uint64_t v)
{
    char t[24], *e = t + sizeof t;
    char *p = nl__utoa_back(v, e);
    nl__put(&o->b, p, (size_t)(e - p));
}

/* A sample value: integers as such, +Inf/-Inf/NaN as both formats spell them. */
static void put_d(out_t *o, double v)
{
    if (isnan(v)) return put_s(o, "NaN");
    if (isinf(v)) return put_s(o, v > 0 ? "+Inf" : "-Inf");
    if (v == floor(v) && fabs(v) < 1e15) {
        if (v < 0) nl__putc(&o->b, '-');
        return put_u(o, (uint64_t)fabs(v));
    }
    char t[40];
    int n = nl__dtoa(v, t);
    nl__put(&o->b, t, (size_t)n);
}

/* HELP, TYPE and UNIT of a family. `name` is the sample's name without _total: a counter's
 * samples are name_total in both formats, its family is `name` in OpenMetrics and
 * name_total in 0.0.4. */
static void family(out_t *o, const char *name, const char *type, const char *unit, const char *help)
{
    int ctr = !strcmp(type, "counter") && !o->om;
    put_s(o, "# HELP ");
    put_s(o, name);
    if (ctr) put_s(o, "_total");
    nl__putc(&o->b, ' ');
    put_s(o, help);
    put_s(o, "\n# TYPE ");
    put_s(o, name);
    if (ctr) put_s(o, "_total");
    nl__putc(&o->b, ' ');
    put_s(o, type);
    nl__putc(&o->b, '\n');
    if (unit && o->om) {
        put_s(o, "# UNIT ");
        put_s(o, name);
        nl__putc(&o->b, ' ');
        put_s(o, unit);
        nl__putc(&o->b, '\n');
    }
}

/* name{labels[,extra]} value\n */
static void sample_head(out_t *o, const char *name, const char *suffix, const char *labels,
                        size_t llen, const char *extra)
{
    put_s(o, name);
    if (suffix) put_s(o, suffix);
    if (llen || extra) {
        nl__putc(&o->b, '{');
        nl__put(&o->b, labels, llen);
        if (extra) {
            if (llen) nl__putc(&o->b, ',');
            put_s(o, extra);
        }
        nl__putc(&o->b, '}');
    }
    nl__putc(&o->b, ' ');
}

static void sample_u(out_t *o, const char *name, const char *suffix, const nldm_ent_t *e,
                     const char *extra, uint64_t v)
{
    sample_head(o, name, suffix, e ? e->labels : "", e ? e->llen : 0, extra);
    put_u(o, v);
    nl__putc(&o->b, '\n');
}

static void sample_d(out_t *o, const char *name, const char *suffix, const nldm_ent_t *e,
                     const char *extra, double v)
{
    sample_head(o, name, suffix, e ? e->labels : "", e ? e->llen : 0, extra);
    put_d(o, v);
    nl__putc(&o->b, '\n');
}

/* One activity entry's histogram: cumulative buckets from the lowest edge up, +Inf (every
 * pair, with or without a histogram), count, sum. The edges' text is made once per
 * activity and render (les, which the caller keeps between entries of one activity). */
static void histogram(out_t *o, const nldm_ent_t *e, char (*les)[48])
{
    const char *nm = "nlkit_activity_duration_seconds";
    const nldm_act_t *a = e->u.a.act;
    uint64_t cum = e->u.a.below;
    for (uint32_t i = 0; a->nb && i <= a->nb; i++) {
        if (i) cum += e->u.a.cnt[i - 1];
        sample_u(o, nm, "_bucket", e, les[i], cum);
    }
    sample_u(o, nm, "_bucket", e, "le=\"+Inf\"", e->u.a.n);
    sample_u(o, nm, "_count", e, NULL, e->u.a.n);
    sample_d(o, nm, "_sum", e, NULL, e->u.a.dur_sum);
}

/* The le="..." text of every edge of an activity, into les (nb + 1 of them). */
static char (*edges_text(const nld_metrics_t *m, const nldm_act_t *a))[48]
{
    char(*les)[48] = malloc((a->nb + 1) * sizeof *les);
    if (!les) return NULL;
    for (uint32_t i = 0; i <= a->nb; i++) {
        char t[40];
        int n = nl__dtoa(nldm__edge(m->o.per_octave, a->glo + (int32_t)i), t);
        snprintf(les[i], sizeof les[i], "le=\"%.*s\"", n, t);
    }
    return les;
}

/* Every entry of one kind. */
#define EACH(m, k, e)                                                                              \
    for (const nldm_ent_t *e = (m)->lru_head; e; e = e->next)                                      \
        if (e->kind == (k))

static void activities(out_t *o, const nld_metrics_t *m)
{
    family(o, "nlkit_activity_duration_seconds", "histogram", "seconds",
           "Durations of an activity's start/end pairs, from its summaries (n, dur.sum, dur.h).");
    /* entries of one activity need its edges' text: made once per activity */
    char(*les)[48] = NULL;
    int failed = 0;
    for (size_t bi = 0; bi < m->acts.nb; bi++)
        for (nl__ment_t *am = m->acts.b[bi]; am; am = am->next) {
            const nldm_act_t *a = am->val;
            if (!a->ents) continue;
            free(les);
            les = a->nb ? edges_text(m, a) : NULL;
            if (a->nb && !les) {
                failed = 1;
                continue;
            }
            for (const nldm_ent_t *e = a->ents; e; e = e->a_next) histogram(o, e, les);
        }
    free(les);
    if (failed) o->b.err = NL_ENOMEM;
    family(o, "nlkit_activity_value", "counter", NULL,
           "Sum of an activity's event values (v.sum of its summaries), in the value's own "
           "unit.");
    EACH(m, NLDM_ACT, e) sample_d(o, "nlkit_activity_value", "_total", e, NULL, e->u.a.v_sum);
    family(o, "nlkit_activity_open", "gauge", NULL,
           "Activities started and not yet ended at the close of the last summary (open).");
    EACH(m, NLDM_ACT, e)
    if (!isnan(e->u.a.open)) sample_d(o, "nlkit_activity_open", NULL, e, NULL, e->u.a.open);
}

static void verdicts(out_t *o, const nld_metrics_t *m)
{
    family(o, "nlkit_anomaly_active", "gauge", NULL,
           "1 while an anomaly episode of the stream and algorithm is open (nl.anomaly.start "
           "written, nl.anomaly.end not yet), else 0.");
    EACH(m, NLDM_STREAM, e)
    sample_u(o, "nlkit_anomaly_active", NULL, e, NULL, (uint64_t)e->u.s.active);
    family(o, "nlkit_anomaly_score", "gauge", NULL,
           "The stream's last value's score under the algorithm, 0 to 1 (nl-detect(1), SCORES).");
    EACH(m, NLDM_STREAM, e)
    if (e->u.s.has_score) sample_d(o, "nlkit_anomaly_score", NULL, e, NULL, e->u.s.score);
    family(o, "nlkit_anomaly_episodes", "counter", NULL,
           "Anomaly episodes started (nl.anomaly.start lines).");
    EACH(m, NLDM_STREAM, e)
    sample_u(o, "nlkit_anomaly_episodes", "_total", e, NULL, e->u.s.episodes);
    family(o, "nlkit_missing_ends", "counter", NULL,
           "Starts whose end did not come within the timeout (nl.missing lines).");
    EACH(m, NLDM_MISSING, e) sample_u(o, "nlkit_missing_ends", "_total", e, NULL, e->u.m.missing);
    family(o, "nlkit_missing_ends_late", "counter", NULL,
           "Ends that came after being reported missing (nl.missing.late lines).");
    EACH(m, NLDM_MISSING, e) sample_u(o, "nlkit_missing_ends_late", "_total", e, NULL, e->u.m.late);
    family(o, "nlkit_alerts_firing", "gauge", NULL,
           "1 while a subscription's alert is firing (nl.alert.start written, nl.alert.end "
           "not yet), else 0.");
    EACH(m, NLDM_ALERT, e)
    sample_u(o, "nlkit_alerts_firing", NULL, e, NULL, (uint64_t)e->u.w.firing);
}

static void counter(out_t *o, const char *name, const char *help, uint64_t v)
{
    family(o, name, "counter", NULL, help);
    sample_u(o, name, "_total", NULL, NULL, v);
}

static void gauge(out_t *o, const char *name, const char *unit, const char *help, double v)
{
    family(o, name, "gauge", unit, help);
    sample_d(o, name, NULL, NULL, NULL, v);
}

static void health(out_t *o, const nld_metrics_t *m)
{
    const nld_counts_t *c = &m->c;
    counter(o, "nlkit_detect_lines_read", "Input lines read (blank and comment lines included).",
            c->lines);
    counter(o, "nlkit_detect_events", "Input lines read as events.", c->events);
    counter(o, "nlkit_detect_bad_lines", "Input lines rejected (malformed, too long).", c->bad);
    family(o, "nlkit_detect_dropped", "counter", NULL,
           "What nl-detect let go, by reason: streams evicted to stay within max-streams, "
           "pending starts forgotten within max-pending, updates lost for lack of memory, "
           "report lines that could not be written.");
    static const char *const why[] = {"reason=\"stream_evicted\"", "reason=\"pending_evicted\"",
                                      "reason=\"out_of_memory\"", "reason=\"output_error\""};
    uint64_t v[] = {c->evicted, c->pend_evicted, c->oom, c->out_errors};
    for (int i = 0; i < 4; i++) sample_u(o, "nlkit_detect_dropped", "_total", NULL, why[i], v[i]);
    gauge(o, "nlkit_detect_streams", NULL, "Streams and subscription keys tracked now.",
          (double)c->tracked);
    gauge(o, "nlkit_detect_pending_starts", NULL, "Starts awaiting their end now.",
          (double)c->pending);
    if (m->now != INT64_MIN)
        gauge(o, "nlkit_detect_event_time_seconds", "seconds",
              "Event time: the latest ts read, as Unix time.", (double)m->now / 1e6);
    gauge(o, "nlkit_metrics_series", NULL,
          "Series of activities, anomalies, missing ends and alerts held now.", (double)m->nseries);
    gauge(o, "nlkit_metrics_series_limit", NULL, "The most series held (--metrics-max-series).",
          (double)m->o.max_series);
    counter(o, "nlkit_metrics_refused",
            "Updates lost because their series would have passed the limit.", m->refused);
    counter(o, "nlkit_metrics_expired", "Label sets dropped after expire of event time idle.",
            m->expired);
    counter(o, "nlkit_metrics_bad_summaries",
            "Summary lines (or their dur.h) that could not be read: not counted (or counted in "
            "+Inf only).",
            m->bad_summary);
    counter(o, "nlkit_metrics_out_of_memory", "Metric updates lost for lack of memory.", m->oom);
    counter(o, "nlkit_metrics_scrapes", "Scrapes answered.", m->http.scrapes);
    counter(o, "nlkit_metrics_http_errors",
            "Requests answered with an error or closed for being too slow.",
            m->http.errors + m->http.timeouts);
}

int nld_metrics_render(nld_metrics_t *m, int openmetrics, char **outp, size_t *len)
{
    out_t o = {.om = openmetrics};
    nl_buf_init(&o.b, NULL, 0);
    o.b.limit = SIZE_MAX;
    pthread_mutex_lock(&m->mu);
    nl__buf_room(&o.b, 4096 + m->nseries * 96);
    activities(&o, m);
    verdicts(&o, m);
    health(&o, m);
    pthread_mutex_unlock(&m->mu);
    if (openmetrics) put_s(&o, "# EOF\n");
    if (o.b.err) {
        nl_buf_free(&o.b);
        return NL_ENOMEM;
    }
    if (!o.b.heap) nl__buf_grow(&o.b, 1); /* always the caller's to free */
    *outp = o.b.p;
    *len = o.b.len;
    return o.b.err ? NL_ENOMEM : 0;
}
