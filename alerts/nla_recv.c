/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_recv.c — a receiver's queue and delivery thread: webhooks and Alertmanagers through
 * libcurl, exec: programs through fork/execve, nlkit destinations through the library. */
#include "nla_recv.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nl_buf.h"
#include "nl_clock.h"
#include "nl_list.h"
#include "nla_am.h"

extern char **environ;

enum { R_HTTP, R_EXEC, R_LOG, R_AM };

struct nla_recv {
    nla_recv_def_t def; /* the configuration's (strings borrowed) */
    int type;
    nl_log_t *log; /* R_LOG */
    nl_log_t *out; /* nl.notify.* lines */
    FILE *diag;
    pthread_t th;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;   /* work queued, or stop */
    pthread_cond_t idle; /* the queue became empty */
    nla_note_t *head, *tail;
    size_t n;
    nla_note_t *busy; /* being attempted: never dropped from under the thread */
    int stop;
    _Atomic int abort; /* set at exit, past drain=: the attempt in flight ends now */
    int changed;
    int failing; /* the last attempt failed (messages say so once per streak) */
    nla_recv_counts_t c;
    char *post_url;    /* R_HTTP: the URL; R_AM: its /api/v2/alerts */
    nla_am_set_t *am;  /* R_AM: the firing alerts, posted again every def.refresh */
    double refresh_at; /* R_AM: when next (monotonic seconds) */
};

void nla__note_free(nla_note_t *n)
{
    if (!n) return;
    free(n->id);
    free(n->status);
    free(n->group);
    free(n->first);
    free(n->json);
    free(n->lines);
    free(n);
}

/* A line about delivery on the detector's output (thread-safe: nl_write_line is). */
static void note_line(nla_recv_t *r, const char *event, int level, const nla_note_t *n,
                      const char *error, double retry_in)
{
    char st[1024];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nl_enc_begin(&b, nl_now_usec(), event, level, NULL);
    nl_enc_str(&b, "receiver", r->def.name, strlen(r->def.name));
    nl_enc_str(&b, "notification", n->id, strlen(n->id));
    nl_enc_str(&b, "status", n->status, strlen(n->status));
    nl_enc_u64(&b, "count", n->count);
    nl_enc_u64(&b, "attempts", n->attempts);
    if (error) nl_enc_str(&b, "error", error, strlen(error));
    if (retry_in >= 0) nl_enc_dbl(&b, "retry.in", retry_in);
    if (r->out && !nl_enc_end(&b)) nl_write_line(r->out, level, b.p, b.len);
    nl_buf_free(&b);
}

/* libcurl's progress callback: a non-zero return ends the transfer (nl-detect is exiting). */
static int xfer_abort(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    return ((nla_recv_t *)ctx)->abort != 0;
}

/* A timeout in seconds as libcurl's milliseconds, rounded up: 0 would mean no time limit,
 * so a positive timeout under a millisecond is one. */
static long timeout_ms(double secs)
{
    double ms = ceil(secs * 1000);
    return ms < 1 ? 1 : ms > (double)LONG_MAX ? LONG_MAX : (long)ms;
}

/* The start of an answer's body, to say why it was refused (Alertmanager says which alert
 * and why in its 400's body). */
typedef struct answer {
    char text[160];
    size_t len;
} answer_t;

