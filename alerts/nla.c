/* SPDX-License-Identifier: BSD-3-Clause */
/* nla.c — the alert layer: alerts open and resolved, routed into groups, a group's change
 * made into one notification when it is due, handed to the route's receiver. */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "nl_buf.h"
#include "nl_clock.h"
#include "nl_line.h"
#include "nl_list.h"
#include "nl_num.h"
#include "nla_am.h"
#include "nla_int.h"
#include "nla_json.h"

static const char *kind_name(int k)
{
    return k == NLA_ANOMALY ? "anomaly" : k == NLA_MISSING ? "missing" : "alert";
}

/* ---- alerts ------------------------------------------------------------------------------ */

static void put_field(nl_buf_t *b, const char *name, size_t nlen, const char *v, size_t vlen)
{
    nl__putc(b, ' ');
    nl__put(b, name, nlen);
    nl__putc(b, '=');
    nl__put(b, v, vlen);
}

/* The alert's name and key from its line: NAME, then the stream's algorithm, the key.F
 * fields, a missing start's guid and *.id fields. */
static int name_and_key(nla_alert_t *al, const nl_rec_t *r)
{
    const char *nf = al->kind == NLA_ANOMALY   ? "stream"
                     : al->kind == NLA_MISSING ? "activity"
                                               : "name";
    const nl_field_t *n = nl_rec_get(r, nf);
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    if (n) nl__put(&b, n->value, n->value_len);
    if (!(al->name = strndup(b.p ? b.p : "", b.len))) return -1;
    for (int i = 0; i < r->n; i++) {
        const nl_field_t *f = &r->f[i];
        if (f->name_len > 4 && !memcmp(f->name, "key.", 4))
            put_field(&b, f->name + 4, f->name_len - 4, f->value, f->value_len);
        else if (al->kind == NLA_ANOMALY && f->name_len == 4 && !memcmp(f->name, "algo", 4))
            put_field(&b, f->name, f->name_len, f->value, f->value_len);
        else if (al->kind == NLA_MISSING && ((f->name_len == 4 && !memcmp(f->name, "guid", 4)) ||
                                             nl__is_id_field(f->name, f->name_len)))
            put_field(&b, f->name, f->name_len, f->value, f->value_len);
    }
    int rc = b.err ? -1 : (al->key = strndup(b.p, b.len)) ? 0 : -1;
    nl_buf_free(&b);
    return rc;
}

static void alert_free(nla_t *a, nla_alert_t *al)
{
    NL__DL_UNLINK(a->a_head, a->a_tail, al);
    nl__map_del(&a->alerts, al->ment->key, al->ment->klen);
    free(al->name);
    free(al->key);
    free(al->line);
    free(al->end_line);
    free(al->end_why);
    free(al);
}

static nla_alert_t *alert_add(nla_t *a, const char *id, size_t id_len, int kind, int level,
                              int64_t start, const char *line, size_t len)
{
    nla_alert_t *al = calloc(1, sizeof *al);
    if (!al) return NULL;
    al->kind = kind;
    al->level = level;
    al->start = start;
    al->end = INT64_MIN;
    al->firing = 1;
    nl_rec_t r;
    nl_rec_init(&r);
    nl_perr_t pe;
    int ok = (al->line = malloc(len + 1)) != NULL;
    if (ok) {
        memcpy(al->line, line, len);
        al->line[len] = 0;
        al->line_len = len;
    }
    ok = ok && nl_parse(&r, line, len, 1, NL_PARSE_LENIENT, &pe) == 1 && !name_and_key(al, &r);
    nl_rec_free(&r);
    if (!ok || !(al->ment = nl__map_put(&a->alerts, id, id_len, al))) {
        free(al->line);
        free(al->name);
        free(al->key);
        free(al);
        return NULL;
    }
    NL__DL_APPEND(a->a_head, a->a_tail, al);
    return al;
}

/* ---- routes and groups ------------------------------------------------------------------- */

