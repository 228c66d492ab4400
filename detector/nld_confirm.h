/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_confirm.h — a lone spike on a stream that spikes is not yet news (confirm=F).
 *
 * Some healthy metrics spike now and then: a server's load jumps for one sample when a
 * job starts, a quantised counter steps up and back. Their spikes are rare under any
 * model of the stream, so each one pages, and the people who label real series do not
 * call them anomalies; the incidents they label mostly last. Quality control has long
 * read charts the same way (the Western Electric rules): one point beyond the outer limit
 * is a signal, or two in a row beyond an inner one. confirm=F applies that to a flag on a
 * stream that had a surprise at least NLD_CONFIRM_LIKE of this one within the last
 * NLD_CONFIRM_WITHIN_S of event time: unless its surprise reaches F times the threshold's,
 * it opens an episode only when the next value's surprise reaches NLD_CONFIRM_NEXT of the
 * threshold's, and the start is written then (start.ts the lone flag's time). A stream
 * without such a recent spike, and any flag F times over, pages at once.
 *
 * On a stream whose values come often (at most confirm.wait= apart; combine=default: 10
 * minutes), every lone flag under F times the threshold's surprise waits, recent spike or
 * not: one more value costs the page at most that long, and a single odd value among
 * hundreds a day is what healthy metrics have (bench-quiet at 5 minutes: 0.49 reports a day
 * on white noise and 0.79 on bursty counts without it, 0.10 and 0.11 with it). Hourly rows
 * are left to the rule above: waiting would cost an hour. Only a flag that begins a run is
 * lone: a flag while a run goes on (before its episode opens) counts at once, or on a
 * 1-second fault each second flag would be taken up confirming the one before it.
 *
 * A confirmation is one more value that is news: on a stream whose near flags come in
 * runs (a utilisation that wanders and sits, a walk that holds its level for minutes),
 * the value after a flag is near the threshold as a matter of course, and one of them
 * confirms nothing. So where every lone flag waits, the stream learns how persistent its
 * near flags are: p, the share of its values whose surprise reaches NLD_CONFIRM_NEXT of the
 * threshold's, and q, the share of the values after such a one that reach it too (both
 * over about the last NLD_CONFIRM_PERSIST_N values; p starts from NLD_CONFIRM_CHANCE with
 * the weight of 100 values, q from p, independence, with a weight of NLD_CONFIRM_PRIOR). A
 * lone flag then waits for k values in a row that reach
 * NLD_CONFIRM_NEXT, k = log p / log q rounded (q^k = p: as unlikely by chance as one more
 * independent flag), and at least as many as make their chance under NLD_CONFIRM_CHANCE if
 * they were independent (p^k at most 1 in 100: a stream with 3% of its values near waits
 * for two), at most the values in NLD_CONFIRM_RUN_S of event time (or confirm.wait=, if
 * shorter): a page waits at most 5 minutes for it, and rows 5 minutes apart or more wait
 * for one value, as before. Independent values with few near the threshold (under 1 in
 * 100) wait for one value; white noise and bursty counts at a row a minute, about 3% near,
 * for two (bench-quiet: 0.12 and 0.13 reports a day with one, 0.03 and 0.01 with two);
 * bench-quiet's quantised walk has q 0.64 and p 0.0065 at a row a minute and waits for
 * five (k is 11).
 *
 * q^k = p takes a run of near values to end at the same rate however long it has lasted,
 * and a wandering level's do not: the longer a walk has been out, the longer it stays. At a
 * value a second bench-quiet's quantised walk has q 0.9 and waits for 30 to 60 values, while
 * its excursions to the edge of a day's range last minutes: 0.62 reports a day. So on a
 * stream whose near values come in runs (q at least NLD_CONFIRM_RUNS), a lone flag no more
 * surprising than one the stream had within NLD_CONFIRM_WITHIN_S (an excursion like one it
 * came back from) waits for the values of the whole confirm.wait=, near all of them. One more
 * surprising than every recent one waits for k as before; so does the wait from the first
 * value beyond them that comes while it waits (counted afresh from there: counted on, the
 * walk's excursions that edge past their predecessors paged 0.13 times a day, 0.07 so, 0
 * without the cut). A fault beyond the stream's recent range pages as soon as it did
 * (bench-live: the same delays on every fault and seed).
 *
 * On the two real labelled sets of bench-realdata, confirm=2 cut false reports on the
 * server set by a tenth and those on its series without anomalies by a quarter, while
 * finding as many windows; the figures are in bench/README.md.
 *
 * The recent surprises are kept as a sliding maximum over event time (a deque of entries
 * each larger than every later one), so the question costs O(1) amortised a value in
 * NLD_CONFIRM_CAP entries; past that the smallest older entry makes room, which can only
 * make the memory forget a spike (the flag then pages, as without confirm=). About 300
 * bytes an episode slot, allocated only for streams with confirm=. */
#ifndef NLKIT_NLD_CONFIRM_H
#define NLKIT_NLD_CONFIRM_H

#include <stdint.h>

#define NLD_CONFIRM_LIKE 0.8               /* a recent surprise this share of the flag's */
#define NLD_CONFIRM_WITHIN_S (3 * 86400.0) /* ... within this much event time */
#define NLD_CONFIRM_NEXT 0.7               /* the next value's share of the threshold's */
#define NLD_CONFIRM_CAP 16
#define NLD_CONFIRM_PERSIST_N 10000.0 /* values the persistence of near flags is learnt over */
#define NLD_CONFIRM_PRIOR 10.0        /* ... where independence weighs this many near flags */
#define NLD_CONFIRM_RUN_S 300.0       /* the values a lone flag waits for span at most this */
#define NLD_CONFIRM_CHANCE 0.01       /* ... and are, by chance, at most this likely */
#define NLD_CONFIRM_RUNS 0.5          /* q this high: near values come in runs (the whole wait) */

