/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_opts.c — a stream's options as one table (see nld_opts.h). */
#include "nld_opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_num.h"
#include "nld_beat.h"
#include "nlkit/nl_bp.h"

#define P(f) offsetof(nld_sdef_t, p.f)
#define S(f) offsetof(nld_sdef_t, f)
#define OFF NLD_OF_OFF
#define LO NLD_OF_LO
#define GT (NLD_OF_LO | NLD_OF_LO_OPEN)
#define HI NLD_OF_HI
#define PRE NLD_OF_PRESET
#define BUD NLD_OF_BUDGET

/* relearn= and holdoff= take their preset as a duration; their count stays 0 */
_Static_assert(NLD_DEFAULT_RELEARN == 0, "the preset relearn is a duration");

const nld_opt_t nld_opts[] = {
    {"algo", NLD_OK_ALGOS, PRE, P(algos), 0, 0, 0, NLD_DEFAULT_ALGOS, "LIST",
     "algorithms: msd-ss msd-su msd-hs msd-hu cdf-ss cdf-su cdf-hs cdf-hu, all (those "
     "eight), cusum, relent, comma-separated"},
    {"combine", NLD_OK_LATER, 0, 0, 0, 0, 0, 0, "MODE",
     "one verdict from the algorithms: any, majority, all, vote, or a preset: shifts, "
     "transients, default (the options marked *)"},
    {"weights", NLD_OK_LATER, 0, 0, 0, 0, 0, 0, "A:W,...", "each algorithm's weight in a vote (1)"},
    {"quorum", NLD_OK_LATER, 0, 0, 0, 0, 0, 0, "Q", "the share of the weight that must agree"},
    {"history", NLD_OK_U32, PRE, P(n), 0, 0, 0, NLD_DEFAULT_HISTORY, "N",
     "values each algorithm judges a value against"},
    {"min", NLD_OK_U32, 0, P(min), 0, 0, 0, 0, "N",
     "values in the history before flagging (at most history)"},
    {"k", NLD_OK_NUM, 0, P(k), 0, 0, 0, 0, "K", "MSD: flags beyond K standard deviations"},
    {"p", NLD_OK_PCT, 0, P(p), 0, 0, 0, 0, "P", "CDF: flags in the tails of probability P"},
    {"alpha", NLD_OK_NUM, 0, P(alpha), 0, 0, 0, 0, "A", "EWMA weight of a new value (smoothed)"},
    {"side", NLD_OK_SIDE, 0, P(side), 0, 0, 0, 0, "both|below|above", "which side is anomalous"},
    {"admit", NLD_OK_U32, PRE, P(admit), 0, 0, 0, 0, "N",
     "runs of at most N flags still enter heuristic histories (episode.min - 1, at most 16)"},
    {"relearn", NLD_OK_COUNT_OR_DUR, GT | PRE, P(relearn), P(relearn_s), 0, 0,
     NLD_DEFAULT_RELEARN_S, "N|DUR",
     "a run of flags longer than N values or DUR enters the histories from then on"},
    {"threshold", NLD_OK_NUM, BUD | NLD_OF_NONE, P(threshold), 0, 0, 0, 0, "T",
     "flag a value whose score reaches T, instead of each algorithm's own rule"},
    {"rate", NLD_OK_PCT, GT | HI | PRE | BUD | NLD_OF_NONE, P(rate), 0, 0, 0.5, NLD_DEFAULT_RATE,
     "R", "an alarm budget: the share of values flagged"},
    {"alarms", NLD_OK_ALARMS, BUD, P(alarms_per_s), 0, 0, 0, 0, "N/PERIOD",
     "an alarm budget in event time: N/day, N/hour, N/week or N/DUR"},
    {"calib", NLD_OK_U32, OFF | LO | HI | PRE, P(calib), 0, NLD_CALIB_MIN, NLD_CALIB_MAX,
     NLD_DEFAULT_CALIB, "N", "judge scores against the stream's last N raw surprises"},
    {"calib.shrink", NLD_OK_NUM, OFF | LO | HI | PRE, P(calib_shrink), 0, 1, 1e6,
     NLD_DEFAULT_CALIB_SHRINK, "R",
     "calibration lowers a surprise at most R times (not where lone flags wait and calib spans "
     "12h)"},
    {"calib.record", NLD_OK_NUM, OFF | LO | HI | PRE, P(calib_record), 0, NLD_CALIB_CENSOR, 300,
     NLD_DEFAULT_CALIB_RECORD, "R",
     "the record of the far tail bounds a claim, never below a surprise of R"},
    {"floor", NLD_OK_NUM, LO | PRE, P(res_floor), 0, 0, 0, NLD_DEFAULT_FLOOR, "K",
     "no spread below K times the data's resolution (0: off)"},
    {"jump", NLD_OK_NUM, OFF | GT | HI | PRE, P(jump), 0, 0, 1, NLD_DEFAULT_JUMP, "F",
     "a value keeps its surprise only where it jumps F of the largest recent jump"},
    {"jump.halflife", NLD_OK_DUR, GT, P(jump_halflife_s), 0, 0, 0, 0, "DUR",
     "the largest recent jump halves in DUR of event time"},
    {"recur", NLD_OK_DAYS, OFF | LO | HI | PRE, P(recur_days), 0, 1, NLD_RECUR_DAYS_MAX,
     NLD_DEFAULT_RECUR_DAYS, "DAYS",
     "a value seen at this time of day on each of DAYS days before is less surprising"},
    {"recur.within", NLD_OK_DUR, LO | HI, P(recur_within_s), 0, NLD_RECUR_SLOT_S,
     NLD_RECUR_WITHIN_MAX, 0, "DUR", "\"this time of day\": within DUR"},
    {"shape", NLD_OK_U32, OFF | LO | HI, P(shape_w), 0, 2, NLD_SHAPE_W_MAX, 0, "W",
     "a window of W values like one half an hour or more before is less surprising"},
    {"shape.len", NLD_OK_U32, LO | HI, P(shape_len), 0, NLD_SHAPE_LEN_MIN, NLD_SHAPE_LEN_MAX, 0,
     "N", "... among the last N values"},
    {"young", NLD_OK_U32, OFF | LO | HI | PRE, P(young), 0, 1, NLD_YOUNG_MAX, NLD_DEFAULT_YOUNG,
     "N", "a new stream's surprises grow to full weight over its first N values"},
    {"wander", NLD_OK_U32, OFF | LO | HI | PRE, P(wander), 0, 2, NLD_WANDER_MAX, NLD_DEFAULT_WANDER,
     "N",
     "where the history (a day or more) holds n < N independent values, a surprise keeps "
     "log(1+n)/log(1+N) of itself"},
    {"season", NLD_OK_DUR, OFF | GT | PRE, P(season_s), 0, 0, 0, NLD_DEFAULT_SEASON_S, "DUR",
     "a seasonal baseline of this period of event time"},
    {"season.slots", NLD_OK_U32, 0, P(season_slots), 0, 0, 0, 0, "N", "... in N slots"},
    {"season.alpha", NLD_OK_NUM, 0, P(season_alpha), 0, 0, 0, 0, "A",
     "... a new value's weight in its slot's level"},
    {"cusum.k", NLD_OK_NUM, 0, P(cusum_k), 0, 0, 0, 0, "K", "CUSUM allowance in robust sds"},
    {"cusum.h", NLD_OK_NUM, 0, P(cusum_h), 0, 0, 0, 0, "H", "CUSUM decision interval"},
    {"relent.w", NLD_OK_U32, 0, P(relent_w), 0, 0, 0, 0, "N", "relent: window of values"},
    {"relent.bins", NLD_OK_U32, 0, P(relent_bins), 0, 0, 0, 0, "N",
     "relent: equal-frequency bins of the history"},
    {"relent.p", NLD_OK_PCT, 0, P(relent_p), 0, 0, 0, 0, "P",
     "relent: flags when the chi-square tail is below P"},
    {"episode.min", NLD_OK_U32, LO | PRE, S(episode_min), 0, 1, 0, NLD_DEFAULT_EPISODE_MIN, "N",
     "flags in a run before an episode is reported"},
    {"episode.for", NLD_OK_DUR, OFF | GT | PRE, S(episode_for_s), 0, 0, 0,
     NLD_DEFAULT_EPISODE_FOR_S, "DUR", "... or fewer, once the run spans DUR of event time"},
    {"clear", NLD_OK_DUR, LO | PRE, S(clear_s), 0, 0, 0, NLD_DEFAULT_CLEAR_S, "DUR",
     "an episode ends once no flag has counted for DUR (0: its first unflagged value)"},
    {"holdoff", NLD_OK_COUNT_OR_DUR, LO | PRE, S(holdoff_n), S(holdoff_s), 0, 0,
     NLD_DEFAULT_HOLDOFF_S, "N|DUR",
     "after an episode, N unflagged values or DUR before a new one is reported"},
    {"fatigue", NLD_OK_DUR, OFF | GT | PRE, S(fatigue_s), 0, 0, 0, NLD_DEFAULT_FATIGUE_S, "DUR",
     "the half-life of recent reports' weight against a new one"},
    {"escalate", NLD_OK_NUM, OFF | GT | PRE, S(escalate), 0, 0, 0, NLD_DEFAULT_ESCALATE, "D",
     "a flag D decades rarer than the episode's peak raises it"},
    {"confirm", NLD_OK_NUM, OFF | LO | HI | PRE, S(confirm), 0, 1, 100, NLD_DEFAULT_CONFIRM, "F",
     "a lone flag under F times the threshold's surprise waits for another"},
    {"confirm.wait", NLD_OK_DUR, OFF | LO | PRE, S(confirm_wait_s), 0, 0, 0,
     NLD_DEFAULT_CONFIRM_WAIT_S, "DUR",
     "... every lone flag, on streams whose values come at most DUR apart (F counted at DUR; "
     "for more values in a row, up to 5m, where one is likely by chance; past F, a spike no "
     "larger than one within 3 days)"},
    {"beat", NLD_OK_U32, OFF | LO | HI | PRE, S(beat), 0, 2, NLD_BEAT_CAP - 1, NLD_DEFAULT_BEAT,
     "N", "a run of flags on the beat of the N runs before it is held (a cron job)"},
    {"history.from", NLD_OK_DB, OFF, S(seed), 0, 0, 0, 0, "db",
     "start a new key's history from the archive"},
    {"history.since", NLD_OK_DUR, GT | NLD_OF_NONE, S(seed_since), 0, 0, 0, 0, "DUR",
     "... no older than DUR before its first value"},
};
const int nld_nopts = (int)(sizeof nld_opts / sizeof nld_opts[0]);
_Static_assert(sizeof nld_opts / sizeof nld_opts[0] <= NLD_OPTS_MAX, "raise NLD_OPTS_MAX");

