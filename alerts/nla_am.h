/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_am.h — private: Alertmanager receivers (alertmanager://HOST:PORT). nlkit alerts made
 * into Alertmanager's (API v2, POST /api/v2/alerts: a JSON array of labels, annotations,
 * startsAt, endsAt, generatorURL), and the set of firing alerts a receiver posts again
 * every `refresh`: Alertmanager lets an alert that is not sent again go after its
 * resolve_timeout, and keeps no alerts across its own restarts. */
#ifndef NLKIT_NLA_AM_H
#define NLKIT_NLA_AM_H

#include <stddef.h>

#include "nla_int.h"

/* Whether a receiver URL is an Alertmanager's: alertmanager:// (HTTP) or
 * alertmanager+https:// (HTTPS). */
int nla__am_url(const char *url);
/* Where to POST for an Alertmanager URL: http(s)://HOST:PORT[/PREFIX]/api/v2/alerts
 * (malloc'ed), or NULL with err (no host, or out of memory). */
char *nla__am_endpoint(const char *url, char *err, size_t errlen);

/* One alert as Alertmanager's: its JSON object appended to `body` (after a comma unless
 * first) and its entry, for the receiver's firing set, to `entries` (one line each:
 * "LABELSLEN FIRING OBJECT\n", the first LABELSLEN bytes of OBJECT being its labels, which
 * are what Alertmanager tells alerts apart by). Labels: alertname (the alert's name), kind,
 * severity (from its level), stream and algo, activity, or subscription, and its key
 * fields; annotations: summary, description (the detector's line), runbook_url from
 * `runbook` ({name}, {kind} replaced; NULL: none); generatorURL from `generator` (the
 * same; NULL: none); startsAt, and endsAt once it ended. */
void nla__am_alert(nl_buf_t *body, nl_buf_t *entries, const nla_alert_t *al, const char *runbook,
                   const char *generator, int first);

/* A receiver's firing alerts, by label set, in the order they first fired. */
typedef struct nla_am_set nla_am_set_t;

nla_am_set_t *nla__am_set_new(void);
void nla__am_set_free(nla_am_set_t *s);
/* Take in entries (nla__am_alert's): a firing one added or replaced, an ended one removed.
 * 0, or -1 (out of memory, or an entry that does not read: the rest are still taken). */
int nla__am_set_apply(nla_am_set_t *s, const char *entries, size_t len);
size_t nla__am_set_count(const nla_am_set_t *s);
/* The POST body of every firing alert, "[OBJ,...]" (malloc'ed), or NULL out of memory. */
char *nla__am_set_body(const nla_am_set_t *s, size_t *len);

#endif
