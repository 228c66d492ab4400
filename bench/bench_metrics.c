/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_metrics.c — what nl-detect's metrics endpoint costs (--metrics): a store of about
 * SERIES series (activities x hosts with duration histograms, the heaviest kind: 50 series
 * each at the default 4 buckets per power of two), its memory, the time to copy it (what
 * the engine waits for on the store's mutex during a scrape), to render the exposition in
 * both formats, a whole scrape over loopback HTTP, and the cost of one summary line to the
 * engine's thread.
 *
 *   bench-metrics [--quick] [SERIES]        (100000; --quick: 10000) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nl_buf.h"
#include "nl_hist.h"
#include "nld_metrics.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident memory of the process, bytes. */
static long rss(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return res * sysconf(_SC_PAGESIZE);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One scrape over HTTP: connect, ask, read all; seconds, and the bytes in *got. */
static double scrape(const char *addr, int om, size_t *got)
{
    const char *c = strrchr(addr, ':');
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(c + 1))};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    double t0 = now_s();
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        perror("bench-metrics: connect");
        exit(1);
    }
    char req[256];
    int n = snprintf(req, sizeof req, "GET /metrics HTTP/1.1\r\nHost: x\r\n%s\r\n",
                     om ? "Accept: application/openmetrics-text; version=1.0.0\r\n" : "");
    if (send(fd, req, (size_t)n, 0) != n) exit(1);
    static char buf[1 << 16];
    ssize_t r;
    *got = 0;
    while ((r = recv(fd, buf, sizeof buf, 0)) > 0) *got += (size_t)r;
    close(fd);
    return now_s() - t0;
}

/* Parse into r the summary of host k at second `sec` with the durations of hb. 0 or -1. */
static int summary(nl_rec_t *r, int sec, size_t k, const nl_buf_t *hb)
{
    static char line[4096];
    int n = snprintf(line, sizeof line,
                     "ts=2026-11-26T10:00:%02d.000000Z event=gridftp.disk.write.summary "
                     "level=Info host=host%05zu n=64 dur.sum=0.9 v.sum=268435456 open=0 dur.h=%.*s",
                     sec, k, (int)hb->len, hb->p);
    nl_perr_t e;
    if (nl_parse(r, line, (size_t)n, 1, 0, &e) == 1) return 0;
    fprintf(stderr, "bench-metrics: %s\n", e.msg);
    return -1;
}

int main(int argc, char **argv)
{
    size_t target = 100000;
    int ai = 1;
    if (ai < argc && !strcmp(argv[ai], "--quick")) target = 10000, ai++;
    if (ai < argc) target = strtoul(argv[ai], NULL, 10);
    if (target < 100) {
        fprintf(stderr, "usage: bench-metrics [--quick] [SERIES >= 100]\n");
        return 2;
    }
    nld_metrics_opts_t o = {
        .max_series = target + 1000, .expire = 86400, .per_octave = 4, .keys = "host"};
    char err[256];
    long rss0 = rss();
    nld_metrics_t *m = nld_metrics_new(&o, err, sizeof err);
    if (!m) {
        fprintf(stderr, "bench-metrics: %s\n", err);
        return 1;
    }
    /* summaries of one activity from many hosts, 64 durations each over 4 powers of two */
    nl__hist_t h = {0};
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 64; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        nl__hist_add(&h, 0.004 * (1.0 + (double)(x >> 11) / 9007199254740992.0 * 15));
    }
    nl_buf_t hb;
    nl_buf_init(&hb, NULL, 0);
    nl__hist_put(&hb, &h);
    nl_rec_t r;
    nl_rec_init(&r);
    size_t lines = 0;
    double t0 = now_s();
    for (; nld_metrics_series(m) < target; lines++) {
        if (summary(&r, 0, lines, &hb)) return 1;
        nld_metrics_event(m, &r, r.ts_usec);
    }
    double t_new = (now_s() - t0) / (double)lines;
    long mem = rss() - rss0;
    size_t series = nld_metrics_series(m);
    printf("bench-metrics: %zu series (%zu keys of one activity, %zu series each: buckets, "
           "+Inf, count, sum, value, open)\n",
           series, lines, series / lines);
    printf("  memory (resident, store only)   %8.1f MiB   %6.0f bytes per series\n",
           (double)mem / 1048576.0, (double)mem / (double)series);
    printf("  a summary line, new key         %8.2f us (parse included)\n", t_new * 1e6);
    double steady = 0; /* the same keys again (no new series), parsing not timed */
    for (size_t k = 0; k < lines; k++) {
        if (summary(&r, 1, k, &hb)) return 1;
        double p0 = now_s();
        nld_metrics_event(m, &r, r.ts_usec);
        steady += now_s() - p0;
    }
    steady /= (double)lines;
    printf("  a summary line, known key       %8.2f us (the engine's thread; parsing not "
           "counted)\n",
           steady * 1e6);
    double tc[7];
    for (int i = 0; i < 7; i++) { /* the copy a scrape renders from: the engine's wait */
        double a = now_s();
        nld_metrics_stream_t *st = nld_metrics_stream_open(m, 0);
        tc[i] = now_s() - a;
        if (!st) return 1;
        nld_metrics_stream_close(st);
    }
    qsort(tc, 7, sizeof tc[0], cmp);
    printf("  copy of the store (engine waits)  %6.2f ms median (%.2f-%.2f)\n", tc[3] * 1e3,
           tc[0] * 1e3, tc[6] * 1e3);
    for (int om = 0; om <= 1; om++) {
        double t[7];
        size_t len = 0;
        for (int i = 0; i < 7; i++) {
            char *out;
            double a = now_s();
            if (nld_metrics_render(m, om, &out, &len)) return 1;
            t[i] = now_s() - a;
            free(out);
        }
        qsort(t, 7, sizeof t[0], cmp);
        printf("  render, %-13s           %8.1f ms median (%.1f-%.1f), %.1f MiB of text\n",
               om ? "OpenMetrics" : "text 0.0.4", t[3] * 1e3, t[0] * 1e3, t[6] * 1e3,
               (double)len / 1048576.0);
    }
    nld_metrics_srv_t *s = nld_metrics_serve(m, "127.0.0.1:0", err, sizeof err);
    if (!s) {
        fprintf(stderr, "bench-metrics: %s\n", err);
        return 1;
    }
    for (int om = 0; om <= 1; om++) {
        double t[7];
        size_t got = 0;
        for (int i = 0; i < 7; i++) t[i] = scrape(nld_metrics_srv_addr(s), om, &got);
        qsort(t, 7, sizeof t[0], cmp);
        printf("  scrape over HTTP, %-13s %8.1f ms median (%.1f-%.1f), %zu bytes\n",
               om ? "OpenMetrics" : "text 0.0.4", t[3] * 1e3, t[0] * 1e3, t[6] * 1e3, got);
    }
    nld_metrics_srv_stop(s);
    nl_rec_free(&r);
    nl_buf_free(&hb);
    nl__hist_free(&h);
    nld_metrics_free(m);
    return 0;
}
