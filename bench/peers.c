/* SPDX-License-Identifier: BSD-3-Clause */
/* peers.c — bench-peers: how well nl-peers names the misbehaving host. For each seed it
 * simulates a pool of identical servers (summary lines of disk.read, disk.write,
 * network.read and network.write every second, each host with its own bias and noise,
 * all under a common varying load), once with two faults — one host's disk writes slowed
 * from minute 10, another host stopping dead at minute 20 — and once fault-free; runs the
 * real nl-peers on both and checks its verdicts:
 *   - the slowed host is declared faulty with culprit disk.write within 3 windows of the
 *     onset (3 x 60 s; true positive), the stopped host is reported as fail-stop;
 *   - no other host is declared faulty or fail-stop, in either run (false positives).
 * Prints one line per seed and the rates. Exit status 0 only if every seed passed.
 *
 *   bench-peers [--seeds N] [--seed S] [--hosts H] [--dir DIR] [--nl-peers PATH]
 * With --dir the simulated logs and nl-peers' reports stay there. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "nlkit/nl_bp.h"

#ifndef PEERS_NL_PEERS
#define PEERS_NL_PEERS "nl-peers"
#endif

#define T0 1767571200LL /* 2026-01-05T00:00:00Z */
#define MINUTES 30
#define SLOW_AT (10 * 60)
#define STOP_AT (20 * 60)
#define WINDOW 60 /* nl-peers' default window */

static const char *const acts[4] = {"disk.read", "disk.write", "network.read", "network.write"};
static const double busy[4] = {0.12, 0.18, 0.25, 0.30}; /* share of each second */

static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double gauss(uint64_t *s)
{
    double u = ((double)(next_u64(s) >> 11) + 0.5) * 0x1.0p-53,
           v = (double)(next_u64(s) >> 11) * 0x1.0p-53;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* The pool's summary lines; slow/stop: the faulty hosts' indexes, or -1. */
static int simulate(const char *path, uint64_t seed, int hosts, int slow, int stop)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    double bias[256][4];
    uint64_t rng = seed;
    for (int h = 0; h < hosts; h++)
        for (int a = 0; a < 4; a++) bias[h][a] = 1 + 0.05 * gauss(&rng);
    char store[512];
    nl_buf_t b;
    nl_buf_init(&b, store, sizeof store);
    for (int s = 0; s < MINUTES * 60; s++) {
        double load = 0.8 + 0.2 * sin(6.283185307179586 * s / 600.0); /* common, slow */
        for (int h = 0; h < hosts; h++) {
            if (h == stop && s >= STOP_AT) continue;
            char host[32];
            snprintf(host, sizeof host, "pvfs%02d", h + 1);
            for (int a = 0; a < 4; a++) {
                double dur = busy[a] * bias[h][a] * load * (1 + 0.15 * gauss(&rng));
                if (h == slow && s >= SLOW_AT && a == 1) dur *= 2.5; /* a slower disk */
                if (dur < 0) dur = 0;
                double bytes = busy[a] * load * 2e8 * (1 + 0.05 * gauss(&rng));
                long n = lround(bytes / 262144);
                nl_buf_reset(&b);
                char ev[64];
                snprintf(ev, sizeof ev, "%s.summary", acts[a]);
                nl_enc_begin(&b, (T0 + s + 1) * 1000000LL, ev, NL_LVL_INFO, NULL);
                nl_enc_str(&b, "host", host, strlen(host));
                nl_enc_str(&b, "prog", "pvfs2-server", 12);
                nl_enc_i64(&b, "n", n);
                nl_enc_dbl(&b, "dur.sum", round(dur * 1e6) / 1e6);
                nl_enc_dbl(&b, "v.sum", (double)n * 262144);
                nl_enc_i64(&b, "int", 1);
                if (nl_enc_end(&b) == 0) fwrite(b.p, 1, b.len, f);
            }
        }
    }
    nl_buf_free(&b);
    return fclose(f);
}

typedef struct {
    int slow_found, stop_found; /* the faults, named correctly and in time */
    double delay;               /* seconds from the onset to the faulty verdict */
    int fp;                     /* other hosts declared faulty or fail-stop */
} verdict_t;

