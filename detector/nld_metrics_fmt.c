/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics_fmt.c — the exposition (nld_metrics_stream_*, nld_metrics_render): every
 * family in a fixed order, its HELP, TYPE (and UNIT) lines, then its samples, in OpenMetrics
 * 1.0 text or Prometheus' text format 0.0.4. The two differ in a counter's family name
 * (OpenMetrics names it without _total), UNIT lines and the closing "# EOF".
 *
 * It is rendered from a copy of the store (nldm_snap_t, taken under the store's lock: one
 * pass to size it, one to copy), a few KiB at a time: a scrape of 100,000 series with the
 * longest label text allowed is hundreds of MB of text, and neither the engine (waiting on
 * the lock) nor the memory should pay for it at once. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_clock.h"
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

/* ---- the copy --------------------------------------------------------------------------- */

/* The store as it was: its entries (act entries first, grouped by activity, then streams,
 * missing ends and alerts), each with its labels and buckets in arrays of its own, and the
 * health figures. Entries are nldm_ent_t so that the samples below read them as they were;
 * only their kind, labels and values are used. */
typedef struct nldm_snap {
    nldm_ent_t *e;
    size_t first[NLDM_KINDS + 1]; /* entries of kind k: e[first[k]] to e[first[k+1]) */
    nldm_act_t *acts;
    char *text;    /* every entry's labels, one after the other */
    uint64_t *cnt; /* every activity entry's buckets */
    nld_counts_t c;
    int64_t now;
    size_t nseries, lbytes;
    nld_metrics_opts_t o;
    uint64_t refused, expired, bad_summary, oom;
    nld_metrics_http_counts_t http;
    double copy_s;
} nldm_snap_t;

static void snap_free(nldm_snap_t *s)
{
    free(s->e);
    free(s->acts);
    free(s->text);
    free(s->cnt);
}

/* Copy one entry to s->e[i]: its labels to *tp, its buckets to *cp. */
static void snap_ent(nldm_snap_t *s, size_t i, const nldm_ent_t *e, nldm_act_t *a, char **tp,
                     uint64_t **cp)
{
    nldm_ent_t *d = &s->e[i];
    *d = *e;
    d->prev = d->next = d->a_prev = d->a_next = NULL;
    d->ment = NULL;
    memcpy(*tp, e->labels, e->llen);
    d->labels = *tp;
    *tp += e->llen;
    if (e->kind == NLDM_ACT) {
        d->u.a.act = a;
        d->u.a.cnt = *cp;
        if (a->nb) memcpy(*cp, e->u.a.cnt, a->nb * sizeof **cp);
        *cp += a->nb;
    }
}

/* The sizes of a copy: entries, label text, buckets, activities. */
typedef struct snap_size {
    size_t ne, nt, nc, na;
} snap_size_t;

static snap_size_t snap_size(const nld_metrics_t *m)
{
    snap_size_t z = {0, m->ltext + 1, m->ncnt + 1, m->acts.n + 1};
    for (int k = 0; k < NLDM_KINDS; k++) z.ne += m->nents[k];
    return z;
}

/* Make room for a copy of size z (each array at least as large as asked, with a margin for
 * what the store gains meanwhile, in *have), its pages touched: taken without the lock, so
 * that the engine does not wait for the allocation. 0, or -1 out of memory. */
static int snap_room(nldm_snap_t *s, snap_size_t z, snap_size_t *have)
{
    snap_size_t w = {z.ne + z.ne / 8 + 16, z.nt + z.nt / 8 + 4096, z.nc + z.nc / 8 + 256,
                     z.na + z.na / 8 + 16};
    if (w.ne > have->ne) {
        free(s->e);
        if (!(s->e = malloc(w.ne * sizeof *s->e))) return -1;
        memset(s->e, 0, w.ne * sizeof *s->e);
        have->ne = w.ne;
    }
    if (w.nt > have->nt) {
        free(s->text);
        if (!(s->text = malloc(w.nt))) return -1;
        memset(s->text, 0, w.nt);
        have->nt = w.nt;
    }
    if (w.nc > have->nc) {
        free(s->cnt);
        if (!(s->cnt = malloc(w.nc * sizeof *s->cnt))) return -1;
        memset(s->cnt, 0, w.nc * sizeof *s->cnt);
        have->nc = w.nc;
    }
    if (w.na > have->na) {
        free(s->acts);
        if (!(s->acts = malloc(w.na * sizeof *s->acts))) return -1;
        have->na = w.na;
    }
    return 0;
}

