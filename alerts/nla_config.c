/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_config.c — the alert layer's directives: receiver, route, silence, alerts (nla.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_file.h"
#include "nl_num.h"
#include "nl_words.h"
#include "nla.h"
#include "nla_am.h"

typedef struct pctx {
    nl__cfg_at_t at; /* where we are, for messages */
    nla_cfg_t *c;
    int silences_only; /* a silences file: nothing but silence lines */
} pctx_t;

void nla_cfg_init(nla_cfg_t *c) { *c = (nla_cfg_t){.drain = 10}; }

static void route_free(nla_route_t *r)
{
    free(r->name_glob);
    free(r->key_glob);
    free(r->runbook);
    for (int i = 0; i < r->ngroup; i++) free(r->group_by[i]);
}

void nla_cfg_free(nla_cfg_t *c)
{
    for (int i = 0; i < c->nr; i++) {
        free(c->r[i].name);
        free(c->r[i].url);
        free(c->r[i].ca);
        free(c->r[i].generator);
    }
    for (int i = 0; i < c->nrt; i++) route_free(&c->rt[i]);
    for (int i = 0; i < c->ns; i++) free(c->s[i].glob);
    free(c->r);
    free(c->rt);
    free(c->s);
    free(c->state);
    free(c->silences);
    nla_cfg_init(c);
}

static int grow(void **arr, int n, size_t size) { return nl__cfg_grow(arr, n, size, NLA_DEFS_MAX); }

static int receiver_find(const nla_cfg_t *c, const char *name)
{
    for (int i = 0; i < c->nr; i++)
        if (!strcmp(c->r[i].name, name)) return i;
    return -1;
}

/* A new receiver with the defaults; its index, or a negative error. */
static int receiver_add(nla_cfg_t *c, const char *name, const char *url)
{
    int rc = grow((void **)&c->r, c->nr, sizeof *c->r);
    if (rc) return rc;
    nla_recv_def_t *r = &c->r[c->nr];
    *r = (nla_recv_def_t){.timeout = 10,
                          .backoff = 1,
                          .backoff_max = 60,
                          .retries = NLA_RETRY_FOREVER,
                          .queue = 10000,
                          .refresh = 60};
    if (!(r->name = strdup(name)) || !(r->url = strdup(url))) {
        free(r->name);
        return NL_ENOMEM;
    }
    return c->nr++;
}

static int url_like(const char *s) { return strchr(s, ':') || strchr(s, '/') || !strcmp(s, "-"); }

/* An Alertmanager URL without a host is refused here, where it was written. */
static int url_check(pctx_t *x, int col, const char *url)
{
    if (!nla__am_url(url)) return 0;
    char err[300];
    char *ep = nla__am_endpoint(url, err, sizeof err);
    if (!ep) return nl__cfg_fail(&x->at, col, "%s", err);
    free(ep);
    return 0;
}

/* A receiver by name, or made for a URL (once per URL). */
static int receiver_for(pctx_t *x, int col, const char *what)
{
    int i = receiver_find(x->c, what);
    if (i >= 0) return i;
    if (!url_like(what))
        return nl__cfg_fail(&x->at, col, "no receiver named '%s' (define it first, or give a URL)",
                            what);
    if ((i = url_check(x, col, what))) return i;
    i = receiver_add(x->c, what, what);
    return i == NL_EINVAL ? nl__cfg_fail(&x->at, col, "more than %d receivers", NLA_DEFS_MAX) : i;
}

static double dur_opt(const char *v) { return nl__parse_dur(v); }

static int u32_opt(const char *v, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end || errno || n > 0xfffffffeULL || *v == '-') return -1;
    *out = (uint32_t)n;
    return 0;
}

