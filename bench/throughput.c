/* SPDX-License-Identifier: BSD-3-Clause */
/* throughput.c — the paper's Table I on today's machine: the Figure 2 loop's events (a
 * start and an end per iteration, ~100-byte lines, a guid per thread) written by nlkit in
 * full to /dev/null, in full to a file and summarized every second (by nl_write, and by a
 * pair handle, nl_pair, made once outside the loop), and beside them, in
 * the same run with rounds interleaved, the same lines written by what a programmer would
 * use instead: fprintf with an equivalent format (clock_gettime + gmtime_r, to a file),
 * glibc syslog(3) to a local socket, and spdlog (when built with it) to a file; nlkit
 * deferred to a file and to /dev/null (the flusher's formatting without a file). 1, 2 and 8
 * threads; each figure is the median over rounds; ratios are against nlkit in full to a
 * file.
 *
 *   bench-throughput [--quick] [--caller | --paced] [--csv FILE] [CALLS_PER_THREAD [ROUNDS [DIR]]]
 *                                             default 200000 x 5 in /tmp; --quick: 20000 x 1, 1-2
 * threads; --caller: only the table of the caller's cost in bursts; --paced: only the table
 * of one writer at set rates (30 .. 1000 ns a line) and whether the background keeps up
 *
 * syslog(3) can only reach /dev/log: when nothing listens there, this program listens
 * itself for the run (and removes the socket); when a system logger owns it, that row is
 * skipped rather than flooding the system log. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "bench_spdlog.h"
#include "bench_util.h"
#include "nl_tsc.h"
#include "nlkit/nl.h"

enum {
    NL_NULL,
    NL_FILE,
    NL_SUMM,
    NL_PAIR,
    FPRINTF_FILE,
    SYSLOG_DEVLOG,
    SPDLOG_FILE,
    NL_DEFER,      /* nlkit in full to a file, deferred (?mode=deferred) */
    NL_PAIR_DEFER, /* nl_pair in full to a file, deferred */
    NL_DEFER_NULL, /* nlkit in full to /dev/null, deferred: the flusher's formatting alone */
    SPDLOG_ASYNC,  /* spdlog's asynchronous logger to a file */
    NWRITER
};
static const char *const writer_name[NWRITER] = {
    "nlkit full -> /dev/null", "nlkit full -> file", "nlkit summarized 1 s -> file",
    "  the same, by nl_pair",  "fprintf -> file",    "syslog(3) -> /dev/log",
    "spdlog -> file",          "nlkit deferred -> file", "  the same, by nl_pair (full)",
    "nlkit deferred -> /dev/null", "spdlog async -> file"};

static int is_defer(int w) { return w == NL_DEFER || w == NL_PAIR_DEFER || w == NL_DEFER_NULL; }
static int is_nlkit(int w) { return w <= NL_PAIR || is_defer(w); }
static int is_pair(int w) { return w == NL_PAIR || w == NL_PAIR_DEFER; }

typedef struct {
    int writer;
    nl_log_t *log;
    nl_pair_t *pair; /* NL_PAIR: the loop's handle, made once */
    FILE *f;
    void *sl;
} sink_t;

typedef struct {
    sink_t *s;
    long calls;
    pthread_barrier_t *go;
    double secs;
} worker_t;

/* The fprintf a C programmer writes for the same line as nlkit's. */
static void fprintf_event(FILE *f, const char *event, const char *guid, long long i, int end)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    if (end)
        fprintf(f,
                "ts=%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ event=%s level=Info guid=%s i=%lld "
                "value=65536\n",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                ts.tv_nsec / 1000, event, guid, i);
    else
        fprintf(f, "ts=%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ event=%s level=Info guid=%s i=%lld\n",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                ts.tv_nsec / 1000, event, guid, i);
}

