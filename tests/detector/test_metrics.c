/* SPDX-License-Identifier: BSD-3-Clause */
/* test_metrics.c — nl-detect's metrics store and endpoint (detector/nld_metrics*.c): summary
 * lines into counters that only grow (across intervals and a restarted source) and into
 * buckets whose cumulative counts are exact at every edge; label values escaped and field
 * names made label names; the series bound (refusals counted) and idle expiry; the report
 * hook's gauges; the engine's hooks end to end; the exposition streamed from a copy with
 * the store's lock free meanwhile; the worst exposition and store within the limits (label
 * text bounded in total, the documented sizes measured); and the HTTP server on hostile
 * requests (errors answered, the next client still served), on slow clients and slow
 * readers (each closed at its own deadline, capped per client, a scrape answered beside
 * them). The real Prometheus is in test_metrics_prometheus.py. */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nl_buf.h"
#include "nl_hist.h"
#include "nl_test.h"
#include "nld_metrics.h"
#include "nld_metrics_int.h"

static nld_metrics_t *store(size_t max_series, const char *keys)
{
    nld_metrics_opts_t o = {.max_series = max_series, .expire = 60, .per_octave = 4, .keys = keys};
    char err[128];
    nld_metrics_t *m = nld_metrics_new(&o, err, sizeof err);
    assert_non_null(m);
    return m;
}

/* Feed one line (as nld_line would, after parsing) at its own ts. */
static void feed(nld_metrics_t *m, const char *line)
{
    nl_rec_t r;
    nl_rec_init(&r);
    nl_perr_t e;
    assert_int_equal(nl_parse(&r, line, strlen(line), 1, NL_PARSE_STRICT, &e), 1);
    nld_metrics_event(m, &r, r.ts_usec);
    nl_rec_free(&r);
}

static char *render(nld_metrics_t *m, int om)
{
    char *out;
    size_t len;
    assert_int_equal(nld_metrics_render(m, om, &out, &len), 0);
    char *z = malloc(len + 1);
    assert_non_null(z);
    memcpy(z, out, len);
    z[len] = 0;
    free(out);
    return z;
}

/* The value of the sample line starting with `head` ("name{labels}"), or NAN if absent. */
static double sample(const char *text, const char *head)
{
    size_t n = strlen(head);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, head, n) && p[n] == ' ') return strtod(p + n + 1, NULL);
    return NAN;
}

/* A summary line of activity a on host h with the durations d[0..n) (dur.h built by the
 * summarizer's own histogram code). */
static void summary_line(char *out, size_t cap, const char *ts, const char *a, const char *h,
                         const char *pid, const double *d, int n, double v)
{
    nl__hist_t hist = {0};
    double sum = 0;
    for (int i = 0; i < n; i++) {
        assert_int_equal(nl__hist_add(&hist, d[i]), 0);
        sum += d[i];
    }
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    if (n) nl__hist_put(&b, &hist);
    snprintf(out, cap,
             "ts=%s event=%s.summary level=Info host=%s pid=%s n=%d dur.sum=%.17g v.sum=%g "
             "open=1 int=1%s%.*s",
             ts, a, h, pid, n, sum, v, n ? " dur.h=" : "", (int)b.len, n ? b.p : "");
    nl_buf_free(&b);
    nl__hist_free(&hist);
}

static void test_width(void **state)
{
    (void)state;
    assert_true(fabs(nld_metrics_width(4) - 0.2) < 1e-12);
    assert_true(fabs(nld_metrics_width(32) - 1.0 / 32) < 1e-12);
    assert_true(nld_metrics_width(8) < 0.11 && nld_metrics_width(2) < 0.43);
    assert_true(nld_metrics_width(3) == 0);
    nld_metrics_opts_t o = {.max_series = 10, .expire = 1, .per_octave = 5};
    char err[128];
    assert_null(nld_metrics_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "per power of two"));
}

/* Counters add the intervals' counts, also when the source restarts (another pid): they
 * never go down. Buckets: cumulative counts exact at every edge. */
static void test_counters_and_buckets(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    uint64_t rng = 7;
    double all[600];
    int na = 0;
    char line[8192];
    for (int k = 0; k < 3; k++) {
        double d[200];
        for (int i = 0; i < 200; i++) all[na++] = d[i] = 0.01 * exp(2 * t_unit(&rng));
        char ts[40];
        snprintf(ts, sizeof ts, "2026-11-26T10:00:0%d.000000Z", k);
        summary_line(line, sizeof line, ts, "disk.write", "gw1", k < 2 ? "100" : "200", d, 200,
                     1000);
        feed(m, line);
    }
    char *t = render(m, 0);
    const char *lab = "{activity=\"disk.write\",host=\"gw1\"}";
    char head[256];
    snprintf(head, sizeof head, "nlkit_activity_duration_seconds_count%s", lab);
    assert_true(sample(t, head) == 600);
    snprintf(head, sizeof head, "nlkit_activity_value_total%s", lab);
    assert_true(sample(t, head) == 3000);
    double sum = 0;
    for (int i = 0; i < na; i++) sum += all[i];
    snprintf(head, sizeof head, "nlkit_activity_duration_seconds_sum%s", lab);
    assert_true(fabs(sample(t, head) - sum) < 1e-9 * sum);
    /* every bucket line: its count is the number of durations below its edge (ll5 buckets
     * never straddle an edge), and the counts never decrease */
    int nb = 0;
    double prev = -1;
    for (const char *p = strstr(t, "_bucket{"); p; p = strstr(p + 1, "_bucket{")) {
        const char *le = strstr(p, "le=\"");
        assert_non_null(le);
        double edge = strcmp(le + 4, "+Inf") ? strtod(le + 4, NULL) : INFINITY;
        if (!strncmp(le + 4, "+Inf", 4)) edge = INFINITY;
        double c = strtod(strchr(le, ' ') + 1, NULL);
        int want = 0;
        for (int i = 0; i < na; i++) want += all[i] < edge;
        assert_true(c == want);
        assert_true(c >= prev);
        prev = c;
        nb++;
    }
    /* durations in 2^-7 .. 2^-3 s (4 powers of two), padded by 2 below and 4 above: 4 edges
     * to each, the lowest edge, +Inf */
    assert_int_equal(nb, 4 * (4 + 2 + 4) + 1 + 1);
    free(t);
    nld_metrics_free(m);
}