/* receiver NAME URL [options] */
static int do_receiver(pctx_t *x, nl__word_t *w, int n)
{
    if (n < 2)
        return nl__cfg_fail(&x->at, n ? w[0].col : 1, "expected: receiver NAME URL [options]");
    if (!nl__cfg_name_ok(w[0].s, 64))
        return nl__cfg_fail(&x->at, w[0].col, "bad receiver name '%s'", w[0].s);
    if (receiver_find(x->c, w[0].s) >= 0)
        return nl__cfg_fail(&x->at, w[0].col, "receiver '%s' defined twice", w[0].s);
    if (strlen(w[1].s) > 2048) return nl__cfg_fail(&x->at, w[1].col, "URL too long");
    int i = url_check(x, w[1].col, w[1].s);
    if (i) return i;
    i = receiver_add(x->c, w[0].s, w[1].s);
    if (i < 0)
        return i == NL_EINVAL
                   ? nl__cfg_fail(&x->at, w[0].col, "more than %d receivers", NLA_DEFS_MAX)
                   : i;
    nla_recv_def_t *r = &x->c->r[i];
    for (int k = 2; k < n; k++) {
        char *eq = strchr(w[k].s, '=');
        if (!eq) return nl__cfg_fail(&x->at, w[k].col, "expected name=value, got '%s'", w[k].s);
        *eq = 0;
        const char *o = w[k].s, *v = eq + 1;
        int bad = 0;
        if (!strcmp(o, "timeout"))
            bad = !((r->timeout = dur_opt(v)) > 0);
        else if (!strcmp(o, "backoff"))
            bad = !((r->backoff = dur_opt(v)) > 0);
        else if (!strcmp(o, "backoff.max"))
            bad = !((r->backoff_max = dur_opt(v)) > 0);
        else if (!strcmp(o, "retries"))
            bad = strcmp(v, "forever") ? u32_opt(v, &r->retries)
                                       : (r->retries = NLA_RETRY_FOREVER, 0);
        else if (!strcmp(o, "queue"))
            bad = u32_opt(v, &r->queue) || r->queue < 1;
        else if (!strcmp(o, "ca")) {
            char why[512]; /* TLS opens it: a FIFO there would hang the receiver for ever */
            bad =
                !*v ||
                (strncmp(r->url, "https://", 8) && strncmp(r->url, "alertmanager+https://", 21)) ||
                nl__cfg_set_str(&r->ca, v);
            if (!bad && nl__check_regular(v, why, sizeof why))
                return nl__cfg_fail(&x->at, w[k].col, "ca=%s", why);
        } else if (!strcmp(o, "refresh") || !strcmp(o, "generator")) {
            if (!nla__am_url(r->url))
                return nl__cfg_fail(&x->at, w[k].col,
                                    "%s= is for Alertmanager receivers (alertmanager://)", o);
            if (*o == 'r')
                bad = !((r->refresh = dur_opt(v)) > 0);
            else
                bad = !*v || nl__cfg_set_str(&r->generator, v);
        } else
            return nl__cfg_fail(&x->at, w[k].col, "unknown receiver option '%s'", o);
        if (bad) return nl__cfg_fail(&x->at, w[k].col, "bad value for %s: '%s'", o, v);
    }
    if (r->backoff_max < r->backoff) r->backoff_max = r->backoff;
    return 0;
}

static int parse_group_by(pctx_t *x, nla_route_t *r, const nl__word_t *w, const char *v)
{
    return nl__cfg_names(&x->at, w->col, v, r->group_by, &r->ngroup, NLA_GROUP_MAX, 64,
                         "group.by fields", "group.by field");
}