/* One iteration of the Figure 2 loop: a start and an end (i, and a value on the end). */
static inline void one_pair(sink_t *s, const char *guid, long long i)
{
    switch (s->writer) {
    case NL_NULL:
    case NL_FILE:
    case NL_SUMM:
    case NL_DEFER:
    case NL_DEFER_NULL:
        nl_write(s->log, "example.loop.start", "guid=s i=l", guid, i);
        nl_write(s->log, "example.loop.end", "guid=s i=l value=l", guid, i, 65536LL);
        break;
    case NL_PAIR: /* the same pairs and values; no i field (a summary does not keep it) */
    case NL_PAIR_DEFER:
        nl_pair_start(s->pair, guid);
        nl_pair_end(s->pair, guid, 65536.0);
        break;
    case FPRINTF_FILE:
        fprintf_event(s->f, "example.loop.start", guid, i, 0);
        fprintf_event(s->f, "example.loop.end", guid, i, 1);
        break;
    case SYSLOG_DEVLOG:
        syslog(LOG_INFO, "event=example.loop.start level=Info guid=%s i=%lld", guid, i);
        syslog(LOG_INFO, "event=example.loop.end level=Info guid=%s i=%lld value=65536", guid, i);
        break;
    case SPDLOG_FILE:
    case SPDLOG_ASYNC:
        bench_spdlog_start(s->sl, guid, i);
        bench_spdlog_end(s->sl, guid, i, 65536);
        break;
    }
}

/* The Figure 2 loop flat out, w->calls calls. */
static void *worker(void *arg)
{
    worker_t *w = arg;
    sink_t *s = w->s;
    char guid[NL_GUID_LEN + 1];
    nl_guid_new(guid);
    pthread_barrier_wait(w->go);
    double t0 = bench_now_s();
    for (long long i = 0; i < w->calls / 2; i++) one_pair(s, guid, i);
    w->secs = bench_now_s() - t0;
    return NULL;
}

/* The stand-in system logger: a datagram socket at /dev/log and a thread that drains it. */
typedef struct {
    int fd;
    pthread_t th;
    atomic_long got;
    int mine;
    char tag[40]; /* "bench-throughput[PID]:", in every line we send (LOG_PID) */
} devlog_t;

static void *drain(void *arg)
{
    devlog_t *d = arg;
    char buf[2048];
    for (;;) {
        ssize_t n = recv(d->fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || (n == 4 && !memcmp(buf, "STOP", 4))) break;
        /* only our own lines: other programs on this machine (a test suite running beside
         * us) write to /dev/log too, and counting theirs made "lost" negative */
        if (memmem(buf, (size_t)n, d->tag, strlen(d->tag))) atomic_fetch_add(&d->got, 1);
    }
    return NULL;
}

/* 0 when we listen at /dev/log; -1 (reason printed) when the row must be skipped. */
static int devlog_open(devlog_t *d)
{
    struct stat st;
    memset(d, 0, sizeof *d);
    if (lstat("/dev/log", &st) == 0) {
        printf("(syslog(3) row skipped: /dev/log exists: a system logger's, or left over)\n");
        return -1;
    }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, "/dev/log");
    int rcv = 8 << 20;
    if ((d->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
        setsockopt(d->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv) ||
        bind(d->fd, (struct sockaddr *)&a, sizeof a)) {
        printf("(syslog(3) row skipped: cannot listen at /dev/log: %s)\n", strerror(errno));
        if (d->fd >= 0) close(d->fd);
        return -1;
    }
    d->mine = 1;
    snprintf(d->tag, sizeof d->tag, "bench-throughput[%ld]:", (long)getpid());
    if (pthread_create(&d->th, NULL, drain, d)) {
        unlink("/dev/log");
        close(d->fd);
        return -1;
    }
    return 0;
}

static void devlog_close(devlog_t *d)
{
    if (!d->mine) return;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, "/dev/log");
    if (fd >= 0) sendto(fd, "STOP", 4, 0, (struct sockaddr *)&a, sizeof a);
    pthread_join(d->th, NULL);
    if (fd >= 0) close(fd);
    unlink("/dev/log");
    close(d->fd);
}

