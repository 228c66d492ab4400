/* SPDX-License-Identifier: BSD-3-Clause */
/* nld_seed_db.h — nl-detect's history.from=db / baseline.from=db: past values of a stream's
 * key read from the archive nl-load keeps, SQLite or PostgreSQL, through the loader's
 * archive layer (summaries only: the value must be a summary column or a derived rate, and
 * the key at most `host`). Linked into the nl-detect program only, so the engine library
 * stays free of the archive and its databases. */
#ifndef NLKIT_NLD_SEED_DB_H
#define NLKIT_NLD_SEED_DB_H

#include <stddef.h>

#include "nld.h"

typedef struct nld_seed_db nld_seed_db_t;

/* Open the archive read-only and check that every definition that asks for past values
 * can be answered from it. NULL with a message in err otherwise. */
nld_seed_db_t *nld_seed_db_open(const nld_cfg_t *cfg, const char *path, char *err, size_t errlen);
/* The nld_seed_fn to put in nld_opts_t, with the handle as its ctx. Read errors are
 * reported on stderr (the first few) and returned. */
int nld_seed_db(void *ctx, const nld_sel_t *sel, const nl_rec_t *r, uint32_t limit, int64_t since,
                int64_t until, void (*add)(void *add_ctx, double x, int64_t ts_usec),
                void *add_ctx);
void nld_seed_db_close(nld_seed_db_t *s);

#endif
