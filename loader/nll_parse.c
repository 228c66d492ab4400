/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_parse.c — one event line into a record ready to store: parsed, each field typed
 * and assigned to its table (ident, value, or a summary column). The work that needs no
 * database, so nl-load can do it in a thread of its own while the other one inserts. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_line.h"
#include "nl_num.h"
#include "nll.h"
#include "nll_db_lite.h" /* SQLite's storage class codes */
#include "nll_rec.h"

/* The summary fields that have a column (nl_line.h's table without its NONE rows), in
 * the insert statement's parameter order after event_id, ts, event, host, guid
 * (parameters 1-5). */
#define T_INT(name, column) {name, sizeof name - 1, 1, column},
#define T_REAL(name, column) {name, sizeof name - 1, 0, column},
#define T_NONE(name, column)
#define T(id, name, type, column) T_##type(name, column)
const nll_typed_t nll__typed[] = {NL_SUMMARY_FIELDS(T)};
#undef T
#undef T_INT
#undef T_REAL
#undef T_NONE
const int nll__ntyped = (int)(sizeof nll__typed / sizeof nll__typed[0]);

/* Comparisons with string literals, their lengths known at compile time (this runs for
 * every field of every line). */
#define NAME_IS(f, lit) ((f)->name_len == sizeof lit - 1 && !memcmp((f)->name, lit, sizeof lit - 1))
#define HAS_SUFFIX(s, len, lit)                                                                    \
    ((len) >= sizeof lit - 1 && !memcmp((s) + (len) - (sizeof lit - 1), lit, sizeof lit - 1))

/* Whether s is a number written without superfluous characters and with at most 15
 * significant digits, so the double holds exactly what was written: -?(0|[1-9]D*)(.D*[1-9])?
 * ([eE][+-]?D{1,3})?. Most numbers in logs are; it spares formatting to check them. Then
 * *d is its value when a single exact operation gives it (digits < 2^53 times or divided
 * by an exact power of ten: correctly rounded), and *exact says whether it did. */
static int plain_decimal(const char *s, size_t len, double *d, int *exact)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = s[0] == '-', sig = 0;
    int64_t m = 0, e = 0;
    int seen_nonzero = 0;
    *exact = 0;
    if (i >= len || s[i] < '0' || s[i] > '9') return 0;
    if (s[i] == '0' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9') return 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if ((seen_nonzero |= s[i] != '0')) sig++;
        if (sig <= 15) m = m * 10 + (s[i] - '0');
    }
    if (i < len && s[i] == '.') {
        size_t start = ++i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, e--) {
            if ((seen_nonzero |= s[i] != '0')) sig++;
            if (sig <= 15) m = m * 10 + (s[i] - '0');
        }
        if (i == start || s[i - 1] == '0') return 0; /* "1." or "0.50" */
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int neg = 0, x = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
        size_t start = i;
        /* at most 3 exponent digits count; more are refused below, and must not be summed
         * first (1e9999999999 overflowed int: found by fuzz_load) */
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (i - start < 3) x = x * 10 + (s[i] - '0');
        if (i == start || i - start > 3) return 0;
        e += neg ? -x : x;
    }
    if (i != len || sig > 15) return 0;
    if (e >= -22 && e <= 22) {
        *d = e < 0 ? (double)m / pow10[-e] : (double)m * pow10[e];
        if (s[0] == '-') *d = -*d;
        *exact = 1;
    }
    return 1;
}

/* Whether a number's digits before any exponent are not all zero: such a number read as
 * 0 or as a subnormal double may have lost digits (1e-400 is not 0). */
static int mantissa_nonzero(const char *s, size_t len)
{
    for (size_t i = 0; i < len && s[i] != 'e' && s[i] != 'E'; i++)
        if (s[i] >= '1' && s[i] <= '9') return 1;
    return 0;
}

/* The length of fixed-point text -?(0|[1-9]D*).D* with its fraction's trailing zeros (and
 * then a bare '.') cut off, or 0 if s is not such text or has no trailing zero: C's %f
 * ("0.500000") and NetLogger's floats. */
static size_t fixed_point_trim(const char *s, size_t len)
{
    size_t i = s[0] == '-', start = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    if (i == start || i >= len || s[i] != '.' || (s[start] == '0' && i - start > 1)) return 0;
    size_t dot = i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    if (i != len || s[len - 1] != '0') return 0;
    while (len > dot + 1 && s[len - 1] == '0') len--;
    return len == dot + 1 ? dot : len;
}

