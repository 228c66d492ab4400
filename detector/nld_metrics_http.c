/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics_http.c — the metrics endpoint: a small HTTP/1.1 server on a thread of its own
 * that answers GET and HEAD /metrics with the store's exposition, one connection at a time.
 *
 * It is bounded everywhere a client could hold it: a request (line and headers) of at most
 * REQ_MAX bytes must arrive within REQ_TIMEOUT_MS, the answer must be taken within
 * SEND_TIMEOUT_MS, then the connection is closed (Connection: close; Prometheus opens one
 * per scrape). Anything else is answered with an error status and closed: 400 (malformed),
 * 404 (another path), 405 (another method), 431 (headers too long), 505 (not HTTP/1.x),
 * 503 (no memory to render). The OpenMetrics text goes to a client that accepts
 * application/openmetrics-text (Prometheus does), Prometheus' text format 0.0.4 to others
 * (curl, promtool). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nl_clock.h"
#include "nld_metrics_int.h"

#define REQ_MAX 8192
#define REQ_TIMEOUT_MS 5000
#define SEND_TIMEOUT_MS 10000
#define LINGER_MS 500
#define LINGER_MAX (256 * 1024)

struct nld_metrics_srv {
    nld_metrics_t *m;
    int lfd;     /* listening socket */
    int wake[2]; /* a byte here stops the thread */
    pthread_t th;
    char addr[80];
    char req[REQ_MAX + 1]; /* the request being read (the server's thread only) */
};

/* Wait until fd is ready for `ev` or the deadline passes; 1 ready, 0 timed out or stopping. */
static int wait_fd(nld_metrics_srv_t *s, int fd, short ev, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - nl__mono_ms();
        if (left <= 0) return 0;
        struct pollfd p[2] = {{.fd = fd, .events = ev}, {.fd = s->wake[0], .events = POLLIN}};
        int r = poll(p, 2, (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 || p[1].revents) return 0;
        if (r > 0) return 1;
    }
}

/* Send all of buf before the deadline; 0, or -1 (closed, too slow, stopping). */
static int send_all(nld_metrics_srv_t *s, int fd, const char *buf, size_t len, int64_t deadline)
{
    while (len) {
        ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
        if (w > 0) {
            buf += w;
            len -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!wait_fd(s, fd, POLLOUT, deadline)) return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

static void count(nld_metrics_srv_t *s, int ok, int timeout)
{
    pthread_mutex_lock(&s->m->mu);
    if (ok)
        s->m->http.scrapes++;
    else if (timeout)
        s->m->http.timeouts++;
    else
        s->m->http.errors++;
    pthread_mutex_unlock(&s->m->mu);
}

/* An error status with a one-line text body. */
static void answer_error(nld_metrics_srv_t *s, int fd, int code, const char *reason,
                         const char *extra, int64_t deadline)
{
    char h[512];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n%s\r\n%s\n",
                     code, reason, strlen(reason) + 1, extra ? extra : "", reason);
    send_all(s, fd, h, (size_t)n, deadline);
    count(s, 0, 0);
}

/* Read a request's line and headers into req (NUL-terminated); returns its length, 0 if
 * the client went away or was too slow (counted), -1 if it is longer than REQ_MAX. */
static long read_request(nld_metrics_srv_t *s, int fd, char *req, int64_t deadline)
{
    size_t len = 0;
    for (;;) {
        ssize_t r = recv(fd, req + len, REQ_MAX - len, 0);
        if (r > 0) {
            len += (size_t)r;
            req[len] = 0;
            if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n")) return (long)len;
            if (memchr(req, 0, len)) return (long)len; /* a NUL: malformed, said so below */
            if (len == REQ_MAX) return -1;
        } else if (r == 0) {
            return 0;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!wait_fd(s, fd, POLLIN, deadline)) {
                count(s, 0, 1);
                return 0;
            }
        } else {
            return 0;
        }
    }
}