static int route_takes(const nla_route_t *rt, const nla_alert_t *al)
{
    if (rt->kind && rt->kind != al->kind) return 0;
    if (al->level > rt->level) return 0;
    if (rt->name_glob && fnmatch(rt->name_glob, al->name, 0)) return 0;
    if (rt->key_glob && fnmatch(rt->key_glob, al->key, 0)) return 0;
    return 1;
}

/* The group key of an alert under a route: "F=V,..." of its group.by fields, or the
 * alert's own key (each alert its own group). */
static int group_key(const nla_route_t *rt, const nla_alert_t *al, nl_buf_t *b)
{
    if (!rt->ngroup) {
        nl__put(b, al->key, strlen(al->key));
        return b->err;
    }
    nl_rec_t r;
    nl_rec_init(&r);
    nl_perr_t pe;
    int parsed = nl_parse(&r, al->line, al->line_len, 1, NL_PARSE_LENIENT, &pe) == 1;
    for (int i = 0; i < rt->ngroup; i++) {
        const char *f = rt->group_by[i];
        if (i) nl__putc(b, ',');
        nl__put(b, f, strlen(f));
        nl__putc(b, '=');
        if (!strcmp(f, "name")) {
            nl__put(b, al->name, strlen(al->name));
        } else if (!strcmp(f, "kind")) {
            nl__put(b, kind_name(al->kind), strlen(kind_name(al->kind)));
        } else if (parsed) {
            char kf[80];
            snprintf(kf, sizeof kf, "key.%s", f);
            const nl_field_t *v = nl_rec_get(&r, kf);
            if (!v) v = nl_rec_get(&r, f);
            if (v) nl__put(b, v->value, v->value_len);
        }
    }
    nl_rec_free(&r);
    return b->err;
}

static nla_group_t *group_get(nla_t *a, int route, const char *key, size_t klen)
{
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nl__put(&b, (const char *)&route, sizeof route);
    nl__put(&b, key, klen);
    nla_group_t *g = b.err ? NULL : nl__map_get(&a->groups, b.p, b.len);
    if (g || b.err) goto out;
    g = calloc(1, sizeof *g);
    if (!g || !(g->key = strndup(key, klen)) ||
        !(g->ment = nl__map_put(&a->groups, b.p, b.len, g))) {
        if (g) free(g->key);
        free(g);
        g = NULL;
        goto out;
    }
    g->route = route;
    g->first = a->now;
    g->last_sent = INT64_MIN;
    g->due = INT64_MAX;
    NL__DL_APPEND(a->g_head, a->g_tail, g);
out:
    nl_buf_free(&b);
    return g;
}

static void group_free(nla_t *a, nla_group_t *g)
{
    NL__DL_UNLINK(a->g_head, a->g_tail, g);
    nl__map_del(&a->groups, g->ment->key, g->ment->klen);
    free(g->key);
    free(g);
}

/* Something in the group changed: it goes out group.wait after the group began (its first
 * notification), or group.interval after the last one. */
void nla__group_changed(nla_t *a, nla_group_t *g)
{
    if (g->due != INT64_MAX) return;
    const nla_route_t *rt = &a->cfg->rt[g->route];
    if (g->last_sent == INT64_MIN) {
        g->due = g->first + (int64_t)(rt->group_wait * 1e6);
    } else {
        int64_t t = g->last_sent + (int64_t)(rt->group_interval * 1e6);
        g->due = t > a->now ? t : a->now;
    }
    if (g->due < a->next_due) a->next_due = g->due;
}

static void member_unlink(nla_member_t *m)
{
    nla_group_t *g = m->g;
    if (m->gprev)
        m->gprev->gnext = m->gnext;
    else
        g->head = m->gnext;
    if (m->gnext) m->gnext->gprev = m->gprev;
    nla_member_t **pp = &m->al->members;
    while (*pp != m) pp = &(*pp)->anext;
    *pp = m->anext;
    free(m);
}

