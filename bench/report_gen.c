/* SPDX-License-Identifier: BSD-3-Clause */
/* report_gen.c — nl-report-gen: a month of a site's events for bench_report.sh, written to
 * standard output in time order: HOSTS hosts each summarizing two activities every STEP
 * seconds (disk reads with a value, network sends), a transfer logged in full (start/end
 * under its own GUID) every minute per host, and, as nl-detect would have written them, the
 * anomaly episodes of one host's disk slowed to 30% for two hours on day 20.
 *   nl-report-gen [EVENTS [HOSTS [DAYS]]]      (10000000 20 30)
 * The step is chosen so that the month holds about EVENTS events. Deterministic. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nlkit/nl_bp.h"

static uint64_t rng = 88172645463325252ULL;
static double unit(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static void emit(nl_buf_t *b)
{
    if (nl_enc_end(b) == 0) fwrite(b->p, 1, b->len, stdout);
}

int main(int argc, char **argv)
{
    double events = argc > 1 ? atof(argv[1]) : 1e7;
    int hosts = argc > 2 ? atoi(argv[2]) : 20;
    double days = argc > 3 ? atof(argv[3]) : 30;
    if (events < 1000 || hosts < 1 || hosts > 10000 || days <= 0) {
        fprintf(stderr, "usage: nl-report-gen [EVENTS>=1000 [HOSTS [DAYS]]]\n");
        return 2;
    }
    double secs = days * 86400, t0 = 1793491200; /* 2026-11-01T00:00:00Z */
    /* events = hosts * (2 summaries per step + 2 per minute) over secs */
    double per_host_s = events / hosts / secs - 2.0 / 60;
    double step = per_host_s > 0 ? 2 / per_host_s : 60;
    int slow = hosts > 6 ? 6 : hosts - 1; /* host h07 (or the last) slows on day 20 */
    double slow_from = t0 + (days > 20 ? 19 : days * 0.6) * 86400 + 10 * 3600,
           slow_to = slow_from + 7200;
    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    char host[32], guid[64];
    double *xfer_start = calloc((size_t)hosts, sizeof *xfer_start);
    if (!xfer_start) return 1;
    long long n = 0, xfers = 0;
    int reported = 0;
    for (double t = t0; t < t0 + secs; t += step) {
        int64_t us = llround(t * 1e6);
        for (int h = 0; h < hosts; h++) {
            snprintf(host, sizeof host, "h%02d", h + 1);
            double f = h == slow && t >= slow_from && t < slow_to ? 0.3 : 1;
            /* the day's rhythm: busier in the afternoon (UTC) */
            double day = 1 + 0.2 * sin((fmod(t, 86400) / 86400 - 0.4) * 2 * M_PI);
            for (int a = 0; a < 2; a++) {
                int cnt = 1 + (int)(unit() * 20 * day);
                double dsum = cnt * (0.01 + 0.004 * unit()) / (a == 0 ? f : 1);
                nl_buf_reset(&b);
                nl_enc_begin(&b, us, a ? "app.net.send.summary" : "app.disk.read.summary",
                             NL_LVL_INFO, NULL);
                nl_enc_str(&b, "host", host, 3);
                nl_enc_str(&b, "prog", "app", 3);
                nl_enc_i64(&b, "n", cnt);
                nl_enc_dbl(&b, "dur.sum", dsum);
                nl_enc_dbl(&b, "dur.max", dsum / cnt * 1.8);
                if (a == 0) nl_enc_dbl(&b, "v.sum", cnt * 4194304.0);
                nl_enc_dbl(&b, "int", step);
                emit(&b);
                n++;
            }
            /* a transfer per host and minute */
            if (t - xfer_start[h] >= 60) {
                snprintf(guid, sizeof guid, "bench-%d-%lld", h, xfers);
                double dur = 5 + 20 * unit() + (f < 1 ? 30 : 0);
                nl_buf_reset(&b);
                nl_enc_begin(&b, us, "job.transfer.start", NL_LVL_INFO, guid);
                nl_enc_str(&b, "host", host, 3);
                emit(&b);
                nl_buf_reset(&b);
                nl_enc_begin(&b, us + llround(dur * 1e6), "job.transfer.end", NL_LVL_INFO, guid);
                nl_enc_str(&b, "host", host, 3);
                emit(&b);
                xfer_start[h] = t;
                xfers++;
                n += 2;
            }
        }
        if (!reported && t >= slow_to) { /* the episode, as nl-detect reports it */
            snprintf(host, sizeof host, "h%02d", slow + 1);
            for (int e = 0; e < 2; e++) {
                nl_buf_reset(&b);
                nl_enc_begin(&b, llround((e ? slow_to : slow_from + 3 * step) * 1e6),
                             e ? "nl.anomaly.end" : "nl.anomaly.start", NL_LVL_WARN, NULL);
                nl_enc_str(&b, "stream", "disk", 4);
                nl_enc_str(&b, "algo", "msd-hu", 6);
                nl_enc_str(&b, "key.host", host, 3);
                if (!e) nl_enc_str(&b, "trig.event", "app.disk.read.summary", 21);
                nl_enc_str(&b, "dir", "low", 3);
                nl_enc_ts(&b, "start.ts", llround(slow_from * 1e6));
                emit(&b);
                n++;
            }
            reported = 1;
        }
    }
    nl_buf_free(&b);
    free(xfer_start);
    fprintf(stderr, "nl-report-gen: %lld events, %d hosts, %.0f days, a summary every %.2f s\n", n,
            hosts, days, step);
    return fflush(stdout) ? 1 : 0;
}
