/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_pair.c — pair handles (nlkit/nl.h; nl_pair itself is in nls_plug.c, which plugs the
 * summarizer in): a call site's start/end pair with its activity, event names and templates
 * resolved once. A summarized pair then costs the clock, the identity and the fold, without
 * nl_write's general machinery (its variable arguments, format and event-name caches, the
 * hook's dispatch), about a third of a summarized nl_write call (bench-write). Whatever is
 * not a summarized pair (mode full, off, count, dedup; a full activity table) goes
 * nl_write's own way, so a handle's events are written exactly as nl_write's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_gate.h"
#include "nl_line.h"
#include "nls_int.h"

struct nl_pair {
    nl_log_t *log;
    nl_gate_t *gate; /* the log's level threshold and fork generation */
    nls_t *s;
    nls_act_t *act;             /* NULL if the activity table was full: the general way */
    nl_tmpl_t *t_start, *t_end; /* "guid=s" and "guid=s VALUE_FIELD=d" (or "guid=s") */
    const char *vf;             /* the value field's name inside t_end, or NULL */
    size_t vf_len;
    struct nl_pair *next; /* the summarizer's handles, freed with it */
    char start[NL_NAME_MAX + 1], end[NL_NAME_MAX + 1];
};

int nls__pair_check(const char *name, const char *value_field)
{
    size_t len = strlen(name), vl = value_field ? strlen(value_field) : 0;
    /* an identity field as the value would make the key more than the guid */
    if (!nl__name_ok(name, len) || len + 6 > NL_NAME_MAX ||
        (value_field && (!nl__name_ok(value_field, vl) || nl__is_head_field(value_field, vl) ||
                         nl__is_id_field(value_field, vl))))
        return NL_ENAME;
    return 0;
}

/* The handle already made for this name and value field, or NULL (caller holds cfg_mu). */
static nl_pair_t *pair_find(nls_t *s, const char *name, size_t len, const char *value_field)
{
    size_t vl = value_field ? strlen(value_field) : 0;
    for (nl_pair_t *p = s->pairs; p; p = p->next)
        if (!strncmp(p->start, name, len) && !strcmp(p->start + len, ".start") &&
            (value_field ? p->vf && p->vf_len == vl && !memcmp(p->vf, value_field, vl) : !p->vf))
            return p;
    return NULL;
}

nl_pair_t *nls__pair_new(nls_t *s, nl_log_t *log, const char *name, const char *value_field,
                         int *rc)
{
    size_t len = strlen(name);
    pthread_mutex_lock(&s->cfg_mu);
    nl_pair_t *p = pair_find(s, name, len, value_field);
    pthread_mutex_unlock(&s->cfg_mu);
    if (p) return *rc = 0, p; /* a function that asks each time it runs gets one handle */
    p = calloc(1, sizeof *p);
    if (!p) return *rc = NL_ENOMEM, NULL;
    p->log = log;
    p->gate = nl__log_gate(log);
    p->s = s;
    p->act = nls_activity(s, name, len); /* NULL: counted as overflow by the general way */
    memcpy(p->start, name, len);
    memcpy(p->start + len, ".start", 7);
    memcpy(p->end, name, len);
    memcpy(p->end + len, ".end", 5);
    char fmt[NL_NAME_MAX + 16];
    int n = value_field ? snprintf(fmt, sizeof fmt, "guid=s %s=d", value_field)
                        : snprintf(fmt, sizeof fmt, "guid=s");
    *rc = nl__tmpl_parse("guid=s", 6, 0, &p->t_start);
    if (*rc == 0) *rc = nl__tmpl_parse(fmt, (size_t)n, 0, &p->t_end);
    if (*rc) {
        free(p->t_start);
        free(p);
        return NULL;
    }
    if (value_field) p->vf = nl__tmpl_name(p->t_end, 1, &p->vf_len);
    pthread_mutex_lock(&s->cfg_mu);
    nl_pair_t *made = pair_find(s, name, len, value_field); /* by another thread meanwhile */
    if (!made) {
        p->next = s->pairs;
        s->pairs = p;
    }
    pthread_mutex_unlock(&s->cfg_mu);
    if (made) {
        free(p->t_start);
        free(p->t_end);
        free(p);
        return made;
    }
    return p;
}

/* One event of the pair: folded here if the activity is summarized as pairs, else written
 * (after the hook, for the modes only it knows) as nl_write writes it. */
static inline int pair_event(nl_pair_t *p, int kind, const char *guid, double v)
{
    if (!p) return NL_EINVAL;
    if (!nl__gate_admit(p->log, p->gate, NL_LVL_INFO)) return NL_OK;
    int flags = NL__WRITE_HOOK | NL__WRITE_EV_KEPT; /* p->start, p->end live until nl_close */
    if (p->act) {
        const char *g = guid ? guid : nl__log_head(p->log)->guid;
        int verdict = nls_pair_event(p->s, p->act, kind, g, p->vf, p->vf_len, v);
        if (verdict == NL_HOOK_FOLDED) return NL_OK;
        if (verdict != NLS_PAIR_GENERAL) flags = NL__WRITE_EV_KEPT;
    }
    nl_arg_t args[2] = {{.s = guid}, {.d = v}};
    if (kind == NL_KIND_START)
        return nl__log_write_args(p->log, NL_LVL_INFO, p->start, p->t_start, args, flags);
    return nl__log_write_args(p->log, NL_LVL_INFO, p->end, p->t_end, args, flags);
}

int nl_pair_start(nl_pair_t *p, const char *guid) { return pair_event(p, NL_KIND_START, guid, 0); }

int nl_pair_end(nl_pair_t *p, const char *guid, double value)
{
    return pair_event(p, NL_KIND_END, guid, value);
}

void nls__pairs_free(nls_t *s)
{
    nl_pair_t *p = s->pairs;
    while (p) {
        nl_pair_t *next = p->next;
        free(p->t_start);
        free(p->t_end);
        free(p);
        p = next;
    }
    s->pairs = NULL;
}