/* Put a new alert into the groups of the routes that take it. */
static void route_alert(nla_t *a, nla_alert_t *al, int sent)
{
    int taken = 0;
    for (int i = 0; i < a->cfg->nrt; i++) {
        const nla_route_t *rt = &a->cfg->rt[i];
        if (!route_takes(rt, al)) continue;
        taken = 1;
        char st[512];
        nl_buf_t b;
        nl_buf_init(&b, st, sizeof st);
        nla_group_t *g = group_key(rt, al, &b) ? NULL : group_get(a, i, b.p, b.len);
        nl_buf_free(&b);
        nla_member_t *m = g ? calloc(1, sizeof *m) : NULL;
        if (!m) {
            a->n.state_errors++;
            fprintf(a->diag, "nl-detect: alerts: out of memory routing %s\n", al->key);
            if (!rt->cont) break;
            continue;
        }
        m->al = al;
        m->g = g;
        m->sent = sent;
        nla_member_t *last = g->head;
        while (last && last->gnext) last = last->gnext;
        m->gprev = last;
        if (last)
            last->gnext = m;
        else
            g->head = m;
        m->anext = al->members;
        al->members = m;
        if (al->silenced)
            a->n.silenced++;
        else if (!sent)
            nla__group_changed(a, g);
        if (!rt->cont) break;
    }
    if (!taken) a->n.unrouted++;
}

/* A group read back from the state file (before its alerts): its notifications go on
 * numbered after the last run's, at its interval. 0, or -1 out of memory. */
static int group_restore(nla_t *a, int route, const char *key, size_t klen, uint32_t seq,
                         int64_t first, int64_t last_sent)
{
    if (route < 0 || route >= a->cfg->nrt) return 0; /* the configuration changed: let go */
    nla_group_t *g = group_get(a, route, key, klen);
    if (!g) return -1;
    g->seq = seq;
    g->first = first;
    g->last_sent = last_sent;
    return 0;
}

/* An alert read back from the state file into its routes' groups: notified ones as sent,
 * and an end not yet sent due to go out. */
static void route_restored(nla_t *a, nla_alert_t *al)
{
    route_alert(a, al, al->notified);
    if (!al->firing)
        for (nla_member_t *m = al->members; m; m = m->anext) nla__group_changed(a, m->g);
    if (!al->members) alert_free(a, al);
}

/* ---- notifications ----------------------------------------------------------------------- */

static void json_member(nl_buf_t *b, const nla_alert_t *al, int news, int first)
{
    if (!first) nl__putc(b, ',');
    nl__putc(b, '{');
    nla__json_key(b, "id", 1);
    char id[1100];
    int n = snprintf(id, sizeof id, "%s:%s", kind_name(al->kind), al->key);
    nla__json_str(b, id, n < (int)sizeof id ? (size_t)n : sizeof id - 1);
    nla__json_key(b, "kind", 0);
    nla__json_str(b, kind_name(al->kind), strlen(kind_name(al->kind)));
    nla__json_key(b, "name", 0);
    nla__json_str(b, al->name, strlen(al->name));
    nla__json_key(b, "key", 0);
    nla__json_str(b, al->key, strlen(al->key));
    nla__json_key(b, "status", 0);
    nla__json_str(b, al->firing ? "firing" : "resolved", al->firing ? 6 : 8);
    nla__json_key(b, "new", 0);
    nl__put(b, news ? "true" : "false", news ? 4 : 5);
    nla__json_key(b, "level", 0);
    const char *lv = nl_level_name(al->level);
    nla__json_str(b, lv ? lv : "", lv ? strlen(lv) : 0);
    nla__json_key(b, "start", 0);
    nla__json_ts(b, al->start);
    nla__json_key(b, "end", 0);
    nla__json_ts(b, al->end);
    nla__json_key(b, "end_reason", 0);
    if (al->end_why)
        nla__json_str(b, al->end_why, strlen(al->end_why));
    else
        nl__put(b, "null", 4);
    nl_rec_t r;
    nl_rec_init(&r);
    nl_perr_t pe;
    if (nl_parse(&r, al->line, al->line_len, 1, NL_PARSE_LENIENT, &pe) == 1) {
        const nl_field_t *f = nl_rec_get(&r, "score");
        double v = NAN;
        nla__json_key(b, "score", 0);
        if (f) nl__strtod(f->value, f->value_len, &v);
        nla__json_num(b, v);
        f = nl_rec_get(&r, al->kind == NLA_ALERT ? "value" : "x");
        v = NAN;
        if (f) nl__strtod(f->value, f->value_len, &v);
        nla__json_key(b, "value", 0);
        nla__json_num(b, v);
        nla__json_key(b, "fields", 0);
        nla__json_fields(b, &r);
    }
    if (al->end_line && nl_parse(&r, al->end_line, al->end_len, 1, NL_PARSE_LENIENT, &pe) == 1) {
        nla__json_key(b, "end_fields", 0);
        nla__json_fields(b, &r);
    }
    nl_rec_free(&r);
    nl__putc(b, '}');
}

