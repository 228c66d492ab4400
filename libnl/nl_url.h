/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_url.h — private: destination URLs of nl_open. */
#ifndef NLKIT_NL_URL_H
#define NLKIT_NL_URL_H

#include <stddef.h>

enum nl_dest_kind { NL_D_FILE, NL_D_STDOUT, NL_D_STDERR, NL_D_TCP, NL_D_UDP, NL_D_SYSLOG };

#define NL_URL_PATH_MAX 4096
#define NL_URL_HOST_MAX 256
#define NL_URL_PROG_MAX 64
#define NL_BUFFER_MAX (64L * 1024 * 1024)

typedef struct nl_url {
    int kind;                   /* enum nl_dest_kind */
    char path[NL_URL_PATH_MAX]; /* file path, or the syslog socket (default /dev/log) */
    char host[NL_URL_HOST_MAX]; /* tcp/udp host (IPv6 without brackets) */
    int port;                   /* tcp/udp port */
    char prog[NL_URL_PROG_MAX]; /* syslog program name ("" = the program's own name) */
    int facility;               /* syslog facility code (LOG_USER = 1 << 3 ...) */
    long buffer;                /* output buffer bytes; -1 = default for the kind */
    int flush_ms;               /* background flush period */
    int timeout_ms;             /* longest a network write may block */
    int mode;                   /* "mode=": -1 not given, 0 sync, 1 deferred (nl_defer.h) */
} nl_url_t;

/* Parse a destination URL (see nl_open in nl.h). Returns 0 or NL_EURL. */
int nl__url_parse(const char *url, nl_url_t *u);

/* The destination's name for a message to the operator, in out[cap]: the file's path,
 * "standard output", "x-netlog://HOST:PORT", "x-syslog (socket PATH)" ... without options
 * (these URLs hold no user or password: a host with '@' is refused). */
void nl__url_name(const nl_url_t *u, char *out, size_t cap);

#endif
