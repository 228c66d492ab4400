/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_resolve.h — private: host names resolved with a time limit. getaddrinfo(3) may wait
 * as long as the system's resolver does (10 s and more with a resolver that never
 * answers), and nothing can interrupt it; so a name is looked up on a thread of its own
 * and waited for at most the destination's timeout. A lookup that runs late is kept and
 * waited for again by the next call, never started twice. */
#ifndef NLKIT_NL_RESOLVE_H
#define NLKIT_NL_RESOLVE_H

#include <netdb.h>

typedef struct nl_lookup nl_lookup_t;

/* Resolve host:port for the socket type (SOCK_STREAM, SOCK_DGRAM), waiting at most
 * timeout_ms. A numeric address is answered at once. *pending is the caller's slot for a
 * lookup still running (NULL at first; one slot per destination, used by one thread at a
 * time). Returns 0 with *out set (free it with freeaddrinfo), or -1: the name does not
 * resolve, or the lookup is still running (then *pending holds it for the next call). */
int nl__resolve(const char *host, int port, int socktype, int timeout_ms, nl_lookup_t **pending,
                struct addrinfo **out);

/* Let go of a lookup still running (it frees itself when it ends); *pending becomes NULL. */
void nl__lookup_forget(nl_lookup_t **pending);

#endif
