/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_sock.h — private: sockets for network destinations, always non-blocking and
 * close-on-exec, so no nlkit socket ever blocks the application or leaks into children. */
#ifndef NLKIT_NL_SOCK_H
#define NLKIT_NL_SOCK_H

#include <netdb.h>

/* Connect TCP to the first of the resolved addresses that answers, each within
 * timeout_ms. Returns a non-blocking fd, or -1. */
int nl__tcp_connect(const struct addrinfo *res, int timeout_ms);
/* A UDP socket connected to the first usable resolved address. Returns a non-blocking fd,
 * or -1. */
int nl__udp_connect(const struct addrinfo *res);
/* A unix datagram socket (not yet connected). Returns a non-blocking fd, or -1. */
int nl__unix_dgram_socket(void);
/* Connect a unix datagram socket to path. Returns 0 or -1. */
int nl__unix_dgram_connect(int fd, const char *path);

#endif
