/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_parse.c — the line parser on any bytes, strict, lenient and as NetLogger reads: it
 * must never crash, never read past the line, every field it gives must lie in the line
 * (or, unescaped, in the record's scratch), and whatever it accepts strictly must survive
 * a round trip through the encoder (the same fields, byte for byte). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nlkit/nl_bp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so ASan sees any read past the end */
    char *line = malloc(size ? size : 1);
    if (!line) return 0;
    memcpy(line, data, size);
    static nl_rec_t rec, back;
    static int init;
    if (!init) {
        nl_rec_init(&rec);
        nl_rec_init(&back);
        init = 1;
    }
    nl_perr_t err;
    nl_parse(&rec, line, size, 1, NL_PARSE_LENIENT, &err);
    if (nl_parse(&rec, line, size, 1, NL_PARSE_NETLOGGER, &err) == 1) {
        for (int i = 0; i < rec.n; i++) {
            const nl_field_t *f = &rec.f[i];
            int in_line = f->value >= line && f->value + f->value_len <= line + size;
            int in_scratch = rec.scratch && f->value >= rec.scratch &&
                             f->value + f->value_len <= rec.scratch + rec.scratch_cap;
            if (f->name < line || f->name + f->name_len > line + size || !(in_line || in_scratch))
                abort();
        }
    }
    if (nl_parse(&rec, line, size, 1, 0, &err) == 1) {
        nl_buf_t b;
        nl_buf_init(&b, NULL, 0);
        for (int i = 0; i < rec.n; i++) {
            char name[NL_NAME_MAX + 1];
            memcpy(name, rec.f[i].name, rec.f[i].name_len);
            name[rec.f[i].name_len] = '\0';
            nl_enc_str(&b, name, rec.f[i].value, rec.f[i].value_len);
        }
        if (nl_enc_end(&b) == 0) {
            const char *p = b.p + 1; /* " name=value ... \n": past the leading space */
            if (nl_parse(&back, p, b.len - 2, 1, 0, &err) != 1) abort();
            if (back.n != rec.n) abort();
            for (int i = 0; i < rec.n; i++)
                if (back.f[i].value_len != rec.f[i].value_len ||
                    memcmp(back.f[i].value, rec.f[i].value, rec.f[i].value_len))
                    abort();
        }
        nl_buf_free(&b);
    }
    free(line);
    return 0;
}