static size_t keep_start(char *p, size_t size, size_t n, void *ctx)
{
    answer_t *a = ctx;
    for (size_t i = 0; i < size * n && a->len < sizeof a->text - 1; i++) {
        unsigned char c = (unsigned char)p[i];
        a->text[a->len++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    a->text[a->len] = 0;
    return size * n;
}

/* POST a body: 0 delivered; -1 failed (retried); -2 refused for good (an Alertmanager's
 * 4xx other than 408 and 429: the same body would be refused again). */
static int deliver_http(nla_recv_t *r, CURL *h, const char *body, size_t len, const char *id,
                        char *err, size_t errlen)
{
    char ebuf[CURL_ERROR_SIZE] = "";
    answer_t ans = {.len = 0};
    struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");
    char idh[600];
    snprintf(idh, sizeof idh, "X-Nlkit-Notification: %s", id);
    struct curl_slist *hd2 = hd ? curl_slist_append(hd, idh) : NULL;
    if (!hd2) {
        curl_slist_free_all(hd);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    hd = hd2;
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, r->post_url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms(r->def.timeout));
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xfer_abort);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, r);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep_start);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &ans);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "nl-detect (nlkit)");
    if (r->def.ca) curl_easy_setopt(h, CURLOPT_CAINFO, r->def.ca);
    CURLcode cc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hd);
    if (cc != CURLE_OK) {
        snprintf(err, errlen, "%s", *ebuf ? ebuf : curl_easy_strerror(cc));
        return -1;
    }
    if (code < 200 || code > 299) {
        snprintf(err, errlen, "HTTP status %ld%s%s", code, ans.len ? ": " : "", ans.text);
        return r->type == R_AM && code >= 400 && code < 500 && code != 408 && code != 429 ? -2 : -1;
    }
    return 0;
}

/* Write all of len bytes to fd (non-blocking: a pipe's free space can be smaller than what
 * is left to write, and a blocking write would wait for a reader that never reads, past
 * any time limit) by `until` (monotonic), or until the receiver is stopped; 0, or -1 (time
 * out, stopped, or the program stopped reading: EPIPE). Polls in slices of at most 100 ms
 * so a stop is seen. */
static int write_all(nla_recv_t *r, int fd, const char *p, size_t len, double until)
{
    while (len) {
        double left = until - nl__mono_s();
        if (left <= 0 || r->abort) return -1;
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        int pr = poll(&pf, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;
        if (pr < 0) return -1;
        ssize_t w = write(fd, p, len);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (w < 0) return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* NAME=VALUE in a heap string. */
static char *env_pair(const char *name, const char *v)
{
    size_t n = strlen(name) + strlen(v) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s=%s", name, v);
    return s;
}

/* Run exec:PROGRAM (through /bin/sh -c) with the notification: JSON on stdin, NL_ALERT_*
 * in the environment, its stdout sent to stderr (stdout may be nl-detect's report stream),
 * killed (its whole process group) past the time limit. */
static int deliver_exec(nla_recv_t *r, const nla_note_t *n, char *err, size_t errlen)
{
    const char *prog = r->def.url + 5;
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **envp = calloc(ne + 8, sizeof *envp);
    char *own[7] = {0};
    char cnt[16];
    snprintf(cnt, sizeof cnt, "%u", n->count);
    int rc = -1;
    if (!envp) goto out;
    own[0] = env_pair("NL_ALERT_STATUS", n->status);
    own[1] = env_pair("NL_ALERT_COUNT", cnt);
    own[2] = env_pair("NL_ALERT_GROUP", n->group);
    own[3] = env_pair("NL_ALERT_KEY", n->first);
    own[4] = env_pair("NL_ALERT_ID", n->id);
    own[5] = env_pair("NL_ALERT_RECEIVER", r->def.name);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "NL_ALERT_", 9)) envp[k++] = environ[i];
    for (int i = 0; i < 6; i++) {
        if (!own[i]) goto out;
        envp[k++] = own[i];
    }
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) || fcntl(pfd[1], F_SETFL, O_NONBLOCK)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto out;
    }
    char *argv[] = {"sh", "-c", (char *)prog, NULL};
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        goto out;
    }
    if (pid == 0) { /* only async-signal-safe calls from here */
        setpgid(0, 0);
        dup2(pfd[0], 0);
        dup2(2, 1);
        execve("/bin/sh", argv, envp);
        _exit(127);
    }
    close(pfd[0]);
    double until = nl__mono_s() + r->def.timeout;
    int wrote = write_all(r, pfd[1], n->json, n->json_len, until);
    close(pfd[1]);
    int st = 0;
    pid_t w;
    while ((w = waitpid(pid, &st, WNOHANG)) == 0 && nl__mono_s() < until && !r->abort) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (w == 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        if (r->abort)
            snprintf(err, errlen, "'%s' still running at exit: killed", prog);
        else
            snprintf(err, errlen, "'%s' ran longer than %g s: killed", prog, r->def.timeout);
    } else if (w < 0) {
        snprintf(err, errlen, "waitpid: %s", strerror(errno));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        rc = wrote == 0 ? 0 : (snprintf(err, errlen, "'%s' did not read its input", prog), -1);
    } else if (WIFEXITED(st)) {
        snprintf(err, errlen, "'%s' exited with status %d%s", prog, WEXITSTATUS(st),
                 WEXITSTATUS(st) == 127 ? " (not found?)" : "");
    } else {
        snprintf(err, errlen, "'%s' killed by signal %d", prog, WTERMSIG(st));
    }
