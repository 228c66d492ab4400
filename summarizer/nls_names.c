/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_names.c — from an event name to its activity, fast. Event names are nearly always
 * string literals, so the cache is indexed by the name's address and confirmed by its
 * content (a reused buffer with new text simply misses), or, for a literal of the main
 * program (nl_rodata.h), by the address alone. Entries are immutable and only
 * added; the rule that applies is read through the activity, so a rule change never has
 * to touch the cache. */
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_rodata.h"
#include "nls_int.h"
#include "nls_names.h"

nls_res_t *nls__resolve(nls_t *s, const char *name, size_t len)
{
    const nls_rule_t *r = nls_rules_match(&s->rules, name, len);
    if (!r || r->mode == NLS_FULL) return s->res_plain;
    nls_res_t *res = calloc(1, sizeof *res);
    if (!res) return s->res_plain; /* no memory: write in full rather than lose anything */
    res->mode = r->mode;
    res->interval_ns = (int64_t)(r->interval * 1e9 + 0.5);
    res->vf_len = strlen(r->value_field);
    memcpy(res->vf, r->value_field, res->vf_len + 1);
    res->rf_len = strlen(r->result_field);
    memcpy(res->rf, r->result_field, res->rf_len + 1);
    res->nkeys = 0;
    for (int pass = 0; pass < 2; pass++) /* guid first: a summary line begins with it */
        for (int k = 0; k < r->nkeys; k++) {
            if ((strcmp(r->keys[k], "guid") == 0) != (pass == 0)) continue;
            int to = res->nkeys++;
            res->key_len[to] = strlen(r->keys[k]);
            memcpy(res->key[to], r->keys[k], res->key_len[to] + 1);
        }
    res->older = s->res_all;
    s->res_all = res;
    return res;
}

/* Find or add an activity by name (caller holds cfg_mu). */
static nls_act_t *act_get(nls_t *s, const char *name, size_t len)
{
    for (int i = 0; i < s->nacts; i++)
        if (s->acts[i]->len == len && !memcmp(s->acts[i]->name, name, len)) return s->acts[i];
    if (s->nacts == NLS_ACT_MAX || len > NL_NAME_MAX) return NULL;
    nls_act_t *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->id = (uint32_t)s->nacts;
    a->len = len;
    memcpy(a->name, name, len);
    atomic_init(&a->res, nls__resolve(s, name, len));
    s->acts[s->nacts++] = a;
    return a;
}

nls_act_t *nls_activity(nls_t *s, const char *name, size_t len)
{
    pthread_mutex_lock(&s->cfg_mu);
    nls_act_t *a = act_get(s, name, len);
    pthread_mutex_unlock(&s->cfg_mu);
    return a;
}

static int kind_folds(int kind) { return kind == NL_KIND_START || kind == NL_KIND_END; }

/* First sight of an event name at this address: resolve it and try to cache it. */
static nls_act_t *ev_slow(nls_t *s, const char *event, int *kind)
{
    size_t len = strlen(event), base;
    *kind = nl__event_kind(event, len, &base);
    if (*kind == NL_KIND_SUMMARY) /* a summary the program wrote itself: its own activity */
        *kind = NL_KIND_OTHER, base = len;
    pthread_mutex_lock(&s->cfg_mu);
    nls_act_t *a = act_get(s, event, base);
    if (!a) { /* too many activities: written in full; counted if it should be summarized */
        const nls_rule_t *r = nls_rules_match(&s->rules, event, base);
        if (r && kind_folds(*kind) && (r->mode == NLS_SUMMARY || r->mode == NLS_BOTH))
            atomic_fetch_add_explicit(&s->overflow, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&s->cfg_mu);
    if (!a) return NULL;
    nls_ev_t *ev = malloc(sizeof *ev + len + 1);
    if (!ev) return a;
    ev->act = a;
    ev->kind = *kind;
    ev->ro_addr = nl__rodata_holds(event, len) ? event : NULL;
    memcpy(ev->name, event, len + 1);
    size_t home = nls__ev_home(event);
    for (size_t i = 0; i < NLS_EV_PROBE; i++) {
        nls_ev_t *expected = NULL;
        if (atomic_compare_exchange_strong(&s->ev[(home + i) & (NLS_EV_SLOTS - 1)], &expected, ev))
            return a;
    }
    free(ev); /* cache full along this probe: still correct, resolved per call */
    return a;
}

nls_act_t *nls__event_act_slow(nls_t *s, const char *event, int *kind)
{
    size_t home = nls__ev_home(event);
    for (size_t i = 0; i < NLS_EV_PROBE; i++) {
        nls_ev_t *ev =
            atomic_load_explicit(&s->ev[(home + i) & (NLS_EV_SLOTS - 1)], memory_order_acquire);
        if (!ev) break;
        if (ev->ro_addr == event || strcmp(ev->name, event) == 0) {
            *kind = ev->kind;
            return ev->act;
        }
    }
    return ev_slow(s, event, kind);
}

void nls__names_free(nls_t *s)
{
    for (size_t i = 0; i < NLS_EV_SLOTS; i++) free(atomic_load(&s->ev[i]));
    for (int i = 0; i < s->nacts; i++) free(s->acts[i]);
    nls_res_t *r = s->res_all;
    while (r) {
        nls_res_t *older = r->older;
        free(r);
        r = older;
    }
    free(s->res_plain);
}