/* Label values escaped; field names made label names (ours prefixed with key_). */
static void test_labels(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, "host,stream.id,le,9x");
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info "
            "host=\"q\\\"uo\\\\te\\nnl\" stream.id=3 le=x 9x=\"\\xff\" n=0 open=2");
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info "
            "host=\"z\\x00z\" n=0 open=1"); /* a NUL would end the text: U+FFFD */
    char *t = render(m, 1);
    const char *want = "nlkit_activity_open{activity=\"a\",host=\"q\\\"uo\\\\te\\nnl\","
                       "stream_id=\"3\",key_le=\"x\",_9x=\"\xef\xbf\xbd\"} 2";
    if (!strstr(t, want)) print_message("%s\n", t);
    assert_non_null(strstr(t, want));
    assert_non_null(strstr(t, "nlkit_activity_open{activity=\"a\",host=\"z\xef\xbf\xbdz\","
                                "stream_id=\"\",key_le=\"\",_9x=\"\"} 1"));
    assert_non_null(strstr(t, "# TYPE nlkit_activity_value counter\n"));
    assert_non_null(strstr(t, "# UNIT nlkit_activity_duration_seconds seconds\n"));
    assert_non_null(strstr(t, "\n# EOF\n"));
    free(t);
    t = render(m, 0); /* text 0.0.4: a counter's family is named with _total, no # EOF */
    assert_non_null(strstr(t, "# TYPE nlkit_activity_value_total counter\n"));
    assert_null(strstr(t, "# EOF"));
    assert_null(strstr(t, "# UNIT"));
    free(t);
    nld_metrics_free(m);
}

/* At most max_series; what would pass it is refused and counted; idle ones expire. */
static void test_bound_and_expiry(void **state)
{
    (void)state;
    nld_metrics_t *m = store(48, NULL); /* 8 keys of 6 series (no buckets yet) */
    char line[512];
    for (int h = 0; h < 10; h++) {
        snprintf(line, sizeof line,
                 "ts=2026-11-26T10:00:%02d.000000Z event=a.summary level=Info host=h%d n=0", h, h);
        feed(m, line);
    }
    size_t n = nld_metrics_series(m);
    assert_true(n <= 48);
    assert_int_equal(n, 48);
    char *t = render(m, 0);
    assert_true(sample(t, "nlkit_metrics_refused_total") == 2);
    assert_true(sample(t, "nlkit_metrics_series") == 48);
    assert_true(sample(t, "nlkit_metrics_series_limit") == 48);
    free(t);
    /* h5 is touched again at 70 s: at 69 s (expire 60) all the others, idle since 9 s or
     * before, go */
    feed(m, "ts=2026-11-26T10:01:10.000000Z event=a.summary level=Info host=h5 n=1");
    nld_counts_t c = {.lines = 11};
    nld_metrics_health(m, &c, (int64_t)1795687200 * 1000000 + 69 * 1000000LL);
    assert_int_equal(nld_metrics_series(m), 6); /* h5 */
    t = render(m, 0);
    assert_true(sample(t, "nlkit_metrics_expired_total") == 7); /* h0-h4, h6, h7 */
    assert_true(sample(t, "nlkit_detect_lines_read_total") == 11);
    assert_true(sample(t, "nlkit_activity_duration_seconds_count{activity=\"a\",host=\"h5\"}") ==
                1);
    assert_true(
        isnan(sample(t, "nlkit_activity_duration_seconds_count{activity=\"a\",host=\"h0\"}")));
    free(t);
    nld_metrics_free(m);
}

/* Lines that are no summary nlkit wrote: counted, nothing made up. */
static void test_bad_summaries(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info host=x n=abc");
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info host=x n=1.5");
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info host=x n=2 dur.sum=-1");
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.start level=Info host=x n=2");
    assert_int_equal(nld_metrics_series(m), 0);
    /* a dur.h that does not hold n values: the pairs count, in +Inf only */
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=b.summary level=Info host=x n=3 "
            "dur.sum=0.3 dur.h=16300:2");
    char *t = render(m, 0);
    assert_true(sample(t, "nlkit_metrics_bad_summaries_total") == 4);
    assert_true(sample(t, "nlkit_activity_duration_seconds_bucket{activity=\"b\",host=\"x\","
                          "le=\"+Inf\"}") == 3);
    assert_null(strstr(t, "activity=\"a\""));
    free(t);
    nld_metrics_free(m);
}

