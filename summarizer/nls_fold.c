/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_fold.c — fold start/end pairs of one identity into interval accumulators, and close
 * intervals. Pure arithmetic on an nls_ident_t whose lock the caller holds: no clock, no
 * I/O, so the tests can drive it with hand-picked times.
 *
 * Interval boundaries are multiples of the interval on the log clock (ns since the epoch),
 * so every host and every identity with a 1 s interval closes on the same whole seconds.
 * A pair belongs to the interval in which it ends. A writer that crosses a boundary before
 * the flusher has closed it parks the finished interval in `done`, so even a late flusher
 * puts each pair in the right interval. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nls_int.h"

void nls__acc_free(nls_acc_t *a)
{
    nl__hist_free(&a->dur_h);
    nl__hist_free(&a->v_h);
    free(a->last);
    a->last = NULL;
    a->last_len = a->last_cap = 0;
}

/* Clear an accumulator whose histogram storage was handed on (or never made): it is
 * forgotten here, not freed. */
void nls__acc_reset(nls_acc_t *a)
{
    memset(a, 0, sizeof *a);
    nl_mom_init(&a->dur);
    nl_mom_init(&a->v);
    nl_mom_init(&a->r);
    a->first_start = INT64_MAX;
    a->last_end = INT64_MIN;
}

/* The start of the interval containing t (t >= 0 on any sane clock; floor for t < 0). */
static int64_t floor_to(int64_t t, int64_t iv)
{
    int64_t q = t / iv;
    if (t % iv < 0) q--;
    return q * iv;
}

/* The end of an interval that starts at `start`: the next multiple of iv after start. */
static int64_t end_after(int64_t start, int64_t iv)
{
    if (iv <= 0) return INT64_MAX;
    int64_t f = floor_to(start, iv);
    return f > INT64_MAX - iv ? INT64_MAX : f + iv;
}

void nls__fold_init(nls_ident_t *e, int64_t t, int64_t iv)
{
    e->dd_has = 0; /* dd_body's storage is kept for reuse; it is freed with the table */
    e->dd_repeats = 0;
    e->open = 0;
    e->open_t = 0;
    e->open_now = 0;
    e->sk_len = 0;
    e->done_full = 0;
    e->idle = 0;
    nls__acc_reset(&e->cur);
    e->iv_start = iv > 0 ? floor_to(t, iv) : t;
    e->iv_end = end_after(e->iv_start, iv);
}

/* A writer at time t found its interval over: park it in `done` for the flusher. If the
 * flusher is more than an interval behind (done still full), keep accumulating: the
 * flusher's next tick closes it late rather than losing anything. Out of line: it runs
 * once per interval, the check before it on every call. */
__attribute__((noinline)) static void roll_over(nls_ident_t *e, int64_t t, int64_t iv)
{
    e->done.acc = e->cur;
    e->done.start = e->iv_start;
    e->done.end = e->iv_end;
    e->done.open = e->open;
    e->done_full = 1;
    nls__acc_reset(&e->cur);
    e->iv_start = e->iv_end;
    e->iv_end = end_after(e->iv_start, iv);
    if (t >= e->iv_end) { /* idle for whole intervals: skip to the one containing t */
        e->iv_start = floor_to(t, iv);
        e->iv_end = end_after(e->iv_start, iv);
    }
}

static inline void roll(nls_ident_t *e, int64_t t, int64_t iv)
{
    if (iv > 0 && t >= e->iv_end && !e->done_full) roll_over(e, t, iv);
}

void nls__fold_touch(nls_ident_t *e, int64_t t, int64_t iv, int orphan)
{
    roll(e, t, iv);
    e->idle = 0;
    if (!orphan) return;
    e->cur.events++;
    e->cur.orphan_start++; /* the earlier start never ended: not a pair */
}

/* An HTTP status (100 to 599): its class; an error from 500 on. Another number: an error
 * unless 0 (an exit status, an errno). A word: an error unless ok, success or true (any
 * case), so status=failed counts and status=ok does not. */
int nls__outcome(int is_num, double x, const char *str, size_t len)
{
    if (!is_num) {
        static const char *const fine[] = {"ok", "success", "true"};
        for (size_t k = 0; k < sizeof fine / sizeof fine[0]; k++)
            if (strlen(fine[k]) == len && !strncasecmp(fine[k], str, len)) return 0;
        return NLS_OUT_ERR;
    }
    if (x >= 100 && x < 600) {
        int cls = (int)(x / 100);
        return cls << 1 | (cls == 5 ? NLS_OUT_ERR : 0);
    }
    return x != 0 ? NLS_OUT_ERR : 0; /* NaN too is no success */
}