/* route [kind=K] [name=GLOB] [key=GLOB] [level=L] notify RECEIVER|URL [options] [continue] */
static int do_route(pctx_t *x, nl__word_t *w, int n)
{
    int rc = grow((void **)&x->c->rt, x->c->nrt, sizeof *x->c->rt);
    if (rc)
        return rc == NL_EINVAL ? nl__cfg_fail(&x->at, 1, "more than %d routes", NLA_DEFS_MAX) : rc;
    nla_route_t *r = &x->c->rt[x->c->nrt++];
    *r = (nla_route_t){.level = NL_LVL_TRACE, .recv = -1, .group_interval = -1, .resolve = 1};
    for (int k = 0; k < n; k++) {
        if (!strcmp(w[k].s, "continue")) {
            r->cont = 1;
            continue;
        }
        if (!strcmp(w[k].s, "notify")) {
            if (k + 1 >= n)
                return nl__cfg_fail(&x->at, w[k].col, "'notify' needs a receiver or URL");
            k++;
            if ((r->recv = receiver_for(x, w[k].col, w[k].s)) < 0) return r->recv;
            r = &x->c->rt[x->c->nrt - 1];
            continue;
        }
        char *eq = strchr(w[k].s, '=');
        if (!eq) return nl__cfg_fail(&x->at, w[k].col, "unexpected '%s'", w[k].s);
        *eq = 0;
        const char *o = w[k].s, *v = eq + 1;
        int bad = 0;
        if (!strcmp(o, "kind")) {
            r->kind = !strcmp(v, "anomaly")   ? NLA_ANOMALY
                      : !strcmp(v, "missing") ? NLA_MISSING
                      : !strcmp(v, "alert")   ? NLA_ALERT
                                              : -1;
            if (r->kind < 0)
                return nl__cfg_fail(&x->at, w[k].col, "kind is anomaly, missing or alert, not '%s'",
                                    v);
        } else if (!strcmp(o, "name")) {
            bad = !*v || nl__cfg_set_str(&r->name_glob, v);
        } else if (!strcmp(o, "key")) {
            bad = !*v || nl__cfg_set_str(&r->key_glob, v);
        } else if (!strcmp(o, "level")) {
            bad = (r->level = nl_level_parse(v, strlen(v))) < 0;
        } else if (!strcmp(o, "group.by")) {
            rc = parse_group_by(x, r, &w[k], v);
            if (rc) return rc;
        } else if (!strcmp(o, "group.wait")) {
            bad = (r->group_wait = dur_opt(v)) < 0;
        } else if (!strcmp(o, "group.interval")) {
            bad = (r->group_interval = dur_opt(v)) < 0;
        } else if (!strcmp(o, "resolve")) {
            bad = strcmp(v, "0") && strcmp(v, "1");
            r->resolve = !strcmp(v, "1");
        } else if (!strcmp(o, "runbook")) {
            bad = !*v || nl__cfg_set_str(&r->runbook, v);
        } else {
            return nl__cfg_fail(&x->at, w[k].col, "unknown route option '%s'", o);
        }
        if (bad) return nl__cfg_fail(&x->at, w[k].col, "bad value for %s: '%s'", o, v);
    }
    if (r->recv < 0)
        return nl__cfg_fail(&x->at, n ? w[n - 1].col : 1, "a route needs 'notify RECEIVER|URL'");
    int am = nla__am_url(x->c->r[r->recv].url);
    if (am && !r->resolve) /* else the alert would stay firing there until resolve_timeout */
        return nl__cfg_fail(&x->at, 1,
                            "resolve=0 does not go with an Alertmanager receiver: it must hear "
                            "the end (its send_resolved decides who else does)");
    if (!am && r->runbook)
        return nl__cfg_fail(&x->at, 1, "runbook= is for routes to an Alertmanager receiver");
    if (r->group_interval < 0) r->group_interval = r->group_wait;
    return 0;
}

/* silence KEYGLOB until TIME */
static int do_silence(pctx_t *x, nl__word_t *w, int n)
{
    if (n != 3 || strcmp(w[1].s, "until"))
        return nl__cfg_fail(&x->at, n ? w[0].col : 1, "expected: silence KEYGLOB until TIME");
    int64_t until;
    if (nl_ts_parse(w[2].s, strlen(w[2].s), &until))
        return nl__cfg_fail(&x->at, w[2].col, "bad time '%s' (ISO-8601, e.g. 2026-11-24T18:00:00Z)",
                            w[2].s);
    if (strlen(w[0].s) > 1024) return nl__cfg_fail(&x->at, w[0].col, "glob too long");
    int rc = grow((void **)&x->c->s, x->c->ns, sizeof *x->c->s);
    if (rc)
        return rc == NL_EINVAL ? nl__cfg_fail(&x->at, 1, "more than %d silences", NLA_DEFS_MAX)
                               : rc;
    nla_silence_t *s = &x->c->s[x->c->ns];
    if (!(s->glob = strdup(w[0].s))) return NL_ENOMEM;
    s->until = until;
    x->c->ns++;
    return 0;
}

