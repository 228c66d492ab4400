/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_exit.c — at exit(), every open log's lines out (see nl_exit.h). */
#include "nl_exit.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "nl_clock.h"
#include "nl_fork.h"
#include "nl_log_int.h"

/* How long the exit waits for the list of open logs (held by nl_open, nl_close, or a fork
 * that waits for a log's locks). */
#define LIST_WAIT_MS 5000

/* One log's flush on a helper thread. Allocated, not on the exiting thread's stack: a
 * helper that is still stuck when the exit gives up on it writes `done` later. */
typedef struct job {
    nl_log_t *log;
    pthread_t tid;
    int done; /* under wait_mu */
} job_t;

static pthread_once_t arm_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t wait_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cv;

static void *flush_job(void *arg)
{
    job_t *j = arg;
    nl__log_exit_flush(j->log);
    pthread_mutex_lock(&wait_mu);
    j->done = 1;
    pthread_cond_broadcast(&wait_cv);
    pthread_mutex_unlock(&wait_mu);
    return NULL;
}

/* What a message calls the destination: its path, or host and port. */
static void dest_name(const nl_url_t *u, char *out, size_t cap)
{
    if (u->kind == NL_D_TCP || u->kind == NL_D_UDP)
        snprintf(out, cap, "%s:%d", u->host, u->port);
    else if (u->kind == NL_D_STDOUT || u->kind == NL_D_STDERR)
        snprintf(out, cap, "%s", u->kind == NL_D_STDOUT ? "standard output" : "standard error");
    else
        snprintf(out, cap, "%s", u->path);
}

/* The helper never finished: its lines are lost and said to be; the log is left as it is
 * (nl_close then returns at once), the helper and its job too. */
static void give_up(job_t *j, long waited_ms)
{
    nl_log_t *log = j->log;
    atomic_store(&log->exit_stuck, 1);
    pthread_detach(j->tid);
    char name[NL_URL_PATH_MAX + 16];
    dest_name(&log->sink.url, name, sizeof name);
    fprintf(stderr,
            "nlkit: at exit, the log to %s stayed held by another thread for %ld ms: the lines "
            "in its buffers%s are lost\n",
            name, waited_ms, log->defer ? " and its threads' rings" : "");
}

/* Every open log's flush, each on a helper thread, waited for at most four of its timeouts
 * and a second; inline where no thread can be made. Runs holding the list's lock. */
static int flush_logs(nl_log_t *head, void *arg)
{
    (void)arg;
    size_t n = 0;
    for (nl_log_t *log = head; log; log = log->fork_next) n++;
    job_t *jobs = n ? calloc(n, sizeof *jobs) : NULL;
    if (!jobs) {
        for (nl_log_t *log = head; log; log = log->fork_next) nl__log_exit_flush(log);
        return 0;
    }
    long wait_ms = 0;
    size_t i = 0;
    for (nl_log_t *log = head; log; log = log->fork_next, i++) {
        long w = 4L * log->sink.url.timeout_ms + 1000;
        if (w > wait_ms) wait_ms = w;
        jobs[i].log = log;
        if (pthread_create(&jobs[i].tid, NULL, flush_job, &jobs[i]) != 0) {
            nl__log_exit_flush(log);
            jobs[i].done = 2; /* no helper to join */
        }
    }
    struct timespec dl = nl__deadline_ms(CLOCK_MONOTONIC, wait_ms);
    pthread_mutex_lock(&wait_mu);
    for (;;) {
        size_t left = 0;
        for (i = 0; i < n; i++) left += !jobs[i].done;
        if (!left || pthread_cond_timedwait(&wait_cv, &wait_mu, &dl) == ETIMEDOUT) break;
    }
    int stuck = 0;
    for (i = 0; i < n; i++) {
        if (jobs[i].done == 1) {
            pthread_join(jobs[i].tid, NULL); /* it has finished: no wait */
        } else if (!jobs[i].done) {
            give_up(&jobs[i], wait_ms);
            stuck = 1;
        }
    }
    pthread_mutex_unlock(&wait_mu);
    if (!stuck) free(jobs); /* else a stuck helper still holds its job */
    return 0;
}

static void at_exit(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wait_cv, &ca);
    pthread_condattr_destroy(&ca);
    struct timespec dl = nl__deadline_ms(CLOCK_REALTIME, LIST_WAIT_MS);
    if (nl__fork_with_logs(flush_logs, NULL, &dl) != 0)
        fprintf(stderr,
                "nlkit: at exit, the list of open logs stayed busy for %d ms: their "
                "buffered lines are lost\n",
                LIST_WAIT_MS);
}

static void arm(void)
{
    if (atexit(at_exit) != 0)
        fprintf(stderr, "nlkit: no exit handler: lines buffered when the program exits "
                        "without nl_close are lost\n");
}

void nl__exit_arm(void) { pthread_once(&arm_once, arm); }