/* Read nl-peers' verdicts; slow/stop as in simulate(). */
static int read_verdicts(const char *path, int slow, int stop, verdict_t *v)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    *v = (verdict_t){0, 0, NAN, 0};
    char *line = NULL, slow_name[32], stop_name[32];
    snprintf(slow_name, sizeof slow_name, "pvfs%02d", slow + 1);
    snprintf(stop_name, sizeof stop_name, "pvfs%02d", stop + 1);
    size_t cap = 0;
    ssize_t len;
    nl_rec_t r;
    nl_rec_init(&r);
    nl_perr_t err;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (nl_parse(&r, line, (size_t)len, 0, 0, &err) != 1) continue;
        int faulty = nl_field_is(&r.f[r.i_event], "nl.peer.faulty"),
            failstop = nl_field_is(&r.f[r.i_event], "nl.peer.failstop");
        if (!faulty && !failstop) continue;
        const nl_field_t *h = nl_rec_get(&r, "host"), *c = nl_rec_get(&r, "culprit");
        double at = (double)r.ts_usec / 1e6 - (double)T0;
        if (faulty && slow >= 0 && h && nl_field_is(h, slow_name)) {
            if (c && nl_field_is(c, "disk.write") && at <= SLOW_AT + 3 * WINDOW) {
                v->slow_found = 1;
                v->delay = at - SLOW_AT;
            } else {
                v->fp++; /* the right host for the wrong reason or too late */
            }
        } else if (failstop && stop >= 0 && h && nl_field_is(h, stop_name)) {
            v->stop_found = 1;
        } else {
            v->fp++;
        }
    }
    free(line);
    nl_rec_free(&r);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    long seeds = 20, seed0 = 1, hosts = 16;
    const char *dir = NULL, *prog = PEERS_NL_PEERS;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--seeds") && v)
            seeds = atol(argv[++a]);
        else if (!strcmp(argv[a], "--seed") && v)
            seed0 = atol(argv[++a]);
        else if (!strcmp(argv[a], "--hosts") && v)
            hosts = atol(argv[++a]);
        else if (!strcmp(argv[a], "--dir") && v)
            dir = argv[++a];
        else if (!strcmp(argv[a], "--nl-peers") && v)
            prog = argv[++a];
        else {
            fprintf(stderr, "usage: bench-peers [--seeds N] [--seed S] [--hosts H] [--dir DIR] "
                            "[--nl-peers PATH]\n");
            return 2;
        }
    }
    if (seeds < 1 || hosts < 4 || hosts > 256) {
        fprintf(stderr, "bench-peers: need seeds >= 1 and 4 <= hosts <= 256\n");
        return 2;
    }
    char tmp[] = "/tmp/nlkit-peers-XXXXXX";
    int own_dir = !dir;
    if (!dir && !(dir = mkdtemp(tmp))) {
        fprintf(stderr, "bench-peers: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    mkdir(dir, 0755);
    printf("bench-peers: %ld hosts, %d min; faults: pvfs%02d disk writes 2.5x slower from "
           "minute %d, pvfs%02d stops at minute %d\n",
           hosts, MINUTES, 4, SLOW_AT / 60, 12 % (int)hosts + 1, STOP_AT / 60);
    printf("%6s %10s %10s %10s %12s %12s\n", "seed", "slow host", "delay s", "fail-stop",
           "FP (faulty)", "FP (clean)");
    int slow = 3, stop = 12 % (int)hosts, ok = 0, slow_n = 0, stop_n = 0, fp_n = 0, fpc_n = 0;
    double delay_sum = 0;
    for (long s = seed0; s < seed0 + seeds; s++) {
        char flog[4096], clog[4096], fout[4096], cout[4096];
        snprintf(flog, sizeof flog, "%s/faulty-%ld.log", dir, s);
        snprintf(clog, sizeof clog, "%s/clean-%ld.log", dir, s);
        snprintf(fout, sizeof fout, "%s/faulty-%ld.peers", dir, s);
        snprintf(cout, sizeof cout, "%s/clean-%ld.peers", dir, s);
        char *const fa[] = {(char *)prog, flog, NULL}, *const ca[] = {(char *)prog, clog, NULL};
        verdict_t fv, cv;
        if (simulate(flog, (uint64_t)s, (int)hosts, slow, stop) ||
            simulate(clog, (uint64_t)s + 1000000, (int)hosts, -1, -1) || bench_run_to(fout, fa) ||
            bench_run_to(cout, ca) || read_verdicts(fout, slow, stop, &fv) ||
            read_verdicts(cout, -1, -1, &cv)) {
            fprintf(stderr, "bench-peers: seed %ld: a run failed (files in %s)\n", s, dir);
            return 1;
        }
        printf("%6ld %10s %10.0f %10s %12d %12d\n", s, fv.slow_found ? "found" : "MISSED", fv.delay,
               fv.stop_found ? "found" : "MISSED", fv.fp, cv.fp);
        slow_n += fv.slow_found;
        stop_n += fv.stop_found;
        fp_n += fv.fp;
        fpc_n += cv.fp;
        if (fv.slow_found) delay_sum += fv.delay;
        ok += fv.slow_found && fv.stop_found && !fv.fp && !cv.fp;
        if (own_dir) { /* a directory of the caller's keeps the logs, to look at */
            remove(flog);
            remove(clog);
            remove(fout);
            remove(cout);
        }
    }
    printf("slowed host named (culprit disk.write, within 3 windows): %d/%ld, mean delay %.0f s\n",
           slow_n, seeds, slow_n ? delay_sum / slow_n : NAN);
    printf("stopped host named fail-stop: %d/%ld\n", stop_n, seeds);
    printf("false verdicts on other hosts: %d in %ld faulty runs (%ld healthy host-runs), %d in "
           "%ld fault-free runs (%ld host-runs)\n",
           fp_n, seeds, seeds * (hosts - 2), fpc_n, seeds, seeds * hosts);
    printf("seeds with everything right: %d/%ld\n", ok, seeds);
    if (own_dir) rmdir(dir);
    return ok == seeds ? 0 : 1;
}
