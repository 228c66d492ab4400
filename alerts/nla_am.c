/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_am.c — Alertmanager receivers: nlkit alerts as Alertmanager's alerts (API v2), and a
 * receiver's set of firing alerts, posted again every refresh (nla_am.h). */
#include "nla_am.h"

#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_label.h"
#include "nl_line.h"
#include "nl_list.h"
#include "nl_map.h"
#include "nla_json.h"

#define AM_HTTP "alertmanager://"
#define AM_HTTPS "alertmanager+https://"

int nla__am_url(const char *url)
{
    return !strncmp(url, AM_HTTP, strlen(AM_HTTP)) || !strncmp(url, AM_HTTPS, strlen(AM_HTTPS));
}

char *nla__am_endpoint(const char *url, char *err, size_t errlen)
{
    int tls = !strncmp(url, AM_HTTPS, strlen(AM_HTTPS));
    const char *rest = url + (tls ? strlen(AM_HTTPS) : strlen(AM_HTTP));
    size_t n = strlen(rest);
    while (n && rest[n - 1] == '/') n--; /* a prefix's trailing slash: one before "api" */
    if (!n || *rest == '/' || *rest == ':') {
        snprintf(err, errlen, "'%s': no host (alertmanager://HOST:PORT[/PREFIX])", url);
        return NULL;
    }
    const char *scheme = tls ? "https://" : "http://", *path = "/api/v2/alerts";
    size_t len = strlen(scheme) + n + strlen(path) + 1;
    char *s = malloc(len);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(s, len, "%s%.*s%s", scheme, (int)n, rest, path);
    return s;
}

/* ---- one alert ---------------------------------------------------------------------------- */

static const char *const own_labels[] = {"alertname", "kind",     "severity",    "stream",
                                         "algo",      "activity", "subscription"};

static const char *kind_name(int k)
{
    return k == NLA_ANOMALY ? "anomaly" : k == NLA_MISSING ? "missing" : "alert";
}

/* Alertmanager's usual severities (Prometheus rules say critical, warning, info). */
static const char *severity(int level)
{
    switch (level) {
    case NL_LVL_FATAL: return "critical";
    case NL_LVL_ERROR: return "error";
    case NL_LVL_WARN: return "warning";
    case NL_LVL_INFO: return "info";
    case NL_LVL_DEBUG: return "debug";
    default: return "trace";
    }
}

/* A label name from a field name, as nl-detect's metrics make them (nl-detect(1),
 * METRICS; internal/nl_label.h), with the alert's own labels reserved. */
static void label_name(nl_buf_t *b, const char *s, size_t n)
{
    nl__label_name(b, s, n, own_labels, sizeof own_labels / sizeof own_labels[0]);
}

/* The labels written so far ("\nNAME\n..."), so that two fields that make one label name
 * (a.b and a_b) do not give Alertmanager a duplicate key: the first is kept. */
typedef struct lbls {
    nl_buf_t *b;
    nl_buf_t names;
    char st[512];
    int n;
} lbls_t;

static void label_put(lbls_t *l, const char *name, size_t nlen, const char *v, size_t vlen, int own)
{
    char st[300];
    nl_buf_t nb;
    nl_buf_init(&nb, st, sizeof st);
    nl__putc(&nb, '\n');
    if (own)
        nl__put(&nb, name, nlen);
    else
        label_name(&nb, name, nlen);
    nl__putc(&nb, '\n');
    int dup = nb.err || (l->names.len && memmem(l->names.p, l->names.len, nb.p, nb.len));
    if (!dup) {
        nl__put(&l->names, nb.p, nb.len - 1); /* the next one's leading \n ends it */
        if (l->n++) nl__putc(l->b, ',');
        nla__json_str(l->b, nb.p + 1, nb.len - 2);
        nl__putc(l->b, ':');
        nla__json_str(l->b, v, vlen);
    }
    nl_buf_free(&nb);
}

static int is_field(const nl_field_t *f, const char *name)
{
    return f->name_len == strlen(name) && !memcmp(f->name, name, f->name_len);
}

/* The key fields of the alert's line, as its key has them (nla.c, name_and_key): key.F
 * fields, an anomaly's algo, a missing start's guid and *.id fields. */
static void key_labels(lbls_t *l, int kind, const nl_rec_t *r)
{
    for (int i = 0; i < r->n; i++) {
        const nl_field_t *f = &r->f[i];
        if (f->name_len > 4 && !memcmp(f->name, "key.", 4))
            label_put(l, f->name + 4, f->name_len - 4, f->value, f->value_len, 0);
        else if (kind == NLA_ANOMALY && is_field(f, "algo"))
            label_put(l, "algo", 4, f->value, f->value_len, 1);
        else if (kind == NLA_MISSING &&
                 (is_field(f, "guid") || nl__is_id_field(f->name, f->name_len)))
            label_put(l, f->name, f->name_len, f->value, f->value_len, 0);
    }
}

