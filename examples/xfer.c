/* SPDX-License-Identifier: BSD-3-Clause */
/* xfer.c — nl-xfer, a real instrumented file transfer (a GridFTP stand-in): a sender and
 * a receiver over TCP, 256 KiB blocks, every disk and network read and write wrapped in a
 * start/end pair named as in the paper's Table II — disk.read and network.write on the
 * sender, network.read and disk.write on the receiver — with the byte count as the end
 * event's value and one GUID per transfer (the sender makes it and tells the receiver).
 * The per-block pairs go through pair handles (nl_pair), made once per transfer.
 *
 *   nl-xfer recv PORT OUTFILE        accept one transfer on PORT (0: any, printed on
 *                                    stderr), write it to OUTFILE
 *   nl-xfer send HOST PORT FILE      send FILE
 *   nl-xfer bench [MB [ROUNDS]]      loopback transfers of an MB-sized file (default 512)
 *                                    with logging off, in full and summarized every second,
 *                                    interleaved ROUNDS times (default 7); prints MB/s
 *
 * The log goes where NL_DEST says (default: stdout), summarized every second, one summary
 * per transfer (NL_SUMMARY='*=summary:1:key=guid'), unless NL_SUMMARY or NL_SUMMARY_FILE
 * says otherwise. Competing load (a dd, another TCP stream,
 * a CPU hog) shows in the summaries' rates; see bench/README.md and bottleneck/README.md.
 *
 * NL_XFER_LIMIT="STAGE=MBPS,..." makes a stage slow on purpose, for trying nl-bottleneck:
 * inside the stage's start/end pair the program waits until the stage has taken at least
 * bytes / (MBPS * 1e6) seconds — a slow disk (disk.read, disk.write) or a throttled link
 * (network.write on the sender, network.read on the receiver). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nlkit/nl.h"

#define BLOCK (256 * 1024)
#define MAGIC "nl-xfer 1"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The program's log: NL_DEST (or stdout), summaries every second unless configured. */
static nl_log_t *open_log(const char *url, int summarized)
{
    /* one summary per transfer (key=guid), so nl-bottleneck can join both ends' by it */
    static int ours; /* NL_SUMMARY is the default set here, not the operator's */
    if (ours && !summarized) unsetenv("NL_SUMMARY"), ours = 0;
    const char *env = getenv("NL_SUMMARY"), *file = getenv("NL_SUMMARY_FILE");
    if (summarized && !(env && *env) && !(file && *file))
        setenv("NL_SUMMARY", "*=summary:1:key=guid", 1), ours = 1;
    nl_log_t *log = nl_open(url);
    if (!log) {
        fprintf(stderr, "nl-xfer: cannot open the log %s: %s\n", url, strerror(errno));
        return NULL;
    }
    nl_const_std(log);
    return log;
}

/* ---- NL_XFER_LIMIT: a stage made slow on purpose ------------------------------------- */

static const char *const stages[] = {"disk.read", "network.write", "network.read", "disk.write"};
static double limit_bps[4]; /* 0: as fast as it goes */

/* Read NL_XFER_LIMIT; -1 (said on stderr) if it is malformed. */
static int read_limits(void)
{
    const char *env = getenv("NL_XFER_LIMIT");
    if (!env || !*env) return 0;
    char *copy = strdup(env), *save = NULL;
    int rc = 0;
    for (char *item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '='), *end;
        int k = 0;
        if (eq) *eq = '\0';
        while (k < 4 && strcmp(item, stages[k])) k++;
        double mbps = eq ? strtod(eq + 1, &end) : 0;
        if (k == 4 || !eq || *end || !(mbps > 0)) {
            fprintf(stderr,
                    "nl-xfer: NL_XFER_LIMIT: want STAGE=MBPS with STAGE one of "
                    "disk.read, network.write, network.read, disk.write, not '%s'\n",
                    item);
            rc = -1;
        } else {
            limit_bps[k] = mbps * 1e6;
        }
    }
    free(copy);
    return rc;
}

