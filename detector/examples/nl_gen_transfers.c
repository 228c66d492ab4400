/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_gen_transfers.c — synthetic input for nl-detect with anomalies at known times: the
 * summary lines a fleet of GridFTP-like servers would write every second (throughput with
 * noise), plus one job per 20 s whose start/end pairs the missing-end detector watches.
 * Injected: a throughput dip on one host, and one job that never ends. Time is simulated
 * (from a fixed epoch), so the output is the same on every run and machine.
 *
 *   nl-gen-transfers [SECONDS [HOSTS [DIP_HOST DIP_START DIP_LEN DIP_FACTOR [LOST_JOB_AT]]]]
 *   defaults: 1800 s, 4 hosts, host 3 from 900 s for 300 s at 0.3, job at 1200 s lost */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void) { return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform()); }

static void emit(nl_buf_t *b)
{
    if (nl_enc_end(b) == 0) fwrite(b->p, 1, b->len, stdout);
    nl_buf_reset(b);
}

int main(int argc, char **argv)
{
    long secs = argc > 1 ? atol(argv[1]) : 1800;
    int hosts = argc > 2 ? atoi(argv[2]) : 4;
    int dip_host = argc > 3 ? atoi(argv[3]) : 3;
    long dip_at = argc > 4 ? atol(argv[4]) : 900, dip_len = argc > 5 ? atol(argv[5]) : 300;
    double dip = argc > 6 ? atof(argv[6]) : 0.3;
    long lost = argc > 7 ? atol(argv[7]) : 1200;
    if (secs < 1 || hosts < 1 || hosts > 1000) {
        fprintf(stderr, "usage: nl-gen-transfers [SECONDS [HOSTS [DIP_HOST DIP_START DIP_LEN "
                        "DIP_FACTOR [LOST_JOB_AT]]]]\n");
        return 2;
    }
    const int64_t t0 = 1795348800LL * 1000000; /* 2026-11-22T12:00:00Z */
    char st[1024], host[32], guid[64];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    for (long s = 0; s < secs; s++) {
        int64_t ts = t0 + s * 1000000;
        for (int h = 1; h <= hosts; h++) {
            snprintf(host, sizeof host, "gw%d", h);
            double rate = 110e6 * (1 + 0.05 * gauss()); /* bytes/s while writing */
            if (h == dip_host && s >= dip_at && s < dip_at + dip_len) rate *= dip;
            int n = 40 + (int)(10 * uniform());
            double busy = 0.8 + 0.05 * uniform();
            nl_enc_begin(&b, ts, "gridftp.disk.write.summary", NL_LVL_INFO, NULL);
            nl_enc_str(&b, "host", host, strlen(host));
            nl_enc_i64(&b, "n", n);
            nl_enc_dbl(&b, "dur.sum", round(busy * 1e6) / 1e6);
            nl_enc_dbl(&b, "v.sum", round(rate * busy));
            nl_enc_i64(&b, "int", 1);
            emit(&b);
        }
        if (s % 20 == 0) {
            snprintf(guid, sizeof guid, "00000000-0000-4000-8000-%012ld", s % 1000000000000L);
            nl_enc_begin(&b, ts, "job.run.start", NL_LVL_INFO, guid);
            emit(&b);
            if (s != lost) {
                double d = 4 + uniform();
                nl_enc_begin(&b, ts + (int64_t)(d * 1e6), "job.run.end", NL_LVL_INFO, guid);
                emit(&b);
            }
        }
    }
    nl_buf_free(&b);
    return ferror(stdout) ? 1 : 0;
}
