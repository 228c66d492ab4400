/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_enc.c — the line encoder: the only code that writes event lines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_num.h"
#include "nlkit/nl_bp.h"

/* Byte classes for values: what a byte forces on the value it is in. A backslash forces
 * nothing by itself: an unquoted value is read literally, by nlkit and by NetLogger alike,
 * so `C:\dir` is written as is and reads the same in both; only inside quotes (a value
 * that needs them for another reason) is it escaped as `\\`. */
enum { C_PLAIN = 0, C_QUOTE = 1, C_ESC = 2, C_HIGH = 3, C_BSL = 4 };

/* The class of every byte, as a constant table built by the preprocessor: a lookup per byte
 * is what keeps the scan of a plain value (the common case) fast. */
// clang-format off
#define R16(b)                                                                                   \
    CL(b + 0), CL(b + 1), CL(b + 2), CL(b + 3), CL(b + 4), CL(b + 5), CL(b + 6), CL(b + 7),     \
        CL(b + 8), CL(b + 9), CL(b + 10), CL(b + 11), CL(b + 12), CL(b + 13), CL(b + 14),      \
        CL(b + 15)
#define CL(c)                                                                                    \
    ((c) < 0x20 || (c) == 0x7f || (c) == '"' ? C_ESC                                            \
     : (c) == '\\'                            ? C_BSL                                            \
     : (c) == ' ' || (c) == '='               ? C_QUOTE                                          \
     : (c) >= 0x80                                         ? C_HIGH                              \
                                                           : C_PLAIN)
static const unsigned char cls[256] = {R16(0x00), R16(0x10), R16(0x20), R16(0x30),
                                       R16(0x40), R16(0x50), R16(0x60), R16(0x70),
                                       R16(0x80), R16(0x90), R16(0xa0), R16(0xb0),
                                       R16(0xc0), R16(0xd0), R16(0xe0), R16(0xf0)};
#undef CL
#undef R16
// clang-format on

/* Length of the valid UTF-8 sequence starting at s[0] (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if there is none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else
        return 0;
    if (n < len) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return len;
}

size_t nl__nlv_space(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)) return 1;
    if (c == 0xc2) return n >= 2 && (s[1] == 0x85 || s[1] == 0xa0) ? 2 : 0;
    if (n < 3 || c < 0xe1 || c > 0xe3) return 0;
    if (c == 0xe1) return s[1] == 0x9a && s[2] == 0x80 ? 3 : 0;
    if (c == 0xe3) return s[1] == 0x80 && s[2] == 0x80 ? 3 : 0;
    if (s[1] == 0x80)
        return s[2] >= 0x80 && (s[2] <= 0x8a || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf) ? 3
                                                                                              : 0;
    return s[1] == 0x81 && s[2] == 0x9f ? 3 : 0;
}

int nl__name_ok(const char *name, size_t len)
{
    if (len == 0 || len > NL_NAME_MAX) return 0;
    for (size_t i = 0; i < len; i++)
        if (!nl__name_char((unsigned char)name[i])) return 0;
    return 1;
}

void nl__enc_name(nl_buf_t *b, const char *name, size_t len)
{
    if (!nl__buf_room(b, len + 2)) return;
    b->p[b->len++] = ' ';
    memcpy(b->p + b->len, name, len);
    b->len += len;
    b->p[b->len++] = '=';
}

/* Quoted form with escapes; only reached for values that need it. */
static void enc_escaped(nl_buf_t *b, const unsigned char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    /* Worst case every byte becomes \xHH. */
    if (!nl__buf_room(b, len * 4 + 2)) return;
    char *o = b->p + b->len;
    *o++ = '"';
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        unsigned char k = cls[c];
        if (k == C_PLAIN || k == C_QUOTE) {
            *o++ = (char)c;
            i++;
        } else if (k == C_HIGH) {
            size_t q = utf8_seq(s + i, len - i);
            if (q) {
                memcpy(o, s + i, q);
                o += q;
                i += q;
            } else {
                *o++ = '\\', *o++ = 'x', *o++ = hex[c >> 4], *o++ = hex[c & 15];
                i++;
            }
        } else {
            *o++ = '\\';
            switch (c) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '\n': *o++ = 'n'; break;
            case '\r': *o++ = 'r'; break;
            case '\t': *o++ = 't'; break;
            default: *o++ = 'x', *o++ = hex[c >> 4], *o++ = hex[c & 15];
            }
            i++;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->p);
}