/* Inside stage k, begun at t0, having moved `bytes`: wait out the rest of its time. */
static void throttle(int k, double t0, ssize_t bytes)
{
    if (!limit_bps[k] || bytes <= 0) return;
    double left = (double)bytes / limit_bps[k] - (now_s() - t0);
    if (left <= 0) return;
    struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

static ssize_t read_full(int fd, char *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int write_full(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Send `path` over connected socket s; log may be NULL (logging off). Returns bytes or -1. */
static long long send_file(nl_log_t *log, int s, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "nl-xfer: %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    fstat(fd, &st);
    char guid[NL_GUID_LEN + 1], hdr[128];
    nl_guid_new(guid);
    int hl = snprintf(hdr, sizeof hdr, MAGIC " %s %lld\n", guid, (long long)st.st_size);
    char *buf = malloc(BLOCK);
    long long total = -1;
    if (!buf || write_full(s, hdr, (size_t)hl)) goto out;
    total = 0;
    /* the per-block pairs through handles: resolved once, not at every call */
    nl_pair_t *rd = nl_pair(log, "disk.read", "value", NULL);
    nl_pair_t *wr = nl_pair(log, "network.write", "value", NULL);
    nl_write(log, "xfer.send.start", "guid=s file=s size=l", guid, path, (long long)st.st_size);
    for (;;) {
        nl_pair_start(rd, guid);
        double t0 = now_s();
        ssize_t n = read_full(fd, buf, BLOCK);
        throttle(0, t0, n);
        nl_pair_end(rd, guid, (double)(n > 0 ? n : 0));
        if (n < 0) {
            fprintf(stderr, "nl-xfer: reading %s: %s\n", path, strerror(errno));
            total = -1;
            break;
        }
        if (n == 0) break;
        nl_pair_start(wr, guid);
        t0 = now_s();
        int rc = write_full(s, buf, (size_t)n);
        throttle(1, t0, n);
        nl_pair_end(wr, guid, rc ? 0.0 : (double)n);
        if (rc) {
            fprintf(stderr, "nl-xfer: sending: %s\n", strerror(errno));
            total = -1;
            break;
        }
        total += n;
    }
    nl_write(log, "xfer.send.end", "guid=s value=l", guid, total);
out:
    free(buf);
    close(fd);
    return total;
}

/* Receive one transfer from connected socket s into `path`. Returns bytes or -1. */
static long long recv_file(nl_log_t *log, int s, const char *path)
{
    char hdr[128];
    size_t hl = 0;
    while (hl + 1 < sizeof hdr) { /* the header line, byte by byte: it is short */
        ssize_t r = read(s, hdr + hl, 1);
        if (r <= 0) break;
        if (hdr[hl++] == '\n') break;
    }
    hdr[hl] = '\0';
    char guid[NL_GUID_LEN + 1];
    long long size;
    if (sscanf(hdr, MAGIC " %36s %lld", guid, &size) != 2) {
        fprintf(stderr, "nl-xfer: not an nl-xfer sender (header %.40s)\n", hdr);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "nl-xfer: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(BLOCK);
    long long total = buf ? 0 : -1;
    nl_pair_t *rd = nl_pair(log, "network.read", "value", NULL);
    nl_pair_t *wr = nl_pair(log, "disk.write", "value", NULL);
    nl_write(log, "xfer.recv.start", "guid=s file=s size=l", guid, path, size);
    while (buf) {
        nl_pair_start(rd, guid);
        double t0 = now_s();
        ssize_t n = read_full(s, buf, BLOCK);
        throttle(2, t0, n);
        nl_pair_end(rd, guid, (double)(n > 0 ? n : 0));
        if (n <= 0) {
            if (n < 0) total = -1;
            break;
        }
        nl_pair_start(wr, guid);
        t0 = now_s();
        int rc = write_full(fd, buf, (size_t)n);
        throttle(3, t0, n);
        nl_pair_end(wr, guid, rc ? 0.0 : (double)n);
        if (rc) {
            fprintf(stderr, "nl-xfer: writing %s: %s\n", path, strerror(errno));
            total = -1;
            break;
        }
        total += n;
    }
    nl_write(log, "xfer.recv.end", "guid=s value=l", guid, total);
    if (close(fd) && total >= 0) total = -1;
    free(buf);
    if (total >= 0 && total != size) {
        fprintf(stderr, "nl-xfer: got %lld of %lld bytes\n", total, size);
        total = -1;
    }
    return total;
}

static int listen_port(int port)
{
    int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, zero = 0;
    if (s < 0) return -1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    struct sockaddr_in6 a = {
        .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port), .sin6_addr = in6addr_any};
    if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 1)) {
        close(s);
        return -1;
    }
    return s;
}

static int connect_to(const char *host, const char *port)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc) {
        fprintf(stderr, "nl-xfer: %s:%s: %s\n", host, port, gai_strerror(rc));
        return -1;
    }
    int s = -1;
    for (struct addrinfo *ai = res; ai && s < 0; ai = ai->ai_next) {
        s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (s >= 0 && connect(s, ai->ai_addr, ai->ai_addrlen)) {
            close(s);
            s = -1;
        }
    }
    freeaddrinfo(res);
    if (s < 0)
        fprintf(stderr, "nl-xfer: cannot connect to %s:%s: %s\n", host, port, strerror(errno));
    return s;
}

