/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_parse_netlogger.c — a line read as NetLogger's own reader reads it (the regular
 * expression of its NLSimpleParser, which Pegasus WMS still ships), for lines NetLogger's
 * tools wrote. nlkit's escapes mean nothing there: NetLogger writes a backslash as is,
 * so `v="C:\new folder"` holds a backslash and an 'n', never a newline.
 *
 * The rules, as that reader applies them from left to right:
 *   - a field is NAME=VALUE, NAME of [0-9A-Za-z_.-], after any whitespace;
 *   - VALUE is either a run of bytes that are neither '"' nor whitespace, or a quoted
 *     string: from the opening quote up to the first '"' not preceded by a backslash,
 *     or, when there is none, up to the last '"' of the line; `\"` inside it stands for
 *     '"' and every other backslash is itself;
 *   - anything that is not such a field (a word without '=', "a/b=1"'s "a/", an empty
 *     value) is skipped and the reader tries again one character further on;
 *   - whitespace is Python's: Unicode spaces such as U+00A0 end an unquoted value;
 *   - a name given twice keeps its last value (in the first one's place).
 * Skipped bytes and replaced values are counted in rec->recovered. */
#include <string.h>

#include "nl_enc.h"
#include "nl_parse_int.h"

/* The quoted value whose opening quote is at s[q - 1]: its content's end (the closing
 * quote's offset), or 0 when the line has no closing quote for it. */
static size_t closing_quote(const unsigned char *s, size_t len, size_t q)
{
    size_t last = 0;
    for (size_t i = q; i < len; i++) {
        if (s[i] != '"') continue;
        if (s[i - 1] != '\\') return i; /* s[q - 1] is the opening quote, never a backslash */
        last = i;
    }
    return last;
}

/* The content s[from, to) with each `\"` read as '"' (left to right, as Python's
 * str.replace), into scratch when there is one; otherwise in place. */
static int quoted_content(nl_parse_ctx_t *c, size_t from, size_t to, nl_field_t *f)
{
    const char *v = c->s + from;
    size_t n = to - from;
    int esc = 0;
    for (size_t i = 0; i + 1 < n && !esc; i++) esc = v[i] == '\\' && v[i + 1] == '"';
    if (!esc) {
        f->value = v;
        f->value_len = (uint32_t)n;
        return 0;
    }
    char *o = nl__parse_scratch(c);
    if (!o) return nl__parse_fail(c, from, NL_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == '\\' && i + 1 < n && v[i + 1] == '"') i++;
        o[k++] = v[i];
    }
    f->value = o;
    f->value_len = (uint32_t)k;
    nl__parse_scratch_used(c, k);
    return 0;
}

int nl__parse_fields_netlogger(nl_parse_ctx_t *c)
{
    const unsigned char *s = (const unsigned char *)c->s;
    size_t len = c->len, p = 0, w;
    while (p < len) {
        size_t i = p;
        while (i < len && (w = nl__nlv_space(s + i, len - i))) i += w;
        if (i >= len) break;
        size_t ns = i;
        while (i < len && nl__name_char(s[i])) i++;
        if (i == ns || i >= len || s[i] != '=') {
            /* Starting anywhere up to the end of this name reaches the same name and fails
             * the same way: go on past it (linear, where retrying at every byte is not). */
            c->rec->recovered++;
            p = i > ns ? i : ns + 1;
            continue;
        }
        size_t eq = i++;
        nl_field_t f = {.name = c->s + ns, .name_len = (uint32_t)(eq - ns)};
        if (i < len && s[i] == '"') {
            size_t end = closing_quote(s, len, i + 1);
            if (end) {
                int rc = quoted_content(c, i + 1, end, &f);
                if (rc) return rc;
                i = end + 1;
            }
        } else {
            size_t v = i;
            while (i < len && s[i] != '"' && !nl__nlv_space(s + i, len - i)) i++;
            f.value = c->s + v;
            f.value_len = (uint32_t)(i - v);
            if (i == v) f.value = NULL; /* an empty value is no field */
        }
        if (!f.value) {
            c->rec->recovered++;
            p = eq + 1;
            continue;
        }
        if (f.name_len > NL_NAME_MAX) {
            c->rec->recovered++; /* nlkit keeps no longer names: counted, not cut */
        } else {
            int rc = nl__parse_add(c, &f, ns);
            if (rc) return rc;
        }
        while (i < len && (w = nl__nlv_space(s + i, len - i))) i += w;
        p = i;
    }
    return 0;
}