int nll_value_type(const char *s, size_t len, int64_t *i, double *d)
{
    if (len == 0 || len > 32) return SQLITE_TEXT;
    size_t t = fixed_point_trim(s, len);
    if (t) {
        /* a fixed-point float is a number: "3.000000" is 3.0, as whoever wrote it meant */
        int ty = nll_value_type(s, t, i, d);
        if (ty == SQLITE_INTEGER) *d = (double)*i;
        if (ty != SQLITE_TEXT) return SQLITE_FLOAT;
        return nl__strtod(s, len, d) == 0 && isfinite(*d) ? SQLITE_FLOAT : SQLITE_TEXT;
    }
    size_t k = s[0] == '-';
    size_t digits = 0;
    while (k + digits < len && s[k + digits] >= '0' && s[k + digits] <= '9') digits++;
    if (digits && k + digits == len) {
        if (len == 2 && k && s[1] == '0') { /* "-0": the sign is kept, as a real */
            *d = -0.0;
            return SQLITE_FLOAT;
        }
        /* canonical integers only: "007" would not read back as sent */
        if ((s[k] == '0' && (digits > 1 || k)) || digits > 19) return SQLITE_TEXT;
        uint64_t u = 0;
        for (size_t j = k; j < len; j++) u = u * 10 + (uint64_t)(s[j] - '0');
        if (u > (uint64_t)INT64_MAX + (uint64_t)k) return SQLITE_TEXT; /* 19 digits < 2^64 */
        *i = k ? (int64_t)(0 - u) : (int64_t)u;
        return SQLITE_INTEGER;
    }
    int exact;
    if (plain_decimal(s, len, d, &exact) && exact) return SQLITE_FLOAT;
    if (nl__strtod(s, len, d) || !isfinite(*d)) return SQLITE_TEXT;
    /* read as 0 or a subnormal: digits may be lost, so only its exact shortest text counts */
    int tiny = fabs(*d) < DBL_MIN && mantissa_nonzero(s, len);
    if (!tiny && plain_decimal(s, len, d, &exact)) return SQLITE_FLOAT;
    /* 16-17 digits: a number iff it is the shortest text of its double, as we write them */
    char back[40];
    int n = nl__dtoa(*d, back);
    return n >= 0 && (size_t)n == len && !memcmp(back, s, len) ? SQLITE_FLOAT : SQLITE_TEXT;
}

int nll_batch_reserve(nll_batch_t *b, size_t n)
{
    if (b->len + n <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) return NL_ENOMEM;
    b->p = p;
    b->cap = cap;
    return 0;
}

static void put(nll_batch_t *b, const void *v, size_t n)
{
    memcpy(b->p + b->len, v, n);
    b->len += n;
}

/* One field: kind, summary slot, name, and its value as the kind says. */
static void put_field(nll_batch_t *b, int kind, int slot, const nl_field_t *f, int64_t i, double d)
{
    nll_fhdr_t h = {(uint8_t)kind, (uint8_t)slot, f->name_len, f->value_len};
    put(b, &h, sizeof h);
    put(b, f->name, f->name_len);
    if (kind == NLL_K_VALUE_INT || kind == NLL_K_SUM_INT)
        put(b, &i, sizeof i);
    else if (kind == NLL_K_VALUE_REAL || kind == NLL_K_SUM_REAL)
        put(b, &d, sizeof d);
    else
        put(b, f->value, f->value_len);
}

/* The kind field f gets in typed summary slot t, or 0 if its value does not fit. */
static int typed_kind(const nl_field_t *f, int t, int64_t *i, double *d)
{
    int ty = nll_value_type(f->value, f->value_len, i, d);
    if (nll__typed[t].integer) return ty == SQLITE_INTEGER ? NLL_K_SUM_INT : 0;
    if (ty == SQLITE_TEXT) return 0;
    if (ty == SQLITE_INTEGER) {
        if (*i > (1ll << 53) || *i < -(1ll << 53)) return 0;
        *d = (double)*i;
    }
    return NLL_K_SUM_REAL;
}

/* The kind (and summary slot) of field f of a summary event, or 0 if it is not a typed
 * summary field whose column would give it back exactly (counted in *misfit when it has a
 * column but its value does not fit it: "inf", "nan", text). */
