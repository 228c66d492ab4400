/* SPDX-License-Identifier: BSD-3-Clause */
/* nla.h — the alert layer behind nl-detect: it hears every anomaly episode, missing end and
 * subscription alert that starts or ends (from the detector, or anything that reports the
 * same way), and gets them to people, and only when it should:
 *
 *   - routes pick alerts by kind, name, key and level and name a receiver: an http:// or
 *     https:// webhook (a JSON body POSTed), an Alertmanager (alertmanager://HOST:PORT:
 *     its API v2, firing alerts posted again every refresh), exec:PROGRAM (the JSON on its
 *     stdin, the main facts in NL_ALERT_* variables), or any nlkit destination (the
 *     detector's own lines);
 *   - alerts of one route with the same group key (group.by fields) that start within
 *     group.wait are one notification listing every member; later changes go out as an
 *     update of that group, at most every group.interval; a resolved notification follows;
 *   - silences hold back alerts whose key matches until a time (counted, never lost: the
 *     detector's lines are all in its output anyway);
 *   - delivery runs on one thread per receiver, in order, with a timeout, retries and
 *     back-off: detection never waits for a receiver;
 *   - open alerts and undelivered notifications are kept in a state file, written
 *     atomically, so a restart neither repeats nor forgets an alert.
 *
 * Time is event time (the reports' ts, nla_tick), as in the detector: a replay groups and
 * silences as the live run did. Retries and back-off run on the wall clock.
 *
 * Directives (in nl-detect's configuration file, beside stream/missing/when/set):
 *
 *   receiver NAME URL [timeout=10s] [retries=N|forever] [backoff=1s] [backoff.max=60s]
 *                     [queue=10000] [ca=PEMFILE] [refresh=1m] [generator=URL]
 *   route [kind=anomaly|missing|alert] [name=GLOB] [key=GLOB] [level=LEVEL] notify RECEIVER|URL
 *         [group.by=F1,F2] [group.wait=DUR] [group.interval=DUR] [resolve=0|1] [runbook=URL]
 *         [continue]
 *   silence KEYGLOB until TIME
 *   alerts [state=FILE] [silences=FILE] [drain=DUR]
 *
 * An alert's name is its stream (anomaly), activity (missing) or subscription name (alert);
 * its key is "NAME F=V ..." with its key fields (stream algorithm, key.F fields, the missing
 * start's guid and *.id fields), which key= and silence globs (fnmatch) are matched against.
 * A group.by field is name, kind, or a field of the alert's line (F or key.F). The first route
 * that matches takes an alert; `continue` lets the next ones match too. A silences file holds
 * silence lines only and is read again when it changes. Not thread-safe itself (one thread
 * calls it); its delivery threads are its own. */
#ifndef NLKIT_NLA_H
#define NLKIT_NLA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nlkit/nl.h"

enum nla_kind { NLA_ANOMALY = 1, NLA_MISSING = 2, NLA_ALERT = 3 };
enum nla_phase { NLA_START = 1, NLA_END = 2 };

#define NLA_GROUP_MAX 8  /* group.by fields */
#define NLA_DEFS_MAX 256 /* receivers, routes or silences per configuration */
#define NLA_RETRY_FOREVER UINT32_MAX

typedef struct nla_recv_def {
    char *name;
    char *url;          /* http://, https://, alertmanager://, alertmanager+https://,
                           exec:PROGRAM, or an nlkit destination */
    double timeout;     /* seconds per attempt (10; exec: the program's time limit) */
    double backoff;     /* seconds before the first retry, doubling (1) */
    double backoff_max; /* at most this between attempts (60) */
    uint32_t retries;   /* retries after the first attempt (NLA_RETRY_FOREVER) */
    uint32_t queue;     /* notifications waiting at most; beyond, the oldest is dropped and
                           counted (10000) */
    char *ca;           /* https: the CA certificates to trust (PEM file), or NULL for the
                           system's */
    double refresh;     /* Alertmanager: seconds between posts of the firing alerts again (60) */
    char *generator;    /* Alertmanager: generatorURL ({name}, {kind} replaced), or NULL */
} nla_recv_def_t;

