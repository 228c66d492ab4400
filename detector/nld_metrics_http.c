/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics_http.c — the metrics endpoint: HTTP/1.1 (libmicrohttpd) on a thread of its
 * own that answers GET and HEAD /metrics with the store's exposition, many connections at
 * once, each in its own time.
 *
 * The thread accepts connections itself (so it can refuse, and count, a client over its
 * share) and hands them to libmicrohttpd, which it runs in the same thread (epoll, no
 * threads of its own): every callback below runs on this thread, none at the same time.
 * It is bounded everywhere a client could hold it:
 * - at most NLD_METRICS_CONN_PER_CLIENT connections from one address and
 *   NLD_METRICS_CONN_MAX in all; more are closed at once and counted (refused);
 * - each connection has its own deadlines: the request (line and headers, at most about
 *   REQ_MAX bytes, else 431) within NLD_METRICS_REQ_MS of its connect, the answer taken
 *   within NLD_METRICS_SEND_MS of the request; past a deadline it is shut down and
 *   counted (timeouts), whatever it is doing: a byte a second keeps nothing open;
 * - at most NLD_METRICS_RENDER_MAX answers are rendered at once
 *   (NLD_METRICS_RENDER_PER_CLIENT from one address), since each holds a copy of the
 *   store: more get 503, counted (refused).
 * A scrape is answered beside slow clients: none of them waits for another. Each answer is
 * rendered from a copy of the store taken when its request is in (the store's lock is held
 * only for the copy), a piece at a time as the client takes it (chunked in HTTP/1.1), then
 * the connection is closed (Connection: close; Prometheus opens one per scrape). Errors:
 * 400 (malformed), 404 (another path), 405 (another method), 431 (headers too long), 505
 * (not HTTP/1.x), 503 (too many answers at once, or no memory to copy the store). The
 * OpenMetrics text goes to a client that accepts application/openmetrics-text (Prometheus
 * does), Prometheus' text format 0.0.4 to others (curl, promtool). */
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
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
#include "nl_list.h"
#include "nld_metrics_int.h"

#define REQ_MAX 8192          /* request line and headers: libmicrohttpd's per-connection */
#define POOL (REQ_MAX + 4096) /* memory, which also holds the answer's head and a piece */
#define PIECE_MAX 8192        /* of the body at a time */

typedef struct conn {
    struct conn *prev, *next;
    struct MHD_Connection *c;
    int fd;
    struct sockaddr_storage sa; /* the client's address */
    int64_t deadline;           /* the request's, then the answer's (nl__mono_ms) */
    int status;                 /* the answer queued: 0 none yet */
    int ok;                     /* a 200 taken whole */
    int reaped;                 /* shut down past its deadline */
    int rendering;              /* holds one of the render slots */
    struct answer *ans;         /* its 200's body, while being sent */
} conn_t;

struct nld_metrics_srv {
    nld_metrics_t *m;
    struct MHD_Daemon *d;
    int lfd;     /* listening socket */
    int wake[2]; /* a byte here stops the thread */
    pthread_t th;
    char addr[80];
    conn_t *head, *tail; /* open connections (the thread's only) */
    size_t nconn, nrender;
    conn_t *adding; /* the record for the connection being handed to libmicrohttpd */
};

typedef struct answer { /* a 200's body being sent */
    nld_metrics_srv_t *s;
    conn_t *cn;
    nld_metrics_stream_t *st;
} answer_t;

static void count(nld_metrics_srv_t *s, uint64_t *what)
{
    pthread_mutex_lock(&s->m->mu);
    (*what)++;
    pthread_mutex_unlock(&s->m->mu);
}

/* Whether two socket addresses are the same client (its address, not its port). */
static int same_client(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family) return 0;
    if (a->ss_family == AF_INET)
        return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
                       &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr));
    if (a->ss_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
    return 1;
}

/* Connections (or, with rendering, answers being rendered) open from sa's client. */
static size_t of_client(const nld_metrics_srv_t *s, const struct sockaddr_storage *sa,
                        int rendering)
{
    size_t n = 0;
    for (const conn_t *c = s->head; c; c = c->next)
        if ((!rendering || c->rendering) && same_client(&c->sa, sa)) n++;
    return n;
}

/* libmicrohttpd's connection hooks: a connection handed over gets its record (s->adding);
 * a closed one is counted by how it ended and forgotten. */