static int summary_kind(const nl_field_t *f, int *slot, int64_t *i, double *d, uint16_t *misfit)
{
    for (int t = 0; t < nll__ntyped; t++) {
        if (f->name_len != nll__typed[t].len ||
            memcmp(f->name, nll__typed[t].field, nll__typed[t].len))
            continue;
        int kind = typed_kind(f, t, i, d);
        *slot = t;
        if (!kind) (*misfit)++;
        return kind;
    }
    return 0;
}

/* Whether the event is one of the tools' reports whose name was written with escapes. The
 * tools write report names plain, so such a line is a forgery made to pass a filter that
 * does not decode escapes (syslog-ng's kv-parser sees nl\x2ealert.start where the archive
 * would store nl.alert.start): whatever decides "is this a report" must see the name the
 * archive stores. An escaped value is decoded outside the line; a plain one points into it. */
static int escaped_report(const nl_field_t *ev, const char *line, size_t len)
{
    uintptr_t v = (uintptr_t)ev->value, l0 = (uintptr_t)line;
    return (v < l0 || v > l0 + len) && nl__is_report_event(ev->value, ev->value_len);
}

/* Whether field f's value was decoded outside the line (it had escapes) into a newline, tab
 * or carriage return: in NetLogger's lines "C:\new folder" is a backslash and an n, which
 * nlkit's reading stores as a newline. Cheap: only escaped values are looked at. */
static int ctl_decoded(const nl_field_t *f, const char *line, size_t len)
{
    uintptr_t v = (uintptr_t)f->value, l0 = (uintptr_t)line;
    if (v >= l0 && v <= l0 + len) return 0;
    for (uint32_t i = 0; i < f->value_len; i++)
        if (f->value[i] == '\n' || f->value[i] == '\t' || f->value[i] == '\r') return 1;
    return 0;
}

/* The 1-based column of the value of the first field `name=` (with "=") at a word's start
 * in the line, or 1. */
static int field_col(const char *line, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i + n <= len; i++)
        if ((i == 0 || line[i - 1] == ' ') && !memcmp(line + i, name, n)) return (int)(i + n + 1);
    return 1;
}