out:
    if (rc && !*err) snprintf(err, errlen, "out of memory");
    for (int i = 0; i < 6; i++) free(own[i]);
    free(envp);
    return rc;
}

/* The detector's lines of the members that changed, to an nlkit destination. */
static int deliver_log(nla_recv_t *r, const nla_note_t *n, char *err, size_t errlen)
{
    const char *p = n->lines, *end = n->lines + n->lines_len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        int rc = nl_write_line(r->log, NL_LVL_WARN, p, len);
        if (rc) {
            snprintf(err, errlen, "%s", nl_strerror(rc));
            return -1;
        }
        p += len;
    }
    int rc = nl_flush(r->log);
    if (rc) {
        snprintf(err, errlen, "%s", nl_strerror(rc));
        return -1;
    }
    return 0;
}

/* A notification leaves the queue (delivered, given up or dropped): an Alertmanager
 * receiver's firing set takes its alerts, so that the refresh posts what was last said of
 * each. A set that was empty starts its refresh period now. Under the lock. */
static void note_done(nla_recv_t *r, const nla_note_t *n)
{
    if (!r->am) return;
    size_t was = nla__am_set_count(r->am);
    if (nla__am_set_apply(r->am, n->lines, n->lines_len) && r->diag)
        fprintf(r->diag, "nl-detect: receiver %s: out of memory keeping its firing alerts\n",
                r->def.name);
    if (!was && nla__am_set_count(r->am)) r->refresh_at = nl__mono_s() + r->def.refresh;
}

static void pop_head(nla_recv_t *r)
{
    nla_note_t *n = r->head;
    note_done(r, n);
    r->head = n->next;
    if (!r->head) r->tail = NULL;
    r->n--;
    nla__note_free(n);
    if (!r->head) pthread_cond_broadcast(&r->idle);
}

/* Post an Alertmanager receiver's firing alerts again (the queue is empty: what the set
 * holds is what was last sent). Called with the lock held; posts without it. A failure is
 * counted and reported like a notification's, and tried again at the next refresh. */
static void refresh(nla_recv_t *r, CURL *h)
{
    size_t len = 0;
    char *body = nla__am_set_body(r->am, &len);
    nla_note_t what = {
        .id = "refresh", .status = "firing", .count = (uint32_t)nla__am_set_count(r->am)};
    pthread_mutex_unlock(&r->mu);
    char err[512] = "";
    int rc = !body ? (snprintf(err, sizeof err, "out of memory"), -1)
             : h   ? deliver_http(r, h, body, len, what.id, err, sizeof err)
                   : (snprintf(err, sizeof err, "curl_easy_init failed"), -1);
    free(body);
    pthread_mutex_lock(&r->mu);
    r->refresh_at = nl__mono_s() + r->def.refresh;
    if (rc == 0) {
        if (r->failing && r->diag)
            fprintf(r->diag, "nl-detect: receiver %s: delivering again\n", r->def.name);
        r->failing = 0;
        r->c.refreshed++;
        return;
    }
    if (r->abort) return;
    r->c.failures++;
    what.attempts = 1;
    if (!r->failing && r->diag)
        fprintf(r->diag,
                "nl-detect: receiver %s (%s): %s; posting the firing alerts again in %g s\n",
                r->def.name, r->def.url, err, r->def.refresh);
    r->failing = 1;
    note_line(r, "nl.notify.error", NL_LVL_WARN, &what, err, r->def.refresh);
}