static void on_conn(void *cls, struct MHD_Connection *c, void **ctx,
                    enum MHD_ConnectionNotificationCode what)
{
    nld_metrics_srv_t *s = cls;
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
        conn_t *cn = s->adding;
        s->adding = NULL;
        if (!cn) return;
        cn->c = c;
        *ctx = cn;
        NL__DL_APPEND(s->head, s->tail, cn);
        s->nconn++;
        return;
    }
    conn_t *cn = *ctx;
    if (!cn) return;
    *ctx = NULL;
    if (cn->ans) cn->ans->cn = NULL; /* its body may be freed after it */
    if (cn->ok)
        count(s, &s->m->http.scrapes);
    else if (cn->reaped)
        count(s, &s->m->http.timeouts);
    else
        count(s, &s->m->http.errors);
    NL__DL_UNLINK(s->head, s->tail, cn);
    s->nconn--;
    free(cn);
}

/* The request's end: a 200 counts only if its client took the whole answer. */
static void on_done(void *cls, struct MHD_Connection *c, void **req_ctx,
                    enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)req_ctx;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_t *cn = ci ? ci->socket_context : NULL;
    if (cn && cn->status == 200 && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) cn->ok = 1;
}

/* The body, a piece at a time, from the answer's copy of the store. */
static ssize_t body(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    answer_t *a = cls;
    if (!a->st) return MHD_CONTENT_READER_END_OF_STREAM;
    long n = nld_metrics_stream_read(a->st, buf, max);
    if (n < 0) return MHD_CONTENT_READER_END_WITH_ERROR;
    return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

/* The answer is sent or abandoned: its copy and render slot go. */
static void body_free(void *cls)
{
    answer_t *a = cls;
    nld_metrics_stream_close(a->st);
    a->s->nrender--;
    if (a->cn) {
        a->cn->rendering = 0;
        a->cn->ans = NULL;
    }
    free(a);
}

/* Queue an answer with Connection: close; the answer's deadline starts. */
static enum MHD_Result queue(nld_metrics_srv_t *s, conn_t *cn, struct MHD_Connection *c, int code,
                             struct MHD_Response *r)
{
    (void)s;
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    if (cn) {
        cn->status = code;
        cn->deadline = nl__mono_ms() + NLD_METRICS_SEND_MS;
    }
    return rc;
}

/* An error status with a one-line text body. */
static enum MHD_Result answer_error(nld_metrics_srv_t *s, conn_t *cn, struct MHD_Connection *c,
                                    int code, const char *reason)
{
    char t[64];
    int n = snprintf(t, sizeof t, "%s\n", reason);
    struct MHD_Response *r = MHD_create_response_from_buffer((size_t)n, t, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    if (code == 405) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    return queue(s, cn, c, code, r);
}

/* Header names are tokens (RFC 9110 5.1): libmicrohttpd takes "Bad Name: x" as a header;
 * refusing it keeps the one reading of a request. Also notes an Accept of OpenMetrics. */
typedef struct hdrs {
    int bad, om;
} hdrs_t;

static int is_token(const char *p)
{
    if (!*p) return 0;
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c <= 0x20 || c >= 0x7f || strchr("\"(),/:;<=>?@[\\]{}", c)) return 0;
    }
    return 1;
}

static enum MHD_Result header(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
    (void)kind;
    hdrs_t *h = cls;
    if (!is_token(k)) h->bad = 1;
    if (!strcasecmp(k, "accept") && v && strstr(v, "application/openmetrics-text")) h->om = 1;
    return MHD_YES;
}

/* A request whose line and headers are in: check it, answer it. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **req_ctx)
{
    (void)version;
    (void)upload;
    nld_metrics_srv_t *s = cls;
    if (*req_ctx) { /* a body: not read (the answer is queued already) */
        *upload_len = 0;
        return MHD_YES;
    }
    *req_ctx = s;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_t *cn = ci ? ci->socket_context : NULL;
    hdrs_t h = {0, 0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, header, &h);
    if (h.bad || !is_token(method)) return answer_error(s, cn, c, 400, "Bad Request");
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return answer_error(s, cn, c, 405, "Method Not Allowed");
    size_t plen = strcspn(url, "?#");
    if (plen != 8 || strncmp(url, "/metrics", 8)) return answer_error(s, cn, c, 404, "Not Found");
    int head = !strcmp(method, "HEAD");
    if (!cn || s->nrender >= NLD_METRICS_RENDER_MAX ||
        of_client(s, &cn->sa, 1) >= NLD_METRICS_RENDER_PER_CLIENT) {
        count(s, &s->m->http.refused);
        return answer_error(s, cn, c, 503, "Service Unavailable");
    }
    answer_t *a = calloc(1, sizeof *a);
    if (!a || (!head && !(a->st = nld_metrics_stream_open(s->m, h.om)))) {
        free(a);
        return answer_error(s, cn, c, 503, "Service Unavailable");
    }
    a->s = s;
    a->cn = cn;
    cn->rendering = 1;
    cn->ans = a;
    s->nrender++;
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, PIECE_MAX, body, a, body_free);
    if (!r) {
        body_free(a);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            h.om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                 : "text/plain; version=0.0.4; charset=utf-8");
    return queue(s, cn, c, 200, r);
}

