/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_metrics.c — nl-detect's metrics store (detector/nld_metrics*.c) on any bytes: as
 * event lines fed to it (summaries with any n, dur.sum, dur.h, keys), whose exposition is
 * then rendered in both formats and must keep its histograms cumulative, and streamed in
 * pieces of sizes the input chooses, which must give the same bytes. (The endpoint's HTTP
 * parsing is libmicrohttpd's.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_cstr.h"
#include "nld_metrics_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Take the nlkit_metrics_copy_seconds sample out of an exposition (NUL-terminated). */
static void drop_copy_time(char *t)
{
    char *p = strstr(t, "\nnlkit_metrics_copy_seconds ");
    char *e = p ? strchr(p + 1, '\n') : NULL;
    if (e) memmove(p, e, strlen(e) + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    if (!s) return 0;
    nld_metrics_opts_t o = {.max_series = 500, .expire = 60, .per_octave = 4, .keys = "host,x.id"};
    char err[128];
    nld_metrics_t *m = nld_metrics_new(&o, err, sizeof err);
    if (!m) abort();
    nl_rec_t r;
    nl_rec_init(&r);
    for (char *line = s, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (nl_parse(&r, line, strlen(line), 1, NL_PARSE_LENIENT, NULL) == 1) {
            nld_metrics_event(m, &r, r.ts_usec);
            nld_counts_t c = {0};
            nld_metrics_health(m, &c, r.ts_usec);
        }
    }
    nl_rec_free(&r);
    for (int f = 0; f <= 1; f++) {
        char *out;
        size_t len;
        if (nld_metrics_render(m, f, &out, &len)) continue;
        nld_metrics_stream_t *st = nld_metrics_stream_open(m, f);
        if (st) { /* streamed in pieces of 1 to 256 bytes: the same text, but for the time
                     the copy took (nlkit_metrics_copy_seconds) */
            size_t cap = len + 256, at = 0, k = 0;
            char *txt = malloc(cap + 1), *whole = malloc(len + 1);
            if (!txt || !whole) abort();
            long r = 0;
            while (at < cap) {
                size_t want = 1 + (size ? data[k++ % size] : 0);
                if (want > cap - at) want = cap - at;
                if ((r = nld_metrics_stream_read(st, txt + at, want)) <= 0) break;
                at += (size_t)r;
            }
            if (r < 0 || at == cap) abort();
            nld_metrics_stream_close(st);
            txt[at] = 0;
            memcpy(whole, out, len);
            whole[len] = 0;
            drop_copy_time(txt);
            drop_copy_time(whole);
            if (strcmp(txt, whole)) abort();
            free(txt);
            free(whole);
        }
        char *z = realloc(out, len + 1); /* the exposition is bytes: a string to search */
        if (!z) abort();
        out = z;
        out[len] = 0;
        /* cumulative buckets never decrease along one label set, up to its +Inf: each
         * bucket line is NAME_bucket{...,le="EDGE"} COUNT (label values hold no newline) */
        static const char pre[] = "nlkit_activity_duration_seconds_bucket{";
        double prev = -1;
        for (char *line = out, *nl; line < out + len; line = nl + 1) {
            nl = strchr(line, '\n');
            if (!nl) abort();
            *nl = 0;
            if (strncmp(line, pre, sizeof pre - 1)) continue;
            char *v = strrchr(line, ' ');
            if (!v || v - line < 8) abort();
            double c = strtod(v + 1, NULL);
            if (c < prev) abort();
            prev = memcmp(v - 8, "=\"+Inf\"}", 8) ? c : -1; /* the next label set starts */
        }
        free(out);
    }
    nld_metrics_free(m);
    free(s);
    return 0;
}
