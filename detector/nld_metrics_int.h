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
    int64_t last;   /* event time of the last touch */
    size_t nseries; /* series it renders */
    const char *labels; /* `name="value",...` (escaped; in the map key, after the kind) */
    size_t llen;
    union {
        struct {
            nldm_act_t *act;
            uint64_t n, below, above; /* pairs; durations under / over the buckets */
            uint64_t *cnt;            /* act->nb buckets */
            double dur_sum, v_sum, open;
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
    nl__map_t ents;  /* kind + labels -> nldm_ent_t */
    nl__map_t acts;  /* activity name -> nldm_act_t */
    nldm_ent_t *lru_head, *lru_tail;
    size_t nseries;
    nl_hist_t h;     /* scratch: one summary's dur.h */
    nl_rec_t rrec;   /* scratch: a report line, parsed */
    int rrec_init;
    nld_counts_t c;  /* the engine's counters, last published */
    int64_t now;
    uint64_t refused;      /* updates lost to the series bound */
    uint64_t expired;      /* entries dropped for being idle */
    uint64_t bad_summary;  /* summary lines whose n, dur.sum or dur.h could not be read */
    uint64_t oom;          /* updates lost for lack of memory */
    nld_metrics_http_counts_t http;
};

/* The value of grid edge g with `per` edges per power of two. */
double nldm__edge(int per, int32_t g);

#endif