typedef struct nld_confirm {
    int64_t t[NLD_CONFIRM_CAP]; /* the deque: times rising, surprises falling */
    double s[NLD_CONFIRM_CAP];
    uint8_t head, n;
    int pending;    /* a lone flag waits for the next value */
    int dir;        /* its direction (NLD_LOW / NLD_HIGH) */
    int64_t pend_t; /* its event time */
    double pend_s;  /* its surprise */
    double pend_lo, pend_hi; /* its value, and the range of those that confirmed it so far */
    uint32_t need, got;      /* values in a row it waits for, and those that came */
    double seen;             /* the largest recent surprise when it began to wait */
    int longer;              /* ... which was at least its own: it waits the whole wait */
    /* how persistent near flags are (decayed counts of values; see above) */
    double near_n;    /* values learnt */
    double near_hi;   /* ... near the threshold */
    double near_prev; /* values after a near one */
    double near_both; /* ... near too */
    int near_last;    /* the last value learnt was near */
} nld_confirm_t;

/* The largest surprise added at event times within `within_s` seconds before now (those
 * older are let go), or 0 if none. */
double nld_confirm_recent(nld_confirm_t *c, int64_t now, double within_s);

/* Remember surprise s at event time t (times must not go back; an earlier t is taken as
 * the last one's). Surprises under `floor`, which no question can need, are not kept. */
void nld_confirm_add(nld_confirm_t *c, int64_t t, double s, double floor);

/* Whether a flag of surprise sv (threshold surprise st > 0, confirm factor f) must wait
 * for the next value: either `every` (the stream's values come within confirm.wait=) or a
 * recent surprise at least LIKE sv, and sv under f st — or, where every lone flag waits,
 * `familiar` (nld_verdict_t.familiar: the stream had a spike as large within
 * NLD_CONFIRM_WITHIN_S, so this one is no news by itself however far it is beyond the
 * threshold). Asks before the flag's own surprise is added. */
int nld_confirm_wait(nld_confirm_t *c, int64_t now, double sv, double st, double f, int every,
                     int familiar);

/* The factor F of the threshold's surprise st a lone flag must reach to page at once, on
 * a stream of values spacing_s apart under confirm=f confirm.wait=wait_s. Where lone flags
 * wait (nld_confirm_every) it is counted in event time: f at confirm.wait='s spacing, one
 * decade more for each tenfold more values (a minute apart: log10(10m / 1m) / st more), so
 * a lone flag pages at once only when it is as rare an hour as f says of a value every
 * confirm.wait=. Per value, F = f would page a 1-minute stream ten times as often a day as
 * a 10-minute one. Elsewhere f. */
double nld_confirm_factor(double f, double st, double spacing_s, double wait_s);
/* Learn from a value of surprise sv under a threshold of surprise st > 0 whether near
 * flags come in runs; `rows` (at least 1) is the values since the last one learnt,
 * those before this one all taken as not near (the benchmarks pass over them). */
void nld_confirm_learn(nld_confirm_t *c, double sv, double st, uint64_t rows);
/* The values in a row (reaching NLD_CONFIRM_NEXT) a lone flag waits for on a stream of
 * values spacing_s apart under confirm.wait=wait_s: k above where lone flags all wait
 * (nld_confirm_every), or with `seen` (a surprise as large within NLD_CONFIRM_WITHIN_S) on
 * a stream whose near values come in runs, the values of the whole wait_s; else 1. */
uint32_t nld_confirm_need(const nld_confirm_t *c, double spacing_s, double wait_s, int seen);
/* A lone flag of surprise sv at event time t begins to wait (nld_confirm_wait said so;
 * asked before its surprise is added): pending, for nld_confirm_need values. */
void nld_confirm_hold(nld_confirm_t *c, int64_t t, double sv, double spacing_s, double wait_s);
/* One more value of surprise sv that reaches NLD_CONFIRM_NEXT while a lone flag waits:
 * counted; the first beyond every recent surprise ends a whole wait and is the first of k.
 * 1 while the flag waits for more (its surprise then the larger of the two), 0 once this
 * was the last. */
int nld_confirm_more(nld_confirm_t *c, double sv, double spacing_s, double wait_s);
/* Whether values spacing_s seconds apart (0 or less: not known yet) come often enough for
 * every lone flag to wait under confirm.wait=wait_s (0: off). */
int nld_confirm_every(double spacing_s, double wait_s);

/* What nld_confirm_step made of a value (bits). */
#define NLD_CF_WAIT 1u      /* taken up by a waiting flag or a new one: the episode sees nothing */
#define NLD_CF_CONFIRMED 2u /* it confirms the waiting flag: the episode sees that flag */
#define NLD_CF_DROPPED 4u   /* a waiting flag it did not confirm was let go */

/* confirm= on one value, the same for nl-detect and the benchmarks' fast path: value x of
 * surprise sv (nld_confirm_learn has seen it) under a threshold of surprise st > 0, dir
 * its flag's direction (0: not a flag), while an episode is `active` and a run of flags
 * goes on (`run`), at event time t on a stream of values spacing_s apart under
 * confirm=f confirm.wait=wait_s; `familiar` as nld_confirm_wait. Without NLD_CF_WAIT the
 * episode sees the value (with NLD_CF_CONFIRMED as the waiting flag: direction c->dir,
 * surprise the larger of c->pend_s and sv, begun at c->pend_t); its surprise is then
 * remembered (nld_confirm_add) either way. */
unsigned nld_confirm_step(nld_confirm_t *c, int64_t t, double x, double sv, double st, int dir,
                          int active, int run, double f, double spacing_s, double wait_s,
                          int familiar);

#endif
