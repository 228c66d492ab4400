/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics.h — nl-detect's metrics (--metrics): what the summaries it reads and the
 * verdicts it reaches look like as Prometheus series, kept up to date by the engine's hooks
 * and rendered in the OpenMetrics text format (or Prometheus' text format 0.0.4) for the
 * HTTP endpoint (nld_metrics_http.c). Every metric name and label is in nl-detect(1),
 * METRICS.
 *
 * Threads: the engine's thread feeds the store (nld_metrics_event, _value, _report,
 * _health), the endpoint's thread renders it; one mutex guards it. A scrape holds the
 * mutex only to copy the store (nld_metrics_stream_open), then renders and sends from the
 * copy in pieces, so the engine never waits for a scrape's rendering or sending.
 *
 * Series are grouped by label set (an "entry": an activity and key, a stream, algorithm
 * and key, ...). Entries untouched for `expire` of event time are dropped, their series
 * with them. At most max_series series are held: an entry that would go beyond is not
 * made, and what it would have counted is counted as refused (nlkit_metrics_refused_total).
 * So is one whose label text would take the exposition's label text past max_label_bytes:
 * each series repeats its entry's labels, so the bytes counted are an entry's label text
 * times its series, and the exposition is at most that bound plus NLD_METRICS_SERIES_BYTES
 * a series.
 *
 * Duration histograms: the summaries' own log-linear buckets (`dur.h`, internal/nl_hist.h)
 * merged into `per_octave` buckets per power of two whose edges are edges of those buckets
 * (so each coarse count is exact), as close to a geometric series as they allow. The widest
 * such bucket is nld_metrics_width(per_octave) of its lower edge (0.2 for 4): histogram_quantile()
 * on them is that close to the quantile the summaries themselves give. An activity's buckets span
 * the powers of two its durations have reached, widened on the first summary by
 * NLD_METRICS_PAD_BELOW below and NLD_METRICS_PAD_ABOVE above (so that a slowdown lands in
 * buckets that already exist: a bucket that appears later loses, in rate(), the part of a
 * range before it appeared), at most NLD_METRICS_OCTAVES_MAX of them; durations below the
 * lowest edge count in every bucket, above the highest in +Inf only — both correct, only
 * coarser. */
#ifndef NLKIT_NLD_METRICS_H
#define NLKIT_NLD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "nld.h"

#define NLD_METRICS_PAD_BELOW 2
#define NLD_METRICS_PAD_ABOVE 4
#define NLD_METRICS_OCTAVES_MAX 40
/* Label text of the whole exposition (label text of an entry times its series): default
 * bound, and the most the rest of a sample line takes (name, le, value, punctuation). */
#define NLD_METRICS_LABEL_BYTES (16u << 20)
#define NLD_METRICS_SERIES_BYTES 96

typedef struct nld_metrics nld_metrics_t;

typedef struct nld_metrics_opts {
    size_t max_series;      /* bound on series held (100000) */
    size_t max_label_bytes; /* bound on the exposition's label text (0: NLD_METRICS_LABEL_BYTES) */
    double expire;          /* seconds of event time an idle entry is kept (the engine's) */
    int per_octave;         /* duration buckets per power of two: 1, 2, 4 (default), 8, 16, 32 */
    const char *keys;       /* summary fields that split an activity's series, comma-separated
                               ("host"); at most NLD_KEYS_MAX */
} nld_metrics_opts_t;

/* The widest duration bucket's width over its lower edge with per_octave buckets per power
 * of two (1: 1, 2: 0.42, 4: 0.2, 8: 0.102, 16: 0.061, 32: 0.031); 0 for another number. */
double nld_metrics_width(int per_octave);

/* Whether the key fields keys[0..n) make distinct label names (a.b and a_b would not: both
 * are a_b). 1, or 0 with a message in err. For every selector whose keys become labels. */
int nld_metrics_keys_ok(char *const *keys, int n, char *err, size_t errlen);

