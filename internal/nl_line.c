/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_line.c — the summary field table of nl_line.h, made from its X-macro so the names,
 * their order and their columns cannot drift apart. */
#include "nl_line.h"

#define NL__SF_ROW(id, name, type, column) {name, sizeof name - 1, NL_COL_##type, column},
const nl_sf_t nl__summary_fields[NL_SF_COUNT] = {NL_SUMMARY_FIELDS(NL__SF_ROW)};
#undef NL__SF_ROW
