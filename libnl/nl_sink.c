/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_sink.c — destinations: buffered byte streams (file, stdout/stderr, TCP) and datagrams
 * (UDP, syslog). The rules that keep the application safe:
 *   - a writer never waits on the network longer than the URL's timeout, and after one
 *     timeout the sink is "stalled": writers stop trying and only the flusher thread retries;
 *   - connecting happens on the flusher thread, outside the lock;
 *   - a line that cannot be taken is dropped whole, counted, and reported in the log
 *     ("nl.log.dropped") once the destination works again;
 *   - after a broken connection the partly sent line is discarded (and counted) rather
 *     than resent as a torn fragment;
 *   - stream sinks are double-buffered: the bytes go out from one buffer while writers
 *     append to the other, so a write(2) never holds up the other writing threads; and
 *     while a CPU is spare, the writer that fills a buffer hands it to the flusher thread
 *     rather than calling write(2) itself;
 *   - in front of that, each thread stages its lines (nl_stage.c) and hands them over by
 *     the chunk, so threads on different cores do not fight over the lock per line. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "nl_clock.h"
#include "nl_fork.h"
#include "nl_say.h"
#include "nl_sink.h"
#include "nl_sock.h"

/* 256 KiB per buffer (two per stream sink): a quarter of the write(2) calls of 64 KiB, whose
 * cost per call showed in every line to a file (bench-throughput; figures in
 * bench/README.md). */
#define DEFAULT_BUFFER 262144
#define MIN_BUFFER 4096
#define STAGE_BYTES 4096

static void count_drops(nl_sink_t *s, uint64_t n)
{
    if (!n) return;
    atomic_fetch_add_explicit(&s->dropped, n, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->unreported, n, memory_order_relaxed);
}

static uint64_t count_lines(const char *p, size_t n)
{
    uint64_t k = 0;
    for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) k++;
    return k;
}

/* Lose the connection. Caller owns fd (io_mu for a stream sink, mu for datagrams). Lines
 * a TCP peer never acknowledged are lost with it: counted. */
static void disconnect(nl_sink_t *s)
{
    if (s->fd >= 0 && s->url.kind == NL_D_TCP)
        count_drops(s, nl__flight_unacked(&s->flight, s->fd));
    if (s->fd >= 0 && s->own_fd) close(s->fd);
    s->fd = -1;
    atomic_store(&s->active, 0);
}

/* The connection broke after part of a line went out: skip (and count) the rest of that
 * line, so the next connection starts on a line boundary. The out buffer only ever holds
 * whole lines, so a byte before out_off that is not '\n' means a line was cut. Under io_mu. */
static void skip_torn_line(nl_sink_t *s)
{
    if (s->out_off == 0 || s->out_off == s->out_len || s->out[s->out_off - 1] == '\n') return;
    char *nl = memchr(s->out + s->out_off, '\n', s->out_len - s->out_off);
    s->out_off = nl ? (size_t)(nl - s->out) + 1 : s->out_len;
    count_drops(s, 1);
}

/* A file that filled up (ENOSPC, EDQUOT, EFBIG) took only part of a line: cut the file
 * back to the end of its last whole line, and make the line pending again, whole, from its
 * start. Otherwise the file ends in a fragment, and the next line written there (a later
 * write once there is room, or the next run) is glued to it and lost at load. The line
 * then goes out whole once there is room, or is counted as dropped at close like any line
 * still pending. Done only while the file ends where our last write did (no other writer
 * appended since: fstat's size is our offset). Caller holds io_mu. */
static void untear_file(nl_sink_t *s)
{
    size_t start = s->out_off;
    while (start > 0 && s->out[start - 1] != '\n') start--;
    size_t k = s->out_off - start;
    if (!k) return;
    struct stat st;
    off_t at = lseek(s->fd, 0, SEEK_CUR);
    if (at < (off_t)k || fstat(s->fd, &st) != 0 || st.st_size != at) return;
    if (ftruncate(s->fd, at - (off_t)k) != 0) return;
    s->out_off = start;
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
        int64_t left = deadline - nl__mono_ms();
        if (left <= 0) return 0;
        struct pollfd p = {fd, POLLOUT, 0};
        int r = poll(&p, 1, (int)left);
        if (r > 0) return 1;
        if (r < 0 && errno != EINTR) return 0;
    }
}

