/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_fmt.c — parse nl_write formats once, and find them again by content. NetLogger cached
 * one template per event name and silently reused it when the format changed; here the key
 * is the format text itself, so a changed format is a new template. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_fmt.h"
#include "nl_rodata.h"
#include "nl_hash.h"
#include "nl_line.h"

/* The head fields a format may not declare: all but guid (nl_write's guid field). */
static int reserved(const char *name, size_t len)
{
    return nl__is_head_field(name, len) && !(len == 4 && memcmp(name, "guid", 4) == 0);
}

int nl__tmpl_parse(const char *fmt, size_t len, uint64_t hash, nl_tmpl_t **out)
{
    /* First pass: validate and count, so one allocation holds everything. */
    struct {
        size_t name_at, name_len;
        char type;
    } tmp[NL_FMT_FIELDS_MAX];
    int n = 0;
    size_t text = 0;
    for (size_t i = 0; i < len;) {
        if (fmt[i] == ' ') {
            i++;
            continue;
        }
        size_t ns = i;
        while (i < len && fmt[i] != '=' && fmt[i] != ' ') i++;
        size_t nlen = i - ns;
        if (i >= len || fmt[i] != '=' || !nl__name_ok(fmt + ns, nlen) || reserved(fmt + ns, nlen))
            return NL_EFMT;
        i++;
        if (i >= len || !strchr("sdilut", fmt[i]) || (i + 1 < len && fmt[i + 1] != ' '))
            return NL_EFMT;
        if (n == NL_FMT_FIELDS_MAX) return NL_EFMT;
        for (int k = 0; k < n; k++)
            if (tmp[k].name_len == nlen && memcmp(fmt + tmp[k].name_at, fmt + ns, nlen) == 0)
                return NL_EFMT;
        tmp[n].name_at = ns;
        tmp[n].name_len = nlen;
        tmp[n].type = fmt[i];
        text += nlen + 2;
        n++;
        i++;
    }
    nl_tmpl_t *t = malloc(sizeof *t + (size_t)n * sizeof(nl_tfield_t) + text + len + 1);
    if (!t) return NL_ENOMEM;
    char *p = (char *)(t->f + n);
    t->hash = hash;
    t->fmt_len = len;
    t->n = n;
    t->guid_idx = -1;
    t->id_mask = t->dbl_mask = t->int_mask = t->ts_mask = t->str_mask = 0;
    atomic_init(&t->const_check, 0);
    atomic_init(&t->ro_addr, NULL);
    for (int k = 0; k < n; k++) {
        t->f[k].type = tmp[k].type;
        t->f[k].enc = p;
        t->f[k].enc_len = (uint8_t)(tmp[k].name_len + 2);
        *p++ = ' ';
        memcpy(p, fmt + tmp[k].name_at, tmp[k].name_len);
        p += tmp[k].name_len;
        *p++ = '=';
        if (nl__is_id_field(fmt + tmp[k].name_at, tmp[k].name_len)) t->id_mask |= 1ULL << k;
        char ty = tmp[k].type;
        if (ty == 'd' || ty == 't') t->dbl_mask |= 1ULL << k;
        if (ty == 'i') t->int_mask |= 1ULL << k;
        if (ty == 't') t->ts_mask |= 1ULL << k;
        if (ty == 's') t->str_mask |= 1ULL << k;
        if (tmp[k].name_len == 4 && memcmp(fmt + tmp[k].name_at, "guid", 4) == 0) {
            if (tmp[k].type != 's') {
                free(t);
                return NL_EFMT; /* a guid is text */
            }
            t->guid_idx = k;
        }
    }
    memcpy(p, fmt, len);
    p[len] = '\0';
    t->fmt = p;
    *out = t;
    return 0;
}