static char *buf_dup(const nl_buf_t *b, size_t *len)
{
    char *s = malloc(b->len + 1);
    if (!s) return NULL;
    memcpy(s, b->p, b->len);
    s[b->len] = 0;
    if (len) *len = b->len;
    return s;
}

/* A member is news in this notification: not yet notified (firing, or begun and ended in
 * the wait), or notified firing and now resolved (if the route sends resolves). */
static int is_news(const nla_route_t *rt, const nla_member_t *m)
{
    if (m->al->silenced) return 0;
    if (!m->sent) return 1;
    return !m->al->firing && rt->resolve;
}

/* Send a due group: one notification listing its firing members and those that resolved,
 * marking which are news. Members done are dropped, and alerts no group holds. */
static void group_flush(nla_t *a, nla_group_t *g)
{
    const nla_route_t *rt = &a->cfg->rt[g->route];
    g->due = INT64_MAX;
    int news = 0, firing = 0;
    uint32_t count = 0;
    for (nla_member_t *m = g->head; m; m = m->gnext) {
        if (is_news(rt, m)) news++;
        if (!m->al->silenced && (m->al->firing || is_news(rt, m))) {
            count++;
            firing += m->al->firing;
        }
    }
    nla_note_t *n = NULL;
    if (news && (n = calloc(1, sizeof *n))) {
        char st[4096], lt[2048];
        nl_buf_t b, lb;
        nl_buf_init(&b, st, sizeof st);
        nl_buf_init(&lb, lt, sizeof lt);
        b.limit = lb.limit = (size_t)64 << 20;
        char idt[1400];
        snprintf(idt, sizeof idt, "r%d/%s/%lld/%u", g->route + 1, g->key, (long long)g->first,
                 g->seq + 1);
        const char *status = firing ? "firing" : "resolved";
        /* to an Alertmanager: its alerts only (it groups, and tells firing from resolved by
         * endsAt); else nlkit's notification */
        int am = nla__recv_is_am(a->recv[rt->recv]);
        nl__putc(&b, am ? '[' : '{');
        if (!am) {
            nla__json_key(&b, "version", 1);
            nl__putc(&b, '1');
            nla__json_key(&b, "id", 0);
            nla__json_str(&b, idt, strlen(idt));
            nla__json_key(&b, "receiver", 0);
            const char *rn = a->cfg->r[rt->recv].name;
            nla__json_str(&b, rn, strlen(rn));
            nla__json_key(&b, "route", 0);
            char rnum[16];
            nl__put(&b, rnum, (size_t)snprintf(rnum, sizeof rnum, "%d", g->route + 1));
            nla__json_key(&b, "status", 0);
            nla__json_str(&b, status, strlen(status));
            nla__json_key(&b, "group", 0);
            nla__json_str(&b, g->key, strlen(g->key));
            nla__json_key(&b, "seq", 0);
            nl__put(&b, rnum, (size_t)snprintf(rnum, sizeof rnum, "%u", g->seq + 1));
            nla__json_key(&b, "count", 0);
            nl__put(&b, rnum, (size_t)snprintf(rnum, sizeof rnum, "%u", count));
            nla__json_key(&b, "firing", 0);
            nl__put(&b, rnum, (size_t)snprintf(rnum, sizeof rnum, "%d", firing));
            nla__json_key(&b, "alerts", 0);
            nl__putc(&b, '[');
        }
        int first = 1;
        const char *first_key = "";
        for (nla_member_t *m = g->head; m; m = m->gnext) {
            int nw = is_news(rt, m);
            if (m->al->silenced || !(m->al->firing || nw)) continue;
            if (first) first_key = m->al->key;
            if (am) { /* every member listed, firing or ended: what Alertmanager should hold */
                nla__am_alert(&b, &lb, m->al, rt->runbook, a->cfg->r[rt->recv].generator, first);
                first = 0;
                continue;
            }
            /* "new": not in an earlier notification of the group; a resolve of a member
             * notified firing is news to send, but not a new member (nl-detect(1)) */
            json_member(&b, m->al, nw && !m->sent, first);
            first = 0;
            if (!nw) continue;
            if (m->al->firing || !m->sent) nl__put(&lb, m->al->line, m->al->line_len);
            if (!m->al->firing && m->al->end_line) nl__put(&lb, m->al->end_line, m->al->end_len);
        }
        nl__put(&b, "]}", am ? 1 : 2);
        n->id = strdup(idt);
        n->status = strdup(status);
        n->group = strdup(g->key);
        n->first = strdup(first_key);
        n->count = count;
        n->json = b.err ? NULL : buf_dup(&b, &n->json_len);
        n->lines = lb.err ? NULL : buf_dup(&lb, &n->lines_len);
        nl_buf_free(&b);
        nl_buf_free(&lb);
        if (!n->id || !n->status || !n->group || !n->first || !n->json || !n->lines) {
            nla__note_free(n);
            n = NULL;
            a->n.state_errors++;
            fprintf(a->diag, "nl-detect: alerts: out of memory making notification %s\n", idt);
        }
    }
    /* mark what went out; drop what is done */
    for (nla_member_t *m = g->head, *nx; m; m = nx) {
        nx = m->gnext;
        if (n && is_news(rt, m)) {
            m->sent = 1;
            if (m->al->firing) m->al->notified = 1;
        }
        if (!m->al->firing && (m->sent || m->al->silenced || !n)) {
            nla_alert_t *al = m->al;
            member_unlink(m);
            if (!al->members) alert_free(a, al);
        }
    }
    if (n) {
        g->seq++;
        g->last_sent = a->now;
        a->n.notifications++;
        a->dirty = 1;
        nla__recv_push(a->recv[rt->recv], n);
    }
    if (!g->head) group_free(a, g);
}