/* the field at offset `off` of d, as a T */
#define FIELD(d, off, T) ((T *)(void *)((char *)(d) + (off)))

int nld_opt_find(const char *name)
{
    for (int i = 0; i < nld_nopts; i++)
        if (!strcmp(nld_opts[i].name, name)) return i;
    return -1;
}

void nld_opts_init(nld_sdef_t *d)
{
    nld_params_default(&d->p);
    d->p.algos = 1u << 3; /* msd-hu */
    d->episode_min = 10;  /* bench-eval: shorter runs are mostly noise on 1 s summaries */
}

int nld_opt_num(const char *s, double *out, int allow_pct)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v)) return -1;
    if (allow_pct && !strcmp(end, "%")) {
        v /= 100;
        end++;
    }
    if (*end) return -1;
    *out = v;
    return 0;
}

/* N/PERIOD: N alarms per PERIOD of event time (day, hour, week, or a duration such as 7d),
 * as alarms per second. Returns 0, or 1 when malformed. */
static int parse_alarms(const char *v, double *per_s)
{
    char *end;
    double n = strtod(v, &end);
    if (end == v || *end != '/' || !(n > 0) || !isfinite(n)) return 1;
    const char *u = end + 1;
    double period = !strcmp(u, "day")    ? 86400
                    : !strcmp(u, "hour") ? 3600
                    : !strcmp(u, "week") ? 7 * 86400
                                         : nl__parse_dur(isdigit((unsigned char)*u) ? u : "");
    if (!(period > 0)) return 1;
    *per_s = n / period;
    return !(*per_s > 0 && *per_s < 1e6);
}

