/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_say.c — mistakes said once on standard error (nl_say.h). */
#include "nl_say.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nl_hash.h"

/* What was said, by hash of its text. The oldest is forgotten when full: a process that
 * makes more than SAID_MAX different mistakes may hear an old one again, which is better
 * than a table that grows without bound. */
#define SAID_MAX 64

int nl__say_once(const char *fmt, ...)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static uint64_t said[SAID_MAX];
    static unsigned nsaid;
    int e = errno;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t h = nl__hash(msg, strlen(msg), 0x6e6c6b6974ULL) | 1; /* 0: an empty slot */
    pthread_mutex_lock(&mu);
    int fresh = 1;
    for (unsigned i = 0; i < SAID_MAX && fresh; i++) fresh = said[i] != h;
    if (fresh) {
        said[nsaid++ % SAID_MAX] = h;
        fprintf(stderr, "nlkit: %s\n", msg);
        fflush(stderr);
    }
    pthread_mutex_unlock(&mu);
    errno = e;
    return fresh;
}