static void put_fv(nl_buf_t *b, const nl_rec_t *r, const char *name, const char *before)
{
    const nl_field_t *f = nl_rec_get(r, name);
    if (!f) return;
    nl__put(b, before, strlen(before));
    nl__put(b, f->value, f->value_len);
}

/* One line saying what happened: "KEY: x below 50 (value 10)", "KEY: unusual x=10 (low,
 * score 0.99)", "KEY: started at T, no end within 300 s". */
static void summary(nl_buf_t *b, const nla_alert_t *al, const nl_rec_t *r)
{
    nl__put(b, al->key, strlen(al->key));
    nl__put(b, ":", 1);
    if (al->kind == NLA_ALERT) {
        put_fv(b, r, "what", " ");
        put_fv(b, r, "cond", " ");
        put_fv(b, r, "threshold", " ");
        put_fv(b, r, "value", " (value ");
        if (nl_rec_get(r, "value")) nl__putc(b, ')');
    } else if (al->kind == NLA_ANOMALY) {
        nl__put(b, " unusual", 8);
        put_fv(b, r, "x", " x=");
        put_fv(b, r, "dir", " (");
        put_fv(b, r, "score", nl_rec_get(r, "dir") ? ", score " : " (score ");
        if (nl_rec_get(r, "dir") || nl_rec_get(r, "score")) nl__putc(b, ')');
    } else {
        nl__put(b, " started", 8);
        put_fv(b, r, "start.ts", " at ");
        put_fv(b, r, "timeout", ", no end within ");
        if (nl_rec_get(r, "timeout")) nl__put(b, " s", 2);
    }
}

/* A URL template with {name} and {kind} replaced, the name percent-encoded (RFC 3986:
 * unreserved characters kept). */
static void url_expand(nl_buf_t *b, const char *t, const nla_alert_t *al)
{
    while (*t) {
        if (!strncmp(t, "{name}", 6)) {
            for (const unsigned char *p = (const unsigned char *)al->name; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
                    nl__putc(b, (char)*p);
                } else {
                    char e[4];
                    snprintf(e, sizeof e, "%%%02X", *p);
                    nl__put(b, e, 3);
                }
            }
            t += 6;
        } else if (!strncmp(t, "{kind}", 6)) {
            nl__put(b, kind_name(al->kind), strlen(kind_name(al->kind)));
            t += 6;
        } else {
            nl__putc(b, *t++);
        }
    }
}

static void annotation(nl_buf_t *b, const char *name, const nl_buf_t *v, int first)
{
    nla__json_key(b, name, first);
    nla__json_str(b, v->p ? v->p : "", v->len);
}

void nla__am_alert(nl_buf_t *body, nl_buf_t *entries, const nla_alert_t *al, const char *runbook,
                   const char *generator, int first)
{
    nl_rec_t r;
    nl_rec_init(&r);
    nl_perr_t pe;
    if (nl_parse(&r, al->line, al->line_len, 1, NL_PARSE_LENIENT, &pe) != 1) r.n = 0;
    char st[2048], tt[512];
    nl_buf_t o, t;
    nl_buf_init(&o, st, sizeof st);
    nl_buf_init(&t, tt, sizeof tt);
    o.limit = t.limit = (size_t)64 << 20;

    /* labels first: an entry's label set is the object's first LABELSLEN bytes */
    lbls_t l = {.b = &o};
    nl_buf_init(&l.names, l.st, sizeof l.st);
    nl__put(&o, "{\"labels\":{", 11);
    const char *kn = kind_name(al->kind), *sv = severity(al->level);
    label_put(&l, "alertname", 9, al->name, strlen(al->name), 1);
    label_put(&l, "kind", 4, kn, strlen(kn), 1);
    label_put(&l, "severity", 8, sv, strlen(sv), 1);
    const char *nl = al->kind == NLA_ANOMALY   ? "stream"
                     : al->kind == NLA_MISSING ? "activity"
                                               : "subscription";
    label_put(&l, nl, strlen(nl), al->name, strlen(al->name), 1);
    key_labels(&l, al->kind, &r);
    nl__putc(&o, '}');
    size_t labels_len = o.len;
    nl_buf_free(&l.names);

    nl__put(&o, ",\"annotations\":{", 16);
    summary(&t, al, &r);
    annotation(&o, "summary", &t, 1);
    t.len = 0;
    size_t ll = al->line_len;
    while (ll && (al->line[ll - 1] == '\n' || al->line[ll - 1] == '\r')) ll--;
    nl__put(&t, al->line, ll);
    annotation(&o, "description", &t, 0);
    if (runbook) {
        t.len = 0;
        url_expand(&t, runbook, al);
        annotation(&o, "runbook_url", &t, 0);
    }
    nl__putc(&o, '}');
    nla__json_key(&o, "startsAt", 0);
    nla__json_ts(&o, al->start);
    if (!al->firing) { /* Alertmanager refuses an end before the start */
        nla__json_key(&o, "endsAt", 0);
        nla__json_ts(&o, al->end > al->start ? al->end : al->start);
    }
    if (generator) {
        t.len = 0;
        url_expand(&t, generator, al);
        annotation(&o, "generatorURL", &t, 0);
    }
    nl__putc(&o, '}');
    nl_rec_free(&r);

    if (!first) nl__putc(body, ',');
    nl__put(body, o.p, o.len);
    char hd[48];
    int hn = snprintf(hd, sizeof hd, "%zu %d ", labels_len, al->firing ? 1 : 0);
    nl__put(entries, hd, (size_t)hn);
    nl__put(entries, o.p, o.len);
    nl__putc(entries, '\n');
    if (o.err) body->err = entries->err = o.err; /* nothing half written goes out */
    nl_buf_free(&o);
    nl_buf_free(&t);
}

