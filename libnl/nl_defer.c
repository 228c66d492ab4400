/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_defer.c — the deferred write path (see nl_defer.h).
 *
 * A ring is one thread's for one log: the thread is its only producer (head), whoever
 * holds its consumer lock (cmu) its consumer (tail). Positions only grow; a record never
 * wraps (a pad record fills the end of the ring instead). Like a stage (nl_stage.c), a ring
 * has two owners, counted in refs — the log's list and the thread — and whoever lets go
 * last frees it. */
#define _GNU_SOURCE
#include "nl_defer.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_dline.h"
#include "nl_rodata.h"

enum { REC_PAD = 0, REC_EVENT = 1, REC_LINE = 2, REC_EVENT_TSC = 3 };

/* A record's head, 8-byte aligned. An event's time is microseconds since the epoch
 * (REC_EVENT), or the CPU counter's raw reading (REC_EVENT_TSC) with the generation of the
 * counter's map it was read under, turned into microseconds by the consumer (stamp_usec):
 * the map's arithmetic off the caller. An event's arguments follow (string arguments hold
 * their length, or NO_STR for NULL), then the event name (unless ev points to it) and the
 * strings, each with its NUL. A line record's bytes follow its head (len in usec). A pad
 * record is its first 8 bytes. */
typedef struct rec {
    uint32_t size; /* bytes of the record, a multiple of 8 */
    uint8_t kind;
    uint8_t level;
    uint16_t gen; /* REC_EVENT_TSC: the map's generation (nl__tsc_t.seq / 2), low 16 bits */
    int64_t usec; /* REC_EVENT_TSC: the counter */
    nl_tmpl_t *t;
    const nl_head_t *h;
    const char *ev; /* the event name, a literal of the program's (nl_rodata.h); NULL: copied */
} rec_t;

#define NO_STR NL__DLINE_NO_STR
#define RING_MIN 65536
/* A record larger than cap / REC_MAX_SHARE, or than REC_MAX, is written synchronously: a
 * ring keeps room for many, and a line made of REC_MAX bytes of strings stays well under
 * NL_LINE_MAX however its bytes are escaped, so a recorded event never turns out too long
 * once formatted (its call has already returned NL_OK). */
#define REC_MAX_SHARE 8
#define REC_MAX 65536
#define BATCH_BYTES 16384
#define LINE_ROOM 1024 /* a line is built in place when the batch has this much room left */

struct nl__dring {
    /* set when the ring is made, read by both sides: a line of its own, so that neither
     * side's writes take it from the other's cache (the consumer reads buf for every record,
     * the producer writes head for every record) */
    _Alignas(64) char *buf;
    size_t cap;
    size_t rec_max; /* the largest record it takes (rec_max()) */
    /* the producer's line */
    _Alignas(64) _Atomic uint64_t head;
    uint64_t tail_seen;       /* the producer's last look at tail */
    _Atomic(nl__defer_t *) d; /* the log it writes to; NULL once the log closed */
    const char *ev_seen[8];   /* event names seen lately (by address), and which are literals */
    uint8_t ev_ro;
    /* the consumer's line */
    _Alignas(64) _Atomic uint64_t tail;
    _Atomic int want; /* the producer asked the flusher to drain it */
    pthread_mutex_t cmu;
    nl__dline_t lines;        /* the consumer's line builder (under cmu) */
    nl__dring_t *prev, *next; /* in the list (under the list lock) */
    _Atomic int refs;
    int gone; /* the thread let go: no more records will come (under cmu) */
};

#define SLOTS 4
static _Thread_local nl__dring_t *mine[SLOTS]; /* most recently made first */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static int exit_key_ok;

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

static size_t rec_max(size_t cap)
{
    return cap / REC_MAX_SHARE < REC_MAX ? cap / REC_MAX_SHARE : REC_MAX;
}

