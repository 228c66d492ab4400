/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_guid.h — private GUID helpers. */
#ifndef NLKIT_NL_GUID_H
#define NLKIT_NL_GUID_H

/* 1 if s is a textual UUID (36 characters, hex and dashes). */
int nl__guid_valid(const char *s);

#endif
