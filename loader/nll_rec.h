/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_rec.h — private to the loader: the record nll_parse_line() appends to a batch and
 * nll_rows_store() inserts. Host byte order, read and written with memcpy (records are not
 * aligned); never leaves the process. */
#ifndef NLKIT_NLL_REC_H
#define NLKIT_NLL_REC_H

#include <stddef.h>
#include <stdint.h>

/* Where a field goes. */
enum {
    NLL_K_IDENT = 1,  /* *.id: ident, text */
    NLL_K_GUID,       /* guid: ident, and summary.guid of a summary */
    NLL_K_VALUE_INT,  /* value, integer */
    NLL_K_VALUE_REAL, /* value, real */
    NLL_K_VALUE_TEXT, /* value, text */
    NLL_K_SUM_INT,    /* a summary column (slot), integer */
    NLL_K_SUM_REAL,   /* a summary column (slot), real */
    NLL_K_SUM_HOST    /* summary.host */
};

/* Parameters of the summary insert before the typed columns: event_id, ts, event, host,
 * guid; typed column `slot` is parameter NLL_SUM_FIXED + 1 + slot. */
#define NLL_SUM_FIXED 5

/* A record: this header, the event name, the level, then nfields fields. */
typedef struct nll_rhdr {
    uint32_t total; /* bytes of the whole record */
    uint32_t nfields;
    double ts;      /* Unix seconds */
    int64_t status; /* if has_status */
    uint32_t event_len, level_len; /* up to NL_LINE_MAX each */
    uint8_t startend, summary, has_level, has_status;
    uint16_t untyped;   /* summary fields with a column whose value did not fit it (inf, nan,
                           text): kept in `value` as written, counted and reported */
    uint16_t unindexed; /* identity values longer than NLL_IDENT_MAX: kept in `value` */
    uint16_t recovered; /* --lenient/--netlogger: pieces of the line skipped or replaced
                           (junk, a duplicate name's earlier value), counted and reported */
    uint8_t ctl_escape; /* nlkit's reading decoded a \n, \t or \r escape into a value: what
                           NetLogger's writer means by a backslash and a letter (reported) */
} nll_rhdr_t;

/* A field: this header, the name, then an int64 / double (numeric kinds) or value_len
 * bytes of text. */
typedef struct nll_fhdr {
    uint8_t kind, slot;
    uint32_t name_len; /* NL_NAME_MAX, but lenient readings are bounded by the line only */
    uint32_t value_len;
} nll_fhdr_t;

/* The summary fields that have a column (nll_parse.c), slot order. */
typedef struct nll_typed {
    const char *field; /* e.g. "dur.sum" */
    size_t len;
    int integer;        /* an INTEGER column (else REAL) */
    const char *column; /* e.g. "dur_sum" ("int": "interval") */
} nll_typed_t;
extern const nll_typed_t nll__typed[];
extern const int nll__ntyped;

#endif
