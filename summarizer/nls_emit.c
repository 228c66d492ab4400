/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_emit.c — write NAME.summary lines (the project's shared design notes, "Summaries";
 * the fields: summarizer/README.md). Runs on the flusher
 * thread or in nl_flush/nl_close, never on a writer's hot path, so it may format freely.
 *
 * Fields: ts (the interval's end) event level guid, the log's constants, the identity's
 * *.id fields, then the summary fields in the order of ../internal/nl_line.h's table.
 * Extremes, sd and span need at least one pair and are left out when n=0; v.* and r.*
 * are left out when no pair carried a value, and v.n / r.n appear only when fewer pairs
 * than n had one (an end without the value field; a zero duration has no rate).
 * orphan.start / orphan.end appear when not zero. Percentiles come from the interval's
 * histograms (nl_hist.h), written last as dur.h and v.h, so any set of intervals and hosts
 * can be merged into exact-as-one percentiles later (nl-baseline). */
#include <stdio.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_hist.h"
#include "nl_line.h"
#include "nl_num.h"
#include "nls_int.h"

/* One summary line's values, by field of nl_line.h's table: `has` marks the fields written,
 * `is_u` those written as integers. Filled first, then written in the table's order, so
 * the names and their order come from the table alone. */
typedef struct sline {
    uint64_t has, is_u;
    uint64_t u[NL_SF_COUNT];
    double d[NL_SF_COUNT];
} sline_t;

_Static_assert(NL_SF_COUNT <= 64, "a summary line's fields fit a 64-bit mask");
_Static_assert(NL_SF_RES_5XX == NL_SF_RES_2XX + 3 && NL_SF_DUR_SD == NL_SF_DUR_MIN + 3 &&
                   NL_SF_V_MIN == NL_SF_V_N + 1 && NL_SF_V_SD == NL_SF_V_MIN + 3 &&
                   NL_SF_R_MIN == NL_SF_R_N + 1 && NL_SF_R_SD == NL_SF_R_MIN + 3 &&
                   NL_SF_DUR_P99 == NL_SF_DUR_P50 + 2 && NL_SF_V_P99 == NL_SF_V_P50 + 2,
               "each series is count?, min, max, sum, sd in a row; p50, p90, p99 in a row");

static void set_u(sline_t *l, int f, uint64_t v)
{
    l->has |= 1ull << f;
    l->is_u |= 1ull << f;
    l->u[f] = v;
}

static void set_d(sline_t *l, int f, double v)
{
    l->has |= 1ull << f;
    l->d[f] = v;
}

/* A percentile to 6 significant digits: it is a bucket's midpoint, good to 1.6 %, and
 * 7.152557373046875e-05 would claim more than it knows. */
static double six_digits(double v)
{
    char t[32];
    int n = snprintf(t, sizeof t, "%.6g", v);
    double r;
    return n > 0 && (size_t)n < sizeof t && nl__strtod(t, (size_t)n, &r) == 0 ? r : v;
}

/* min/max/sum/sd of one series from field `min_f` on; its count in `n_f` (if >= 0) when
 * fewer than n pairs carried it. */
static void set_series(sline_t *l, int n_f, int min_f, const nl_moments_t *m, uint64_t n)
{
    if (n_f >= 0 && nl_mom_count(m) != n) set_u(l, n_f, nl_mom_count(m));
    set_d(l, min_f, nl_mom_min(m));
    set_d(l, min_f + 1, nl_mom_max(m));
    set_d(l, min_f + 2, nl_mom_sum(m));
    set_d(l, min_f + 3, nl_mom_sd(m));
}

/* A series' p50, p90 and p99 from field `p50_f` on, when its histogram counted anything
 * (clamped to the series' exact extremes), and the histogram's refusals in `refused_f`. */
static void set_pct(sline_t *l, int p50_f, const nl__hist_t *h, const nl_moments_t *m,
                    int refused_f)
{
    static const double q[] = {0.5, 0.9, 0.99};
    for (int k = 0; h->n && k < 3; k++)
        set_d(l, p50_f + k, six_digits(nl__hist_quantile(h, q[k], nl_mom_min(m), nl_mom_max(m))));
    if (h->refused) set_u(l, refused_f, h->refused);
}

/* " name=B:C,..." for a histogram that counted anything. */
static void put_hist(nl_buf_t *b, const char *name, const nl__hist_t *h)
{
    if (!h->n) return;
    nl__enc_name(b, name, strlen(name));
    nl__hist_put(b, h);
}

static void put_fields(nl_buf_t *b, const sline_t *l)
{
    for (int f = 0; f < NL_SF_COUNT; f++) {
        if (!(l->has & 1ull << f)) continue;
        nl__enc_name(b, nl__summary_fields[f].name, nl__summary_fields[f].len);
        if (l->is_u & 1ull << f)
            nl__enc_u64v(b, l->u[f]);
        else
            nl__enc_dblv(b, l->d[f]);
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

/* The line's start for an identity: ts, event, level, the guid (a pair's; the log's for a
 * summary, which folds many), the log's constants and the identity's fields. */
static void begin_ident(nl_buf_t *b, nls_t *s, int64_t ts_ns, const char *event, int level,
                        const char *key, size_t key_len, size_t guid_len)
{
    const nl_head_t *h = nl__log_head(s->log);
    if (key[0] == NLS_SUM_MARK && key_len > 7 && !memcmp(key + 1, " guid=", 6)) {
        /* key=guid: the guid is the key's first field, written in its place */
        size_t gl = 7;
        int q = key[gl] == '"'; /* quoted: up to the closing quote (escapes inside skipped) */
        for (gl += (size_t)q; gl < key_len; gl++) {
            if (q && key[gl] == '\\') {
                gl++;
                continue;
            }
            if (q && key[gl] == '"') {
                gl++;
                break;
            }
            if (!q && key[gl] == ' ') break;
        }
        if (gl > key_len) gl = key_len;
        nl_enc_begin(b, ts_ns / 1000, event, level, NULL);
        nl__put(b, key + 1, gl - 1);
        put_constants(b, h, key + gl, key_len - gl);
        nl__put(b, key + gl, key_len - gl);
        return;
    }
    if (key[0] == NLS_SUM_MARK) {
        nl_enc_begin(b, ts_ns / 1000, event, level, h->guid);
    } else {
        nl_enc_begin(b, ts_ns / 1000, event, level, NULL);
        nl__put(b, " guid=", 6);
        nl__enc_value(b, key + 6, guid_len - 6); /* the key holds the guid's raw bytes */
    }
    put_constants(b, h, key + guid_len, key_len - guid_len);
    nl__put(b, key + guid_len, key_len - guid_len);
}

void nls__emit(nls_t *s, const nls_act_t *act, const char *key, size_t key_len, size_t guid_len,
               const nls_out_t *o)
{
    char stack[1024], event[NL_NAME_MAX + 16];
    memcpy(event, act->name, act->len);
    memcpy(event + act->len, ".summary", 9);
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    begin_ident(&b, s, o->end, event, NL_LVL_INFO, key, key_len, guid_len);
    const nls_acc_t *a = &o->acc;
    sline_t l = {0};
    set_u(&l, NL_SF_N, a->n);
    if (a->res_n) { /* outcomes: errors, and HTTP classes */
        set_u(&l, NL_SF_ERR_N, a->err_n);
        if (a->res_n != a->n) set_u(&l, NL_SF_RES_N, a->res_n);
        for (int c = 0; c < 4; c++)
            if (a->cls[c]) set_u(&l, NL_SF_RES_2XX + c, a->cls[c]);
    }
    if (a->n > 0) {
        set_series(&l, -1, NL_SF_DUR_MIN, &a->dur, a->n);
        set_pct(&l, NL_SF_DUR_P50, &a->dur_h, &a->dur, NL_SF_DUR_H_REFUSED);
        if (nl_mom_count(&a->v)) {
            set_series(&l, NL_SF_V_N, NL_SF_V_MIN, &a->v, a->n);
            set_pct(&l, NL_SF_V_P50, &a->v_h, &a->v, NL_SF_V_H_REFUSED);
        }
        if (nl_mom_count(&a->r)) set_series(&l, NL_SF_R_N, NL_SF_R_MIN, &a->r, a->n);
        set_d(&l, NL_SF_SPAN, (double)(a->last_end - a->first_start) / 1e9);
    } else {
        set_d(&l, NL_SF_DUR_SUM, 0.0);
    }
    set_u(&l, NL_SF_OPEN, (uint64_t)o->open);
    set_d(&l, NL_SF_INTERVAL, (double)(o->end - o->start) / 1e9);
    if (a->orphan_start) set_u(&l, NL_SF_ORPHAN_START, a->orphan_start);
    if (a->orphan_end) set_u(&l, NL_SF_ORPHAN_END, a->orphan_end);
    if (a->v_refused) set_u(&l, NL_SF_V_REFUSED, a->v_refused);
    put_fields(&b, &l);
    put_hist(&b, "dur.h", &a->dur_h);
    put_hist(&b, "v.h", &a->v_h);
    nl__log_emit(s->log, &b, NL_LVL_INFO);
    nl_buf_free(&b);
    atomic_fetch_add_explicit(&s->summaries, 1, memory_order_relaxed);
}

void nls__emit_count(nls_t *s, const nls_act_t *act, const char *key, size_t key_len,
                     size_t guid_len, const nls_out_t *o)
{
    char stack[1024], event[NL_NAME_MAX + 16];
    memcpy(event, act->name, act->len);
    memcpy(event + act->len, ".summary", 9);
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    begin_ident(&b, s, o->end, event, NL_LVL_INFO, key, key_len, guid_len);
    const nls_acc_t *a = &o->acc;
    nl_enc_u64(&b, "n", a->n);
    nl_enc_ts(&b, "first", a->first_start / 1000);
    nl_enc_ts(&b, "last", a->last_end / 1000);
    nl__enc_name(&b, "int", 3);
    nl__enc_dblv(&b, (double)(o->end - o->start) / 1e9);
    /* the last event's fields, each as last.NAME: " name=value" becomes " last.name=value" */
    for (uint32_t i = 0; i < a->last_len;) {
        uint32_t j = i + 1;
        while (j < a->last_len && a->last[j] != '=') j++;
        int fits = j - i - 1 + 5 <= NL_NAME_MAX; /* "last." + a name near the limit: left out */
        if (fits) {
            nl__put(&b, " last.", 6);
            nl__put(&b, a->last + i + 1, j - i - 1);
        }
        /* the value runs to the next " name=": values with a space are quoted, and inside
         * quotes every '"' is escaped, so the next unescaped field start is a space outside */
        uint32_t k = j + 1;
        int q = k < a->last_len && a->last[k] == '"';
        for (k += q; k < a->last_len; k++) {
            if (q && a->last[k] == '\\') {
                k++;
                continue;
            }
            if (q && a->last[k] == '"') {
                k++;
                break;
            }
            if (!q && a->last[k] == ' ') break;
        }
        if (fits) nl__put(&b, a->last + j, k - j);
        i = k;
    }
    nl__log_emit(s->log, &b, NL_LVL_INFO);
    nl_buf_free(&b);
    atomic_fetch_add_explicit(&s->summaries, 1, memory_order_relaxed);
}

void nls__emit_repeat(nls_t *s, const nls_act_t *act, const char *key, size_t key_len,
                      size_t guid_len, int level, const char *body, size_t len, uint64_t n,
                      int64_t t)
{
    char stack[1024], event[NL_NAME_MAX + 1];
    memcpy(event, act->name, act->len);
    event[act->len] = '\0';
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    begin_ident(&b, s, t, event, level, key, key_len, guid_len);
    nl__put(&b, body, len);
    nl_enc_u64(&b, "repeat", n);
    nl__log_emit(s->log, &b, level);
    nl_buf_free(&b);
}

void nls__emit_note(nls_t *s, int level, const char *event, uint64_t n, uint64_t total,
                    const char *msg)
{
    char stack[1024];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    const nl_head_t *h = nl__log_head(s->log);
    nl_enc_begin(&b, nl_now_usec(), event, level, h->guid);
    nl__put(&b, h->enc, h->coff[h->nconst]);
    if (n || total) {
        nl_enc_u64(&b, "n", n);
        nl_enc_u64(&b, "total", total);
    }
    nl_enc_str(&b, "msg", msg, strlen(msg));
    nl__log_emit(s->log, &b, level);
    nl_buf_free(&b);
}
