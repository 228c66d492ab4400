/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_head.c — the log's GUID and constant fields (nl_const_set, nl_const_std, nl_set_guid):
 * each change builds a new pre-encoded head and publishes it, so writers never lock. */
#define _GNU_SOURCE
#include "nl_head.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_enc.h"
#include "nl_guid.h"
#include "nl_line.h"
#include "nl_log_int.h"

static void head_free_one(nl_head_t *h)
{
    for (int i = 0; i < h->nconst; i++) {
        free(h->cname[i]);
        free(h->cvalue[i]);
    }
    free(h->enc);
    free(h);
}

nl_head_t *nl__head_new(uint32_t gen, const char *guid, int n, char *const *names,
                        char *const *values)
{
    nl_head_t *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->gen = gen;
    snprintf(h->guid, sizeof h->guid, "%s", guid);
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    for (int i = 0; i < n; i++) {
        h->cname[i] = strdup(names[i]);
        h->cvalue[i] = strdup(values[i]);
        h->nconst = i + 1;
        if (!h->cname[i] || !h->cvalue[i]) goto fail;
        h->coff[i] = b.len;
        nl__enc_name(&b, names[i], strlen(names[i]));
        nl__enc_value(&b, values[i], strlen(values[i]));
    }
    h->coff[n] = b.len;
    nl__putc(&b, '\0'); /* the buffer starts empty, so this always lands on the heap */
    if (b.err) goto fail;
    h->enc = b.p;
    return h;
fail:
    nl_buf_free(&b);
    head_free_one(h);
    return NULL;
}

void nl__head_free_all(nl_head_t *h)
{
    while (h) {
        nl_head_t *older = h->older;
        head_free_one(h);
        h = older;
    }
}

uint32_t nl__head_skip_slow(const nl_head_t *h, nl_tmpl_t *t)
{
    uint32_t mask = 0;
    for (int i = 0; i < h->nconst; i++) {
        size_t cl = strlen(h->cname[i]);
        for (int k = 0; k < t->n; k++) {
            size_t fl;
            const char *fn = nl__tmpl_name(t, k, &fl);
            if (fl == cl && !memcmp(fn, h->cname[i], cl)) mask |= 1u << i;
        }
    }
    atomic_store_explicit(&t->const_check, (uint64_t)h->gen << 32 | mask, memory_order_relaxed);
    return mask;
}

void nl__head_put_some(nl_buf_t *b, const nl_head_t *h, uint32_t skip)
{
    for (int i = 0; i < h->nconst; i++)
        if (!(skip & (1u << i))) nl__put(b, h->enc + h->coff[i], h->coff[i + 1] - h->coff[i]);
}

/* Publish a new head; the old one stays reachable (and alive) through ->older. */
static void head_publish(nl_log_t *log, nl_head_t *h)
{
    h->older = atomic_load(&log->head);
    atomic_store_explicit(&log->head, h, memory_order_release);
}

int nl_const_set(nl_log_t *log, const char *name, const char *value)
{
    if (!log || !name) return NL_EINVAL;
    size_t len = strlen(name);
    if (!nl__name_ok(name, len) || nl__is_head_field(name, len)) return NL_ENAME;
    pthread_mutex_lock(&log->cfg_mu);
    nl_head_t *old = atomic_load(&log->head);
    char *names[NL_CONST_MAX], *values[NL_CONST_MAX];
    int n = old->nconst, at = n;
    for (int i = 0; i < n; i++) {
        names[i] = old->cname[i];
        values[i] = old->cvalue[i];
        if (!strcmp(names[i], name)) at = i;
    }
    int rc = 0;
    if (at == NL_CONST_MAX) {
        rc = NL_EINVAL;
    } else {
        names[at] = (char *)name;
        values[at] = (char *)(value ? value : "");
        nl_head_t *h = nl__head_new(old->gen + 1, old->guid, at == n ? n + 1 : n, names, values);
        if (h)
            head_publish(log, h);
        else
            rc = NL_ENOMEM;
    }
    pthread_mutex_unlock(&log->cfg_mu);
    return rc;
}

int nl_const_std(nl_log_t *log)
{
    char host[256] = "unknown", pid[24];
    if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    int rc = nl_const_set(log, "host", host);
    if (!rc) rc = nl_const_set(log, "prog", program_invocation_short_name);
    if (!rc) rc = nl_const_set(log, "pid", pid);
    if (!rc) atomic_store(&log->std_pid, 1);
    return rc;
}

int nl_set_guid(nl_log_t *log, const char *guid)
{
    if (!log || !nl__guid_valid(guid)) return NL_EINVAL;
    pthread_mutex_lock(&log->cfg_mu);
    nl_head_t *old = atomic_load(&log->head);
    nl_head_t *h = nl__head_new(old->gen + 1, guid, old->nconst, old->cname, old->cvalue);
    if (h) {
        head_publish(log, h);
        nl__sink_set_guid(&log->sink, guid);
    }
    pthread_mutex_unlock(&log->cfg_mu);
    return h ? 0 : NL_ENOMEM;
}

const char *nl_guid(const nl_log_t *log)
{
    return log ? atomic_load_explicit(&((nl_log_t *)log)->head, memory_order_acquire)->guid : NULL;
}