/* ---- the firing set ----------------------------------------------------------------------- */

typedef struct am_ent {
    struct am_ent *prev, *next;
    nl__ment_t *ment; /* labels -> entry */
    char *obj;
    size_t len;
} am_ent_t;

struct nla_am_set {
    nl__map_t by_labels;
    am_ent_t *head, *tail;
    size_t bytes; /* of the objects, for the body */
};

nla_am_set_t *nla__am_set_new(void)
{
    nla_am_set_t *s = calloc(1, sizeof *s);
    if (s) nl__map_init(&s->by_labels, 0x616d736574ULL);
    return s;
}

static void ent_del(nla_am_set_t *s, am_ent_t *e)
{
    NL__DL_UNLINK(s->head, s->tail, e);
    nl__map_del(&s->by_labels, e->ment->key, e->ment->klen);
    s->bytes -= e->len;
    free(e->obj);
    free(e);
}

void nla__am_set_free(nla_am_set_t *s)
{
    if (!s) return;
    while (s->head) ent_del(s, s->head);
    nl__map_free(&s->by_labels);
    free(s);
}

/* One entry "LABELSLEN FIRING OBJECT": 0, or -1 (unreadable, out of memory). */
static int apply_one(nla_am_set_t *s, const char *p, size_t n)
{
    char *end;
    unsigned long long ll = strtoull(p, &end, 10);
    if (end == p || (size_t)(end - p) + 3 > n || end[0] != ' ' ||
        (end[1] != '0' && end[1] != '1') || end[2] != ' ')
        return -1;
    int firing = end[1] == '1';
    const char *obj = end + 3;
    size_t olen = n - (size_t)(obj - p);
    if (ll == 0 || ll > olen) return -1;
    am_ent_t *e = nl__map_get(&s->by_labels, obj, (size_t)ll);
    if (!firing) {
        if (e) ent_del(s, e);
        return 0;
    }
    char *copy = malloc(olen);
    if (!copy) return -1;
    memcpy(copy, obj, olen);
    if (e) { /* the same alert again: the newest annotations and times */
        s->bytes += olen - e->len;
        free(e->obj);
        e->obj = copy;
        e->len = olen;
        return 0;
    }
    if (!(e = calloc(1, sizeof *e)) ||
        !(e->ment = nl__map_put(&s->by_labels, obj, (size_t)ll, e))) {
        free(e);
        free(copy);
        return -1;
    }
    e->obj = copy;
    e->len = olen;
    s->bytes += olen;
    NL__DL_APPEND(s->head, s->tail, e);
    return 0;
}

int nla__am_set_apply(nla_am_set_t *s, const char *entries, size_t len)
{
    int rc = 0;
    const char *p = entries, *end = entries + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n && apply_one(s, p, n)) rc = -1;
        p += n + 1;
    }
    return rc;
}

size_t nla__am_set_count(const nla_am_set_t *s) { return s->by_labels.n; }

char *nla__am_set_body(const nla_am_set_t *s, size_t *len)
{
    size_t cap = s->bytes + s->by_labels.n + 3;
    char *b = malloc(cap), *w = b;
    if (!b) return NULL;
    *w++ = '[';
    for (am_ent_t *e = s->head; e; e = e->next) {
        if (e != s->head) *w++ = ',';
        memcpy(w, e->obj, e->len);
        w += e->len;
    }
    *w++ = ']';
    *w = 0;
    *len = (size_t)(w - b);
    return b;
}
