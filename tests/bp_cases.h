/* SPDX-License-Identifier: BSD-3-Clause */
/* bp_cases.h — load the line-format conformance cases (bp-cases/valid, bp-cases/invalid)
 * so every consumer of the format can be checked against all of them, and the NetLogger
 * interoperability cases (bp-cases/netlogger/pegasus-netlogger.jsonl: lines and NetLogger's own reading). */
#ifndef NLKIT_BP_CASES_H
#define NLKIT_BP_CASES_H

#include <stddef.h>

#define BP_PAIRS_MAX 320

typedef struct bp_case {
    char name[64]; /* e.g. "valid/03" */
    char *line;    /* the .line file's content */
    size_t line_len;
    int npairs; /* valid cases: expected fields, in order */
    char *pname[BP_PAIRS_MAX];
    char *pvalue[BP_PAIRS_MAX];
    size_t pvalue_len[BP_PAIRS_MAX];
    char *why; /* invalid cases: the .why text */
    /* NetLogger cases: */
    int nlv_written; /* written by NetLogger's writer (else a hand-made edge case) */
    char *nlv_error; /* NetLogger's reader refused the line: its message (no pairs) */
} bp_case_t;

/* Load dir/valid (valid != 0) or dir/invalid, sorted by name. Returns the number of cases
 * (and *out, free with bp_cases_free) or -1 if the folder or a file is unreadable or a
 * .json file is malformed (reason printed). */
int bp_cases_load(const char *dir, int valid, bp_case_t **out);
void bp_cases_free(bp_case_t *c, int n);

/* Load a NetLogger cases file (one JSON object per line: source, line, netlogger_fields or
 * netlogger_error), in file order, named "nlv/NNN" by line number. Returns the number of
 * cases or -1 (reason printed). */
int bp_nlv_load(const char *path, bp_case_t **out);

/* Write value v (n bytes) at o the way NetLogger's writer does: in quotes when it is empty
 * or holds a space, tab, '=' or '"', with '"' as \" and every other byte as is. Returns
 * the bytes written (at most 2n + 2). */
size_t bp_nlv_write_value(char *o, const char *v, size_t n);

#endif
