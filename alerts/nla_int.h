/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_int.h — private: the alert layer's state (alerts, routes, groups, notifications,
 * silences, the state file), shared by its files (which does what: alerts/README.md). */
#ifndef NLKIT_NLA_INT_H
#define NLKIT_NLA_INT_H

#include "nl_map.h"
#include "nla.h"
#include "nla_recv.h"

struct nla_group;

/* An alert's place in one route's group. */
typedef struct nla_member {
    struct nla_member *gprev, *gnext; /* in the group */
    struct nla_member *anext;         /* in the alert */
    struct nla_alert *al;
    struct nla_group *g;
    int sent; /* 0: not yet notified; 1: notified firing */
} nla_member_t;

typedef struct nla_alert {
    struct nla_alert *prev, *next; /* all alerts, oldest first */
    nl__ment_t *ment;              /* id -> alert */
    int kind, level;
    int64_t start, end; /* event time; end INT64_MIN while firing */
    int firing;
    int notified; /* notified firing by some route (kept in the state file) */
    int silenced; /* a silence matched it when last checked */
    char *name;
    char *key; /* "NAME F=V ..." */
    char *line, *end_line;
    size_t line_len, end_len;
    char *end_why; /* "expired", "evicted" or NULL */
    nla_member_t *members;
} nla_alert_t;

typedef struct nla_group {
    struct nla_group *prev, *next;
    nl__ment_t *ment; /* (route, key) -> group */
    int route;
    char *key;          /* "F=V,F=V", or the alert's key when the route has no group.by */
    nla_member_t *head; /* members, oldest first */
    int64_t first;      /* event time the group began (in notification ids) */
    int64_t last_sent;  /* event time of its last notification, or INT64_MIN */
    int64_t due;        /* when its pending change goes out, or INT64_MAX */
    uint32_t seq;       /* notifications made */
} nla_group_t;

struct nla {
    const nla_cfg_t *cfg;
    nl_log_t *out;
    FILE *diag;
    nla_recv_t **recv;
    nl__map_t alerts; /* id -> nla_alert_t */
    nla_alert_t *a_head, *a_tail;
    nl__map_t groups; /* route index + key -> nla_group_t */
    nla_group_t *g_head, *g_tail;
    int64_t now;      /* event time */
    int64_t next_due; /* earliest group due, or INT64_MAX */
    /* silences: the configuration's, then the silences file's */
    nla_cfg_t file;       /* what the silences file held when last read */
    long long file_mtime; /* its mtime (ns) and size when read, to notice a change */
    long long file_size;
    int file_seen;        /* 0 never read, 1 read, -1 absent */
    int64_t silence_next; /* the earliest `until` still ahead, or INT64_MAX */
    int silences_changed; /* re-check the firing alerts */
    double last_check;    /* wall clock (monotonic) of the last file check and save */
    uint32_t ticks;       /* nla_tick calls, to read the clock only now and then */
    int dirty;            /* alerts changed since the state was saved */
    nla_counts_t n;
};

/* nla.c */
void nla__group_changed(nla_t *a, nla_group_t *g);

/* What the state file's records are handed to (nla.c's bookkeeping of alerts and groups),
 * so the file's format knows nothing of how they are kept. */
typedef struct nla_restore_ops {
    /* a new open alert, as nla.c keeps it; NULL out of memory or unparsable */
    nla_alert_t *(*alert_add)(nla_t *a, const char *id, size_t id_len, int kind, int level,
                              int64_t start, const char *line, size_t len);
    /* a group (read before its alerts): its notifications go on numbered after the last
     * run's, at its interval. 0, or -1 out of memory */
    int (*group_restore)(nla_t *a, int route, const char *key, size_t klen, uint32_t seq,
                         int64_t first, int64_t last_sent);
    /* an alert back into its routes' groups: notified ones as sent, and an end not yet
     * sent due to go out */
    void (*route_restored)(nla_t *a, nla_alert_t *al);
} nla_restore_ops_t;

/* nla_silence.c */
/* Whether a silence holds back this key at event time `at`. */
int nla__silenced(nla_t *a, const char *key, int64_t at);
/* Read the silences file again if it changed (messages on diag; a bad file keeps the
 * silences it had). */
void nla__silences_reload(nla_t *a);
/* Recompute silence_next from `now`. */
void nla__silences_next(nla_t *a);
/* Parse silence lines only (nla_config.c). */
int nla__silences_parse(nla_cfg_t *c, const char *text, const char *src, char *err, size_t errlen);

/* nla_state.c */
/* Load the state file (if any): open alerts back, notifications queued again. 0, or -1
 * with err (an unreadable or damaged file: the run must not silently forget). */
int nla__state_load(nla_t *a, const nla_restore_ops_t *ops, char *err, size_t errlen);
/* Save the state atomically (temporary file, fsync, rename); `final` also saves the
 * notifications still queued (the threads are stopped then). 0 or -1 (reported). */
int nla__state_save(nla_t *a, nla_note_t *const *queued, int final);

#endif
