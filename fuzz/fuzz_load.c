/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_load.c — nl-load's line-to-rows path on any bytes, against an in-memory archive:
 * each input line is parsed and inserted (or rejected), read strictly and as NetLogger
 * reads it, inside a transaction that is then rolled back, so the database stays small and
 * every input starts alike. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nll.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static nll_db_t *db;
    static nll_rows_t *rows, *nlv_rows;
    nll_err_t err;
    if (!db) {
        if (nll_db_open(":memory:", NLL_OPEN_WRITE, 0, &db, &err) ||
            nll_rows_new(db, NL_PARSE_STRICT, &rows, &err) ||
            nll_rows_new(db, NL_PARSE_NETLOGGER, &nlv_rows, &err))
            abort();
    }
    if (nll_db_exec(db, "BEGIN", &err)) abort();
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    memcpy(text, data, size);
    long lineno = 0;
    for (size_t i = 0; i < size;) {
        const char *nl = memchr(text + i, '\n', size - i);
        size_t len = nl ? (size_t)(nl - (text + i)) : size - i;
        nl_perr_t perr;
        if (nll_rows_add(rows, text + i, len, ++lineno, &perr, &err) == NL_EIO ||
            nll_rows_add(nlv_rows, text + i, len, lineno, &perr, &err) == NL_EIO)
            break;
        i += len + 1;
    }
    nll_db_exec(db, "ROLLBACK", &err);
    free(text);
    return 0;
}
