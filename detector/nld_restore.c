/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_restore.c — what a previous run left open (anomaly episodes, alerts, missing ends),
 * handed in by the caller (nld_restore) and taken up again by the stream, subscription or
 * tracker that opens it anew, so a restart neither repeats a start nor forgets an end. */
#include <stdlib.h>

#include "nld_int.h"

int nld_restore(nld_t *d, const char *id, size_t id_len, int64_t start)
{
    int64_t *v = malloc(sizeof *v);
    if (!v) return NL_ENOMEM;
    *v = start;
    int64_t *old = nl__map_get(&d->restored, id, id_len);
    if (old) {
        *old = start;
        free(v);
        return 0;
    }
    if (!nl__map_put(&d->restored, id, id_len, v)) {
        free(v);
        return NL_ENOMEM;
    }
    d->nrestored++;
    return 0;
}

int nld__restored_take(nld_t *d, char kl, const char *p, size_t len, int64_t *start)
{
    if (!d->nrestored) return 0;
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nld__out_raw(&b, &kl, 1);
    nld__out_raw(&b, p, len);
    int64_t *v = b.err ? NULL : nl__map_del(&d->restored, b.p, b.len);
    nl_buf_free(&b);
    if (!v) return 0;
    *start = *v;
    free(v);
    d->nrestored--;
    d->n.restored++;
    return 1;
}