static int snap_fits(snap_size_t z, snap_size_t have)
{
    return z.ne <= have.ne && z.nt <= have.nt && z.nc <= have.nc && z.na <= have.na;
}

/* Take the copy; 0, or -1 out of memory. The store's lock is held only for one pass over
 * its entries: the room is made before, without it (again if the store outgrew it). */
static int snap_take(nld_metrics_t *m, nldm_snap_t *s)
{
    memset(s, 0, sizeof *s);
    snap_size_t have = {0, 0, 0, 0};
    pthread_mutex_lock(&m->mu);
    for (int tries = 0; !snap_fits(snap_size(m), have); tries++) {
        snap_size_t z = snap_size(m);
        pthread_mutex_unlock(&m->mu);
        if (tries == 8 || snap_room(s, z, &have)) {
            snap_free(s);
            return -1;
        }
        pthread_mutex_lock(&m->mu);
    }
    double t0 = nl__mono_s();
    char *tp = s->text;
    uint64_t *cp = s->cnt;
    size_t i = 0, ai = 0;
    for (size_t bi = 0; bi < m->acts.nb; bi++)
        for (nl__ment_t *am = m->acts.b[bi]; am; am = am->next) {
            const nldm_act_t *a = am->val;
            if (!a->ents) continue;
            nldm_act_t *d = &s->acts[ai++];
            *d = *a;
            d->ents = NULL;
            for (const nldm_ent_t *e = a->ents; e; e = e->a_next) snap_ent(s, i++, e, d, &tp, &cp);
        }
    size_t at[NLDM_KINDS];
    s->first[NLDM_ACT] = 0;
    for (int k = NLDM_ACT; k < NLDM_KINDS; k++) {
        s->first[k + 1] = s->first[k] + m->nents[k];
        at[k] = s->first[k];
    }
    for (const nldm_ent_t *e = s->first[NLDM_KINDS] > s->first[NLDM_STREAM] ? m->lru_head : NULL; e;
         e = e->next)
        if (e->kind != NLDM_ACT) snap_ent(s, at[e->kind]++, e, NULL, &tp, &cp);
    s->c = m->c;
    s->now = m->now;
    s->nseries = m->nseries;
    s->lbytes = m->lbytes;
    s->o = m->o;
    s->refused = m->refused;
    s->expired = m->expired;
    s->bad_summary = m->bad_summary;
    s->oom = m->oom;
    s->http = m->http;
    s->copy_s = m->copy_s; /* the one before this: this one is not over */
    m->copy_s = nl__mono_s() - t0;
    pthread_mutex_unlock(&m->mu);
    return 0;
}

/* ---- the families ---------------------------------------------------------------------- */

struct nld_metrics_stream {
    nldm_snap_t s;
    out_t o;      /* the piece being handed out */
    size_t off;   /* how much of it is handed out */
    int fam;      /* the family being rendered (NFAMS: the health series, then the end) */
    size_t i;     /* its next entry */
    uint32_t j;   /* that entry's next sample (histograms) */
    uint64_t cum; /* the cumulative count so far (histograms) */
    int done;
    const nldm_act_t *les_of; /* the activity whose edges' text is in les */
    char (*les)[48];
};

#define PIECE 16384 /* a piece ends at the first sample past this many bytes */

