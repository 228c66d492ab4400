/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_dline.c — the deferred consumer's line builder (see nl_dline.h): the synchronous
 * line's bytes, with what lines share rendered once. */
#include "nl_dline.h"

#include <stdlib.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_num.h"
#include "nlkit/nl_bp.h"

/* The last microsecond nl_ts_format writes without clamping (9999-12-31T23:59:59.999999Z). */
#define TS_HI 253402300799999999LL
#define TS_HEAD 23 /* "ts=YYYY-MM-DDTHH:MM:SS." */

/* Room a line's plain copies may write past their end: texts up to 64 bytes are copied in
 * fixed moves of 64, which a plan's text and the room a line is given allow for. */
#define SLACK 64

/* What a plan's step writes after its text. */
enum { V_END, V_STR, V_GUID, V_I64, V_U64, V_ENC };

/* One step of a plan: its text (constant), then field k's value by kind. V_ENC (doubles and
 * times) writes the field's " name=" too, by nl__tfield_put: the encoder's slow path. */
typedef struct dstep {
    uint32_t off;
    uint16_t len;
    uint8_t kind, k;
    /* V_I64, V_U64: the field's last value and its text, when 8 bytes or less (n: its
     * length; 0: none), copied when the value comes again (a size, a count, a code) */
    uint8_t n;
    uint64_t last, text;
} dstep_t;

/* What every line of one (template, head, event name, level) shares, as steps: the text
 * " event=NAME level=LEVEL guid=" (and the head's GUID and constants when the template has
 * no guid field), the guid field's value, the constants and the next field's " name=", its
 * value, and so on; the last step (V_END) writes its text and the newline. bound: the most
 * any line of the plan writes but its strings (4 bytes a byte, and 2, at most: escaped). */
struct nl__dplan {
    const nl_tmpl_t *t;
    const nl_head_t *h;
    const char *ev;
    int level;
    size_t bound;
    char *text; /* followed by SLACK readable bytes */
    /* the guid field's last value when it is written as it is (plain), 16 to 64 bytes:
     * the guid of every line of an activity, compared rather than checked again */
    size_t glen;
    char gval[64];
    dstep_t step[];
};

void nl__dline_init(nl__dline_t *c)
{
    memset(c, 0, sizeof *c);
    c->sec0 = -1;
}

static void plan_free(nl__dplan_t *p)
{
    if (p) free(p->text);
    free(p);
}

void nl__dline_free(nl__dline_t *c)
{
    for (int i = 0; i < NL__DLINE_PLANS; i++) {
        plan_free(c->plan[i]);
        c->plan[i] = NULL;
    }
}

/* Close the step being written at b's end: its text is b[*at, b->len), its value kind. */
static void step_end(nl__dplan_t *p, int *ns, nl_buf_t *b, size_t *at, int kind, int k)
{
    dstep_t *s = &p->step[(*ns)++];
    s->off = (uint32_t)*at;
    s->len = (uint16_t)(b->len - *at);
    s->kind = (uint8_t)kind;
    s->k = (uint8_t)k;
    if (b->len - *at > UINT16_MAX && !b->err) b->err = NL_ETOOBIG;
    *at = b->len;
}

/* A plan's text, made by the encoder's own functions: nl_enc_begin's line past its
 * timestamp, what nl__log_build writes for the guid (" guid=", the head's GUID when the
 * template has no guid field) and the constants, the fields' names. NULL: no memory, or an
 * event name too long for any line (the synchronous build then says so). */
