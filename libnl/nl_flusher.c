/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_flusher.c — each log's background thread: writes what waits in buffers on time,
 * reconnects a lost destination, re-reads the level file, and gives the hook (the
 * summarizer) its ticks, waking early when the hook's next interval ends sooner. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "nl_log_int.h"

/* The background thread: flushes on time, reconnects, re-reads the level file. */
static void *flusher_main(void *arg)
{
    nl_log_t *log = arg;
    pthread_mutex_lock(&log->fmu);
    while (!log->stop) {
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_sec += log->flush_ms / 1000;
        dl.tv_nsec += (long)(log->flush_ms % 1000) * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        void *hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
        struct timespec due;
        if (hook && log->hook.ops->next_due(hook, &due) &&
            (due.tv_sec < dl.tv_sec || (due.tv_sec == dl.tv_sec && due.tv_nsec < dl.tv_nsec)))
            dl = due; /* wake when the hook's next interval ends: summaries come out on time */
        while (!log->stop && !log->rewait &&
               pthread_cond_timedwait(&log->fcond, &log->fmu, &dl) != ETIMEDOUT) {
        }
        if (log->stop) break;
        if (log->rewait) { /* a hook was plugged in: its first due time may come sooner */
            log->rewait = 0;
            continue;
        }
        pthread_mutex_unlock(&log->fmu);
        nl__levelfile_check(log);
        hook = atomic_load_explicit(&log->hook.ctx, memory_order_acquire);
        if (hook) {
            log->hook.ops->config_check(hook);
            log->hook.ops->tick(hook, 0, 0);
        }
        nl__sink_tick(&log->sink);
        pthread_mutex_lock(&log->fmu);
    }
    pthread_mutex_unlock(&log->fmu);
    return NULL;
}

int nl__flusher_start(nl_log_t *log)
{
    int e = pthread_create(&log->flusher, NULL, flusher_main, log);
    log->has_flusher = e == 0;
    return e;
}