int nl__defer_wanted(int url_mode)
{
    if (url_mode >= 0) return url_mode;
    const char *m = getenv("NL_MODE");
    if (!m || !*m || !strcmp(m, "sync")) return 0;
    if (!strcmp(m, "deferred")) return 1;
    static atomic_flag told = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&told))
        fprintf(stderr, "nlkit: NL_MODE=%s is neither sync nor deferred: logs are sync\n", m);
    return 0;
}

/* ---- consuming --------------------------------------------------------------------------- */

/* Where a drain's lines go: straight into the sink's fill buffer (held: its lock taken, by
 * nl__sink_room), at most BATCH_BYTES at a time; or, when the sink gives no room, this
 * batch of the drain's own, handed over by nl__sink_put (which drops and counts). */
typedef struct batch {
    char *p; /* NULL: not open */
    size_t len, cap;
    uint32_t lines;
    int held;
    char own[BATCH_BYTES];
} batch_t;

/* The lines so far to the sink (held: already there; else copied), the batch closed. */
static void batch_push(nl__defer_t *d, batch_t *b)
{
    if (b->held)
        nl__sink_fill(d->sink, b->len, b->lines);
    else if (b->lines)
        nl__sink_put(d->sink, b->p, b->len, b->lines);
    b->p = NULL;
    b->len = b->cap = 0;
    b->lines = 0;
    b->held = 0;
}

/* A batch with at least LINE_ROOM bytes free: the sink's room, else the drain's own. */
static void batch_open(nl__defer_t *d, batch_t *b)
{
    if (b->p) batch_push(d, b);
    size_t room;
    char *p = nl__sink_room(d->sink, LINE_ROOM, &room);
    b->held = p != NULL;
    b->p = p ? p : b->own;
    b->cap = p ? (room < BATCH_BYTES ? room : BATCH_BYTES) : sizeof b->own;
}

/* A finished line (a line record, or one built on the heap): copied into the batch when
 * it fits, else handed to the sink on its own behind the batch's lines. */
static void batch_add(nl__defer_t *d, batch_t *b, const char *p, size_t len)
{
    if (!b->p) batch_open(d, b);
    if (b->len + len > b->cap) {
        batch_push(d, b);
        nl__sink_put(d->sink, p, len, 1);
        return;
    }
    memcpy(b->p + b->len, p, len);
    b->len += len;
    b->lines++;
}

/* Counter ticks since the map's anchor (either way) to wall-clock microseconds, as
 * nl__tsc_read_at and nl__defer_event did it on the caller's thread. */
static int64_t map_usec(uint64_t tsc, uint64_t t0, uint64_t mult, int64_t n0, int64_t off)
{
    int64_t dt = (int64_t)(tsc - t0);
    int64_t ns = dt >= 0 ? n0 + (int64_t)(((unsigned __int128)dt * mult) >> 32)
                         : n0 - (int64_t)(((unsigned __int128)(0 - (uint64_t)dt) * mult) >> 32);
    return (ns + off) / 1000;
}

/* A generation's map as one drain read it last (ok: it holds one): the records of a drain
 * are nearly all of one generation, so the map is read and checked once per drain, as if
 * the drain had formatted them all at its start. */
typedef struct stamp_map {
    int ok;
    uint16_t gen;
    uint64_t t0, mult;
    int64_t n0, off;
} stamp_map_t;

/* A record's time in microseconds: a counter reading by the map of its generation, kept by
 * keep_map (and in *sm for the records after it); else (not kept yet, or no more) by the
 * live map, whose generation it is or which follows it continuously; else (the map
 * withdrawn meanwhile) the wall clock now. */
