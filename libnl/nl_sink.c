/* nl_sink.c — destinations: buffered byte streams (file, stdout/stderr, TCP) and datagrams
 * (UDP, syslog). The rules that keep the application safe:
 *   - a writer never waits on the network longer than the URL's timeout, and after one
 *     timeout the sink is "stalled": writers stop trying and only the flusher thread retries;
 *   - connecting happens on the flusher thread, outside the lock;
 *   - a line that cannot be taken is dropped whole, counted, and reported in the log
 *     ("nl.log.dropped") once the destination works again;
 *   - after a broken connection the partly sent line is discarded (and counted) rather
 *     than resent as a torn fragment. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "nl_sink.h"
#include "nl_sock.h"

#define DEFAULT_BUFFER 65536
#define MIN_BUFFER 4096

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void count_drops(nl_sink_t *s, uint64_t n)
{
    if (!n) return;
    atomic_fetch_add_explicit(&s->dropped, n, memory_order_relaxed);
    s->unreported += n;
}

static uint64_t count_lines(const char *p, size_t n)
{
    uint64_t k = 0;
    for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) k++;
    return k;
}

/* Lose the connection: close it, and drop the rest of a line whose start was sent. */
static void disconnect(nl_sink_t *s, int mid_line)
{
    if (s->fd >= 0 && s->own_fd) close(s->fd);
    s->fd = -1;
    atomic_store(&s->active, 0);
    if (mid_line && s->len) {
        char *nl = memchr(s->buf, '\n', s->len);
        size_t cut = nl ? (size_t)(nl - s->buf) + 1 : s->len;
        memmove(s->buf, s->buf + cut, s->len - cut);
        s->len -= cut;
        count_drops(s, 1);
    }
}

/* write(2) to a pipe whose reader is gone raises SIGPIPE, which kills a program that did
 * not ask for it. Block it for this thread and consume any SIGPIPE we caused. */
static ssize_t write_nosigpipe(int fd, const char *p, size_t n)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);
    ssize_t w = write(fd, p, n);
    int e = errno;
    if (w < 0 && e == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return w;
}

/* Wait until fd is writable or the deadline passes; 1 if writable. */
static int wait_writable(int fd, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) return 0;
        struct pollfd p = {fd, POLLOUT, 0};
        int r = poll(&p, 1, (int)left);
        if (r > 0) return 1;
        if (r < 0 && errno != EINTR) return 0;
    }
}

/* Write as much of p[0, n) as the destination takes within the timeout; returns the bytes
 * written. A hard error closes the connection (network) or marks the sink inactive. */
static size_t out_stream(nl_sink_t *s, const char *p, size_t n)
{
    size_t done = 0;
    int64_t deadline = now_ms() + s->url.timeout_ms;
    int tcp = s->url.kind == NL_D_TCP;
    while (done < n && s->fd >= 0) {
        ssize_t w;
        if (tcp)
            w = send(s->fd, p + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        else if (s->guard_sigpipe)
            w = write_nosigpipe(s->fd, p + done, n - done);
        else
            w = write(s->fd, p + done, n - done);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_writable(s->fd, deadline)) continue;
            s->stalled = 1; /* slow peer: the flusher thread takes over */
            atomic_store(&s->active, 0);
            return done;
        }
        /* hard error: ENOSPC, EPIPE, ECONNRESET, EIO ... */
        if (tcp)
            disconnect(s, 0);
        else
            atomic_store(&s->active, 0);
        return done;
    }
    if (done == n && s->fd >= 0) {
        s->stalled = 0;
        atomic_store(&s->active, 1);
    }
    return done;
}

/* The peer of an idle TCP connection may have gone: a send would then succeed into the
 * kernel and be lost. Check for EOF/reset without blocking. */
static int peer_gone(nl_sink_t *s)
{
    struct pollfd p = {s->fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, 0) <= 0) return 0;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return 1;
    char junk[256];
    ssize_t r = recv(s->fd, junk, sizeof junk, MSG_DONTWAIT); /* a collector may talk back */
    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* The line that reports drops, written into out[cap]; returns its length or 0. */
static size_t report_line(nl_sink_t *s, char *out, size_t cap)
{
    nl_buf_t b;
    nl_buf_init(&b, out, cap);
    b.limit = cap;
    nl_enc_begin(&b, nl_now_usec(), "nl.log.dropped", NL_LVL_WARN, s->guid);
    nl_enc_u64(&b, "n", s->unreported);
    nl_enc_u64(&b, "total", atomic_load(&s->dropped));
    return nl_enc_end(&b) ? 0 : b.len;
}