/* Groups read back from the state file that no alert joined. */
static void drop_empty_groups(nla_t *a)
{
    for (nla_group_t *g = a->g_head, *nx; g; g = nx) {
        nx = g->next;
        if (!g->head) group_free(a, g);
    }
}

/* Send the groups that are due: all of them (end of input), those due before now, or (when
 * the input is idle) also those due now. Not those due at this very time while lines go on
 * coming: more of the same instant may still join (forty hosts reporting one second). */
static void flush_due(nla_t *a, int all, int idle)
{
    if (!all && (idle ? a->now < a->next_due : a->now <= a->next_due)) return;
    a->next_due = INT64_MAX;
    for (nla_group_t *g = a->g_head, *nx; g; g = nx) {
        nx = g->next;
        if (g->due != INT64_MAX && (all || g->due < a->now || (idle && g->due == a->now)))
            group_flush(a, g);
        else if (g->due < a->next_due)
            a->next_due = g->due;
    }
}

/* Alertmanager receivers learn the alerts the state file says were notified firing, and
 * post them again at once: Alertmanager lets go of an alert that is not sent again within
 * its resolve_timeout, as it may have while nl-detect was not running. */
static void seed_am(nla_t *a)
{
    for (nla_group_t *g = a->g_head; g; g = g->next) {
        const nla_route_t *rt = &a->cfg->rt[g->route];
        if (!nla__recv_is_am(a->recv[rt->recv])) continue;
        char st[2048], lt[2048];
        nl_buf_t b, lb;
        nl_buf_init(&b, st, sizeof st);
        nl_buf_init(&lb, lt, sizeof lt);
        int first = 1;
        for (nla_member_t *m = g->head; m; m = m->gnext)
            if (m->sent && m->al->firing && !m->al->silenced) {
                nla__am_alert(&b, &lb, m->al, rt->runbook, a->cfg->r[rt->recv].generator, first);
                first = 0;
            }
        if (!first && !lb.err) nla__recv_seed(a->recv[rt->recv], lb.p, lb.len);
        nl_buf_free(&b);
        nl_buf_free(&lb);
    }
}