static inline int64_t stamp_usec(nl__defer_t *d, const rec_t *r, stamp_map_t *sm)
{
    if (r->kind != REC_EVENT_TSC) return r->usec;
    uint64_t tsc = (uint64_t)r->usec;
    if (__builtin_expect(sm->ok && sm->gen == r->gen, 1))
        return map_usec(tsc, sm->t0, sm->mult, sm->n0, sm->off);
    nl__defer_map_t *m = &d->maps[r->gen & (NL__DEFER_MAPS - 1)];
    uint64_t q1 = atomic_load_explicit(&m->seq, memory_order_acquire);
    uint64_t gen = atomic_load_explicit(&m->gen, memory_order_relaxed);
    uint64_t t0 = atomic_load_explicit(&m->tsc0, memory_order_relaxed);
    uint64_t mult = atomic_load_explicit(&m->mult, memory_order_relaxed);
    int64_t n0 = atomic_load_explicit(&m->ns0, memory_order_relaxed);
    int64_t off = atomic_load_explicit(&m->rt_off, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (q1 == atomic_load_explicit(&m->seq, memory_order_relaxed) && !(q1 & 1) &&
        (uint16_t)gen == r->gen && mult) {
        *sm = (stamp_map_t){1, r->gen, t0, mult, n0, off};
        return map_usec(tsc, t0, mult, n0, off);
    }
    uint64_t lim;
    for (int tries = 0; tries < 100; tries++) { /* an update lasts a few ns: try again */
        if (nl__tsc_map(&d->tsc, &t0, &mult, &lim, &n0))
            return map_usec(tsc, t0, mult, n0,
                            atomic_load_explicit(&d->rt_off_ns, memory_order_relaxed));
        if (!atomic_load_explicit(&d->tsc.mult, memory_order_relaxed)) break; /* withdrawn */
    }
    return nl_now_usec();
}

/* One event record back into nl_write's arguments, then its line by the synchronous
 * path's own code (an event name the record holds a copy of, or no memory for a plan). */
static int build_sync(nl__defer_t *d, nl_buf_t *b, int64_t usec, const rec_t *r)
{
    const nl_tmpl_t *t = r->t;
    nl_arg_t args[NL_FMT_FIELDS_MAX];
    const nl_arg_t *saved = (const nl_arg_t *)(r + 1);
    const char *s = (const char *)(saved + t->n);
    const char *event = r->ev;
    if (!event) {
        event = s;
        s += strlen(event) + 1;
    }
    for (int k = 0; k < t->n; k++) {
        args[k] = saved[k];
        if (t->f[k].type != 's') continue;
        if (saved[k].u == NO_STR) {
            args[k].s = NULL;
        } else {
            args[k].s = s;
            s += saved[k].u + 1;
        }
    }
    return d->ops->build(d->ctx, b, usec, r->level, event, r->t, args, r->h);
}

/* An event record's line, built in place at the batch's end (in the sink's own buffer: no
 * copy) unless it outgrows the room there: by the ring's line builder (nl_dline.h) when the record
 * points to its event name, else by the synchronous path's code; the same bytes either way. */
static void format_event(nl__defer_t *d, nl__dring_t *ring, batch_t *bt, const rec_t *r,
                         stamp_map_t *sm)
{
    if (!bt->p || bt->cap - bt->len < LINE_ROOM) batch_open(d, bt);
    nl_buf_t b;
    nl_buf_init(&b, bt->p + bt->len, bt->cap - bt->len);
    int64_t usec = stamp_usec(d, r, sm);
    const nl_arg_t *saved = (const nl_arg_t *)(r + 1);
    int rc = r->ev ? nl__dline_build(&ring->lines, &b, usec, r->level, r->ev, r->t, saved,
                                     (const char *)(saved + r->t->n), r->h)
                   : 1;
    if (rc == 1) rc = build_sync(d, &b, usec, r); /* b is still empty */
    if (rc != 0) {
        nl__sink_drop(d->sink, 1); /* too long, or no memory for a long line */
    } else if (!b.heap) {
        bt->len += b.len;
        bt->lines++;
    } else {
        batch_add(d, bt, b.p, b.len);
    }
    if (b.heap) nl_buf_free(&b);
}

/* Everything the ring holds, to the sink. Caller holds r->cmu. */
static void drain_ring(nl__defer_t *d, nl__dring_t *r)
{
    batch_t bt;
    bt.p = NULL;
    bt.len = bt.cap = 0;
    bt.lines = 0;
    bt.held = 0;
    stamp_map_t sm = {0};
    uint64_t tl = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t hd = atomic_load_explicit(&r->head, memory_order_acquire);
    /* read once: through r, the loop's calls would have the compiler read them again for
     * every record */
    const char *buf = r->buf;
    uint64_t mask = r->cap - 1;
    while (tl != hd) {
        const rec_t *rec = (const rec_t *)(buf + (tl & mask));
        if (rec->kind == REC_EVENT || rec->kind == REC_EVENT_TSC)
            format_event(d, r, &bt, rec, &sm);
        else if (rec->kind == REC_LINE)
            batch_add(d, &bt, (const char *)(rec + 1), (size_t)rec->usec);
        tl += rec->size;
        if (bt.len > BATCH_BYTES / 2) { /* give the producer its room back as we go */
            batch_push(d, &bt);
            atomic_store_explicit(&r->tail, tl, memory_order_release);
        }
    }
    batch_push(d, &bt);
    atomic_store_explicit(&r->tail, tl, memory_order_release);
    atomic_store_explicit(&r->want, 0, memory_order_relaxed);
}

static void ring_unref(nl__dring_t *r)
{
    if (atomic_fetch_sub(&r->refs, 1) == 1) {
        pthread_mutex_destroy(&r->cmu);
        nl__dline_free(&r->lines);
        free(r->buf);
        free(r);
    }
}

/* The thread is done with a ring: its records become lines now, before anything it
 * writes through another ring. */
static void let_go(nl__dring_t *r)
{
    pthread_mutex_lock(&r->cmu);
    nl__defer_t *d = atomic_load_explicit(&r->d, memory_order_relaxed);
    if (d) drain_ring(d, r);
    r->gone = 1;
    pthread_mutex_unlock(&r->cmu);
    ring_unref(r);
}

static void on_thread_exit(void *unused)
{
    (void)unused;
    for (int i = 0; i < SLOTS; i++) {
        nl__dring_t *r = mine[i];
        mine[i] = NULL;
        if (r) let_go(r);
    }
}

static void make_exit_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

static void unlink_ring(nl__defer_t *d, nl__dring_t *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        d->head = r->next;
    if (r->next) r->next->prev = r->prev;
}

void nl__defer_drain(nl__defer_t *d)
{
    pthread_mutex_lock(&d->mu);
    for (nl__dring_t *r = d->head, *next; r; r = next) {
        next = r->next;
        pthread_mutex_lock(&r->cmu);
        drain_ring(d, r);
        int gone = r->gone;
        pthread_mutex_unlock(&r->cmu);
        if (gone) {
            unlink_ring(d, r);
            ring_unref(r);
        }
    }
    pthread_mutex_unlock(&d->mu);
}

/* ---- producing --------------------------------------------------------------------------- */

static nl__dring_t *ring_new(nl__defer_t *d)
{
    pthread_once(&exit_once, make_exit_key);
    if (!exit_key_ok || pthread_setspecific(exit_key, &mine[0]) != 0) return NULL;
    nl__dring_t *r = aligned_alloc(64, sizeof *r);
    char *buf = malloc(d->cap);
    if (!r || !buf) {
        free(r);
        free(buf);
        return NULL;
    }
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->cap = d->cap;
    r->rec_max = rec_max(d->cap);
    nl__dline_init(&r->lines);
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->want, 0);
    atomic_init(&r->d, d);
    atomic_init(&r->refs, 2);
    pthread_mutex_init(&r->cmu, NULL);
    pthread_mutex_lock(&d->mu);
    r->next = d->head;
    if (d->head) d->head->prev = r;
    d->head = r;
    pthread_mutex_unlock(&d->mu);
    if (mine[SLOTS - 1]) let_go(mine[SLOTS - 1]); /* a fifth log: evict */
    memmove(&mine[1], &mine[0], (SLOTS - 1) * sizeof mine[0]);
    mine[0] = r;
    return r;
}