/* Outcomes: err.n adds up into nlkit_activity_errors_total beside _count, so that an
 * operator divides them for the error ratio; an activity whose summaries never counted
 * outcomes has no errors series (unknown, not 0); err.n that is not a count within n makes
 * the summary a bad one, like any other field. */
static void test_errors(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=req.summary level=Info host=x n=10 "
            "dur.sum=1 err.n=3 res.5xx=3 res.2xx=7");
    feed(m, "ts=2026-11-26T10:00:01.000000Z event=req.summary level=Info host=x n=30 "
            "dur.sum=3 err.n=1");
    feed(m, "ts=2026-11-26T10:00:01.000000Z event=req.summary level=Info host=y n=5 "
            "dur.sum=3 err.n=0");
    feed(m, "ts=2026-11-26T10:00:01.000000Z event=disk.summary level=Info host=x n=5 "
            "dur.sum=3");
    feed(m, "ts=2026-11-26T10:00:02.000000Z event=req.summary level=Info host=x n=2 "
            "dur.sum=1 err.n=3");
    feed(m, "ts=2026-11-26T10:00:02.000000Z event=req.summary level=Info host=x n=2 "
            "dur.sum=1 err.n=0.5");
    char *t = render(m, 0);
    assert_true(sample(t, "nlkit_activity_errors_total{activity=\"req\",host=\"x\"}") == 4);
    assert_true(sample(t, "nlkit_activity_duration_seconds_count{activity=\"req\",host=\"x\"}") ==
                40);
    assert_true(sample(t, "nlkit_activity_errors_total{activity=\"req\",host=\"y\"}") == 0);
    assert_null(strstr(t, "nlkit_activity_errors_total{activity=\"disk\""));
    assert_non_null(strstr(t, "nlkit_activity_duration_seconds_count{activity=\"disk\""));
    assert_true(sample(t, "nlkit_metrics_bad_summaries_total") == 2);
    assert_non_null(strstr(t, "# TYPE nlkit_activity_errors_total counter"));
    free(t);
    nld_metrics_free(m);
}

/* The report hook: anomaly episodes, missing ends and alerts as gauges and counters. */
static void report(nld_metrics_t *m, int kind, int phase, const char *why, const char *line)
{
    char l[512];
    int n = snprintf(l, sizeof l, "%s\n", line);
    nld_report_t r = {.kind = kind,
                      .phase = phase,
                      .id = "x",
                      .id_len = 1,
                      .line = l,
                      .len = (size_t)n,
                      .why = why,
                      .ts = 1795687200000000,
                      .level = NL_LVL_WARN};
    nld_metrics_report(m, &r);
}

static void test_reports(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    const char *a = "ts=2026-11-26T10:00:00.000000Z event=nl.anomaly.start level=Warn "
                    "stream=disk algo=msd-hu key.host=gw3 x=1";
    report(m, NLD_R_ANOMALY, NLD_R_START, NULL, a);
    report(m, NLD_R_ALERT, NLD_R_START, NULL,
           "ts=2026-11-26T10:00:00.000000Z event=nl.alert.start level=Warn name=slow-disk "
           "key.host=gw3");
    report(m, NLD_R_MISSING, NLD_R_START, NULL,
           "ts=2026-11-26T10:00:00.000000Z event=nl.missing level=Warn activity=job.run");
    char *t = render(m, 0);
    const char *s = "{stream=\"disk\",algo=\"msd-hu\",host=\"gw3\"}";
    char h[128];
    snprintf(h, sizeof h, "nlkit_anomaly_active%s", s);
    assert_true(sample(t, h) == 1);
    snprintf(h, sizeof h, "nlkit_anomaly_episodes_total%s", s);
    assert_true(sample(t, h) == 1);
    assert_true(sample(t, "nlkit_alerts_firing{alertname=\"slow-disk\",host=\"gw3\"}") == 1);
    assert_true(sample(t, "nlkit_missing_ends_total{activity=\"job.run\"}") == 1);
    free(t);
    report(m, NLD_R_ANOMALY, NLD_R_END, NULL,
           "ts=2026-11-26T10:00:05.000000Z event=nl.anomaly.end level=Info stream=disk "
           "algo=msd-hu key.host=gw3");
    report(m, NLD_R_ALERT, NLD_R_END, "expired",
           "ts=2026-11-26T10:00:05.000000Z event=nl.alert.end level=Info name=slow-disk "
           "key.host=gw3");
    report(m, NLD_R_ANOMALY, NLD_R_START, NULL, a);
    t = render(m, 0);
    snprintf(h, sizeof h, "nlkit_anomaly_episodes_total%s", s);
    assert_true(sample(t, h) == 2);
    assert_true(sample(t, "nlkit_alerts_firing{alertname=\"slow-disk\",host=\"gw3\"}") == 0);
    free(t);
    nld_metrics_free(m);
}