typedef struct nla_route {
    int kind;        /* enum nla_kind, or 0 for any */
    char *name_glob; /* or NULL */
    char *key_glob;  /* or NULL */
    int level;       /* alerts at least this severe (NL_LVL_TRACE: all) */
    int recv;        /* receiver index */
    int ngroup;
    char *group_by[NLA_GROUP_MAX];
    double group_wait;     /* seconds of event time the first notification waits (0) */
    double group_interval; /* seconds between a group's notifications (group.wait) */
    int resolve;           /* also notify when the alerts end (1) */
    char *runbook;         /* Alertmanager: the runbook_url annotation ({name}, {kind}
                              replaced), or NULL */
    int cont;              /* continue: later routes may take the alert too */
} nla_route_t;

typedef struct nla_silence {
    char *glob;    /* matched against the alert's key */
    int64_t until; /* event time, usec */
} nla_silence_t;

typedef struct nla_cfg {
    nla_recv_def_t *r;
    nla_route_t *rt;
    nla_silence_t *s;
    int nr, nrt, ns;
    char *state;    /* state file, or NULL */
    char *silences; /* silences file, or NULL */
    double drain;   /* seconds nla_finish waits for the queues to empty (10) */
} nla_cfg_t;

/* An empty configuration with the defaults. */
void nla_cfg_init(nla_cfg_t *c);
void nla_cfg_free(nla_cfg_t *c);
/* Add the receiver, route, silence and alerts directives of `text` (other directives are
 * the detector's and are skipped). NL_EINVAL with "SRC:LINE:COL: message" in err, or
 * NL_ENOMEM. */
int nla_cfg_parse(nla_cfg_t *c, const char *text, const char *src, char *err, size_t errlen);
/* nla_cfg_parse on a file (at most 16 MiB). */
int nla_cfg_load(nla_cfg_t *c, const char *path, char *err, size_t errlen);
/* A subscription's own `notify URL`: a route for alerts named `name` to that URL (a
 * receiver of that URL, made once and shared). */
int nla_cfg_notify(nla_cfg_t *c, const char *name, const char *url, char *err, size_t errlen);
/* Whether any route exists (nothing to do otherwise). */
int nla_cfg_active(const nla_cfg_t *c);

/* A start or end as the detector reports it (see nld_report_t). */
typedef struct nla_report {
    int kind;  /* enum nla_kind */
    int phase; /* enum nla_phase */
    const char *id;
    size_t id_len;
    const char *line; /* the detector's line (with its newline) */
    size_t len;
    const char *why; /* an end's reason: NULL resolved; "ongoing" keeps the alert open */
    int64_t ts;
    int level;
} nla_report_t;

typedef struct nla_counts {
    uint64_t opened;        /* alerts started */
    uint64_t resumed;       /* starts of alerts already open (from the state file) */
    uint64_t resolved;      /* alerts ended */
    uint64_t unrouted;      /* alerts no route took */
    uint64_t silenced;      /* alerts held back by a silence (for a route) */
    uint64_t notifications; /* notifications made */
    uint64_t delivered;     /* notifications a receiver accepted */
    uint64_t failures;      /* attempts that failed (each reported) */
    uint64_t given_up;      /* notifications dropped after their retries */
    uint64_t dropped;       /* notifications dropped because a queue was full */
    uint64_t pending;       /* notifications not delivered at nla_finish */
    uint64_t saved;         /* of those, kept in the state file for the next run */
    uint64_t state_errors;  /* state or silences file problems (reported) */
} nla_counts_t;

typedef struct nla nla_t;

/* Start the layer: receivers' threads, the silences file, the state file's open alerts
 * and undelivered notifications (queued again). `out` gets nl.notify.* lines (delivery
 * failures); `diag` gets messages (stderr if NULL). NULL with err on failure. */
nla_t *nla_new(const nla_cfg_t *cfg, nl_log_t *out, FILE *diag, char *err, size_t errlen);
/* The alerts that were open when the state was saved: fn(ctx, id, len, start) for each
 * (the detector's nld_restore). */
void nla_open_each(nla_t *a, void (*fn)(void *ctx, const char *id, size_t len, int64_t start),
                   void *ctx);
/* One start or end. */
void nla_report(nla_t *a, const nla_report_t *r);
/* Event time has reached `now` (usec): send the groups due before it (with `idle`, when no
 * input waits, also those due now), end silences, read a changed silences file, save the
 * state when it changed (at most once a second). */
void nla_tick(nla_t *a, int64_t now, int idle);
/* End of input: send every group that waits, wait up to `drain` for the queues, save the
 * state (undelivered notifications with it), stop the threads. */
void nla_finish(nla_t *a);
void nla_counts(const nla_t *a, nla_counts_t *c);
void nla_free(nla_t *a);

#endif
