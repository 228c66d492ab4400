/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_jump.h — a flag must be news at the stream's own scale (jump=F).
 *
 * The people who label real series judge a deviation against the largest they have seen
 * lately: after an outage's spike, a blip a tenth its size is not an incident, however
 * rare it is under a model fitted to the quiet hours around it. A calibrated surprise
 * (nld_calib.h) cannot see that, since it learns a rare value's number, not its size. So
 * each value also gets a jump: its distance from the median of the previous
 * NLD_JUMP_LEVEL values (the level the value left). The stream's scale is the largest jump
 * so far, halved every `halflife` seconds of event time. A surprise S becomes
 * S * min(1, jump / (F * scale)): a value that jumps at least F of the scale keeps its
 * surprise; a smaller jump keeps that share of it. A stream's first values, and any
 * stream whose jumps are all alike, are not changed.
 *
 * On the two real labelled sets (bench-realdata) F = 0.5 with a half-life of 7 days cut
 * false reports on both while finding as many windows; the figures are in bench/README.md.
 * O(NLD_JUMP_LEVEL) per value, constant memory. */
#ifndef NLKIT_NLD_JUMP_H
#define NLKIT_NLD_JUMP_H

#include <stdint.h>

#define NLD_JUMP_LEVEL 5 /* values whose median is the level a value jumps from */

typedef struct nld_jump {
    double last[NLD_JUMP_LEVEL]; /* the previous values, a ring */
    uint32_t n, pos;             /* values in the ring (at most LEVEL); where the next goes */
    double scale;                /* the largest jump, as decayed to time t */
    int64_t t;                   /* event time of the last value (INT64_MIN: none known) */
    int64_t gap;                 /* the last gap between values the decay was computed for */
    double decay;                /* ... and its factor (a stream's gaps mostly repeat) */
} nld_jump_t;

void nld_jump_init(nld_jump_t *j);

/* The factor in (0, 1] (or 0 for a jump of 0 against a scale above 0) by which value x,
 * at event time ts_usec (INT64_MIN: unknown, the scale does not decay), weighs its
 * surprises, under share f (0 < f <= 1) and halflife_s seconds; then x's jump joins the
 * scale and x the level. A value that is not finite gets 1 and changes nothing. */
double nld_jump_step(nld_jump_t *j, double x, int64_t ts_usec, double f, double halflife_s);

#endif
