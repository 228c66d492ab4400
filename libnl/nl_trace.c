/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_trace.c — who called whom: W3C trace context (traceparent) taken in and handed on,
 * and the parent link a child gets from NL_GUID. All of it lives in the log's constants
 * (trace.id, span.id, parent.span.id, parent.guid), so every line carries it at no cost on
 * the write path, and nl-load files them as identities; the trace flags, which only travel
 * on, are kept in the log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "nl_guid.h"
#include "nl_log_int.h"

#define TRACE_HEX 32
#define SPAN_HEX 16

static int is_lower_hex(const char *s, size_t n)
{
    int nonzero = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
        nonzero |= c != '0';
    }
    return nonzero; /* an all-zero id is invalid */
}

/* Split a traceparent "VV-TRACE-PARENT-FF" into its parts, as the W3C recommendation
 * reads it: lower-case hex, version ff refused, version 00 exactly 55 characters, a later
 * version at least that long (what follows a '-' after the flags is not ours to read). */
static int tp_parse(const char *tp, char *trace, char *parent, char *flags)
{
    if (!tp) return -1;
    size_t n = strlen(tp);
    if (n < 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-') return -1;
    if (!((tp[0] >= '0' && tp[0] <= '9') || (tp[0] >= 'a' && tp[0] <= 'f')) ||
        !((tp[1] >= '0' && tp[1] <= '9') || (tp[1] >= 'a' && tp[1] <= 'f')))
        return -1;
    if (!memcmp(tp, "ff", 2)) return -1;
    if (!memcmp(tp, "00", 2) ? n != 55 : n > 55 && tp[55] != '-') return -1;
    if (!is_lower_hex(tp + 3, TRACE_HEX) || !is_lower_hex(tp + 36, SPAN_HEX)) return -1;
    char f0 = tp[53], f1 = tp[54];
    if (!((f0 >= '0' && f0 <= '9') || (f0 >= 'a' && f0 <= 'f')) ||
        !((f1 >= '0' && f1 <= '9') || (f1 >= 'a' && f1 <= 'f')))
        return -1;
    memcpy(trace, tp + 3, TRACE_HEX);
    trace[TRACE_HEX] = '\0';
    memcpy(parent, tp + 36, SPAN_HEX);
    parent[SPAN_HEX] = '\0';
    flags[0] = f0, flags[1] = f1, flags[2] = '\0';
    return 0;
}

/* n random lower-case hex digits (n <= 32), not all zero: the kernel's random bytes, or,
 * should getrandom fail, the random digits of libuuid's GUIDs (not the version and variant
 * digits, which are fixed). */
static void random_hex(char *out, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[TRACE_HEX / 2];
    do {
        if (getrandom(b, n / 2, 0) == (ssize_t)(n / 2)) {
            for (size_t i = 0; i < n / 2; i++)
                out[2 * i] = hex[b[i] >> 4], out[2 * i + 1] = hex[b[i] & 15];
        } else {
            char g[NL_GUID_LEN + 1];
            size_t o = 0;
            while (o < n) {
                nl_guid_new(g);
                for (int i = 0; i < NL_GUID_LEN && o < n; i++)
                    if (g[i] != '-' && i != 14 && i != 19) out[o++] = g[i];
            }
        }
        out[n] = '\0';
    } while (!is_lower_hex(out, n));
}

/* The value of constant `name`, copied into out (cap bytes), or -1 if it is not set. */
static int const_get(nl_log_t *log, const char *name, char *out, size_t cap)
{
    int rc = -1;
    pthread_mutex_lock(&log->cfg_mu);
    const nl_head_t *h = atomic_load(&log->head);
    for (int i = 0; i < h->nconst && rc; i++)
        if (!strcmp(h->cname[i], name) && strlen(h->cvalue[i]) < cap) {
            strcpy(out, h->cvalue[i]);
            rc = 0;
        }
    pthread_mutex_unlock(&log->cfg_mu);
    return rc;
}

int nl_set_traceparent(nl_log_t *log, const char *traceparent)
{
    char trace[TRACE_HEX + 1], parent[SPAN_HEX + 1], flags[3], span[SPAN_HEX + 1];
    if (!log || tp_parse(traceparent, trace, parent, flags)) return NL_EINVAL;
    random_hex(span, SPAN_HEX);
    int rc = nl_const_set(log, "trace.id", trace);
    if (!rc) rc = nl_const_set(log, "span.id", span);
    if (!rc) rc = nl_const_set(log, "parent.span.id", parent);
    if (!rc) {
        pthread_mutex_lock(&log->cfg_mu);
        memcpy(log->trace_flags, flags, sizeof log->trace_flags);
        pthread_mutex_unlock(&log->cfg_mu);
    }
    return rc;
}

int nl_traceparent(nl_log_t *log, char *out, size_t cap)
{
    char trace[TRACE_HEX + 1], span[SPAN_HEX + 1], flags[3];
    if (!log || !out || cap < NL_TRACEPARENT_LEN + 1) return NL_EINVAL;
    if (const_get(log, "trace.id", trace, sizeof trace) ||
        const_get(log, "span.id", span, sizeof span)) {
        /* no trace yet: this program starts one, and its own lines join it from now on */
        random_hex(trace, TRACE_HEX);
        random_hex(span, SPAN_HEX);
        int rc = nl_const_set(log, "trace.id", trace);
        if (!rc) rc = nl_const_set(log, "span.id", span);
        if (rc) return rc;
    }
    pthread_mutex_lock(&log->cfg_mu);
    memcpy(flags, log->trace_flags[0] ? log->trace_flags : "01", sizeof flags); /* 01: sampled */
    pthread_mutex_unlock(&log->cfg_mu);
    snprintf(out, cap, "00-%s-%s-%s", trace, span, flags);
    return 0;
}

void nl__trace_from_env(nl_log_t *log, const char *parent_guid)
{
    if (parent_guid) nl_const_set(log, "parent.guid", parent_guid);
    const char *tp = getenv("NL_TRACEPARENT");
    if (tp && *tp && nl_set_traceparent(log, tp))
        nl__log_self(log, NL_LVL_ERROR, "nl.log.config", "NL_TRACEPARENT",
                     "not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>, lower case, ids "
                     "not all zero): ignored");
}