/* Send out the buffer (and a pending drop report); caller holds mu. */
static int flush_locked(nl_sink_t *s)
{
    if (s->fd < 0) return s->len ? NL_EIO : 0;
    if (s->url.kind == NL_D_TCP && peer_gone(s)) {
        disconnect(s, 0);
        return s->len ? NL_EIO : 0;
    }
    for (int round = 0; round < 2; round++) {
        if (s->len) {
            size_t w = out_stream(s, s->buf, s->len);
            int mid = w > 0 && w < s->len && s->buf[w - 1] != '\n';
            memmove(s->buf, s->buf + w, s->len - w);
            s->len -= w;
            if (s->fd < 0 && mid) disconnect(s, 1); /* lost after part of a line */
        }
        if (s->len || !s->unreported || s->fd < 0) break;
        size_t n = report_line(s, s->buf, s->cap);
        if (!n) break;
        s->len = n;
        s->unreported = 0;
    }
    return s->len ? NL_EIO : 0;
}

static void syslog_header(nl_sink_t *s, int level, char *hdr, size_t cap, size_t *hlen)
{
    static const int sev[] = {0 /*EMERG*/, 3 /*ERR*/, 4 /*WARNING*/, 6 /*INFO*/, 7, 7};
    int pri = s->url.facility | sev[level >= 0 && level <= NL_LVL_TRACE ? level : NL_LVL_INFO];
    time_t now = time(NULL);
    if (now != s->syslog_sec) { /* RFC 3164 wants local time; once a second is enough */
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(s->syslog_time, sizeof s->syslog_time, "%b %e %H:%M:%S", &tm);
        s->syslog_sec = now;
    }
    int n = snprintf(hdr, cap, "<%d>%s %s[%d]: ", pri, s->syslog_time, s->url.prog, (int)s->pid);
    *hlen = n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* One datagram per line, without its newline; syslog gets an RFC 3164 header. */
static int send_dgram(nl_sink_t *s, const char *line, size_t len, int level)
{
    if (s->fd < 0) return -1;
    char hdr[160];
    size_t hlen = 0;
    if (s->url.kind == NL_D_SYSLOG) syslog_header(s, level, hdr, sizeof hdr, &hlen);
    struct iovec iov[2] = {{hdr, hlen},
                           {(void *)line, len && line[len - 1] == '\n' ? len - 1 : len}};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    if (sendmsg(s->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) {
        atomic_store(&s->active, 1);
        return 0;
    }
    atomic_store(&s->active, 0);
    if (s->url.kind == NL_D_SYSLOG && errno != EAGAIN && errno != EWOULDBLOCK && errno != EMSGSIZE)
        disconnect(s, 0); /* the daemon restarted: reconnect to its new socket */
    return -1;
}

/* Report earlier drops on a datagram sink that works again. */
static void dgram_report(nl_sink_t *s)
{
    char rep[512];
    size_t n = report_line(s, rep, sizeof rep);
    if (n && send_dgram(s, rep, n, NL_LVL_WARN) == 0) s->unreported = 0;
}

static int write_dgram(nl_sink_t *s, const char *line, size_t len, int level)
{
    if (s->unreported && s->fd >= 0) dgram_report(s);
    if (send_dgram(s, line, len, level) == 0) return 0;
    count_drops(s, 1);
    return NL_EIO;
}

static int write_stream(nl_sink_t *s, const char *line, size_t len)
{
    if (len > s->cap) { /* a line larger than the buffer: grow once, bounded by NL_LINE_MAX */
        char *nb = realloc(s->buf, len);
        if (!nb) {
            count_drops(s, 1);
            return NL_EIO;
        }
        s->buf = nb;
        s->cap = len;
    }
    if (s->unreported && s->fd >= 0 && !s->stalled && atomic_load(&s->active)) {
        char rep[256]; /* report drops in sequence, as soon as the sink works */
        size_t n = report_line(s, rep, sizeof rep);
        if (n && s->len + n <= s->cap) {
            memcpy(s->buf + s->len, rep, n);
            s->len += n;
            s->unreported = 0;
        }
    }
    if (s->len + len > s->cap && !s->stalled) flush_locked(s);
    if (s->len + len > s->cap) {
        count_drops(s, 1);
        return NL_EIO;
    }
    memcpy(s->buf + s->len, line, len);
    s->len += len;
    if (s->write_through && !s->stalled) flush_locked(s);
    return 0;
}

int nl__sink_write(nl_sink_t *s, const char *line, size_t len, int level)
{
    pthread_mutex_lock(&s->mu);
    int rc = s->stream ? write_stream(s, line, len) : write_dgram(s, line, len, level);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

void nl__sink_drop(nl_sink_t *s, uint64_t n)
{
    pthread_mutex_lock(&s->mu);
    count_drops(s, n);
    pthread_mutex_unlock(&s->mu);
}

int nl__sink_flush(nl_sink_t *s)
{
    if (!s->stream) return 0;
    pthread_mutex_lock(&s->mu);
    int rc = flush_locked(s);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* A new connection for a network sink, or -1. Called without the lock: may take up to
 * the timeout. */
static int connect_fd(const nl_sink_t *s)
{
    switch (s->url.kind) {
    case NL_D_TCP: return nl__tcp_connect(s->url.host, s->url.port, s->url.timeout_ms);
    case NL_D_UDP: return nl__udp_connect(s->url.host, s->url.port);
    case NL_D_SYSLOG: {
        int fd = nl__unix_dgram_socket();
        if (fd >= 0 && nl__unix_dgram_connect(fd, s->url.path) != 0) {
            close(fd);
            fd = -1;
        }
        return fd;
    }
    default: return -1;
    }
}

void nl__sink_tick(nl_sink_t *s)
{
    pthread_mutex_lock(&s->mu);
    int down = s->fd < 0 && s->own_fd && s->url.kind != NL_D_FILE;
    pthread_mutex_unlock(&s->mu);
    if (down) {
        int fd = connect_fd(s); /* only this thread connects, so fd cannot change meanwhile */
        if (fd >= 0) {
            pthread_mutex_lock(&s->mu);
            s->fd = fd;
            s->stalled = 0;
            atomic_store(&s->active, 1);
            atomic_fetch_add(&s->reconnects, 1);
            pthread_mutex_unlock(&s->mu);
        }
    }
    pthread_mutex_lock(&s->mu);
    if (s->stream)
        flush_locked(s);
    else if (s->unreported && s->fd >= 0)
        dgram_report(s);
    pthread_mutex_unlock(&s->mu);
}

int nl__sink_open(nl_sink_t *s, const nl_url_t *u, const char *guid)
{
    memset(s, 0, sizeof *s);
    s->url = *u;
    s->fd = -1;
    s->pid = getpid();
    nl__sink_set_guid(s, guid);
    atomic_init(&s->active, 0);
    atomic_init(&s->dropped, 0);
    atomic_init(&s->reconnects, 0);
    if (!s->url.prog[0]) {
        snprintf(s->url.prog, sizeof s->url.prog, "%s", program_invocation_short_name);
    }
    int default_through = 0;
    switch (u->kind) {
    case NL_D_FILE:
        s->fd = open(u->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (s->fd < 0) return NL_EIO;
        s->own_fd = 1;
        break;
    case NL_D_STDOUT:
    case NL_D_STDERR:
        s->fd = u->kind == NL_D_STDOUT ? STDOUT_FILENO : STDERR_FILENO;
        if (fcntl(s->fd, F_GETFL) < 0) s->fd = -1; /* closed: stays inactive, counts drops */
        default_through = u->kind == NL_D_STDERR || (s->fd >= 0 && isatty(s->fd));
        break;
    default:
        s->own_fd = 1;
        s->fd = connect_fd(s); /* down now is not an error: the flusher retries */
    }
    s->stream = u->kind == NL_D_FILE || u->kind == NL_D_STDOUT || u->kind == NL_D_STDERR ||
                u->kind == NL_D_TCP;
    struct stat st;
    s->guard_sigpipe = s->stream && u->kind != NL_D_TCP && s->fd >= 0 && fstat(s->fd, &st) == 0 &&
                       (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
    if (s->stream) {
        s->write_through = u->buffer == 0 || (u->buffer < 0 && default_through);
        s->cap = u->buffer > MIN_BUFFER ? (size_t)u->buffer
                 : u->buffer < 0        ? DEFAULT_BUFFER
                                        : MIN_BUFFER;
        if (u->buffer == 0) s->cap = DEFAULT_BUFFER; /* write-through still keeps unsent bytes */
        s->buf = malloc(s->cap);
        if (!s->buf) {
            if (s->fd >= 0 && s->own_fd) close(s->fd);
            return NL_ENOMEM;
        }
    }
    /* Writers hold mu for a memcpy into the buffer: spinning briefly before sleeping in
     * the kernel keeps several writing threads from turning every call into a futex call. */
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&s->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    atomic_store(&s->active, s->fd >= 0);
    return 0;
}

void nl__sink_set_guid(nl_sink_t *s, const char *guid)
{
    snprintf(s->guid, sizeof s->guid, "%s", guid ? guid : "");
}

void nl__sink_close(nl_sink_t *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->stream) {
        if (s->unreported || s->len) {
            s->stalled = 0;
            flush_locked(s);
        }
        count_drops(s, count_lines(s->buf, s->len));
    }
    if (s->fd >= 0 && s->own_fd) close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_destroy(&s->mu);
}
