/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_out.c — nl-flows' report lines, in the line format so they can be routed and
 * archived like any event: the ranked list of the most unusual flows and the counters
 * that say what was left out and why. */
#include <math.h>
#include <string.h>

#include "nlf_int.h"

void nlf__out_begin(nlf_t *f, int64_t ts, const char *event, int level, const char *guid)
{
    nl_buf_reset(&f->b);
    nl_enc_begin(&f->b, ts, event, level, guid);
}

void nlf__out_end(nlf_t *f, int level)
{
    if (!f->out) return;
    if (nl_enc_end(&f->b) || nl_write_line(f->out, level, f->b.p, f->b.len)) f->n.out_errors++;
}

void nlf__out_top(nlf_t *f)
{
    char text[1024];
    for (size_t i = 0; i < f->ntop; i++) {
        const nlf_top_t *t = &f->top[i];
        nlf__out_begin(f, t->t1, "nl.flow.top", NL_LVL_WARN, t->guid);
        nl_enc_u64(&f->b, "rank", i + 1);
        if (t->trace[0]) nl_enc_str(&f->b, "trace.id", t->trace, strlen(t->trace));
        size_t n = nlf__path_text(f, t->root, text, sizeof text);
        nl_enc_str(&f->b, "root", text, n);
        nl_enc_dbl(&f->b, "score", t->score);
        n = t->path == NLF_NONE ? (size_t)snprintf(text, sizeof text, "other")
                                : nlf__path_text(f, t->path, text, sizeof text);
        nl_enc_str(&f->b, "path", text, n);
        nl_enc_dbl(&f->b, "diff", t->diff);
        nl_enc_str(&f->b, "hosts", t->hosts, strlen(t->hosts));
        nlf__out_end(f, NL_LVL_WARN);
    }
}

void nlf__out_stats(nlf_t *f)
{
    const nlf_counts_t *n = &f->n;
    nlf__out_begin(f, f->now, "nl.flow.stats", NL_LVL_INFO, NULL);
    nl_enc_u64(&f->b, "lines", n->lines);
    nl_enc_u64(&f->b, "events", n->events);
    nl_enc_u64(&f->b, "flows", n->flows);
    nl_enc_u64(&f->b, "judged", n->judged);
    nl_enc_u64(&f->b, "suspects", n->suspects);
    nl_enc_u64(&f->b, "orphans", n->orphans);
    nl_enc_u64(&f->b, "open.flows", n->open_flows);
    nl_enc_u64(&f->b, "open.activities", n->open_acts);
    nl_enc_u64(&f->b, "skewed", n->skewed);
    nl_enc_dbl(&f->b, "skew.max", n->skew_max);
    nl_enc_u64(&f->b, "evicted", n->evicted);
    nl_enc_u64(&f->b, "unjudged", n->warm_left);
    nl_enc_u64(&f->b, "bad", n->bad);
    nl_enc_u64(&f->b, "noguid", n->noguid);
    nl_enc_u64(&f->b, "summaries", n->summaries);
    nl_enc_u64(&f->b, "ambiguous", n->ambiguous);
    nl_enc_u64(&f->b, "shared.keys", n->shared_keys);
    nl_enc_u64(&f->b, "flow.full", n->dropped_flow_full);
    nl_enc_u64(&f->b, "unmatched.ends", n->unmatched_ends);
    nl_enc_u64(&f->b, "too.deep", n->too_deep);
    nl_enc_u64(&f->b, "path.overflow", n->path_overflow);
    nl_enc_u64(&f->b, "root.overflow", n->root_overflow);
    nl_enc_u64(&f->b, "name.overflow", n->name_overflow);
    nlf__out_end(f, NL_LVL_INFO);
}
