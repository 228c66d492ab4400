/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_line.c — the summary field table of nl_line.h, made from its X-macro so the names,
 * their order and their columns cannot drift apart; the archive's level names. */
#include <string.h>

#include "nl_line.h"

#define NL__SF_ROW(id, name, type, column) {name, sizeof name - 1, NL_COL_##type, column},
const nl__sf_t nl__summary_fields[NL_SF_COUNT] = {NL_SUMMARY_FIELDS(NL__SF_ROW)};
#undef NL__SF_ROW

/* ASCII case folding whatever the locale (a Turkish one folds 'I' differently). */
static int same_ascii_nocase(const char *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z') x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z') y = (unsigned char)(y + 32);
        if (x != y) return 0;
    }
    return 1;
}

const char *nl__level_canon(const char *s, size_t len)
{
    static const struct {
        const char *in, *out;
    } names[] = {{"Info", "Info"},    {"Debug", "Debug"},   {"Warn", "Warn"},
                 {"Error", "Error"},  {"Fatal", "Fatal"},   {"Trace", "Trace"},
                 {"Warning", "Warn"}, {"Debug2", "Debug2"}, {"Debug3", "Debug3"},
                 {"NOLOG", "NOLOG"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].in) == len && same_ascii_nocase(names[i].in, s, len))
            return names[i].out;
    return NULL;
}
