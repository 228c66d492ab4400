/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_config.h — what nl-detect watches: streams, missing-event rules and subscriptions, from
 * a config file (or built from command-line flags). One directive per line, '#' comments:
 *
 *   stream NAME event=GLOB [value=V] [key=F1,F2] [algo=LIST] [k=2] [p=5%] [alpha=0.5]
 *               [history=300] [min=30] [admit=EP-1] [side=both|below|above] [episode.min=EP=10]
 *               [episode.for=DUR] [clear=DUR]
 *               [combine=any|majority|all|vote|shifts|transients|default [weights=A:W,...]
 *               [quorum=Q]] [holdoff=N|DUR] [threshold=T] [relearn=N|DUR]
 *               [rate=R | alarms=N/PERIOD] [calib=N] [floor=K] [fatigue=DUR] [escalate=D]
 *               [confirm=F] [confirm.wait=DUR]
 *               [cusum.k=0.5] [cusum.h=5] [relent.w=24] [relent.bins=6] [relent.p=0.001]
 *               [where.FIELD=VALUE ...] [history.from=db [history.since=DUR]]
 *   missing GLOB [timeout=DUR | quantile=0.99 factor=3 learn=1000 min=20 initial=DUR]
 *   when GLOB V below|above [P% of] baseline|NUMBER [for DUR] [notify URL] [name=NAME]
 *               [clear above|below [P% of] baseline|NUMBER] [clear.for DUR]
 *               [key=F1,F2] [baseline.n=1800] [baseline.min=30] [where.FIELD=VALUE ...]
 *               [baseline.from=db [baseline.since=DUR]]
 *   route ..., receiver ..., silence ..., alerts ...: the alert layer's (alerts/nla.h);
 *               skipped here
 *
 * An alert ends when its condition stops holding; with `clear` only once the value has
 * passed the clear level (the other side of the threshold), and with clear.for only once
 * the value has stayed clear that long — a value hovering at the threshold stays one alert.
 *   set [each=0|1] [scores=0|1] [expire=DUR] [max-streams=N] [max-pending=N] [db=FILE]
 *
 * A stream with neither algo= nor combine= gets combine=default (nld_opts.h); with
 * algo= alone, that algorithm with the built-in values.
 *
 * GLOB matches the event name, or the event name without a ".summary" suffix (so
 * "gridftp.disk.write" selects the summaries of that activity); V is a field, or a value
 * derived from summary fields: rate = v.sum/dur.sum, avgrate = v.sum/int,
 * busy = dur.sum/int, mean.dur = dur.sum/n. DUR is a number with an optional unit
 * ms, s, m, h, d (seconds without one). A missing GLOB matches activity names (event
 * names without .start/.end).
 *
 * history.from=db / baseline.from=db: when a key is first seen, start its history (or its
 * subscription baseline) from the values the archive (set db=FILE, or nl-detect --db) holds
 * for that event and key before that moment, newest first up to the history size (or
 * baseline.n), no older than DUR if given — instead of waiting for live values. A
 * subscription baseline the archive fills (baseline.min values or more) stays as given;
 * live values only complete one that the archive could not fill. */
#ifndef NLKIT_NLD_CONFIG_H
#define NLKIT_NLD_CONFIG_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "nld_algo.h"
#include "nld_combine.h"
#include "nlkit/nl_bp.h"

enum nld_vkind { NLD_V_FIELD = 0, NLD_V_RATE, NLD_V_AVGRATE, NLD_V_BUSY, NLD_V_MEANDUR };

#define NLD_KEYS_MAX 8   /* key fields per selector */
#define NLD_WHERE_MAX 8  /* field equalities per selector */
#define NLD_DEFS_MAX 256 /* streams, missing rules or subscriptions per config */

/* Which lines, which value, split by which fields. */
typedef struct nld_sel {
    char *glob;
    char *value; /* field name, or the derived value's name */
    int vkind;   /* enum nld_vkind */
    int nkeys, nwhere;
    char *keys[NLD_KEYS_MAX];
    char *where_name[NLD_WHERE_MAX];
    char *where_val[NLD_WHERE_MAX];
} nld_sel_t;

