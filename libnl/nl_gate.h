/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_gate.h — private: the gate every write of a log passes first (the level threshold, a
 * forked child's first call), inline for nl_write and for pair handles (nl_pair, in the
 * summarizer), which keep a pointer to their log's gate. */
#ifndef NLKIT_NL_GATE_H
#define NLKIT_NL_GATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "nl_fork.h"
#include "nlkit/nl.h"

/* What every write of a log reads first: the level threshold, and the fork generation its
 * flusher was started in; and the count of events filtered out. Part of the log; a pair
 * handle (nl_pair) keeps a pointer to it, to pass the gate without a call. */
typedef struct nl_gate {
    _Atomic int level;
    _Atomic unsigned fork_gen; /* nl__fork_gen when the flusher last started */
    _Atomic uint64_t filtered;
} nl_gate_t;

/* The log's gate; valid until nl_close. */
nl_gate_t *nl__log_gate(nl_log_t *log);

/* In a forked child, the first call on an inherited log restarts its flusher. Two relaxed
 * loads: a fork changes nl__fork_gen, and only a fork. */
static inline void nl__gate_forked(nl_log_t *log, nl_gate_t *g)
{
    if (atomic_load_explicit(&nl__fork_gen, memory_order_relaxed) !=
        atomic_load_explicit(&g->fork_gen, memory_order_relaxed))
        nl__fork_resume(log);
}

/* 1 if an event of this level passes the threshold; else 0, counted as filtered. */
static inline int nl__gate_level(nl_gate_t *g, int level)
{
    if (level > atomic_load_explicit(&g->level, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&g->filtered, 1, memory_order_relaxed);
        return 0;
    }
    return 1;
}

/* The gate of every write, nl_write's and a pair handle's: the fork check, then the level
 * threshold. Returns 1 to go on, 0 if filtered. */
static inline int nl__gate_admit(nl_log_t *log, nl_gate_t *g, int level)
{
    nl__gate_forked(log, g);
    return nl__gate_level(g, level);
}

#endif