static void *run(void *arg)
{
    nla_recv_t *r = arg;
    CURL *h = r->type == R_HTTP || r->type == R_AM ? curl_easy_init() : NULL;
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        if (!r->head && r->am && nla__am_set_count(r->am)) { /* firing alerts to keep */
            double left = r->refresh_at - nl__mono_s();
            if (left <= 0) {
                refresh(r, h);
            } else {
                struct timespec dl = nl__deadline_s(CLOCK_REALTIME, left);
                pthread_cond_timedwait(&r->cv, &r->mu, &dl);
            }
            continue;
        }
        if (!r->head) {
            pthread_cond_wait(&r->cv, &r->mu);
            continue;
        }
        nla_note_t *n = r->busy = r->head;
        pthread_mutex_unlock(&r->mu);
        char err[512] = "";
        int rc = r->type == R_HTTP || r->type == R_AM
                     ? (h ? deliver_http(r, h, n->json, n->json_len, n->id, err, sizeof err)
                          : (snprintf(err, sizeof err, "curl_easy_init failed"), -1))
                 : r->type == R_EXEC ? deliver_exec(r, n, err, sizeof err)
                                     : deliver_log(r, n, err, sizeof err);
        pthread_mutex_lock(&r->mu);
        r->busy = NULL;
        r->changed = 1;
        if (rc && r->abort) break; /* stopped mid-attempt: it stays queued (state file) */
        if (rc == 0) {
            if (r->failing && r->diag)
                fprintf(r->diag, "nl-detect: receiver %s: delivering again\n", r->def.name);
            r->failing = 0;
            r->c.delivered++;
            pop_head(r);
            continue;
        }
        r->c.failures++;
        n->attempts++;
        int give_up =
            rc == -2 || (r->def.retries != NLA_RETRY_FOREVER && n->attempts > r->def.retries);
        double wait = r->def.backoff * pow(2, n->attempts > 30 ? 30 : n->attempts - 1);
        if (wait > r->def.backoff_max) wait = r->def.backoff_max;
        if (!r->failing && r->diag)
            fprintf(r->diag, "nl-detect: receiver %s (%s): %s; %s\n", r->def.name, r->def.url, err,
                    give_up ? "giving up on this notification" : "retrying");
        r->failing = 1;
        note_line(r, give_up ? "nl.notify.failed" : "nl.notify.error",
                  give_up ? NL_LVL_ERROR : NL_LVL_WARN, n, err, give_up ? -1 : wait);
        if (give_up) {
            r->c.given_up++;
            pop_head(r);
            continue;
        }
        struct timespec dl = nl__deadline_s(CLOCK_REALTIME, wait);
        while (!r->stop && pthread_cond_timedwait(&r->cv, &r->mu, &dl) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&r->mu);
    if (h) curl_easy_cleanup(h);
    return NULL;
}

