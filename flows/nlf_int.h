/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_int.h — what the flow engine's files share (see README.md for which does what):
 * open flows and their events, the join keys, interned names and paths, root activities
 * with their neighbours, and the hand-offs between joining (nlf_join.c), building
 * (nlf_tree.c), judging (nlf_judge.c) and explaining (nlf_cause.c). */
#ifndef NLKIT_NLF_INT_H
#define NLKIT_NLF_INT_H

#include "nl_map.h"
#include "nl_tree.h"
#include "nlf.h"

#define NLF_ID_MAX 63      /* longest guid or trace id taken (longer: the event is bad) */
#define NLF_DEPTH_MAX 32   /* longest path; deeper activities count as their parent's */
#define NLF_SLOTS 64       /* paths per root activity in its profiles; the last is "other" */
#define NLF_ROOT_MAX 1024  /* root activities; flows of more are counted and not judged */
#define NLF_TOP_MAX 10000  /* --top at most */
#define NLF_NAMES_MAX 65536 /* activity names, and host names, told apart */
#define NLF_PATHS_MAX (1u << 20) /* distinct paths of all root activities */
#define NLF_NONE UINT32_MAX

typedef struct nlf_flow nlf_flow_t;

/* One event of an open flow: 48 bytes, the unit of the memory bound; the tree builder's
 * (internal/nl_tree.h), so a flow's events are built into its tree where they lie. */
typedef nl__tree_ev_t nlf_ev_t;

/* A join key: "g" + guid or "t" + trace id, in the engine's map. */
typedef struct nlf_key {
    nlf_flow_t *f;  /* NULL once shared */
    uint32_t gi;    /* for a guid key: the guid's index in f */
    uint8_t shared; /* seen in two flows with different trace ids: no longer joins */
    const char *k;  /* the map's copy */
    size_t klen;
} nlf_key_t;

/* One guid of a flow. */
typedef struct nlf_g {
    nlf_key_t *key;   /* NULL for a shared guid (then matched by text within the flow) */
    char id[NLF_ID_MAX + 1];
    uint32_t parent;  /* index of the parent.guid in the flow, or NLF_NONE */
    uint64_t span, pspan; /* span.id, parent.span.id as numbers; 0: none */
    uint32_t host;    /* interned host + 1; 0: none */
    uint32_t nev;
} nlf_g_t;

struct nlf_flow {
    nlf_flow_t *prev, *next; /* the open list, least recently touched first */
    nlf_ev_t *ev;
    size_t nev, capev;
    nlf_g_t *g;
    uint32_t ng, capg;
    nlf_key_t **keys;
    uint32_t nkeys, capkeys;
    uint32_t nbare; /* guids without a key (shared): flow_guid looks for them by text */
    char trace[NLF_ID_MAX + 1]; /* empty: none */
    int64_t first, last; /* event time, usec */
    int64_t touched;     /* the watermark when it last got an event */
    uint32_t seq;
};

/* An interned path: parent path + activity. */
typedef struct nlf_path {
    uint32_t parent, act, depth;
} nlf_path_t;

/* A completed flow, profiled: what judging and explaining need. */
typedef struct nlf_done {
    double *v;          /* time shares [NLF_SLOTS], then value shares [NLF_SLOTS] if any */
    uint32_t *slots;    /* the slots it covers */
    uint32_t nslots;
    uint32_t root;      /* root path */
    char guid[NLF_ID_MAX + 1], trace[NLF_ID_MAX + 1];
    char hosts[160];
    int64_t t0, t1;
    double rdur;        /* the root activity's duration, seconds */
    uint32_t nev;
    uint8_t orphan, open;
    uint64_t fid; /* random: co-occurrence fingerprints */
} nlf_done_t;

/* Coverage and time-difference counters of one slot of a root activity. */
typedef struct nlf_slotc {
    uint64_t na, nn, fpa, fpn; /* flows covering it: anomalous, normal, and their fingerprints */
    double tdiff;              /* sum over anomalous flows of (share - neighbour's share) */
} nlf_slotc_t;

