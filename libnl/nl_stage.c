/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_stage.c — per-thread staging of a stream sink's lines (see nl_stage.h).
 *
 * A stage is shared by two owners, counted in refs: the sink's list (until the stage is
 * drained after its thread let go, or the sink closes) and the thread (until it exits, or
 * evicts the stage from its few slots, or finds it detached). Whoever lets go last frees
 * it, so neither side ever touches freed memory. */
#include "nl_stage.h"

#include <stdlib.h>
#include <string.h>

#include "nl_list.h"

struct nl_stage {
    pthread_mutex_t mu;
    _Atomic(nl_stages_t *) ss; /* the list it is on; NULL once the sink closed */
    nl_stage_t *prev, *next;   /* in the list (under the list lock) */
    _Atomic int refs;
    int gone;                 /* the thread let go: no more lines will come (under mu) */
    _Atomic uint64_t written; /* lines accepted; only the owning thread stores it */
    size_t len, cap;
    uint32_t lines;
    char buf[];
};

#define NL_STAGE_SLOTS 4
static _Thread_local nl_stage_t *mine[NL_STAGE_SLOTS]; /* most recently made first */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static int exit_key_ok;

static void stage_unref(nl_stage_t *st)
{
    if (atomic_fetch_sub(&st->refs, 1) == 1) {
        pthread_mutex_destroy(&st->mu);
        free(st);
    }
}

void nl__stage_handoff(nl_stage_t *st)
{
    nl_stages_t *ss = atomic_load_explicit(&st->ss, memory_order_relaxed);
    if (st->len && ss) ss->put(ss->ctx, st->buf, st->len, st->lines);
    st->len = 0;
    st->lines = 0;
}

/* The thread is done with a stage: its lines go to the sink now, not at the next drain,
 * so they keep their place before anything the thread writes through another stage. */
static void let_go(nl_stage_t *st)
{
    pthread_mutex_lock(&st->mu);
    nl__stage_handoff(st);
    nl_stages_t *ss = atomic_load_explicit(&st->ss, memory_order_relaxed);
    if (ss && !st->gone) atomic_fetch_sub(&ss->writers, 1); /* ss lives while st is on it */
    st->gone = 1;
    pthread_mutex_unlock(&st->mu);
    stage_unref(st);
}

static void on_thread_exit(void *unused)
{
    (void)unused;
    for (int i = 0; i < NL_STAGE_SLOTS; i++) {
        nl_stage_t *st = mine[i];
        mine[i] = NULL;
        if (st) let_go(st);
    }
}

static void make_exit_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

void nl__stages_init(nl_stages_t *ss, size_t cap, nl_stage_put_fn put, void *ctx)
{
    pthread_mutex_init(&ss->mu, NULL);
    ss->head = ss->tail = NULL;
    ss->cap = cap;
    ss->put = put;
    ss->ctx = ctx;
    atomic_init(&ss->written_gone, 0);
    atomic_init(&ss->writers, 0);
}

int nl__stages_writers(nl_stages_t *ss)
{
    return atomic_load_explicit(&ss->writers, memory_order_relaxed);
}

static nl_stage_t *stage_new(nl_stages_t *ss)
{
    pthread_once(&exit_once, make_exit_key);
    /* the key's value only has to be non-NULL for the destructor to run */
    if (!exit_key_ok || pthread_setspecific(exit_key, &mine[0]) != 0) return NULL;
    nl_stage_t *st = malloc(sizeof *st + ss->cap);
    if (!st) return NULL;
    pthread_mutex_init(&st->mu, NULL);
    atomic_init(&st->ss, ss);
    atomic_init(&st->refs, 2);
    atomic_init(&st->written, 0);
    st->gone = 0;
    st->len = 0;
    st->lines = 0;
    st->cap = ss->cap;
    pthread_mutex_lock(&ss->mu);
    NL__DL_APPEND(ss->head, ss->tail, st);
    atomic_fetch_add(&ss->writers, 1);
    pthread_mutex_unlock(&ss->mu);
    if (mine[NL_STAGE_SLOTS - 1]) let_go(mine[NL_STAGE_SLOTS - 1]); /* a fifth sink: evict */
    memmove(&mine[1], &mine[0], (NL_STAGE_SLOTS - 1) * sizeof mine[0]);
    mine[0] = st;
    return st;
}

