/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_roundtrip.c — the encoder on any bytes: the input is cut into field values (at
 * 0xff bytes), each written with nl_enc_str; the line must come out as exactly one line
 * (one '\n', at the end), parse strictly, and give every value back byte for byte — so no
 * value can forge a field or another event. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static nl_rec_t rec;
    static int init;
    if (!init) {
        nl_rec_init(&rec);
        init = 1;
    }
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl_enc_begin(&b, 1767571200000000LL, "fuzz.event", NL_LVL_INFO, NULL);
    const char *vals[NL_FIELDS_MAX];
    size_t lens[NL_FIELDS_MAX];
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && n < NL_FIELDS_MAX - 8; i++) {
        if (i < size && data[i] != 0xff) continue;
        char name[16];
        snprintf(name, sizeof name, "f%d", n);
        vals[n] = (const char *)data + start;
        lens[n] = i - start;
        nl_enc_str(&b, name, vals[n], lens[n]);
        n++;
        start = i + 1;
    }
    if (nl_enc_end(&b) == 0) {
        if (!b.len || b.p[b.len - 1] != '\n' || memchr(b.p, '\n', b.len - 1)) abort();
        nl_perr_t err;
        if (nl_parse(&rec, b.p, b.len - 1, 1, 0, &err) != 1) abort();
        if (rec.n != n + 3) abort(); /* ts, event, level, then ours */
        for (int k = 0; k < n; k++) {
            const nl_field_t *f = &rec.f[k + 3];
            if (f->value_len != lens[k] || memcmp(f->value, vals[k], lens[k])) abort();
        }
    }
    nl_buf_free(&b);
    return 0;
}
