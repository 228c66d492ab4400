/* SPDX-License-Identifier: BSD-3-Clause */
/* summ_fixture.h — what the summarizer's tests share: a write-through log file on an
 * injected clock, the flusher's work run by hand, and the log read back. */
#ifndef NLKIT_SUMM_FIXTURE_H
#define NLKIT_SUMM_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "nl_test.h"
#include "nlkit/nl.h"

#define BASE 1000000000000000000LL /* a whole second, ~2001-09-09, on the injected clock */
#define MS(t) (BASE + (int64_t)(t)*1000000LL)

typedef struct {
    const char *dir;
    char path[256];
    nl_log_t *log;
} fixture_t;

/* The injected clock's time, ns (the flusher thread reads it too). */
extern _Atomic int64_t fake_now;
/* The injected clock (nl__set_clock): fake_now. */
int64_t fake_clock(void *arg);

/* Open a write-through log file with the injected clock at t = 0 ms. */
void open_log(fixture_t *f);
/* Set the injected clock to `ms` milliseconds after the start. */
void at(int64_t ms);
/* Lines of the log whose event is `event`, in order, into idx[]; returns the count. */
size_t find(t_readback_t *rb, const char *event, size_t *idx, size_t max);
/* The flusher's work at `ms`, then the log read back into rb. */
void tick_and_load(fixture_t *f, int64_t ms, t_readback_t *rb);
/* Close the log and remove its directory. */
void close_fixture(fixture_t *f);
/* Fail (naming the line) unless a and b agree to 1e-9, relative above 1. */
void near(double a, double b, int line);
#define NEAR(a, b) near((a), (double)(b), __LINE__)

#endif