/* The calling thread's ring for d when it is not the first of its slots: found in the
 * others (and moved first), or made (NULL when memory is short). */
static __attribute__((noinline)) nl__dring_t *my_ring_slow(nl__defer_t *d)
{
    for (int i = 0; i < SLOTS; i++) {
        nl__dring_t *r = mine[i];
        if (!r) continue;
        nl__defer_t *at = atomic_load_explicit(&r->d, memory_order_relaxed);
        if (at == d) {
            memmove(&mine[1], &mine[0], (size_t)i * sizeof mine[0]);
            mine[0] = r;
            return r;
        }
        if (!at) { /* its log closed: tidy the slot */
            mine[i] = NULL;
            let_go(r);
        }
    }
    return ring_new(d);
}

/* The calling thread's ring for d: the first of its slots, the log it wrote to last. */
static inline nl__dring_t *my_ring(nl__defer_t *d)
{
    nl__dring_t *r = mine[0];
    if (__builtin_expect(r && atomic_load_explicit(&r->d, memory_order_relaxed) == d, 1)) return r;
    return my_ring_slow(d);
}

/* The thread drains its own ring (a full ring, or before a synchronous write). */
static void drain_mine(nl__defer_t *d, nl__dring_t *r)
{
    pthread_mutex_lock(&r->cmu);
    drain_ring(d, r);
    pthread_mutex_unlock(&r->cmu);
}