/* Whether x lies in option o's range. */
static int in_range(const nld_opt_t *o, double x)
{
    if (o->flags & NLD_OF_LO && (o->flags & NLD_OF_LO_OPEN ? !(x > o->lo) : !(x >= o->lo)))
        return 0;
    return !(o->flags & NLD_OF_HI) || x <= o->hi;
}

/* Store x in o's field(s) of d as its kind says. */
static void store(nld_sdef_t *d, const nld_opt_t *o, double x)
{
    switch (o->kind) {
    case NLD_OK_U32:
    case NLD_OK_DAYS: *FIELD(d, o->off, uint32_t) = (uint32_t)x; break;
    case NLD_OK_COUNT_OR_DUR:
        *FIELD(d, o->off, uint32_t) = 0;
        *FIELD(d, o->off2, double) = x;
        break;
    case NLD_OK_ALGOS: *FIELD(d, o->off, unsigned) = (unsigned)x; break;
    case NLD_OK_SIDE:
    case NLD_OK_DB: *FIELD(d, o->off, int) = (int)x; break;
    case NLD_OK_LATER: break;
    default: *FIELD(d, o->off, double) = x;
    }
}

int nld_opt_set(nld_sdef_t *d, int i, const char *v, const char **where)
{
    const nld_opt_t *o = &nld_opts[i];
    *where = v;
    if (o->flags & NLD_OF_OFF && !strcmp(v, "off")) {
        store(d, o, 0);
        return 0;
    }
    double x = 0;
    int bad = 0;
    switch (o->kind) {
    case NLD_OK_NUM: bad = nld_opt_num(v, &x, 0); break;
    case NLD_OK_PCT: bad = nld_opt_num(v, &x, 1); break;
    case NLD_OK_U32: bad = nld_opt_num(v, &x, 0) || x < 0 || x > 4e9 || x != floor(x); break;
    case NLD_OK_DUR: bad = (x = nl__parse_dur(v)) < 0; break;
    case NLD_OK_DAYS:
        x = nl__parse_dur(v) / 86400;
        bad = x < 0 || x != floor(x);
        break;
    case NLD_OK_COUNT_OR_DUR: { /* a bare count is values; with a unit (30s, 2m) event time */
        char *end;
        double n = strtod(v, &end);
        if (*end == '\0' && end != v) {
            if (!(n >= 0 && n <= 1e9 && n == (uint32_t)n)) return NL_EINVAL;
            *FIELD(d, o->off, uint32_t) = (uint32_t)n;
            *FIELD(d, o->off2, double) = 0;
            return 0;
        }
        bad = (x = nl__parse_dur(v)) < 0;
        break;
    }
    case NLD_OK_ALGOS: return nld_algo_parse(v, FIELD(d, o->off, unsigned), where) ? NL_EINVAL : 0;
    case NLD_OK_SIDE:
        x = !strcmp(v, "both") ? NLD_BOTH : !strcmp(v, "below") ? NLD_BELOW : NLD_ABOVE;
        bad = x == NLD_ABOVE && strcmp(v, "above");
        break;
    case NLD_OK_ALARMS: bad = parse_alarms(v, &x); break;
    case NLD_OK_DB:
        x = 1;
        bad = strcmp(v, "db") != 0;
        break;
    default: return NL_EINVAL;
    }
    if (bad || !in_range(o, x)) return NL_EINVAL;
    store(d, o, x);
    return 0;
}

