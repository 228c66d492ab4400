/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_feed.c — the reading thread (see nll_feed.h). */
#include "nll_feed.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_clock.h"
#include "nl_reader.h"
#include "nl_replay.h"

#define CHUNK_LINES 4096 /* lines per chunk */
#define IN_FLIGHT 4      /* chunks handed over and not yet given back, at most */
#define LIVE_WAIT_MS 100 /* a part-filled chunk of live input waits no longer than this */

struct nll_feed {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t ready; /* a chunk was queued */
    pthread_cond_t room;  /* a chunk was given back, or stop */
    nll_chunk_t *head, *tail, *free_list;
    int in_flight;
    atomic_int stop;
    int ended; /* the thread has queued its last chunk */
    int fd, live;
    uint64_t off;
    long lineno;
    unsigned flags;
    const char *summarize; /* --summarize's rules, or NULL */
    /* the replayer's summaries go into the chunk being filled (emit) */
    nll_chunk_t *cur;
    long cur_lineno;
    uint64_t cur_off;
    nl_rec_t srec;
    int oom;
};

/* A chunk to fill: a given-back one, or a new one once fewer than IN_FLIGHT are out. */
static nll_chunk_t *take(nll_feed_t *f)
{
    pthread_mutex_lock(&f->mu);
    while (f->in_flight >= IN_FLIGHT && !atomic_load(&f->stop)) pthread_cond_wait(&f->room, &f->mu);
    nll_chunk_t *c = f->free_list;
    if (c) f->free_list = c->next;
    f->in_flight++;
    pthread_mutex_unlock(&f->mu);
    if (!c) c = calloc(1, sizeof *c);
    if (c) {
        c->next = NULL;
        c->n = 0;
        c->recs.len = c->bads.len = 0;
        c->end = NLL_FEED_MORE;
        c->partial = 0;
    }
    return c;
}

static void queue(nll_feed_t *f, nll_chunk_t *c)
{
    pthread_mutex_lock(&f->mu);
    if (f->tail)
        f->tail->next = c;
    else
        f->head = c;
    f->tail = c;
    if (c->end != NLL_FEED_MORE) f->ended = 1;
    pthread_cond_signal(&f->ready);
    pthread_mutex_unlock(&f->mu);
}

/* Append n bytes to a batch. */
static int grow_put(nll_batch_t *b, const void *p, size_t n)
{
    if (nll_batch_reserve(b, n)) return -1;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

static int add_line(nll_chunk_t *c, long lineno, uint64_t off, int kind)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : CHUNK_LINES;
        nll_line_t *l = realloc(c->lines, cap * sizeof *l);
        if (!l) return -1;
        c->lines = l;
        c->cap = cap;
    }
    c->lines[c->n++] = (nll_line_t){lineno, off, kind};
    return 0;
}

static int add_bad(nll_chunk_t *c, const nl_perr_t *pe, const char *line, size_t len)
{
    nll_bad_t b = {*pe, (uint32_t)len};
    return grow_put(&c->bads, &b, sizeof b) || (len && grow_put(&c->bads, line, len)) ? -1 : 0;
}

/* A summary line from the replayer: parsed into the chunk being filled, as an event line
 * at the position before the line that closed its interval. */
static void emit_summary(void *ctx, const char *line, size_t len)
{
    nll_feed_t *f = ctx;
    nl_perr_t pe;
    nll_chunk_t *c = f->cur;
    if (!c) return;
    int k = nll_parse_line(&f->srec, f->flags & ~(unsigned)NL_PARSE_NETLOGGER, line, len,
                           f->cur_lineno, &c->recs, &pe);
    if (k == NL_ENOMEM)
        f->oom = 1;
    else if (k < 0)
        f->oom |= add_bad(c, &pe, line, len);
    if (k != 0 && add_line(c, f->cur_lineno, f->cur_off, k > 0 ? NLL_L_EVENT : NLL_L_BAD))
        f->oom = 1;
}