/* The le="..." text of every edge of an activity, into les (nb + 1 of them). */
static char (*edges_text(int per, const nldm_act_t *a))[48]
{
    char(*les)[48] = malloc((a->nb + 1) * sizeof *les);
    if (!les) return NULL;
    for (uint32_t i = 0; i <= a->nb; i++) {
        char t[40];
        int n = nl__dtoa(nldm__edge(per, a->glo + (int32_t)i), t);
        snprintf(les[i], sizeof les[i], "le=\"%.*s\"", n, t);
    }
    return les;
}

/* Sample j of an activity entry's histogram: cumulative buckets from the lowest edge up
 * (j = 0 to nb), +Inf (every pair, with or without a histogram), count, sum. 1 if it was
 * the last. */
static int s_hist(nld_metrics_stream_t *st, const nldm_ent_t *e, uint32_t j)
{
    static const char nm[] = "nlkit_activity_duration_seconds";
    out_t *o = &st->o;
    const nldm_act_t *a = e->u.a.act;
    uint32_t nb = a->nb ? a->nb + 1 : 0;
    if (j < nb) {
        if (st->les_of != a) { /* the edges' text, made once per activity */
            free(st->les);
            st->les_of = NULL;
            if (!(st->les = edges_text(st->s.o.per_octave, a))) {
                o->b.err = NL_ENOMEM;
                return 1;
            }
            st->les_of = a;
        }
        if (!j) st->cum = e->u.a.below;
        if (j) st->cum += e->u.a.cnt[j - 1];
        sample_u(o, nm, "_bucket", e, st->les[j], st->cum);
    } else if (j == nb) {
        sample_u(o, nm, "_bucket", e, "le=\"+Inf\"", e->u.a.n);
    } else if (j == nb + 1) {
        sample_u(o, nm, "_count", e, NULL, e->u.a.n);
    } else {
        sample_d(o, nm, "_sum", e, NULL, e->u.a.dur_sum);
        return 1;
    }
    return 0;
}

/* The one sample of entry e in a family other than the histogram (F_*), if it has one. */
enum { F_HIST, F_VALUE, F_ERRORS, F_OPEN, F_ACTIVE, F_SCORE, F_EPISODES, F_MISSING, F_LATE, F_FIRING };

static void s_one(out_t *o, int id, const nldm_ent_t *e)
{
    switch (id) {
    case F_VALUE: sample_d(o, "nlkit_activity_value", "_total", e, NULL, e->u.a.v_sum); break;
    case F_ERRORS:
        if (e->u.a.has_err) sample_u(o, "nlkit_activity_errors", "_total", e, NULL, e->u.a.err);
        break;
    case F_OPEN:
        if (!isnan(e->u.a.open)) sample_d(o, "nlkit_activity_open", NULL, e, NULL, e->u.a.open);
        break;
    case F_ACTIVE:
        sample_u(o, "nlkit_anomaly_active", NULL, e, NULL, (uint64_t)e->u.s.active);
        break;
    case F_SCORE:
        if (e->u.s.has_score) sample_d(o, "nlkit_anomaly_score", NULL, e, NULL, e->u.s.score);
        break;
    case F_EPISODES:
        sample_u(o, "nlkit_anomaly_episodes", "_total", e, NULL, e->u.s.episodes);
        break;
    case F_MISSING: sample_u(o, "nlkit_missing_ends", "_total", e, NULL, e->u.m.missing); break;
    case F_LATE: sample_u(o, "nlkit_missing_ends_late", "_total", e, NULL, e->u.m.late); break;
    default: sample_u(o, "nlkit_alerts_firing", NULL, e, NULL, (uint64_t)e->u.w.firing); break;
    }
}

