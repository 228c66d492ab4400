/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_num.h — private: locale-independent number text. */
#ifndef NLKIT_NL_NUM_H
#define NLKIT_NL_NUM_H

#include <stddef.h>

/* "00" "01" ... "99": integer text two digits per step (a line's timestamp, counts). */
extern const char nl__digits2[200];

/* The decimal digits of v, written backwards so that they end just before `end` (which
 * has room for 20 digits before it); returns where they start. */
char *nl__utoa_back(unsigned long long v, char *end);

/* Shortest text of v (at most 32 bytes + NUL) that reads back exactly, '.' as the decimal
 * point whatever the program's locale; returns its length. */
int nl__dtoa(double v, char *out);
/* Parse a whole string as a double in the C locale; 0 or -1. */
int nl__strtod(const char *s, size_t len, double *out);

/* A duration: a non-negative number with an optional unit us, ms, s, m, h, d or w ("30d",
 * "1.5h", "250ms"; no unit = seconds), in seconds; -1 if malformed. For the tools' options
 * and configuration files. */
double nl__parse_dur(const char *s);

#endif