/* The engine's hooks: a stream's scores and its episode reach the store. */
static void test_engine_hooks(void **state)
{
    (void)state;
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    char err[256];
    assert_int_equal(nld_cfg_parse(&cfg,
                                   "stream lat event=op value=x key=host algo=msd-hu "
                                   "min=20 history=50 episode.min=2\n",
                                   "t.conf", err, sizeof err),
                     0);
    nld_metrics_t *m = store(100000, NULL);
    const char *dir = t_tmpdir();
    char url[512];
    snprintf(url, sizeof url, "file://%s", t_path(dir, "out.log"));
    nl_log_t *out = nl_open(url);
    assert_non_null(out);
    FILE *diag = tmpfile();
    nld_opts_t o = {.diag = diag,
                    .report = (nld_report_fn)nld_metrics_report,
                    .report_ctx = m,
                    .event = nld_metrics_event,
                    .value = nld_metrics_value,
                    .watch_ctx = m};
    nld_t *d = nld_new(&cfg, out, &o, err, sizeof err);
    assert_non_null(d);
    uint64_t rng = 3;
    char line[256];
    for (int i = 0; i < 60; i++) {
        double x = i < 50 ? 10 + t_unit(&rng) : 100;
        int n = snprintf(line, sizeof line,
                         "ts=2026-11-26T10:%02d:%02d.000000Z event=op level=Info host=h1 x=%g",
                         i / 60, i % 60, x);
        nld_line(d, line, (size_t)n, "t", i + 1);
        if (i == 6) { /* 6 values of min=20 published: the stream says it is learning */
            char *t5 = render(m, 0);
            assert_true(sample(t5, "nlkit_detect_streams_learning") == 1);
            free(t5);
        }
        nld_counts_t c;
        nld_counts(d, &c);
        nld_metrics_health(m, &c, nld_now(d));
    }
    char *t = render(m, 0);
    const char *s = "{stream=\"lat\",algo=\"msd-hu\",host=\"h1\"}";
    char h[128];
    snprintf(h, sizeof h, "nlkit_anomaly_active%s", s);
    assert_true(sample(t, h) == 1);
    snprintf(h, sizeof h, "nlkit_anomaly_score%s", s);
    assert_true(sample(t, h) > 0.9);
    assert_true(sample(t, "nlkit_detect_events_total") == 60);
    assert_true(sample(t, "nlkit_detect_streams") == 1);
    assert_true(sample(t, "nlkit_detect_streams_learning") == 0); /* 60 values: judged */
    assert_true(sample(t, "nlkit_detect_episodes_held_total") == 0);
    assert_true(sample(t, "nlkit_detect_episodes_beat_total") == 0);
    assert_true(sample(t, "nlkit_detect_config_mistakes_total") == 0);
    free(t);
    nld_free(d);
    nl_close(out);
    fclose(diag);
    nld_cfg_free(&cfg);
    nld_metrics_free(m);
    t_rmtree(dir);
}

/* ---- the endpoint -------------------------------------------------------------------------- */

/* A connection to addr from the loopback address src (127.0.0.x: another client). */
static int connect_from(const char *src, const char *addr)
{
    const char *c = strrchr(addr, ':');
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(c + 1))};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in me = {.sin_family = AF_INET};
    inet_pton(AF_INET, src, &me.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof me), 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

static int connect_to(const char *addr) { return connect_from("127.0.0.1", addr); }

/* An answer in chunked transfer coding (RFC 9112 7.1) made plain, in place: its head kept,
 * its chunks' sizes taken out. */
static void dechunk(char *ans)
{
    char *body = strstr(ans, "\r\n\r\n");
    if (!body || !strstr(ans, "Transfer-Encoding: chunked")) return;
    body += 4;
    char *in = body, *out = body;
    for (;;) {
        char *end;
        unsigned long n = strtoul(in, &end, 16);
        if (end == in || strncmp(end, "\r\n", 2) || !n) break;
        in = end + 2;
        memmove(out, in, n);
        out += n;
        in += n + 2;
    }
    *out = 0;
}

/* Send req (len bytes), read the whole answer (the server closes) into a static buffer. */
static const char *ask(const char *addr, const char *req, size_t len)
{
    static char ans[1 << 16];
    int fd = connect_to(addr);
    if (len) assert_true(send(fd, req, len, MSG_NOSIGNAL) == (ssize_t)len);
    shutdown(fd, SHUT_WR);
    size_t n = 0;
    ssize_t r;
    while (n < sizeof ans - 1 && (r = recv(fd, ans + n, sizeof ans - 1 - n, 0)) > 0) n += (size_t)r;
    ans[n] = 0;
    close(fd);
    dechunk(ans);
    return ans;
}

/* The metrics' own sample `head` once it reaches `want` (counted when a connection
 * closes, which the client may see first), or its value after ms. */
static double counter_within(nld_metrics_t *m, const char *head, double want, int ms)
{
    double v = NAN;
    for (int i = 0; i < ms / 10; i++) {
        char *t = render(m, 0);
        v = sample(t, head);
        free(t);
        if (v >= want) break;
        usleep(10000);
    }
    return v;
}

static double counter_reaches(nld_metrics_t *m, const char *head, double want)
{
    return counter_within(m, head, want, 5000);
}

static void status_is(const char *addr, const char *req, const char *status)
{
    const char *a = ask(addr, req, strlen(req));
    if (strncmp(a, status, strlen(status))) print_message("asked %s\ngot %s\n", req, a);
    assert_memory_equal(a, status, strlen(status));
}