static int cmd_recv(const char *port, const char *out)
{
    int l = listen_port(atoi(port));
    if (l < 0) {
        fprintf(stderr, "nl-xfer: cannot listen on port %s: %s\n", port, strerror(errno));
        return 1;
    }
    struct sockaddr_in6 a;
    socklen_t al = sizeof a;
    if (getsockname(l, (struct sockaddr *)&a, &al) == 0) /* port 0: the kernel chose it */
        fprintf(stderr, "nl-xfer: listening on port %d\n", ntohs(a.sin6_port));
    int s = accept(l, NULL, NULL);
    close(l);
    if (s < 0) return 1;
    nl_log_t *log = open_log("-", 1);
    long long n = recv_file(log, s, out);
    close(s);
    nl_close(log);
    return n < 0;
}

static int cmd_send(const char *host, const char *port, const char *file)
{
    int s = connect_to(host, port);
    if (s < 0) return 1;
    nl_log_t *log = open_log("-", 1);
    double t0 = now_s();
    long long n = send_file(log, s, file);
    close(s);
    nl_close(log);
    if (n >= 0) fprintf(stderr, "nl-xfer: sent %lld bytes in %.3f s\n", n, now_s() - t0);
    return n < 0;
}

/* ---- bench: the same transfer with logging off, in full and summarized ---- */

static const char *const mode_name[3] = {"off", "full", "summarized 1 s"};