typedef struct nld_sdef { /* stream */
    char *name;
    nld_sel_t sel;
    nld_params_t p;
    uint32_t episode_min; /* consecutive flags before an episode is reported (10) */
    double episode_for_s; /* episode.for=DUR: ... or fewer, once they span DUR of event time
                             (each value counting for the stream's spacing); 0: off */
    double clear_s;       /* clear=DUR: event time without a flag before an episode ends (0:
                             the first unflagged value ends it) */
    nld_combine_t comb;   /* combine=: one verdict from the algorithms, instead of theirs */
    uint32_t holdoff_n;   /* holdoff=N: unflagged values after an episode's last flag before
                             a new one may be reported (0) */
    double holdoff_s;     /* holdoff=DUR: ... or event time, seconds (0) */
    double fatigue_s;     /* fatigue=DUR: the half-life of recent reports' weight (0: off) */
    double escalate;      /* escalate=D: a flag D decades rarer than the episode's peak raises
                             it (nl.anomaly.escalate), or pages through a hold-off (0: off) */
    double confirm;       /* confirm=F: a lone flag under F times the threshold waits (0: off) */
    double confirm_wait_s; /* confirm.wait=DUR: on streams this frequent every lone flag waits */
    uint32_t beat;        /* beat=N: a run on the beat of the N runs before it is held (0: off) */
    int seed;             /* history.from=db */
    double seed_since;    /* history.since: seconds back from the first value (0: all) */
} nld_sdef_t;

typedef struct nld_mdef { /* missing-end rule */
    char *glob;
    double timeout;  /* seconds; 0 = learned */
    double initial;  /* timeout until learned (0: none) */
    double quantile; /* of observed durations (0.99) */
    double factor;   /* times that quantile (3) */
    uint32_t learn;  /* durations remembered per activity (1000) */
    uint32_t min;    /* durations before a learned timeout applies (20) */
} nld_mdef_t;

typedef struct nld_wdef { /* subscription */
    char *name;
    nld_sel_t sel;
    int below;          /* 1: value below the threshold; 0: above */
    double pct;         /* percentage of the reference, or NaN for the reference itself */
    int baseline;       /* 1: the reference is the stream's baseline; 0: `fixed` */
    double fixed;       /* the reference given as a number */
    double hold;        /* seconds the condition must hold (0: at once) */
    char *notify;       /* where the alert layer sends it (alerts/), or NULL */
    int clear;          /* a clear level is given (hysteresis): */
    double clear_pct;   /*   its percentage of the reference, or NaN */
    int clear_baseline; /*  the reference is the baseline */
    double clear_fixed; /*  or this number */
    double clear_for;   /* seconds the clear condition must hold before the alert ends (0) */
    uint32_t base_n;    /* baseline = mean of the first base_n values (1800) */
    uint32_t base_min;  /* values before the baseline is used (30) */
    int seed;           /* baseline.from=db */
    double seed_since;  /* baseline.since, seconds (0: all) */
} nld_wdef_t;

typedef struct nld_cfg {
    nld_sdef_t *s;
    nld_mdef_t *m;
    nld_wdef_t *w;
    int ns, nm, nw;
    int each;           /* also one nl.anomaly line per flagged value */
    int scores;         /* one nl.anomaly.score line per value, every algorithm's score */
    double expire;      /* seconds of event time before an idle stream is dropped (0: never;
                           max-streams bounds them, least recently used first) */
    size_t max_streams; /* streams (plus subscription keys) held at once */
    size_t max_pending; /* pending starts tracked at once */
    char *db;           /* set db=FILE: the archive histories may start from (or NULL) */
} nld_cfg_t;

/* An empty configuration with the defaults (expire off, 100000 streams, 100000 starts). */
void nld_cfg_init(nld_cfg_t *c);
void nld_cfg_free(nld_cfg_t *c);
/* Add the directives of `text`. `src` names it in messages. On error returns NL_EINVAL or
 * NL_ENOMEM and writes "SRC:LINE:COL: message" into err; directives of earlier lines of
 * the text may have been added. */
int nld_cfg_parse(nld_cfg_t *c, const char *text, const char *src, char *err, size_t errlen);
/* nld_cfg_parse on a file's contents (NL_EIO if it cannot be read). */
int nld_cfg_load(nld_cfg_t *c, const char *path, char *err, size_t errlen);
/* Parse one "stream" directive's words (after the keyword), e.g. from the command line. */
int nld_cfg_stream(nld_cfg_t *c, const char *name, char *const *words, int nwords, char *err,
                   size_t errlen);
/* Print the stream options' table (nl-detect --help-stream): each option with its value in
 * a stream given algo=msd-hu alone and in one given combine=default. 0, or an error if the
 * table's own streams do not parse (a bug). */
int nld_cfg_help_stream(FILE *f);

/* ---- selectors (nld_sel.c) ------------------------------------------------------------ */
/* Whether a parsed line is one the selector watches (event glob and field equalities). */
int nld_sel_match(const nld_sel_t *s, const nl_rec_t *r);
/* The selector's value from a line: 0 with *x set, NL_EMISSING if a field it needs is
 * absent, NL_EPARSE if one is not a number, NL_EINVAL if a derived value is undefined
 * (division by zero). */
int nld_sel_value(const nld_sel_t *s, const nl_rec_t *r, double *x);
/* Append the key fields of a line to b as " key.F=VALUE" pairs (absent fields as empty
 * values), the form they take in output lines and in the stream's identity. */
void nld_sel_key(const nld_sel_t *s, const nl_rec_t *r, nl_buf_t *b);

#endif
