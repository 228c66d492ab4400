/* SPDX-License-Identifier: BSD-3-Clause */
/* flows_rpc.c — nl-flows-rpc, a real multi-process request workload for nl-flows: a client
 * sends requests over TCP to a front-end, which calls two back-ends in turn, each of which
 * reads its (simulated) disk. Every process logs its part of every request with nlkit: a
 * guid and span id of its own per request, the trace id and the caller's span id taken from
 * the W3C traceparent that travels in each request, so nl-flows can join them.
 *
 *   nl-flows-rpc run DIR [--requests N] [--fault KIND] [--share P] [--seed S]
 *
 * starts the back-ends (be1, be2) and the front-end (fe) as processes of their own, runs
 * the client (cl) in this one, and leaves DIR/cl.log, fe.log, be1.log, be2.log and
 * DIR/truth (the trace id and fault of every faulty request). Faults, on a share P of the
 * requests (default 0.01), chosen by the client with a seeded generator and carried in the
 * request (the processes act on them, nothing else is told):
 *   retry     be1 answers the first call "busy" (a be.busy event); the front-end retries
 *             inside a `retry` activity
 *   slow      be2's disk is slow: its disk.read takes ten times as long
 *   drop      be1 serves the request but never replies; the front-end's call times out
 *             after 250 ms (a be.timeout event). A reply merely late on busy cores is
 *             not taken for a lost one: after 250 ms the front-end sends PING, which the
 *             back-end answers in order, after any reply it was going to send
 *   late      be1 replies 625 ms late (really: as on cores busy elsewhere); the same
 *             sim.dur, no fault of the flow's, and no be.timeout: the reply is waited for
 *   none      (default) no fault
 *
 * Time: each activity's end event carries `sim.dur`, the activity's duration in seconds as
 * the process accounts it — its own cost (simulated, with ±20% variation) plus what its
 * callees reported in their replies — so the run's figures do not depend on how busy the
 * machine is (nl-flows --dur-field sim.dur). The requests, sockets, processes, logs and
 * the timeout of a dropped reply are real; whether a reply was dropped is the back-end's
 * answer to PING, not the clock's. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nlkit/nl.h"

#define TIMEOUT_MS 250 /* the front-end's wait for a back-end's reply (a normal one can take
                          * 50 ms on two busy cores under a sanitizer) */
#define IO_MS 20000   /* longest any other wait: a stuck run fails instead of hanging */

enum fault { F_NONE, F_RETRY, F_SLOW, F_DROP, F_LATE };
static const char *const fault_name[] = {"none", "retry", "slow", "drop", "late"};

static uint64_t rng;

static uint64_t next(void)
{
    rng += 0x9e3779b97f4a7c15ULL;
    uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unif(double lo, double hi) { return lo + (hi - lo) * ((double)(next() >> 11) / 9007199254740992.0); }

/* A simulated cost: base seconds, ±20%. */
static double cost(double base) { return base * unif(0.8, 1.2); }

static void hex(char *out, int digits)
{
    for (int i = 0; i < digits; i += 16)
        snprintf(out + i, (size_t)(digits - i + 1), "%016llx", (unsigned long long)next());
    out[digits] = '\0';
}

/* ---- line I/O over a socket ---- */

typedef struct conn {
    int fd;
    char buf[4096];
    size_t len;
} conn_t;

/* The next line (without its newline) into out: 1, 0 on timeout, -1 at EOF or error. */
static int conn_line(conn_t *c, char *out, size_t cap, int timeout_ms)
{
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            if (n >= cap) n = cap - 1;
            memcpy(out, c->buf, n);
            out[n] = '\0';
            c->len -= (size_t)(nl - c->buf) + 1;
            memmove(c->buf, nl + 1, c->len);
            return 1;
        }
        if (c->len == sizeof c->buf) return -1;
        struct pollfd p = {c->fd, POLLIN, 0};
        int r = poll(&p, 1, timeout_ms);
        if (r == 0) return 0;
        if (r < 0 && errno == EINTR) continue;
        ssize_t got = r < 0 ? -1 : read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (got <= 0) return -1;
        c->len += (size_t)got;
    }
}

static int send_line(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static int listen_any(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4) ||
        getsockname(fd, (struct sockaddr *)&a, &al))
        return -1;
    *port = ntohs(a.sin_port);
    return fd;
}