static nl__dplan_t *plan_make(nl_tmpl_t *t, const nl_head_t *h, const char *event, int level)
{
    nl__dplan_t *p = calloc(1, sizeof *p + (size_t)(t->n + 2) * sizeof(dstep_t));
    if (!p) return NULL;
    p->t = t;
    p->h = h;
    p->ev = event;
    p->level = level;
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl_enc_begin(&b, 0, event, level, NULL);
    size_t at = 3 + NL_TS_LEN, bound = 3 + NL_TS_LEN + 1; /* past "ts=" and the timestamp */
    int ns = 0, g = t->guid_idx;
    nl__put(&b, " guid=", 6);
    if (g >= 0) {
        step_end(p, &ns, &b, &at, V_GUID, g);
    } else {
        nl__put(&b, h->guid, NL_GUID_LEN);
    }
    nl__head_put_consts(&b, h, nl__head_skip(h, t));
    for (int k = 0; k < t->n; k++) {
        const nl_tfield_t *f = &t->f[k];
        if (k == g) continue;
        if (f->type == 'd' || f->type == 't') {
            step_end(p, &ns, &b, &at, V_ENC, k);
            bound += f->enc_len + 40u; /* nl__dtoa's 32 bytes, or a time's NL_TS_LEN + 1 */
            continue;
        }
        nl__put(&b, f->enc, f->enc_len);
        step_end(p, &ns, &b, &at, f->type == 's' ? V_STR : f->type == 'u' ? V_U64 : V_I64, k);
        bound += 21; /* a 64-bit integer's digits and sign (a string's count at the line) */
    }
    step_end(p, &ns, &b, &at, V_END, 0);
    /* texts; a guid field's value: a string's count is added per line, its quotes here, and
     * for NULL the head's guid written in its place */
    bound += b.len - (3 + NL_TS_LEN) + (g >= 0 ? NL_GUID_LEN + 2 : 0);
    if (!b.err && nl__buf_room(&b, SLACK)) memset(b.p + b.len, 0, SLACK);
    if (b.err || !b.heap) {
        nl_buf_free(&b);
        free(p);
        return NULL;
    }
    p->text = b.p; /* the buffer's heap copy, SLACK bytes past its end readable */
    p->bound = bound + SLACK;
    return p;
}

static inline int plan_is(const nl__dplan_t *p, const nl_tmpl_t *t, const nl_head_t *h,
                          const char *event, int level)
{
    return p && p->t == t && p->ev == event && p->h == h && p->level == level;
}

/* The plan for this key, from its set of two (the most recent first) or made anew in it,
 * the set's older plan let go. Two ways, not one: with one plan per slot, two call sites
 * interleaved in one slot remade a plan every line (84 ns a line against 18), and six call
 * sites share a slot two times in three. */
static inline nl__dplan_t *plan_for(nl__dline_t *c, nl_tmpl_t *t, const nl_head_t *h,
                                    const char *event, int level)
{
    uint64_t key =
        ((uint64_t)(uintptr_t)t >> 4) ^ ((uint64_t)(uintptr_t)event >> 3) ^ (uint64_t)level;
    nl__dplan_t **set = c->plan + 2 * ((key * 0x9e3779b97f4a7c15ULL) >> 61); /* 8 sets */
    nl__dplan_t *p = set[0];
    if (__builtin_expect(plan_is(p, t, h, event, level), 1)) return p;
    if (plan_is(set[1], t, h, event, level)) { /* the older: now the most recent */
        set[0] = set[1];
        set[1] = p;
        return set[0];
    }
    nl__dplan_t *q = plan_make(t, h, event, level);
    if (q) {
        plan_free(set[1]);
        set[1] = p;
        set[0] = q;
    }
    return q;
}

