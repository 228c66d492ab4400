/* SPDX-License-Identifier: BSD-3-Clause */
/* sng_door.h — the central collector's door (syslog-ng.conf.d/nlkit-central.conf,
 * f_nlkit_door and f_nlkit_reserved) written in C, and the claim it makes checked against
 * nlkit's own parser. The door admits a line only as "ts=TIME event=NAME" (then a space
 * or the end), TIME of [0-9A-Za-z:.+_-], NAME of name characters, with no other "event="
 * after it that is not preceded by a name character; NAME is then the line's event, a
 * report when it is nl.?* but not nl.log.* or nl.summary.* (the syslog-ng globs).
 *
 * The claim (sng_door_check): for every line the door admits as NAME, every reading of
 * nlkit's parser (strict, as nl-load and nl-detect read; lenient; NetLogger's) either
 * refuses the line or finds the event NAME, and the door's report rule is nlkit's
 * (nl__is_report_event). tests/pipeline/test_oneread.sh holds this C door against the real
 * syslog-ng one on hostile lines; fuzz/fuzz_oneread.c holds the claim on any bytes.
 * Header-only, for those two. */
#ifndef NLKIT_SNG_DOOR_H
#define NLKIT_SNG_DOOR_H

#include <stdio.h>
#include <string.h>

#include "nl_line.h"
#include "nlkit/nl_bp.h"

static inline int sng_name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* 1 and the event's name (*ev, *ev_len, inside s) if the door admits line s; 0 if it
 * refuses it (refused=form). */
static inline int sng_door(const char *s, size_t len, const char **ev, size_t *ev_len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len < 3 || memcmp(s, "ts=", 3)) return 0;
    size_t i = 3;
    while (i < len && (sng_name_char(u[i]) || u[i] == ':' || u[i] == '+')) i++;
    if (i == 3 || i >= len || u[i] != ' ') return 0;
    i++;
    if (len - i < 6 || memcmp(s + i, "event=", 6)) return 0;
    size_t e = i += 6;
    while (i < len && sng_name_char(u[i])) i++;
    if (i == e || (i < len && u[i] != ' ')) return 0;
    for (size_t k = i; k + 6 <= len; k++) /* s[i - 1] is a name character */
        if (!memcmp(s + k, "event=", 6) && !sng_name_char(u[k - 1])) return 0;
    *ev = s + e;
    *ev_len = i - e;
    return 1;
}

/* The door's report rule, as its globs say it: nl.?* and not nl.log.* nor nl.summary.*. */
static inline int sng_reserved(const char *ev, size_t n)
{
    return n >= 4 && !memcmp(ev, "nl.", 3) && !(n >= 7 && !memcmp(ev, "nl.log.", 7)) &&
           !(n >= 11 && !memcmp(ev, "nl.summary.", 11));
}

/* The modes nlkit reads lines in, and their names for messages. */
static const unsigned sng_modes[3] = {NL_PARSE_STRICT, NL_PARSE_LENIENT, NL_PARSE_NETLOGGER};
static const char *const sng_mode_names[3] = {"strict", "lenient", "netlogger"};

/* The event nlkit's reading `mode` finds in s[0, len) (*ev, *ev_len): 1, or 0 when that
 * reading refuses the line or finds no event. */
static inline int sng_read_event(nl_rec_t *rec, const char *s, size_t len, unsigned mode,
                                 const char **ev, size_t *ev_len)
{
    nl_perr_t pe;
    if (nl_parse(rec, s, len, 1, mode, &pe) != 1 || rec->i_event < 0) return 0;
    *ev = rec->f[rec->i_event].value;
    *ev_len = rec->f[rec->i_event].value_len;
    return 1;
}

/* Check the door's claim on s[0, len), read as nl-load and nl-detect read what syslog-ng
 * hands them (the message and a newline: one line per piece between newlines). 0 if it
 * holds (or the door refuses s); else 1, with what differs in why. */
static inline int sng_door_check(nl_rec_t *rec, const char *s, size_t len, char *why, size_t n)
{
    const char *dev, *ev;
    size_t dlen, elen;
    if (!sng_door(s, len, &dev, &dlen)) return 0;
    if (sng_reserved(dev, dlen) != nl__is_report_event(dev, dlen)) {
        snprintf(why, n, "the door's report rule and nlkit's differ on '%.*s'", (int)dlen, dev);
        return 1;
    }
    for (size_t a = 0; a <= len;) {
        const char *nl = memchr(s + a, '\n', len - a);
        size_t b = nl ? (size_t)(nl - s) : len;
        for (int m = 0; m < 3; m++)
            if (sng_read_event(rec, s + a, b - a, sng_modes[m], &ev, &elen) &&
                (elen != dlen || memcmp(ev, dev, dlen))) {
                snprintf(why, n, "door: event '%.*s'; nlkit (%s): '%.*s'", (int)dlen, dev,
                         sng_mode_names[m], (int)(elen > 200 ? 200 : elen), ev);
                return 1;
            }
        a = b + 1;
    }
    return 0;
}

#endif
