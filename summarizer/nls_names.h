/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_names.h — private to the summarizer: from an event name to its activity, the hot
 * path's lookup. Its usual case, a literal name seen before at this address, is inline
 * (no call per nl_write); everything else is nls_names.c's. */
#ifndef NLKIT_NLS_NAMES_H
#define NLKIT_NLS_NAMES_H

#include "nl_hash.h"
#include "nls_int.h"

/* nls__event_act's every case but a literal name seen before at this address. */
nls_act_t *nls__event_act_slow(nls_t *s, const char *event, int *kind);

/* Where an event name's address is cached first (a probe goes on from there). */
static inline size_t nls__ev_home(const char *event)
{
    return (size_t)nl__mix64((uint64_t)(uintptr_t)event) & (NLS_EV_SLOTS - 1);
}

/* The activity of an event and its kind; NULL activity if NLS_ACT_MAX is reached. */
static inline nls_act_t *nls__event_act(nls_t *s, const char *event, int *kind)
{
    nls_ev_t *ev = atomic_load_explicit(&s->ev[nls__ev_home(event)], memory_order_acquire);
    if (ev && ev->ro_addr == event) {
        *kind = ev->kind;
        return ev->act;
    }
    return nls__event_act_slow(s, event, kind);
}

#endif