int nls__fold_end(nls_ident_t *e, int64_t t, int64_t iv, int64_t start_t, int has_value,
                  double value, int outcome)
{
    roll(e, t, iv);
    nls_acc_t *a = &e->cur;
    a->events++;
    e->idle = 0;
    if (start_t == INT64_MIN) {
        a->orphan_end++;
        return 1;
    }
    a->events++; /* its start, counted with the pair */
    int64_t d_ns = t - start_t;
    if (d_ns < 0) d_ns = 0;        /* only an injected clock can run backwards */
    double d = (double)d_ns / 1e9; /* division rounds correctly: 1 ns prints as 1e-09 */
    a->n++;
    nl_mom_add(&a->dur, d);
    nl__hist_add(&a->dur_h, d); /* a refusal is counted in dur_h.refused */
    if (has_value && !nl_mom_usable(value)) {
        a->v_refused++; /* the pair counts; its value would poison v.* and r.* for good */
    } else if (has_value) {
        nl_mom_add(&a->v, value);
        nl__hist_add(&a->v_h, value);
        if (d_ns > 0 && nl_mom_usable(value / d)) nl_mom_add(&a->r, value / d);
    }
    if (outcome != NLS_OUT_NONE) {
        a->res_n++;
        a->err_n += (unsigned)outcome & NLS_OUT_ERR;
        int cls = outcome >> 1;
        if (cls >= 2) a->cls[cls - 2]++;
    }
    if (start_t < a->first_start) a->first_start = start_t;
    if (t > a->last_end) a->last_end = t;
    return 0;
}

static int worth_reporting(const nls_ident_t *e) { return e->cur.events > 0 || e->open; }

int nls__fold_close(nls_ident_t *e, int64_t now, int64_t iv, int partial, int final, nls_out_t *out)
{
    int n = 0;
    if (e->done_full) {
        out[n++] = e->done;
        e->done_full = 0;
    }
    if (iv > 0 && e->iv_end == INT64_MAX) e->iv_end = end_after(now, iv); /* was interval 0 */
    if (iv > 0) {
        int k = 0;
        while (now >= e->iv_end) {
            if (worth_reporting(e)) {
                out[n].acc = e->cur;
                out[n].start = e->iv_start;
                out[n].end = e->iv_end;
                out[n].open = e->open;
                n++;
                k++;
            }
            nls__acc_reset(&e->cur);
            e->iv_start = e->iv_end;
            e->iv_end = end_after(e->iv_start, iv);
            if (!e->open || k == NLS_OUT_MAX) { /* nothing more to say about the gap */
                if (now >= e->iv_end) {
                    e->iv_start = floor_to(now, iv);
                    e->iv_end = end_after(e->iv_start, iv);
                }
                break;
            }
        }
    }
    if ((partial && iv > 0) || final) {
        if (worth_reporting(e) && now > e->iv_start) {
            out[n].acc = e->cur;
            out[n].start = e->iv_start;
            out[n].end = now;
            out[n].open = e->open;
            n++;
            nls__acc_reset(&e->cur);
            e->iv_start = now;
        }
    }
    if (n == 0 && !e->open)
        e->idle++;
    else
        e->idle = 0;
    return n;
}

int64_t nls__boundary_after(int64_t t, int64_t iv) { return end_after(t, iv); }

int nls__fold_idle(const nls_ident_t *e)
{
    return !e->open && !e->done_full && !e->cur.events && !e->dd_repeats;
}

int nls__keep_text(char **p, uint32_t *cap, uint32_t *plen, const char *body, size_t len)
{
    if (len > *cap) {
        size_t ncap = len < 128 ? 128 : len;
        char *q = realloc(*p, ncap);
        if (!q) return NL_ENOMEM;
        *p = q;
        *cap = (uint32_t)ncap;
    }
    if (len) memcpy(*p, body, len);
    *plen = (uint32_t)len;
    return 0;
}

int nls__fold_count(nls_ident_t *e, int64_t t, int64_t iv, const char *body, size_t len)
{
    roll(e, t, iv);
    nls_acc_t *a = &e->cur;
    a->events++;
    a->n++;
    a->counted = 1;
    e->idle = 0;
    if (t < a->first_start) a->first_start = t;
    if (t > a->last_end) a->last_end = t;
    return nls__keep_text(&a->last, &a->last_cap, &a->last_len, body, len);
}
