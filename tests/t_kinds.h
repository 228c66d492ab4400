/* SPDX-License-Identifier: BSD-3-Clause */
/* t_kinds.h — generated anomaly-free series of the kinds real metrics are, for judging a
 * false-alarm budget (tests/detector/test_calib.c) and the false-report floor
 * (tests/detector/test_detect.c, bench/quiet.c). Header-only; the caller gives the uniform
 * generator, so each keeps its own reproducible stream of numbers. */
#ifndef NLKIT_T_KINDS_H
#define NLKIT_T_KINDS_H

#include <math.h>
#include <stdint.h>

/* a uniform number strictly inside (0, 1), from a state the caller keeps */
typedef double (*t_kinds_unit_fn)(uint64_t *state);

static inline double t_kinds_normal(t_kinds_unit_fn unit, uint64_t *rs)
{
    double u = unit(rs), v = unit(rs);
    return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * 3.14159265358979323846 * v);
}

static inline double t_kinds_poisson(t_kinds_unit_fn unit, uint64_t *rs, double lambda)
{
    double l = exp(-lambda), p = 1;
    int k = 0;
    do {
        k++;
        p *= unit(rs);
    } while (p > l);
    return k - 1;
}

/* Student's t with 3 degrees of freedom, centred on 100, scale 5: heavy tails */
static inline double t_kinds_heavy(t_kinds_unit_fn unit, uint64_t *rs)
{
    double c = 0;
    for (int j = 0; j < 3; j++) {
        double z = t_kinds_normal(unit, rs);
        c += z * z;
    }
    return 100 + 5 * t_kinds_normal(unit, rs) / sqrt(c / 3);
}

/* message counts: mostly a few, now and then (3% of rows) a burst of tens */
static inline double t_kinds_bursty(t_kinds_unit_fn unit, uint64_t *rs)
{
    return t_kinds_poisson(unit, rs, unit(rs) < 0.03 ? 25 : 2);
}

/* a utilisation in [0, 1] with 2 decimals that sits still for hours: a walk pulled to 0.4
 * that moves on a tenth of the rows; *state is its level (start at 0) */
static inline double t_kinds_quantised(t_kinds_unit_fn unit, uint64_t *rs, double *state)
{
    if (unit(rs) < 0.1) *state += 0.02 * t_kinds_normal(unit, rs) - 0.05 * (*state - 0.4);
    return round(fmin(1, fmax(0, *state)) * 100) / 100;
}

#define T_KINDS_PHASE_H (7 + 13.0 / 60) /* the daily cycles' phase: not the clock's hour */
#define T_KINDS_PI 3.14159265358979323846

/* white noise around 100, sd 5 */
static inline double t_kinds_noise(t_kinds_unit_fn unit, uint64_t *rs)
{
    return 100 + 5 * t_kinds_normal(unit, rs);
}

/* a daily cycle of amplitude 50 around 100 whose peak is not at the clock's hour:
 * hours_utc is the row's time of day in hours */
static inline double t_kinds_cycle(t_kinds_unit_fn unit, uint64_t *rs, double hours_utc)
{
    double h = fmod(hours_utc + T_KINDS_PHASE_H, 24);
    return 100 + 50 * sin(2 * T_KINDS_PI * h / 24) + 3 * t_kinds_normal(unit, rs);
}

/* a latency: log-normal around a daily cycle, its spread growing with its level */
static inline double t_kinds_logcycle(t_kinds_unit_fn unit, uint64_t *rs, double hours_utc)
{
    double h = fmod(hours_utc + T_KINDS_PHASE_H, 24);
    return exp(3 + sin(2 * T_KINDS_PI * h / 24) + 0.3 * t_kinds_normal(unit, rs));
}

/* a utilisation near 0.2 with a brief spike to 0.5-0.8 once in per_day rows on average,
 * at any time of day */
static inline double t_kinds_spike(t_kinds_unit_fn unit, uint64_t *rs, double per_day)
{
    double x = 0.2 + 0.02 * t_kinds_normal(unit, rs);
    if (unit(rs) < 1 / per_day) x += 0.5 + 0.3 * unit(rs);
    return x;
}

#endif
