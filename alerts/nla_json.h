/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_json.h — writing the webhook bodies: JSON strings and objects into an nl_buf_t. */
#ifndef NLKIT_NLA_JSON_H
#define NLKIT_NLA_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "nlkit/nl_bp.h"

/* A JSON string of len bytes: '"' and '\' escaped, control bytes as \u00XX, valid UTF-8
 * kept, each byte of invalid UTF-8 written as \u00XX (its Latin-1 reading: visible, never
 * an invalid document). */
void nla__json_str(nl_buf_t *b, const char *s, size_t len);
/* "name": before a value (with a comma unless first). */
void nla__json_key(nl_buf_t *b, const char *name, int first);
/* A number, or null if it is not finite. */
void nla__json_num(nl_buf_t *b, double v);
/* A timestamp as an ISO-8601 UTC string, or null for INT64_MIN. */
void nla__json_ts(nl_buf_t *b, int64_t usec);
/* Every field of a parsed line as {"name": "value", ...}, values as strings. */
void nla__json_fields(nl_buf_t *b, const nl_rec_t *r);

#endif
