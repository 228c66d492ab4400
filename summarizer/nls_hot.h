/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_hot.h — private to the summarizer: per thread, the identity used last for a few
 * activities, so a loop's pairs find theirs without building a key, hashing or probing.
 * Inline for the two hot paths (nls_event, nls_pair_event): a call and its register saves
 * cost a few percent of a summarized call. The cache itself is nls_table.c's. */
#ifndef NLKIT_NLS_HOT_H
#define NLKIT_NLS_HOT_H

#include "nl_hash.h"
#include "nls_int.h"

/* An entry is trusted only for the log it was made for (same address and same random seed,
 * so a log freed and another opened at its address misses), and only after the identity is
 * locked and found still live with the same activity and key. Indexed by activity id and
 * kind (an activity's pair and its summary each have their own). */
#define NLS_HOT 16
typedef struct {
    const nls_t *s;
    uint64_t seed;
    const nls_act_t *act;
    nls_ident_t *e;
} nls_hot_t;
extern _Thread_local nls_hot_t nls__hot[NLS_HOT] __attribute__((visibility("hidden")));

/* The cache entry of act's pairs (sum 0) or summaries (sum 1). */
static inline nls_hot_t *nls__hot_at(const nls_act_t *act, int sum)
{
    return &nls__hot[(act->id << 1 | (unsigned)sum) & (NLS_HOT - 1)];
}

/* The thread's last identity of this kind for act, locked, if its key from byte `off` on is
 * k (len bytes) and, from off 6 (past " guid="), holds no *.id fields after the guid. */
static inline __attribute__((always_inline)) nls_ident_t *
nls__hot_match(nls_t *s, const nls_act_t *act, int sum, size_t off, const char *k, size_t len)
{
    nls_hot_t *h = nls__hot_at(act, sum);
    if (h->s != s || h->seed != s->seed || h->act != act) return NULL;
    nls_ident_t *e = h->e;
    nls__lock(&e->lock);
    if (e->live && e->act == act && e->key_len == off + len &&
        (off == 0 || e->guid_len == e->key_len) && nl__key_eq(e->key + off, k, len))
        return e;
    nls__unlock(&e->lock);
    return NULL;
}

/* The identity this thread used last for act, if its key is the guid g (gl bytes) alone:
 * the key is not built for the common case of a loop's pairs without *.id fields.
 * Returned locked, or NULL (then build the key and call nls__ident_get_cached). */
static inline nls_ident_t *nls__ident_hot(nls_t *s, const nls_act_t *act, const char *g, size_t gl)
{
    if (gl == NL_GUID_LEN) /* a constant length */
        return nls__hot_match(s, act, 0, 6, g, NL_GUID_LEN);
    return nls__hot_match(s, act, 0, 6, g, gl);
}

/* The summary this thread used last for act, if its key is "#" alone (no key fields):
 * locked, or NULL. */
static inline nls_ident_t *nls__sum_hot(nls_t *s, const nls_act_t *act)
{
    static const char mark[1] = {NLS_SUM_MARK};
    return nls__hot_match(s, act, 1, 0, mark, 1);
}

#endif
