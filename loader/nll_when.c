/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_when.c — points in time on the tools' command lines. */
#include <stdio.h>
#include <string.h>

#include "nl_num.h"
#include "nll.h"

int nll_parse_when(const char *s, double now, double *out)
{
    int64_t usec;
    size_t len = strlen(s);
    char day[32];
    if (len == 10 && s[4] == '-' && s[7] == '-') { /* a date: its midnight, UTC */
        snprintf(day, sizeof day, "%sT00:00:00Z", s);
        s = day;
        len = strlen(day);
    } else if (strspn(s, "0123456789.") < len) { /* "30d": an age; else a timestamp */
        double age = nl__parse_dur(s);
        if (age >= 0) {
            *out = now - age;
            return 0;
        }
    }
    if (nl_ts_parse(s, len, &usec)) return NL_ETS;
    *out = (double)usec / 1e6;
    return 0;
}
