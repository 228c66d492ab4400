/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_fmt.c — nl_write's format parser ("name=TYPE ...") on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl_fmt.h"
#include "fuzz_cstr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *fmt = fuzz_cstr(data, size);
    if (!fmt) return 0;
    nl_tmpl_t *t = NULL;
    if (nl__tmpl_parse(fmt, strlen(fmt), 0, &t) == 0) free(t);
    free(fmt);
    return 0;
}