/* One loopback transfer of src in mode m; logs under dir. Returns MB/s or -1. */
static double bench_once(const char *dir, const char *src, int m, long long size)
{
    int l = listen_port(0);
    if (l < 0) return -1;
    struct sockaddr_in6 a;
    socklen_t al = sizeof a;
    getsockname(l, (struct sockaddr *)&a, &al);
    char port[16], path[4096], out[4096];
    snprintf(port, sizeof port, "%d", ntohs(a.sin6_port));
    snprintf(out, sizeof out, "%s/received", dir);
    pid_t pid = fork();
    if (pid == 0) {
        snprintf(path, sizeof path, "%s/recv-%d.log", dir, m);
        nl_log_t *log = m ? open_log(path, m == 2) : NULL;
        int s = accept(l, NULL, NULL);
        long long n = s >= 0 ? recv_file(log, s, out) : -1;
        nl_close(log);
        _exit(n == size ? 0 : 1);
    }
    close(l);
    snprintf(path, sizeof path, "%s/send-%d.log", dir, m);
    nl_log_t *log = m ? open_log(path, m == 2) : NULL;
    int s = connect_to("127.0.0.1", port);
    double t0 = now_s(); /* from the connection to the receiver's exit (its log closed) */
    long long n = s >= 0 ? send_file(log, s, src) : -1;
    if (s >= 0) close(s);
    int st = 1;
    nl_close(log);
    waitpid(pid, &st, 0);
    double dt = now_s() - t0;
    unlink(out);
    if (n != size || !WIFEXITED(st) || WEXITSTATUS(st)) return -1;
    return (double)size / 1e6 / dt;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmd_bench(long mb, int rounds)
{
    char dir[] = "/tmp/nl-xfer-XXXXXX";
    if (!mkdtemp(dir) || mb < 1 || rounds < 1 || rounds > 50) {
        fprintf(stderr, "nl-xfer: bench needs MB >= 1, 1 <= ROUNDS <= 50 and a writable /tmp\n");
        return 2;
    }
    char src[4096];
    snprintf(src, sizeof src, "%s/source", dir);
    int fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char *buf = malloc(BLOCK);
    unsigned long long x = 88172645463325252ULL;
    for (long b = 0; fd >= 0 && buf && b < mb * 4; b++) { /* 4 blocks per MB */
        for (size_t i = 0; i < BLOCK / 8; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            memcpy(buf + i * 8, &x, 8);
        }
        if (write_full(fd, buf, BLOCK)) break;
    }
    free(buf);
    long long size = (long long)mb * 4 * BLOCK;
    if (fd < 0 || close(fd)) {
        fprintf(stderr, "nl-xfer: cannot write %s\n", src);
        return 1;
    }
    double rate[3][50];
    int fail = 0;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 3; k++) { /* rotated, so drift hits every mode alike */
            int m = (k + r) % 3;
            rate[m][r] = bench_once(dir, src, m, size);
            if (rate[m][r] < 0) fail = 1;
        }
    printf("nl-xfer bench: %ld MB over loopback TCP in 256 KiB blocks, median of %d rounds\n", mb,
           rounds);
    printf("%-16s %10s %10s %12s\n", "logging", "MB/s", "vs off", "events/xfer");
    double off = 0;
    for (int m = 0; m < 3; m++) {
        qsort(rate[m], (size_t)rounds, sizeof rate[m][0], cmp_dbl);
        double med = rate[m][rounds / 2];
        if (m == 0) off = med;
        char lp[4096];
        long lines = 0;
        for (int side = 0; side < 2 && m; side++) {
            snprintf(lp, sizeof lp, "%s/%s-%d.log", dir, side ? "recv" : "send", m);
            FILE *f = fopen(lp, "r");
            for (int c; f && (c = getc(f)) != EOF;) lines += c == '\n';
            if (f) fclose(f);
            unlink(lp);
        }
        printf("%-16s %10.1f %9.3fx %12ld\n", mode_name[m], med, med / off, lines / rounds);
    }
    unlink(src);
    rmdir(dir);
    if (fail) fprintf(stderr, "nl-xfer: some transfers failed\n");
    return fail;
}

int main(int argc, char **argv)
{
    if (read_limits()) return 2;
    if (argc == 4 && !strcmp(argv[1], "recv")) return cmd_recv(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "send")) return cmd_send(argv[2], argv[3], argv[4]);
    if (argc >= 2 && argc <= 4 && !strcmp(argv[1], "bench"))
        return cmd_bench(argc > 2 ? atol(argv[2]) : 512, argc > 3 ? atoi(argv[3]) : 7);
    fprintf(stderr, "usage: nl-xfer recv PORT OUTFILE\n"
                    "       nl-xfer send HOST PORT FILE\n"
                    "       nl-xfer bench [MB [ROUNDS]]\n");
    return 2;
}
