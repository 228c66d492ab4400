/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_fork.c — the summarizer across fork() (see libnl/nl_fork.h). Writers fold under the
 * identities' spin locks, which the handlers do not take: in the child no other thread
 * is left to hold one, and every identity starts afresh there anyway, so a lock held (or a
 * sum half-updated) at the moment of the fork is simply reset. */
#include "nls_int.h"

void nls_fork_prepare(nls_t *s)
{
    pthread_mutex_lock(&s->cfg_mu);
    pthread_mutex_lock(&s->emit_mu);
    pthread_mutex_lock(&s->ins_mu);
}

void nls_fork_parent(nls_t *s)
{
    pthread_mutex_unlock(&s->ins_mu);
    pthread_mutex_unlock(&s->emit_mu);
    pthread_mutex_unlock(&s->cfg_mu);
}

void nls_fork_child(nls_t *s)
{
    int64_t now = nls__now(s);
    for (size_t i = 0; i < NLS_SLOTS; i++) {
        uint64_t tag = atomic_load_explicit(&s->tag[i], memory_order_relaxed);
        if (tag == NLS_TAG_EMPTY || tag == NLS_TAG_FREE) continue;
        nls_ident_t *e = atomic_load_explicit(&s->ent[i], memory_order_relaxed);
        const nls_res_t *r = atomic_load_explicit(&e->act->res, memory_order_relaxed);
        /* the parent's intervals are the parent's to write: drop them, and free their
         * histograms unless a writer held the identity at the fork (it may have been
         * widening one: then its storage is left, a few KiB at most) */
        if (!atomic_load_explicit(&e->lock, memory_order_relaxed)) {
            nls__acc_free(&e->cur);
            if (e->done_full) nls__acc_free(&e->done.acc);
        } else {
            e->dd_body = NULL; /* perhaps mid-realloc: left, not trusted */
            e->dd_cap = 0;
        }
        nls__fold_init(e, now, r->interval_ns);
        atomic_store_explicit(&e->lock, 0, memory_order_relaxed);
    }
    atomic_store(&s->folded, 0);
    atomic_store(&s->summaries, 0);
    atomic_store(&s->overflow, 0);
    atomic_store(&s->orphans, 0);
    atomic_store(&s->evicted, 0);
    s->overflow_reported = 0;
    nls_fork_parent(s);
}