/* A full ring: until the consumer has freed the ring up to want_tail. If no one is
 * consuming it, the thread formats its records itself; if the flusher is (it frees the
 * ring batch by batch), the thread waits for it rather than queueing behind its lock. */
static void wait_room(nl__defer_t *d, nl__dring_t *r, uint64_t want_tail)
{
    for (int spins = 0;; spins++) {
        if (pthread_mutex_trylock(&r->cmu) == 0) {
            drain_ring(d, r);
            pthread_mutex_unlock(&r->cmu);
        }
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (r->tail_seen >= want_tail) return;
        if (spins < 100) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();
        }
    }
}

/* Room for a record of `need` bytes (a multiple of 8, at most r->rec_max) when the ring
 * is not yet half full and the record fits before its end; reserve() otherwise. */
static __attribute__((noinline)) char *reserve_slow(nl__defer_t *d, nl__dring_t *r, size_t need,
                                                    uint64_t *end)
{
    uint64_t hd = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t off = (size_t)(hd & (r->cap - 1));
    size_t pad = r->cap - off < need ? r->cap - off : 0;
    if (hd + pad + need - r->tail_seen > r->cap / 2) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (hd + pad + need - r->tail_seen > r->cap) {
            wait_room(d, r, hd + pad + need - r->cap);
        } else if (hd + pad + need - r->tail_seen > r->cap / 2 &&
                   !atomic_load_explicit(&r->want, memory_order_relaxed)) {
            atomic_store_explicit(&r->want, 1, memory_order_relaxed);
            if (!d->ops->kick(d->ctx)) /* busy: ask again on the next record */
                atomic_store_explicit(&r->want, 0, memory_order_relaxed);
        }
    }
    if (pad) {
        rec_t *p = (rec_t *)(r->buf + off);
        p->size = (uint32_t)pad;
        p->kind = REC_PAD;
        hd += pad;
        off = 0;
    }
    *end = hd + need;
    return r->buf + off;
}

/* Room for a record of `need` bytes (a multiple of 8, at most r->rec_max): its address,
 * with a pad record laid before it if it would have crossed the ring's end; the caller
 * publishes it with publish(). Past half full the flusher is asked to drain; at full,
 * wait_room. The usual case, a ring less than half full, inline: two tests. */