/* Read, parse, hand over; the last chunk carries why it ended. Out of memory ends it as a
 * read error (ENOMEM), never by dropping lines. */
static void *run(void *arg)
{
    nll_feed_t *f = arg;
    nl__reader_t rd;
    nl_rec_t rec;
    nl_rec_init(&rec);
    nl_rec_init(&f->srec);
    nl__replay_t *rp = f->summarize ? nl__replay_new(f->summarize, emit_summary, f) : NULL;
    nll_chunk_t *c = take(f);
    int end = NLL_FEED_MORE, err_no = 0;
    if (!c || nl__reader_init(&rd, f->fd, f->off) || (f->summarize && !rp)) {
        free(c);
        nl__replay_free(rp);
        nl_rec_free(&f->srec);
        c = calloc(1, sizeof *c); /* small: must not fail in practice */
        if (c) {
            c->end = NLL_FEED_ERROR;
            c->err_no = ENOMEM;
            queue(f, c);
        }
        nl_rec_free(&rec);
        return NULL;
    }
    rd.lineno = f->lineno;
    rd.hold_partial = !f->live; /* a file's last line may still be being written */
    double first = 0;           /* when the chunk's first line arrived (live input) */
    while (end == NLL_FEED_MORE) {
        if (atomic_load(&f->stop)) {
            end = NLL_FEED_STOPPED;
            break;
        }
        const char *line;
        size_t len;
        uint64_t before = rd.off; /* where the line begins */
        int r = nl__reader_next(&rd, f->live ? LIVE_WAIT_MS : -1, &line, &len), bad = 0;
        nl_perr_t pe;
        int folded = 0;
        if (r == NL_RD_LINE && rp) { /* --summarize: the replayer first */
            f->cur = c;              /* its summaries come after the line before */
            f->cur_lineno = rd.lineno - 1;
            f->cur_off = before;
            int k = nl_parse(&rec, line, len, rd.lineno, f->flags, &pe);
            folded = k > 0 && nl__replay_line(rp, &rec) != NL_REPLAY_KEEP;
            if (folded) bad = add_line(c, rd.lineno, rd.off, NLL_L_FOLDED);
            if (f->oom) {
                end = NLL_FEED_ERROR;
                err_no = ENOMEM;
                break;
            }
        }
        if (r == NL_RD_LINE && !folded) {
            int k = nll_parse_line(&rec, f->flags, line, len, rd.lineno, &c->recs, &pe);
            if (k == NL_ENOMEM) {
                end = NLL_FEED_ERROR;
                err_no = ENOMEM;
                break;
            }
            bad = k < 0 ? add_bad(c, &pe, line, len) : 0;
            bad |= add_line(c, rd.lineno, rd.off,
                            k > 0    ? NLL_L_EVENT
                            : k == 0 ? NLL_L_BLANK
                                     : NLL_L_BAD);
        } else if (r == NL_RD_TOOLONG) {
            pe = (nl_perr_t){.line = rd.lineno, .col = 1, .code = NL_ETOOBIG};
            strcpy(pe.msg, "line longer than NL_LINE_MAX (1 MiB), skipped unread");
            bad = add_bad(c, &pe, NULL, 0) | add_line(c, rd.lineno, rd.off, NLL_L_BAD);
        } else if (r == NL_RD_EOF) {
            end = NLL_FEED_EOF;
        } else if (r == NL_RD_ERR) {
            end = NLL_FEED_ERROR;
            err_no = errno;
        }
        if (bad) {
            end = NLL_FEED_ERROR;
            err_no = ENOMEM;
        }
        if (f->live && c->n && !first) first = nl__mono_s();
        int full = c->n >= CHUNK_LINES,
            waited = f->live && c->n && (r == NL_RD_AGAIN || nl__mono_s() - first >= 0.1);
        if (end == NLL_FEED_MORE && (full || waited)) {
            queue(f, c);
            first = 0;
            if (!(c = take(f))) {
                end = NLL_FEED_ERROR;
                err_no = ENOMEM;
            }
        }
    }
    if (!c) c = calloc(1, sizeof *c);
    if (c && rp) { /* the running intervals, partial, after the last line */
        f->cur = c;
        f->cur_lineno = rd.lineno;
        f->cur_off = rd.off;
        nl__replay_end(rp);
        if (f->oom && end != NLL_FEED_ERROR) end = NLL_FEED_ERROR, err_no = ENOMEM;
    }
    nl__replay_free(rp);
    nl_rec_free(&f->srec);
    if (c) {
        c->end = end;
        c->err_no = err_no;
        c->partial = end == NLL_FEED_EOF ? rd.partial : 0;
        queue(f, c);
    }
    nl__reader_free(&rd);
    nl_rec_free(&rec);
    return NULL;
}