/* Accept what is waiting: over a cap, closed at once (counted); else handed over. */
static void accept_all(nld_metrics_srv_t *s)
{
    for (;;) {
        struct sockaddr_storage sa;
        socklen_t sl = sizeof sa;
        int fd = accept(s->lfd, (struct sockaddr *)&sa, &sl);
        if (fd < 0) {
            if (errno == EINTR) continue;
            if (errno == EMFILE || errno == ENFILE) { /* let the backlog wait, do not spin */
                struct timespec t = {0, 100000000};
                nanosleep(&t, NULL);
            }
            return;
        }
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        conn_t *cn = NULL;
        if (s->nconn >= NLD_METRICS_CONN_MAX ||
            of_client(s, &sa, 0) >= NLD_METRICS_CONN_PER_CLIENT || !(cn = calloc(1, sizeof *cn))) {
            close(fd);
            count(s, &s->m->http.refused);
            continue;
        }
        cn->fd = fd;
        cn->sa = sa;
        cn->deadline = nl__mono_ms() + NLD_METRICS_REQ_MS;
        s->adding = cn;
        if (MHD_add_connection(s->d, fd, (struct sockaddr *)&sa, sl) != MHD_YES && s->adding)
            count(s, &s->m->http.errors); /* closed by libmicrohttpd (no memory) */
        if (s->adding) free(cn);          /* not taken */
        s->adding = NULL;
    }
}

/* Shut down every connection past its deadline (libmicrohttpd then closes it, which
 * frees its answer); the time to the next deadline, in ms, or -1 if none. */
static int64_t reap(nld_metrics_srv_t *s)
{
    int64_t now = nl__mono_ms(), next = -1;
    for (conn_t *c = s->head; c; c = c->next) {
        if (c->reaped) continue;
        if (c->deadline <= now) { /* closed with a reset: what it did not take is dropped */
            struct linger l = {1, 0};
            setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
            c->reaped = 1;
            shutdown(c->fd, SHUT_RDWR);
            continue;
        }
        if (next < 0 || c->deadline - now < next) next = c->deadline - now;
    }
    return next;
}

static void *run(void *arg)
{
    nld_metrics_srv_t *s = arg;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
    int efd = di ? di->epoll_fd : -1;
    for (;;) {
        int64_t wait = reap(s);
        MHD_UNSIGNED_LONG_LONG mt;
        if (MHD_get_timeout(s->d, &mt) == MHD_YES) {
            int64_t t = mt > INT32_MAX ? INT32_MAX : (int64_t)mt;
            if (wait < 0 || t < wait) wait = t;
        }
        if (wait > INT32_MAX) wait = INT32_MAX; /* -1: nothing due, wait for a client */
        struct pollfd p[3] = {{.fd = s->lfd, .events = POLLIN},
                              {.fd = s->wake[0], .events = POLLIN},
                              {.fd = efd, .events = POLLIN}};
        if (poll(p, 3, (int)wait) < 0 && errno != EINTR) break;
        if (p[1].revents) break;
        if (p[0].revents) accept_all(s);
        MHD_run(s->d);
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
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
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
    /* no listening socket of its own (the thread accepts), no thread of its own (the
     * thread runs it): every callback on one thread. Its own idle timeout backs ours up. */
    s->d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, on_request, s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)POOL, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)NLD_METRICS_CONN_MAX + 1, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)((NLD_METRICS_REQ_MS + NLD_METRICS_SEND_MS) / 1000), MHD_OPTION_NOTIFY_CONNECTION,
        on_conn, s, MHD_OPTION_NOTIFY_COMPLETED, on_done, s, MHD_OPTION_END);
    if (!s->d) {
        snprintf(err, errlen, "metrics: cannot start the HTTP server (libmicrohttpd)");
        goto fail;
    }
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
    if (s->d) MHD_stop_daemon(s->d);
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
    MHD_stop_daemon(s->d); /* closes what is open (on_conn frees its records) */
    close(s->lfd);
    close(s->wake[0]);
    close(s->wake[1]);
    free(s);
}