/* A root activity: its profile slots, neighbours and threshold. */
typedef struct nlf_root {
    uint32_t path;
    nl__map_t slot_of; /* path id (4 bytes) -> slot + 1 */
    uint32_t slot_path[NLF_SLOTS];
    uint32_t nslots;
    double *ring;      /* history x dim: recent normal flows (or references) */
    char (*ring_id)[2][NLF_ID_MAX + 1]; /* their root guid and trace id */
    size_t nring, ringpos, capring;
    double *scores;    /* history: recent normal flows' scores */
    size_t nscores, scorepos, since_median;
    double thr;        /* NAN until known */
    nlf_done_t *warm;  /* flows held until there are enough to compare */
    size_t nwarm;
    nlf_slotc_t c[NLF_SLOTS];
    uint64_t na, nn;   /* flows judged anomalous, normal */
} nlf_root_t;

typedef struct nlf_top {
    double score, diff;
    char guid[NLF_ID_MAX + 1], trace[NLF_ID_MAX + 1], hosts[160];
    uint32_t root, path;
    int64_t t1;
} nlf_top_t;

struct nlf {
    nlf_opts_t o;
    nl_log_t *out;
    int phase;
    nl__map_t keys, acts, hosts, paths, roots;
    const char **act_name, **host_name;
    uint32_t nact, capact, nhost, caphost;
    nlf_path_t *path;
    uint32_t npath, cappath;
    nlf_root_t **root;
    uint32_t nroot;
    nlf_flow_t *head, *tail; /* open flows, least recently touched first (nl_list.h) */
    size_t held;             /* events in open flows */
    int64_t now;             /* the watermark: the latest event time seen */
    int have_now;
    uint64_t flow_seq;
    size_t dim;              /* profile length: NLF_SLOTS or 2 x */
    nlf_counts_t n;
    nl_rec_t rec;
    nlf_top_t *top;
    size_t ntop;
    int diag_left;
    char store[2048];
    nl_buf_t b;
    /* scratch */
    double *dist;
    size_t capdist;
};

/* nlf_join.c */
uint32_t nlf__intern(nlf_t *f, nl__map_t *m, const char ***names, uint32_t *n, uint32_t *cap,
                     const char *s, size_t len);
void nlf__complete(nlf_t *f, nlf_flow_t *fl);
void nlf__complete_all(nlf_t *f);
/* nlf_tree.c: the flow's activity tree (nl__tree_build) and profile into d (d->v zeroed, dim long); 0, or
 * -1 when it has no activity at all or its root activity is one too many. */
int nlf__profile(nlf_t *f, nlf_flow_t *fl, nlf_done_t *d);
uint32_t nlf__path(nlf_t *f, uint32_t parent, uint32_t act);
nlf_root_t *nlf__root(nlf_t *f, uint32_t path);
uint32_t nlf__slot(nlf_t *f, nlf_root_t *r, uint32_t path);
size_t nlf__path_text(const nlf_t *f, uint32_t path, char *out, size_t cap);
/* nlf_judge.c */
void nlf__judge(nlf_t *f, nlf_done_t *d);
void nlf__judge_finish(nlf_t *f);
void nlf__done_free(nlf_done_t *d);
/* nlf_cause.c */
void nlf__cover(nlf_t *f, nlf_root_t *r, const nlf_done_t *d, int anomalous, const double *nb);
void nlf__causes(nlf_t *f);
/* nlf_out.c: reports */
void nlf__out_begin(nlf_t *f, int64_t ts, const char *event, int level, const char *guid);
void nlf__out_end(nlf_t *f, int level);
/* The end of the watch phase: the most unusual flows ranked, then the counters. */
void nlf__out_top(nlf_t *f);
void nlf__out_stats(nlf_t *f);

#endif