nll_feed_t *nll_feed_start(int fd, uint64_t off, long lineno, unsigned parse_flags, int live,
                           const char *summarize)
{
    nll_feed_t *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    *f = (nll_feed_t){.fd = fd,
                      .live = live,
                      .off = off,
                      .lineno = lineno,
                      .flags = parse_flags,
                      .summarize = summarize};
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->ready, NULL);
    pthread_cond_init(&f->room, NULL);
    atomic_init(&f->stop, 0);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old); /* the thread inherits this mask */
    int rc = pthread_create(&f->thread, NULL, run, f);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        pthread_mutex_destroy(&f->mu);
        pthread_cond_destroy(&f->ready);
        pthread_cond_destroy(&f->room);
        free(f);
        return NULL;
    }
    return f;
}

nll_chunk_t *nll_feed_next(nll_feed_t *f, int timeout_ms)
{
    struct timespec until;
    if (timeout_ms >= 0) until = nl__deadline_ms(CLOCK_REALTIME, timeout_ms);
    pthread_mutex_lock(&f->mu);
    while (!f->head) {
        if (timeout_ms < 0)
            pthread_cond_wait(&f->ready, &f->mu);
        else if (pthread_cond_timedwait(&f->ready, &f->mu, &until) == ETIMEDOUT)
            break;
    }
    nll_chunk_t *c = f->head;
    if (c && !(f->head = c->next)) f->tail = NULL;
    pthread_mutex_unlock(&f->mu);
    return c;
}

void nll_feed_done(nll_feed_t *f, nll_chunk_t *c)
{
    pthread_mutex_lock(&f->mu);
    c->next = f->free_list;
    f->free_list = c;
    f->in_flight--;
    pthread_cond_signal(&f->room);
    pthread_mutex_unlock(&f->mu);
}

void nll_feed_stop(nll_feed_t *f)
{
    pthread_mutex_lock(&f->mu);
    atomic_store(&f->stop, 1);
    pthread_cond_broadcast(&f->room);
    pthread_mutex_unlock(&f->mu);
}

static void free_chunks(nll_chunk_t *c)
{
    while (c) {
        nll_chunk_t *next = c->next;
        free(c->lines);
        nll_batch_free(&c->recs);
        nll_batch_free(&c->bads);
        free(c);
        c = next;
    }
}

void nll_feed_free(nll_feed_t *f)
{
    if (!f) return;
    nll_feed_stop(f);
    /* the thread may be waiting for room: give back what comes until its last chunk */
    for (;;) {
        nll_chunk_t *c = nll_feed_next(f, 50);
        if (c) {
            nll_feed_done(f, c);
            continue;
        }
        pthread_mutex_lock(&f->mu);
        int over = f->ended && !f->head;
        pthread_mutex_unlock(&f->mu);
        if (over) break;
    }
    pthread_join(f->thread, NULL);
    for (nll_chunk_t *c; (c = nll_feed_next(f, 0));) nll_feed_done(f, c);
    free_chunks(f->free_list);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->ready);
    pthread_cond_destroy(&f->room);
    free(f);
}
