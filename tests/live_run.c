/* SPDX-License-Identifier: BSD-3-Clause */
/* live_run.c — see live_run.h. Reports are taken from the engine's report hook, the same
 * one nl-detect's alerts and metrics read. */
#include "live_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nld.h"

#define LIVE_OPEN_MAX 64

typedef struct live_ctx {
    live_result_t *r;
    int64_t onset, fault_end; /* usec; onset INT64_MAX without a fault */
    int64_t last_end;
    int open;                 /* episodes open now */
    int open_at_fault_end;    /* ... when the fault ended (counted at the first report after) */
    int fault_end_seen;
    char first[512]; /* the id of the episode that reported the fault first */
    size_t first_len;
} live_ctx_t;

static void on_report(void *ctx, const nld_report_t *rep)
{
    live_ctx_t *c = ctx;
    if (rep->kind != NLD_R_ANOMALY) return;
    live_result_t *r = c->r;
    if (!c->fault_end_seen && rep->ts >= c->fault_end) {
        c->fault_end_seen = 1;
        c->open_at_fault_end = c->open;
    }
    if (rep->phase == NLD_R_START) {
        r->starts++;
        c->open++;
        if (rep->ts < c->onset)
            r->before++;
        else if (rep->ts < c->fault_end + 120 * 1000000LL) {
            if (r->first_after < 0 && rep->id_len <= sizeof c->first) {
                r->first_after = (double)(rep->ts - c->onset) / 1e6;
                memcpy(c->first, rep->id, rep->id_len);
                c->first_len = rep->id_len;
            }
        } else {
            r->after++;
        }
        return;
    }
    r->ends++;
    if (c->open > 0) c->open--;
    if (rep->why && !strcmp(rep->why, "ongoing")) {
        r->open_at_end++;
        return;
    }
    if (rep->ts >= c->onset && rep->ts < c->fault_end && r->first_after >= 0 &&
        rep->id_len == c->first_len && !memcmp(rep->id, c->first, c->first_len))
        r->ended_during = 1;
    if (rep->ts >= c->fault_end && c->fault_end_seen && c->open_at_fault_end > 0) {
        c->open_at_fault_end--;
        r->end_after = (double)(rep->ts - c->fault_end) / 1e6;
    }
}

int live_run(const char *conf, int kind, long secs, long on, long len, uint64_t seed,
             live_result_t *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->first_after = r->end_after = -1;
    t_live_t g;
    t_live_init(&g, kind, secs, on, len, seed);
    int faulty = t_live_fault(&g, on);
    live_ctx_t c = {.r = r,
                    .onset = faulty ? g.t0 + (int64_t)on * 1000000 : INT64_MAX,
                    .fault_end = faulty ? g.t0 + (int64_t)(on + g.len) * 1000000 : INT64_MAX};
    nld_cfg_t cfg;
    nld_cfg_init(&cfg);
    if (nld_cfg_parse(&cfg, conf, "live.conf", err, errlen)) {
        nld_cfg_free(&cfg);
        return -1;
    }
    nl_log_t *out = nl_open("/dev/null");
    if (!out) {
        snprintf(err, errlen, "cannot open /dev/null as a log");
        nld_cfg_free(&cfg);
        return -1;
    }
    nld_opts_t o = {.diag = stderr, .diag_max = 3, .report = on_report, .report_ctx = &c};
    nld_t *d = nld_new(&cfg, out, &o, err, errlen);
    if (!d) {
        nl_close(out);
        nld_cfg_free(&cfg);
        return -1;
    }
    char line[1024];
    for (long s = 0; s < secs; s++) {
        size_t n = t_live_line(&g, s, line, sizeof line);
        if (n) nld_line(d, line, n, "live", s + 1);
    }
    nld_finish(d);
    nld_free(d);
    nl_close(out);
    nld_cfg_free(&cfg);
    return 0;
}

const char *live_fmt_delay(double s)
{
    static char buf[4][32]; /* several in one printf */
    static unsigned i;
    if (s < 0) return "-";
    char *b = buf[i++ % 4];
    snprintf(b, sizeof buf[0], "%.0f", s);
    return b;
}