/* Sixteen bytes at a time, through the compiler's vector types (SSE2 on x86-64, NEON on
 * arm64): the values of most lines (GUIDs, event names, paths, hosts) are plain, and
 * checking them a byte at a time through cls[] was a third of a full nl_write. */
typedef unsigned char enc_v16 __attribute__((vector_size(16)));
typedef signed char enc_m16 __attribute__((vector_size(16)));

/* Whether any of the 16 bytes is other than C_PLAIN: a control byte, space, DEL, a byte
 * >= 0x80, '"', '\\' or '='. The range test is one signed comparison: adding 0x5f maps the
 * printable 0x21..0x7e onto -128..-35 and every other byte above -35. */
static int v16_special(enc_v16 v)
{
    enc_m16 x = (enc_m16)(v + 0x5f);
    enc_m16 m = (x > -35) | (enc_m16)((v == '"') | (v == '\\') | (v == '='));
    uint64_t w[2];
    memcpy(w, &m, sizeof w);
    return (w[0] | w[1]) != 0;
}

/* 1 if every byte of s[0, len) is C_PLAIN (len > 0). A value of 4 to 15 bytes is read as
 * two overlapping words from its two ends (straight from the value: building a padded
 * copy on the stack stalled the load that followed the copy); a longer one block by
 * block, the last block overlapping. */
static int all_plain(const unsigned char *s, size_t len)
{
    enc_v16 v;
    if (len < 16) {
        uint64_t w[2];
        if (len >= 8) {
            memcpy(&w[0], s, 8);
            memcpy(&w[1], s + len - 8, 8);
        } else if (len >= 4) {
            uint32_t a, z;
            memcpy(&a, s, 4);
            memcpy(&z, s + len - 4, 4);
            w[0] = w[1] = a | (uint64_t)z << 32;
        } else {
            for (size_t i = 0; i < len; i++)
                if (cls[s[i]] != C_PLAIN) return 0;
            return 1;
        }
        memcpy(&v, w, sizeof v);
        return !v16_special(v);
    }
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        memcpy(&v, s + i, sizeof v);
        if (v16_special(v)) return 0;
    }
    if (i == len) return 1;
    memcpy(&v, s + len - 16, sizeof v);
    return !v16_special(v);
}

void nl__enc_value(nl_buf_t *b, const char *v, size_t len)
{
    if (len && all_plain((const unsigned char *)v, len)) {
        if (len > 32 && len <= 64 && nl__buf_room(b, len)) { /* a GUID: two moves, no call */
            memcpy(b->p + b->len, v, 32);
            memcpy(b->p + b->len + len - 32, v + len - 32, 32);
            b->len += len;
            return;
        }
        nl__put(b, v, len);
        return;
    }
    const unsigned char *s = (const unsigned char *)v;
    int quote = len == 0, esc = 0, bsl = 0;
    for (size_t i = 0; i < len;) {
        unsigned char k = cls[s[i]];
        if (k == C_PLAIN) {
            i++;
        } else if (k == C_QUOTE) {
            quote = 1;
            i++;
        } else if (k == C_BSL) {
            bsl = 1;
            i++;
        } else if (k == C_HIGH) {
            size_t q = utf8_seq(s + i, len - i);
            if (!q) {
                esc = 1;
                break;
            }
            quote |= nl__nlv_space(s + i, q) != 0; /* NetLogger would end it there */
            i += q;
        } else {
            esc = 1;
            break;
        }
    }
    if (esc || (quote && bsl)) {
        enc_escaped(b, s, len);
        return;
    }
    if (!nl__buf_room(b, len + 2)) return;
    if (quote) b->p[b->len++] = '"';
    memcpy(b->p + b->len, v, len);
    b->len += len;
    if (quote) b->p[b->len++] = '"';
}