static inline char *reserve(nl__defer_t *d, nl__dring_t *r, size_t need, uint64_t *end)
{
    uint64_t hd = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t off = (size_t)(hd & (r->cap - 1));
    if (__builtin_expect(off + need <= r->cap && hd + need - r->tail_seen <= r->cap / 2, 1)) {
        *end = hd + need;
        return r->buf + off;
    }
    return reserve_slow(d, r, need, end);
}

static inline void publish(nl__dring_t *r, uint64_t end)
{
    atomic_store_explicit(&r->head, end, memory_order_release);
}

/* Whether the destination takes lines now, and the program is not exiting; if not, the
 * thread's records go out first and the caller writes synchronously (nl_write then returns
 * the sink's verdict at once; at exit, the line goes out at once). */
static int sink_ok(nl__defer_t *d)
{
    return atomic_load_explicit(&d->sink->active, memory_order_relaxed) &&
           !atomic_load_explicit(&d->sink->stalled, memory_order_relaxed) &&
           !atomic_load_explicit(&d->sink->exiting, memory_order_relaxed);
}

/* Whether the event name's text may be pointed to rather than copied: a literal of the
 * program's (its text never changes), remembered by address in the ring's few slots. */
static inline int ev_literal(nl__dring_t *r, const char *event)
{
    unsigned slot = (unsigned)((uintptr_t)event >> 3 ^ (uintptr_t)event >> 6) & 7, bit = 1u << slot;
    if (event != r->ev_seen[slot]) {
        r->ev_seen[slot] = event;
        r->ev_ro =
            (uint8_t)(nl__rodata_holds(event, strlen(event)) ? r->ev_ro | bit : r->ev_ro & ~bit);
    }
    return (r->ev_ro & bit) != 0;
}

/* The event's record (nl__defer_event_at), inline in both callers. It follows the
 * template's recipe (nl_fmt.h): the argument slots copied whole, then each string of
 * str_mask measured once and copied once. */
static inline __attribute__((always_inline)) int record(nl__defer_t *d, int64_t usec, int kind,
                                                        unsigned gen, int level, const char *event,
                                                        int ev_kept, nl_tmpl_t *t,
                                                        const nl_arg_t *args, const nl_head_t *h)
{
    nl__dring_t *r = my_ring(d);
    if (!r) return 0;
    if (!sink_ok(d)) {
        drain_mine(d, r);
        return 0;
    }
    size_t elen = ev_kept || ev_literal(r, event) ? 0 : strlen(event) + 1;
    size_t slen[NL_FMT_FIELDS_MAX];
    size_t strs = 0;
    for (uint64_t m = t->str_mask; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        if (args[k].s) strs += (slen[k] = strlen(args[k].s)) + 1;
    }
    int n = t->n;
    size_t need = round8(sizeof(rec_t) + (size_t)n * sizeof(nl_arg_t) + elen + strs);
    if (__builtin_expect(need > r->rec_max, 0)) {
        drain_mine(d, r);
        return 0;
    }
    uint64_t end;
    rec_t *rec = (rec_t *)reserve(d, r, need, &end);
    rec->size = (uint32_t)need;
    rec->kind = (uint8_t)kind;
    rec->level = (uint8_t)level;
    rec->gen = (uint16_t)gen;
    rec->usec = usec;
    rec->t = t;
    rec->h = h;
    nl_arg_t *saved = (nl_arg_t *)(rec + 1);
    char *s = (char *)(saved + n);
    for (int k = 0; k < n; k++) saved[k] = args[k];
    if (!elen) {
        rec->ev = event;
    } else {
        rec->ev = NULL;
        memcpy(s, event, elen);
        s += elen;
    }
    for (uint64_t m = t->str_mask; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        if (!args[k].s) {
            saved[k].u = NO_STR;
        } else {
            saved[k].u = slen[k];
            memcpy(s, args[k].s, slen[k] + 1);
            s += slen[k] + 1;
        }
    }
    publish(r, end);
    return 1;
}