/* alerts [state=FILE] [silences=FILE] [drain=DUR] */
static int do_alerts(pctx_t *x, nl__word_t *w, int n)
{
    for (int k = 0; k < n; k++) {
        char *eq = strchr(w[k].s, '=');
        if (!eq) return nl__cfg_fail(&x->at, w[k].col, "expected name=value, got '%s'", w[k].s);
        *eq = 0;
        const char *o = w[k].s, *v = eq + 1;
        int bad = 0;
        if (!strcmp(o, "state"))
            bad = !*v || nl__cfg_set_str(&x->c->state, v);
        else if (!strcmp(o, "silences"))
            bad = !*v || nl__cfg_set_str(&x->c->silences, v);
        else if (!strcmp(o, "drain"))
            bad = (x->c->drain = dur_opt(v)) < 0;
        else
            return nl__cfg_fail(&x->at, w[k].col, "unknown alerts setting '%s'", o);
        if (bad) return nl__cfg_fail(&x->at, w[k].col, "bad value for %s: '%s'", o, v);
    }
    return 0;
}

static int directive(void *ctx, nl__word_t *w, int n)
{
    pctx_t *x = ctx;
    const char *kw = w[0].s;
    if (!strcmp(kw, "silence")) return do_silence(x, w + 1, n - 1);
    if (x->silences_only)
        return nl__cfg_fail(&x->at, w[0].col,
                            "a silences file holds 'silence KEYGLOB until TIME' lines only");
    if (!strcmp(kw, "receiver")) return do_receiver(x, w + 1, n - 1);
    if (!strcmp(kw, "route")) return do_route(x, w + 1, n - 1);
    if (!strcmp(kw, "alerts")) return do_alerts(x, w + 1, n - 1);
    return 0; /* the detector's */
}

static int parse(nla_cfg_t *c, const char *text, const char *src, int silences_only, char *err,
                 size_t errlen)
{
    pctx_t x = {
        .at = {.src = src, .err = err, .errlen = errlen}, .c = c, .silences_only = silences_only};
    return nl__cfg_each(text, &x.at, directive, &x);
}

int nla_cfg_parse(nla_cfg_t *c, const char *text, const char *src, char *err, size_t errlen)
{
    return parse(c, text, src, 0, err, errlen);
}

static int parse_obj(void *c, const char *text, const char *src, char *err, size_t errlen)
{
    return nla_cfg_parse(c, text, src, err, errlen);
}

int nla_cfg_load(nla_cfg_t *c, const char *path, char *err, size_t errlen)
{
    return nl__cfg_load(path, parse_obj, c, err, errlen);
}

/* Silences only (the silences file, read again while running): nla_silence.c. */
int nla__silences_parse(nla_cfg_t *c, const char *text, const char *src, char *err, size_t errlen)
{
    return parse(c, text, src, 1, err, errlen);
}

int nla_cfg_notify(nla_cfg_t *c, const char *name, const char *url, char *err, size_t errlen)
{
    pctx_t x = {.at = {.src = "notify", .line = 1, .err = err, .errlen = errlen}, .c = c};
    int rc = grow((void **)&c->rt, c->nrt, sizeof *c->rt);
    if (rc)
        return rc == NL_EINVAL ? nl__cfg_fail(&x.at, 1, "more than %d routes", NLA_DEFS_MAX) : rc;
    int recv = receiver_for(&x, 1, url);
    if (recv < 0) return recv;
    /* First, and letting the routes after it match too: the subscription asked for it. */
    char *glob = strdup(name);
    if (!glob) return NL_ENOMEM;
    memmove(&c->rt[1], &c->rt[0], (size_t)c->nrt * sizeof *c->rt);
    c->rt[0] = (nla_route_t){.kind = NLA_ALERT,
                             .name_glob = glob,
                             .level = NL_LVL_TRACE,
                             .recv = recv,
                             .resolve = 1,
                             .cont = 1};
    c->nrt++;
    return 0;
}

int nla_cfg_active(const nla_cfg_t *c) { return c->nrt > 0; }