/* The families with labels, in the order they are rendered. */
static const struct fam {
    const char *name, *type, *unit, *help;
    int kind, id;
} fams[] = {
    {"nlkit_activity_duration_seconds", "histogram", "seconds",
     "Durations of an activity's start/end pairs, from its summaries (n, dur.sum, dur.h).",
     NLDM_ACT, F_HIST},
    {"nlkit_activity_value", "counter", NULL,
     "Sum of an activity's event values (v.sum of its summaries), in the value's own unit.",
     NLDM_ACT, F_VALUE},
    {"nlkit_activity_errors", "counter", NULL,
     "An activity's pairs whose end's result said it failed (err.n of its summaries); over "
     "nlkit_activity_duration_seconds_count, the error ratio.",
     NLDM_ACT, F_ERRORS},
    {"nlkit_activity_open", "gauge", NULL,
     "Activities started and not yet ended at the close of the last summary (open).", NLDM_ACT,
     F_OPEN},
    {"nlkit_anomaly_active", "gauge", NULL,
     "1 while an anomaly episode of the stream and algorithm is open (nl.anomaly.start "
     "written, nl.anomaly.end not yet), else 0.",
     NLDM_STREAM, F_ACTIVE},
    {"nlkit_anomaly_score", "gauge", NULL,
     "The stream's last value's score under the algorithm, 0 to 1 (nl-detect(1), SCORES).",
     NLDM_STREAM, F_SCORE},
    {"nlkit_anomaly_episodes", "counter", NULL,
     "Anomaly episodes started (nl.anomaly.start lines).", NLDM_STREAM, F_EPISODES},
    {"nlkit_missing_ends", "counter", NULL,
     "Starts whose end did not come within the timeout (nl.missing lines).", NLDM_MISSING,
     F_MISSING},
    {"nlkit_missing_ends_late", "counter", NULL,
     "Ends that came after being reported missing (nl.missing.late lines).", NLDM_MISSING, F_LATE},
    {"nlkit_alerts_firing", "gauge", NULL,
     "1 while a subscription's alert is firing (nl.alert.start written, nl.alert.end not "
     "yet), else 0.",
     NLDM_ALERT, F_FIRING},
};
#define NFAMS (sizeof fams / sizeof fams[0])

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

/* The families without labels (a few KiB): the engine's counters, the store's, the
 * endpoint's. */
static void health(out_t *o, const nldm_snap_t *m)
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
    gauge(o, "nlkit_detect_streams_learning", NULL,
          "Streams too young to judge now (fewer values than min= or young=): they do not page.",
          (double)c->learning);
    counter(o, "nlkit_detect_episodes_held",
            "Episodes a hold-off kept from paging (they came too soon after one that ended), "
            "or beat= (they came on the beat of the stream's earlier runs).",
            c->held);
    counter(o, "nlkit_detect_episodes_beat",
            "Of the held episodes, those on the beat of the stream's earlier runs (beat=).",
            c->beats);
    counter(o, "nlkit_detect_config_mistakes",
            "Stream and subscription definitions said on stderr to match no event, or whose "
            "value= never appeared in the events they matched.",
            c->unmatched);
    if (m->now != INT64_MIN)
        gauge(o, "nlkit_detect_event_time_seconds", "seconds",
              "Event time: the latest ts read, as Unix time.", (double)m->now / 1e6);
    gauge(o, "nlkit_metrics_series", NULL,
          "Series of activities, anomalies, missing ends and alerts held now.", (double)m->nseries);
    gauge(o, "nlkit_metrics_series_limit", NULL, "The most series held (--metrics-max-series).",
          (double)m->o.max_series);
    gauge(o, "nlkit_metrics_label_bytes", "bytes",
          "Label text of the series held now, as the exposition repeats it on each series.",
          (double)m->lbytes);
    gauge(o, "nlkit_metrics_label_bytes_limit", NULL, /* a UNIT must end the name */
          "The most label text the exposition holds.", (double)m->o.max_label_bytes);
    counter(o, "nlkit_metrics_refused",
            "Updates lost because their series or label text would have passed the limit.",
            m->refused);
    counter(o, "nlkit_metrics_expired", "Label sets dropped after expire of event time idle.",
            m->expired);
    counter(o, "nlkit_metrics_bad_summaries",
            "Summary lines (or their dur.h) that could not be read: not counted (or counted in "
            "+Inf only).",
            m->bad_summary);
    counter(o, "nlkit_metrics_out_of_memory", "Metric updates lost for lack of memory.", m->oom);
    gauge(o, "nlkit_metrics_copy_seconds", "seconds",
          "How long the scrape before this one held the store's lock (the engine waiting) to "
          "copy it.",
          m->copy_s);
    counter(o, "nlkit_metrics_scrapes", "Scrapes answered.", m->http.scrapes);
    counter(o, "nlkit_metrics_http_errors",
            "Connections answered with an error, left without a whole request or closed for "
            "being too slow.",
            m->http.errors + m->http.timeouts);
    counter(o, "nlkit_metrics_http_refused",
            "Connections refused: over the per-client or the total connection cap, or over the "
            "answers rendered at once (503).",
            m->http.refused);
}

