/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_url.c — the destination URL parser (nl_open, NL_DEST) on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_url.h"
#include "fuzz_cstr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    if (!s) return 0;
    nl_url_t u;
    nl__url_parse(s, &u);
    free(s);
    return 0;
}
