/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_url.c — parse destination URLs: strict, so a typo is an error at nl_open rather than
 * a log that silently goes nowhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "nl_url.h"
#include "nlkit/nl.h"

static const struct {
    const char *name;
    int code;
} facilities[] = {
    {"kern", LOG_KERN},     {"user", LOG_USER},         {"mail", LOG_MAIL},
    {"daemon", LOG_DAEMON}, {"auth", LOG_AUTH},         {"syslog", LOG_SYSLOG},
    {"lpr", LOG_LPR},       {"news", LOG_NEWS},         {"uucp", LOG_UUCP},
    {"cron", LOG_CRON},     {"authpriv", LOG_AUTHPRIV}, {"ftp", LOG_FTP},
    {"local0", LOG_LOCAL0}, {"local1", LOG_LOCAL1},     {"local2", LOG_LOCAL2},
    {"local3", LOG_LOCAL3}, {"local4", LOG_LOCAL4},     {"local5", LOG_LOCAL5},
    {"local6", LOG_LOCAL6}, {"local7", LOG_LOCAL7},
};

/* Copy s[0, n) into dst (size cap) as a C string; fails if it does not fit. */
static int copy_str(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

/* A whole decimal number in [lo, hi]. */
static int parse_num(const char *s, size_t n, long lo, long hi, long *out)
{
    if (n == 0 || n > 10) return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* "host[:port]" or "[v6addr][:port]". */
static int parse_hostport(const char *s, size_t n, nl_url_t *u)
{
    const char *host = s, *port = NULL;
    size_t hlen = n, plen = 0;
    if (n && s[0] == '[') {
        const char *rb = memchr(s, ']', n);
        if (!rb) return NL_EURL;
        host = s + 1;
        hlen = (size_t)(rb - host);
        size_t rest = n - (size_t)(rb + 1 - s);
        if (rest) {
            if (rb[1] != ':') return NL_EURL;
            port = rb + 2;
            plen = rest - 1;
        }
    } else {
        const char *colon = memchr(s, ':', n);
        if (colon) {
            if (memchr(colon + 1, ':', n - (size_t)(colon + 1 - s))) return NL_EURL; /* bare v6 */
            hlen = (size_t)(colon - s);
            port = colon + 1;
            plen = n - hlen - 1;
        }
    }
    if (hlen == 0 || copy_str(u->host, sizeof u->host, host, hlen)) return NL_EURL;
    for (size_t i = 0; i < hlen; i++)
        if (host[i] == '/' || host[i] == ' ' || host[i] == '@') return NL_EURL;
    if (port) {
        long p;
        if (parse_num(port, plen, 1, 65535, &p)) return NL_EURL;
        u->port = (int)p;
    }
    return 0;
}

/* "[FACILITY:]prog" */
static int parse_syslog(const char *s, size_t n, nl_url_t *u)
{
    const char *colon = memchr(s, ':', n);
    const char *prog = s;
    size_t plen = n;
    if (colon) {
        size_t flen = (size_t)(colon - s);
        int found = 0;
        for (size_t i = 0; i < sizeof facilities / sizeof facilities[0]; i++)
            if (strlen(facilities[i].name) == flen &&
                strncasecmp(facilities[i].name, s, flen) == 0) {
                u->facility = facilities[i].code;
                found = 1;
            }
        if (!found) return NL_EURL;
        prog = colon + 1;
        plen = n - flen - 1;
    }
    for (size_t i = 0; i < plen; i++)
        if ((unsigned char)prog[i] <= ' ' || prog[i] == '/' || prog[i] == ':' || prog[i] == '[')
            return NL_EURL;
    return copy_str(u->prog, sizeof u->prog, prog, plen) ? NL_EURL : 0;
}

/* "key=value&key=value" */
static int parse_query(const char *q, nl_url_t *u)
{
    while (*q) {
        const char *amp = strchr(q, '&');
        size_t n = amp ? (size_t)(amp - q) : strlen(q);
        const char *eq = memchr(q, '=', n);
        if (!eq) return NL_EURL;
        size_t klen = (size_t)(eq - q), vlen = n - klen - 1;
        const char *v = eq + 1;
        long num;
        if (klen == 6 && !memcmp(q, "buffer", 6)) {
            if (parse_num(v, vlen, 0, NL_BUFFER_MAX, &num)) return NL_EURL;
            u->buffer = num;
        } else if (klen == 5 && !memcmp(q, "flush", 5)) {
            if (parse_num(v, vlen, 1, 3600000, &num)) return NL_EURL;
            u->flush_ms = (int)num;
        } else if (klen == 7 && !memcmp(q, "timeout", 7)) {
            if (parse_num(v, vlen, 1, 600000, &num)) return NL_EURL;
            u->timeout_ms = (int)num;
        } else if (klen == 4 && !memcmp(q, "mode", 4)) {
            if (vlen == 4 && !memcmp(v, "sync", 4))
                u->mode = 0;
            else if (vlen == 8 && !memcmp(v, "deferred", 8))
                u->mode = 1;
            else
                return NL_EURL;
        } else if (klen == 6 && !memcmp(q, "socket", 6) && u->kind == NL_D_SYSLOG) {
            if (vlen == 0 || copy_str(u->path, sizeof u->path, v, vlen)) return NL_EURL;
        } else {
            return NL_EURL; /* unknown option: say so rather than ignore it */
        }
        q += n + (amp ? 1 : 0);
        if (amp && !*q) return NL_EURL;
    }
    return 0;
}

int nl__url_parse(const char *url, nl_url_t *u)
{
    memset(u, 0, sizeof *u);
    u->buffer = -1;
    u->flush_ms = 1000;
    u->timeout_ms = 1000;
    u->mode = -1;
    u->port = NL_DEFAULT_PORT;
    u->facility = LOG_USER;
    if (!url || !*url) return NL_EURL;
    if ((url[0] == '-' || url[0] == '&') && (url[1] == '\0' || url[1] == '?')) {
        u->kind = url[0] == '-' ? NL_D_STDOUT : NL_D_STDERR; /* "-?timeout=200" has options */
        return url[1] ? parse_query(url + 2, u) : 0;
    }
    const char *sep = strstr(url, "://");
    size_t slen = sep ? (size_t)(sep - url) : 0;
    int scheme = sep && slen > 0;
    for (size_t i = 0; scheme && i < slen; i++) {
        char c = url[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '-' || c == '.'))
            scheme = 0;
    }
    if (!scheme) { /* a plain path, taken as it is */
        u->kind = NL_D_FILE;
        return copy_str(u->path, sizeof u->path, url, strlen(url)) ? NL_EURL : 0;
    }
    const char *rest = sep + 3;
    const char *q = strchr(rest, '?');
    size_t rlen = q ? (size_t)(q - rest) : strlen(rest);
    int rc;
    if (slen == 4 && !strncasecmp(url, "file", 4)) {
        u->kind = NL_D_FILE;
        rc = rlen == 0 || copy_str(u->path, sizeof u->path, rest, rlen) ? NL_EURL : 0;
    } else if (slen == 8 && !strncasecmp(url, "x-netlog", 8)) {
        u->kind = NL_D_TCP;
        rc = parse_hostport(rest, rlen, u);
    } else if (slen == 12 && !strncasecmp(url, "x-netlog-udp", 12)) {
        u->kind = NL_D_UDP;
        rc = parse_hostport(rest, rlen, u);
    } else if (slen == 8 && !strncasecmp(url, "x-syslog", 8)) {
        u->kind = NL_D_SYSLOG;
        strcpy(u->path, "/dev/log");
        rc = parse_syslog(rest, rlen, u);
    } else {
        return NL_EURL;
    }
    if (rc == 0 && q) rc = parse_query(q + 1, u);
    return rc;
}

void nl__url_name(const nl_url_t *u, char *out, size_t cap)
{
    int v6 = strchr(u->host, ':') != NULL;
    switch (u->kind) {
    case NL_D_FILE: snprintf(out, cap, "%s", u->path); break;
    case NL_D_STDOUT: snprintf(out, cap, "standard output"); break;
    case NL_D_STDERR: snprintf(out, cap, "standard error"); break;
    case NL_D_TCP:
    case NL_D_UDP:
        snprintf(out, cap, "%s://%s%s%s:%d", u->kind == NL_D_TCP ? "x-netlog" : "x-netlog-udp",
                 v6 ? "[" : "", u->host, v6 ? "]" : "", u->port);
        break;
    case NL_D_SYSLOG: snprintf(out, cap, "x-syslog (socket %s)", u->path); break;
    default: snprintf(out, cap, "?");
    }
}
