/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_rules.h — summarization rules: which activities are summarized, how, how often.
 *
 * Text form (the NL_SUMMARY environment variable, a rules file, one rule per line or
 * ';'-separated, '#' starts a comment):
 *
 *     GLOB=MODE[:INTERVAL[:VALUE_FIELD]][:key=FIELD[,FIELD...]][:result=FIELD]
 *     gridftp.*=summary:1;job.loop=both:5:iterations;*=full
 *     request=summary:1:key=route,method:result=code
 *
 * GLOB is matched (fnmatch, '*' and '?') against the activity name: the event name without
 * its ".start"/".end" suffix. MODE is full (raw events only), summary (summaries only), both,
 * or off (nothing). INTERVAL is in seconds (default 1; 0 = one summary per run, at close).
 * VALUE_FIELD names the end event's field that carries the event value (default "value").
 * Options (NAME=..., anywhere after the mode; the positional INTERVAL and VALUE_FIELD keep
 * their order among the other tokens):
 *   key=F,G   the fields whose values split summaries (at most NLS_KEYS_MAX), read from the
 *             end event, else from its start; without it the key is the events' *.id
 *             fields less the trace's (parent.guid, trace.id, span.id, parent.span.id).
 *             The guid never is: pairs are matched by guid (and *.id fields), then folded
 *             into the summary of their key.
 *   result=F  the end event's outcome field (default "status"), counted as err.n and by
 *             HTTP class (res.2xx ... res.5xx); what counts as an error: summarizer/README.md.
 *
 * Precedence: a rule without wildcards beats any glob; among globs the one with more literal
 * characters wins; on a tie the rule added later wins (so rules from a file override the
 * environment, and API calls override both). An activity no rule matches is written in full,
 * unchanged. */
#ifndef NLKIT_NLS_RULES_H
#define NLKIT_NLS_RULES_H

#include <stddef.h>

#include "nlkit/nl_bp.h"

/* count: point events counted into one NAME.summary line per interval and identity;
 * dedup: written in full, but a run of identical ones as the first and one repeat= line. */
enum nls_mode {
    NLS_FULL = 0,
    NLS_SUMMARY = 1,
    NLS_BOTH = 2,
    NLS_OFF = 3,
    NLS_COUNT = 4,
    NLS_DEDUP = 5,
    NLS_MODE_LAST = NLS_DEDUP
};

#define NLS_RULES_MAX 1024        /* rules in one set; more is an error, not a silent drop */
#define NLS_GLOB_MAX NL_NAME_MAX  /* longest glob */
#define NLS_INTERVAL_MAX 31536000 /* one year, in seconds */
#define NLS_INTERVAL_MIN 0.01     /* 10 ms: shorter would write more summaries than events */
#define NLS_KEYS_MAX 4            /* key fields one rule may name */

typedef struct nls_rule {
    char glob[NLS_GLOB_MAX + 1];
    char value_field[NL_NAME_MAX + 1];
    char result_field[NL_NAME_MAX + 1];       /* default "status" */
    char keys[NLS_KEYS_MAX][NL_NAME_MAX + 1]; /* key=, in order */
    int nkeys;                                /* 0: the *.id fields less the trace's */
    int mode;                                 /* enum nls_mode */
    double interval;                          /* seconds; 0 = once per run */
    int exact;                                /* no wildcard in glob */
    int literals;                             /* non-wildcard characters in glob */
    int order;                                /* position of addition */
} nls_rule_t;

typedef struct nls_rules {
    nls_rule_t *r;
    int n, cap;
    int next_order;
} nls_rules_t;

/* Start an empty rule set. */
void nls_rules_init(nls_rules_t *rs);
/* Free a rule set's storage. */
void nls_rules_free(nls_rules_t *rs);

/* Add one rule. Returns 0, NL_ENAME (bad glob or value field), NL_EINVAL (bad mode or
 * interval, or NLS_RULES_MAX reached) or NL_ENOMEM. value_field NULL means "value". */
int nls_rules_add(nls_rules_t *rs, const char *glob, int mode, double interval,
                  const char *value_field);

/* Add a copy of rule r (its glob, mode, interval and fields; its order is the set's next).
 * Returns as nls_rules_add. */
int nls_rules_append(nls_rules_t *rs, const nls_rule_t *r);

/* Parse rules from text and add them. On error nothing from this text is added, and err
 * (may be NULL) gives the 1-based line and column and a message. */
int nls_rules_parse(nls_rules_t *rs, const char *text, nl_perr_t *err);

/* The rule that applies to an activity name (of len bytes), or NULL if none does. */
const nls_rule_t *nls_rules_match(const nls_rules_t *rs, const char *activity, size_t len);

/* Name of a mode ("full", "summary", "both", "off"), or NULL. */
const char *nls_mode_name(int mode);

#endif