int nl__defer_event_at(nl__defer_t *d, int64_t usec, int level, const char *event, int ev_kept,
                       nl_tmpl_t *t, const nl_arg_t *args, const nl_head_t *h)
{
    return record(d, usec, REC_EVENT, 0, level, event, ev_kept, t, args, h);
}

int nl__defer_event(nl__defer_t *d, int level, const char *event, int ev_kept, nl_tmpl_t *t,
                    const nl_arg_t *args, const nl_head_t *h)
{
    /* the counter and its map's generation, the map's arithmetic left to the consumer: a
     * stable generation (even seq) whose map keep_map has vouched for up to tsc_until */
    uint64_t s = atomic_load_explicit(&d->tsc.seq, memory_order_acquire);
    uint64_t tsc = nl__tsc_counter();
    int64_t stamp = (int64_t)tsc;
    int kind = REC_EVENT_TSC;
    if (__builtin_expect((s & 1) || tsc > atomic_load_explicit(&d->tsc_until, memory_order_relaxed),
                         0)) { /* no map to vouch for it: the time now, as a sync call reads it */
        int64_t ns;
        stamp = nl__tsc_now(&d->tsc, &ns)
                    ? (ns + atomic_load_explicit(&d->rt_off_ns, memory_order_relaxed)) / 1000
                    : nl_now_usec();
        kind = REC_EVENT;
    }
    return record(d, stamp, kind, (unsigned)(s >> 1), level, event, ev_kept, t, args, h);
}

int nl__defer_line(nl__defer_t *d, const char *line, size_t len)
{
    nl__dring_t *r = my_ring(d);
    if (!r) return 0;
    size_t need = round8(sizeof(rec_t) + len);
    if (!sink_ok(d) || need > r->rec_max) {
        drain_mine(d, r);
        return 0;
    }
    uint64_t end;
    rec_t *rec = (rec_t *)reserve(d, r, need, &end);
    rec->size = (uint32_t)need;
    rec->kind = (uint8_t)REC_LINE;
    rec->usec = (int64_t)len;
    memcpy(rec + 1, line, len);
    publish(r, end);
    return 1;
}

/* ---- the log's side ---------------------------------------------------------------------- */

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The wall clock's offset from the monotonic one, read between two monotonic readings
 * (their mean, so the offset is off by at most half the time the three reads took). */
static void sample_offset(nl__defer_t *d)
{
    int64_t m1 = clock_ns(CLOCK_MONOTONIC);
    int64_t rt = clock_ns(CLOCK_REALTIME);
    int64_t m2 = clock_ns(CLOCK_MONOTONIC);
    atomic_store_explicit(&d->rt_off_ns, rt - (m1 + (m2 - m1) / 2), memory_order_relaxed);
}

/* After an update: the live map, with the wall-clock offset, kept under its generation
 * for the records read under it (the consumer may come after the next update), and the
 * counter reading up to which writers may record raw readings (a map older than
 * NL_TSC_STALE_NS is not relied on: past it, writers read the time themselves). The one
 * updater's (the flusher's tick; nl__defer_new before it runs). */