nla_recv_t *nla__recv_new(const nla_recv_def_t *def, nl_log_t *out, FILE *diag, char *err,
                          size_t errlen)
{
    nla_recv_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->def = *def;
    r->out = out;
    r->diag = diag;
    if (!strncmp(def->url, "http://", 7) || !strncmp(def->url, "https://", 8)) {
        r->type = R_HTTP;
        if (!(r->post_url = strdup(def->url))) {
            snprintf(err, errlen, "out of memory");
            free(r);
            return NULL;
        }
    } else if (nla__am_url(def->url)) {
        r->type = R_AM;
        char e[300];
        if (!(r->post_url = nla__am_endpoint(def->url, e, sizeof e)) ||
            !(r->am = nla__am_set_new())) {
            snprintf(err, errlen, "receiver %s: %s", def->name, r->post_url ? "out of memory" : e);
            free(r->post_url);
            free(r);
            return NULL;
        }
    } else if (!strncmp(def->url, "exec:", 5)) {
        r->type = R_EXEC;
        if (!def->url[5]) {
            snprintf(err, errlen, "receiver %s: exec: needs a program", def->name);
            free(r);
            return NULL;
        }
    } else {
        r->type = R_LOG;
        int oe = 0;
        if (!(r->log = nl_open_ex(def->url, &oe))) {
            snprintf(err, errlen, "receiver %s: cannot open '%s': %s", def->name, def->url,
                     nl_open_strerror(oe));
            free(r);
            return NULL;
        }
        nl_set_level(r->log, NL_LVL_TRACE);
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    pthread_cond_init(&r->idle, NULL);
    if (pthread_create(&r->th, NULL, run, r)) {
        snprintf(err, errlen, "receiver %s: cannot start its thread", def->name);
        nla__recv_free(r);
        return NULL;
    }
    r->started = 1;
    return r;
}

void nla__recv_push(nla_recv_t *r, nla_note_t *n)
{
    nla_note_t *dropped = NULL;
    pthread_mutex_lock(&r->mu);
    if (r->n >= r->def.queue) { /* the oldest that is not being attempted */
        nla_note_t **pp = &r->head;
        if (*pp == r->busy) pp = &(*pp)->next;
        if (*pp) {
            dropped = *pp;
            *pp = dropped->next;
            if (r->tail == dropped) r->tail = NULL;
            for (nla_note_t *t = r->head; t; t = t->next) r->tail = t;
            r->n--;
            r->c.dropped++;
        }
    }
    NL__SQ_APPEND(r->head, r->tail, n);
    r->n++;
    r->changed = 1;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (dropped) {
        pthread_mutex_lock(&r->mu);
        note_done(r, dropped); /* its resolves still end the refresh of those alerts */
        pthread_mutex_unlock(&r->mu);
        note_line(r, "nl.notify.dropped", NL_LVL_ERROR, dropped, "queue full", -1);
        nla__note_free(dropped);
    }
}

int nla__recv_drain(nla_recv_t *r, double secs)
{
    struct timespec dl = nl__deadline_s(CLOCK_REALTIME, secs);
    pthread_mutex_lock(&r->mu);
    while (r->head && pthread_cond_timedwait(&r->idle, &r->mu, &dl) != ETIMEDOUT) {
    }
    int empty = r->head == NULL;
    pthread_mutex_unlock(&r->mu);
    return empty;
}

nla_note_t *nla__recv_stop(nla_recv_t *r)
{
    if (r->started) {
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        r->abort = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->th, NULL);
        r->started = 0;
    }
    nla_note_t *q = r->head;
    r->head = r->tail = NULL;
    r->n = 0;
    return q;
}

void nla__recv_each(nla_recv_t *r, void (*fn)(void *ctx, const nla_note_t *n), void *ctx)
{
    pthread_mutex_lock(&r->mu);
    for (nla_note_t *n = r->head; n; n = n->next) fn(ctx, n);
    pthread_mutex_unlock(&r->mu);
}

int nla__recv_changed(nla_recv_t *r)
{
    pthread_mutex_lock(&r->mu);
    int c = r->changed;
    r->changed = 0;
    pthread_mutex_unlock(&r->mu);
    return c;
}

void nla__recv_counts(nla_recv_t *r, nla_recv_counts_t *c)
{
    pthread_mutex_lock(&r->mu);
    *c = r->c;
    c->queued = r->n;
    pthread_mutex_unlock(&r->mu);
}

const char *nla__recv_name(const nla_recv_t *r) { return r->def.name; }

int nla__recv_is_am(const nla_recv_t *r) { return r->type == R_AM; }

void nla__recv_seed(nla_recv_t *r, const char *entries, size_t len)
{
    if (!r->am) return;
    pthread_mutex_lock(&r->mu);
    if (nla__am_set_apply(r->am, entries, len) && r->diag)
        fprintf(r->diag, "nl-detect: receiver %s: out of memory keeping its firing alerts\n",
                r->def.name);
    r->refresh_at = 0; /* now: Alertmanager may have let them go while nl-detect was down */
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

void nla__recv_free(nla_recv_t *r)
{
    if (!r) return;
    nla_note_t *q = nla__recv_stop(r);
    while (q) {
        nla_note_t *nx = q->next;
        nla__note_free(q);
        q = nx;
    }
    if (r->log) nl_close(r->log);
    nla__am_set_free(r->am);
    free(r->post_url);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    pthread_cond_destroy(&r->idle);
    free(r);
}
