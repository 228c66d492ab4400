/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_flight.c — lines in flight on a TCP connection (see nl_flight.h). */
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "nl_flight.h"

/* No line is shorter than its timestamp, event and level fields. */
#define NL_FLIGHT_MIN_LINE 40

void nl__flight_reset(nl_flight_t *f, int fd)
{
    f->sent = f->n = 0;
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) != 0 || sndbuf <= 0) sndbuf = 1 << 20;
    size_t want = (size_t)sndbuf / NL_FLIGHT_MIN_LINE + 64;
    if (want <= f->cap) return;
    uint64_t *e = realloc(f->ends, want * sizeof *e);
    if (!e) return; /* the old ring still counts what it can */
    f->ends = e;
    f->cap = want;
}

void nl__flight_sent(nl_flight_t *f, const char *p, size_t n)
{
    const char *q = p, *end = p + n;
    while (f->cap && (q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        q++;
        f->ends[f->n++ % f->cap] = f->sent + (uint64_t)(q - p);
    }
    f->sent += n;
}

uint64_t nl__flight_unacked(const nl_flight_t *f, int fd)
{
    int outq = 0;
    if (fd < 0 || ioctl(fd, SIOCOUTQ, &outq) != 0 || outq <= 0 || (uint64_t)outq > f->sent)
        return 0;
    uint64_t acked = f->sent - (uint64_t)outq, lost = 0;
    /* newest first, back to the first line end the peer acknowledged (or the ring's end) */
    for (uint64_t i = f->n; i > 0 && i + f->cap > f->n && f->ends[(i - 1) % f->cap] > acked; i--)
        lost++;
    return lost;
}

void nl__flight_free(nl_flight_t *f)
{
    free(f->ends);
    memset(f, 0, sizeof *f);
}