/* ---- the layer --------------------------------------------------------------------------- */

static int curl_users; /* curl_global_init once for all layers in the process */

nla_t *nla_new(const nla_cfg_t *cfg, nl_log_t *out, FILE *diag, char *err, size_t errlen)
{
    nla_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->cfg = cfg;
    a->out = out;
    a->diag = diag ? diag : stderr;
    a->now = INT64_MIN;
    a->next_due = INT64_MAX;
    a->silence_next = INT64_MAX;
    nla_cfg_init(&a->file);
    nl__map_init(&a->alerts, 0x616c65727473ULL);
    nl__map_init(&a->groups, 0x67726f757073ULL);
    if (curl_users++ == 0 && curl_global_init(CURL_GLOBAL_DEFAULT)) {
        snprintf(err, errlen, "cannot initialise libcurl");
        nla_free(a);
        return NULL;
    }
    if (!(a->recv = calloc((size_t)cfg->nr + 1, sizeof *a->recv))) {
        snprintf(err, errlen, "out of memory");
        nla_free(a);
        return NULL;
    }
    for (int i = 0; i < cfg->nr; i++)
        if (!(a->recv[i] = nla__recv_new(&cfg->r[i], out, a->diag, err, errlen))) {
            nla_free(a);
            return NULL;
        }
    nla__silences_reload(a);
    a->silences_changed = 1;
    static const nla_restore_ops_t restore = {alert_add, group_restore, route_restored};
    if (nla__state_load(a, &restore, err, errlen)) {
        nla_free(a);
        return NULL;
    }
    drop_empty_groups(a);
    seed_am(a);
    a->last_check = nl__mono_s();
    return a;
}

void nla_open_each(nla_t *a, void (*fn)(void *ctx, const char *id, size_t len, int64_t start),
                   void *ctx)
{
    for (nla_alert_t *al = a->a_head; al; al = al->next)
        if (al->firing) fn(ctx, al->ment->key, al->ment->klen, al->start);
}

void nla_report(nla_t *a, const nla_report_t *r)
{
    if (r->ts > a->now) a->now = r->ts;
    nla_alert_t *al = nl__map_get(&a->alerts, r->id, r->id_len);
    if (r->phase == NLA_START) {
        if (al && al->firing) { /* open already: a restart's, carried on */
            a->n.resumed++;
            return;
        }
        if (al) { /* ended, but the end not sent yet: still one alert, as receivers saw it */
            al->firing = 1;
            al->end = INT64_MIN;
            free(al->end_line);
            free(al->end_why);
            al->end_line = al->end_why = NULL;
            al->end_len = 0;
            a->n.resumed++;
            return;
        }
        al = alert_add(a, r->id, r->id_len, r->kind, r->level, r->ts, r->line, r->len);
        if (!al) {
            a->n.state_errors++;
            fprintf(a->diag, "nl-detect: alerts: cannot take an alert (out of memory)\n");
            return;
        }
        a->n.opened++;
        a->dirty = 1;
        al->silenced = nla__silenced(a, al->key, r->ts);
        route_alert(a, al, 0);
        if (!al->members) alert_free(a, al);
    } else {
        if (!al || !al->firing) return;
        if (r->why && !strcmp(r->why, "ongoing")) return; /* open at the end of input */
        al->firing = 0;
        al->end = r->ts;
        free(al->end_line);
        if ((al->end_line = malloc(r->len + 1))) {
            memcpy(al->end_line, r->line, r->len);
            al->end_line[r->len] = 0;
            al->end_len = r->len;
        }
        al->end_why = r->why ? strdup(r->why) : NULL;
        a->n.resolved++;
        a->dirty = 1;
        for (nla_member_t *m = al->members; m; m = m->anext) nla__group_changed(a, m->g);
    }
    flush_due(a, 0, 0);
}