/* FNV-1a over the format text, measuring it on the way. */
static uint64_t fmt_hash(const char *s, size_t *len)
{
    uint64_t h = 1469598103934665603ULL;
    const char *p = s;
    for (; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    *len = (size_t)(p - s);
    return h;
}

/* The slowest path of nl__tcache_get: find the template by the format's content. */
static int tcache_by_content(nl_tcache_t *c, const char *fmt, nl_tmpl_t **out, int *owned);

int nl__tcache_get_slow(nl_tcache_t *c, const char *fmt, nl_tmpl_t **out, int *owned)
{
    if (!fmt) fmt = "";
    _Atomic(nl_tmpl_t *) *front = &c->byptr[nl__mix64((uint64_t)(uintptr_t)fmt) % NL_TCACHE_SLOTS];
    nl_tmpl_t *t = atomic_load_explicit(front, memory_order_acquire);
    if (t && (atomic_load_explicit(&t->ro_addr, memory_order_relaxed) == fmt ||
              strcmp(t->fmt, fmt) == 0)) {
        *out = t;
        *owned = 0;
        return 0;
    }
    int rc = tcache_by_content(c, fmt, out, owned);
    if (rc == 0 && !*owned) {
        t = *out;
        const char *none = NULL; /* the first literal seen with this text keeps the place */
        if (!atomic_load_explicit(&t->ro_addr, memory_order_relaxed) &&
            nl__rodata_holds(fmt, t->fmt_len))
            atomic_compare_exchange_strong_explicit(&t->ro_addr, &none, fmt, memory_order_relaxed,
                                                    memory_order_relaxed);
        atomic_store_explicit(front, t, memory_order_release);
    }
    return rc;
}

static int tcache_by_content(nl_tcache_t *c, const char *fmt, nl_tmpl_t **out, int *owned)
{
    size_t len;
    uint64_t h = fmt_hash(fmt, &len);
    size_t at = (size_t)(h ^ (h >> 29)) % NL_TCACHE_SLOTS;
    *owned = 0;
    for (int probe = 0; probe < NL_TCACHE_PROBE; probe++) {
        _Atomic(nl_tmpl_t *) *slot = &c->slot[(at + (size_t)probe) % NL_TCACHE_SLOTS];
        nl_tmpl_t *t = atomic_load_explicit(slot, memory_order_acquire);
        if (!t) {
            nl_tmpl_t *nt;
            int rc = nl__tmpl_parse(fmt, len, h, &nt);
            if (rc) return rc;
            nl_tmpl_t *expected = NULL;
            if (atomic_compare_exchange_strong_explicit(slot, &expected, nt, memory_order_acq_rel,
                                                        memory_order_acquire)) {
                *out = nt;
                return 0;
            }
            free(nt); /* another thread filled this slot first: look at what it put there */
            t = expected;
        }
        if (t->hash == h && t->fmt_len == len && memcmp(t->fmt, fmt, len) == 0) {
            *out = t;
            return 0;
        }
    }
    /* Cache full along this probe sequence: still correct, just parsed per call. */
    int rc = nl__tmpl_parse(fmt, len, h, out);
    if (rc == 0) *owned = 1;
    return rc;
}

void nl__tcache_free(nl_tcache_t *c)
{
    for (int i = 0; i < NL_TCACHE_SLOTS; i++) {
        free(atomic_load_explicit(&c->slot[i], memory_order_relaxed));
        atomic_store_explicit(&c->slot[i], NULL, memory_order_relaxed);
    }
}

/* Seconds (in TS_MIN_S..TS_MAX_S) to the nearest microsecond. Whole seconds and the
 * fraction are rounded apart: d * 1e6 + 0.5 rounds twice (the product is itself rounded
 * to a quarter microsecond near 2026), so 1795374198.0000004 came out as .000001. The
 * fraction d - floor(d) is exact. */
static int64_t secs_to_usec(double d)
{
    double whole = floor(d);
    return (int64_t)whole * 1000000 + (int64_t)llround((d - whole) * 1e6);
}

void nl__tfield_put(nl_buf_t *b, const nl_tfield_t *f, const nl_arg_t *a)
{
    nl__put(b, f->enc, f->enc_len);
    switch (f->type) {
    case 's': nl__enc_value(b, a->s ? a->s : "", a->s ? strlen(a->s) : 0); break;
    case 'd': nl__enc_dblv(b, a->d); break;
    case 'i':
    case 'l': nl__enc_i64v(b, a->l); break;
    case 'u': nl__enc_u64v(b, a->u); break;
    case 't': nl__enc_tsv(b, secs_to_usec(a->d)); break;
    }
}
