/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_sock.c — connect helpers for nl_sink.c (names are resolved by nl_resolve.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nl_sock.h"

/* Non-blocking connect, then wait for it to finish or time out. */
static int connect_timed(const struct addrinfo *ai, int timeout_ms)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) return -1;
    /* A bounded send buffer bounds the bytes in flight that nl_flight.c must be able to
     * count when the connection breaks (autotuning grows it to 4 MiB) */
    int sndbuf = NL_TCP_SNDBUF;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) return fd;
    if (errno != EINPROGRESS) goto fail;
    struct pollfd p = {fd, POLLOUT, 0};
    int r;
    do r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    if (r == 0) errno = ETIMEDOUT;
    if (r <= 0) goto fail;
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) goto fail;
    if (err != 0) {
        errno = err;
        goto fail;
    }
    return fd;
fail:; /* errno says why, for the message that names the destination (nl_sink.c) */
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

int nl__tcp_connect(const struct addrinfo *res, int timeout_ms)
{
    int fd = -1;
    for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
        fd = connect_timed(ai, timeout_ms);
    return fd;
}

int nl__udp_connect(const struct addrinfo *res)
{
    int fd = -1;
    for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            fd = -1;
        }
    }
    return fd;
}

int nl__unix_dgram_socket(void)
{
    return socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

int nl__unix_dgram_connect(int fd, const char *path)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) return errno = ENAMETOOLONG, -1;
    strcpy(sa.sun_path, path);
    return connect(fd, (struct sockaddr *)&sa, sizeof sa);
}
