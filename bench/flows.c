/* SPDX-License-Identifier: BSD-3-Clause */
/* flows.c — bench-flows: how fast nl-flows takes events, on one core. Made-up requests
 * shaped like nl-flows-rpc's (client → front-end → two back-ends → disk, 16 events over 4
 * guids, the trace id and span ids on every line, sim.dur on the ends), 1,000 requests a
 * second of event time, 1% with a slow disk; every line parsed, joined, profiled, judged.
 * Beside it, the same lines only parsed (nl_parse, the floor any reader of lines pays), and
 * the nl-flows program on a file of them, start to end.
 *
 *   bench-flows [--quick] [EVENTS [ROUNDS]]     (1000000 events, median of 3 rounds)
 *   bench-flows --memory [EVENTS]               (200000 events a shape)
 *
 * --memory: the heap bytes an event held in open flows takes (the C library's count of
 * bytes in use, before any flow completes), for three shapes of input: every event a flow
 * of its own (guid only; and with parent.guid and trace.id, the worst), and the requests
 * above (16 events over 4 guids). nl-flows(1), MEMORY, quotes these.
 *
 * Exits 1 if the slow requests are not found (at least 95% of them, at most 1% of the
 * others named), so the quick run in ctest checks that it measures something right. */
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nlf.h"

