/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_sock.h — private: sockets for network destinations, always non-blocking and
 * close-on-exec, so no nlkit socket ever blocks the application or leaks into children. */
#ifndef NLKIT_NL_SOCK_H
#define NLKIT_NL_SOCK_H

#include <netdb.h>

/* The send buffer of a TCP destination's socket (the kernel doubles it): room for about
 * 5,000 lines in flight, plenty on loopback and a LAN; over a 100 ms path it caps one
 * connection at about 5 MB/s. */
#define NL_TCP_SNDBUF 262144

/* Connect TCP to the first of the resolved addresses that answers, each within
 * timeout_ms. Returns a non-blocking fd, or -1 with errno saying why (ETIMEDOUT when no
 * answer came in time). Like the two below. */
int nl__tcp_connect(const struct addrinfo *res, int timeout_ms);
/* A UDP socket connected to the first usable resolved address. Returns a non-blocking fd,
 * or -1. */
int nl__udp_connect(const struct addrinfo *res);
/* A unix datagram socket (not yet connected). Returns a non-blocking fd, or -1. */
int nl__unix_dgram_socket(void);
/* Connect a unix datagram socket to path. Returns 0 or -1. */
int nl__unix_dgram_connect(int fd, const char *path);

#endif
