/* nld_algo.c — MSD and CDF tests over static and heuristic histories (see nld_algo.h). */
#include "nld_algo.h"

#include <math.h>
#include <string.h>

#include "nlkit/nl_bp.h"

static const char *const algo_names[NLD_ALGOS] = {"msd-ss", "msd-su", "msd-hs", "msd-hu",
                                                  "cdf-ss", "cdf-su", "cdf-hs", "cdf-hu"};

#define IS_CDF(i) (((i) >> 2) & 1)
#define IS_HEUR(i) (((i) >> 1) & 1)
#define IS_RAW(i) ((i)&1)

void nld_params_default(nld_params_t *p)
{
    /* chosen from bench-eval's runs (bench/README.md, "bench-eval") */
    *p = (nld_params_t){
        .algos = 0, .k = 2.0, .p = 0.05, .alpha = 0.5, .n = 300, .min = 30, .admit = 0};
}

int nld_params_check(const nld_params_t *p, const char **why)
{
    const char *w = NULL;
    if (!(p->k > 0 && isfinite(p->k)))
        w = "k must be a positive number";
    else if (!(p->p > 0 && p->p < 1))
        w = "p must lie strictly between 0 and 1";
    else if (!(p->alpha > 0 && p->alpha <= 1))
        w = "alpha must lie in (0, 1]";
    else if (p->n < 2 || p->n > NLD_HIST_MAX)
        w = "history size must be between 2 and 1000000";
    else if (p->min < 2 || p->min > p->n)
        w = "min must be between 2 and the history size";
    else if (p->admit > NLD_ADMIT_MAX)
        w = "admit must be between 0 and 16";
    else if (p->side < NLD_BOTH || p->side > NLD_ABOVE)
        w = "side must be both, below or above";
    else if (p->algos & ~NLD_ALL_ALGOS)
        w = "unknown algorithm";
    if (why) *why = w;
    return w ? NL_EINVAL : 0;
}

const char *nld_algo_name(int i) { return i >= 0 && i < NLD_ALGOS ? algo_names[i] : NULL; }

int nld_algo_parse(const char *list, unsigned *mask, const char **bad)
{
    unsigned m = 0;
    const char *s = list;
    while (*s) {
        size_t n = strcspn(s, ",");
        int found = -1;
        if (n == 3 && !strncmp(s, "all", 3)) {
            m = NLD_ALL_ALGOS;
            found = 0;
        }
        for (int i = 0; i < NLD_ALGOS && found < 0; i++)
            if (n == 6 && !strncmp(s, algo_names[i], 6)) {
                m |= 1u << i;
                found = i;
            }
        if (found < 0) {
            if (bad) *bad = s;
            return NL_EINVAL;
        }
        s += n;
        if (*s == ',') s++;
    }
    if (!m) {
        if (bad) *bad = list;
        return NL_EINVAL;
    }
    *mask = m;
    return 0;
}

int nld_bank_init(nld_bank_t *b, const nld_params_t *p)
{
    memset(b, 0, sizeof *b);
    b->p = *p;
    nl_ewma_init(&b->ew, p->alpha);
    for (int raw = 0; raw < 2; raw++) {
        unsigned msd = 1u << (0 + raw), cdf = 1u << (4 + raw); /* msd-s?, cdf-s? */
        if ((p->algos & (msd | cdf)) &&
            nld_hist_init(&b->stat[raw], p->n, 0, (p->algos & cdf) != 0))
            goto oom;
    }
    for (int i = 0; i < NLD_ALGOS; i++)
        if ((p->algos >> i & 1) && IS_HEUR(i) && nld_hist_init(&b->heur[i], p->n, 1, IS_CDF(i)))
            goto oom;
    return 0;
oom:
    nld_bank_free(b);
    return NL_ENOMEM;
}

void nld_bank_free(nld_bank_t *b)
{
    for (int i = 0; i < 2; i++) nld_hist_free(&b->stat[i]);
    for (int i = 0; i < NLD_ALGOS; i++) nld_hist_free(&b->heur[i]);
}

/* How extreme v is against H, in [0, 1], in the direction(s) watched: a flag's strength
 * that users can plot and threshold, comparable across values of one algorithm. */
