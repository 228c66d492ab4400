/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_replay.c — lines written in full, folded by the summarizer as if they were being
 * written (../internal/nl_replay.h; nl-load --summarize). Each program, told apart by its
 * host, prog and pid fields (nl_const_std's constants), gets a log of its own: those
 * fields as its constants, the rules, and a clock that reads the current line's time.
 * Its lines go to a temporary file, write-through, read back after each step and handed
 * to the caller: the summaries are the library's own lines, from the library's code. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_line.h"
#include "nl_map.h"
#include "nl_replay.h"
#include "nls_int.h"

/* One program's log. */
typedef struct rgroup {
    struct rgroup *next;
    nl_log_t *log;
    nls_t *s;
    int fd;              /* the log's file, read back */
    _Atomic int64_t now; /* the clock (ns): the current line's time (the flusher reads it) */
    int64_t due;         /* the next interval boundary */
    int64_t last;        /* its last line's time */
} rgroup_t;

struct nl__replay {
    char *rules;
    nl__replay_emit_fn emit;
    void *ctx;
    nl__map_t groups, tmpls, names; /* by host/prog/pid; templates by format; event names */
    rgroup_t *all;
    uint64_t folded, off, summaries;
    char *rd; /* read-back buffer */
    size_t rd_len, rd_cap;
    char *scratch; /* the current line's values, NUL-terminated */
    size_t scratch_cap;
};

static const char *const consts[] = {"host", "prog", "pid"};

int nl__replay_check(const char *rules, nl_perr_t *err)
{
    nls_rules_t rs;
    nls_rules_init(&rs);
    int rc = nls_rules_parse(&rs, rules, err);
    nls_rules_free(&rs);
    return rc;
}

nl__replay_t *nl__replay_new(const char *rules, nl__replay_emit_fn emit, void *ctx)
{
    nl__replay_t *r = calloc(1, sizeof *r);
    if (!r || !(r->rules = strdup(rules))) {
        free(r);
        return NULL;
    }
    r->emit = emit;
    r->ctx = ctx;
    nl__map_init(&r->groups, 1);
    nl__map_init(&r->tmpls, 2);
    nl__map_init(&r->names, 3);
    return r;
}

static int64_t replay_clock(void *arg) { return ((rgroup_t *)arg)->now; }

/* A replay log's summarizer, without NL_SUMMARY's rules (nl-load's environment, not the
 * program's): the replayer's are put in after. */
static int make(nl_log_t *log, void **ctx)
{
    nls_t *s;
    int rc = nls_new(log, &s);
    if (!rc) *ctx = s;
    return rc;
}

/* Use rules text (checked by nl__replay_check) as the summarizer's. */
static int use_rules(nls_t *s, const char *rules)
{
    pthread_mutex_lock(&s->cfg_mu);
    int rc = nls_rules_parse(&s->env_rules, rules, NULL);
    if (!rc) rc = nls__config_apply(s);
    pthread_mutex_unlock(&s->cfg_mu);
    return rc;
}

/* The group of a line's constants, made on first sight; NULL if it cannot be. */
static rgroup_t *group_of(nl__replay_t *r, const nl_rec_t *rec)
{
    char key[1024];
    size_t kl = 0;
    for (size_t c = 0; c < 3; c++) {
        const nl_field_t *f = nl_rec_get(rec, consts[c]);
        size_t vl = f ? f->value_len : 0;
        if (kl + vl + 1 > sizeof key) return NULL;
        if (f) memcpy(key + kl, f->value, vl);
        kl += vl;
        key[kl++] = f ? '\1' : '\0'; /* present or not: "" and none differ */
    }
    rgroup_t *g = nl__map_get(&r->groups, key, kl);
    if (g) return g;
    g = calloc(1, sizeof *g);
    if (!g) return NULL;
    const char *dir = getenv("TMPDIR");
    char tpl[1024];
    int n = snprintf(tpl, sizeof tpl, "%s/nl-replay-XXXXXX", dir && *dir ? dir : "/tmp");
    if (n < 0 || (size_t)n >= sizeof tpl) snprintf(tpl, sizeof tpl, "/tmp/nl-replay-XXXXXX");
    int fd = mkstemp(tpl);
    if (fd < 0) {
        free(g);
        return NULL;
    }
    char url[1100];
    snprintf(url, sizeof url, "file://%s?buffer=0", tpl);
    int rc = 0;
    g->log = nl__log_open(url, &rc);
    unlink(tpl); /* read through fd; gone once both are closed */
    if (!g->log) {
        close(fd);
        free(g);
        return NULL;
    }
    g->fd = fd;
    /* the constants, in the line's order */
    for (int k = 0; k < rec->n; k++)
        for (size_t c = 0; c < 3; c++)
            if (rec->f[k].name_len == strlen(consts[c]) &&
                !memcmp(rec->f[k].name, consts[c], rec->f[k].name_len)) {
                char v[1024];
                size_t vl = rec->f[k].value_len < sizeof v - 1 ? rec->f[k].value_len : 0;
                memcpy(v, rec->f[k].value, vl);
                v[vl] = '\0';
                nl_const_set(g->log, consts[c], v);
            }
    g->s = nl__hook_attach(g->log, &nls_hook_ops, make, &rc);
    if (!g->s || use_rules(g->s, r->rules) || !nl__map_put(&r->groups, key, kl, g)) {
        nl_close(g->log);
        close(fd);
        free(g);
        return NULL;
    }
    atomic_store_explicit(&g->s->clock_arg, g, memory_order_relaxed);
    atomic_store_explicit(&g->s->clock, replay_clock, memory_order_release);
    g->due = INT64_MIN; /* computed at its first line */
    g->next = r->all;
    r->all = g;
    return g;
}

/* Hand over what the group's log wrote since the last call, line by line. */
static void drain(nl__replay_t *r, rgroup_t *g)
{
    for (;;) {
        if (r->rd_cap - r->rd_len < 65536) {
            size_t cap = r->rd_cap ? r->rd_cap * 2 : 131072;
            char *p = realloc(r->rd, cap);
            if (!p) return; /* left in the file: the next drain takes it */
            r->rd = p;
            r->rd_cap = cap;
        }
        ssize_t n = read(g->fd, r->rd + r->rd_len, r->rd_cap - r->rd_len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        r->rd_len += (size_t)n;
    }
    size_t at = 0;
    for (;;) {
        char *nl = memchr(r->rd + at, '\n', r->rd_len - at);
        if (!nl) break;
        size_t len = (size_t)(nl - (r->rd + at));
        r->summaries++;
        r->emit(r->ctx, r->rd + at, len);
        at += len + 1;
    }
    memmove(r->rd, r->rd + at, r->rd_len - at);
    r->rd_len -= at;
}

/* The next interval boundary after the group's clock, by its rules (nls_next_due without
 * the counter clock's calibration: this clock is the lines'). */
static int64_t next_due(rgroup_t *g)
{
    int64_t due = INT64_MAX;
    pthread_mutex_lock(&g->s->cfg_mu);
    for (int i = 0; i < g->s->rules.n; i++) {
        const nls_rule_t *rl = &g->s->rules.r[i];
        if (rl->interval <= 0 || rl->mode == NLS_FULL || rl->mode == NLS_OFF) continue;
        int64_t b = nls__boundary_after(g->now, (int64_t)(rl->interval * 1e9 + 0.5));
        if (b < due) due = b;
    }
    pthread_mutex_unlock(&g->s->cfg_mu);
    return due;
}

/* Move the group's clock to t, closing the intervals that end on the way, as the flusher
 * would on the boundaries. */
static void advance(nl__replay_t *r, rgroup_t *g, int64_t t)
{
    if (g->due == INT64_MIN) {
        g->now = t;
        g->due = next_due(g);
    }
    while (t >= g->due) {
        g->now = g->due;
        nls_tick(g->s, 0, 0);
        g->due = next_due(g);
    }
    g->now = t;
    drain(r, g);
}

int nl__replay_line(nl__replay_t *r, const nl_rec_t *rec)
{
    const nl_field_t *ev = &rec->f[rec->i_event];
    size_t base;
    int kind = nl__event_kind(ev->value, ev->value_len, &base);
    if (kind == NL_KIND_SUMMARY || ev->value_len > NL_NAME_MAX) return NL_REPLAY_KEEP;
    rgroup_t *g = group_of(r, rec);
    if (!g) return NL_REPLAY_KEEP;
    int64_t t = rec->ts_usec * 1000;
    if (t > g->last) g->last = t;
    advance(r, g, t);
    /* the event's own fields (not ts, event, level, nor the constants) as "NAME=s ..." */
    char fmt[8192];
    size_t fl = 0, need = 0;
    nl_arg_t args[NL_FIELDS_MAX];
    int idx[NL_FIELDS_MAX], na = 0;
    for (int k = 0; k < rec->n; k++) {
        const nl_field_t *f = &rec->f[k];
        if (k == rec->i_ts || k == rec->i_event || k == rec->i_level) continue;
        int c = 0;
        for (size_t i = 0; i < 3; i++)
            c |= f->name_len == strlen(consts[i]) && !memcmp(f->name, consts[i], f->name_len);
        if (c) continue;
        if (fl + f->name_len + 4 > sizeof fmt || na == 64) return NL_REPLAY_KEEP;
        if (fl) fmt[fl++] = ' ';
        memcpy(fmt + fl, f->name, f->name_len);
        fl += f->name_len;
        memcpy(fmt + fl, "=s", 2);
        fl += 2;
        idx[na++] = k;
        need += f->value_len + 1;
    }
    fmt[fl] = '\0';
    nl_tmpl_t *tm = nl__map_get(&r->tmpls, fmt, fl);
    if (!tm) {
        if (nl__tmpl_parse(fmt, fl, 0, &tm)) return NL_REPLAY_KEEP; /* a name it refuses */
        if (!nl__map_put(&r->tmpls, fmt, fl, tm)) {
            free(tm);
            return NL_REPLAY_KEEP;
        }
    }
    if (need > r->scratch_cap) {
        char *p = realloc(r->scratch, need);
        if (!p) return NL_REPLAY_KEEP;
        r->scratch = p;
        r->scratch_cap = need;
    }
    char *w = r->scratch;
    for (int i = 0; i < na; i++) {
        const nl_field_t *f = &rec->f[idx[i]];
        memcpy(w, f->value, f->value_len);
        w[f->value_len] = '\0';
        args[i].s = w;
        w += f->value_len + 1;
    }
    /* the name as a stable string: the summarizer caches names by address */
    nl__ment_t *ne = NULL;
    const char *name = nl__map_get(&r->names, ev->value, ev->value_len);
    if (!name) {
        ne = nl__map_put(&r->names, ev->value, ev->value_len, (void *)1);
        if (!ne) return NL_REPLAY_KEEP;
        ne->val = ne->key;
        name = ne->key;
    }
    int level = NL_LVL_INFO;
    if (rec->i_level >= 0) {
        int l = nl_level_parse(rec->f[rec->i_level].value, rec->f[rec->i_level].value_len);
        if (l >= 0) level = l;
    }
    int v = nls_event(g->s, name, level, tm, args, nl__log_head(g->log)->guid);
    drain(r, g); /* a dedup run's repeat line */
    if (v == NL_HOOK_FOLDED) return r->folded++, NL_REPLAY_FOLDED;
    if (v == NL_HOOK_SUPPRESS) return r->off++, NL_REPLAY_OFF;
    return NL_REPLAY_KEEP;
}

void nl__replay_end(nl__replay_t *r)
{
    for (rgroup_t *g = r->all; g; g = g->next) {
        if (!g->log) continue;
        advance(r, g, g->last);
        nl_close(g->log); /* the running intervals, partial, at its last line's time */
        g->log = NULL;
        drain(r, g);
    }
}

void nl__replay_counts(const nl__replay_t *r, uint64_t *folded, uint64_t *off, uint64_t *summaries)
{
    *folded = r->folded;
    *off = r->off;
    *summaries = r->summaries;
}

static void free_tmpl(nl__map_t *m)
{
    for (size_t i = 0; i < m->nb; i++)
        for (nl__ment_t *e = m->b[i]; e; e = e->next) free(e->val);
}

void nl__replay_free(nl__replay_t *r)
{
    if (!r) return;
    rgroup_t *g = r->all;
    while (g) {
        rgroup_t *next = g->next;
        if (g->log) nl_close(g->log);
        close(g->fd);
        free(g);
        g = next;
    }
    free_tmpl(&r->tmpls);
    nl__map_free(&r->tmpls);
    nl__map_free(&r->groups);
    nl__map_free(&r->names);
    free(r->rules);
    free(r->rd);
    free(r->scratch);
    free(r);
}