static const char *const kind_text[] = {
    [NLD_OK_NUM] = "a number",
    [NLD_OK_PCT] = "a number or a percentage",
    [NLD_OK_U32] = "a whole number",
    [NLD_OK_DUR] = "a duration (30s, 10m, 3h, 1d)",
    [NLD_OK_DAYS] = "whole days (3d)",
    [NLD_OK_COUNT_OR_DUR] = "a count of values, or a duration with its unit (30s, 10m)",
    [NLD_OK_ALGOS] = "a list of algorithms",
    [NLD_OK_SIDE] = "both, below or above",
    [NLD_OK_ALARMS] = "N/day, N/hour, N/week or N/DURATION",
    [NLD_OK_DB] = "db",
    [NLD_OK_LATER] = "a value",
};

/* A bound as the help writes it: durations with their unit. */
static void fmt_dur(double s, char *buf, size_t len)
{
    static const struct {
        double s;
        const char *u;
    } units[] = {{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (s >= units[i].s && fmod(s, units[i].s) == 0) {
            snprintf(buf, len, "%.15g%s", s / units[i].s, units[i].u);
            return;
        }
    snprintf(buf, len, s > 0 ? "%.15gs" : "%.15g", s);
}

static void fmt_bound(const nld_opt_t *o, double x, char *buf, size_t len)
{
    if (o->kind == NLD_OK_DUR || o->kind == NLD_OK_COUNT_OR_DUR)
        fmt_dur(x, buf, len);
    else
        snprintf(buf, len, "%.15g", x);
}

/* Option o's bounds in the words of `form`, printf formats of them for: both bounds, both
 * with the low one open, the low one, the low one open, the high one; "" without bounds. So
 * an error's expected value and the help's brief range say the same range. */
static void range_in(const nld_opt_t *o, const char *const form[5], char *buf, size_t len)
{
    char lo[32], hi[32];
    fmt_bound(o, o->lo, lo, sizeof lo);
    fmt_bound(o, o->hi, hi, sizeof hi);
    int lo_on = !!(o->flags & NLD_OF_LO), hi_on = !!(o->flags & NLD_OF_HI);
    int open = !!(o->flags & NLD_OF_LO_OPEN);
    *buf = 0;
    if (lo_on && hi_on)
        snprintf(buf, len, form[open], lo, hi);
    else if (lo_on)
        snprintf(buf, len, form[2 + open], lo);
    else if (hi_on)
        snprintf(buf, len, form[4], hi);
}

void nld_opt_expect(int i, char *buf, size_t len)
{
    static const char *const words[5] = {" from %s to %s", " above %s, at most %s",
                                         " of at least %s", " above %s", " of at most %s"};
    const nld_opt_t *o = &nld_opts[i];
    char range[80];
    range_in(o, words, range, sizeof range);
    snprintf(buf, len, "%s%s%s", kind_text[o->kind], range,
             o->flags & NLD_OF_OFF ? ", or off" : "");
}

void nld_sdef_settle(nld_sdef_t *d)
{
    d->p.shrink_wait_s = d->confirm > 0 ? d->confirm_wait_s : 0;
}

void nld_opts_preset(nld_sdef_t *d, const unsigned char *given)
{
    int budget = 0;
    for (int i = 0; i < nld_nopts; i++)
        if (given[i] && nld_opts[i].flags & NLD_OF_BUDGET) budget = 1;
    for (int i = 0; i < nld_nopts; i++) {
        const nld_opt_t *o = &nld_opts[i];
        if (!(o->flags & NLD_OF_PRESET) || given[i] || (o->flags & NLD_OF_BUDGET && budget))
            continue;
        store(d, o, o->preset);
    }
}

/* combine=default's part in the bank (nld_combine.h): the presets that are fields of
 * nld_params_t, and no budget but its rate. */
void nld_default_params(nld_params_t *p)
{
    nld_sdef_t d = {.p = *p};
    unsigned char given[NLD_OPTS_MAX] = {0};
    nld_opts_preset(&d, given);
    nld_sdef_settle(&d);
    d.p.threshold = 0;
    d.p.alarms_per_s = 0;
    *p = d.p;
}

void nld_opt_format(const nld_sdef_t *d, int i, char *buf, size_t len)
{
    const nld_opt_t *o = &nld_opts[i];
    const void *f = (const char *)d + o->off;
    double x = 0;
    switch (o->kind) {
    case NLD_OK_U32:
    case NLD_OK_DAYS: x = *(const uint32_t *)f; break;
    case NLD_OK_ALGOS: x = *(const unsigned *)f; break;
    case NLD_OK_SIDE:
    case NLD_OK_DB: x = *(const int *)f; break;
    case NLD_OK_LATER: break;
    case NLD_OK_COUNT_OR_DUR: {
        double s = *(const double *)((const char *)d + o->off2);
        if (s > 0)
            fmt_dur(s, buf, len);
        else
            snprintf(buf, len, "%u", *(const uint32_t *)f);
        return;
    }
    default: x = *(const double *)f;
    }
    if (o->flags & (NLD_OF_OFF | NLD_OF_NONE) && x == 0) {
        snprintf(buf, len, "%s", o->flags & NLD_OF_OFF ? "off" : "none");
        return;
    }
    switch (o->kind) {
    case NLD_OK_DUR: fmt_dur(x, buf, len); break;
    case NLD_OK_DAYS: snprintf(buf, len, "%.15gd", x); break;
    case NLD_OK_ALGOS: {
        size_t at = 0;
        buf[0] = 0;
        for (int a = 0; a < NLD_ALGOS; a++)
            if ((unsigned)x >> a & 1 && at < len)
                at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", nld_algo_name(a));
        if (!at) snprintf(buf, len, "none");
        break;
    }
    case NLD_OK_SIDE:
        snprintf(buf, len, "%s", x == NLD_BELOW ? "below" : x == NLD_ABOVE ? "above" : "both");
        break;
    case NLD_OK_ALARMS:
        if (x > 0)
            snprintf(buf, len, "%.6g/day", x * 86400);
        else
            snprintf(buf, len, "none");
        break;
    case NLD_OK_DB: snprintf(buf, len, "%s", x ? "db" : "none"); break;
    case NLD_OK_LATER:
        if (!strcmp(o->name, "combine"))
            snprintf(buf, len, "%s", d->comb.on ? d->comb.name : "none");
        else if (!strcmp(o->name, "weights"))
            snprintf(buf, len, "1");
        else
            snprintf(buf, len, d->comb.on ? "%.15g" : "-", d->comb.quorum);
        break;
    default: snprintf(buf, len, "%.15g", x);
    }
}

/* Option o's range in brief for the help, " (20..1000000|off)", or "". */
static void brief_range(const nld_opt_t *o, char *buf, size_t len)
{
    static const char *const signs[5] = {"%s..%s", ">%s..%s", ">=%s", ">%s", "<=%s"};
    char r[80];
    range_in(o, signs, r, sizeof r);
    if (o->flags & NLD_OF_OFF)
        snprintf(r + strlen(r), sizeof r - strlen(r), "%soff", *r ? "|" : "");
    snprintf(buf, len, "%s%s%s", *r ? " (" : "", r, *r ? ")" : "");
}

void nld_opts_help(FILE *f, const nld_sdef_t *alone, const nld_sdef_t *preset)
{
    fprintf(f, "%-24s %-12s %-16s %s\n", "OPTION=VALUE", "algo=msd-hu", "combine=default",
            "what it does (range) (* combine=default sets it unless given)");
    for (int i = 0; i < nld_nopts; i++) {
        const nld_opt_t *o = &nld_opts[i];
        char opt[64], a[48], p[48], r[96];
        snprintf(opt, sizeof opt, "%s=%s", o->name, o->arg);
        nld_opt_format(alone, i, a, sizeof a);
        nld_opt_format(preset, i, p, sizeof p);
        brief_range(o, r, sizeof r);
        fprintf(f, "%-24s %-12s %-16s %s%s%s\n", opt, a, p, o->flags & NLD_OF_PRESET ? "* " : "",
                o->help, r);
    }
}
