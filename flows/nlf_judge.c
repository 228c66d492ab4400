/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_judge.c — suspect scores: a completed flow's profile against the recent normal
 * flows of its root activity (its distance to the k-th nearest, nl-peers' arithmetic), or
 * against a reference run's flows (the nearest); above the threshold it is reported. The
 * first flows of a root activity wait until there are enough to compare. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlf_int.h"
#include "nlp_score.h"

#define MEDIAN_EVERY 16 /* new scores between two medians of the recent ones */

void nlf__done_free(nlf_done_t *d)
{
    free(d->v);
    free(d->slots);
    d->v = NULL;
    d->slots = NULL;
}

static size_t warm_n(const nlf_t *f)
{
    size_t w = 4 * (size_t)f->o.k;
    if (w < 32) w = 32;
    return w < f->o.history ? w : f->o.history;
}

static int have_refs(const nlf_t *f) { return f->n.refs > 0; }

/* A flow's neighbour: its profile, and who it was (the typical flow named beside it). */
typedef struct nb {
    const double *v;
    const char *guid, *trace;
} nb_t;

/* Keep a flow's profile and identity among the root's neighbours (oldest overwritten). */
static void ring_add(nlf_t *f, nlf_root_t *r, const nlf_done_t *d)
{
    size_t cap = f->phase == NLF_REFERENCE ? 4 * (size_t)f->o.history : f->o.history;
    if (!r->ring) {
        r->ring = malloc(cap * f->dim * sizeof *r->ring);
        r->ring_id = malloc(cap * sizeof *r->ring_id);
        if (!r->ring || !r->ring_id) {
            free(r->ring), free(r->ring_id);
            r->ring = NULL, r->ring_id = NULL;
            return;
        }
        r->capring = cap;
    }
    size_t at = r->nring < r->capring ? r->nring++ : (r->ringpos++ % r->capring);
    memcpy(r->ring + at * f->dim, d->v, f->dim * sizeof *d->v);
    memcpy(r->ring_id[at][0], d->guid, sizeof d->guid);
    memcpy(r->ring_id[at][1], d->trace, sizeof d->trace);
}

static double dist(const nlf_t *f, const nlf_root_t *r, const double *a, const double *b)
{
    double d = nlp_distance(a, b, r->nslots, NLP_MANHATTAN);
    if (f->o.value_field)
        d += nlp_distance(a + NLF_SLOTS, b + NLF_SLOTS, r->nslots, NLP_MANHATTAN);
    return d;
}

/* The flow's score: distance to its k-th nearest neighbour (the nearest reference with a
 * reference run), `self` being its own place in the ring or -1. *nb gets the neighbour
 * (its v NULL if none). */
static double score(nlf_t *f, nlf_root_t *r, const double *v, long self, nb_t *nb)
{
    *nb = (nb_t){0};
    size_t n = r->nring;
    if (f->capdist < n + 1) {
        double *nd = realloc(f->dist, (n + 1) * sizeof *nd);
        if (!nd) return NAN;
        f->dist = nd;
        f->capdist = n + 1;
    }
    for (size_t i = 0; i < n; i++) f->dist[i] = dist(f, r, v, r->ring + i * f->dim);
    if (self < 0) f->dist[n] = 0, self = (long)n++;
    int which;
    double s = nlp_kth_nearest(f->dist, n, (size_t)self, have_refs(f) ? 1 : f->o.k, &which);
    if (which >= 0)
        *nb = (nb_t){r->ring + (size_t)which * f->dim, r->ring_id[which][0], r->ring_id[which][1]};
    if (isnan(s) && have_refs(f)) s = f->o.value_field ? 4 : 2; /* unlike any reference */
    return s;
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void threshold(nlf_t *f, nlf_root_t *r, int force)
{
    if (f->o.threshold > 0) {
        r->thr = f->o.threshold;
        return;
    }
    if (!force && r->since_median < MEDIAN_EVERY) return;
    r->since_median = 0;
    double m = nlp_median(r->scores, r->nscores);
    double t = f->o.factor * m;
    r->thr = isnan(t) || t < f->o.floor ? f->o.floor : t;
}

static void score_add(nlf_t *f, nlf_root_t *r, double s)
{
    if (!r->scores && !(r->scores = malloc(f->o.history * sizeof *r->scores))) return;
    size_t at = r->nscores < f->o.history ? r->nscores++ : (r->scorepos++ % f->o.history);
    r->scores[at] = s;
    r->since_median++;
}

/* The component of the largest difference: its path and a - b there. */
static uint32_t culprit(const nlf_t *f, const nlf_root_t *r, const double *a, const double *b,
                        double *diff)
{
    double dt = 0, dv = 0;
    int ct = nlp_culprit(a, b, r->nslots, &dt), cv = -1;
    if (f->o.value_field) cv = nlp_culprit(a + NLF_SLOTS, b + NLF_SLOTS, r->nslots, &dv);
    int c = cv >= 0 && fabs(dv) > fabs(dt) ? cv : ct;
    *diff = c == cv && cv >= 0 ? dv : dt;
    return c >= 0 ? r->slot_path[c] : NLF_NONE;
}

static void top_add(nlf_t *f, const nlf_done_t *d, double s, uint32_t path, double diff)
{
    if (!f->o.top) return;
    if (!f->top && !(f->top = calloc(f->o.top, sizeof *f->top))) return;
    if (f->ntop == f->o.top && s <= f->top[f->ntop - 1].score) return;
    size_t i = f->ntop < f->o.top ? f->ntop++ : f->ntop - 1;
    while (i > 0 && f->top[i - 1].score < s) {
        f->top[i] = f->top[i - 1];
        i--;
    }
    nlf_top_t *t = &f->top[i];
    t->score = s;
    t->diff = diff;
    t->root = d->root;
    t->path = path;
    t->t1 = d->t1;
    memcpy(t->guid, d->guid, sizeof t->guid);
    memcpy(t->trace, d->trace, sizeof t->trace);
    memcpy(t->hosts, d->hosts, sizeof t->hosts);
}

/* Write one flow's verdict line: nl.flow.suspect, or nl.flow.score with --all. */
static void out_flow(nlf_t *f, const char *event, int level, const nlf_done_t *d, double s,
                     double thr, uint32_t path, double diff, const nb_t *nb)
{
    char text[1024];
    nlf__out_begin(f, d->t1, event, level, d->guid);
    if (d->trace[0]) nl_enc_str(&f->b, "trace.id", d->trace, strlen(d->trace));
    size_t n = nlf__path_text(f, d->root, text, sizeof text);
    nl_enc_str(&f->b, "root", text, n);
    nl_enc_dbl(&f->b, "score", s);
    nl_enc_dbl(&f->b, "threshold", thr);
    n = path == NLF_NONE ? (size_t)snprintf(text, sizeof text, "other")
                         : nlf__path_text(f, path, text, sizeof text);
    nl_enc_str(&f->b, "path", text, n);
    nl_enc_dbl(&f->b, "diff", diff);
    nl_enc_str(&f->b, "hosts", d->hosts, strlen(d->hosts));
    nl_enc_u64(&f->b, "events", d->nev);
    nl_enc_dbl(&f->b, "dur", d->rdur);
    nl_enc_dbl(&f->b, "span", (double)(d->t1 - d->t0) / 1e6);
    if (d->orphan) nl_enc_i64(&f->b, "orphan", 1);
    if (d->open) nl_enc_i64(&f->b, "open", 1);
    if (nb->v && nb->guid[0]) nl_enc_str(&f->b, "typical.guid", nb->guid, strlen(nb->guid));
    if (nb->v && nb->trace[0]) nl_enc_str(&f->b, "typical.trace.id", nb->trace, strlen(nb->trace));
    nlf__out_end(f, level);
}

/* With --durations, every flow judged: its root activity's duration, for nl-detect. */
static void out_done(nlf_t *f, const nlf_done_t *d, double s, int anomalous)
{
    char text[1024];
    nlf__out_begin(f, d->t1, "nl.flow.done", NL_LVL_INFO, d->guid);
    if (d->trace[0]) nl_enc_str(&f->b, "trace.id", d->trace, strlen(d->trace));
    size_t n = nlf__path_text(f, d->root, text, sizeof text);
    nl_enc_str(&f->b, "root", text, n);
    nl_enc_dbl(&f->b, "dur", d->rdur);
    nl_enc_dbl(&f->b, "span", (double)(d->t1 - d->t0) / 1e6);
    nl_enc_dbl(&f->b, "score", s);
    nl_enc_i64(&f->b, "anomalous", anomalous);
    nlf__out_end(f, NL_LVL_INFO);
}

/* A verdict on a flow whose score is known. */
static void verdict(nlf_t *f, nlf_root_t *r, const nlf_done_t *d, double s, const nb_t *nb)
{
    double diff = 0;
    uint32_t path = nb->v ? culprit(f, r, d->v, nb->v, &diff) : NLF_NONE;
    /* with a reference run, a root activity it never had is unlike anything normal */
    int anomalous = s > r->thr || (have_refs(f) && !r->nring);
    f->n.judged++;
    if (anomalous) {
        f->n.suspects++;
        out_flow(f, "nl.flow.suspect", NL_LVL_WARN, d, s, r->thr, path, diff, nb);
        top_add(f, d, s, path, diff);
    } else if (f->o.all) {
        out_flow(f, "nl.flow.score", NL_LVL_INFO, d, s, r->thr, path, diff, nb);
    }
    if (f->o.durations) out_done(f, d, s, anomalous);
    nlf__cover(f, r, d, anomalous, nb->v);
    if (!anomalous) {
        if (!have_refs(f)) ring_add(f, r, d);
        score_add(f, r, s);
        threshold(f, r, 0);
    }
}

/* Enough flows of a root activity have arrived: judge those held, each against the others
 * (or the references), and set the threshold from their scores. */
static void warm_flush(nlf_t *f, nlf_root_t *r)
{
    size_t n = r->nwarm;
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s) return;
    if (!have_refs(f))
        for (size_t i = 0; i < n; i++) ring_add(f, r, &r->warm[i]);
    for (size_t i = 0; i < n; i++) {
        nb_t nb;
        s[i] = score(f, r, r->warm[i].v, have_refs(f) ? -1 : (long)i, &nb);
    }
    if (f->o.threshold > 0) {
        r->thr = f->o.threshold;
    } else { /* the median of the held flows' scores */
        double *c = malloc(n * sizeof *c);
        if (c) {
            memcpy(c, s, n * sizeof *c);
            qsort(c, n, sizeof *c, cmp_dbl);
            double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
            double t = f->o.factor * m;
            r->thr = isnan(t) || t < f->o.floor ? f->o.floor : t;
            free(c);
        }
    }
    if (isnan(r->thr)) r->thr = f->o.floor;
    if (!have_refs(f)) r->nring = r->ringpos = 0; /* re-added below if normal */
    for (size_t i = 0; i < n; i++) {
        nb_t nb = {0};
        double *keep = NULL;
        if (!have_refs(f)) { /* the neighbour, found again among all held flows */
            for (size_t j = 0; j < n; j++) f->dist[j] = dist(f, r, r->warm[i].v, r->warm[j].v);
            int which;
            nlp_kth_nearest(f->dist, n, i, f->o.k, &which);
            if (which >= 0 && (keep = malloc(f->dim * sizeof *keep))) {
                memcpy(keep, r->warm[which].v, f->dim * sizeof *keep);
                nb = (nb_t){keep, r->warm[which].guid, r->warm[which].trace};
            }
        } else {
            score(f, r, r->warm[i].v, -1, &nb);
        }
        verdict(f, r, &r->warm[i], s[i], &nb);
        free(keep);
    }
    for (size_t i = 0; i < n; i++) nlf__done_free(&r->warm[i]);
    free(r->warm);
    r->warm = NULL;
    r->nwarm = 0;
    free(s);
}

void nlf__judge(nlf_t *f, nlf_done_t *d)
{
    nlf_root_t *r = nl__map_get(&f->roots, &d->root, sizeof d->root);
    if (!r) return;
    if (f->phase == NLF_REFERENCE) {
        ring_add(f, r, d);
        f->n.refs++;
        return;
    }
    if (isnan(r->thr)) { /* still gathering the first flows */
        if (r->nwarm % 64 == 0) {
            nlf_done_t *w = realloc(r->warm, (r->nwarm + 64) * sizeof *w);
            if (!w) return;
            r->warm = w;
        }
        r->warm[r->nwarm++] = *d;
        d->v = NULL; /* now the root's */
        d->slots = NULL;
        if (r->nwarm >= warm_n(f)) warm_flush(f, r);
        return;
    }
    nb_t nb;
    double s = score(f, r, d->v, -1, &nb);
    verdict(f, r, d, s, &nb);
}

void nlf__judge_finish(nlf_t *f)
{
    if (f->phase == NLF_REFERENCE) return;
    for (uint32_t i = 0; i < f->nroot; i++) {
        nlf_root_t *r = f->root[i];
        if (!r->nwarm) continue;
        if (have_refs(f) || r->nwarm > f->o.k) {
            warm_flush(f, r);
        } else { /* too few to compare: counted, not judged */
            f->n.warm_left += r->nwarm;
            for (size_t w = 0; w < r->nwarm; w++) nlf__done_free(&r->warm[w]);
            r->nwarm = 0;
        }
    }
}

double nlf_threshold(const nlf_t *f, const char *root)
{
    char text[1024];
    for (uint32_t i = 0; i < f->nroot; i++) {
        nlf__path_text(f, f->root[i]->path, text, sizeof text);
        if (!strcmp(text, root)) return f->root[i]->thr;
    }
    return NAN;
}
