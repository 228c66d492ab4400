/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_rules.c — summarization rules (NL_SUMMARY, rules files) on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nls_rules.h"
#include "fuzz_cstr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    if (!s) return 0;
    nls_rules_t rs;
    nls_rules_init(&rs);
    nl_perr_t err;
    nls_rules_parse(&rs, s, &err);
    nls_rules_free(&rs);
    free(s);
    return 0;
}
