/* SPDX-License-Identifier: BSD-3-Clause */
/* t_bank.h — the bank the detector's weighting tests (jump=, recur=, young=) run each
 * setting on: combine=default's core, cdf-hu over 2000 values, calibrated over 1000, and
 * nothing else on, so that a test turns on only the setting it measures; and the one
 * stream line their option tests parse. */
#ifndef NLKIT_TESTS_T_BANK_H
#define NLKIT_TESTS_T_BANK_H

#include <stdio.h>
#include <string.h>

#include "nl_test.h"
#include "nld.h"
#include "nld_algo.h"

static inline void t_bank_params(nld_params_t *p)
{
    nld_params_default(p);
    p->algos = 1u << 7; /* cdf-hu */
    p->n = 2000;
    p->calib = 1000;
}

/* "stream s event=m value=x WORDS" parsed into c, which this initialises (nld_cfg_free it
 * after): what nld_cfg_parse returns, its message in err. */
static inline int t_stream_words(nld_cfg_t *c, const char *words, char *err, size_t errlen)
{
    char text[256];
    nld_cfg_init(c);
    snprintf(text, sizeof text, "stream s event=m value=x %s\n", words);
    return nld_cfg_parse(c, text, "test", err, errlen);
}

/* One case of an option test: WORDS parsed into c; where ok is 0, fails unless they are
 * refused with a message naming `opt`, and returns 0 (c freed); else fails unless they are
 * accepted, and returns 1 with c to check (nld_cfg_free it after). */
static inline int t_words_case(nld_cfg_t *c, const char *words, int ok, const char *opt)
{
    char err[256] = "";
    int rc = t_stream_words(c, words, err, sizeof err);
    if (ok) {
        if (rc) fail_msg("%s: %s", words, err);
        return 1;
    }
    if (!rc) fail_msg("%s: accepted", words);
    if (!strstr(err, opt)) fail_msg("%s: the message does not name %s: %s", words, opt, err);
    nld_cfg_free(c);
    return 0;
}

#endif
