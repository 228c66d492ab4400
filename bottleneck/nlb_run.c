/* SPDX-License-Identifier: BSD-3-Clause */
/* nlb_run.c — nl-bottleneck's gathering and output (nlb_run.h): starts paired with their
 * ends, summaries and pairs added up per transfer and interval, verdicts written. */
#include "nlb_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_num.h"
#include "nl_reader.h"

void nlb_run_init(nlb_run_t *r)
{
    *r = (nlb_run_t){.margin = 0.2, .min_pairs = 3};
    r->tail = &r->first;
    nl__map_init(&r->groups, 0x6e6c62);
    nl__map_init(&r->starts, 0x6e6c73);
}

static int64_t interval_of(const nlb_run_t *r, int64_t us)
{
    if (r->interval <= 0) return 0;
    double s = (double)us / 1e6;
    return (int64_t)llround(ceil(s / r->interval - 1e-9) * r->interval * 1e6);
}

static nlb_group_t *group_for(nlb_run_t *r, const nl_field_t *guid, int64_t us)
{
    char key[sizeof((nlb_group_t *)0)->guid + 24];
    if (guid->value_len >= sizeof((nlb_group_t *)0)->guid) return NULL;
    int64_t iv = interval_of(r, us);
    size_t kl = guid->value_len;
    memcpy(key, guid->value, kl);
    memcpy(key + kl, &iv, sizeof iv);
    kl += sizeof iv;
    nlb_group_t *g = nl__map_get(&r->groups, key, kl);
    if (g) return g;
    if (!(g = calloc(1, sizeof *g)) || !nl__map_put(&r->groups, key, kl, g)) {
        free(g);
        r->oom++;
        return NULL;
    }
    memcpy(g->guid, guid->value, guid->value_len);
    g->interval = iv;
    *r->tail = g;
    r->tail = &g->next;
    return g;
}

static double num(const nl_rec_t *rec, const char *name, double dflt)
{
    double v;
    const nl_field_t *f = nl_rec_get(rec, name);
    return f && nl_field_double(f, &v) == 0 ? v : dflt;
}

/* The key of a pending start: guid, stage, and the stream.id when there is one. */
static size_t start_key(char *key, size_t cap, const nl_rec_t *rec, int stage)
{
    const nl_field_t *g = &rec->f[rec->i_guid], *sid = nl_rec_get(rec, "stream.id");
    size_t sl = sid ? sid->value_len : 0;
    if (g->value_len + sl + 2 > cap) return 0;
    memcpy(key, g->value, g->value_len);
    key[g->value_len] = (char)('0' + stage);
    if (sid) memcpy(key + g->value_len + 1, sid->value, sl);
    return g->value_len + 1 + sl;
}

static void one_line(nlb_run_t *r, const char *line, size_t len, long lineno, nl_rec_t *rec)
{
    nl_perr_t e;
    int rc = nl_parse(rec, line, len, lineno, r->parse, &e);
    if (rc <= 0) {
        r->bad += rc < 0;
        return;
    }
    r->lines++;
    const nl_field_t *ev = &rec->f[rec->i_event];
    size_t alen;
    int kind = nl__event_kind(ev->value, ev->value_len, &alen);
    int stage = kind == NL_KIND_OTHER ? -1 : nlb_stage_of(ev->value, alen);
    if (stage < 0) return;
    if (rec->i_guid < 0) {
        r->no_guid++;
        return;
    }
    if (kind == NL_KIND_SUMMARY) {
        nlb_group_t *g = group_for(r, &rec->f[rec->i_guid], rec->ts_usec);
        if (!g) return;
        double n = num(rec, "n", 0);
        nlb_add(&g->x, stage, num(rec, "dur.sum", NAN), num(rec, "v.sum", 0),
                n > 0 ? (uint64_t)n : 0);
        if (rec->ts_usec > g->last_us) g->last_us = rec->ts_usec;
        return;
    }
    char key[256];
    size_t kl = start_key(key, sizeof key, rec, stage);
    if (!kl) return;
    if (kind == NL_KIND_START) {
        int64_t *t = nl__map_get(&r->starts, key, kl);
        if (!t && (!(t = malloc(sizeof *t)) || !nl__map_put(&r->starts, key, kl, t))) {
            free(t);
            r->oom++;
            return;
        }
        *t = rec->ts_usec; /* a start restarted before its end: the later one counts */
        return;
    }
    int64_t *t = nl__map_del(&r->starts, key, kl);
    if (!t) {
        r->orphan_ends++;
        return;
    }
    nlb_group_t *g = group_for(r, &rec->f[rec->i_guid], rec->ts_usec);
    if (g) {
        nlb_add(&g->x, stage, (double)(rec->ts_usec - *t) / 1e6, num(rec, "value", 0), 1);
        if (rec->ts_usec > g->last_us) g->last_us = rec->ts_usec;
    }
    free(t);
}

