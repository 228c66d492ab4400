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