static double score_of(const nld_params_t *p, int i, const nld_hist_t *h, double v,
                       const nld_verdict_t *out)
{
    if (!IS_CDF(i)) {
        double m = out->centre, sd = nld_hist_sd(h);
        if (!(sd > 0))
            return v == m ? 0 : (p->side == NLD_BELOW ? v < m : p->side == NLD_ABOVE ? v > m : 1);
        double z = (v - m) / sd;
        if (p->side == NLD_BELOW) return 0.5 * erfc(z / M_SQRT2);  /* 1 - P(X <= v) */
        if (p->side == NLD_ABOVE) return 0.5 * erfc(-z / M_SQRT2); /* 1 - P(X >= v) */
        return erf(fabs(z) / M_SQRT2);                             /* 1 - P(|X| >= |v|) */
    }
    double le = nld_hist_share_le(h, v), ge = nld_hist_share_ge(h, v);
    if (isnan(le)) return 0;
    double tail = p->side == NLD_BELOW   ? le
                  : p->side == NLD_ABOVE ? ge
                                         : fmin(1.0, 2 * fmin(le, ge));
    return 1 - tail;
}

/* Test v against H for algorithm i; the centre is computed only for a flagged value, as
 * only reports need it (a median costs two more tree descents). */
static void judge(const nld_params_t *p, int i, const nld_hist_t *h, double v, nld_verdict_t *out)
{
    out->v = v;
    out->hist_n = h->n;
    out->centre = out->lo = out->hi = NAN;
    out->score = 0;
    if (h->n < p->min) {
        out->state = NLD_WARMUP;
        return;
    }
    if (!IS_CDF(i)) {
        double m = nld_hist_mean(h), w = p->k * nld_hist_sd(h);
        out->lo = m - w;
        out->hi = m + w;
        out->centre = m;
    } else {
        double tail = p->side == NLD_BOTH ? p->p / 2 : p->p;
        out->lo = nld_hist_quantile(h, tail);
        out->hi = nld_hist_quantile(h, 1.0 - tail);
    }
    out->score = score_of(p, i, h, v, out);
    int low = v < out->lo && p->side != NLD_ABOVE;
    int high = v > out->hi && p->side != NLD_BELOW;
    out->state = low ? NLD_LOW : high ? NLD_HIGH : NLD_NORMAL;
    if (IS_CDF(i) && out->state != NLD_NORMAL) out->centre = nld_hist_quantile(h, 0.5);
}

/* A heuristic history takes v if it was not flagged; a flagged v is held back until its
 * run of flags ends, and goes in then if the run was no longer than admit. */
static int heur_update(nld_bank_t *b, int i, double v, int state)
{
    int rc = 0;
    if (state == NLD_WARMUP || state == NLD_NORMAL) {
        if (!b->held[i].long_run)
            for (uint32_t j = 0; j < b->held[i].n && !rc; j++)
                rc = nld_hist_add(&b->heur[i], b->held[i].v[j]);
        b->held[i].n = 0;
        b->held[i].long_run = 0;
        return rc ? rc : nld_hist_add(&b->heur[i], v);
    }
    if (b->held[i].n < b->p.admit)
        b->held[i].v[b->held[i].n++] = v;
    else
        b->held[i].long_run = 1;
    return 0;
}

double nld_bank_step(nld_bank_t *b, double x, nld_verdict_t out[NLD_ALGOS], int *err)
{
    double s = nl_ewma_add(&b->ew, x);
    unsigned m = b->p.algos;
    *err = 0;
    for (int i = 0; i < NLD_ALGOS; i++) {
        if (!(m >> i & 1)) continue;
        double v = IS_RAW(i) ? x : s;
        const nld_hist_t *h = IS_HEUR(i) ? &b->heur[i] : &b->stat[IS_RAW(i)];
        judge(&b->p, i, h, v, &out[i]);
        if (IS_HEUR(i) && heur_update(b, i, v, out[i].state)) *err = NL_ENOMEM;
    }
    /* Static histories after every test, so a value is never judged against itself. */
    for (int raw = 0; raw < 2; raw++)
        if (b->stat[raw].cap && nld_hist_add(&b->stat[raw], raw ? x : s)) *err = NL_ENOMEM;
    return s;
}
