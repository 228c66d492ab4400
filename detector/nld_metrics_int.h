/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_metrics_int.h — private to nld_metrics*.c: the store behind nld_metrics.h, shared by
 * the store (nld_metrics.c) and the renderer (nld_metrics_fmt.c). */
#ifndef NLKIT_NLD_METRICS_INT_H
#define NLKIT_NLD_METRICS_INT_H

#include <pthread.h>

#include "nl_hist.h"
#include "nl_map.h"
#include "nld_metrics.h"

/* Entry kinds, one per group of series with one label set. */
enum { NLDM_ACT = 0, NLDM_STREAM, NLDM_MISSING, NLDM_ALERT, NLDM_KINDS };

/* An activity's duration buckets: coarse edges g in [glo, glo + nb] of the grid (g / per
 * is the power of two, g % per the edge within it); bucket i is [edge(glo+i),
 * edge(glo+i+1)). Shared by every key of the activity, so that they can be summed by le. */
typedef struct nldm_act {
    struct nldm_ent *ents; /* its entries (NLDM_ACT), through ent->a_next */
    int32_t glo;
    uint32_t nb;
    int frozen; /* at NLD_METRICS_OCTAVES_MAX: the layout changes no more */
} nldm_act_t;

typedef struct nldm_ent {
    struct nldm_ent *prev, *next; /* LRU: least recently touched first */
    struct nldm_ent *a_prev, *a_next;
    nl__ment_t *ment; /* key: kind byte, then the labels text */
    int kind;
    int64_t last;       /* event time of the last touch */
    size_t nseries;     /* series it renders */
    const char *labels; /* `name="value",...` (escaped; in the map key, after the kind) */
    size_t llen;
    union {
        struct {
            nldm_act_t *act;
            uint64_t n, below, above; /* pairs; durations under / over the buckets */
            uint64_t *cnt;            /* act->nb buckets */
            double dur_sum, v_sum, open;
            uint64_t err; /* err.n summed: failed pairs (has_err: an err.n was seen) */
            int has_err;
        } a;
        struct {
            int active, has_score;
            double score;
            uint64_t episodes;
        } s;
        struct {
            uint64_t missing, late;
        } m;
        struct {
            int firing;
        } w;
    } u;
} nldm_ent_t;

struct nld_metrics {
    pthread_mutex_t mu;
    nld_metrics_opts_t o;
    char *keys[NLD_KEYS_MAX]; /* summary key fields */
    int nkeys;
    nl__map_t ents; /* kind + labels -> nldm_ent_t */
    nl__map_t acts; /* activity name -> nldm_act_t */
    nldm_ent_t *lru_head, *lru_tail;
    size_t nseries;
    size_t lbytes;            /* label text as rendered: each entry's llen times its series */
    size_t ltext, ncnt;       /* label text held (each entry's once), buckets held */
    double copy_s;            /* how long the last scrape held the lock to copy the store */
    size_t nents[NLDM_KINDS]; /* entries of each kind */
    nl__hist_t h;             /* scratch: one summary's dur.h */
    nl_rec_t rrec;            /* scratch: a report line, parsed */
    int rrec_init;
    nld_counts_t c; /* the engine's counters, last published */
    int64_t now;
    uint64_t refused;     /* updates lost to the series or label text bound */
    uint64_t expired;     /* entries dropped for being idle */
    uint64_t bad_summary; /* summary lines whose n, dur.sum or dur.h could not be read */
    uint64_t oom;         /* updates lost for lack of memory */
    nld_metrics_http_counts_t http;
};

/* All of these are called with m->mu held. */

/* The value of grid edge g with `per` edges per power of two (nld_metrics_hist.c). */
double nldm__edge(int per, int32_t g);
/* An activity's bucket layout, made on first sight; NULL out of memory. */
nldm_act_t *nldm__act(nld_metrics_t *m, const char *name, size_t len);
/* Add the parsed histogram m->h to activity entry e's buckets (widening its layout first). */
void nldm__add_hist(nld_metrics_t *m, nldm_ent_t *e);

/* Label text (nld_metrics.c): begin an entry's map key (its kind byte, then the labels), add
 * a key field's label (its name made a label name), or one of our own (activity, stream,
 * algo, alertname). */
void nldm__labels_begin(nl_buf_t *b, char *st, size_t cap, int kind);
void nldm__label(nl_buf_t *b, const char *name, size_t nlen, const char *v, size_t vlen);
void nldm__label_own(nl_buf_t *b, const char *name, const char *v, size_t vlen);
/* The entry of (kind, labels in b), made if new and the bound allows, else NULL (counted:
 * refused, or out of memory); touched at event time `now` (INT64_MIN: not touched). */
nldm_ent_t *nldm__entry(nld_metrics_t *m, int kind, nl_buf_t *b, nldm_act_t *a, int64_t now);

#endif
