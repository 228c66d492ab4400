/* SPDX-License-Identifier: BSD-3-Clause */
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
/* In a new mount namespace of this process (call it in a forked child), mount an empty
 * read-only tmpfs on dir. 0, or -1 where that is not allowed (not root, or a container
 * without CAP_SYS_ADMIN): the caller skips, saying so. */
int t_readonly_mount(const char *dir);
/* The same, a writable tmpfs of `size` bytes (a filesystem that fills up). */
int t_small_mount(const char *dir, long size);
/* What this process writes on standard error while f(arg) runs (malloc'd; "" for
 * nothing): fd 2 goes to a temporary file meanwhile. */
char *t_stderr_of(void (*f)(void *), void *arg);
/* nl_open(url) into log, for t_stderr_of: what opening a log says on standard error. */
typedef struct t_opened {
    const char *url;
    struct nl_log *log;
} t_opened_t;
void t_open_into(void *arg);
/* Sleep for ms milliseconds. */
void t_sleep_ms(int ms);
/* Seconds on the monotonic clock, for "it happened within" checks. */
double t_now_s(void);
/* CLOCK_MONOTONIC in nanoseconds, for comparing with what the library's clocks read. */
int64_t t_mono_ns(void);
/* Deterministic pseudo-random numbers for reproducible tests. */
uint64_t t_rand(uint64_t *state);
/* The next of them as a double strictly inside (0, 1) (53 bits, centred in its step). */
double t_unit(uint64_t *state);

#include <sys/types.h>

/* A program run by a test: where its standard streams go, and hostile conditions. */
typedef struct t_child {
    const char *in, *out, *err; /* files (NULL: /dev/null); out/err are truncated */
    long fsize_limit;           /* RLIMIT_FSIZE in bytes (a full disk), or 0 */
    int as_nobody;              /* drop root to uid/gid 65534 first */
    int stdin_pipe;             /* give it a pipe as stdin; *pipe_fd receives the write end */
    int *pipe_fd;
} t_child_t;
/* Start prog with the NULL-terminated args; fails the test if it cannot fork. */
pid_t t_spawn(const char *prog, const t_child_t *c, const char *const *args);
/* Wait for it; fails the test unless it exited (not killed). Its exit status. */
int t_wait(pid_t pid);
/* t_spawn then t_wait. */
int t_run(const char *prog, const t_child_t *c, const char *const *args);

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