int nll_parse_line(nl_rec_t *rec, unsigned flags, const char *line, size_t len, long lineno,
                   nll_batch_t *b, nl_perr_t *perr)
{
    int rc = nl_parse(rec, line, len, lineno, flags, perr);
    if (rc <= 0) return rc;
    const nl_field_t *ts = &rec->f[rec->i_ts], *ev = &rec->f[rec->i_event];
    int64_t usec = rec->ts_usec;
    if (!usec && nl_ts_parse(ts->value, ts->value_len, &usec)) {
        perr->line = lineno;
        uintptr_t v = (uintptr_t)ts->value, l0 = (uintptr_t)line;
        perr->col = v >= l0 && v <= l0 + len ? (int)(v - l0) + 1 : 1; /* escaped: unknown */
        perr->code = NL_ETS;
        snprintf(perr->msg, sizeof perr->msg, "unreadable ts, cannot archive the event");
        return NL_ETS;
    }
    if (escaped_report(ev, line, len)) {
        perr->line = lineno;
        perr->col = field_col(line, len, "event=");
        perr->code = NL_EPARSE;
        snprintf(perr->msg, sizeof perr->msg,
                 "report name written with escapes, refused (nlkit's tools write it plain)");
        return NL_EPARSE;
    }
    const nl_field_t *lv = rec->i_level >= 0 ? &rec->f[rec->i_level] : NULL;
    /* a level name in the archive's spelling ("info", "WARNING": Info, Warn); others as
     * written */
    const char *level = lv ? nl__level_canon(lv->value, lv->value_len) : NULL;
    size_t level_len = level ? strlen(level) : lv ? lv->value_len : 0;
    if (lv && !level) level = lv->value;
    size_t need = sizeof(nll_rhdr_t) + ev->value_len + level_len;
    for (int k = 0; k < rec->n; k++)
        need += sizeof(nll_fhdr_t) + rec->f[k].name_len + rec->f[k].value_len + 8;
    if (nll_batch_reserve(b, need)) return NL_ENOMEM;
    size_t start = b->len;
    nll_rhdr_t h = {.ts = (double)usec / 1e6,
                    .event_len = ev->value_len,
                    .level_len = (uint32_t)level_len,
                    .has_level = lv != NULL,
                    .recovered = (uint16_t)(rec->recovered > 65535 ? 65535 : rec->recovered)};
    size_t alen;
    int ek = nl__event_kind(ev->value, ev->value_len, &alen);
    h.summary = ek == NL_KIND_SUMMARY;
    const nl_field_t *host = h.summary ? nl_rec_get(rec, "host") : NULL;
    if (h.summary && (size_t)ev->value_len + (host ? host->value_len : 0) > NLL_SUM_KEY_MAX) {
        perr->line = lineno;
        perr->col = field_col(line, len, "event=");
        perr->code = NL_EPARSE;
        snprintf(perr->msg, sizeof perr->msg,
                 "summary event and host longer than %d bytes together (%zu), refused",
                 NLL_SUM_KEY_MAX, (size_t)ev->value_len + (host ? host->value_len : 0));
        return NL_EPARSE;
    }
    h.startend = ek == NL_KIND_START ? 0 : ek == NL_KIND_END ? 1 : 2;
    const nl_field_t *status = nl_rec_get(rec, "status");
    double unused;
    h.has_status = status && nll_value_type(status->value, status->value_len, &h.status, &unused) ==
                                 SQLITE_INTEGER;
    put(b, &h, sizeof h);
    put(b, ev->value, ev->value_len);
    if (lv) put(b, level, level_len);
    uint32_t nfields = 0;
    for (int k = 0; k < rec->n; k++) {
        const nl_field_t *f = &rec->f[k];
        if (k == rec->i_ts || k == rec->i_event || k == rec->i_level) continue;
        if (h.has_status && f == status) continue;
        int64_t i = 0;
        double d = 0;
        int slot = 0, kind;
        if ((k == rec->i_guid || nl__is_id_field(f->name, f->name_len)) &&
            f->value_len > NLL_IDENT_MAX) {
            kind = NLL_K_VALUE_TEXT; /* too long to index: in `value`, as written */
            h.unindexed++;
        } else if (k == rec->i_guid)
            kind = NLL_K_GUID;
        else if (h.summary && NAME_IS(f, "host"))
            kind = NLL_K_SUM_HOST; /* lives in summary.host only: a row fewer per summary */
        else if (h.summary && (kind = summary_kind(f, &slot, &i, &d, &h.untyped)))
            ;
        else if (nl__is_id_field(f->name, f->name_len))
            kind = NLL_K_IDENT;
        else
            switch (nll_value_type(f->value, f->value_len, &i, &d)) {
            case SQLITE_INTEGER: kind = NLL_K_VALUE_INT; break;
            case SQLITE_FLOAT: kind = NLL_K_VALUE_REAL; break;
            default: kind = NLL_K_VALUE_TEXT;
            }
        put_field(b, kind, slot, f, i, d);
        nfields++;
        if (!(flags & NL_PARSE_NETLOGGER) && !h.ctl_escape)
            h.ctl_escape = ctl_decoded(f, line, len);
    }
    uint32_t total = (uint32_t)(b->len - start); /* records are not aligned: no pointer to one */
    memcpy(b->p + start + offsetof(nll_rhdr_t, nfields), &nfields, sizeof nfields);
    memcpy(b->p + start + offsetof(nll_rhdr_t, untyped), &h.untyped, sizeof h.untyped);
    memcpy(b->p + start + offsetof(nll_rhdr_t, unindexed), &h.unindexed, sizeof h.unindexed);
    memcpy(b->p + start + offsetof(nll_rhdr_t, total), &total, sizeof total);
    memcpy(b->p + start + offsetof(nll_rhdr_t, ctl_escape), &h.ctl_escape, sizeof h.ctl_escape);
    return 1;
}

void nll_batch_free(nll_batch_t *b)
{
    free(b->p);
    *b = (nll_batch_t){0};
}

unsigned nll_rec_recovered(const nll_batch_t *b, size_t pos)
{
    uint16_t u;
    memcpy(&u, b->p + pos + offsetof(nll_rhdr_t, recovered), sizeof u);
    return u;
}

unsigned nll_rec_unindexed(const nll_batch_t *b, size_t pos)
{
    uint16_t u;
    memcpy(&u, b->p + pos + offsetof(nll_rhdr_t, unindexed), sizeof u);
    return u;
}

unsigned nll_rec_untyped(const nll_batch_t *b, size_t pos)
{
    uint16_t u;
    memcpy(&u, b->p + pos + offsetof(nll_rhdr_t, untyped), sizeof u);
    return u;
}

int nll_rec_ctl_escape(const nll_batch_t *b, size_t pos)
{
    uint8_t u;
    memcpy(&u, b->p + pos + offsetof(nll_rhdr_t, ctl_escape), sizeof u);
    return u;
}