/* Once another process may write to the same pipe, the kernel keeps a write whole only up
 * to PIPE_BUF bytes: so many bytes of p[0, n) as end at a line end within PIPE_BUF (or the
 * first line, if it alone is longer). */
static size_t pipe_piece(const char *p, size_t n)
{
    if (n <= PIPE_BUF) return n;
    for (size_t i = PIPE_BUF; i > 0; i--)
        if (p[i - 1] == '\n') return i;
    const char *nl = memchr(p, '\n', n);
    return nl ? (size_t)(nl - p) + 1 : n;
}

/* Write as much of p[0, n) as the destination takes within the timeout; returns the bytes
 * written. A hard error closes the connection (network) or marks the sink inactive. */
static size_t out_stream(nl_sink_t *s, const char *p, size_t n)
{
    size_t done = 0;
    int64_t deadline = nl__mono_ms() + s->url.timeout_ms;
    int tcp = s->url.kind == NL_D_TCP;
    while (done < n && s->fd >= 0) {
        ssize_t w;
        if (tcp || s->sock_out)
            w = send(s->fd, p + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        else if (s->pipe && atomic_load_explicit(&nl__fork_seen, memory_order_relaxed))
            w = write_nosigpipe(s->fd, p + done, pipe_piece(p + done, n - done));
        else if (s->guard_sigpipe)
            w = write_nosigpipe(s->fd, p + done, n - done);
        else
            w = write(s->fd, p + done, n - done);
        if (w > 0) {
            if (tcp) nl__flight_sent(&s->flight, p + done, (size_t)w);
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_writable(s->fd, deadline)) continue;
            atomic_store(&s->stalled, 1); /* slow peer: the flusher thread takes over */
            atomic_store(&s->why, ETIMEDOUT);
            atomic_store(&s->active, 0);
            return done;
        }
        /* hard error: ENOSPC, EPIPE, ECONNRESET, EIO ... A FIFO's reader went away: open
         * it again (on the flusher thread) when another comes. */
        atomic_store(&s->why, w < 0 ? errno : EIO);
        if (tcp || s->fifo)
            disconnect(s);
        else
            atomic_store(&s->active, 0);
        return done;
    }
    if (done == n && s->fd >= 0) {
        atomic_store(&s->stalled, 0);
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

/* The line that reports n drops, written into out[cap]; returns its length or 0. */
static size_t report_line(nl_sink_t *s, uint64_t n, char *out, size_t cap)
{
    nl_buf_t b;
    nl_buf_init(&b, out, cap);
    b.limit = cap;
    nl_enc_begin(&b, nl_now_usec(), "nl.log.dropped", NL_LVL_WARN, s->guid);
    nl_enc_u64(&b, "n", n);
    nl_enc_u64(&b, "total", atomic_load(&s->dropped));
    return nl_enc_end(&b) ? 0 : b.len;
}

/* Report drops in sequence, as soon as the sink works: the report goes into the fill
 * buffer behind the lines already there. Caller holds mu. */
static void queue_report(nl_sink_t *s)
{
    uint64_t n = atomic_load_explicit(&s->unreported, memory_order_relaxed);
    if (!n || atomic_load(&s->stalled) || !atomic_load(&s->active)) return;
    char rep[256];
    size_t k = report_line(s, n, rep, sizeof rep);
    if (k && s->len + k <= s->cap) {
        memcpy(s->buf + s->len, rep, k);
        s->len += k;
        atomic_fetch_sub(&s->unreported, n); /* drops counted meanwhile stay unreported */
    }
}

/* Send what the out buffer holds, within the timeout; an idle TCP connection is checked
 * for a vanished peer first. Caller holds io_mu, not mu. 0 when nothing is left. */
static int drain_out(nl_sink_t *s)
{
    if (s->fd >= 0 && s->url.kind == NL_D_TCP && peer_gone(s)) disconnect(s);
    if (s->fd >= 0 && s->out_off < s->out_len)
        s->out_off += out_stream(s, s->out + s->out_off, s->out_len - s->out_off);
    if (s->fd < 0)
        skip_torn_line(s);
    else if (s->regular && s->out_off < s->out_len)
        untear_file(s);
    if (s->out_off < s->out_len) return NL_EIO;
    s->out_off = s->out_len = 0;
    return 0;
}

/* The fill buffer becomes the out buffer, the empty out buffer the fill buffer. Caller
 * holds mu and io_mu; the out buffer is empty. */
static void swap_buffers(nl_sink_t *s)
{
    char *b = s->out;
    size_t c = s->out_cap;
    s->out = s->buf;
    s->out_cap = s->cap;
    s->out_off = 0;
    s->out_len = s->len;
    s->buf = b;
    s->cap = c;
    s->len = 0;
}

/* One round of output: if the out buffer is free, the fill buffer becomes the out buffer
 * (and the empty one the fill buffer); then the out buffer is written holding only io_mu,
 * so other threads keep appending meanwhile. Caller holds mu; it is released during the
 * write and held again on return. A writer (as opposed to the flusher thread or an
 * explicit flush) gives up without I/O if the sink stalled while it waited for io_mu, so
 * no writer waits longer than one timeout. */
static int flush_round(nl_sink_t *s, int writer)
{
    pthread_mutex_lock(&s->io_mu);
    if (writer && atomic_load(&s->stalled)) {
        pthread_mutex_unlock(&s->io_mu);
        return NL_EIO;
    }
    if (s->out_off == s->out_len && s->len) swap_buffers(s);
    pthread_mutex_unlock(&s->mu);
    int rc = drain_out(s);
    pthread_mutex_unlock(&s->io_mu);
    pthread_mutex_lock(&s->mu);
    return rc;
}

/* Give the full fill buffer to the flusher thread: it becomes the out buffer, and the
 * flusher writes it while the caller goes on filling the other. Never waits: NL_EIO when
 * the out buffer is not free right now (the flusher is still writing it, or the
 * destination stalled), and the caller writes itself, as without a hand-off. Caller
 * holds mu. */
static int hand_off(nl_sink_t *s)
{
    if (pthread_mutex_trylock(&s->io_mu) != 0) return NL_EIO;
    if (s->out_off != s->out_len || atomic_load(&s->stalled)) {
        pthread_mutex_unlock(&s->io_mu);
        return NL_EIO;
    }
    swap_buffers(s);
    pthread_mutex_unlock(&s->io_mu);
    if (!s->kick(s->kick_ctx)) atomic_store(&s->kick_due, 1);
    return 0;
}

/* Whether a full buffer should go to the flusher thread: only while fewer threads write
 * than there are CPUs. Then a core is idle and the write(2) runs there beside the writer;
 * with every core busy writing, the flusher would take its CPU time from a writer, and
 * the wake-up and the wait for a thread not running cost more than the write itself
 * (bench-throughput at as many threads as CPUs; bench/README.md). */
static int spare_cpu(nl_sink_t *s)
{
    return atomic_load_explicit(&s->handoff, memory_order_acquire) && s->len &&
           nl__stages_writers(&s->stages) < s->ncpu;
}

/* A kick that could not get through before (the flusher's lock was busy): try again. */
static void kick_again(nl_sink_t *s)
{
    if (atomic_exchange(&s->kick_due, 0) && !s->kick(s->kick_ctx)) atomic_store(&s->kick_due, 1);
}

/* Write out everything pending when called, then a drop report if one is due: leftover
 * out bytes, the fill buffer, the report — at most three rounds, stopping at the first
 * that cannot finish. Caller holds mu (released during the writes). */
static int flush_all(nl_sink_t *s, int writer)
{
    int rc = 0;
    for (int round = 0; round < 3; round++) {
        queue_report(s);
        rc = flush_round(s, writer);
        if (rc || (!s->len && !atomic_load(&s->unreported))) break;
    }
    return rc;
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
    atomic_store(&s->why, errno);
    if (s->url.kind == NL_D_SYSLOG && errno != EAGAIN && errno != EWOULDBLOCK && errno != EMSGSIZE)
        disconnect(s); /* the daemon restarted: reconnect to its new socket */
    return -1;
}

/* Report earlier drops on a datagram sink that works again. */
static void dgram_report(nl_sink_t *s)
{
    char rep[512];
    uint64_t n = atomic_load(&s->unreported);
    size_t k = report_line(s, n, rep, sizeof rep);
    if (k && send_dgram(s, rep, k, NL_LVL_WARN) == 0) atomic_fetch_sub(&s->unreported, n);
}

static int write_dgram(nl_sink_t *s, const char *line, size_t len, int level)
{
    if (atomic_load_explicit(&s->unreported, memory_order_relaxed) && s->fd >= 0) dgram_report(s);
    if (send_dgram(s, line, len, level) == 0) return 0;
    count_drops(s, 1);
    return NL_EIO;
}

/* Until the fill buffer has len bytes free: when it is full, hand it out and retry (other
 * threads may refill it meanwhile: each round is progress); grow it for a line larger
 * than it (grow: 1), bounded by NL_LINE_MAX. 0, or NL_EIO when the sink stalled or its
 * write failed with the room still short. Caller holds mu. */
static int make_room(nl_sink_t *s, size_t len, int grow)
{
    for (;;) {
        if (len > s->cap) {
            char *nb = grow ? realloc(s->buf, len) : NULL;
            if (!nb) return NL_EIO;
            s->buf = nb;
            s->cap = len;
        }
        if (s->len + len <= s->cap) return 0;
        if (atomic_load(&s->stalled)) return NL_EIO;
        if (spare_cpu(s) && hand_off(s) == 0) continue;
        /* a failed round may still have freed the fill buffer (handed to out): use it */
        if (flush_round(s, 1) != 0 && s->len + len > s->cap) return NL_EIO;
    }
}

/* Append `lines` whole lines (one line, or a thread's staged chunk) to the fill buffer.
 * Caller holds mu. */
static int write_stream(nl_sink_t *s, const char *line, size_t len, uint32_t lines)
{
    queue_report(s);
    if (make_room(s, len, 1) == 0) {
        memcpy(s->buf + s->len, line, len);
        s->len += len;
        if ((s->write_through || atomic_load_explicit(&s->exiting, memory_order_relaxed)) &&
            !atomic_load(&s->stalled))
            flush_all(s, 1);
        return 0;
    }
    count_drops(s, lines);
    return NL_EIO;
}

char *nl__sink_room(nl_sink_t *s, size_t min, size_t *room)
{
    pthread_mutex_lock(&s->mu);
    queue_report(s);
    if (make_room(s, min, 0) == 0) {
        *room = s->cap - s->len;
        return s->buf + s->len;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void nl__sink_fill(nl_sink_t *s, size_t len, uint32_t lines)
{
    s->len += len;
    pthread_mutex_unlock(&s->mu);
    atomic_fetch_add_explicit(&s->written, lines, memory_order_relaxed);
}

/* A thread's staged chunk arrives (nl_stage_put_fn). */
static void put_chunk(void *ctx, const char *p, size_t len, uint32_t lines)
{
    nl_sink_t *s = ctx;
    pthread_mutex_lock(&s->mu);
    write_stream(s, p, len, lines);
    pthread_mutex_unlock(&s->mu);
}

static int write_direct(nl_sink_t *s, const char *line, size_t len, int level)
{
    pthread_mutex_lock(&s->mu);
    int rc = s->stream ? write_stream(s, line, len, 1) : write_dgram(s, line, len, level);
    pthread_mutex_unlock(&s->mu);
    if (rc == 0) atomic_fetch_add_explicit(&s->written, 1, memory_order_relaxed);
    return rc;
}

int nl__sink_put(nl_sink_t *s, const char *p, size_t len, uint32_t lines)
{
    pthread_mutex_lock(&s->mu);
    int rc = write_stream(s, p, len, lines);
    pthread_mutex_unlock(&s->mu);
    if (rc == 0) atomic_fetch_add_explicit(&s->written, lines, memory_order_relaxed);
    return rc;
}

/* While the destination works, a line goes to the thread's stage; while it does not, the
 * line goes straight to the sink (after the stage's older lines), so the caller learns
 * at once that it was dropped. */
int nl__sink_write(nl_sink_t *s, const char *line, size_t len, int level)
{
    if (len > s->stages.cap) return write_direct(s, line, len, level);
    nl_stage_t *st = nl__stage_lock(&s->stages);
    if (!st) return write_direct(s, line, len, level);
    int rc = 0;
    if (atomic_load_explicit(&s->active, memory_order_relaxed) &&
        !atomic_load_explicit(&s->stalled, memory_order_relaxed) &&
        !atomic_load_explicit(&s->exiting, memory_order_relaxed)) {
        nl__stage_add(st, line, len);
    } else {
        nl__stage_handoff(st);
        rc = write_direct(s, line, len, level);
    }
    nl__stage_unlock(st);
    if (atomic_load_explicit(&s->kick_due, memory_order_relaxed)) kick_again(s);
    return rc;
}

uint64_t nl__sink_written(nl_sink_t *s)
{
    return atomic_load(&s->written) + nl__stages_written(&s->stages);
}

void nl__sink_drop(nl_sink_t *s, uint64_t n) { count_drops(s, n); }

int nl__sink_flush(nl_sink_t *s)
{
    if (!s->stream) return 0;
    nl__stages_drain(&s->stages);
    pthread_mutex_lock(&s->mu);
    int rc = flush_all(s, 0);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* A FIFO with no reader: open(2) would wait for one (forever), so it is opened
 * non-blocking (ENXIO while there is no reader) and kept non-blocking, which lets writes
 * wait at most the timeout. */
static int open_fifo(const char *path) { return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC); }

/* A regular file that ends in part of a line (cut by a full disk under an nlkit before
 * untear_file, or by another writer): write a newline first, so that fragment stays a line
 * of its own (a bad line to nl-load, which says where) and this run's first line is not
 * glued to it. The last byte is read through a read-only opening; a file we may not read
 * is left as it is. */
static void end_line(const char *path, int fd, off_t size)
{
    int rd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    char last = '\n';
    if (rd < 0) return;
    ssize_t got = pread(rd, &last, 1, size - 1);
    close(rd);
    if (got == 1 && last != '\n') {
        ssize_t w = write(fd, "\n", 1); /* a full disk: the fragment stays, as it was */
        (void)w;
    }
}

/* A file destination, opened without waiting: a FIFO is found out (*fifo set) whether or
 * not it has a reader yet; a regular file gets its usual blocking writes back. -1 with
 * errno for a path that cannot be opened (a FIFO without reader is not that). */
static int open_file(const char *path, int *fifo)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        *fifo = e == ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
        errno = e;
        return -1;
    }
    *fifo = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
    if (!*fifo) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!*fifo && S_ISREG(st.st_mode) && st.st_size > 0) end_line(path, fd, st.st_size);
    return fd;
}

/* stdout or stderr as a pipe, FIFO or terminal: a write(2) on the program's descriptor
 * waits as long as the reader stalls, and making that descriptor non-blocking would
 * change it under the program's own writes. Open the same pipe or terminal again through
 * /proc (a new, non-blocking open file description), so only our writes stop waiting.
 * A socket is sent to with MSG_DONTWAIT instead. Falls back to the descriptor itself. */
static void own_std_fd(nl_sink_t *s)
{
    struct stat st;
    if (s->fd < 0 || fstat(s->fd, &st) != 0) return;
    if (S_ISSOCK(st.st_mode)) {
        s->sock_out = 1;
        return;
    }
    if (!S_ISFIFO(st.st_mode) && !isatty(s->fd)) return;
    char path[32];
    snprintf(path, sizeof path, "/proc/self/fd/%d", s->fd);
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    s->fd = fd;
    s->own_fd = 1;
}

/* A network destination's socket, once its name resolves: the lookup waits at most the
 * timeout (a resolver that never answers held nl_open 10 s and nl_close 18 s), then the
 * connection at most the timeout again. */
static int connect_net(nl_sink_t *s)
{
    int tcp = s->url.kind == NL_D_TCP;
    struct addrinfo *res;
    if (nl__resolve(s->url.host, s->url.port, tcp ? SOCK_STREAM : SOCK_DGRAM, s->url.timeout_ms,
                    &s->lookup, &res) != 0) {
        atomic_store(&s->why, NL_WHY_NONAME);
        return -1;
    }
    int fd = tcp ? nl__tcp_connect(res, s->url.timeout_ms) : nl__udp_connect(res);
    if (fd < 0) atomic_store(&s->why, errno);
    freeaddrinfo(res);
    if (fd >= 0 && tcp) nl__flight_reset(&s->flight, fd); /* no one sends while fd < 0 */
    return fd;
}

/* A new connection for a network sink (or a FIFO's new opening), or -1. Called without
 * the lock, by one thread at a time: may take up to twice the timeout. */
static int connect_fd(nl_sink_t *s)
{
    switch (s->url.kind) {
    case NL_D_FILE: return s->fifo ? open_fifo(s->url.path) : -1;
    case NL_D_TCP:
    case NL_D_UDP: return connect_net(s);
    case NL_D_SYSLOG: {
        int fd = nl__unix_dgram_socket();
        if (fd >= 0 && nl__unix_dgram_connect(fd, s->url.path) != 0) {
            atomic_store(&s->why, errno); /* no daemon: ENOENT, ECONNREFUSED */
            close(fd);
            fd = -1;
        } else if (fd < 0) {
            atomic_store(&s->why, errno);
        }
        return fd;
    }
    default: return -1;
    }
}

void nl__sink_tick(nl_sink_t *s)
{
    pthread_mutex_t *fd_mu = s->stream ? &s->io_mu : &s->mu;
    pthread_mutex_lock(fd_mu);
    int down = s->fd < 0 && s->own_fd && (s->url.kind != NL_D_FILE || s->fifo);
    pthread_mutex_unlock(fd_mu);
    if (down) {
        int fd = connect_fd(s); /* only this thread connects, so fd cannot change meanwhile */
        if (fd >= 0) {
            pthread_mutex_lock(fd_mu);
            s->fd = fd;
            atomic_store(&s->stalled, 0);
            atomic_store(&s->active, 1);
            atomic_fetch_add(&s->reconnects, 1);
            pthread_mutex_unlock(fd_mu);
        }
    }
    nl__stages_drain(&s->stages);
    pthread_mutex_lock(&s->mu);
    if (s->stream)
        flush_all(s, 0);
    else if (atomic_load(&s->unreported) && s->fd >= 0)
        dgram_report(s);
    pthread_mutex_unlock(&s->mu);
}

void nl__sink_describe(const nl_sink_t *s, char *out, size_t cap)
{
    char name[NL_URL_PATH_MAX + 64];
    nl__url_name(&s->url, name, sizeof name);
    int why = atomic_load(&s->why);
    if (why == NL_WHY_NONAME)
        snprintf(out, cap, "%s (its host name does not resolve)", name);
    else if (why)
        snprintf(out, cap, "%s (%s)", name, strerror(why));
    else
        snprintf(out, cap, "%s", name);
}

/* A network destination down at nl_open: said now, on standard error, rather than only as
 * "30 line(s) could not be delivered" at exit, with nothing of where or why. */
static void say_unreachable(nl_sink_t *s)
{
    char what[NL_URL_PATH_MAX + 160];
    nl__sink_describe(s, what, sizeof what);
    if (s->url.kind == NL_D_TCP)
        nl__say_once("log destination %s cannot be reached; lines wait in its buffer until it "
                     "answers (tried again every %d ms), and what does not fit is dropped and "
                     "counted",
                     what, s->url.flush_ms);
    else
        nl__say_once("log destination %s cannot be reached; lines are dropped and counted until "
                     "it answers (tried again every %d ms)",
                     what, s->url.flush_ms);
}

int nl__sink_open(nl_sink_t *s, const nl_url_t *u, const char *guid)
{
    memset(s, 0, sizeof *s);
    s->url = *u;
    s->fd = -1;
    s->pid = getpid();
    nl__sink_set_guid(s, guid);
    atomic_init(&s->active, 0);
    atomic_init(&s->stalled, 0);
    atomic_init(&s->exiting, 0);
    atomic_init(&s->unreported, 0);
    atomic_init(&s->dropped, 0);
    atomic_init(&s->reconnects, 0);
    atomic_init(&s->written, 0);
    atomic_init(&s->why, 0);
    if (!s->url.prog[0]) {
        snprintf(s->url.prog, sizeof s->url.prog, "%s", program_invocation_short_name);
    }
    int default_through = 0;
    switch (u->kind) {
    case NL_D_FILE:
        s->fd = open_file(u->path, &s->fifo); /* a FIFO without reader: opens inactive */
        if (s->fd < 0 && !s->fifo) return NL_EIO;
        s->own_fd = 1;
        {
            struct stat fst;
            s->regular = s->fd >= 0 && fstat(s->fd, &fst) == 0 && S_ISREG(fst.st_mode);
        }
        break;
    case NL_D_STDOUT:
    case NL_D_STDERR:
        s->fd = u->kind == NL_D_STDOUT ? STDOUT_FILENO : STDERR_FILENO;
        if (fcntl(s->fd, F_GETFL) < 0) s->fd = -1; /* closed: stays inactive, counts drops */
        default_through = u->kind == NL_D_STDERR || (s->fd >= 0 && isatty(s->fd));
        own_std_fd(s);
        break;
    default:
        s->own_fd = 1;
        s->fd = connect_fd(s); /* down now is not an error: the flusher retries */
        if (s->fd < 0) say_unreachable(s);
    }
    cpu_set_t cpus;
    s->ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    s->stream = u->kind == NL_D_FILE || u->kind == NL_D_STDOUT || u->kind == NL_D_STDERR ||
                u->kind == NL_D_TCP;
    struct stat st;
    int is_fifo = s->fifo || (s->fd >= 0 && fstat(s->fd, &st) == 0 && S_ISFIFO(st.st_mode));
    int is_sock = s->sock_out || (s->fd >= 0 && fstat(s->fd, &st) == 0 && S_ISSOCK(st.st_mode));
    s->guard_sigpipe = s->stream && u->kind != NL_D_TCP && (is_fifo || is_sock);
    s->pipe = s->guard_sigpipe && is_fifo;
    if (s->stream) {
        s->write_through = u->buffer == 0 || (u->buffer < 0 && default_through);
        s->cap = u->buffer > MIN_BUFFER ? (size_t)u->buffer
                 : u->buffer < 0        ? DEFAULT_BUFFER
                                        : MIN_BUFFER;
        if (u->buffer == 0) s->cap = DEFAULT_BUFFER; /* write-through still keeps unsent bytes */
        s->out_cap = s->cap;
        s->buf = malloc(s->cap);
        s->out = malloc(s->out_cap);
        if (!s->buf || !s->out) {
            free(s->buf);
            free(s->out);
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
    pthread_mutex_init(&s->io_mu, NULL);
    /* A stage holds a few dozen lines and is at most a quarter of the shared buffer, so a
     * chunk always fits an empty one. */
    size_t stage = s->cap / 4 < STAGE_BYTES ? s->cap / 4 : STAGE_BYTES;
    nl__stages_init(&s->stages, s->stream && !s->write_through ? stage : 0, put_chunk, s);
    atomic_store(&s->active, s->fd >= 0);
    return 0;
}

void nl__sink_set_handoff(nl_sink_t *s, int (*kick)(void *ctx), void *ctx)
{
    if (!kick) {
        atomic_store(&s->handoff, 0);
        return;
    }
    if (!s->stream || s->write_through) return;
    s->kick = kick;
    s->kick_ctx = ctx;
    atomic_store_explicit(&s->handoff, 1, memory_order_release);
}

void nl__sink_drain(nl_sink_t *s)
{
    pthread_mutex_lock(&s->io_mu);
    drain_out(s);
    pthread_mutex_unlock(&s->io_mu);
}

void nl__sink_exiting(nl_sink_t *s) { atomic_store(&s->exiting, 1); }

uint64_t nl__sink_exit_flush(nl_sink_t *s)
{
    if (!s->stream) return atomic_exchange(&s->unreported, 0);
    nl__stages_drain(&s->stages);
    pthread_mutex_lock(&s->mu);
    uint64_t pending = 0;
    if (flush_all(s, 0) != 0) { /* else what is there now came since, written through */
        pthread_mutex_lock(&s->io_mu);
        pending =
            count_lines(s->out + s->out_off, s->out_len - s->out_off) + count_lines(s->buf, s->len);
        pthread_mutex_unlock(&s->io_mu);
    }
    pthread_mutex_unlock(&s->mu);
    return pending + atomic_exchange(&s->unreported, 0);
}

void nl__sink_set_guid(nl_sink_t *s, const char *guid)
{
    snprintf(s->guid, sizeof s->guid, "%s", guid ? guid : "");
}

void nl__sink_fork_prepare(nl_sink_t *s)
{
    nl__stages_fork_lock(&s->stages);
    pthread_mutex_lock(&s->mu);
    pthread_mutex_lock(&s->io_mu);
}

void nl__sink_fork_parent(nl_sink_t *s)
{
    pthread_mutex_unlock(&s->io_mu);
    pthread_mutex_unlock(&s->mu);
    nl__stages_fork_unlock(&s->stages);
}

void nl__sink_fork_child(nl_sink_t *s)
{
    s->len = 0;
    s->out_off = s->out_len = 0;
    s->pid = getpid();
    atomic_store(&s->written, 0);
    atomic_store(&s->dropped, 0);
    atomic_store(&s->unreported, 0);
    atomic_store(&s->reconnects, 0);
    atomic_store(&s->stalled, 0);
    atomic_store(&s->handoff, 0); /* no flusher thread here until nl__fork_resume */
    atomic_store(&s->kick_due, 0);
    s->flight.sent = s->flight.n = 0;
    if (s->url.kind == NL_D_TCP && s->fd >= 0) {
        close(s->fd); /* the parent's connection stays open: it holds the socket too */
        s->fd = -1;
        atomic_store(&s->active, 0); /* lines wait in the buffer until the child connects */
    }
    /* a lookup's thread was not copied: its struct stays behind (small), unused */
    s->lookup = NULL;
    pthread_mutex_unlock(&s->io_mu);
    pthread_mutex_unlock(&s->mu);
    nl__stages_fork_child(&s->stages);
}

/* Part of a line went out and the rest never will (the peer stopped reading). */
static int torn(const nl_sink_t *s)
{
    return s->out && s->out_off > 0 && s->out_off < s->out_len && s->out[s->out_off - 1] != '\n';
}

/* Closing while part of a line is in the kernel and its rest never went (the peer
 * stopped reading): a plain close would end the stream with a FIN right after the torn
 * line, which the peer reads as a whole event with a cut value. Reset the connection
 * instead: the peer reads what it has, then an error, not an end of stream; the lines it
 * had not acknowledged are discarded with the reset, and counted. Without a torn line the
 * close is plain, and the kernel still delivers the rest if the peer reads again.
 * Caller holds io_mu. */
static void close_tcp(nl_sink_t *s)
{
    if (!torn(s)) return;
    count_drops(s, nl__flight_unacked(&s->flight, s->fd));
    struct linger now = {1, 0};
    setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
}

void nl__sink_close(nl_sink_t *s)
{
    atomic_store(&s->stalled, 0); /* one last attempt, bounded by the timeout */
    nl__stages_close(&s->stages);
    pthread_mutex_lock(&s->mu);
    if (s->url.kind == NL_D_TCP && s->fd < 0 && (s->len || s->out_len > s->out_off)) {
        /* down, with lines waiting (a forked child closing before its flusher connected,
         * or a collector back since the last retry): one last connection attempt */
        int fd = connect_fd(s);
        pthread_mutex_lock(&s->io_mu);
        s->fd = fd;
        pthread_mutex_unlock(&s->io_mu);
    }
    if (s->stream) flush_all(s, 0);
    pthread_mutex_lock(&s->io_mu);
    if (s->stream)
        count_drops(s, count_lines(s->out + s->out_off, s->out_len - s->out_off) +
                           count_lines(s->buf, s->len));
    if (s->fd >= 0 && s->url.kind == NL_D_TCP) close_tcp(s);
    if (s->fd >= 0 && s->own_fd) close(s->fd);
    s->fd = -1;
    nl__lookup_forget(&s->lookup);
    nl__flight_free(&s->flight);
    free(s->buf);
    free(s->out);
    s->buf = s->out = NULL;
    pthread_mutex_unlock(&s->io_mu);
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_destroy(&s->io_mu);
    pthread_mutex_destroy(&s->mu);
}
