/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_config.c — the nl-detect configuration language (see nld_config.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_num.h"
#include "nl_words.h"
#include "nld_config.h"
#include "nld_opts.h"

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

static int parse_u32(const char *s, uint32_t *out)
{
    double v;
    if (nld_opt_num(s, &v, 0) || v < 0 || v > 4e9 || v != floor(v)) return -1;
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

/* One stream directive: the selector's options and then the table's (nld_opts.h), in any
 * order; combine=, weights= and quorum= are read after the others, since a preset fills in
 * what was not given and a vote weighs the algorithms chosen. */
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
    nld_opts_init(d);
    if (!(d->name = strdup(name))) return NL_ENOMEM;
    unsigned char given[NLD_OPTS_MAX] = {0};
    const char *later[NLD_OPTS_MAX] = {0}; /* NLD_OK_LATER values, and their columns */
    int later_col[NLD_OPTS_MAX] = {0};
    for (int i = 0; i < n; i++) {
        char *v = split_opt(w[i].s);
        if (!v) return nl__cfg_fail(x, w[i].col, "expected name=value, got '%s'", w[i].s);
        const char *o = w[i].s;
        rc = sel_option(x, &d->sel, &w[i], o, v);
        if (rc < 0) return rc;
        if (rc == 1) continue;
        int k = nld_opt_find(o);
        if (k < 0) return nl__cfg_fail(x, w[i].col, "unknown stream option '%s'", o);
        given[k] = 1;
        if (nld_opts[k].kind == NLD_OK_LATER) {
            later[k] = v, later_col[k] = w[i].col;
            continue;
        }
        const char *where;
        if (nld_opt_set(d, k, v, &where) == 0) continue;
        if (nld_opts[k].kind == NLD_OK_ALGOS)
            return nl__cfg_fail(
                x, w[i].col + (int)(where - w[i].s),
                "unknown algorithm (use msd-ss, msd-su, msd-hs, msd-hu, cdf-ss, "
                "cdf-su, cdf-hs, cdf-hu, cusum, relent or all)");
        char want[160];
        nld_opt_expect(k, want, sizeof want);
        return nl__cfg_fail(x, w[i].col, "bad value for %s: '%s' (expected %s)", o, v, want);
    }
    const int i_comb = nld_opt_find("combine"), i_weights = nld_opt_find("weights"),
              i_quorum = nld_opt_find("quorum");
    const char *comb = later[i_comb], *weights = later[i_weights], *quorum = later[i_quorum];
    int comb_col = later_col[i_comb], weights_col = later_col[i_weights],
        quorum_col = later_col[i_quorum];
    /* combine=default is the recommended setting as a whole, chosen on real labelled
     * series (bench-realdata): its options apply unless given; it is also what a stream
     * gets that names neither algorithms nor a combination (algo= alone: that algorithm) */
    if (!comb && !given[nld_opt_find("algo")]) comb = "default", comb_col = name_col;
    int preset = !strcmp(comb ? comb : "", "default");
    if (preset) {
        nld_opts_preset(d, given);
        /* live, a run must last: 10 values or 10 s, whichever is fewer (a row a minute or
         * slower opens an episode at its first flag, as before); its history takes in no
         * flagged run (admit=0), as when episode.min was 1 */
        d->p.runs_s = d->episode_for_s;
        d->p.runs_n = d->episode_min;
    }
    /* fatigue and confirm are read against a threshold: the algorithms' own rules have none */
    int has_thr = d->p.threshold > 0 || d->p.rate > 0 || d->p.alarms_per_s > 0;
    if (d->fatigue_s > 0 && !has_thr)
        return nl__cfg_fail(x, name_col,
                            "stream %s: fatigue= needs threshold=, rate= or alarms=", name);
    if (d->confirm > 0 && !has_thr)
        return nl__cfg_fail(x, name_col,
                            "stream %s: confirm= needs threshold=, rate= or alarms=", name);
    nld_sdef_settle(d);
    if (!given[nld_opt_find("min")] && d->p.min > d->p.n) d->p.min = d->p.n;
    /* by default a run too short to be reported is taken as normal variation */
    if (!given[nld_opt_find("admit")] && !preset)
        d->p.admit = d->episode_min - 1 < NLD_ADMIT_MAX ? d->episode_min - 1 : NLD_ADMIT_MAX;
    /* after the loop: a preset picks algorithms only if algo= did not */
    if (comb && nld_combine_parse(comb, &d->comb, &d->p.algos, given[nld_opt_find("algo")]))
        return nl__cfg_fail(
            x, comb_col,
            "unknown combine '%s' (use any, majority, all, vote, shifts, transients or "
            "default)",
            comb);
    if ((weights || quorum) && !later[i_comb])
        return nl__cfg_fail(x, weights ? weights_col : quorum_col,
                            "weights and quorum need combine=");
    const char *wbad = NULL;
    if (weights && nld_combine_weights(weights, &d->comb, &wbad))
        return nl__cfg_fail(x, weights_col + (int)strlen("weights=") + (int)(wbad - weights),
                            "bad weight (use ALGO:WEIGHT,...)");
    if (quorum &&
        (nld_opt_num(quorum, &d->comb.quorum, 1) || !(d->comb.quorum > 0) || d->comb.quorum > 1))
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
            bad = nld_opt_num(v, &d->quantile, 1) || !(d->quantile > 0 && d->quantile <= 1);
        else if (!strcmp(o, "factor"))
            bad = nld_opt_num(v, &d->factor, 0) || !(d->factor > 0);
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
        if (nld_opt_num(w[*i].s, pct, 1) || *pct < 0)
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
    } else if (nld_opt_num(w[*i].s, fixed, 0)) {
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
            bad = nld_opt_num(v, &d, 0) || (d != 0 && d != 1), c->each = d != 0;
        else if (!strcmp(o, "scores"))
            bad = nld_opt_num(v, &d, 0) || (d != 0 && d != 1), c->scores = d != 0;
        else if (!strcmp(o, "expire")) /* off (the default): idle streams keep their model */
            bad = strcmp(v, "off") ? (c->expire = nl__parse_dur(v)) <= 0 : (c->expire = 0, 0);
        else if (!strcmp(o, "max-streams") || !strcmp(o, "max-pending")) {
            /* stored only once checked: converting -4 to size_t is undefined (found by
             * fuzz_detect_cfg) */
            bad = nld_opt_num(v, &d, 0) || !(d >= 1 && d <= 1e8);
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

int nld_cfg_help_stream(FILE *f)
{
    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[256];
    int rc = nld_cfg_parse(&c,
                           "stream alone event=x algo=msd-hu\n"
                           "stream preset event=x combine=default\n",
                           "help", err, sizeof err);
    if (!rc) {
        fputs("Stream options (nl-detect(1), STREAM OPTIONS), with the value each has in a\n"
              "stream given algo=msd-hu alone and in one given combine=default (as one without\n"
              "algo= or combine= is); any that takes off is turned off by it.\n"
              "Also: event=GLOB value=V key=F1,F2 where.FIELD=VALUE.\n\n",
              f);
        nld_opts_help(f, &c.s[0], &c.s[1]);
    }
    nld_cfg_free(&c);
    return rc;
}
