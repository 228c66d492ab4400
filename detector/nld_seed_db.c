/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_seed_db.c — past values from the archive (see nld_seed_db.h). */
#include "nld_seed_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nll.h"

struct nld_seed_db {
    nll_db_t *db;
    nll_eps_t *eps;  /* the archive's anomaly episodes: their values are left out */
    int64_t skipped; /* values left out so far */
    int reported;
};

/* Why a selector cannot be answered from the archive's summary table, or NULL. */
static const char *unanswerable(const nld_sel_t *sel)
{
    if (!nll_base_column(sel->value))
        return "its value must be rate, avgrate, busy, mean.dur or a summary field (n, "
               "dur.sum, v.max, ...)";
    for (int i = 0; i < sel->nkeys; i++)
        if (strcmp(sel->keys[i], "host")) return "the archive can split it by key=host only";
    if (sel->nwhere) return "where.FIELD filters cannot be applied to the archive";
    return NULL;
}

nld_seed_db_t *nld_seed_db_open(const nld_cfg_t *cfg, const char *path, char *err, size_t errlen)
{
    for (int i = 0; i < cfg->ns + cfg->nw; i++) {
        int stream = i < cfg->ns;
        const nld_sel_t *sel = stream ? &cfg->s[i].sel : &cfg->w[i - cfg->ns].sel;
        const char *why = unanswerable(sel);
        if ((stream ? cfg->s[i].seed : cfg->w[i - cfg->ns].seed) && why) {
            snprintf(err, errlen, "%s %s: %s.from=db: %s", stream ? "stream" : "subscription",
                     stream ? cfg->s[i].name : cfg->w[i - cfg->ns].name,
                     stream ? "history" : "baseline", why);
            return NULL;
        }
    }
    nld_seed_db_t *s = calloc(1, sizeof *s);
    nll_err_t e;
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (nll_db_open(path, NLL_OPEN_READ, 0, &s->db, &e)) {
        snprintf(err, errlen, "%s", e.msg);
        free(s);
        return NULL;
    }
    /* a history or baseline learnt from the archive leaves out the faults nl-detect
     * already called there, as nl-baseline does */
    if (nll_eps_read(s->db, &s->eps, &e)) {
        snprintf(err, errlen, "anomaly episodes in the archive: %s", e.msg);
        nll_db_close(s->db);
        free(s);
        return NULL;
    }
    return s;
}

typedef struct relay {
    void (*add)(void *ctx, double x, int64_t ts_usec);
    void *ctx;
} relay_t;

/* The archive keeps times as seconds since 1970 (a REAL); a time it cannot hold as
 * microseconds is passed on as unknown. */
static void relay(void *ctx, double ts, double x)
{
    relay_t *r = ctx;
    int64_t us = isfinite(ts) && fabs(ts) < 9e12 ? (int64_t)llround(ts * 1e6) : INT64_MIN;
    r->add(r->ctx, x, us);
}

int nld_seed_db(void *ctx, const nld_sel_t *sel, const nl_rec_t *r, uint32_t limit, int64_t since,
                int64_t until, void (*add)(void *add_ctx, double x, int64_t ts_usec),
                void *add_ctx)
{
    nld_seed_db_t *s = ctx;
    const nl_field_t *ev = &r->f[r->i_event];
    char event[NL_NAME_MAX + 1], host[256];
    if (ev->value_len > NL_NAME_MAX) return NL_EINVAL;
    memcpy(event, ev->value, ev->value_len);
    event[ev->value_len] = 0;
    nll_base_q_t q;
    nll_base_q_init(&q, event, sel->value);
    if (sel->nkeys) { /* key=host: that host's values; a line without host has none */
        const nl_field_t *h = nl_rec_get(r, "host");
        if (!h || h->value_len >= sizeof host) return 0;
        memcpy(host, h->value, h->value_len);
        host[h->value_len] = 0;
        q.host = host;
    }
    if (since != INT64_MIN) q.since = (double)since / 1e6;
    q.until = (double)until / 1e6;
    q.skip = s->eps;
    relay_t rl = {add, add_ctx};
    nll_err_t e;
    int rc = nll_base_values(s->db, &q, limit, relay, &rl, &s->skipped, &e);
    if (rc && s->reported++ < 5)
        fprintf(stderr, "nl-detect: past values of %s: %s\n", event, e.msg);
    return rc;
}

void nld_seed_db_close(nld_seed_db_t *s)
{
    if (!s) return;
    if (s->skipped)
        fprintf(stderr,
                "nl-detect: %lld past value(s) from the archive inside its %d anomaly "
                "episode(s) left out of histories and baselines\n",
                (long long)s->skipped, nll_eps_count(s->eps));
    nll_eps_free(s->eps);
    nll_db_close(s->db);
    free(s);
}
