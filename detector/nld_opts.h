/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_opts.h — a stream's options as one table: per option its name, how its value is read
 * (kind), the field it sets, its range, whether `off` turns it off, and what
 * combine=default sets it to (the NLD_DEFAULT_* values of nld_combine.h; the only place
 * the preset is spelled out as options). The `stream` directive (nld_config.c) walks it,
 * nl-detect --help-stream prints it, and a test holds the man page to it. The selector's
 * options (event=, value=, key=, where.FIELD=) are the selector's (nld_config.c), not here. */
#ifndef NLKIT_NLD_OPTS_H
#define NLKIT_NLD_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "nld_config.h"

enum nld_opt_kind {
    NLD_OK_NUM,          /* a number (double) */
    NLD_OK_PCT,          /* a number or a percentage, "5%" = 0.05 (double) */
    NLD_OK_U32,          /* a whole number 0 .. 4e9 (uint32_t) */
    NLD_OK_DUR,          /* a duration, 30s, 10m, 3h, 1d (double seconds) */
    NLD_OK_DAYS,         /* a duration of whole days (uint32_t days) */
    NLD_OK_COUNT_OR_DUR, /* a bare count of values (uint32_t at off) or a duration with a
                            unit (double at off2); the one given zeroes the other */
    NLD_OK_ALGOS,        /* a list of algorithm names, or all (unsigned mask) */
    NLD_OK_SIDE,         /* both, below or above (int) */
    NLD_OK_ALARMS,       /* N/PERIOD: day, hour, week or a duration (double per second) */
    NLD_OK_DB,           /* the word db (int 1) */
    NLD_OK_LATER         /* read after the others (combine=, weights=, quorum=): kept as text */
};

/* Flags of an option. */
#define NLD_OF_OFF 1u     /* the word off sets it to 0 */
#define NLD_OF_LO 2u      /* values below lo are refused */
#define NLD_OF_LO_OPEN 4u /* ... and lo itself too */
#define NLD_OF_HI 8u      /* values above hi are refused */
#define NLD_OF_PRESET 16u /* combine=default sets it to `preset` unless given */
#define NLD_OF_BUDGET 32u /* one of threshold=, rate=, alarms=: any given keeps the preset rate */
#define NLD_OF_NONE 64u   /* 0 is not a value it takes but "not set": written as none */

typedef struct nld_opt {
    const char *name;
    int kind;         /* enum nld_opt_kind */
    unsigned flags;   /* NLD_OF_* */
    size_t off, off2; /* the fields it sets, offsets in nld_sdef_t */
    double lo, hi;    /* its range, as the flags say */
    double preset;    /* what combine=default sets (durations in seconds, recur in days) */
    const char *arg;  /* its value as the help and the man page write it, e.g. N, DUR */
    const char *help; /* what it does, in one line */
} nld_opt_t;

#define NLD_OPTS_MAX 64 /* options in the table, at most (a stream's given[] is this long) */

/* The table, in the order --help-stream lists it. */
extern const nld_opt_t nld_opts[];
extern const int nld_nopts;

/* Index of the option `name` in nld_opts, or -1. */
int nld_opt_find(const char *name);

/* A finite number, with allow_pct also a percentage ("5%" -> 0.05): 0, or -1 with *out
 * untouched. For the other directives' numbers too. */
int nld_opt_num(const char *s, double *out, int allow_pct);

/* A stream's settings before any option: nld_params_default, msd-hu, episode.min=10. */
void nld_opts_init(nld_sdef_t *d);

/* Set option i of d from the text v (not for NLD_OK_LATER). Returns 0, or NL_EINVAL with
 * *where at the offending character of v (its start unless a list says otherwise). */
int nld_opt_set(nld_sdef_t *d, int i, const char *v, const char **where);

/* What was expected of option i, for an error message ("a whole number from 1", ...). */
void nld_opt_expect(int i, char *buf, size_t len);

/* combine=default: each option with a preset that given[] (by index) does not mark takes
 * the preset; the rate only if no option of the budget was given. */
void nld_opts_preset(nld_sdef_t *d, const unsigned char *given);

/* The bank's copies of episode settings it needs, once d's options are all set: whether a
 * lone flag waits (confirm= and confirm.wait=), which decides where calib.shrink= holds. */
void nld_sdef_settle(nld_sdef_t *d);

/* Option i's value in d as an option would write it ("2000", "10m", "off", "cdf-hu"). */
void nld_opt_format(const nld_sdef_t *d, int i, char *buf, size_t len);

/* The table for nl-detect --help-stream: each option as OPTION=VALUE, its value in
 * `alone` (a stream given algo= alone) and in `preset` (combine=default), what it does. */
void nld_opts_help(FILE *f, const nld_sdef_t *alone, const nld_sdef_t *preset);

#endif
