/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_detect_cfg.c — nl-detect's configuration language (streams, missing rules,
 * subscriptions, set; and the alert layer's receivers, routes, silences) on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nla.h"
#include "nld_config.h"
#include "fuzz_cstr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    if (!s) return 0;
    nld_cfg_t c;
    nld_cfg_init(&c);
    char err[512];
    nld_cfg_parse(&c, s, "fuzz", err, sizeof err);
    nld_cfg_free(&c);
    nla_cfg_t a;
    nla_cfg_init(&a);
    nla_cfg_parse(&a, s, "fuzz", err, sizeof err);
    nla_cfg_notify(&a, "w", "http://127.0.0.1:1/", err, sizeof err);
    nla_cfg_free(&a);
    free(s);
    return 0;
}
