/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_head.h — private: the parts of every line that change rarely (the GUID and the
 * constant fields), pre-encoded once so a writer only copies them. */
#ifndef NLKIT_NL_HEAD_H
#define NLKIT_NL_HEAD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nl_buf.h"
#include "nl_fmt.h"
#include "nlkit/nl.h"

/* Immutable once published; replaced whole (copy on write) and kept until nl_close, so a
 * writer holding an old one is never left with freed memory. */
typedef struct nl_head {
    uint32_t gen; /* increases with every replacement */
    char guid[NL_GUID_LEN + 1];
    int nconst;
    char *cname[NL_CONST_MAX];     /* constant names */
    char *cvalue[NL_CONST_MAX];    /* constant values, raw */
    size_t coff[NL_CONST_MAX + 1]; /* const i is enc[coff[i], coff[i+1]) */
    char *enc;                     /* " name=value" for every constant */
    struct nl_head *older;         /* the head this one replaced */
} nl_head_t;

/* A head with a GUID and n constants (copied); NULL on no memory. */
nl_head_t *nl__head_new(uint32_t gen, const char *guid, int n, char *const *names,
                        char *const *values);
/* Free h and every head it replaced. */
void nl__head_free_all(nl_head_t *h);

/* nl__head_skip's and nl__head_put_consts's less usual cases, out of line. */
uint32_t nl__head_skip_slow(const nl_head_t *h, nl_tmpl_t *t);
void nl__head_put_some(nl_buf_t *b, const nl_head_t *h, uint32_t skip);

/* Which constants of h template t overrides (a field of the same name): bit i for constant
 * i. Cached in the template per head generation, so a line pays for the names' comparison
 * once per template and head, not per line. Inline: every line asks. */
static inline uint32_t nl__head_skip(const nl_head_t *h, nl_tmpl_t *t)
{
    if (!h->nconst) return 0;
    uint64_t cc = atomic_load_explicit(&t->const_check, memory_order_relaxed);
    if ((uint32_t)(cc >> 32) == h->gen) return (uint32_t)cc;
    return nl__head_skip_slow(h, t);
}

/* Append the constants of h but those in skip, " name=value" each, as pre-encoded. The
 * synchronous line and the deferred consumer's plans (nl_dline.c) both take them here. */
static inline void nl__head_put_consts(nl_buf_t *b, const nl_head_t *h, uint32_t skip)
{
    if (!skip)
        nl__put(b, h->enc, h->coff[h->nconst]);
    else
        nl__head_put_some(b, h, skip);
}

#endif