extern char **environ;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t rng = 42;
static double unif(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct lines {
    char *text;
    size_t len, cap, n;
    size_t *off;
    size_t capoff;
} lines_t;

static void add(lines_t *l, const char *s, int n)
{
    if (l->len + (size_t)n + 1 > l->cap) {
        l->cap = (l->cap + (size_t)n + 1) * 2;
        l->text = realloc(l->text, l->cap);
    }
    if (l->n == l->capoff) {
        l->capoff = l->capoff ? l->capoff * 2 : 1024;
        l->off = realloc(l->off, l->capoff * sizeof *l->off);
    }
    if (!l->text || !l->off) {
        fprintf(stderr, "bench-flows: out of memory\n");
        exit(2);
    }
    l->off[l->n++] = l->len;
    memcpy(l->text + l->len, s, (size_t)n);
    l->len += (size_t)n;
    l->text[l->len++] = '\n';
}

/* One event line at `us` (microseconds into the run). */
static void line(lines_t *l, long long us, const char *event, const char *guid,
                 const char *host, const char *trace, const char *extra)
{
    char b[512];
    long long s = us / 1000000;
    int n = snprintf(b, sizeof b,
                     "ts=2026-11-26T%02lld:%02lld:%02lld.%06lldZ event=%s level=Info guid=%s "
                     "host=%s prog=nl-flows-rpc trace.id=%s%s%s",
                     10 + s / 3600, s / 60 % 60, s % 60, us % 1000000, event, guid, host, trace,
                     extra[0] ? " " : "", extra);
    add(l, b, n);
}

/* Requests one after another, 1 ms apart; returns how many were slow. Lines are in time
 * order except within a request (each process writes its own part in order). */
static long make(lines_t *l, long events)
{
    long slow = 0;
    for (long i = 0; (long)l->n + 16 <= events; i++) {
        long long t = 1000LL * i;
        char tr[33], g[4][40], x[160];
        snprintf(tr, sizeof tr, "%016lx%016lx", (unsigned long)(i * 2654435761u), (unsigned long)i);
        for (int k = 0; k < 4; k++)
            snprintf(g[k], sizeof g[k], "%08lx-0000-4000-8000-%012lx", (unsigned long)k, (unsigned long)i);
        int bad = unif() < 0.01;
        slow += bad;
        double d[2];
        for (int b = 0; b < 2; b++) d[b] = 200e-6 * (0.8 + 0.4 * unif()) * (bad && b ? 10 : 1);
        snprintf(x, sizeof x, "span.id=%016lx", 4 * i + 1);
        line(l, t, "request.start", g[0], "cl", tr, x);
        snprintf(x, sizeof x, "span.id=%016lx parent.span.id=%016lx", 4 * i + 2, 4 * i + 1);
        line(l, t + 40, "fe.handle.start", g[1], "fe", tr, x);
        double fe = 40e-6;
        for (int b = 0; b < 2; b++) {
            long long c = t + 50 + b * 300;
            line(l, c, "be.call.start", g[1], "fe", tr, "");
            snprintf(x, sizeof x, "span.id=%016lx parent.span.id=%016lx", 4 * i + 3 + b, 4 * i + 2);
            line(l, c + 30, "be.serve.start", g[2 + b], b ? "be2" : "be1", tr, x);
            line(l, c + 35, "disk.read.start", g[2 + b], b ? "be2" : "be1", tr, "");
            snprintf(x, sizeof x, "sim.dur=%.9f value=4096", d[b]);
            line(l, c + 235, "disk.read.end", g[2 + b], b ? "be2" : "be1", tr, x);
            double serve = 50e-6 * (0.8 + 0.4 * unif()) + d[b];
            snprintf(x, sizeof x, "sim.dur=%.9f", serve);
            line(l, c + 240, "be.serve.end", g[2 + b], b ? "be2" : "be1", tr, x);
            double call = 80e-6 * (0.8 + 0.4 * unif()) + serve;
            snprintf(x, sizeof x, "sim.dur=%.9f", call);
            line(l, c + 270, "be.call.end", g[1], "fe", tr, x);
            fe += call;
        }
        snprintf(x, sizeof x, "sim.dur=%.9f", fe);
        line(l, t + 660, "fe.handle.end", g[1], "fe", tr, x);
        snprintf(x, sizeof x, "sim.dur=%.9f", fe + 100e-6 * (0.8 + 0.4 * unif()));
        line(l, t + 700, "request.end", g[0], "cl", tr, x);
    }
    return slow;
}

static size_t line_len(const lines_t *l, size_t i)
{
    size_t end = i + 1 < l->n ? l->off[i + 1] : l->len;
    return end - l->off[i] - 1;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Heap bytes in use by the C library's count. */
static size_t heap_used(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* Bytes an event held takes when `l`'s lines are all held in open flows. */
static double held_bytes(const lines_t *l)
{
    nlf_opts_t o;
    nlf_opts_default(&o);
    o.idle = 1e8;
    o.max_events = l->n + 1;
    nl_log_t *out = nl_open("/dev/null");
    char err[128];
    nlf_t *f = out ? nlf_new(&o, out, err, sizeof err) : NULL;
    if (!f) exit(2);
    size_t before = heap_used();
    for (size_t i = 0; i < l->n; i++)
        nlf_line(f, l->text + l->off[i], line_len(l, i), "bench", (long)i, stderr);
    double per = (double)(heap_used() - before) / (double)l->n;
    nlf_free(f);
    nl_close(out);
    return per;
}

/* --memory: bytes an event for each shape of input. */
static int memory(long events)
{
    printf("bench-flows --memory: %ld events a shape, all held in open flows\n"
           "| input | bytes an event |\n|---|---:|\n", events);
    for (int shape = 0; shape < 3; shape++) {
        lines_t l = {0};
        if (shape == 2) {
            rng = 42;
            make(&l, events);
        }
        for (long i = 0; shape < 2 && i < events; i++) {
            char g[48], x[160] = "";
            snprintf(g, sizeof g, "6f1c2a40-0000-4000-8000-%012ld", i);
            if (shape == 1)
                snprintf(x, sizeof x, " parent.guid=7f1c2a40-0000-4000-8000-%012ld", i);
            char tr[40];
            snprintf(tr, sizeof tr, "0123456789abcdef0123456789%06ld", i % 1000000);
            line(&l, i, "a.start", g, "h", tr, x[0] ? x + 1 : "");
        }
        if (shape == 0) { /* no trace id: drop it from the lines */
            lines_t m = {0};
            for (size_t i = 0; i < l.n; i++) {
                char b[512];
                int n = (int)line_len(&l, i);
                memcpy(b, l.text + l.off[i], (size_t)n);
                b[n] = 0;
                char *t = strstr(b, " trace.id=");
                if (t) *t = 0;
                add(&m, b, (int)strlen(b));
            }
            free(l.text), free(l.off);
            l = m;
        }
        static const char *const name[] = {
            "one-event flows: guid", "one-event flows: guid, parent.guid, trace.id (the worst)",
            "requests of 16 events over 4 guids, trace id, span ids"};
        printf("| %s | %.0f |\n", name[shape], held_bytes(&l));
        free(l.text);
        free(l.off);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long events = 1000000;
    int rounds = 3, ai = 1;
    if (ai < argc && !strcmp(argv[ai], "--memory"))
        return memory(ai + 1 < argc ? atol(argv[ai + 1]) : 200000);
    if (ai < argc && !strcmp(argv[ai], "--quick")) events = 50000, rounds = 1, ai++;
    if (ai < argc) events = atol(argv[ai++]);
    if (ai < argc) rounds = atoi(argv[ai++]);
    if (events < 1000 || rounds < 1 || rounds > 99) {
        fprintf(stderr, "usage: bench-flows [--quick] [EVENTS [ROUNDS]]\n");
        return 2;
    }
    /* the program first, start to end, on a file of the same lines, written by a child
     * process: a program started from this one inherits its peak memory as its own, so this
     * one must not hold the lines yet */
    char path[] = "/tmp/bench-flows-XXXXXX";
    const char *keep = getenv("BENCH_FLOWS_KEEP"); /* a path: the lines are left there */
    int fd = mkstemp(path);
    if (fd < 0) return 2;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        lines_t w = {0};
        make(&w, events);
        _exit(write(fd, w.text, w.len) == (ssize_t)w.len ? 0 : 1);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) return 2;
    close(fd);
    int devnull = open("/dev/null", O_WRONLY);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, devnull, 1);
    char *args[] = {"nl-flows", "--dur-field", "sim.dur", path, NULL};
    double t0 = now_s();
    struct rusage kid;
    if (devnull < 0 || posix_spawn(&pid, FLOWS_NL_FLOWS, &fa, NULL, args, environ)) return 2;
    wait4(pid, &st, 0, &kid);
    double te = now_s() - t0;
    posix_spawn_file_actions_destroy(&fa);
    close(devnull);
    if (keep) rename(path, keep);
    else unlink(path);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "bench-flows: nl-flows failed\n");
        return 1;
    }

    lines_t l = {0};
    rng = 42; /* the same lines as the child's */
    long slow = make(&l, events);
    long requests = (long)l.n / 16;
    printf("bench-flows: %zu events (%ld requests, %ld with a slow disk), median of %d round(s)\n",
           l.n, requests, slow, rounds);

    double tp[99], tf[99];
    nlf_counts_t n = {0};
    for (int r = 0; r < rounds; r++) {
        nl_rec_t rec;
        nl_rec_init(&rec);
        double t0 = now_s();
        size_t ok = 0;
        for (size_t i = 0; i < l.n; i++)
            ok += nl_parse(&rec, l.text + l.off[i], line_len(&l, i), (long)i, 0, NULL) == 1;
        tp[r] = now_s() - t0;
        nl_rec_free(&rec);
        if (ok != l.n) {
            fprintf(stderr, "bench-flows: %zu lines did not parse\n", l.n - ok);
            return 1;
        }
        nlf_opts_t o;
        nlf_opts_default(&o);
        o.dur_field = "sim.dur";
        nl_log_t *out = nl_open("/dev/null");
        char err[128];
        nlf_t *f = out ? nlf_new(&o, out, err, sizeof err) : NULL;
        if (!f) return 2;
        t0 = now_s();
        for (size_t i = 0; i < l.n; i++)
            nlf_line(f, l.text + l.off[i], line_len(&l, i), "bench", (long)i, stderr);
        nlf_end_phase(f);
        tf[r] = now_s() - t0;
        nlf_counts(f, &n);
        nlf_free(f);
        nl_close(out);
    }
    qsort(tp, (size_t)rounds, sizeof *tp, cmp_dbl);
    qsort(tf, (size_t)rounds, sizeof *tf, cmp_dbl);
    double p = tp[rounds / 2], fl = tf[rounds / 2];
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("| stage | events/s | ns/event |\n|---|---:|---:|\n");
    printf("| nl_parse alone | %.0f k | %.0f |\n", (double)l.n / p / 1e3, p * 1e9 / (double)l.n);
    printf("| nl-flows engine (parse, join, profile, judge) | %.0f k | %.0f |\n",
           (double)l.n / fl / 1e3, fl * 1e9 / (double)l.n);

    printf("| nl-flows program, file in, reports out | %.0f k | %.0f |\n", (double)l.n / te / 1e3,
           te * 1e9 / (double)l.n);
    printf("flows %llu, judged %llu, suspects %llu (slow requests %ld); peak memory: "
           "this process %ld MB (the lines %zu MB), nl-flows %ld MB\n",
           (unsigned long long)n.flows, (unsigned long long)n.judged,
           (unsigned long long)n.suspects, slow, ru.ru_maxrss / 1024, l.len >> 20,
           kid.ru_maxrss / 1024);
    free(l.text);
    free(l.off);
    /* the suspects should be the slow requests: as many, give or take 1% of the others */
    long extra = (long)n.suspects - slow;
    if (n.judged != (uint64_t)requests || extra < -slow / 20 || extra > requests / 100) {
        fprintf(stderr, "bench-flows: the slow requests were not found\n");
        return 1;
    }
    return 0;
}