static int accept_one(int lfd)
{
    struct pollfd p = {lfd, POLLIN, 0};
    if (poll(&p, 1, IO_MS) != 1) return -1;
    int fd = accept(lfd, NULL, NULL);
    close(lfd);
    return fd;
}

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) return -1;
    return fd;
}

/* The process's log, DIR/NAME.log, with host=NAME (each process plays a host). */
static nl_log_t *open_log(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.log", dir, name);
    nl_log_t *log = nl_open(path);
    if (!log) {
        fprintf(stderr, "nl-flows-rpc: cannot open %s\n", path);
        return NULL;
    }
    nl_const_set(log, "host", name);
    nl_const_set(log, "prog", "nl-flows-rpc");
    return log;
}

/* "00-TRACE-SPAN-01" into its trace id and span id. */
static int parse_tp(const char *tp, char trace[33], char span[17])
{
    if (strlen(tp) != 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-') return -1;
    memcpy(trace, tp + 3, 32);
    trace[32] = '\0';
    memcpy(span, tp + 36, 16);
    span[16] = '\0';
    return 0;
}

/* ---- back-end: GET TRACEPARENT FAULT ATTEMPT -> "OK TRACE DUR_US", "BUSY TRACE" or
 * nothing (the trace id, so a reply too late for its call is told from the next one's);
 * PING TRACE -> "PONG TRACE", in order after the replies to the requests before it */

static int back_end(int lfd, const char *dir, const char *name)
{
    int fd = accept_one(lfd);
    nl_log_t *log = open_log(dir, name);
    if (fd < 0 || !log) return 1;
    conn_t c = {.fd = fd};
    char line[256];
    int be1 = !strcmp(name, "be1");
    while (conn_line(&c, line, sizeof line, IO_MS) == 1) {
        char tp[64], trace[33], pspan[17], span[17], guid[NL_GUID_LEN + 1];
        int fault, attempt;
        if (sscanf(line, "PING %32s", trace) == 1) {
            char pong[64];
            snprintf(pong, sizeof pong, "PONG %s\n", trace);
            if (send_line(fd, pong)) break;
            continue;
        }
        if (sscanf(line, "GET %63s %d %d", tp, &fault, &attempt) != 3 || parse_tp(tp, trace, pspan))
            break;
        nl_guid_new(guid);
        hex(span, 16);
        nl_write(log, "be.serve.start", "guid=s trace.id=s span.id=s parent.span.id=s", guid,
                 trace, span, pspan);
        if (fault == F_RETRY && be1 && attempt == 1) { /* too busy: answer at once */
            double d = cost(10e-6);
            nl_write(log, "be.serve.end", "guid=s trace.id=s sim.dur=d", guid, trace, d);
            char busy[64];
            snprintf(busy, sizeof busy, "BUSY %s\n", trace);
            if (send_line(fd, busy)) break;
            continue;
        }
        nl_write(log, "disk.read.start", "guid=s trace.id=s", guid, trace);
        double disk = cost(200e-6) * (fault == F_SLOW && !be1 ? 10 : 1);
        nl_write(log, "disk.read.end", "guid=s trace.id=s sim.dur=d value=l", guid, trace, disk,
                 4096LL);
        double d = cost(50e-6) + disk;
        nl_write(log, "be.serve.end", "guid=s trace.id=s sim.dur=d", guid, trace, d);
        if (fault == F_DROP && be1) continue; /* the reply is lost */
        if (fault == F_LATE && be1) usleep(TIMEOUT_MS * 2500); /* 2.5 waits, as if descheduled */
        char reply[64];
        snprintf(reply, sizeof reply, "OK %s %.0f\n", trace, d * 1e6);
        if (send_line(fd, reply)) break;
    }
    nl_close(log);
    close(fd);
    return 0;
}

/* ---- front-end: REQ TRACEPARENT FAULT -> "OK DUR_US" ---- */

typedef struct fe {
    nl_log_t *log;
    conn_t be[2];
    const char *guid, *trace, *span;
    int fault;
} fe_t;

/* The next line from c about trace (its second word), passing over lines about other
 * traces (a reply too late for an earlier call): 1, 0 on timeout, -1 at EOF or error. */
static int line_for(conn_t *c, const char *trace, char *out, size_t cap, int timeout_ms)
{
    size_t tl = strlen(trace);
    int r;
    do
        r = conn_line(c, out, cap, timeout_ms);
    while (r == 1 && strncmp(strchr(out, ' ') ? strchr(out, ' ') + 1 : "", trace, tl));
    return r;
}

/* One call to a back-end in a be.call activity; its duration, seconds (-1: connection
 * lost). *busy is set when the back-end was too busy. */
static double call(fe_t *x, int b, int attempt, int *busy)
{
    char req[128], reply[64];
    nl_write(x->log, "be.call.start", "guid=s trace.id=s peer=s", x->guid, x->trace,
             b ? "be2" : "be1");
    snprintf(req, sizeof req, "GET 00-%s-%s-01 %d %d\n", x->trace, x->span, x->fault, attempt);
    if (send_line(x->be[b].fd, req)) return -1;
    size_t tl = strlen(x->trace);
    int r = line_for(&x->be[b], x->trace, reply, sizeof reply, TIMEOUT_MS);
    if (r == 0) { /* nothing yet: lost, or late on busy cores? The PONG comes after it */
        char ping[64], pong[64];
        snprintf(ping, sizeof ping, "PING %s\n", x->trace);
        if (send_line(x->be[b].fd, ping)) return -1;
        r = line_for(&x->be[b], x->trace, reply, sizeof reply, IO_MS);
        if (r == 1 && !strncmp(reply, "PONG ", 5))
            r = 0; /* no reply before it: lost, the call has timed out */
        else if (r == 1 && (line_for(&x->be[b], x->trace, pong, sizeof pong, IO_MS) != 1 ||
                            strncmp(pong, "PONG ", 5)))
            return -1;
        else if (r != 1)
            return -1;
    }
    double d;
    *busy = 0;
    if (r == 0) { /* no reply in time: the call gives up */
        nl_write(x->log, "be.timeout", "guid=s trace.id=s after=d", x->guid, x->trace,
                 TIMEOUT_MS / 1e3);
        d = TIMEOUT_MS / 1e3;
    } else if (r < 0) {
        return -1;
    } else if (!strncmp(reply, "BUSY ", 5)) {
        nl_write(x->log, "be.busy", "guid=s trace.id=s", x->guid, x->trace);
        *busy = 1;
        d = cost(20e-6);
    } else {
        d = cost(80e-6) + atof(reply + 3 + tl + 1) / 1e6;
    }
    nl_write(x->log, "be.call.end", "guid=s trace.id=s sim.dur=d", x->guid, x->trace, d);
    return d;
}

static int front_end(int lfd, const char *dir, int port1, int port2)
{
    fe_t x = {.be = {{.fd = connect_to(port1)}, {.fd = connect_to(port2)}}};
    int fd = accept_one(lfd);
    x.log = open_log(dir, "fe");
    if (fd < 0 || x.be[0].fd < 0 || x.be[1].fd < 0 || !x.log) return 1;
    conn_t c = {.fd = fd};
    char line[256];
    int rc = 0;
    while (conn_line(&c, line, sizeof line, IO_MS) == 1) {
        char tp[64], trace[33], pspan[17], span[17], guid[NL_GUID_LEN + 1];
        if (sscanf(line, "REQ %63s %d", tp, &x.fault) != 2 || parse_tp(tp, trace, pspan)) break;
        nl_guid_new(guid);
        hex(span, 16);
        x.guid = guid;
        x.trace = trace;
        x.span = span;
        nl_write(x.log, "fe.handle.start", "guid=s trace.id=s span.id=s parent.span.id=s", guid,
                 trace, span, pspan);
        double total = cost(40e-6);
        for (int b = 0; b < 2 && rc == 0; b++) {
            int busy;
            double d = call(&x, b, 1, &busy);
            if (d >= 0 && busy) { /* once more, after a back-off */
                nl_write(x.log, "retry.start", "guid=s trace.id=s", guid, trace);
                double r = call(&x, b, 2, &busy);
                nl_write(x.log, "retry.end", "guid=s trace.id=s sim.dur=d", guid, trace,
                         r + 100e-6);
                d = r < 0 ? r : d + r + 100e-6;
            }
            if (d < 0) rc = 1;
            else total += d;
        }
        nl_write(x.log, "fe.handle.end", "guid=s trace.id=s sim.dur=d", guid, trace, total);
        char reply[64];
        snprintf(reply, sizeof reply, "OK %.0f\n", total * 1e6);
        if (rc || send_line(fd, reply)) break;
    }
    nl_close(x.log);
    close(fd);
    close(x.be[0].fd);
    close(x.be[1].fd);
    return rc;
}

/* ---- client ---- */

static int client(int port, const char *dir, long n, int fault, double share)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/truth", dir);
    FILE *truth = fopen(path, "w");
    int fd = connect_to(port);
    nl_log_t *log = open_log(dir, "cl");
    if (!truth || fd < 0 || !log) return 1;
    conn_t c = {.fd = fd};
    int rc = 0;
    for (long i = 0; i < n && !rc; i++) {
        int f = fault != F_NONE && unif(0, 1) < share ? fault : F_NONE;
        char trace[33], span[17], guid[NL_GUID_LEN + 1], req[128], reply[64];
        hex(trace, 32);
        hex(span, 16);
        nl_guid_new(guid);
        if (f) fprintf(truth, "%s %s\n", trace, fault_name[f]);
        nl_write(log, "request.start", "guid=s trace.id=s span.id=s", guid, trace, span);
        snprintf(req, sizeof req, "REQ 00-%s-%s-01 %d\n", trace, span, f);
        if (send_line(fd, req) || conn_line(&c, reply, sizeof reply, IO_MS) != 1 ||
            strncmp(reply, "OK ", 3)) {
            fprintf(stderr, "nl-flows-rpc: request %ld got no answer\n", i);
            rc = 1;
            break;
        }
        double d = cost(100e-6) + atof(reply + 3) / 1e6;
        nl_write(log, "request.end", "guid=s trace.id=s sim.dur=d", guid, trace, d);
    }
    nl_close(log);
    close(fd);
    fclose(truth);
    return rc;
}