/* What a round measured beyond the callers' ns per call: lines/s from the start to the
 * last line written (the close included: a deferred or asynchronous writer's background
 * work counts), and the CPU time of the whole process per line (callers and background
 * threads). */
typedef struct {
    double end_evps;
    double cpu_ns;
} extra_t;

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Open the writer's destination at path (sink s, already zeroed but for writer); 0 or -1. */
static int open_writer(sink_t *s, const char *path)
{
    char url[600];
    int w = s->writer;
    switch (w) {
    case NL_NULL:
    case NL_FILE:
    case NL_SUMM:
    case NL_PAIR:
    case NL_DEFER:
    case NL_PAIR_DEFER:
    case NL_DEFER_NULL:
        if (is_defer(w))
            snprintf(url, sizeof url, "file://%s?mode=deferred",
                     w == NL_DEFER_NULL ? "/dev/null" : path);
        else
            snprintf(url, sizeof url, "%s", w == NL_NULL ? "/dev/null" : path);
        s->log = nl_open(url);
        if (s->log && is_pair(w)) s->pair = nl_pair(s->log, "example.loop", "value", NULL);
        if (s->log && (w == NL_SUMM || w == NL_PAIR)) {
            nl_summarize(s->log, "example.loop", NL_SUMM_SUMMARY, 1, NULL);
            /* as in a program that has run a while: the summarizer has measured the CPU
             * counter's rate (0.1 s after the open) and reads its clock off the counter,
             * where the kernel keeps time with it (internal/nl_tsc.h) */
            struct timespec settle = {0, 150000000};
            nanosleep(&settle, NULL);
        }
        if (s->log && is_defer(w)) {
            /* the same for the deferred path's clock: its flusher maps the counter ~0.1 s
             * after the open */
            struct timespec settle = {1, 100000000};
            nanosleep(&settle, NULL);
        }
        return s->log && (!is_pair(w) || s->pair) ? 0 : -1;
    case FPRINTF_FILE: s->f = fopen(path, "w"); return s->f ? 0 : -1;
    case SYSLOG_DEVLOG: openlog("bench-throughput", LOG_NDELAY | LOG_PID, LOG_USER); return 0;
    case SPDLOG_FILE: s->sl = bench_spdlog_open(path); return s->sl ? 0 : -1;
    case SPDLOG_ASYNC: s->sl = bench_spdlog_open_async(path); return s->sl ? 0 : -1;
    }
    return -1;
}

/* open_writer, or the run ends: a benchmark without its writer measures nothing. */
static void open_or_exit(sink_t *s, const char *path)
{
    if (open_writer(s, path) != 0) {
        fprintf(stderr, "bench-throughput: %s: cannot open %s\n", writer_name[s->writer], path);
        exit(1);
    }
}

/* One round: ns per call of the slowest thread; *evps = events/s of all threads. */
static double run(int writer, int threads, long calls, const char *dir, devlog_t *dl, double *evps,
                  extra_t *ex)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bench-throughput-%d.log", dir, (int)getpid());
    unlink(path);
    sink_t s = {.writer = writer};
    long before = atomic_load(&dl->got);
    open_or_exit(&s, path);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)threads);
    worker_t w[8];
    pthread_t th[8];
    double c0 = cpu_s(), t0 = bench_now_s();
    for (int i = 0; i < threads; i++) {
        w[i] = (worker_t){&s, calls, &go, 0};
        pthread_create(&th[i], NULL, worker, &w[i]);
    }
    double slowest = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        if (w[i].secs > slowest) slowest = w[i].secs;
    }
    unsigned long long lost = 0;
    if (is_nlkit(writer)) {
        nl_stats_t st;
        nl_stats(s.log, &st);
        lost = st.dropped + st.errors + st.overflow;
        nl_close(s.log);
    }
    switch (writer) {
    case FPRINTF_FILE:
        if (fclose(s.f)) lost = 1;
        break;
    case SYSLOG_DEVLOG:
        closelog();
        /* every datagram sent is queued at our socket by now: wait for the drain */
        for (int i = 0; i < 2000 && atomic_load(&dl->got) - before < calls * threads; i++)
            usleep(1000);
        long sent = calls / 2 * 2 * threads, seen = atomic_load(&dl->got) - before;
        lost = seen < sent ? (unsigned long long)(sent - seen) : 0;
        break;
    case SPDLOG_FILE:
    case SPDLOG_ASYNC: bench_spdlog_close(s.sl); break;
    }
    double lines = (double)(calls / 2 * 2) * threads;
    ex->end_evps = lines / (bench_now_s() - t0);
    ex->cpu_ns = (cpu_s() - c0) / lines * 1e9;
    unlink(path);
    pthread_barrier_destroy(&go);
    if (lost) {
        fprintf(stderr, "bench-throughput: %s lost %llu lines\n", writer_name[writer], lost);
        exit(1);
    }
    *evps = lines / slowest;
    return slowest / (double)(calls / 2 * 2) * 1e9;
}