static void keep_map(nl__defer_t *d)
{
    nl__tsc_t *c = &d->tsc;
    uint64_t s = atomic_load_explicit(&c->seq, memory_order_relaxed);
    uint64_t mult = atomic_load_explicit(&c->mult, memory_order_relaxed);
    if ((s & 1) || !mult) {
        atomic_store_explicit(&d->tsc_until, 0, memory_order_relaxed);
        return;
    }
    uint64_t t0 = atomic_load_explicit(&c->tsc0, memory_order_relaxed);
    nl__defer_map_t *m = &d->maps[(s >> 1) & (NL__DEFER_MAPS - 1)];
    uint64_t q = atomic_load_explicit(&m->seq, memory_order_relaxed) | 1; /* odd: rewriting */
    atomic_store_explicit(&m->seq, q, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&m->gen, s >> 1, memory_order_relaxed);
    atomic_store_explicit(&m->tsc0, t0, memory_order_relaxed);
    atomic_store_explicit(&m->mult, mult, memory_order_relaxed);
    atomic_store_explicit(&m->ns0, atomic_load_explicit(&c->ns0, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&m->rt_off, atomic_load_explicit(&d->rt_off_ns, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&m->seq, q + 1, memory_order_release);
    atomic_store_explicit(&d->tsc_until, t0 + atomic_load_explicit(&c->lim, memory_order_relaxed),
                          memory_order_release);
}

nl__defer_t *nl__defer_new(const nl__defer_ops_t *ops, void *ctx, nl_sink_t *sink,
                           size_t ring_bytes)
{
    nl__defer_t *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    size_t cap = RING_MIN;
    while (cap < ring_bytes && cap < ((size_t)1 << 30)) cap <<= 1;
    d->cap = cap;
    d->sink = sink;
    d->ops = ops;
    d->ctx = ctx;
    pthread_mutex_init(&d->mu, NULL);
    sample_offset(d);
    nl__tsc_init(&d->tsc, nl__tsc_usable());
    nl__tsc_update(&d->tsc); /* its first sample now: the rate from the flusher's next wake */
    keep_map(d);
    return d;
}

int nl__defer_calibrate_due(nl__defer_t *d, struct timespec *due)
{
    int64_t ns = nl__tsc_calibrate_at(&d->tsc);
    /* passed already: a tick took no good sample then; the flusher's own period next */
    if (!ns || ns <= clock_ns(CLOCK_MONOTONIC)) return 0;
    due->tv_sec = (time_t)(ns / 1000000000);
    due->tv_nsec = (long)(ns % 1000000000);
    return 1;
}

void nl__defer_tick(nl__defer_t *d)
{
    sample_offset(d);
    nl__tsc_update(&d->tsc);
    keep_map(d);
}

void nl__defer_close(nl__defer_t *d)
{
    pthread_mutex_lock(&d->mu);
    for (nl__dring_t *r = d->head, *next; r; r = next) {
        next = r->next;
        pthread_mutex_lock(&r->cmu);
        drain_ring(d, r);
        atomic_store(&r->d, NULL);
        pthread_mutex_unlock(&r->cmu);
        ring_unref(r);
    }
    d->head = NULL;
    pthread_mutex_unlock(&d->mu);
    for (int i = 0; i < SLOTS; i++) { /* the closing thread's own are freed now */
        nl__dring_t *r = mine[i];
        if (r && !atomic_load(&r->d)) {
            mine[i] = NULL;
            let_go(r);
        }
    }
    pthread_mutex_destroy(&d->mu);
    free(d);
}

void nl__defer_fork_prepare(nl__defer_t *d)
{
    pthread_mutex_lock(&d->mu);
    for (nl__dring_t *r = d->head; r; r = r->next) pthread_mutex_lock(&r->cmu);
}

void nl__defer_fork_parent(nl__defer_t *d)
{
    for (nl__dring_t *r = d->head; r; r = r->next) pthread_mutex_unlock(&r->cmu);
    pthread_mutex_unlock(&d->mu);
}

void nl__defer_fork_child(nl__defer_t *d)
{
    for (nl__dring_t *r = d->head; r; r = r->next) {
        atomic_store(&r->head, 0);
        atomic_store(&r->tail, 0);
        atomic_store(&r->want, 0);
        r->tail_seen = 0;
        int ours = 0;
        for (int i = 0; i < SLOTS; i++) ours |= mine[i] == r;
        if (!ours && !r->gone) { /* its thread is not here to let go: the next drain frees it */
            r->gone = 1;
            atomic_fetch_sub(&r->refs, 1);
        }
    }
    nl__defer_fork_parent(d);
}