/* A text of the plan: fixed moves (the source and the room have SLACK bytes past n). */
static inline char *put_text(char *o, const char *s, size_t n)
{
    memcpy(o, s, 32);
    if (n > 32) {
        memcpy(o + 32, s + 32, 32);
        if (__builtin_expect(n > 64, 0)) memcpy(o + 64, s + 64, n - 64);
    }
    return o + n;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LE_WORDS 1 /* digits built in a word, stored little-endian */

/* Two digits of v (0..99) as a 16-bit word: its first digit in the low byte. */
static inline uint64_t pair(unsigned v)
{
    uint16_t w;
    memcpy(&w, nl__digits2 + 2 * v, 2);
    return w;
}

/* v < 10^8 as its eight digits, leading zeros kept, in a word to be stored little-endian:
 * two independent halves, so the divisions do not wait on one another. */
static inline uint64_t digits8(uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    return pair(hi / 100) | pair(hi % 100) << 16 | pair(lo / 100) << 32 | pair(lo % 100) << 48;
}

/* How many decimal digits v has. */
static inline int ndigits(uint64_t v)
{
    static const uint64_t p10[20] = {1ULL,
                                     10ULL,
                                     100ULL,
                                     1000ULL,
                                     10000ULL,
                                     100000ULL,
                                     1000000ULL,
                                     10000000ULL,
                                     100000000ULL,
                                     1000000000ULL,
                                     10000000000ULL,
                                     100000000000ULL,
                                     1000000000000ULL,
                                     10000000000000ULL,
                                     100000000000000ULL,
                                     1000000000000000ULL,
                                     10000000000000000ULL,
                                     100000000000000000ULL,
                                     1000000000000000000ULL,
                                     10000000000000000000ULL};
    int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12; /* log10 from log2, maybe one short */
    return t + (v >= p10[t]) + (v == 0);
}

/* Eight digits of v < 10^8 at o, leading zeros dropped unless all (at least one digit);
 * 8 bytes are written (the room's slack). */
static inline char *put_8(char *o, uint32_t v, int all)
{
    int n = all ? 8 : ndigits(v);
    uint64_t w = digits8(v) >> (8 * (8 - n)); /* little-endian: the leading zeros shifted out */
    memcpy(o, &w, 8);
    return o + n;
}

/* put_u64's numbers of 9 digits or more. */
static __attribute__((noinline)) char *put_u64_long(char *o, uint64_t v)
{
    uint64_t top = v / 100000000;
    if (top < 100000000) {
        o = put_8(o, (uint32_t)top, 0);
    } else { /* 17 to 20 digits */
        o = put_8(o, (uint32_t)(top / 100000000), 0);
        o = put_8(o, (uint32_t)(top % 100000000), 1);
    }
    return put_8(o, (uint32_t)(v % 100000000), 1);
}

#endif

/* The decimal digits of v at o, as nl__utoa_back writes them; 8 bytes may be written past
 * them (the room's slack). Eight digits a word on little-endian machines. */
static inline char *put_u64(char *o, uint64_t v)
{
#ifdef LE_WORDS
    if (__builtin_expect(v < 100000000, 1)) return put_8(o, (uint32_t)v, 0);
    return put_u64_long(o, v);
#else
    char tmp[24];
    char *p = nl__utoa_back(v, tmp + sizeof tmp);
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(o, p, n);
    return o + n;
#endif
}

/* "ts=" and the timestamp: within the cached second, its text and the microseconds' six
 * digits; else the encoder's (nl__enc_tsv), whose second is then cached when it is one
 * nl_ts_format writes unclamped and with a non-negative count of seconds. */
static inline void put_ts(nl__dline_t *c, nl_buf_t *b, int64_t usec)
{
    uint64_t frac = (uint64_t)usec - (uint64_t)c->sec0;
    if (c->sec0 >= 0 && frac < 1000000 && nl__buf_room(b, 3 + NL_TS_LEN + 1)) {
        char *o = b->p + b->len;
        unsigned f = (unsigned)frac;
        nl__copy(o, c->ts, TS_HEAD);
#ifdef LE_WORDS
        uint64_t w = digits8(f) >> 16 | (uint64_t)'Z' << 48; /* six digits, 'Z', one spare */
        memcpy(o + TS_HEAD, &w, 8);
#else
        memcpy(o + TS_HEAD, nl__digits2 + 2 * (f / 10000), 2);
        memcpy(o + TS_HEAD + 2, nl__digits2 + 2 * (f / 100 % 100), 2);
        memcpy(o + TS_HEAD + 4, nl__digits2 + 2 * (f % 100), 2);
        o[TS_HEAD + 6] = 'Z';
#endif
        b->len += 3 + NL_TS_LEN;
        return;
    }
    nl__put(b, "ts=", 3);
    nl__enc_tsv(b, usec);
    if (!b->err && usec >= 0 && usec <= TS_HI) {
        memcpy(c->ts, b->p + b->len - 3 - NL_TS_LEN, TS_HEAD);
        c->sec0 = usec - usec % 1000000;
    }
}

/* Eight bytes at p, as one unaligned word. */
static inline uint64_t ld8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* 16 to 64 bytes of a and b equal: words of 8 from both ends, overlapping as n needs. */
static inline int same_16_64(const char *a, const char *b, size_t n)
{
    uint64_t d = (ld8(a) ^ ld8(b)) | (ld8(a + 8) ^ ld8(b + 8)) |
                 (ld8(a + n - 16) ^ ld8(b + n - 16)) | (ld8(a + n - 8) ^ ld8(b + n - 8));
    if (n > 32)
        d |= (ld8(a + 16) ^ ld8(b + 16)) | (ld8(a + 24) ^ ld8(b + 24)) |
             (ld8(a + n - 32) ^ ld8(b + n - 32)) | (ld8(a + n - 24) ^ ld8(b + n - 24));
    return d == 0;
}

/* n bytes, 16 to 64, in overlapping moves. */
static inline void copy_16_64(char *o, const char *v, size_t n)
{
    if (n <= 32) {
        memcpy(o, v, 16);
        memcpy(o + n - 16, v + n - 16, 16);
    } else {
        memcpy(o, v, 32);
        memcpy(o + n - 32, v + n - 32, 32);
    }
}

/* The guid field's value: when it is the plan's last one (compared, 16 to 64 bytes), copied
 * as it was written then; else written by the encoder and kept when it came out as it is. */
static inline char *put_guid(nl__dplan_t *p, nl_buf_t *b, char *o, const char *v, size_t len)
{
    if (p->glen && len == p->glen && same_16_64(v, p->gval, len)) { /* glen 0: none kept */
        copy_16_64(o, v, len);
        return o + len;
    }
    b->len = (size_t)(o - b->p);
    nl__enc_value(b, v, len);
    char *w = b->p + b->len;
    p->glen = 0;
    if (len >= 16 && len <= 64 && (size_t)(w - o) == len && !memcmp(o, v, len)) {
        memcpy(p->gval, v, len);
        p->glen = len;
    }
    return w;
}

/* An integer field's text (V_I64: v read as signed): the step's last text when v is its
 * last value, else written and, when 8 bytes or less, kept. 8 bytes may be written past. */
static inline char *put_int(dstep_t *st, char *o, uint64_t v)
{
    if (v == st->last && st->n) {
        memcpy(o, &st->text, 8);
        return o + st->n;
    }
    char *w = o;
    if (st->kind == V_I64 && (int64_t)v < 0) {
        *w++ = '-';
        w = put_u64(w, 0ULL - v);
    } else {
        w = put_u64(w, v);
    }
    st->n = 0;
    if (w - o <= 8) {
        memcpy(&st->text, o, 8);
        st->last = v;
        st->n = (uint8_t)(w - o);
    }
    return w;
}

int nl__dline_build(nl__dline_t *c, nl_buf_t *b, int64_t usec, int level, const char *event,
                    nl_tmpl_t *t, const nl_arg_t *saved, const char *strs, const nl_head_t *h)
{
    nl__dplan_t *p = plan_for(c, t, h, event, level);
    if (!p) return 1; /* nothing written yet */
    /* the strings' addresses, and whether the line surely fits in b's room */
    const char *sv[NL_FMT_FIELDS_MAX];
    size_t need = p->bound;
    const char *s = strs;
    for (uint64_t m = t->str_mask; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        uint64_t len = saved[k].u;
        sv[k] = s;
        if (len != NL__DLINE_NO_STR) {
            s += len + 1;
            need += 4 * len;
        }
    }
    if (b->err || b->cap - b->len < need) return 1; /* a long line: the synchronous way */
    put_ts(c, b, usec);
    char *o = b->p + b->len;
    for (dstep_t *st = p->step;; st++) {
        o = put_text(o, p->text + st->off, st->len);
        int k = st->k;
        switch (st->kind) {
        case V_END:
            *o++ = '\n';
            b->len = (size_t)(o - b->p);
            return 0;
        case V_GUID:
            if (saved[k].u == NL__DLINE_NO_STR) { /* the head's: a validated UUID */
                memcpy(o, h->guid, 32);
                memcpy(o + NL_GUID_LEN - 16, h->guid + NL_GUID_LEN - 16, 16);
                o += NL_GUID_LEN;
                break;
            }
            /* fall through */
        case V_STR:
            if (st->kind == V_GUID) {
                o = put_guid(p, b, o, sv[k], (size_t)saved[k].u);
                break;
            }
            b->len = (size_t)(o - b->p);
            if (saved[k].u == NL__DLINE_NO_STR)
                nl__enc_value(b, "", 0);
            else
                nl__enc_value(b, sv[k], (size_t)saved[k].u);
            o = b->p + b->len;
            break;
        case V_I64:
        case V_U64: o = put_int(st, o, saved[k].u); break;
        default: /* V_ENC */
            b->len = (size_t)(o - b->p);
            nl__tfield_put(b, &t->f[k], &saved[k]);
            o = b->p + b->len;
        }
    }
}
