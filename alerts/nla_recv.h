/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_recv.h — receivers: one queue and one delivery thread each, so that a slow, failing
 * or absent receiver never holds up detection nor the other receivers. Notifications go
 * out in the order they were queued; a failed one is retried (back-off doubling up to a
 * cap) before the next goes, so a group's notifications arrive in order. */
#ifndef NLKIT_NLA_RECV_H
#define NLKIT_NLA_RECV_H

#include <stdint.h>
#include <stdio.h>

#include "nla.h"

/* One notification, as queued and as kept in the state file. */
typedef struct nla_note {
    struct nla_note *next;
    char *id;       /* unique: route/group/sequence (also the X-Nlkit-Notification header) */
    char *status;   /* firing | resolved */
    char *group;    /* group key text */
    char *first;    /* the first member's key */
    uint32_t count; /* members listed */
    char *json;     /* webhook and exec body; an Alertmanager's: its alerts, a JSON array */
    size_t json_len;
    char *lines; /* for an nlkit destination: the detector's lines of the members that
                    changed; for an Alertmanager: its alerts' entries (nla_am.h) */
    size_t lines_len;
    uint32_t attempts; /* failed attempts so far */
} nla_note_t;

void nla__note_free(nla_note_t *n);

typedef struct nla_recv nla_recv_t;

/* Counters a receiver keeps (read under its lock). */
typedef struct nla_recv_counts {
    uint64_t delivered, failures, given_up, dropped;
    uint64_t refreshed; /* Alertmanager: posts of the firing alerts again that it took */
    uint64_t queued;    /* waiting now (the one being tried included) */
} nla_recv_counts_t;

/* Start a receiver's thread (an nlkit destination is opened here). `out` gets
 * nl.notify.error / nl.notify.failed lines; `diag` the first failure messages. NULL with
 * err on failure. */
nla_recv_t *nla__recv_new(const nla_recv_def_t *def, nl_log_t *out, FILE *diag, char *err,
                          size_t errlen);
/* Queue a notification (the receiver owns it from here). Never blocks on delivery: when
 * the queue is full the oldest waiting one is dropped, counted and reported. */
void nla__recv_push(nla_recv_t *r, nla_note_t *n);
/* Wait until the queue is empty or `secs` have passed (wall clock); 1 if empty. */
int nla__recv_drain(nla_recv_t *r, double secs);
/* Stop the thread (an attempt under way finishes or times out) and hand back what is
 * still queued, oldest first (the caller frees or keeps it). */
nla_note_t *nla__recv_stop(nla_recv_t *r);
/* Walk the queue under the receiver's lock (to save it). */
void nla__recv_each(nla_recv_t *r, void (*fn)(void *ctx, const nla_note_t *n), void *ctx);
/* Whether anything changed since the last call (a delivery, a drop): the state to save. */
int nla__recv_changed(nla_recv_t *r);
void nla__recv_counts(nla_recv_t *r, nla_recv_counts_t *c);
const char *nla__recv_name(const nla_recv_t *r);
/* Whether it is an Alertmanager receiver (nla_am.h): notifications made for it carry
 * Alertmanager's alerts. */
int nla__recv_is_am(const nla_recv_t *r);
/* An Alertmanager receiver's firing alerts at start (from the state file: entries as
 * nla__am_alert writes them), posted again at once, then every refresh. */
void nla__recv_seed(nla_recv_t *r, const char *entries, size_t len);
/* Free a stopped receiver. */
void nla__recv_free(nla_recv_t *r);

#endif
