/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_fmt.h — private: nl_write format templates ("name=TYPE ...") and their per-log cache. */
#ifndef NLKIT_NL_FMT_H
#define NLKIT_NL_FMT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_hash.h"
#include "nlkit/nl.h"

/* One declared field: its type letter and the pre-encoded text " name=". */
typedef struct nl_tfield {
    char type;       /* s d i l u t */
    uint8_t enc_len; /* length of enc */
    const char *enc; /* " name=" */
} nl_tfield_t;

/* One argument of nl_write, read according to its type letter. */
typedef union nl_arg {
    const char *s;
    double d;
    long long l;
    unsigned long long u;
} nl_arg_t;

/* A parsed format. Immutable once published in a cache, except const_check, a lazily
 * computed (constants generation << 32 | mask of constants this template overrides), and
 * ro_addr, set at most once. */
typedef struct nl_tmpl {
    uint64_t hash;
    size_t fmt_len;
    const char *fmt;  /* copy of the format text */
    int n;            /* fields */
    int guid_idx;     /* index of the field named "guid", or -1 */
    uint64_t id_mask; /* fields whose name ends in ".id": they identify an activity */
    /* The recipe the hot paths follow instead of testing each field's type letter: bit k
     * set when field k is read as a double ('d', 't'), as an int ('i'), is a time ('t',
     * range-checked), is a string ('s', copied by a deferred record). Fields in none of
     * the first two are read as 8-byte integers ('l', 'u', and 's' pointers). */
    uint64_t dbl_mask, int_mask, ts_mask, str_mask;
    _Atomic uint64_t const_check;
    /* an address in the program's read-only data holding this format's text (a literal),
     * or NULL: a call with exactly that address is this template without comparing */
    _Atomic(const char *) ro_addr;
    nl_tfield_t f[]; /* n entries, followed by the texts */
} nl_tmpl_t;

/* Parse `fmt` into a new template (free with free()). Returns 0, NL_EFMT or NL_ENOMEM. */
int nl__tmpl_parse(const char *fmt, size_t len, uint64_t hash, nl_tmpl_t **out);

/* Field name of field k (without the leading space and trailing '='), and its length. */
static inline const char *nl__tmpl_name(const nl_tmpl_t *t, int k, size_t *len)
{
    *len = t->f[k].enc_len - 2u;
    return t->f[k].enc + 1;
}

#define NL_TCACHE_SLOTS 256 /* distinct formats cached per log; more still work, uncached */
#define NL_TCACHE_PROBE 16

/* Lock-free cache of templates keyed by format content. Entries are only ever added, and
 * freed by nl__tcache_free when the log closes. */
typedef struct nl_tcache {
    _Atomic(nl_tmpl_t *) slot[NL_TCACHE_SLOTS];
    /* In front: the template last found for a format at this address (formats are nearly
     * always literals), confirmed by content, which spares hashing the format per call. */
    _Atomic(nl_tmpl_t *) byptr[NL_TCACHE_SLOTS];
} nl_tcache_t;

/* nl__tcache_get's every case but a literal format seen before at this address. */
int nl__tcache_get_slow(nl_tcache_t *c, const char *fmt, nl_tmpl_t **out, int *owned);

/* The template for fmt (NULL means ""), parsing it on first sight. On success returns 0 and
 * sets *out; *owned is 1 if the cache was full and the caller must free(*out) after use.
 * Inline for the usual case, a literal format trusted by its address: no call. */
static inline int nl__tcache_get(nl_tcache_t *c, const char *fmt, nl_tmpl_t **out, int *owned)
{
    if (fmt) {
        nl_tmpl_t *t = atomic_load_explicit(
            &c->byptr[nl__mix64((uint64_t)(uintptr_t)fmt) % NL_TCACHE_SLOTS], memory_order_acquire);
        if (t && atomic_load_explicit(&t->ro_addr, memory_order_relaxed) == fmt) {
            *out = t;
            *owned = 0;
            return 0;
        }
    }
    return nl__tcache_get_slow(c, fmt, out, owned);
}
void nl__tcache_free(nl_tcache_t *c);

/* Append field f with its argument a: " name=value" as a line writes it (a 't' time to the
 * nearest microsecond). For nl_write, and for the summarizer keeping an event's fields. */
void nl__tfield_put(nl_buf_t *b, const nl_tfield_t *f, const nl_arg_t *a);

#endif
