/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_table.c — the bounded table of identities. Lookups take no table-wide lock: a
 * writer probes an array of 64-bit tags, locks the one entry whose tag matches and checks
 * the key under that entry's lock. Only adding an identity (first sight) and evicting one
 * (flusher) take ins_mu, so they are serialised and an identity is never added twice.
 * Slots are reused but entries are never freed before the log closes, so a writer holding
 * a stale pointer always finds memory it may lock, and the tag re-check tells it to look
 * again. */
#include <stdlib.h>
#include <string.h>

#include "nl_hash.h"
#include "nls_hot.h"
#include "nls_int.h"

static inline uint64_t want_tag(uint64_t hash) { return hash | 2u; /* never EMPTY or FREE */ }

/* Probe for (act, key). Returns the entry locked and its slot, or NULL. Also reports the
 * first reusable slot seen (for insertion). */
static nls_ident_t *probe(nls_t *s, nls_act_t *act, const char *key, size_t key_len, uint64_t tag,
                          size_t *free_slot)
{
    size_t home = (size_t)tag & (NLS_SLOTS - 1);
    *free_slot = SIZE_MAX;
    for (size_t i = 0; i < NLS_PROBE; i++) {
        size_t at = (home + i) & (NLS_SLOTS - 1);
        uint64_t t = atomic_load_explicit(&s->tag[at], memory_order_acquire);
        if (t == NLS_TAG_EMPTY) {
            if (*free_slot == SIZE_MAX) *free_slot = at;
            return NULL; /* no entry was ever placed beyond this one */
        }
        if (t == NLS_TAG_FREE) {
            if (*free_slot == SIZE_MAX) *free_slot = at;
            continue;
        }
        if (t != tag) continue;
        nls_ident_t *e = atomic_load_explicit(&s->ent[at], memory_order_acquire);
        nls__lock(&e->lock);
        if (atomic_load_explicit(&s->tag[at], memory_order_acquire) == tag && e->act == act &&
            e->key_len == key_len && nl__key_eq(e->key, key, key_len))
            return e;
        nls__unlock(&e->lock); /* evicted or reused meanwhile, or a hash collision */
    }
    return NULL;
}

/* Find or add the identity (act, key) by probing the table; returned locked. */
static nls_ident_t *ident_get(nls_t *s, nls_act_t *act, const char *key, size_t key_len,
                              size_t guid_len, uint64_t hash, int create, int64_t now)
{
    /* the activity mixed in, not just xor'ed: the keys of many activities are often the
     * same ("#", one guid), and hash ^ id would put them in two runs of neighbouring slots */
    uint64_t h = (hash ^ act->id) * 0x9e3779b97f4a7c15ull;
    uint64_t tag = want_tag(h ^ h >> 31);
    size_t slot;
    nls_ident_t *e = probe(s, act, key, key_len, tag, &slot);
    if (e || !create) return e;
    if (key_len > NLS_KEY_MAX) return NULL;
    pthread_mutex_lock(&s->ins_mu);
    e = probe(s, act, key, key_len, tag, &slot); /* another writer may have added it */
    if (!e && slot != SIZE_MAX && s->live < NLS_IDENT_MAX) {
        e = atomic_load_explicit(&s->ent[slot], memory_order_relaxed);
        if (!e) {
            /* whole cache lines of its own: a writer taking this lock must not disturb
             * lines other threads read (event-name cache entries, templates) */
            size_t size = (sizeof *e + 63) & ~(size_t)63;
            e = aligned_alloc(64, size);
            if (e) {
                memset(e, 0, size);
                atomic_store_explicit(&s->ent[slot], e, memory_order_release);
            }
        }
        if (e) {
            nls__lock(&e->lock);
            e->live = 1;
            e->slot = (uint32_t)slot;
            e->act = act;
            e->key_len = (uint16_t)key_len;
            e->guid_len = (uint16_t)guid_len;
            memcpy(e->key, key, key_len);
            nls_res_t *r = atomic_load_explicit(&act->res, memory_order_acquire);
            nls__fold_init(e, now, r->interval_ns);
            s->live++;
            atomic_store_explicit(&s->tag[slot], tag, memory_order_release);
        }
    }
    pthread_mutex_unlock(&s->ins_mu);
    return e;
}

int nls__ident_evict(nls_t *s, size_t i, nls_ident_t *e)
{
    int done = 0;
    pthread_mutex_lock(&s->ins_mu);
    nls__lock(&e->lock);
    uint64_t t = atomic_load_explicit(&s->tag[i], memory_order_relaxed);
    if (t != NLS_TAG_EMPTY && t != NLS_TAG_FREE && nls__fold_idle(e)) {
        atomic_store_explicit(&s->tag[i], NLS_TAG_FREE, memory_order_release);
        e->live = 0;
        s->live--;
        done = 1;
    }
    nls__unlock(&e->lock);
    pthread_mutex_unlock(&s->ins_mu);
    return done;
}

/* The hot cache (nls_hot.h): one per thread. */
_Thread_local nls_hot_t nls__hot[NLS_HOT];

nls_ident_t *nls__ident_get_cached(nls_t *s, nls_act_t *act, const char *key, size_t key_len,
                                   size_t guid_len, int hot_tried, int create, int64_t now)
{
    int sum = key_len && key[0] == NLS_SUM_MARK;
    nls_ident_t *e = hot_tried ? NULL : nls__hot_match(s, act, sum, 0, key, key_len);
    if (e) return e;
    e = ident_get(s, act, key, key_len, guid_len, nl__hash(key, key_len, s->seed), create, now);
    if (e) *nls__hot_at(act, sum) = (nls_hot_t){s, s->seed, act, e};
    return e;
}

void nls__table_free(nls_t *s)
{
    for (size_t i = 0; i < NLS_SLOTS; i++) {
        nls_ident_t *e = atomic_load(&s->ent[i]);
        if (!e) continue;
        nls__acc_free(&e->cur);
        if (e->done_full) nls__acc_free(&e->done.acc);
        free(e->dd_body);
        free(e);
    }
}