void nla_tick(nla_t *a, int64_t now, int idle)
{
    if (now > a->now) a->now = now;
    if (a->now >= a->silence_next) a->silences_changed = 1;
    /* the wall clock read once every 256 lines (or when idle): this runs for every line */
    double t = idle || (++a->ticks & 255) == 0 ? nl__mono_s() : a->last_check;
    if (t - a->last_check >= 1.0) { /* the files, at most once a second of wall clock */
        a->last_check = t;
        nla__silences_reload(a);
        int changed = a->dirty;
        for (int i = 0; i < a->cfg->nr; i++) changed |= nla__recv_changed(a->recv[i]);
        if (changed && a->cfg->state && !nla__state_save(a, NULL, 0)) a->dirty = 0;
    }
    if (a->silences_changed) { /* a silence ended or the file changed: look again */
        a->silences_changed = 0;
        nla__silences_next(a);
        for (nla_alert_t *al = a->a_head; al; al = al->next) {
            if (!al->firing) continue;
            int s = nla__silenced(a, al->key, a->now);
            if (s == al->silenced) continue;
            al->silenced = s;
            if (!s) /* let go: its routes hear of it now */
                for (nla_member_t *m = al->members; m; m = m->anext)
                    if (!m->sent) nla__group_changed(a, m->g);
        }
    }
    flush_due(a, 0, idle);
}

void nla_finish(nla_t *a)
{
    flush_due(a, 1, 1); /* what waits for its group.wait goes now: input has ended */
    double until = nl__mono_s() + a->cfg->drain;
    for (int i = 0; i < a->cfg->nr; i++) {
        double left = until - nl__mono_s();
        nla__recv_drain(a->recv[i], left > 0 ? left : 0);
    }
    nla_note_t **left = calloc((size_t)a->cfg->nr + 1, sizeof *left);
    for (int i = 0; i < a->cfg->nr; i++) {
        nla_note_t *q = nla__recv_stop(a->recv[i]);
        for (nla_note_t *n = q; n; n = n->next) a->n.pending++;
        if (left)
            left[i] = q;
        else
            while (q) {
                nla_note_t *nx = q->next;
                nla__note_free(q);
                q = nx;
            }
    }
    if (a->cfg->state && left && !nla__state_save(a, left, 1)) a->n.saved = a->n.pending;
    if (a->n.pending)
        fprintf(a->diag, "nl-detect: %llu notification(s) not delivered within %g s%s\n",
                (unsigned long long)a->n.pending, a->cfg->drain,
                a->n.saved ? ": kept in the state file for the next run" : ": lost");
    for (int i = 0; left && i < a->cfg->nr; i++)
        while (left[i]) {
            nla_note_t *nx = left[i]->next;
            nla__note_free(left[i]);
            left[i] = nx;
        }
    free(left);
}

void nla_counts(const nla_t *a, nla_counts_t *c)
{
    *c = a->n;
    for (int i = 0; i < a->cfg->nr; i++) {
        nla_recv_counts_t rc;
        nla__recv_counts(a->recv[i], &rc);
        c->delivered += rc.delivered;
        c->failures += rc.failures;
        c->given_up += rc.given_up;
        c->dropped += rc.dropped;
    }
}

void nla_free(nla_t *a)
{
    if (!a) return;
    for (int i = 0; a->recv && i < a->cfg->nr; i++) nla__recv_free(a->recv[i]);
    free(a->recv);
    while (a->g_head) {
        nla_group_t *g = a->g_head;
        while (g->head) member_unlink(g->head);
        group_free(a, g);
    }
    while (a->a_head) alert_free(a, a->a_head);
    nl__map_free(&a->alerts);
    nl__map_free(&a->groups);
    nla_cfg_free(&a->file);
    if (--curl_users == 0) curl_global_cleanup();
    free(a);
}
