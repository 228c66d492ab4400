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

#endif
