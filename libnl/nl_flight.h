/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_flight.h — private: lines in flight on a TCP connection. send(2) succeeding means
 * only that the kernel took the bytes; when the connection breaks, those the peer never
 * acknowledged are lost. To count them as dropped, the end offset of every line sent
 * recently is kept in a ring, and at the break the kernel says how many bytes are still
 * unacknowledged (SIOCOUTQ): each line whose last byte is among them was lost. The ring
 * is sized from the socket's send buffer, which nl_sock.c bounds. Lines the peer's kernel
 * acknowledged but its program never read cannot be seen from this side (LIMITS.md). */
#ifndef NLKIT_NL_FLIGHT_H
#define NLKIT_NL_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

typedef struct nl_flight {
    uint64_t sent;  /* bytes sent on this connection */
    uint64_t *ends; /* ring: ends[i % cap] = offset just past the i-th line's newline */
    size_t cap;
    uint64_t n; /* line ends recorded on this connection */
} nl_flight_t;

/* A new connection on fd: forget the last one, size the ring for fd's send buffer. */
void nl__flight_reset(nl_flight_t *f, int fd);

/* p[0, n) has just been sent. */
void nl__flight_sent(nl_flight_t *f, const char *p, size_t n);

/* The connection on fd is ending: the lines whose newline the peer has not acknowledged
 * (0 if the kernel cannot say). */
uint64_t nl__flight_unacked(const nl_flight_t *f, int fd);

/* Free the ring. */
void nl__flight_free(nl_flight_t *f);

#endif
