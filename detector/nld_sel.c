/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_sel.c — selectors: which lines a stream or subscription watches, its value, its key
 * (see nld_config.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "nl_line.h"
#include "nld_config.h"

#define EVENT_MAX 512 /* longer event names match no glob */

int nld_sel_match(const nld_sel_t *s, const nl_rec_t *r)
{
    const nl_field_t *e = &r->f[r->i_event];
    char ev[EVENT_MAX];
    if (e->value_len >= sizeof ev) return 0;
    memcpy(ev, e->value, e->value_len);
    ev[e->value_len] = 0;
    if (fnmatch(s->glob, ev, 0) != 0) {
        size_t n;
        if (nl__event_kind(ev, e->value_len, &n) != NL_KIND_SUMMARY) return 0;
        ev[n] = 0; /* a glob for the activity matches its summaries too */
        if (fnmatch(s->glob, ev, 0) != 0) return 0;
    }
    for (int i = 0; i < s->nwhere; i++) {
        const nl_field_t *f = nl_rec_get(r, s->where_name[i]);
        if (!f || !nl_field_is(f, s->where_val[i])) return 0;
    }
    return 1;
}

static int num(const nl_rec_t *r, const char *name, double *x)
{
    const nl_field_t *f = nl_rec_get(r, name);
    if (!f) return NL_EMISSING;
    return nl_field_double(f, x) ? NL_EPARSE : 0;
}

int nld_sel_value(const nld_sel_t *s, const nl_rec_t *r, double *x)
{
    if (s->vkind == NLD_V_FIELD) return num(r, s->value, x);
    static const int num_of[] = {0, NL_SF_V_SUM, NL_SF_V_SUM, NL_SF_DUR_SUM, NL_SF_DUR_SUM};
    static const int den_of[] = {0, NL_SF_DUR_SUM, NL_SF_INTERVAL, NL_SF_INTERVAL, NL_SF_N};
    double a, b;
    int rc = num(r, nl__summary_fields[num_of[s->vkind]].name, &a);
    if (!rc) rc = num(r, nl__summary_fields[den_of[s->vkind]].name, &b);
    if (rc) return rc;
    if (b == 0 || b != b || a != a) return NL_EINVAL;
    *x = a / b;
    return 0;
}

void nld_sel_key(const nld_sel_t *s, const nl_rec_t *r, nl_buf_t *b)
{
    char name[NL_NAME_MAX + 1];
    for (int i = 0; i < s->nkeys; i++) {
        const nl_field_t *f = nl_rec_get(r, s->keys[i]);
        snprintf(name, sizeof name, "key.%s", s->keys[i]);
        nl_enc_str(b, name, f ? f->value : "", f ? f->value_len : 0);
    }
}
