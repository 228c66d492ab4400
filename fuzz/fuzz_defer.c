/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_defer.c — the deferred write path against the synchronous encoder: the input is cut
 * into a format (up to 12 fields of any type and name), a level, a clock reading and the
 * arguments (strings of any bytes, doubles and integers of any bits); the event is recorded
 * on a deferred log (libnl/nl_defer.h), written out by its consumer into a memory file, and
 * must come out byte for byte as nl__log_build writes it. A difference aborts. */
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
    int level = (int)(take(&in, 1) % 6);
    int64_t usec = (int64_t)(take(&in, 8) % 253402300799999999ULL) - 62135596800000000LL;
    nl_arg_t args[16];
    char *strs[16] = {0};
    for (int k = 0; k < n; k++) {
        switch (types[k]) {
        case 's': {
            size_t len = take(&in, 1);
            if (len == 255) { /* NULL */
                args[k].s = NULL;
                break;
            }
            if (len > in.n) len = in.n;
            strs[k] = malloc(len + 1);
            if (!strs[k]) abort();
            memcpy(strs[k], in.p, len);
            strs[k][len] = 0; /* a NUL inside ends it, as for the caller */
            in.p += len, in.n -= len;
            args[k].s = strs[k];
            break;
        }
        case 'i': args[k].l = (int32_t)take(&in, 4); break;
        case 'l': args[k].l = (long long)take(&in, 8); break;
        case 'u': args[k].u = take(&in, 8); break;
        case 'd': {
            uint64_t bits = take(&in, 8);
            memcpy(&args[k].d, &bits, sizeof bits);
            break;
        }
        default: /* 't': years 1 to 9999, as nl_write accepts */
            args[k].d = -62135596800.0 + (double)(take(&in, 8) % 315537897599ULL);
        }
    }
    nl_tmpl_t *t;
    int owned;
    if (nl__tcache_get(&log_->tcache, fmt, &t, &owned) == 0) {
        if (owned) {
            free(t);
            open_log();
        } else {
            const nl_head_t *h = nl__log_head(log_);
            nl_buf_t b;
            char stack[512];
            nl_buf_init(&b, stack, sizeof stack);
            int built = nl__log_build(log_, &b, usec, level, "fz.event", t, args, h);
            if (nl__defer_event_at(log_->defer, usec, level, "fz.event", 0, t, args, h) != 1)
                abort(); /* a live memory file: every record fits and is taken */
            if (nl_flush(log_) != 0) abort();
            off_t got_len = lseek(mfd, 0, SEEK_END);
            char *got = malloc((size_t)got_len + 1);
            if (!got || pread(mfd, got, (size_t)got_len, 0) != got_len) abort();
            if (built == 0 ? (size_t)got_len != b.len || memcmp(got, b.p, b.len) : got_len != 0)
                abort(); /* the deferred line differs from the synchronous encoder's */
            free(got);
            nl_buf_free(&b);
            if (ftruncate(mfd, 0) != 0) abort();
        }
    }
    for (int k = 0; k < n; k++) free(strs[k]);
    return 0;
}
