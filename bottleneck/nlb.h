/* SPDX-License-Identifier: BSD-3-Clause */
/* nlb.h — nl-bottleneck's engine: which stage of a transfer limits it, from the time each
 * stage took on both endpoints (the paper's Table II activities). Prefix nlb_.
 *
 * A transfer is a pipeline: the sender reads its disk (disk.read) and writes the network
 * (network.write), the receiver reads the network (network.read) and writes its disk
 * (disk.write), each end one block at a time. The slow stage's neighbours wait on it, and
 * the waiting shows as time too: a slow receiving disk keeps the sender blocked in
 * network.write. So each end is read apart — does it spend its time in its disk stage or
 * in its network stage? — and the ends are put together:
 *   - the receiver spends clearly more time in disk.write than in network.read: disk.write
 *     (the sender's network.write only waits for it);
 *   - else the sender spends clearly more time in disk.read than in network.write:
 *     disk.read (the receiver's network.read only waits for it);
 *   - else both ends spend clearly more time in the network stage: network;
 *   - else none: no stage is clearly slower (the transfer is bound by something else, such
 *     as the CPU copying blocks).
 * "Clearly" is the margin: more than (1 + margin) times the other stage of that end
 * (NetLogger's transfer API used 15-20 %; the default is 0.2). A verdict that needs a
 * stage that was not seen, or seen in fewer than min_pairs pairs (the sliver of a transfer
 * at the edge of an interval says little), is "missing data"; a time that is negative or
 * not a number is "bad data". */
#ifndef NLKIT_NLB_H
#define NLKIT_NLB_H

#include <stdint.h>

enum nlb_stage { NLB_DISK_READ, NLB_NET_WRITE, NLB_NET_READ, NLB_DISK_WRITE, NLB_STAGES };

/* The stage names, as activities ("disk.read", ...), indexed by enum nlb_stage. */
extern const char *const nlb_stage_name[NLB_STAGES];

/* What one transfer (or one interval of it) spent in each stage. */
typedef struct nlb_xfer {
    double busy[NLB_STAGES];  /* seconds inside the stage's start/end pairs */
    double bytes[NLB_STAGES]; /* the pairs' values (v.sum) */
    uint64_t pairs[NLB_STAGES];
    int seen[NLB_STAGES]; /* a summary or a pair of the stage was read */
    int bad;              /* a duration that is negative or not a number was read */
} nlb_xfer_t;

enum nlb_kind {
    NLB_V_DISK_READ,
    NLB_V_DISK_WRITE,
    NLB_V_NETWORK,
    NLB_V_NONE,    /* no stage clearly slower */
    NLB_V_MISSING, /* a stage the verdict needs was not seen */
    NLB_V_BAD      /* bad data */
};

typedef struct nlb_verdict {
    int kind;         /* enum nlb_kind */
    const char *name; /* "disk.read", "disk.write", "network", "none", "missing data",
                         "bad data" */
    double margin;    /* by how much the deciding stage exceeded the other: time ratio - 1
                         (for network, the smaller of the two ends'); NAN if none */
    unsigned missing; /* bit per enum nlb_stage not seen (or in too few pairs) */
} nlb_verdict_t;

/* Add a stage's time, bytes and pairs to x (a summary's dur.sum, v.sum, n; or one pair). */
void nlb_add(nlb_xfer_t *x, int stage, double busy, double bytes, uint64_t pairs);
/* The verdict for x with the given margin (>= 0), counting a stage as seen only with at
 * least min_pairs pairs (a summary's n). */
void nlb_judge(const nlb_xfer_t *x, double margin, uint64_t min_pairs, nlb_verdict_t *v);
/* The stage an activity name stands for: the stage itself or ending in "." and the stage
 * ("gridftp.disk.write"); -1 for none. */
int nlb_stage_of(const char *activity, size_t len);

#endif