/* A new store; NULL with a message in err on a bad option or no memory. */
nld_metrics_t *nld_metrics_new(const nld_metrics_opts_t *o, char *err, size_t errlen);
void nld_metrics_free(nld_metrics_t *m);

/* The engine's hooks (nld_opts_t: event, value with watch_ctx = m; report): summary lines
 * feed the activity series, stream values the scores, reports the anomaly, missing-end and
 * alert series. */
void nld_metrics_event(void *m, const nl_rec_t *r, int64_t now);
void nld_metrics_value(void *m, const nld_value_t *v);
void nld_metrics_report(nld_metrics_t *m, const nld_report_t *r);
/* The engine's counters as they stand at event time `now` (also drops idle entries). */
void nld_metrics_health(nld_metrics_t *m, const nld_counts_t *c, int64_t now);

/* Series held now (what the bound is held against). */
size_t nld_metrics_series(nld_metrics_t *m);

/* The label text the exposition holds now (what max_label_bytes is held against). */
size_t nld_metrics_label_bytes(nld_metrics_t *m);

/* The exposition, streamed: _open copies the store under its lock (the only time a scrape
 * holds it), _read renders from the copy into buf, at most cap bytes at a time (cap >= 1):
 * the bytes written, 0 at the end, -1 out of memory. Memory: the copy (the entries, their
 * label text once, their buckets) and one piece (16 KiB and a sample line), never the
 * whole text. OpenMetrics 1.0 text if openmetrics, else Prometheus' text format 0.0.4.
 * _open returns NULL out of memory. */
typedef struct nld_metrics_stream nld_metrics_stream_t;
nld_metrics_stream_t *nld_metrics_stream_open(nld_metrics_t *m, int openmetrics);
long nld_metrics_stream_read(nld_metrics_stream_t *st, char *buf, size_t cap);
void nld_metrics_stream_close(nld_metrics_stream_t *st);

/* The whole exposition at once (a stream read to its end): *out (malloc'd, the caller
 * frees) gets *len bytes. 0, or NL_ENOMEM. For tests and tools; the endpoint streams. */
int nld_metrics_render(nld_metrics_t *m, int openmetrics, char **out, size_t *len);

/* ---- the endpoint (nld_metrics_http.c) ---------------------------------------------- */
typedef struct nld_metrics_srv nld_metrics_srv_t;

#define NLD_METRICS_CONN_MAX 64       /* connections open at once */
#define NLD_METRICS_CONN_PER_CLIENT 8 /* of them from one client address */
#define NLD_METRICS_RENDER_MAX 4      /* answers being rendered at once (each holds a copy) */
#define NLD_METRICS_RENDER_PER_CLIENT 2
#define NLD_METRICS_REQ_MS 5000   /* from connect to the whole request */
#define NLD_METRICS_SEND_MS 10000 /* from the request to the whole answer taken */

/* What the endpoint has done (also exposed as nlkit_metrics_http_*). */
typedef struct nld_metrics_http_counts {
    uint64_t scrapes;  /* 200 answers taken whole */
    uint64_t errors;   /* connections answered with an error (4xx, 5xx) or left unanswered */
    uint64_t timeouts; /* connections closed for being too slow */
    uint64_t refused;  /* connections refused: over the per-client or the total cap */
} nld_metrics_http_counts_t;

/* Listen on `addr` ("HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" for loopback; PORT 0 for
 * any free one) and serve GET/HEAD /metrics from m on a thread of its own, many
 * connections at once (libmicrohttpd), each with its own deadlines, at most
 * NLD_METRICS_CONN_PER_CLIENT from one client address and NLD_METRICS_CONN_MAX in all.
 * NULL with a message in err if the address is bad or cannot be bound. */
nld_metrics_srv_t *nld_metrics_serve(nld_metrics_t *m, const char *addr, char *err, size_t errlen);
/* The address it listens on, "HOST:PORT" (the port it got if 0 was asked for). */
const char *nld_metrics_srv_addr(const nld_metrics_srv_t *s);
/* Stop answering, join the thread, close the socket. */
void nld_metrics_srv_stop(nld_metrics_srv_t *s);

#endif