static void test_http(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info host=x n=1 dur.sum=1");
    char err[256];
    assert_null(nld_metrics_serve(m, "127.0.0.1:99999", err, sizeof err));
    assert_null(nld_metrics_serve(m, "[::1", err, sizeof err));
    nld_metrics_srv_t *s = nld_metrics_serve(m, "127.0.0.1:0", err, sizeof err);
    assert_non_null(s);
    const char *addr = nld_metrics_srv_addr(s);
    const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    const char *a = ask(addr, req, strlen(req));
    assert_non_null(strstr(a, "HTTP/1.1 200 OK\r\n"));
    assert_non_null(strstr(a, "Content-Type: text/plain; version=0.0.4"));
    assert_non_null(
        strstr(a, "nlkit_activity_duration_seconds_count{activity=\"a\",host=\"x\"} 1\n"));
    req = "GET /metrics?x=1 HTTP/1.1\r\naccept: application/openmetrics-text;"
          "version=1.0.0,text/plain;q=0.5\r\n\r\n";
    a = ask(addr, req, strlen(req));
    assert_non_null(strstr(a, "application/openmetrics-text; version=1.0.0"));
    assert_non_null(strstr(a, "# EOF\n"));
    req = "HEAD /metrics HTTP/1.0\r\n\r\n";
    a = ask(addr, req, strlen(req));
    assert_non_null(strstr(a, "200 OK"));
    assert_null(strstr(a, "# HELP"));
    status_is(addr, "POST /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405");
    status_is(addr, "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 404");
    status_is(addr, "GET /metricsx HTTP/1.1\r\n\r\n", "HTTP/1.1 404");
    status_is(addr, "GET /metrics HTTP/2.0\r\n\r\n", "HTTP/1.1 505");
    status_is(addr, "GET /metrics\r\n\r\n", "HTTP/1.1 400");
    /* libmicrohttpd parses the request line on runs of spaces (RFC 9112 3 allows it) */
    status_is(addr, "GET  /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200");
    status_is(addr, "GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n", "HTTP/1.1 400");
    status_is(addr, "GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n", "HTTP/1.1 400");
    status_is(addr, "\x01\x02\x03 / HTTP/1.1\r\n\r\n", "HTTP/1.1 400");
    /* a NUL ends the target for libmicrohttpd: /met, not found */
    a = ask(addr, "GET /met\0rics HTTP/1.1\r\n\r\n", sizeof "GET /met\0rics HTTP/1.1\r\n\r\n" - 1);
    assert_memory_equal(a, "HTTP/1.1 4", 10);
    /* a header that never ends */
    char *big = malloc(20000);
    assert_non_null(big);
    memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
    memset(big + 26, 'a', 20000 - 26);
    int fd = connect_to(addr);
    send(fd, big, 20000, MSG_NOSIGNAL); /* the server may close before it has all */
    char ans[256] = "";
    ssize_t r = recv(fd, ans, sizeof ans - 1, 0);
    assert_true(r > 0);
    assert_memory_equal(ans, "HTTP/1.1 431", 12);
    close(fd);
    free(big);
    /* a client that goes away mid-request, one that sends nothing: the next is served */
    ask(addr, "GET /metr", 9);
    ask(addr, "", 0);
    status_is(addr, "GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200");
    assert_true(counter_reaches(m, "nlkit_metrics_scrapes_total", 5) == 5);
    assert_true(counter_reaches(m, "nlkit_metrics_http_errors_total", 11) >= 11);
    nld_metrics_srv_stop(s);
    nld_metrics_free(m);
}


/* ---- many clients at once ------------------------------------------------------------------ */

static double ms_since(double t0) { return (t_now_s() - t0) * 1000; }

/* Whether the server closed fd (EOF or reset) within ms, reading and dropping what comes;
 * 0 if it is still open then. */
static int closed_within(int fd, int ms)
{
    double t0 = t_now_s();
    char buf[65536];
    while (ms_since(t0) < ms) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return 1;
    }
    return 0;
}

/* A scrape from src, which must be answered whole within ms: its status line and whether
 * the body ended ("# EOF"). */