int nldm__http_check(char *req, size_t len, int *head, int *om)
{
    if (strlen(req) != len) return 400; /* a NUL byte */
    char *eol = strchr(req, '\n');
    if (!eol) return 400;
    *eol = 0;
    if (eol > req && eol[-1] == '\r') eol[-1] = 0;
    char *sp1 = strchr(req, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp1 || !sp2 || strchr(sp2 + 1, ' ') || sp1 == req || sp2 == sp1 + 1) return 400;
    *sp1 = *sp2 = 0;
    const char *method = req, *target = sp1 + 1, *version = sp2 + 1;
    for (const char *p = req; p < eol; p++)
        if (*p && ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)) return 400;
    if (strncmp(version, "HTTP/", 5)) return 400;
    if (strcmp(version, "HTTP/1.1") && strcmp(version, "HTTP/1.0")) return 505;
    /* headers: NAME ":" VALUE, until the blank line */
    *om = 0;
    for (char *line = eol + 1; *line && *line != '\r' && *line != '\n';) {
        char *end = strchr(line, '\n');
        if (!end) break;
        *end = 0;
        if (end > line && end[-1] == '\r') end[-1] = 0;
        char *colon = strchr(line, ':');
        if (!colon || colon == line || strcspn(line, " \t") < (size_t)(colon - line)) return 400;
        if (colon - line == 6 && !strncasecmp(line, "accept", 6) &&
            strstr(colon + 1, "application/openmetrics-text"))
            *om = 1;
        line = end + 1;
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) return 405;
    size_t plen = strcspn(target, "?#");
    if (plen != 8 || strncmp(target, "/metrics", 8)) return 404;
    *head = !strcmp(method, "HEAD");
    return 0;
}

/* One connection: read, check, answer, close. */
static void serve_one(nld_metrics_srv_t *s, int fd)
{
    char *req = s->req;
    int64_t deadline = nl__mono_ms() + REQ_TIMEOUT_MS;
    long len = read_request(s, fd, req, deadline);
    int head = 0, om = 0;
    if (len < 0) {
        answer_error(s, fd, 431, "Request Header Fields Too Large", NULL, deadline);
        return;
    }
    if (!len) return;
    int code = nldm__http_check(req, (size_t)len, &head, &om);
    if (code) {
        static const struct {
            int code;
            const char *reason, *extra;
        } st[] = {{400, "Bad Request", NULL},
                  {404, "Not Found", NULL},
                  {405, "Method Not Allowed", "Allow: GET, HEAD\r\n"},
                  {505, "HTTP Version Not Supported", NULL}};
        for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
            if (st[i].code == code) answer_error(s, fd, code, st[i].reason, st[i].extra, deadline);
        return;
    }
    char *body;
    size_t blen;
    deadline = nl__mono_ms() + SEND_TIMEOUT_MS;
    if (nld_metrics_render(s->m, om, &body, &blen)) {
        answer_error(s, fd, 503, "Service Unavailable", NULL, deadline);
        return;
    }
    char h[256];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                        : "text/plain; version=0.0.4; charset=utf-8",
                     blen);
    int rc = send_all(s, fd, h, (size_t)n, deadline);
    if (!rc && !head) rc = send_all(s, fd, body, blen, deadline);
    free(body);
    count(s, !rc, rc != 0);
}

/* Close after the answer without losing it: a close with unread input (a request too long,
 * a body) would make the kernel reset the connection, and the client could lose the answer
 * still in flight. So: end our side, then read and drop what the client still sends, until
 * it closes, LINGER_MAX bytes or LINGER_MS. */
static void linger_close(nld_metrics_srv_t *s, int fd)
{
    shutdown(fd, SHUT_WR);
    int64_t deadline = nl__mono_ms() + LINGER_MS;
    size_t got = 0;
    char buf[4096];
    while (got < LINGER_MAX) {
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r > 0)
            got += (size_t)r;
        else if (r < 0 && errno == EINTR)
            continue;
        else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
                 wait_fd(s, fd, POLLIN, deadline))
            continue;
        else
            break;
    }
    close(fd);
}

