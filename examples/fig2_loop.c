/* SPDX-License-Identifier: BSD-3-Clause */
/* fig2_loop.c — the instrumented loop of the paper's Figure 2: every iteration of the work
 * loop is wrapped in a start/end pair, the end event carrying the event value (here the
 * bytes processed). Destination and detail are chosen at run time (NL_DEST, NL_CFG).
 *
 *   nl-fig2-loop [ITERATIONS [URL]]      default: 5 iterations to stdout ("-") */
#include <stdio.h>
#include <stdlib.h>

#include "nlkit/nl.h"

/* Some real work per iteration, so the loop is not all logging. */
static unsigned long work(unsigned char *block, size_t n, unsigned long seed)
{
    unsigned long h = seed;
    for (size_t i = 0; i < n; i++) {
        block[i] = (unsigned char)(h >> 3);
        h = h * 6364136223846793005UL + block[i];
    }
    return h;
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
    const char *url = argc > 2 ? argv[2] : "-";
    int err;
    nl_log_t *log = nl_open_ex(url, &err);
    if (!log) {
        fprintf(stderr, "nl-fig2-loop: cannot open log '%s': %s\n", url, nl_open_strerror(err));
        return 1;
    }
    nl_const_std(log);
    static unsigned char block[65536];
    unsigned long h = 1;
    for (long i = 0; i < iterations; i++) {
        nl_write(log, "example.loop.start", "i=l", (long long)i);
        h = work(block, sizeof block, h);
        nl_write(log, "example.loop.end", "i=l value=l", (long long)i, (long long)sizeof block);
    }
    nl_writel(log, NL_LVL_DEBUG, "example.done", "checksum=u", (unsigned long long)h);
    int active = nl_is_active(log);
    nl_close(log);
    return active ? 0 : 2;
}
