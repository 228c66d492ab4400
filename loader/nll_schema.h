/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_schema.h — private: the schema steps in schemas/NNN-*.sql, compiled in by CMake
 * (nll_schema_steps.c is generated from those files, so they are the one source). */
#ifndef NLKIT_NLL_SCHEMA_H
#define NLKIT_NLL_SCHEMA_H

typedef struct nll_step {
    int version;      /* NNN of the file name: 1, 2, ... in order, no gaps */
    const char *name; /* the file name, recorded in nl_schema */
    const char *sql;  /* its text */
} nll_step_t;

extern const nll_step_t nll__steps[];
extern const int nll__nsteps;
/* PostgreSQL's (schemas/pg/): the same versions, from the first PostgreSQL one. */
extern const nll_step_t nll__pg_steps[];
extern const int nll__pg_nsteps;

#endif
