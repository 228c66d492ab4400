/* SPDX-License-Identifier: BSD-3-Clause */
/* t_bank.h — the bank the detector's weighting tests (jump=, recur=, young=) run each
 * setting on: combine=default's core, cdf-hu over 2000 values, calibrated over 1000, and
 * nothing else on, so that a test turns on only the setting it measures. */
#ifndef NLKIT_TESTS_T_BANK_H
#define NLKIT_TESTS_T_BANK_H

#include "nld_algo.h"

static inline void t_bank_params(nld_params_t *p)
{
    nld_params_default(p);
    p->algos = 1u << 7; /* cdf-hu */
    p->n = 2000;
    p->calib = 1000;
}

#endif
