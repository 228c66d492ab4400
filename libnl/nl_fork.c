/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_fork.c — every open log survives fork() in both processes (see nl_fork.h).
 *
 * The handlers take each log's locks in the order the rest of the library takes them:
 * fmu, cfg_mu, the hook's (the summarizer's, through its fork_prepare), the deferred path's
 * rings (nl__defer_fork_prepare), then the sink's (nl__sink_fork_prepare). fmu first because the flusher holds it only while idle. */
#include "nl_fork.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "nl_defer.h"
#include "nl_log_int.h"

_Atomic unsigned nl__fork_gen;
_Atomic int nl__fork_seen;

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER; /* guards the list */
static nl_log_t *reg_head;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static void before_fork(void)
{
    pthread_mutex_lock(&reg_mu);
    atomic_store(&nl__fork_seen, 1);
    for (nl_log_t *log = reg_head; log; log = log->fork_next) {
        pthread_mutex_lock(&log->fmu);
        pthread_mutex_lock(&log->cfg_mu);
        void *hook = atomic_load(&log->hook.ctx);
        if (hook) log->hook.ops->fork_prepare(hook);
        if (log->defer) nl__defer_fork_prepare(log->defer);
        nl__sink_fork_prepare(&log->sink);
    }
}

static void unlock_log(nl_log_t *log)
{
    nl__sink_fork_parent(&log->sink);
    if (log->defer) nl__defer_fork_parent(log->defer);
    void *hook = atomic_load(&log->hook.ctx);
    if (hook) log->hook.ops->fork_parent(hook);
    pthread_mutex_unlock(&log->cfg_mu);
    pthread_mutex_unlock(&log->fmu);
}

static void after_fork_parent(void)
{
    for (nl_log_t *log = reg_head; log; log = log->fork_next) unlock_log(log);
    pthread_mutex_unlock(&reg_mu);
}

/* Only this thread exists now. What the parent accepted is the parent's to write. */
static void after_fork_child(void)
{
    atomic_fetch_add(&nl__fork_gen, 1);
    for (nl_log_t *log = reg_head; log; log = log->fork_next) {
        nl__sink_fork_child(&log->sink);
        if (log->defer) nl__defer_fork_child(log->defer);
        void *hook = atomic_load(&log->hook.ctx);
        if (hook) log->hook.ops->fork_child(hook);
        atomic_store(&log->gate.filtered, 0);
        atomic_store(&log->errors, 0);
        log->has_flusher = 0;
        /* the parent's flusher may have been waiting on fcond: a condition variable with
         * waiters that no longer exist would make pthread_cond_destroy wait forever */
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&log->fcond, &ca);
        pthread_condattr_destroy(&ca);
        /* the sink's and the hook's fork_child released their own locks: each lock is
         * released once (releasing them again, as this did before, is undefined) */
        pthread_mutex_unlock(&log->cfg_mu);
        pthread_mutex_unlock(&log->fmu);
    }
    pthread_mutex_unlock(&reg_mu);
}

static void install_handlers(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

void nl__fork_register(nl_log_t *log)
{
    pthread_once(&reg_once, install_handlers);
    pthread_mutex_lock(&reg_mu);
    atomic_store(&log->gate.fork_gen, atomic_load(&nl__fork_gen));
    log->fork_prev = NULL;
    log->fork_next = reg_head;
    if (reg_head) reg_head->fork_prev = log;
    reg_head = log;
    pthread_mutex_unlock(&reg_mu);
}

void nl__fork_unregister(nl_log_t *log)
{
    pthread_mutex_lock(&reg_mu);
    if (log->fork_prev)
        log->fork_prev->fork_next = log->fork_next;
    else if (reg_head == log)
        reg_head = log->fork_next;
    if (log->fork_next) log->fork_next->fork_prev = log->fork_prev;
    log->fork_prev = log->fork_next = NULL;
    pthread_mutex_unlock(&reg_mu);
}

int nl__fork_with_logs(int (*fn)(nl_log_t *head, void *arg), void *arg,
                       const struct timespec *deadline)
{
    if (pthread_mutex_timedlock(&reg_mu, deadline) != 0) return -1;
    int rc = fn(reg_head, arg);
    pthread_mutex_unlock(&reg_mu);
    return rc;
}

void nl__fork_resume(nl_log_t *log)
{
    unsigned gen = atomic_load(&nl__fork_gen);
    int refresh = 0;
    pthread_mutex_lock(&log->fmu);
    if (atomic_load(&log->gate.fork_gen) != gen) {
        if (!log->stop && !log->has_flusher && nl__flusher_start(log) != 0)
            fprintf(stderr, "nlkit: no flusher thread in the forked child: lines go out when "
                            "a buffer fills, at nl_flush and at nl_close\n");
        atomic_store(&log->gate.fork_gen, gen);
        refresh = atomic_load(&log->std_pid);
    }
    pthread_mutex_unlock(&log->fmu);
    if (refresh) {
        char pid[24];
        snprintf(pid, sizeof pid, "%ld", (long)getpid());
        nl_const_set(log, "pid", pid);
    }
}