nl_stage_t *nl__stage_lock(nl_stages_t *ss)
{
    if (!ss->cap) return NULL;
    for (int i = 0; i < NL_STAGE_SLOTS; i++) {
        nl_stage_t *st = mine[i];
        if (!st) continue;
        nl_stages_t *at = atomic_load_explicit(&st->ss, memory_order_relaxed);
        if (at == ss) {
            pthread_mutex_lock(&st->mu);
            return st; /* only nl__stages_close changes ss, and never while ss is in use */
        }
        if (!at) { /* its sink closed: tidy the slot */
            mine[i] = NULL;
            let_go(st);
        }
    }
    nl_stage_t *st = stage_new(ss);
    if (st) pthread_mutex_lock(&st->mu);
    return st;
}

void nl__stage_add(nl_stage_t *st, const char *line, size_t len)
{
    if (st->len + len > st->cap) nl__stage_handoff(st);
    memcpy(st->buf + st->len, line, len);
    st->len += len;
    st->lines++;
    atomic_store_explicit(&st->written,
                          atomic_load_explicit(&st->written, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

void nl__stage_unlock(nl_stage_t *st) { pthread_mutex_unlock(&st->mu); }

void nl__stages_drain(nl_stages_t *ss)
{
    if (!ss->cap) return;
    pthread_mutex_lock(&ss->mu);
    for (nl_stage_t *st = ss->head, *next; st; st = next) {
        next = st->next;
        pthread_mutex_lock(&st->mu);
        nl__stage_handoff(st);
        int gone = st->gone;
        pthread_mutex_unlock(&st->mu);
        if (gone) {
            NL__DL_UNLINK(ss->head, ss->tail, st);
            atomic_fetch_add(&ss->written_gone, atomic_load(&st->written));
            stage_unref(st);
        }
    }
    pthread_mutex_unlock(&ss->mu);
}

uint64_t nl__stages_written(nl_stages_t *ss)
{
    if (!ss->cap) return 0;
    pthread_mutex_lock(&ss->mu);
    uint64_t n = atomic_load(&ss->written_gone);
    for (nl_stage_t *st = ss->head; st; st = st->next)
        n += atomic_load_explicit(&st->written, memory_order_relaxed);
    pthread_mutex_unlock(&ss->mu);
    return n;
}

void nl__stages_close(nl_stages_t *ss)
{
    pthread_mutex_lock(&ss->mu);
    for (nl_stage_t *st = ss->head, *next; st; st = next) {
        next = st->next;
        pthread_mutex_lock(&st->mu);
        nl__stage_handoff(st);
        atomic_store(&st->ss, NULL);
        pthread_mutex_unlock(&st->mu);
        stage_unref(st);
    }
    ss->head = ss->tail = NULL;
    pthread_mutex_unlock(&ss->mu);
    pthread_mutex_destroy(&ss->mu);
    for (int i = 0; i < NL_STAGE_SLOTS; i++) { /* the closing thread's own are freed now */
        nl_stage_t *st = mine[i];
        if (st && !atomic_load(&st->ss)) {
            mine[i] = NULL;
            let_go(st);
        }
    }
}

void nl__stages_fork_lock(nl_stages_t *ss)
{
    pthread_mutex_lock(&ss->mu);
    for (nl_stage_t *st = ss->head; st; st = st->next) pthread_mutex_lock(&st->mu);
}

void nl__stages_fork_unlock(nl_stages_t *ss)
{
    for (nl_stage_t *st = ss->head; st; st = st->next) pthread_mutex_unlock(&st->mu);
    pthread_mutex_unlock(&ss->mu);
}

void nl__stages_fork_child(nl_stages_t *ss)
{
    atomic_store(&ss->written_gone, 0);
    int writers = 0;
    for (nl_stage_t *st = ss->head; st; st = st->next) {
        st->len = 0;
        st->lines = 0;
        atomic_store(&st->written, 0);
        int ours = 0;
        for (int i = 0; i < NL_STAGE_SLOTS; i++) ours |= mine[i] == st;
        if (!ours && !st->gone) { /* its thread is not here to let go: the next drain frees it */
            st->gone = 1;
            atomic_fetch_sub(&st->refs, 1);
        }
        writers += !st->gone;
    }
    atomic_store(&ss->writers, writers);
    nl__stages_fork_unlock(ss);
}
