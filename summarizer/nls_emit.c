/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_emit.c — write NAME.summary lines (the project's shared design notes, "Summaries";
 * the fields: summarizer/README.md). Runs on the flusher
 * thread or in nl_flush/nl_close, never on a writer's hot path, so it may format freely.
 *
 * Fields: ts (the interval's end) event level guid, the log's constants, the identity's
 * *.id fields, then n; dur.min/max/sum/sd; v.min/max/sum/sd; r.min/max/sum/sd; span; open;
 * int. Extremes, sd and span need at least one pair and are left out when n=0; v.* and r.*
 * are left out when no pair carried a value, and v.n / r.n appear only when fewer pairs
 * than n had one (an end without the value field; a zero duration has no rate).
 * orphan.start / orphan.end appear when not zero. */
#include <string.h>

#include "nl_enc.h"
#include "nl_log_int.h"
#include "nls_int.h"

static void put_dbl(nl_buf_t *b, const char *name, size_t len, double v)
{
    nl__enc_name(b, name, len);
    nl__enc_dblv(b, v);
}

static void put_u64(nl_buf_t *b, const char *name, size_t len, uint64_t v)
{
    nl__enc_name(b, name, len);
    nl__enc_u64v(b, v);
}

#define PUT_D(b, lit, v) put_dbl(b, lit, sizeof lit - 1, v)
#define PUT_U(b, lit, v) put_u64(b, lit, sizeof lit - 1, v)

/* min/max/sum/sd of one series, as p.min p.max p.sum p.sd */
static void put_series(nl_buf_t *b, const char *p, const nl_moments_t *m, uint64_t n)
{
    char name[8];
    size_t pl = strlen(p);
    if (nl_mom_count(m) != n) {
        memcpy(name, p, pl);
        memcpy(name + pl, ".n", 2);
        put_u64(b, name, pl + 2, nl_mom_count(m));
    }
    static const char *const part[] = {".min", ".max", ".sum", ".sd"};
    double val[] = {nl_mom_min(m), nl_mom_max(m), nl_mom_sum(m), nl_mom_sd(m)};
    for (int i = 0; i < 4; i++) {
        size_t l = strlen(part[i]);
        memcpy(name, p, pl);
        memcpy(name + pl, part[i], l);
        put_dbl(b, name, pl + l, val[i]);
    }
}

static void put_constants(nl_buf_t *b, const nl_head_t *h, const char *ids, size_t ids_len)
{
    for (int i = 0; i < h->nconst; i++) {
        /* an *.id field of the same name as a constant wins, as on ordinary lines */
        size_t cl = strlen(h->cname[i]);
        int shadowed = 0;
        for (size_t k = 0; k + cl + 2 <= ids_len; k++)
            if (ids[k] == ' ' && !memcmp(ids + k + 1, h->cname[i], cl) && ids[k + 1 + cl] == '=')
                shadowed = 1;
        if (!shadowed) nl__put(b, h->enc + h->coff[i], h->coff[i + 1] - h->coff[i]);
    }
}

static void finish(nls_t *s, nl_buf_t *b, int level)
{
    nl_log_t *log = s->log;
    int rc = nl_enc_end(b);
    if (rc == 0)
        nl__sink_write(&log->sink, b->p, b->len, level);
    else
        nl__sink_drop(&log->sink, 1);
}

void nls_emit(nls_t *s, const nls_act_t *act, const char *key, size_t key_len, size_t guid_len,
              const nls_out_t *o)
{
    char stack[1024], event[NL_NAME_MAX + 16];
    memcpy(event, act->name, act->len);
    memcpy(event + act->len, ".summary", 9);
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    nl_enc_begin(&b, o->end / 1000, event, NL_LVL_INFO, NULL);
    nl__put(&b, " guid=", 6);
    nl__enc_value(&b, key + 6, guid_len - 6); /* the key holds the guid's raw bytes */
    const nl_head_t *h = atomic_load_explicit(&s->log->head, memory_order_acquire);
    put_constants(&b, h, key + guid_len, key_len - guid_len);
    nl__put(&b, key + guid_len, key_len - guid_len);
    const nls_acc_t *a = &o->acc;
    PUT_U(&b, "n", a->n);
    if (a->n > 0) {
        put_series(&b, "dur", &a->dur, a->n);
        if (nl_mom_count(&a->v)) put_series(&b, "v", &a->v, a->n);
        if (nl_mom_count(&a->r)) put_series(&b, "r", &a->r, a->n);
        PUT_D(&b, "span", (double)(a->last_end - a->first_start) / 1e9);
    } else {
        PUT_D(&b, "dur.sum", 0.0);
    }
    PUT_U(&b, "open", (uint64_t)o->open);
    PUT_D(&b, "int", (double)(o->end - o->start) / 1e9);
    if (a->orphan_start) PUT_U(&b, "orphan.start", a->orphan_start);
    if (a->orphan_end) PUT_U(&b, "orphan.end", a->orphan_end);
    finish(s, &b, NL_LVL_INFO);
    nl_buf_free(&b);
    atomic_fetch_add_explicit(&s->summaries, 1, memory_order_relaxed);
}

void nls_emit_note(nls_t *s, int level, const char *event, uint64_t n, uint64_t total,
                   const char *msg)
{
    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    const nl_head_t *h = atomic_load_explicit(&s->log->head, memory_order_acquire);
    nl_enc_begin(&b, nl_now_usec(), event, level, h->guid);
    nl__put(&b, h->enc, h->coff[h->nconst]);
    if (n || total) {
        PUT_U(&b, "n", n);
        PUT_U(&b, "total", total);
    }
    nl_enc_str(&b, "msg", msg, strlen(msg));
    finish(s, &b, level);
    nl_buf_free(&b);
}
