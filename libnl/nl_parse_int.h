/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_parse_int.h — private: what the parser's two readings of a line share. nl_parse.c
 * reads nlkit's own format (strict or lenient); nl_parse_netlogger.c reads a line the way
 * NetLogger's own reader does (NL_PARSE_NETLOGGER). Both hand their fields to
 * nl__parse_add (nl_rec.c), which files them and applies the duplicate rule. */
#ifndef NLKIT_NL_PARSE_INT_H
#define NLKIT_NL_PARSE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "nlkit/nl_bp.h"

/* State of one nl_parse call. */
typedef struct nl_parse_ctx {
    nl_rec_t *rec;
    const char *s;
    size_t len;
    long lineno;
    int lenient; /* NL_PARSE_LENIENT or NL_PARSE_NETLOGGER: recover, never reject */
    nl_perr_t *err;
    size_t scratch_used;
} nl_parse_ctx_t;

/* Report an error at byte offset `at` (0-based) of the line and return `code`. */
int nl__parse_fail(nl_parse_ctx_t *c, size_t at, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Room for an unescaped value (at most the line's length in all), or NULL when out of
 * memory. The caller writes the value there and calls nl__parse_scratch_used. */
char *nl__parse_scratch(nl_parse_ctx_t *c);
void nl__parse_scratch_used(nl_parse_ctx_t *c, size_t n);

/* File field f (name at line offset `at`, for messages). A name seen before in this line
 * is an NL_EDUP error in strict mode; otherwise the last value wins, in the first one's
 * place (as NetLogger's reader keeps them), and the drop is counted in rec->recovered.
 * Returns 0 or an error code. */
int nl__parse_add(nl_parse_ctx_t *c, const nl_field_t *f, size_t at);

/* The fields of a line read as NetLogger's reader reads it (nl_parse_netlogger.c). */
int nl__parse_fields_netlogger(nl_parse_ctx_t *c);

/* nl_ts_parse plus the forms NetLogger's reader takes and nlkit never writes: a lowercase
 * 'z', no zone (UTC), any number of fraction digits. For lenient and NetLogger readings. */
int nl__ts_parse_loose(const char *s, size_t len, int64_t *usec);

#endif