typedef struct reading {
    nlb_run_t *r;
    nl_rec_t rec;
} reading_t;

static int read_line(void *ctx, const char *line, size_t len, const char *name, long lineno)
{
    (void)name;
    reading_t *x = ctx;
    one_line(x->r, line, len, lineno, &x->rec);
    return 0;
}

/* A line too long to read is a bad line, counted. */
static void read_toolong(void *ctx, const char *name, long lineno)
{
    (void)name;
    (void)lineno;
    ((reading_t *)ctx)->r->bad++;
}

int nlb_run_input(nlb_run_t *r, const char *path)
{
    reading_t x = {.r = r};
    nl_rec_init(&x.rec);
    nl__lines_t how = {.prog = "nl-bottleneck",
                       .timeout_ms = -1,
                       .on_line = read_line,
                       .on_toolong = read_toolong,
                       .ctx = &x};
    int rc = nl__reader_each(path, &how);
    nl_rec_free(&x.rec);
    return rc;
}

static void missing_list(char *out, size_t cap, unsigned mask)
{
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < NLB_STAGES; k++)
        if (mask & 1u << k)
            o += (size_t)snprintf(out + o, cap - o, "%s%s", o ? "," : "", nlb_stage_name[k]);
}

static void print_group(const nlb_run_t *r, const nlb_group_t *g, FILE *f)
{
    nlb_verdict_t v;
    nlb_judge(&g->x, r->margin, r->min_pairs, &v);
    char missing[80];
    missing_list(missing, sizeof missing, v.missing);
    if (r->table) {
        char iv[32] = "-", margin[16] = "-";
        if (g->interval) nl_ts_format(g->interval, iv);
        if (isfinite(v.margin)) snprintf(margin, sizeof margin, "%.2f", v.margin);
        fprintf(f, "%-36s %-27s %-12s %8s", g->guid, iv, v.name, margin);
        for (int k = 0; k < NLB_STAGES; k++) fprintf(f, " %10.4f", g->x.busy[k]);
        fprintf(f, " %s\n", missing);
        return;
    }
    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    nl_enc_begin(&b, g->last_us, "nl.bottleneck", NL_LVL_INFO, g->guid);
    if (g->interval) nl_enc_ts(&b, "interval.end", g->interval);
    nl_enc_str(&b, "verdict", v.name, strlen(v.name));
    if (isfinite(v.margin))
        nl_enc_dbl(&b, "margin", v.margin);
    else if (isinf(v.margin))
        nl_enc_str(&b, "margin", "inf", 3);
    if (v.missing) nl_enc_str(&b, "missing", missing, strlen(missing));
    for (int k = 0; k < NLB_STAGES; k++) {
        if (!g->x.seen[k]) continue;
        char name[40];
        snprintf(name, sizeof name, "%s.s", nlb_stage_name[k]);
        nl_enc_dbl(&b, name, g->x.busy[k]);
    }
    nl_enc_dbl(&b, "rule.margin", r->margin);
    if (nl_enc_end(&b) == 0) fwrite(b.p, 1, b.len, f);
    nl_buf_free(&b);
}

void nlb_run_write(nlb_run_t *r, FILE *f)
{
    if (r->table) {
        fprintf(f, "%-36s %-27s %-12s %8s", "guid", "interval end", "verdict", "margin");
        for (int k = 0; k < NLB_STAGES; k++) fprintf(f, " %10s", nlb_stage_name[k]);
        fprintf(f, " missing\n");
    }
    for (nlb_group_t *g = r->first, *next; g; g = next) {
        next = g->next;
        print_group(r, g, f);
        free(g);
    }
    r->first = NULL;
    r->tail = &r->first;
}

void nlb_run_finish(nlb_run_t *r, FILE *f)
{
    if (r->bad || r->no_guid || r->orphan_ends || r->oom)
        fprintf(f,
                "nl-bottleneck: %llu bad line(s), %llu stage event(s) without a guid, %llu "
                "end(s) without a start, %llu left out for want of memory\n",
                (unsigned long long)r->bad, (unsigned long long)r->no_guid,
                (unsigned long long)r->orphan_ends, (unsigned long long)r->oom);
    uint64_t open = r->starts.n;
    for (size_t b = 0; b < r->starts.nb; b++)
        for (nl__ment_t *e = r->starts.b[b]; e; e = e->next) free(e->val);
    if (open)
        fprintf(f, "nl-bottleneck: %llu stage(s) started and never ended\n",
                (unsigned long long)open);
    for (nlb_group_t *g = r->first, *next; g; g = next) { /* not written */
        next = g->next;
        free(g);
    }
    r->first = NULL;
    nl__map_free(&r->groups);
    nl__map_free(&r->starts);
}
