/* nl_num.h — private: locale-independent number text. */
#ifndef NLKIT_NL_NUM_H
#define NLKIT_NL_NUM_H

#include <stddef.h>

/* Shortest text of v (at most 32 bytes + NUL) that reads back exactly, '.' as the decimal
 * point whatever the program's locale; returns its length. */
int nl__dtoa(double v, char *out);
/* Parse a whole string as a double in the C locale; 0 or -1. */
int nl__strtod(const char *s, size_t len, double *out);

#endif
