/* nl_test.h — helpers shared by the cmocka tests: temporary files, reading lines back. */
#ifndef NLKIT_NL_TEST_H
#define NLKIT_NL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* A fresh temporary directory for one test; returns its path (static storage per call). */
const char *t_tmpdir(void);
/* path = dir/name, in a static rotating buffer. */
const char *t_path(const char *dir, const char *name);
/* Whole file into a malloc'd NUL-terminated buffer (*len set); NULL if unreadable. */
char *t_slurp(const char *path, size_t *len);
/* Split text into lines in place; returns count, *lines malloc'd array of pointers. */
size_t t_lines(char *text, char ***lines);
/* Remove a directory tree made by t_tmpdir. */
void t_rmtree(const char *dir);
/* Sleep for ms milliseconds. */
void t_sleep_ms(int ms);
/* Deterministic pseudo-random numbers for reproducible tests. */
uint64_t t_rand(uint64_t *state);

#include "nlkit/nl_bp.h"

/* A log file read back: its lines, each checked to parse strictly. */
typedef struct t_readback {
    char *text;
    char **lines;
    size_t n;
    nl_rec_t rec;
} t_readback_t;

/* Read a log file back; fails the test if any line does not parse strictly. */
void t_rb_load(t_readback_t *rb, const char *path);
/* Parse line i into rb->rec and return it. */
nl_rec_t *t_rb_rec(t_readback_t *rb, size_t i);
void t_rb_free(t_readback_t *rb);
/* A field's value as a NUL-terminated string (rotating static buffers), or NULL. */
const char *t_field(nl_rec_t *r, const char *name);
/* A field's value as a double; fails the test if missing or not a number. */
double t_num(nl_rec_t *r, const char *name);

#endif