/* The caller's cost alone, one thread: bursts of 2000 calls that fit a deferred log's
 * ring or spdlog's queue, timed, each followed by an untimed pause in which a background
 * thread catches up (a program that logs in bursts, as most do). ns per call: the median
 * burst's, so that a burst the scheduler interrupted (a tick on a busy machine costs
 * milliseconds, 40 bursts' worth) does not count. */
static double burst(int writer, long calls, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bench-throughput-b%d.log", dir, (int)getpid());
    unlink(path);
    sink_t s = {.writer = writer};
    open_or_exit(&s, path);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 1);
    enum { BURST = 2000, MAX_BURSTS = 1000 };
    static double per[MAX_BURSTS];
    int nb = 0;
    for (long done = 0; done < calls && nb < MAX_BURSTS; done += BURST) {
        worker_t w = {&s, BURST, &go, 0};
        worker(&w);
        per[nb++] = w.secs / BURST * 1e9;
        struct timespec pause = {0, 3000000};
        nanosleep(&pause, NULL);
    }
    pthread_barrier_destroy(&go);
    if (is_nlkit(writer)) {
        nl_close(s.log);
    } else {
        bench_spdlog_close(s.sl);
    }
    unlink(path);
    return bench_median(per, nb);
}

/* One writer at a set rate: a pair of calls every 2 * ns_line ns by the CPU counter,
 * spinning between, as a program that logs steadily does rather than flat out or in
 * bursts. Whether the background work keeps up shows in the rate achieved (the close, which
 * writes what is left, included): a deferred writer that outruns its flusher fills its
 * ring and then formats lines itself. out: the achieved ns a line, the caller's mean ns a
 * line (its calls alone: the ticks between two counter reads, less empty_ticks, what two
 * reads with nothing between take), and the share of pairs that ended past their slot (%).
 * tick_ns: ns per counter tick. */
static void paced(int writer, long lines, const char *dir, double ns_line, double tick_ns,
                  double empty_ticks, double out[3])
{
    char path[512];
    snprintf(path, sizeof path, "%s/bench-throughput-p%d.log", dir, (int)getpid());
    unlink(path);
    sink_t s = {.writer = writer};
    open_or_exit(&s, path);
    char guid[NL_GUID_LEN + 1];
    nl_guid_new(guid);
    uint64_t step = (uint64_t)(2 * ns_line / tick_ns), busy = 0;
    long pairs = lines / 2, late = 0;
    double t0 = bench_now_s();
    uint64_t next = nl__tsc_counter();
    for (long i = 0; i < pairs; i++) {
        uint64_t c0 = nl__tsc_counter();
        one_pair(&s, guid, i);
        uint64_t c1 = nl__tsc_counter();
        busy += c1 - c0;
        next += step;
        if (c1 > next) {
            late++;
            next = c1; /* behind: the next slot from now, not a burst to catch up */
        } else {
            while (nl__tsc_counter() < next) {
#if defined(__x86_64__)
                __builtin_ia32_pause();
#endif
            }
        }
    }
    unsigned long long lost = 0;
    if (is_nlkit(writer)) { /* every line written: the flusher's backlog counts */
        nl_stats_t st;
        nl_stats(s.log, &st);
        lost = st.dropped + st.errors + st.overflow;
        nl_close(s.log);
    } else {
        bench_spdlog_close(s.sl);
    }
    double secs = bench_now_s() - t0;
    unlink(path);
    if (lost) {
        fprintf(stderr, "bench-throughput: %s lost %llu lines\n", writer_name[writer], lost);
        exit(1);
    }
    out[0] = secs / (double)(pairs * 2) * 1e9;
    out[1] = ((double)busy / (double)pairs - empty_ticks) * tick_ns / 2;
    out[2] = 100.0 * (double)late / (double)pairs;
}