void nl__enc_u64v(nl_buf_t *b, unsigned long long v)
{
    char tmp[24];
    char *p = nl__utoa_back(v, tmp + sizeof tmp);
    nl__put(b, p, (size_t)(tmp + sizeof tmp - p));
}

void nl__enc_i64v(nl_buf_t *b, long long v)
{
    if (v < 0) {
        nl__putc(b, '-');
        nl__enc_u64v(b, 0ULL - (unsigned long long)v);
    } else {
        nl__enc_u64v(b, (unsigned long long)v);
    }
}

void nl__enc_dblv(nl_buf_t *b, double v)
{
    /* Integral values (counts, byte totals) are the common case: skip printf. Negative
     * zero is written as such (a sign a program computed is not dropped). */
    if (v > -1e15 && v < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
        nl__enc_i64v(b, (long long)v);
        return;
    }
    char tmp[40];
    int n = nl__dtoa(v, tmp);
    nl__put(b, tmp, (size_t)n);
}

void nl__enc_tsv(nl_buf_t *b, int64_t usec)
{
    if (!nl__buf_room(b, NL_TS_LEN + 1)) return;
    nl_ts_format(usec, b->p + b->len);
    b->len += NL_TS_LEN;
}

void nl_enc_begin(nl_buf_t *b, int64_t ts_usec, const char *event, int level, const char *guid)
{
    nl__put(b, "ts=", 3);
    nl__enc_tsv(b, ts_usec);
    nl__put(b, " event=", 7);
    nl__enc_value(b, event ? event : "", event ? strlen(event) : 0);
    /* " level=NAME" whole, one copy (nl_level_name's names) */
    static const struct {
        char s[13];
        uint8_t n;
    } lv[] = {{" level=Fatal", 12}, {" level=Error", 12}, {" level=Warn", 11},
              {" level=Info", 11},  {" level=Debug", 12}, {" level=Trace", 12}};
    int li = level >= 0 && level < (int)(sizeof lv / sizeof lv[0]) ? level : NL_LVL_INFO;
    nl__put(b, lv[li].s, lv[li].n);
    if (guid) {
        nl__put(b, " guid=", 6);
        nl__enc_value(b, guid, strlen(guid));
    }
}

/* Validate a caller-supplied name and append " name=", or set NL_ENAME. */
static int enc_checked_name(nl_buf_t *b, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (!nl__name_ok(name, n)) {
        if (!b->err) b->err = NL_ENAME;
        return 0;
    }
    nl__enc_name(b, name, n);
    return !b->err;
}

void nl_enc_str(nl_buf_t *b, const char *name, const char *v, size_t len)
{
    if (enc_checked_name(b, name)) nl__enc_value(b, v ? v : "", v ? len : 0);
}

void nl_enc_dbl(nl_buf_t *b, const char *name, double v)
{
    if (enc_checked_name(b, name)) nl__enc_dblv(b, v);
}

void nl_enc_i64(nl_buf_t *b, const char *name, long long v)
{
    if (enc_checked_name(b, name)) nl__enc_i64v(b, v);
}

void nl_enc_u64(nl_buf_t *b, const char *name, unsigned long long v)
{
    if (enc_checked_name(b, name)) nl__enc_u64v(b, v);
}

void nl_enc_ts(nl_buf_t *b, const char *name, int64_t usec)
{
    if (enc_checked_name(b, name)) nl__enc_tsv(b, usec);
}

int nl_enc_end(nl_buf_t *b)
{
    nl__putc(b, '\n');
    return b->err;
}
