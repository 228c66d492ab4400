/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_defer.c — the deferred write path against the synchronous encoder: the input is cut
 * into a format (up to 12 fields of any type and name) and up to four events of it, each a
 * level, a name, a clock reading (the next ones near the last: within its second, across
 * it, back) and arguments (strings of any bytes or the last event's again, doubles and
 * integers of any bits); the events are recorded on a deferred log (libnl/nl_defer.h),
 * written out by its consumer into a memory file, and must come out byte for byte as
 * nl__log_build writes them. A difference aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nl_defer.h"
#include "nl_log_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    const uint8_t *p;
    size_t n;
} in_t;

static uint64_t take(in_t *in, size_t k)
{
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++) {
        v = v << 8 | (in->n ? *in->p : 0);
        if (in->n) in->p++, in->n--;
    }
    return v;
}

static const char *const names[] = {"a", "guid", "host", "value", "x.id", "n-1", "k_2", "dur"};

static int mfd = -1;
static nl_log_t *log_;

/* A deferred log into a memory file, opened again once its format cache is full (a new
 * format would then be parsed per call, and a record needs a cached one). */
static void open_log(void)
{
    if (log_) nl_close(log_);
    if (mfd < 0) mfd = memfd_create("fuzz_defer", 0);
    if (mfd < 0) abort();
    char url[128];
    snprintf(url, sizeof url, "file:///proc/self/fd/%d?mode=deferred&flush=3600000", mfd);
    log_ = nl_open(url);
    if (!log_ || !log_->defer) abort();
    if (nl_const_set(log_, "host", "fz \"h\"") != 0) abort();
}

/* One event's arguments from the input: strings of any bytes (or prev's again, the
 * same text in another copy, when its byte says so), doubles and integers of any bits. */
static void take_args(in_t *in, int n, const char *types, nl_arg_t *args, char **strs,
                      char *const *prev)
{
    for (int k = 0; k < n; k++) {
        switch (types[k]) {
        case 's': {
            size_t len = take(in, 1);
            if (len == 255) { /* NULL */
                args[k].s = NULL;
                break;
            }
            if (len == 254 && prev && prev[k]) { /* the last event's value again */
                strs[k] = strdup(prev[k]);
                if (!strs[k]) abort();
                args[k].s = strs[k];
                break;
            }
            if (len > in->n) len = in->n;
            strs[k] = malloc(len + 1);
            if (!strs[k]) abort();
            memcpy(strs[k], in->p, len);
            strs[k][len] = 0; /* a NUL inside ends it, as for the caller */
            in->p += len, in->n -= len;
            args[k].s = strs[k];
            break;
        }
        case 'i': args[k].l = (int32_t)take(in, 4); break;
        case 'l': args[k].l = (long long)take(in, 8); break;
        case 'u': args[k].u = take(in, 8); break;
        case 'd': {
            uint64_t bits = take(in, 8);
            memcpy(&args[k].d, &bits, sizeof bits);
            break;
        }
        default: /* 't': years 1 to 9999, as nl_write accepts */
            args[k].d = -62135596800.0 + (double)(take(in, 8) % 315537897599ULL);
        }
    }
}

#define EVENTS 4 /* events an input records, all drained at once */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!log_) open_log();
    in_t in = {data, size};
    int n = (int)(take(&in, 1) % 13);
    char fmt[256];
    size_t fl = 0;
    char types[16];
    for (int k = 0; k < n; k++) {
        uint8_t b = (uint8_t)take(&in, 1);
        types[k] = "sdilut"[(b & 7) % 6];
        fl += (size_t)snprintf(fmt + fl, sizeof fmt - fl, "%s%s=%c", k ? " " : "",
                               names[b >> 5], types[k]);
    }
    fmt[fl] = 0;
    nl_tmpl_t *t;
    int owned;
    if (nl__tcache_get(&log_->tcache, fmt, &t, &owned) != 0) return 0;
    if (owned) {
        free(t);
        open_log();
        return 0;
    }
    /* up to EVENTS events of this format: each a level, a name, a clock reading (the
     * first any, the next ones the last moved by a few microseconds or seconds, either
     * way: the consumer keeps a second's text) and arguments */
    int events = 1 + (int)(take(&in, 1) % EVENTS);
    char *strs[EVENTS][16] = {{0}};
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    int built = 0;
    int64_t usec = 0;
    const nl_head_t *h = nl__log_head(log_);
    for (int e = 0; e < events && !built; e++) {
        int level = (int)(take(&in, 1) % 6);
        const char *ev = take(&in, 1) & 1 ? "fz.event" : "fz.other.event";
        if (e == 0) {
            usec = (int64_t)(take(&in, 8) % 253402300799999999ULL) - 62135596800000000LL;
        } else {
            int64_t step = (int8_t)take(&in, 1);
            int64_t u = usec + step * (take(&in, 1) & 1 ? 1000000 : 7919);
            if (u >= -62135596800000000LL && u <= 253402300799999999LL) usec = u;
        }
        nl_arg_t args[16];
        take_args(&in, n, types, args, strs[e], e ? strs[e - 1] : NULL);
        built = nl__log_build(log_, &b, usec, level, ev, t, args, h);
        if (nl__defer_event_at(log_->defer, usec, level, ev, 0, t, args, h) != 1)
            abort(); /* a live memory file: every record fits and is taken */
    }
    if (nl_flush(log_) != 0) abort();
    off_t got_len = lseek(mfd, 0, SEEK_END);
    char *got = malloc((size_t)got_len + 1);
    if (!got || pread(mfd, got, (size_t)got_len, 0) != got_len) abort();
    /* compared when every line could be built (one too long is dropped, and ends the input) */
    if (!built && ((size_t)got_len != b.len || memcmp(got, b.p, b.len)))
        abort(); /* the deferred lines differ from the synchronous encoder's */
    free(got);
    nl_buf_free(&b);
    if (ftruncate(mfd, 0) != 0) abort();
    for (int e = 0; e < EVENTS; e++)
        for (int k = 0; k < 16; k++) free(strs[e][k]);
    return 0;
}
