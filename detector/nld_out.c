/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_out.c — output lines of the detector, built with the library's encoder. */
#include <string.h>

#include "nl_buf.h"
#include "nld_int.h"

void nld__out_begin(nl_buf_t *b, int64_t ts, const char *event, int level, const char *guid,
                    size_t glen)
{
    nl_buf_reset(b);
    nl_enc_begin(b, ts, event, level, NULL);
    if (glen) nl_enc_str(b, "guid", guid, glen);
}

void nld__out_raw(nl_buf_t *b, const char *text, size_t len) { nl__put(b, text, len); }

/* Failures are counted, never fatal: the log itself counts and reports what it drops. */
void nld__out_emit(nld_t *d, nl_log_t *log, int level, nl_buf_t *b)
{
    if (nl_enc_end(b) || nl_write_line(log, level, b->p, b->len)) d->n.out_errors++;
}

void nld__out_report(nld_t *d, int kind, int phase, const nl_buf_t *b, size_t i0, size_t i1,
                     const char *id, size_t id_len, int64_t ts, int level, const char *why)
{
    if (!d->opts.report || b->err) return;
    static const char letter[] = {0, 'S', 'M', 'W'}; /* stream, missing, watch */
    char st[512];
    nl_buf_t ib;
    nl_buf_init(&ib, st, sizeof st);
    nl__putc(&ib, letter[kind]);
    if (id)
        nl__put(&ib, id, id_len);
    else
        nl__put(&ib, b->p + i0, i1 - i0);
    if (!ib.err) {
        nld_report_t r = {.kind = kind,
                          .phase = phase,
                          .id = ib.p,
                          .id_len = ib.len,
                          .line = b->p,
                          .len = b->len,
                          .why = why,
                          .ts = ts,
                          .level = level};
        d->opts.report(d->opts.report_ctx, &r);
    } else {
        d->n.oom++;
    }
    nl_buf_free(&ib);
}
