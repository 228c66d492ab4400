/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_rodata.h — private: whether a string lies in the program's own read-only data.
 *
 * The write path caches formats and event names by address and confirms each hit by
 * comparing the text, because a caller may pass a buffer whose text changes. Text in the
 * main program's read-only segments (its string literals) cannot change and cannot be
 * unmapped, so a hit at such an address needs no comparison. Shared libraries' literals
 * are not trusted: a library can be unloaded and another mapped at the same address.
 *
 * Global state: the main program's read-only address ranges, found once (pthread_once) on
 * first use and never changed. */
#ifndef NLKIT_NL_RODATA_H
#define NLKIT_NL_RODATA_H

#include <stddef.h>

/* Whether the len + 1 bytes at p (a string and its terminating NUL) all lie in one
 * read-only segment of the main program. */
int nl__rodata_holds(const char *p, size_t len);

#endif