/* Render the next piece into st->o (emptied first): samples until it passes PIECE bytes or
 * the exposition ends. */
static void next_piece(nld_metrics_stream_t *st)
{
    out_t *o = &st->o;
    o->b.len = 0;
    st->off = 0;
    while (o->b.len < PIECE && !o->b.err) {
        if (st->fam == (int)NFAMS) {
            health(o, &st->s);
            if (o->om) put_s(o, "# EOF\n");
            st->done = 1;
            return;
        }
        const struct fam *f = &fams[st->fam];
        size_t end = st->s.first[f->kind + 1];
        if (st->i == SIZE_MAX) { /* the family's head */
            family(o, f->name, f->type, f->unit, f->help);
            st->i = st->s.first[f->kind];
            st->j = 0;
            continue;
        }
        if (st->i >= end) {
            st->fam++;
            st->i = SIZE_MAX;
            continue;
        }
        const nldm_ent_t *e = &st->s.e[st->i];
        if (f->id != F_HIST) {
            s_one(o, f->id, e);
            st->i++;
        } else if (s_hist(st, e, st->j)) {
            st->i++;
            st->j = 0;
        } else {
            st->j++;
        }
    }
}

nld_metrics_stream_t *nld_metrics_stream_open(nld_metrics_t *m, int openmetrics)
{
    nld_metrics_stream_t *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    if (snap_take(m, &st->s)) {
        free(st);
        return NULL;
    }
    st->o.om = openmetrics;
    nl_buf_init(&st->o.b, NULL, 0);
    st->o.b.limit = SIZE_MAX;
    st->i = SIZE_MAX;
    return st;
}

long nld_metrics_stream_read(nld_metrics_stream_t *st, char *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap) {
        if (st->off == st->o.b.len) {
            if (st->done) break;
            next_piece(st);
            if (st->o.b.err) return -1;
            continue;
        }
        size_t k = st->o.b.len - st->off;
        if (k > cap - n) k = cap - n;
        memcpy(buf + n, st->o.b.p + st->off, k);
        st->off += k;
        n += k;
    }
    return (long)n;
}

void nld_metrics_stream_close(nld_metrics_stream_t *st)
{
    if (!st) return;
    snap_free(&st->s);
    nl_buf_free(&st->o.b);
    free(st->les);
    free(st);
}

int nld_metrics_render(nld_metrics_t *m, int openmetrics, char **outp, size_t *len)
{
    nld_metrics_stream_t *st = nld_metrics_stream_open(m, openmetrics);
    if (!st) return NL_ENOMEM;
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    b.limit = SIZE_MAX;
    long r = 0;
    while (!b.err && nl__buf_room(&b, 65536) &&
           (r = nld_metrics_stream_read(st, b.p + b.len, 65536)) > 0)
        b.len += (size_t)r;
    int bad = b.err || r < 0;
    nld_metrics_stream_close(st);
    if (!bad && !b.heap) nl__buf_grow(&b, 1); /* always the caller's to free */
    if (bad || b.err) {
        nl_buf_free(&b);
        return NL_ENOMEM;
    }
    *outp = b.p;
    *len = b.len;
    return 0;
}