static void *run(void *arg)
{
    nld_metrics_srv_t *s = arg;
    for (;;) {
        struct pollfd p[2] = {{.fd = s->lfd, .events = POLLIN},
                              {.fd = s->wake[0], .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[1].revents) break;
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) { /* let the backlog wait, do not spin */
                struct timespec t = {0, 100000000};
                nanosleep(&t, NULL);
            }
            continue;
        }
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        serve_one(s, fd);
        linger_close(s, fd);
    }
    return NULL;
}

/* Split "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" (loopback) into host and port. */
static int split_addr(const char *addr, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon;
    if (addr[0] == '[') {
        const char *rb = strchr(addr, ']');
        if (!rb || rb[1] != ':' || (size_t)(rb - addr - 1) >= hcap) return -1;
        snprintf(host, hcap, "%.*s", (int)(rb - addr - 1), addr + 1);
        colon = rb + 1;
    } else if (!(colon = strrchr(addr, ':'))) {
        snprintf(host, hcap, "127.0.0.1");
        colon = addr - 1;
    } else {
        if ((size_t)(colon - addr) >= hcap) return -1;
        snprintf(host, hcap, "%.*s", (int)(colon - addr), addr);
        if (!host[0]) snprintf(host, hcap, "127.0.0.1");
    }
    const char *p = colon + 1;
    if (!*p || strlen(p) >= pcap || strspn(p, "0123456789") != strlen(p) || atol(p) > 65535)
        return -1;
    snprintf(port, pcap, "%s", p);
    return 0;
}

static int listen_on(const char *host, const char *port, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                    *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "metrics address %s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        snprintf(err, errlen, "metrics: cannot listen on %s port %s: %s", host, port, strerror(e));
    return fd;
}

nld_metrics_srv_t *nld_metrics_serve(nld_metrics_t *m, const char *addr, char *err, size_t errlen)
{
    char host[256], port[8];
    if (split_addr(addr, host, sizeof host, port, sizeof port)) {
        snprintf(err, errlen, "metrics address '%s': give HOST:PORT, [V6]:PORT or PORT", addr);
        return NULL;
    }
    nld_metrics_srv_t *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->m = m;
    s->wake[0] = s->wake[1] = -1;
    if ((s->lfd = listen_on(host, port, err, errlen)) < 0) goto fail;
    if (pipe(s->wake) || fcntl(s->wake[0], F_SETFD, FD_CLOEXEC) ||
        fcntl(s->wake[1], F_SETFD, FD_CLOEXEC)) {
        snprintf(err, errlen, "metrics: pipe: %s", strerror(errno));
        goto fail;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char h[INET6_ADDRSTRLEN + 2], pt[8];
    if (getsockname(s->lfd, (struct sockaddr *)&ss, &sl) ||
        getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, pt, sizeof pt,
                    NI_NUMERICHOST | NI_NUMERICSERV)) {
        snprintf(err, errlen, "metrics: cannot tell the address listened on");
        goto fail;
    }
    snprintf(s->addr, sizeof s->addr, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, pt);
    /* signals are the main thread's: it is the one that stops on SIGTERM */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&s->th, NULL, run, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        snprintf(err, errlen, "metrics: cannot start its thread: %s", strerror(rc));
        goto fail;
    }
    return s;
fail:
    if (s->lfd >= 0) close(s->lfd);
    if (s->wake[0] >= 0) close(s->wake[0]), close(s->wake[1]);
    free(s);
    return NULL;
}

const char *nld_metrics_srv_addr(const nld_metrics_srv_t *s) { return s->addr; }

void nld_metrics_srv_stop(nld_metrics_srv_t *s)
{
    if (!s) return;
    char c = 1;
    while (write(s->wake[1], &c, 1) < 0 && errno == EINTR) {
    }
    pthread_join(s->th, NULL);
    close(s->lfd);
    close(s->wake[0]);
    close(s->wake[1]);
    free(s);
}
