/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_resolve.c — name lookups with a time limit (see nl_resolve.h). A lookup is shared by
 * two owners, the thread running getaddrinfo and the destination waiting for it; whichever
 * lets go last frees it, so a destination can stop waiting (or be closed) while the
 * resolver still hangs. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_clock.h"
#include "nl_resolve.h"

struct nl_lookup {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs; /* the lookup thread and the waiting destination */
    int done;
    struct addrinfo *res;
    int socktype;
    char port[16];
    char host[]; /* NUL-terminated */
};

static void lookup_unref(nl_lookup_t *l)
{
    pthread_mutex_lock(&l->mu);
    int last = --l->refs == 0;
    pthread_mutex_unlock(&l->mu);
    if (!last) return;
    if (l->res) freeaddrinfo(l->res);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

static void *lookup_main(void *arg)
{
    nl_lookup_t *l = arg;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = l->socktype;
    hints.ai_flags = AI_NUMERICSERV;
    if (getaddrinfo(l->host, l->port, &hints, &res) != 0) res = NULL;
    pthread_mutex_lock(&l->mu);
    l->res = res;
    l->done = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    lookup_unref(l);
    return NULL;
}

/* A detached thread with every signal blocked: the program's signal handlers never run
 * on a thread it did not make. */
static nl_lookup_t *lookup_start(const char *host, const char *port, int socktype)
{
    size_t hl = strlen(host);
    nl_lookup_t *l = calloc(1, sizeof *l + hl + 1);
    if (!l) return NULL;
    memcpy(l->host, host, hl + 1);
    snprintf(l->port, sizeof l->port, "%s", port);
    l->socktype = socktype;
    l->refs = 2;
    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    int e = pthread_create(&th, &ta, lookup_main, l);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&ta);
    if (e != 0) {
        l->refs = 1;
        lookup_unref(l);
        return NULL;
    }
    return l;
}

/* Wait until the lookup ends or the time is up; 1 with *out taken from it if it ended. */
static int lookup_wait(nl_lookup_t *l, int timeout_ms, struct addrinfo **out)
{
    struct timespec until = nl__deadline_ms(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&l->mu);
    while (!l->done && pthread_cond_timedwait(&l->cv, &l->mu, &until) != ETIMEDOUT) {
    }
    int done = l->done;
    if (done) {
        *out = l->res;
        l->res = NULL;
    }
    pthread_mutex_unlock(&l->mu);
    return done;
}

int nl__resolve(const char *host, int port, int socktype, int timeout_ms, nl_lookup_t **pending,
                struct addrinfo **out)
{
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    *out = NULL;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = socktype;
    hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST; /* never asks a resolver */
    if (!*pending && getaddrinfo(host, ps, &hints, &res) == 0) {
        *out = res;
        return 0;
    }
    if (!*pending) *pending = lookup_start(host, ps, socktype);
    if (!*pending) return -1;
    if (!lookup_wait(*pending, timeout_ms, out)) return -1; /* still running: next time */
    nl__lookup_forget(pending);
    return *out ? 0 : -1;
}

void nl__lookup_forget(nl_lookup_t **pending)
{
    if (*pending) lookup_unref(*pending);
    *pending = NULL;
}
