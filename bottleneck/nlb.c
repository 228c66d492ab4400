/* SPDX-License-Identifier: BSD-3-Clause */
/* nlb.c — the bottleneck rule of nlb.h, on the time each stage took. */
#include <math.h>
#include <string.h>

#include "nlb.h"

const char *const nlb_stage_name[NLB_STAGES] = {"disk.read", "network.write", "network.read",
                                                "disk.write"};

void nlb_add(nlb_xfer_t *x, int stage, double busy, double bytes, uint64_t pairs)
{
    if (stage < 0 || stage >= NLB_STAGES) return;
    x->seen[stage] = 1;
    if (!isfinite(busy) || busy < 0) {
        x->bad = 1;
        return;
    }
    x->busy[stage] += busy;
    if (isfinite(bytes)) x->bytes[stage] += bytes;
    x->pairs[stage] += pairs;
}

int nlb_stage_of(const char *activity, size_t len)
{
    for (int k = 0; k < NLB_STAGES; k++) {
        size_t n = strlen(nlb_stage_name[k]);
        if (len == n && !memcmp(activity, nlb_stage_name[k], n)) return k;
        if (len > n && activity[len - n - 1] == '.' &&
            !memcmp(activity + len - n, nlb_stage_name[k], n))
            return k;
    }
    return -1;
}

/* How much more time stage a took than stage b (a / b - 1; +inf when b took none and a
 * some; 0 when neither took any). */
static double excess(const nlb_xfer_t *x, int a, int b)
{
    double ta = x->busy[a], tb = x->busy[b];
    if (ta <= 0) return 0;
    return tb > 0 ? ta / tb - 1 : INFINITY;
}

static void set(nlb_verdict_t *v, int kind, const char *name, double margin)
{
    v->kind = kind;
    v->name = name;
    v->margin = margin;
}

void nlb_judge(const nlb_xfer_t *x, double margin, uint64_t min_pairs, nlb_verdict_t *v)
{
    v->missing = 0;
    int seen[NLB_STAGES];
    for (int k = 0; k < NLB_STAGES; k++) {
        seen[k] = x->seen[k] && x->pairs[k] >= min_pairs;
        if (!seen[k]) v->missing |= 1u << k;
    }
    if (x->bad) return set(v, NLB_V_BAD, "bad data", NAN);
    int recv = seen[NLB_NET_READ] && seen[NLB_DISK_WRITE];
    int send = seen[NLB_DISK_READ] && seen[NLB_NET_WRITE];
    double w = recv ? excess(x, NLB_DISK_WRITE, NLB_NET_READ) : 0;
    double d = send ? excess(x, NLB_DISK_READ, NLB_NET_WRITE) : 0;
    if (w > margin && d > margin) /* both disks lean: the one that leans harder */
        return w >= d ? set(v, NLB_V_DISK_WRITE, "disk.write", w)
                      : set(v, NLB_V_DISK_READ, "disk.read", d);
    if (w > margin) return set(v, NLB_V_DISK_WRITE, "disk.write", w);
    if (d > margin) return set(v, NLB_V_DISK_READ, "disk.read", d);
    if (!recv || !send) return set(v, NLB_V_MISSING, "missing data", NAN);
    double nr = excess(x, NLB_NET_READ, NLB_DISK_WRITE),
           nw = excess(x, NLB_NET_WRITE, NLB_DISK_READ);
    if (nr > margin && nw > margin) return set(v, NLB_V_NETWORK, "network", fmin(nr, nw));
    set(v, NLB_V_NONE, "none", NAN);
}