static int usage(void)
{
    fputs("usage: nl-flows-rpc run DIR [--requests N] [--fault none|retry|slow|drop|late]\n"
          "                    [--share P] [--seed S]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "run")) return usage();
    const char *dir = argv[2];
    long n = 2000;
    int fault = F_NONE;
    double share = 0.01;
    unsigned long long seed = 1;
    for (int i = 3; i < argc; i += 2) {
        if (i + 1 >= argc) return usage();
        if (!strcmp(argv[i], "--requests")) n = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--share")) share = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--fault")) {
            fault = -1;
            for (int k = 0; k < 5; k++)
                if (!strcmp(argv[i + 1], fault_name[k])) fault = k;
            if (fault < 0) return usage();
        } else return usage();
    }
    if (n < 1 || !(share >= 0 && share <= 1)) return usage();
    unsetenv("NL_DEST");
    unsetenv("NL_SUMMARY");
    unsetenv("NL_SUMMARY_FILE");
    unsetenv("NL_TRACEPARENT");
    signal(SIGPIPE, SIG_IGN);
    int p1, p2, pf;
    int l1 = listen_any(&p1), l2 = listen_any(&p2), lf = listen_any(&pf);
    if (l1 < 0 || l2 < 0 || lf < 0) {
        fprintf(stderr, "nl-flows-rpc: cannot listen: %s\n", strerror(errno));
        return 1;
    }
    pid_t kid[3];
    for (int k = 0; k < 3; k++) {
        fflush(NULL);
        kid[k] = fork();
        if (kid[k] < 0) return 1;
        if (kid[k] == 0) {
            rng = seed * 1000003 + (unsigned long long)k + 1;
            if (k == 0) close(l2), close(lf), _exit(back_end(l1, dir, "be1"));
            if (k == 1) close(l1), close(lf), _exit(back_end(l2, dir, "be2"));
            close(l1), close(l2);
            _exit(front_end(lf, dir, p1, p2));
        }
    }
    close(l1);
    close(l2);
    close(lf);
    rng = seed * 1000003;
    int rc = client(pf, dir, n, fault, share);
    for (int k = 0; k < 3; k++) {
        int st;
        if (waitpid(kid[k], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) rc = 1;
    }
    if (rc) fprintf(stderr, "nl-flows-rpc: the run failed\n");
    return rc;
}
