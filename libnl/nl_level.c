/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_level.c — level names, as written in lines and read from level files. */
#include <strings.h>

#include "nlkit/nl_bp.h"

static const char *const level_names[] = {"Fatal", "Error", "Warn", "Info", "Debug", "Trace"};
#define LEVEL_COUNT ((int)(sizeof level_names / sizeof level_names[0]))

const char *nl_level_name(int level)
{
    if (level < 0 || level >= LEVEL_COUNT) return NULL;
    return level_names[level];
}

int nl_level_parse(const char *name, size_t len)
{
    if (!name) return NL_ELEVEL;
    if (len == 1 && name[0] >= '0' && name[0] < '0' + LEVEL_COUNT) return name[0] - '0';
    for (int i = 0; i < LEVEL_COUNT; i++) {
        const char *n = level_names[i];
        size_t nl = 0;
        while (n[nl]) nl++;
        if (nl == len && strncasecmp(n, name, len) == 0) return i;
    }
    /* NetLogger and syslog spell some levels differently; accept the common aliases. */
    if (len == 7 && strncasecmp(name, "Warning", 7) == 0) return NL_LVL_WARN;
    if (len == 3 && strncasecmp(name, "Err", 3) == 0) return NL_LVL_ERROR;
    return NL_ELEVEL;
}