static int scrape_within(const char *src, const char *addr, int ms)
{
    int fd = connect_from(src, addr);
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const char *req = "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text\r\n\r\n";
    assert_true(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    double t0 = t_now_s();
    char tail[16] = "", head[16] = "";
    size_t got = 0;
    char buf[65536];
    ssize_t r;
    while (ms_since(t0) < ms && (r = recv(fd, buf, sizeof buf, 0)) > 0) {
        if (!got) memcpy(head, buf, r < 12 ? (size_t)r : 12);
        got += (size_t)r;
        if (r >= 15) memcpy(tail, buf + r - 15, 15);
    }
    close(fd);
    int ok = !strncmp(head, "HTTP/1.1 200", 12) && strstr(tail, "EOF") != NULL;
    if (!ok) print_message("scrape from %s: %zu bytes, head %s\n", src, got, head);
    return ok && ms_since(t0) < ms;
}

/* The slow clients: a client holding many connections, each dripping its request
 * a byte at a time, delayed every scrape by 5 s each (one connection at a time). Now: the
 * connections over the per-client cap are refused at once, a scrape from elsewhere is
 * answered beside them, and each is closed at its own deadline (NLD_METRICS_REQ_MS from
 * its connect), dripping or not. */
static void test_http_slow_clients(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info host=x n=1 dur.sum=1");
    char err[256];
    nld_metrics_srv_t *s = nld_metrics_serve(m, "127.0.0.1:0", err, sizeof err);
    assert_non_null(s);
    const char *addr = nld_metrics_srv_addr(s);
    enum { N = NLD_METRICS_CONN_PER_CLIENT };
    int slow[N];
    double t0 = t_now_s();
    for (int i = 0; i < N; i++) {
        slow[i] = connect_from("127.0.0.2", addr);
        assert_true(send(slow[i], "GET /metrics HTTP/1.1\r\nX: ", 26, MSG_NOSIGNAL) == 26);
    }
    /* one more from the same client: closed at once, unanswered */
    int extra = connect_from("127.0.0.2", addr);
    assert_true(closed_within(extra, 3000));
    close(extra);
    /* a scrape from another client, beside them: answered whole (old server: after 5 s
     * for each slow connection ahead of it) */
    assert_true(scrape_within("127.0.0.1", addr, 3000));
    /* the slow ones: one drips a byte every 100 ms; all are closed at their deadline */
    double closed[N];
    int open = N;
    for (int i = 0; i < N; i++) closed[i] = -1;
    while (open && ms_since(t0) < 15000) {
        send(slow[0], "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        for (int i = 0; i < N; i++)
            if (closed[i] < 0 && closed_within(slow[i], 100 / N + 1)) {
                closed[i] = ms_since(t0);
                open--;
            }
    }
    for (int i = 0; i < N; i++) {
        if (closed[i] < NLD_METRICS_REQ_MS - 1000 || closed[i] > NLD_METRICS_REQ_MS + 4000)
            print_message("slow connection %d closed after %.0f ms\n", i, closed[i]);
        assert_true(closed[i] >= NLD_METRICS_REQ_MS - 1000);
        assert_true(closed[i] <= NLD_METRICS_REQ_MS + 4000);
        close(slow[i]);
    }
    assert_true(counter_reaches(m, "nlkit_metrics_http_refused_total", 1) == 1);
    assert_true(counter_reaches(m, "nlkit_metrics_http_errors_total", N) == N);
    assert_true(counter_reaches(m, "nlkit_metrics_scrapes_total", 1) == 1);
    nld_metrics_srv_stop(s);
    nld_metrics_free(m);
}

/* A summary of activity a on host h (a name of hlen bytes, made from i) with durations over
 * 4 powers of two: its entry has 47 series. */
static void feed_host(nld_metrics_t *m, const char *a, int i, size_t hlen)
{
    static char line[16384];
    char host[4200];
    int n = snprintf(host, sizeof host, "h%d.", i);
    memset(host + n, 'x', hlen - (size_t)n);
    host[hlen] = 0;
    double d[4] = {0.01, 0.02, 0.04, 0.08};
    summary_line(line, sizeof line, "2026-11-26T10:00:00.000000Z", a, host, "1", d, 4, 1);
    feed(m, line);
}

/* Slow readers: a client that asks and never reads holds its answer (and a copy of the
 * store) only until NLD_METRICS_SEND_MS; no more than NLD_METRICS_RENDER_PER_CLIENT of
 * them from one client (503), and a scrape from another is answered beside them. */
static void test_http_slow_readers(void **state)
{
    (void)state;
    nld_metrics_opts_t o = {.max_series = 100000, .expire = 60, .per_octave = 4,
                            .max_label_bytes = 64u << 20};
    char err[256];
    nld_metrics_t *m = nld_metrics_new(&o, err, sizeof err);
    assert_non_null(m);
    for (int i = 0; i < 500; i++) feed_host(m, "big", i, 1000); /* ~25 MB of exposition */
    nld_metrics_srv_t *s = nld_metrics_serve(m, "127.0.0.1:0", err, sizeof err);
    assert_non_null(s);
    const char *addr = nld_metrics_srv_addr(s);
    const char *req = "GET /metrics HTTP/1.1\r\n\r\n";
    enum { N = NLD_METRICS_RENDER_PER_CLIENT };
    int rd[N];
    for (int i = 0; i < N; i++) {
        rd[i] = connect_from("127.0.0.3", addr);
        int small = 4096; /* so that the answer stays in the server's hands */
        setsockopt(rd[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
        assert_true(send(rd[i], req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    }
    usleep(300000);
    double t0 = t_now_s();
    /* a third answer for the same client: 503 */
    int fd = connect_from("127.0.0.3", addr);
    assert_true(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    char ans[64] = "";
    struct timeval tv = {.tv_sec = 3};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    assert_true(recv(fd, ans, sizeof ans - 1, 0) > 12);
    assert_memory_equal(ans, "HTTP/1.1 503", 12);
    close(fd);
    /* another client's scrape, beside them: whole */
    assert_true(scrape_within("127.0.0.1", addr, 8000));
    /* the slow readers' answers end at their deadline (counted): the client can ask again */
    double e = counter_within(m, "nlkit_metrics_http_errors_total", N + 1,
                              NLD_METRICS_SEND_MS + 4000);
    if (e < N + 1) print_message("%.0f errors after %.0f ms\n", e, ms_since(t0));
    assert_true(e >= N + 1); /* the 503, the slow readers */
    assert_true(ms_since(t0) > NLD_METRICS_SEND_MS - 1500);
    for (int i = 0; i < N; i++) close(rd[i]);
    assert_true(scrape_within("127.0.0.3", addr, 8000));
    nld_metrics_srv_stop(s);
    nld_metrics_free(m);
}

/* ---- the worst exposition within the limits ------------------------------------------------ */

static size_t heap_used(void) { return mallinfo2().uordblks; }

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAP_MEASURED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEAP_MEASURED 0
#endif
#endif
#ifndef HEAP_MEASURED
#define HEAP_MEASURED 1 /* mallinfo2 sees the sanitizers' allocations not at all */
#endif

/* The scrape: 5,000 hosts with 4,000-byte names (within the 4,096 bytes of label
 * text an entry may have) made 397 MB of text per scrape, 410 MB at its peak. Now the
 * label text is bounded in total (refused beyond, counted): the exposition is at most
 * max_label_bytes + NLD_METRICS_SERIES_BYTES a series (+ its fixed families), and a scrape
 * takes a copy of the store and one piece at a time, never the whole text. */
static void test_worst_exposition(void **state)
{
    (void)state;
    size_t h0 = heap_used();
    nld_metrics_t *m = store(100000, NULL);
    for (int i = 0; i < 5000; i++) feed_host(m, "a", i, 4000);
    size_t h1 = heap_used(), series = nld_metrics_series(m), lb = nld_metrics_label_bytes(m);
    assert_true(lb <= NLD_METRICS_LABEL_BYTES);
    assert_true(lb > NLD_METRICS_LABEL_BYTES - 47 * 4100); /* full: the next one was refused */
    char *t = render(m, 1);
    size_t len = strlen(t), bound = NLD_METRICS_LABEL_BYTES + series * NLD_METRICS_SERIES_BYTES + 16384;
    double refused = sample(t, "nlkit_metrics_refused_total");
    print_message("worst exposition: %zu series, %zu bytes of labels, %zu bytes (bound %zu), "
                  "%.0f refused; store %zu bytes\n",
                  series, lb, len, bound, refused, h1 - h0);
    assert_true(len <= bound);
    assert_true(refused > 4000);
    assert_true(sample(t, "nlkit_metrics_label_bytes") == (double)lb);
    assert_true(sample(t, "nlkit_metrics_label_bytes_limit") == NLD_METRICS_LABEL_BYTES);
    free(t);
    /* streamed: the copy plus a piece, not the text (the store's size again, at most) */
    size_t before = heap_used(), peak = before, got = 0;
    nld_metrics_stream_t *st = nld_metrics_stream_open(m, 1);
    assert_non_null(st);
    char buf[8192];
    long r;
    while ((r = nld_metrics_stream_read(st, buf, sizeof buf)) > 0) {
        got += (size_t)r;
        size_t h = heap_used();
        if (h > peak) peak = h;
    }
    assert_true(r == 0);
    nld_metrics_stream_close(st);
    assert_true(got + 64 > len && got < len + 64); /* but nlkit_metrics_copy_seconds */
    print_message("a scrape's peak: %zu bytes beside the store's %zu\n", peak - before, h1 - h0);
    if (HEAP_MEASURED) assert_true(peak - before <= (h1 - h0) + (256u << 10));
    nld_metrics_free(m);
}

/* The store at its worst within the default limits: 100,000 one-series label sets (alerts)
 * whose label text fills max_label_bytes. What nl-detect(1) and LIMITS.md say it takes. */
static void test_worst_store(void **state)
{
    (void)state;
    size_t h0 = heap_used();
    nld_metrics_t *m = store(100000, NULL);
    size_t klen = NLD_METRICS_LABEL_BYTES / 100000 - 40; /* alertname="nNNNNN",host="..." */
    char host[256];
    memset(host, 'y', klen);
    host[klen] = 0;
    for (int i = 0; i < 100000; i++) {
        char line[512];
        snprintf(line, sizeof line,
                 "ts=2026-11-26T10:00:00.000000Z event=nl.alert.start level=Warn name=n%06d "
                 "key.host=%s",
                 i, host);
        report(m, NLD_R_ALERT, NLD_R_START, NULL, line);
    }
    size_t h1 = heap_used();
    assert_int_equal(nld_metrics_series(m), 100000);
    size_t lb = nld_metrics_label_bytes(m), per = (h1 - h0 - lb) / 100000;
    print_message("worst store: 100000 series, %zu bytes of labels, %zu bytes in all: %zu a "
                  "series beside its labels\n",
                  lb, h1 - h0, per);
    if (HEAP_MEASURED) assert_true(h1 - h0 <= NLD_METRICS_LABEL_BYTES + 100000 * 320);
    /* what the engine waits for when this store is scraped: one pass to copy it, not the
     * 17 MB of text (a generous bound: 38 MB copied, on 2 busy cores, under sanitizers) */
    double t0 = t_now_s();
    nld_metrics_stream_t *st = nld_metrics_stream_open(m, 0);
    double held = t_now_s() - t0;
    assert_non_null(st);
    t0 = t_now_s();
    char buf[65536];
    size_t got = 0;
    long r;
    while ((r = nld_metrics_stream_read(st, buf, sizeof buf)) > 0) got += (size_t)r;
    double rendered = t_now_s() - t0;
    nld_metrics_stream_close(st);
    print_message("its scrape: the lock held %.1f ms for the copy (%.1f ms with the room made "
                  "for it), %.1f ms rendering %zu bytes without it\n",
                  m->copy_s * 1e3, held * 1e3, rendered * 1e3, got);
    assert_true(m->copy_s > 0 && m->copy_s < 2.0);
    char *t = render(m, 0); /* and says so */
    assert_true(sample(t, "nlkit_metrics_copy_seconds") > 0);
    free(t);
    nld_metrics_free(m);
}

/* The engine is not held up by a scrape: the store's lock is held only while the stream
 * copies it; while the text is rendered and sent it is free, and updates made meanwhile
 * are in the next scrape, not this one. */
/* Take out the sample line `head value` from the text t. */
static void drop_sample(char *t, const char *head)
{
    size_t n = strlen(head);
    for (char *p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, head, n) && p[n] == ' ') {
            char *e = strchr(p, '\n');
            memmove(p, e + 1, strlen(e + 1) + 1);
            return;
        }
}

static void test_render_unlocked(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    for (int i = 0; i < 200; i++) feed_host(m, "a", i, 100);
    char *before = render(m, 0);
    nld_metrics_stream_t *st = nld_metrics_stream_open(m, 0);
    assert_non_null(st);
    size_t cap = strlen(before) + 4096, got = 0;
    char *txt = malloc(cap + 1);
    assert_non_null(txt);
    long r;
    int pieces = 0;
    while (got < cap && (r = nld_metrics_stream_read(st, txt + got, cap - got < 1000 ? cap - got : 1000)) > 0) {
        got += (size_t)r;
        pieces++;
        assert_int_equal(pthread_mutex_trylock(&m->mu), 0); /* free between pieces */
        pthread_mutex_unlock(&m->mu);
        if (pieces == 3) /* the engine goes on: a new host, a new count */
            feed(m, "ts=2026-11-26T10:00:01.000000Z event=a.summary level=Info host=new n=5");
    }
    assert_true(r == 0 && pieces > 100);
    nld_metrics_stream_close(st);
    txt[got] = 0;
    drop_sample(txt, "nlkit_metrics_copy_seconds"); /* the copy before's time, and this one's */
    drop_sample(before, "nlkit_metrics_copy_seconds");
    assert_string_equal(txt, before); /* the copy, as it was */
    char *after = render(m, 0);
    assert_non_null(strstr(after, "host=\"new\""));
    free(after);
    free(txt);
    free(before);
    nld_metrics_free(m);
}

static const char *man_page; /* detector/nl-detect.1 (the test's argument) */

/* Every family the endpoint can expose is documented in nl-detect(1), METRICS. */
static void test_documented(void **state)
{
    (void)state;
    nld_metrics_t *m = store(100000, NULL);
    feed(m, "ts=2026-11-26T10:00:00.000000Z event=a.summary level=Info host=x n=1 dur.sum=1 "
            "open=0 err.n=0 dur.h=16300:1");
    report(m, NLD_R_ANOMALY, NLD_R_START, NULL,
           "ts=2026-11-26T10:00:00.000000Z event=nl.anomaly.start level=Warn stream=s algo=a");
    report(m, NLD_R_ALERT, NLD_R_START, NULL,
           "ts=2026-11-26T10:00:00.000000Z event=nl.alert.start level=Warn name=n");
    report(m, NLD_R_MISSING, NLD_R_START, NULL,
           "ts=2026-11-26T10:00:00.000000Z event=nl.missing level=Warn activity=a");
    nld_counts_t c = {0};
    nld_metrics_health(m, &c, 1795687200000000);
    char *t = render(m, 0);
    size_t len;
    char *man = t_slurp(man_page, &len);
    assert_non_null(man);
    int n = 0;
    for (const char *p = strstr(t, "# TYPE "); p; p = strstr(p + 1, "# TYPE ")) {
        char name[128];
        assert_int_equal(sscanf(p + 7, "%127s", name), 1);
        if (!strstr(man, name)) print_message("%s is not in %s\n", name, man_page);
        assert_non_null(strstr(man, name));
        n++;
    }
    assert_true(n >= 20);
    /* OpenMetrics: a family's UNIT ends its name (Prometheus refuses the scrape otherwise) */
    char *om = render(m, 1);
    for (const char *p = strstr(om, "# UNIT "); p; p = strstr(p + 1, "# UNIT ")) {
        char name[128], unit[64], suffix[80];
        assert_int_equal(sscanf(p + 7, "%127s %63s", name, unit), 2);
        snprintf(suffix, sizeof suffix, "_%s", unit);
        size_t nl = strlen(name), sl = strlen(suffix);
        if (nl < sl || strcmp(name + nl - sl, suffix)) print_message("UNIT of %s\n", name);
        assert_true(nl >= sl && !strcmp(name + nl - sl, suffix));
    }
    free(om);
    static const char *const labels[] = {"\\fBactivity\\fR",  "\\fBstream\\fR", "\\fBalgo\\fR",
                                         "\\fBalertname\\fR", "\\fBreason\\fR", "\\fBle\\fR"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        if (!strstr(man, labels[i])) print_message("label %s is not in the man page\n", labels[i]);
        assert_non_null(strstr(man, labels[i]));
    }
    free(man);
    free(t);
    nld_metrics_free(m);
}

int main(int argc, char **argv)
{
    man_page = argc > 1 ? argv[1] : "detector/nl-detect.1";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width),         cmocka_unit_test(test_counters_and_buckets),
        cmocka_unit_test(test_labels),        cmocka_unit_test(test_bound_and_expiry),
        cmocka_unit_test(test_bad_summaries), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_reports),
        cmocka_unit_test(test_engine_hooks),  cmocka_unit_test(test_http),
        cmocka_unit_test(test_documented),    cmocka_unit_test(test_render_unlocked),
        cmocka_unit_test(test_worst_exposition), cmocka_unit_test(test_worst_store),
        cmocka_unit_test(test_http_slow_clients), cmocka_unit_test(test_http_slow_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