/* What one clock read costs here: a summarized call must read the clock once. */
static double clock_cost_ns(void)
{
    struct timespec t;
    long n = 2000000;
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) clock_gettime(CLOCK_MONOTONIC, &t);
    return (bench_now_s() - t0) / (double)n * 1e9;
}

/* What one read of the CPU's counter costs: the summarizer's clock where the kernel keeps
 * time with the counter. */
static double counter_cost_ns(void)
{
    long n = 2000000;
    volatile uint64_t sink = 0;
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) sink = nl__tsc_counter();
    (void)sink;
    return (bench_now_s() - t0) / (double)n * 1e9;
}

/* The CPU counter's ns per tick, against CLOCK_MONOTONIC over 50 ms: pacing needs only a
 * counter that ticks steadily, not one the kernel keeps time with. 0 where there is none. */
static double counter_tick_ns(void)
{
    if (!nl__tsc_counter()) return 0;
    double t0 = bench_now_s();
    uint64_t c0 = nl__tsc_counter();
    while (bench_now_s() - t0 < 0.05) {
    }
    uint64_t c1 = nl__tsc_counter();
    return c1 > c0 ? (bench_now_s() - t0) * 1e9 / (double)(c1 - c0) : 0;
}

/* Ticks between two counter reads with nothing between: what timing a call with them adds. */
static double empty_pair_ticks(void)
{
    uint64_t empty = 0;
    for (int i = 0; i < 1000000; i++) {
        uint64_t a = nl__tsc_counter();
        empty += nl__tsc_counter() - a;
    }
    return (double)empty / 1e6;
}

/* Lines in one paced run: 10 x calls, held to 0.1-0.25 s of the rate, so that a short run's
 * fixed costs (the close, a cold ring and file) do not decide whether it kept up. */
static long paced_lines(long calls, double ns_line)
{
    double lines = 10.0 * (double)calls;
    if (lines * ns_line < 0.1e9) lines = 0.1e9 / ns_line;
    if (lines * ns_line > 0.25e9) lines = 0.25e9 / ns_line;
    return lines < 2 ? 2 : (long)lines;
}

/* --paced: the deferred writer (to /dev/null and to a file) beside the synchronous one and
 * spdlog's async logger, one thread at 30 .. 1000 ns a line, rounds interleaved. 0, or
 * PACED_NO_COUNTER where there is no CPU counter to pace by. */
