/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_flusher.c — each log's background thread: writes what waits in buffers on time,
 * reconnects a lost destination, re-reads the level file, and gives the hook (the
 * summarizer) its ticks, waking early when the hook's next interval ends sooner. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "nl_clock.h"
#include "nl_defer.h"
#include "nl_log_int.h"

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static int passed(const struct timespec *dl)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return !before(&now, dl);
}

/* The background thread: flushes on time, reconnects, re-reads the level file; between
 * its rounds it writes the full buffers writers hand it (nl__sink_set_handoff), without
 * moving the next round's deadline, so a busy log still gets its ticks on time. */
static void *flusher_main(void *arg)
{
    nl_log_t *log = arg;
    pthread_mutex_lock(&log->fmu);
    struct timespec dl;
    int fresh = 1;
    while (!log->stop) {
        if (fresh) {
            dl = nl__deadline_ms(CLOCK_MONOTONIC, log->flush_ms);
            void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
            struct timespec due;
            if (hook && log->hook.ops->next_due(hook, &due) && before(&due, &dl))
                dl = due; /* wake when the hook's next interval ends: summaries come out on time */
            if (log->defer && nl__defer_calibrate_due(log->defer, &due) && before(&due, &dl))
                dl = due; /* the deferred writers' counter clock, as soon as it can be */
            fresh = 0;
        }
        while (!log->stop && !log->rewait && !log->kicked &&
               pthread_cond_timedwait(&log->fcond, &log->fmu, &dl) != ETIMEDOUT) {
        }
        if (log->stop) break;
        if (log->rewait) { /* a hook was plugged in: its first due time may come sooner */
            log->rewait = 0;
            fresh = 1;
            continue;
        }
        if (log->kicked) {
            log->kicked = 0;
            pthread_mutex_unlock(&log->fmu);
            if (log->defer) nl__defer_drain(log->defer); /* a writer's ring is half full */
            nl__sink_drain(&log->sink);
            pthread_mutex_lock(&log->fmu);
            if (!passed(&dl)) continue;
        }
        fresh = 1;
        pthread_mutex_unlock(&log->fmu);
        nl__levelfile_check(log);
        void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
        if (hook) {
            log->hook.ops->config_check(hook);
            log->hook.ops->tick(hook, 0, 0);
        }
        if (log->defer) {
            nl__defer_tick(log->defer);
            nl__defer_drain(log->defer);
        }
        nl__sink_tick(&log->sink);
        pthread_mutex_lock(&log->fmu);
    }
    pthread_mutex_unlock(&log->fmu);
    return NULL;
}

/* A writer left a full buffer (nl__sink_set_handoff's kick), or its deferred ring is half
 * full. Never waits: the writer holds the sink's locks, and fork's handlers take fmu before
 * those. */
int nl__flusher_kick(void *ctx)
{
    nl_log_t *log = ctx;
    if (pthread_mutex_trylock(&log->fmu) != 0) return 0;
    log->kicked = 1;
    pthread_cond_signal(&log->fcond);
    pthread_mutex_unlock(&log->fmu);
    return 1;
}

int nl__flusher_start(nl_log_t *log)
{
    int e = pthread_create(&log->flusher, NULL, flusher_main, log);
    log->has_flusher = e == 0;
    if (e == 0) nl__sink_set_handoff(&log->sink, nl__flusher_kick, log);
    return e;
}
