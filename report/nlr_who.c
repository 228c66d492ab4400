/* SPDX-License-Identifier: BSD-3-Clause */
/* nlr_who.c — a drawn chart's series split by process. Charts are per activity and host;
 * when several programs on one host log the same activity (or one program ran as several
 * processes), one line of their values mixed says nothing true of either, so each gets
 * its own series: by program, and by pid where one program had several pids in the
 * window. The legend says which. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nlr_int.h"

int nlr__procs_add(nlr__procs_t *p, const nlr_report_t *r, const char *prog, const char *pid,
                   double t, double x)
{
    int i = 0;
    while (i < p->n && (strcmp(p->w[i].prog, prog) || strcmp(p->w[i].pid, pid))) i++;
    if (i == p->n) {
        if (p->n == NLR_SERIES_MAX) { /* more processes than the legend holds: counted */
            p->more++;
            return 0;
        }
        struct nlr__proc *w = &p->w[p->n];
        w->prog = nlr__dup(prog);
        w->pid = nlr__dup(pid);
        w->acc = calloc(NLR_COLS, sizeof *w->acc);
        w->n = 0;
        if (!w->prog || !w->pid || !w->acc) {
            free(w->prog), free(w->pid), free(w->acc);
            return NL_ENOMEM;
        }
        p->n++;
    }
    struct nlr__proc *w = &p->w[i];
    nlr__col_add(&w->acc[nlr__col_of(r, t)], t, x);
    w->n++;
    return 0;
}

static int by_label(const void *a, const void *b)
{
    return strcmp(((const nlr_series_t *)a)->label, ((const nlr_series_t *)b)->label);
}

int nlr__procs_finish(nlr__procs_t *p, nlr_chart_t *c)
{
    int rc = 0;
    if (p->n < 2) { /* one process, or none named: the chart's one series is its own */
        nlr__procs_free(p);
        return 0;
    }
    int same[NLR_SERIES_MAX] = {0}; /* processes of its program: more than one, and the pid
                                      says which */
    for (int i = 0; i < p->n; i++)
        for (int j = 0; j < p->n; j++) same[i] += !strcmp(p->w[j].prog, p->w[i].prog);
    if (!(c->series = calloc((size_t)p->n, sizeof *c->series))) rc = NL_ENOMEM;
    for (int i = 0; i < p->n && !rc; i++) {
        struct nlr__proc *w = &p->w[i];
        const char *prog = w->prog[0] ? w->prog : "(no prog)";
        char label[600];
        if (same[i] > 1)
            snprintf(label, sizeof label, "%s[%s]", prog, w->pid[0] ? w->pid : "no pid");
        else
            snprintf(label, sizeof label, "%s", prog);
        nlr_series_t *s = &c->series[c->nseries++];
        s->prog = w->prog, s->pid = w->pid;
        w->prog = w->pid = NULL;
        s->values = w->n;
        if (!(s->label = strdup(label)) || !(s->cols = calloc(NLR_COLS, sizeof *s->cols))) {
            rc = NL_ENOMEM;
            break;
        }
        s->ncols = nlr__cols_finish(w->acc, s->cols);
    }
    if (!rc) qsort(c->series, (size_t)c->nseries, sizeof *c->series, by_label);
    c->series_more = p->more;
    nlr__procs_free(p);
    return rc;
}

void nlr__procs_free(nlr__procs_t *p)
{
    for (int i = 0; i < p->n; i++) free(p->w[i].prog), free(p->w[i].pid), free(p->w[i].acc);
    p->n = 0;
}
