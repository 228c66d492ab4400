/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_row_int.h — private: the PostgreSQL row writer (nll_row_pg.c) that nll_row.c hands a
 * PostgreSQL archive's records to. */
#ifndef NLKIT_NLL_ROW_INT_H
#define NLKIT_NLL_ROW_INT_H

#include "nll.h"

typedef struct nll_pgrows nll_pgrows_t;

int nll__pgrows_new(nll_db_t *db, nll_pgrows_t **out, nll_err_t *err);
void nll__pgrows_free(nll_pgrows_t *p);
/* Gather the record at *pos for COPY (and advance *pos). */
int nll__pgrows_store(nll_pgrows_t *p, const nll_batch_t *b, size_t *pos, nll_err_t *err);
/* Send what was gathered (partitions first); on failure nothing gathered is kept. */
int nll__pgrows_flush(nll_pgrows_t *p, nll_err_t *err);
/* Forget what was gathered (the transaction is rolled back). */
void nll__pgrows_discard(nll_pgrows_t *p);
/* Texts stored with \xHH for bytes the database cannot hold. */
uint64_t nll__pgrows_escaped(const nll_pgrows_t *p);

#endif
