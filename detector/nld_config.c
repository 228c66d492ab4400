/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_config.c — the nl-detect configuration language (see nld_config.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_num.h"
#include "nl_words.h"
#include "nld_config.h"

#define WORDS_MAX NL_WORDS_MAX

typedef nl__word_t word_t;

/* Error context: where we are, so every message says where the problem is. */
typedef nl__cfg_at_t pctx_t;

typedef struct cfg_walk {
    pctx_t x;
    struct nld_cfg *c;
} cfg_walk_t;

void nld_cfg_init(nld_cfg_t *c)
{
    *c = (nld_cfg_t){.expire = 0, .max_streams = 100000, .max_pending = 100000};
}

static void sel_free(nld_sel_t *s)
{
    free(s->glob);
    free(s->value);
    for (int i = 0; i < s->nkeys; i++) free(s->keys[i]);
    for (int i = 0; i < s->nwhere; i++) {
        free(s->where_name[i]);
        free(s->where_val[i]);
    }
}

void nld_cfg_free(nld_cfg_t *c)
{
    free(c->db);
    for (int i = 0; i < c->ns; i++) {
        free(c->s[i].name);
        sel_free(&c->s[i].sel);
    }
    for (int i = 0; i < c->nm; i++) free(c->m[i].glob);
    for (int i = 0; i < c->nw; i++) {
        free(c->w[i].name);
        free(c->w[i].notify);
        sel_free(&c->w[i].sel);
    }
    free(c->s);
    free(c->m);
    free(c->w);
    nld_cfg_init(c);
}

/* A number, optionally a percentage ("5%" -> 0.05). */
static int parse_num(const char *s, double *out, int allow_pct)
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

/* alarms=N/PERIOD: N alarms per PERIOD of event time (day, hour, week, or a duration such
 * as 7d), as alarms per second. Returns 0, or 1 when malformed. */
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

static int parse_u32(const char *s, uint32_t *out)
{
    double v;
    if (parse_num(s, &v, 0) || v < 0 || v > 4e9 || v != floor(v)) return -1;
    *out = (uint32_t)v;
    return 0;
}

/* key=F1,F2 */
static int parse_keys(pctx_t *x, nld_sel_t *s, const word_t *w, const char *v)
{
    return nl__cfg_names(x, w->col, v, s->keys, &s->nkeys, NLD_KEYS_MAX, NL_NAME_MAX - 4,
                         "key fields", "key field name");
}

/* Options every selector understands; returns 1 if `name` was one of them, 0 if not, or a
 * negative error. */
static int sel_option(pctx_t *x, nld_sel_t *s, const word_t *w, const char *name, const char *v)
{
    if (!strcmp(name, "event")) {
        if (!*v || strlen(v) > NL_NAME_MAX) return nl__cfg_fail(x, w->col, "bad event glob");
        return nl__cfg_set_str(&s->glob, v) ? NL_ENOMEM : 1;
    }
    if (!strcmp(name, "value")) {
        static const char *const derived[] = {NULL, "rate", "avgrate", "busy", "mean.dur"};
        if (!nl__cfg_name_ok(v, NL_NAME_MAX))
            return nl__cfg_fail(x, w->col, "bad value name '%s'", v);
        s->vkind = NLD_V_FIELD;
        for (int i = 1; i < 5; i++)
            if (!strcmp(v, derived[i])) s->vkind = i;
        return nl__cfg_set_str(&s->value, v) ? NL_ENOMEM : 1;
    }
    if (!strcmp(name, "key")) {
        int rc = parse_keys(x, s, w, v);
        return rc ? rc : 1;
    }
    if (!strncmp(name, "where.", 6)) {
        if (s->nwhere == NLD_WHERE_MAX)
            return nl__cfg_fail(x, w->col, "at most %d where. conditions", NLD_WHERE_MAX);
        if (!nl__cfg_name_ok(name + 6, NL_NAME_MAX))
            return nl__cfg_fail(x, w->col, "bad field name in %s", name);
        s->where_name[s->nwhere] = strdup(name + 6);
        s->where_val[s->nwhere] = strdup(v);
        s->nwhere++;
        if (!s->where_name[s->nwhere - 1] || !s->where_val[s->nwhere - 1]) return NL_ENOMEM;
        return 1;
    }
    return 0;
}

/* Split "name=value" in place; returns the value or NULL if there is no '='. */
static char *split_opt(char *word)
{
    char *eq = strchr(word, '=');
    if (!eq) return NULL;
    *eq = 0;
    return eq + 1;
}

static int grow(void **arr, int n, size_t size) { return nl__cfg_grow(arr, n, size, NLD_DEFS_MAX); }

static int do_stream(pctx_t *x, nld_cfg_t *c, const char *name, int name_col, word_t *w, int n)
{
    if (!name || !nl__cfg_name_ok(name, 64))
        return nl__cfg_fail(x, name_col, "stream needs a name ([A-Za-z0-9_.-])");
    /* reports, state and subscriptions name a stream: two of one name would mix */
    for (int i = 0; i < c->ns; i++)
        if (!strcmp(c->s[i].name, name))
            return nl__cfg_fail(x, name_col, "stream '%s' defined twice", name);
    int rc = grow((void **)&c->s, c->ns, sizeof *c->s);
    if (rc) return rc == NL_EINVAL ? nl__cfg_fail(x, 1, "more than %d streams", NLD_DEFS_MAX) : rc;
    nld_sdef_t *d = &c->s[c->ns++];
    nld_params_default(&d->p);
    d->p.algos = 1u << 3; /* msd-hu */
    d->episode_min = 10;  /* bench-eval: shorter runs are mostly noise on 1 s summaries */
    if (!(d->name = strdup(name))) return NL_ENOMEM;
    int min_set = 0, admit_set = 0, algo_set = 0, hist_set = 0, relearn_set = 0, thr_set = 0,
        hold_set = 0, epmin_set = 0, season_set = 0, calib_set = 0, floor_set = 0,
        budget_set = 0, fatigue_set = 0, esc_set = 0, jump_set = 0, shrink_set = 0,
        recur_set = 0, confirm_set = 0, young_set = 0, record_set = 0, epfor_set = 0,
        clear_set = 0;
    const char *comb = NULL, *weights = NULL, *quorum = NULL;
    int comb_col = 0, weights_col = 0, quorum_col = 0;
    for (int i = 0; i < n; i++) {
        char *v = split_opt(w[i].s);
        if (!v) return nl__cfg_fail(x, w[i].col, "expected name=value, got '%s'", w[i].s);
        const char *o = w[i].s;
        rc = sel_option(x, &d->sel, &w[i], o, v);
        if (rc < 0) return rc;
        if (rc == 1) continue;
        int bad = 0;
        if (!strcmp(o, "algo")) {
            algo_set = 1;
            const char *where = NULL;
            if (nld_algo_parse(v, &d->p.algos, &where))
                return nl__cfg_fail(
                    x, w[i].col + (int)(where - w[i].s),
                    "unknown algorithm (use msd-ss, msd-su, msd-hs, msd-hu, cdf-ss, "
                    "cdf-su, cdf-hs, cdf-hu, cusum, relent or all)");
        } else if (!strcmp(o, "k")) {
            bad = parse_num(v, &d->p.k, 0);
        } else if (!strcmp(o, "p")) {
            bad = parse_num(v, &d->p.p, 1);
        } else if (!strcmp(o, "alpha")) {
            bad = parse_num(v, &d->p.alpha, 0);
        } else if (!strcmp(o, "relearn")) {
            /* like holdoff: a bare count is values, with a unit event time */
            char *end;
            double n = strtod(v, &end);
            relearn_set = 1;
            d->p.relearn = 0;
            d->p.relearn_s = 0;
            if (*end == '\0' && end != v) {
                bad = !(n >= 0 && n <= 1e9 && n == (uint32_t)n);
                if (!bad) d->p.relearn = (uint32_t)n;
            } else {
                bad = (d->p.relearn_s = nl__parse_dur(v)) <= 0;
            }
        } else if (!strcmp(o, "threshold")) {
            bad = parse_num(v, &d->p.threshold, 0);
            thr_set = 1;
        } else if (!strcmp(o, "calib")) {
            /* a window of the stream's own surprises, or off */
            calib_set = 1;
            d->p.calib = 0;
            if (strcmp(v, "off"))
                bad = parse_u32(v, &d->p.calib) || d->p.calib < NLD_CALIB_MIN ||
                      d->p.calib > NLD_CALIB_MAX;
        } else if (!strcmp(o, "calib.shrink")) {
            /* how many times calibration may lower a surprise, or off */
            shrink_set = 1;
            d->p.calib_shrink = 0;
            if (strcmp(v, "off"))
                bad = parse_num(v, &d->p.calib_shrink, 0) ||
                      !(d->p.calib_shrink >= 1 && d->p.calib_shrink <= 1e6);
        } else if (!strcmp(o, "calib.record")) {
            /* the floor of what the record of the far tail may bound a claim to, or off */
            record_set = 1;
            d->p.calib_record = 0;
            if (strcmp(v, "off"))
                bad = parse_num(v, &d->p.calib_record, 0) ||
                      !(d->p.calib_record >= NLD_CALIB_CENSOR && d->p.calib_record <= 300);
        } else if (!strcmp(o, "jump")) {
            /* a share of the stream's largest recent jump, or off */
            jump_set = 1;
            d->p.jump = 0;
            if (strcmp(v, "off"))
                bad = parse_num(v, &d->p.jump, 0) || !(d->p.jump > 0 && d->p.jump <= 1);
        } else if (!strcmp(o, "jump.halflife")) {
            bad = (d->p.jump_halflife_s = nl__parse_dur(v)) <= 0;
        } else if (!strcmp(o, "recur")) {
            /* whole days of the stream's envelope at each time of day, or off */
            recur_set = 1;
            d->p.recur_days = 0;
            if (strcmp(v, "off")) {
                double s = nl__parse_dur(v), days = s / 86400;
                bad = !(days >= 1 && days <= NLD_RECUR_DAYS_MAX && days == floor(days));
                if (!bad) d->p.recur_days = (uint32_t)days;
            }
        } else if (!strcmp(o, "young")) {
            /* values over which a new stream's surprises grow to their full weight, or off */
            young_set = 1;
            double n = 0;
            if (strcmp(v, "off"))
                bad = parse_num(v, &n, 0) || !(n >= 1 && n <= NLD_YOUNG_MAX && n == floor(n));
            if (!bad) d->p.young = (uint32_t)n;
        } else if (!strcmp(o, "recur.within")) {
            double s = nl__parse_dur(v);
            bad = !(s >= NLD_RECUR_SLOT_S && s <= NLD_RECUR_WITHIN_MAX);
            if (!bad) d->p.recur_within_s = s;
        } else if (!strcmp(o, "floor")) {
            floor_set = 1;
            bad = parse_num(v, &d->p.res_floor, 0) || !(d->p.res_floor >= 0);
        } else if (!strcmp(o, "rate")) {
            bad = parse_num(v, &d->p.rate, 1) || !(d->p.rate > 0 && d->p.rate <= 0.5);
            budget_set = 1;
        } else if (!strcmp(o, "alarms")) {
            bad = parse_alarms(v, &d->p.alarms_per_s);
            budget_set = 1;
        } else if (!strcmp(o, "cusum.k")) {
            bad = parse_num(v, &d->p.cusum_k, 0);
        } else if (!strcmp(o, "cusum.h")) {
            bad = parse_num(v, &d->p.cusum_h, 0);
        } else if (!strcmp(o, "relent.w")) {
            bad = parse_u32(v, &d->p.relent_w);
        } else if (!strcmp(o, "relent.bins")) {
            bad = parse_u32(v, &d->p.relent_bins);
        } else if (!strcmp(o, "relent.p")) {
            bad = parse_num(v, &d->p.relent_p, 1);
        } else if (!strcmp(o, "season")) {
            /* a period of event time, or off */
            season_set = 1;
            d->p.season_s = 0;
            if (strcmp(v, "off")) bad = (d->p.season_s = nl__parse_dur(v)) <= 0;
        } else if (!strcmp(o, "season.slots")) {
            bad = parse_u32(v, &d->p.season_slots);
        } else if (!strcmp(o, "season.alpha")) {
            bad = parse_num(v, &d->p.season_alpha, 0);
        } else if (!strcmp(o, "history")) {
            bad = parse_u32(v, &d->p.n);
            hist_set = 1;
        } else if (!strcmp(o, "min")) {
            bad = parse_u32(v, &d->p.min);
            min_set = 1;
        } else if (!strcmp(o, "admit")) {
            bad = parse_u32(v, &d->p.admit);
            admit_set = 1;
        } else if (!strcmp(o, "episode.min")) {
            bad = parse_u32(v, &d->episode_min) || d->episode_min < 1;
            epmin_set = 1;
        } else if (!strcmp(o, "episode.for")) {
            /* event time a run of flags must span to open an episode, or off */
            epfor_set = 1;
            d->episode_for_s = 0;
            if (strcmp(v, "off")) bad = (d->episode_for_s = nl__parse_dur(v)) <= 0;
        } else if (!strcmp(o, "clear")) {
            /* event time without a flag before an episode ends */
            clear_set = 1;
            bad = (d->clear_s = nl__parse_dur(v)) < 0;
        } else if (!strcmp(o, "combine")) {
            comb = v, comb_col = w[i].col;
        } else if (!strcmp(o, "weights")) {
            weights = v, weights_col = w[i].col;
        } else if (!strcmp(o, "quorum")) {
            quorum = v, quorum_col = w[i].col;
        } else if (!strcmp(o, "holdoff")) {
            hold_set = 1;
            /* a bare count is values; with a unit (30s, 2m) it is event time */
            char *end;
            double n = strtod(v, &end);
            if (*end == '\0' && end != v) {
                bad = !(n >= 0 && n <= 1e9 && n == (uint32_t)n);
                if (!bad) d->holdoff_n = (uint32_t)n;
            } else {
                bad = (d->holdoff_s = nl__parse_dur(v)) < 0;
            }
        } else if (!strcmp(o, "fatigue")) {
            /* a half-life of event time, or off */
            fatigue_set = 1;
            d->fatigue_s = 0;
            if (strcmp(v, "off")) bad = (d->fatigue_s = nl__parse_dur(v)) <= 0;
        } else if (!strcmp(o, "escalate")) {
            esc_set = 1;
            d->escalate = 0;
            if (strcmp(v, "off")) bad = parse_num(v, &d->escalate, 0) || !(d->escalate > 0);
        } else if (!strcmp(o, "confirm")) {
            /* a factor of the threshold's surprise a lone flag must reach, or off */
            confirm_set = 1;
            d->confirm = 0;
            if (strcmp(v, "off"))
                bad = parse_num(v, &d->confirm, 0) || !(d->confirm >= 1 && d->confirm <= 100);
        } else if (!strcmp(o, "history.from")) {
            bad = strcmp(v, "db") != 0;
            d->seed = 1;
        } else if (!strcmp(o, "history.since")) {
            bad = (d->seed_since = nl__parse_dur(v)) <= 0;
        } else if (!strcmp(o, "side")) {
            d->p.side = !strcmp(v, "both")    ? NLD_BOTH
                        : !strcmp(v, "below") ? NLD_BELOW
                        : !strcmp(v, "above") ? NLD_ABOVE
                                              : -1;
            bad = d->p.side < 0;
        } else {
            return nl__cfg_fail(x, w[i].col, "unknown stream option '%s'", o);
        }
        if (bad) return nl__cfg_fail(x, w[i].col, "bad value for %s: '%s'", o, v);
    }
    /* combine=default is the recommended setting as a whole, chosen on real labelled
     * series (bench-realdata): its parameters apply unless given */
    if (comb && !strcmp(comb, "default")) {
        if (!hist_set) d->p.n = NLD_DEFAULT_HISTORY;
        if (!relearn_set) {
            d->p.relearn = NLD_DEFAULT_RELEARN;
            d->p.relearn_s = NLD_DEFAULT_RELEARN_S;
        }
        if (!thr_set && !budget_set) d->p.rate = NLD_DEFAULT_RATE;
        if (!hold_set) d->holdoff_s = NLD_DEFAULT_HOLDOFF_S;
        /* live, a run must last: 10 values or 10 s, whichever is fewer (a row a minute or
         * slower opens an episode at its first flag, as before); its history takes in no
         * flagged run (admit=0), as when episode.min was 1 */
        if (!epmin_set) d->episode_min = NLD_DEFAULT_EPISODE_MIN;
        if (!epfor_set) d->episode_for_s = NLD_DEFAULT_EPISODE_FOR_S;
        d->p.runs_s = d->episode_for_s;
        d->p.runs_n = d->episode_min;
        if (!clear_set) d->clear_s = NLD_DEFAULT_CLEAR_S;
        if (!admit_set) {
            d->p.admit = 0;
            admit_set = 1;
        }
        if (!season_set) d->p.season_s = NLD_DEFAULT_SEASON_S;
        if (!calib_set) d->p.calib = NLD_DEFAULT_CALIB;
        if (!floor_set) d->p.res_floor = NLD_DEFAULT_FLOOR;
        if (!jump_set) d->p.jump = NLD_DEFAULT_JUMP;
        if (!shrink_set) d->p.calib_shrink = NLD_DEFAULT_CALIB_SHRINK;
        if (!record_set) d->p.calib_record = NLD_DEFAULT_CALIB_RECORD;
        if (!recur_set) d->p.recur_days = NLD_DEFAULT_RECUR_DAYS;
        if (!young_set) d->p.young = NLD_DEFAULT_YOUNG;
        if (!fatigue_set) d->fatigue_s = NLD_DEFAULT_FATIGUE_S;
        if (!esc_set) d->escalate = NLD_DEFAULT_ESCALATE;
        if (!confirm_set) d->confirm = NLD_DEFAULT_CONFIRM;
    }
    /* fatigue and confirm are read against a threshold: the algorithms' own rules have none */
    int has_thr = d->p.threshold > 0 || d->p.rate > 0 || d->p.alarms_per_s > 0;
    if (d->fatigue_s > 0 && !has_thr)
        return nl__cfg_fail(x, name_col,
                            "stream %s: fatigue= needs threshold=, rate= or alarms=", name);
    if (d->confirm > 0 && !has_thr)
        return nl__cfg_fail(x, name_col,
                            "stream %s: confirm= needs threshold=, rate= or alarms=", name);
    if (!min_set && d->p.min > d->p.n) d->p.min = d->p.n;
    /* by default a run too short to be reported is taken as normal variation */
    if (!admit_set)
        d->p.admit = d->episode_min - 1 < NLD_ADMIT_MAX ? d->episode_min - 1 : NLD_ADMIT_MAX;
    /* after the loop: a preset picks algorithms only if algo= did not */
    if (comb && nld_combine_parse(comb, &d->comb, &d->p.algos, algo_set))
        return nl__cfg_fail(
            x, comb_col,
            "unknown combine '%s' (use any, majority, all, vote, shifts, transients or "
            "default)",
            comb);
    if ((weights || quorum) && !comb)
        return nl__cfg_fail(x, weights ? weights_col : quorum_col,
                            "weights and quorum need combine=");
    const char *wbad = NULL;
    if (weights && nld_combine_weights(weights, &d->comb, &wbad))
        return nl__cfg_fail(x, weights_col + (int)strlen("weights=") + (int)(wbad - weights),
                            "bad weight (use ALGO:WEIGHT,...)");
    if (quorum &&
        (parse_num(quorum, &d->comb.quorum, 1) || !(d->comb.quorum > 0) || d->comb.quorum > 1))
        return nl__cfg_fail(x, quorum_col, "bad value for quorum: '%s' (0 < Q <= 1)", quorum);
    if (d->comb.on) { /* a vote needs some weight to agree: with none it could never report */
        double tw = 0;
        for (int a = 0; a < NLD_ALGOS; a++)
            if (d->p.algos >> a & 1) tw += d->comb.weight[a];
        if (!(tw > 0))
            return nl__cfg_fail(x, weights ? weights_col : comb_col,
                                "every algorithm of combine=%s has weight 0: it could never report",
                                comb);
    }
    if (!d->sel.glob) return nl__cfg_fail(x, name_col, "stream %s needs event=GLOB", name);
    if (!d->sel.value && !(d->sel.value = strdup("value"))) return NL_ENOMEM;
    const char *why;
    if (nld_params_check(&d->p, &why)) return nl__cfg_fail(x, name_col, "stream %s: %s", name, why);
    return 0;
}

static int do_missing(pctx_t *x, nld_cfg_t *c, const char *glob, int glob_col, word_t *w, int n)
{
    if (!glob || !*glob || strlen(glob) > NL_NAME_MAX)
        return nl__cfg_fail(x, glob_col, "missing needs an activity glob");
    int rc = grow((void **)&c->m, c->nm, sizeof *c->m);
    if (rc)
        return rc == NL_EINVAL ? nl__cfg_fail(x, 1, "more than %d missing rules", NLD_DEFS_MAX)
                               : rc;
    nld_mdef_t *d = &c->m[c->nm++];
    *d = (nld_mdef_t){.quantile = 0.99, .factor = 3, .learn = 1000, .min = 20};
    if (!(d->glob = strdup(glob))) return NL_ENOMEM;
    for (int i = 0; i < n; i++) {
        char *v = split_opt(w[i].s);
        const char *o = w[i].s;
        int bad = !v;
        if (bad) return nl__cfg_fail(x, w[i].col, "expected name=value, got '%s'", o);
        if (!strcmp(o, "timeout"))
            bad = (d->timeout = nl__parse_dur(v)) <= 0;
        else if (!strcmp(o, "initial"))
            bad = (d->initial = nl__parse_dur(v)) <= 0;
        else if (!strcmp(o, "quantile"))
            bad = parse_num(v, &d->quantile, 1) || !(d->quantile > 0 && d->quantile <= 1);
        else if (!strcmp(o, "factor"))
            bad = parse_num(v, &d->factor, 0) || !(d->factor > 0);
        else if (!strcmp(o, "learn"))
            bad = parse_u32(v, &d->learn) || d->learn < 2 || d->learn > NLD_HIST_MAX;
        else if (!strcmp(o, "min"))
            bad = parse_u32(v, &d->min) || d->min < 1;
        else
            return nl__cfg_fail(x, w[i].col, "unknown missing option '%s'", o);
        if (bad) return nl__cfg_fail(x, w[i].col, "bad value for %s: '%s'", o, v);
    }
    if (d->min > d->learn) d->min = d->learn;
    return 0;
}

/* A level: [P% of] baseline|NUMBER, from w[*i]; *i is left on its last word. */
static int parse_level(pctx_t *x, word_t *w, int n, int *i, double *pct, int *baseline,
                       double *fixed)
{
    size_t l = strlen(w[*i].s);
    if (l > 1 && w[*i].s[l - 1] == '%') {
        if (parse_num(w[*i].s, pct, 1) || *pct < 0)
            return nl__cfg_fail(x, w[*i].col, "bad percentage '%s'", w[*i].s);
        *pct *= 100;
        if (++*i >= n || strcmp(w[*i].s, "of"))
            return nl__cfg_fail(x, *i < n ? w[*i].col : w[*i - 1].col,
                                "expected 'of' after the percentage");
        if (++*i >= n)
            return nl__cfg_fail(x, w[*i - 1].col, "expected 'baseline' or a number after 'of'");
    }
    if (!strcmp(w[*i].s, "baseline")) {
        *baseline = 1;
    } else if (parse_num(w[*i].s, fixed, 0)) {
        /* a duration with its unit (20ms, 1.5s), as for: summaries' durations are seconds */
        double sec = nl__parse_dur(w[*i].s);
        if (sec < 0)
            return nl__cfg_fail(x, w[*i].col,
                                "expected 'baseline', a number or a duration (20ms, 2s), got '%s'",
                                w[*i].s);
        *fixed = sec;
    }
    return 0;
}

/* when GLOB V below|above [P% of] baseline|NUMBER [for DUR] [notify URL]
 *      [clear below|above LEVEL] [clear.for DUR] [options] */
static int do_when(pctx_t *x, nld_cfg_t *c, word_t *w, int n)
{
    int rc = grow((void **)&c->w, c->nw, sizeof *c->w);
    if (rc)
        return rc == NL_EINVAL ? nl__cfg_fail(x, 1, "more than %d subscriptions", NLD_DEFS_MAX)
                               : rc;
    nld_wdef_t *d = &c->w[c->nw++];
    d->pct = NAN;
    d->base_n = 1800;
    d->base_min = 30;
    int i = 0;
    if (n < 4)
        return nl__cfg_fail(x, n ? w[n - 1].col : 1, "expected: when GLOB VALUE below|above ...");
    if (strlen(w[0].s) > NL_NAME_MAX) return nl__cfg_fail(x, w[0].col, "glob too long");
    if (!(d->sel.glob = strdup(w[0].s))) return NL_ENOMEM;
    char vopt[16] = "value";
    rc = sel_option(x, &d->sel, &w[1], vopt, w[1].s);
    if (rc < 0) return rc;
    i = 2;
    if (!strcmp(w[i].s, "below"))
        d->below = 1;
    else if (strcmp(w[i].s, "above"))
        return nl__cfg_fail(x, w[i].col, "expected 'below' or 'above', got '%s'", w[i].s);
    i++;
    rc = parse_level(x, w, n, &i, &d->pct, &d->baseline, &d->fixed);
    if (rc) return rc;
    for (i++; i < n; i++) {
        if (!strcmp(w[i].s, "clear")) { /* clear below|above [P% of] baseline|NUMBER */
            if (i + 2 >= n) return nl__cfg_fail(x, w[i].col, "expected: clear below|above LEVEL");
            i++;
            int below = !strcmp(w[i].s, "below");
            if (!below && strcmp(w[i].s, "above"))
                return nl__cfg_fail(x, w[i].col, "expected 'below' or 'above', got '%s'", w[i].s);
            if (below == d->below)
                return nl__cfg_fail(x, w[i].col,
                                    "an alert for a value %s its threshold clears %s another level",
                                    d->below ? "below" : "above", d->below ? "above" : "below");
            i++;
            d->clear = 1;
            d->clear_pct = NAN;
            rc = parse_level(x, w, n, &i, &d->clear_pct, &d->clear_baseline, &d->clear_fixed);
            if (rc) return rc;
            if (d->clear_baseline && !d->baseline)
                return nl__cfg_fail(x, w[i].col,
                                    "a clear level of the baseline needs a baseline alert");
            continue;
        }
        if (!strcmp(w[i].s, "for") || !strcmp(w[i].s, "notify") || !strcmp(w[i].s, "clear.for")) {
            if (i + 1 >= n) return nl__cfg_fail(x, w[i].col, "'%s' needs an argument", w[i].s);
            if (w[i].s[0] != 'n') {
                double *dur = w[i].s[0] == 'f' ? &d->hold : &d->clear_for;
                if ((*dur = nl__parse_dur(w[i + 1].s)) < 0)
                    return nl__cfg_fail(x, w[i + 1].col, "bad duration '%s'", w[i + 1].s);
            } else if (nl__cfg_set_str(&d->notify, w[i + 1].s)) {
                return NL_ENOMEM;
            }
            i++;
            continue;
        }
        char *v = split_opt(w[i].s);
        const char *o = w[i].s;
        if (!v) return nl__cfg_fail(x, w[i].col, "unexpected '%s'", o);
        rc = sel_option(x, &d->sel, &w[i], o, v);
        if (rc < 0) return rc;
        if (rc == 1) {
            if (!strcmp(o, "event") || !strcmp(o, "value"))
                return nl__cfg_fail(x, w[i].col,
                                    "the event and value of a subscription come first");
            continue;
        }
        int bad = 0;
        if (!strcmp(o, "name"))
            bad = !nl__cfg_name_ok(v, 64) || nl__cfg_set_str(&d->name, v);
        else if (!strcmp(o, "baseline.n"))
            bad = parse_u32(v, &d->base_n) || d->base_n < 1 || d->base_n > NLD_HIST_MAX;
        else if (!strcmp(o, "baseline.min"))
            bad = parse_u32(v, &d->base_min) || d->base_min < 1;
        else if (!strcmp(o, "baseline.from"))
            bad = strcmp(v, "db") != 0 || !d->baseline, d->seed = 1;
        else if (!strcmp(o, "baseline.since"))
            bad = (d->seed_since = nl__parse_dur(v)) <= 0;
        else if (!strcmp(o, "clear.for"))
            bad = (d->clear_for = nl__parse_dur(v)) < 0;
        else
            return nl__cfg_fail(x, w[i].col, "unknown subscription option '%s'", o);
        if (bad) return nl__cfg_fail(x, w[i].col, "bad value for %s: '%s'", o, v);
    }
    if (d->base_min > d->base_n) d->base_min = d->base_n;
    if (!d->name) {
        char nm[32];
        snprintf(nm, sizeof nm, "when%d", c->nw);
        if (!(d->name = strdup(nm))) return NL_ENOMEM;
    }
    return 0;
}

static int do_set(pctx_t *x, nld_cfg_t *c, word_t *w, int n)
{
    for (int i = 0; i < n; i++) {
        char *v = split_opt(w[i].s);
        const char *o = w[i].s;
        if (!v) return nl__cfg_fail(x, w[i].col, "expected name=value, got '%s'", o);
        double d = 0;
        int bad = 0;
        if (!strcmp(o, "each"))
            bad = parse_num(v, &d, 0) || (d != 0 && d != 1), c->each = d != 0;
        else if (!strcmp(o, "scores"))
            bad = parse_num(v, &d, 0) || (d != 0 && d != 1), c->scores = d != 0;
        else if (!strcmp(o, "expire")) /* off (the default): idle streams keep their model */
            bad = strcmp(v, "off") ? (c->expire = nl__parse_dur(v)) <= 0 : (c->expire = 0, 0);
        else if (!strcmp(o, "max-streams") || !strcmp(o, "max-pending")) {
            /* stored only once checked: converting -4 to size_t is undefined (found by
             * fuzz_detect_cfg) */
            bad = parse_num(v, &d, 0) || !(d >= 1 && d <= 1e8);
            if (!bad) *(!strcmp(o, "max-streams") ? &c->max_streams : &c->max_pending) = (size_t)d;
        } else if (!strcmp(o, "db"))
            bad = !*v || nl__cfg_set_str(&c->db, v);
        else
            return nl__cfg_fail(x, w[i].col, "unknown setting '%s'", o);
        if (bad) return nl__cfg_fail(x, w[i].col, "bad value for %s: '%s'", o, v);
    }
    return 0;
}

/* One directive line, already split into words. */
static int directive(pctx_t *x, nld_cfg_t *c, word_t *w, int n)
{
    const char *kw = w[0].s;
    if (!strcmp(kw, "stream"))
        return do_stream(x, c, n > 1 ? w[1].s : NULL, n > 1 ? w[1].col : w[0].col, w + 2,
                         n > 2 ? n - 2 : 0);
    if (!strcmp(kw, "missing"))
        return do_missing(x, c, n > 1 ? w[1].s : NULL, n > 1 ? w[1].col : w[0].col, w + 2,
                          n > 2 ? n - 2 : 0);
    if (!strcmp(kw, "when")) return do_when(x, c, w + 1, n - 1);
    if (!strcmp(kw, "set")) return do_set(x, c, w + 1, n - 1);
    /* The alert layer's directives share the file; alerts/nla_config.c reads them. */
    if (!strcmp(kw, "route") || !strcmp(kw, "receiver") || !strcmp(kw, "silence") ||
        !strcmp(kw, "alerts"))
        return 0;
    return nl__cfg_fail(x, w[0].col,
                        "unknown directive '%s' (stream, missing, when, set, route, receiver, "
                        "silence, alerts)",
                        kw);
}

static int each_line(void *ctx, nl__word_t *w, int n)
{
    cfg_walk_t *k = ctx;
    return directive(&k->x, k->c, w, n);
}

int nld_cfg_parse(nld_cfg_t *c, const char *text, const char *src, char *err, size_t errlen)
{
    cfg_walk_t k = {.x = {.src = src, .line = 0, .err = err, .errlen = errlen}, .c = c};
    return nl__cfg_each(text, &k.x, each_line, &k);
}

static int parse_obj(void *c, const char *text, const char *src, char *err, size_t errlen)
{
    return nld_cfg_parse(c, text, src, err, errlen);
}

int nld_cfg_load(nld_cfg_t *c, const char *path, char *err, size_t errlen)
{
    return nl__cfg_load(path, parse_obj, c, err, errlen);
}

int nld_cfg_stream(nld_cfg_t *c, const char *name, char *const *words, int nwords, char *err,
                   size_t errlen)
{
    pctx_t x = {.src = "command line", .line = 1, .err = err, .errlen = errlen};
    word_t w[WORDS_MAX];
    if (nwords > WORDS_MAX) return nl__cfg_fail(&x, 1, "too many options");
    for (int i = 0; i < nwords; i++) w[i] = (word_t){.s = words[i], .col = i + 1};
    return do_stream(&x, c, name, 1, w, nwords);
}