#define PACED_NO_COUNTER 3
static int paced_table(long calls, int rounds, const char *dir, FILE *csv)
{
    double tick_ns = counter_tick_ns();
    if (!(tick_ns > 0)) {
        printf("bench-throughput --paced: no CPU counter here to pace by; not measured\n");
        return PACED_NO_COUNTER;
    }
    double empty_ticks = empty_pair_ticks();
    const int pw[] = {NL_DEFER_NULL, NL_DEFER, NL_FILE, SPDLOG_ASYNC};
    const double rate[] = {30, 45, 60, 100, 1000};
    enum { NW = 4, NRATE = 5 };
    int npw = bench_spdlog_available() ? NW : NW - 1;
    static double got[NW][NRATE][3][99];
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < NRATE; j++)
            for (int i = 0; i < npw; i++) {
                double o[3];
                paced(pw[i], paced_lines(calls, rate[j]), dir, rate[j], tick_ns, empty_ticks, o);
                for (int q = 0; q < 3; q++) got[i][j][q][r] = o[q];
            }
    printf("one writer at a set rate (a pair of calls every 2 x the rate, spinning on the CPU "
           "counter between; each column the median of %d rounds on its own): the rate "
           "achieved to the close, the caller's own ns a line (less %.1f ns a pair for the two "
           "counter reads around it), pairs that ended past their slot; kept up: achieved "
           "within 5%% of the rate\n",
           rounds, empty_ticks * tick_ns);
    printf("%-30s %8s %9s %10s %7s %8s\n", "writer", "rate ns", "achieved", "caller ns", "late %",
           "kept up");
    for (int i = 0; i < npw; i++)
        for (int j = 0; j < NRATE; j++) {
            double m[3];
            for (int q = 0; q < 3; q++) m[q] = bench_median(got[i][j][q], rounds);
            printf("%-30s %8.0f %9.1f %10.1f %7.1f %8s\n", writer_name[pw[i]], rate[j], m[0],
                   m[1], m[2], m[0] <= 1.05 * rate[j] ? "yes" : "no");
            if (csv)
                fprintf(csv, "paced %.0f ns %s,1,%.1f,,,%.0f,\n", rate[j], writer_name[pw[i]],
                        m[1], 1e9 / m[0]);
        }
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0, caller_only = 0, paced_only = 0, a = 1;
    const char *csv_path = NULL;
    for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a++) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else if (!strcmp(argv[a], "--caller"))
            caller_only = 1;
        else if (!strcmp(argv[a], "--paced"))
            paced_only = 1;
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv_path = argv[++a];
        else
            break;
    }
    long calls = a < argc ? atol(argv[a]) : quick ? 20000 : 200000;
    int rounds = a + 1 < argc ? atoi(argv[a + 1]) : quick ? 1 : 5;
    const char *dir = a + 2 < argc ? argv[a + 2] : "/tmp";
    if (calls < 2 || rounds < 1 || rounds > 99) {
        fprintf(stderr,
                "usage: bench-throughput [--quick] [--caller | --paced] [--csv FILE] "
                "[CALLS_PER_THREAD>=2 [ROUNDS 1-99 [DIR]]]\n");
        return 2;
    }
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv_path && !csv) {
        fprintf(stderr, "bench-throughput: %s: %s\n", csv_path, strerror(errno));
        return 1;
    }
    if (csv)
        fprintf(csv, "writer,threads,ns_per_call,events_per_s,vs_nlkit_full_file,"
                     "end_to_end_lines_per_s,cpu_ns_per_line\n");
    if (paced_only) {
        int rc = paced_table(calls, rounds, dir, csv);
        if (csv && fclose(csv)) {
            fprintf(stderr, "bench-throughput: %s: %s\n", csv_path, strerror(errno));
            return 1;
        }
        return rc;
    }
    devlog_t dl;
    int have[NWRITER];
    for (int w = 0; w < NWRITER; w++) have[w] = 1;
    have[SYSLOG_DEVLOG] = devlog_open(&dl) == 0;
    have[SPDLOG_FILE] = have[SPDLOG_ASYNC] = bench_spdlog_available();
    if (!have[SPDLOG_FILE]) printf("(spdlog row skipped: built without spdlog)\n");
    const int thread_counts[] = {1, 2, 8};
    int nthreads = caller_only ? 0 : quick ? 2 : 3;
    printf("bench-throughput: %ld calls per thread, median of %d rounds, %ld CPUs\n", calls, rounds,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("%-30s %7s %10s %12s %10s %12s %9s\n", "writer", "threads", "ns/call", "events/s",
           "vs nlkit", "end-to-end/s", "CPU ns");
    for (int ti = 0; ti < nthreads; ti++) {
        int threads = thread_counts[ti];
        double ns[NWRITER][99], ev[NWRITER][99], end[NWRITER][99], cpu[NWRITER][99];
        for (int r = 0; r < rounds; r++) /* interleaved: drift hits every writer alike */
            for (int w = 0; w < NWRITER; w++)
                if (have[w]) {
                    extra_t ex;
                    ns[w][r] = run(w, threads, calls, dir, &dl, &ev[w][r], &ex);
                    end[w][r] = ex.end_evps;
                    cpu[w][r] = ex.cpu_ns;
                }
        double med_ev[NWRITER] = {0};
        for (int w = 0; w < NWRITER; w++)
            if (have[w]) med_ev[w] = bench_median(ev[w], rounds);
        for (int w = 0; w < NWRITER; w++) {
            if (!have[w]) continue;
            double med_ns = bench_median(ns[w], rounds);
            /* > 1: nlkit in full to a file is that many times faster than this writer */
            double vs = med_ev[NL_FILE] / med_ev[w];
            double med_end = bench_median(end[w], rounds), med_cpu = bench_median(cpu[w], rounds);
            printf("%-30s %7d %10.1f %12.0f %9.2fx %12.0f %9.1f\n", writer_name[w], threads,
                   med_ns, med_ev[w], vs, med_end, med_cpu);
            if (csv)
                fprintf(csv, "%s,%d,%.1f,%.0f,%.3f,%.0f,%.1f\n", writer_name[w], threads, med_ns,
                        med_ev[w], vs, med_end, med_cpu);
        }
    }
    if (nthreads)
        printf("vs nlkit: events/s of nlkit in full to a file / events/s of the writer "
               "(> 1: nlkit is faster); end-to-end/s: lines/s from the start to the close (every "
               "line written); CPU ns: the process's CPU time per line, callers and background "
               "threads\n");
    /* the caller's own cost, in bursts a deferred ring or an async queue holds */
    const int bw[] = {NL_FILE, NL_DEFER, NL_PAIR_DEFER, SPDLOG_FILE, SPDLOG_ASYNC};
    double bns[5][99];
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < 5; i++)
            if (have[bw[i]]) bns[i][r] = burst(bw[i], calls, dir);
    double bmed[5];
    for (int i = 0; i < 5; i++) bmed[i] = have[bw[i]] ? bench_median(bns[i], rounds) : 0;
    printf("\nthe caller's cost, 1 thread, bursts of 2000 calls (median burst; median of %d rounds "
           "of %ld calls)\n",
           rounds, calls);
    printf("%-30s %10s %14s %14s\n", "writer", "ns/call", "vs spdlog", "vs spdlog async");
    for (int i = 0; i < 5; i++) {
        if (!have[bw[i]]) continue;
        printf("%-30s %10.1f", writer_name[bw[i]], bmed[i]);
        if (have[SPDLOG_FILE]) printf(" %13.3fx %13.3fx", bmed[i] / bmed[3], bmed[i] / bmed[4]);
        printf("\n");
        if (csv)
            fprintf(csv, "burst %s,1,%.1f,,,,\n", writer_name[bw[i]], bmed[i]);
    }
    printf("reference: one clock_gettime(CLOCK_MONOTONIC) here costs %.1f ns\n", clock_cost_ns());
    if (nl__tsc_usable())
        printf("reference: one read of the CPU counter costs %.1f ns; the kernel keeps time with "
               "it here, so summarized calls read it (NL_CLOCK=kernel: clock_gettime)\n",
               counter_cost_ns());
    else
        printf("reference: the kernel here does not keep time with the CPU counter (or "
               "NL_CLOCK=kernel): summarized calls read clock_gettime\n");
    if (have[SYSLOG_DEVLOG]) devlog_close(&dl);
    if (csv && fclose(csv)) {
        fprintf(stderr, "bench-throughput: %s: %s\n", csv_path, strerror(errno));
        return 1;
    }
    return 0;
}
