/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_words.h — internal: the tools' configuration texts (nl-detect's directives, its alert
 * routes and silences files): read a text file whole, split it into lines of words, and the
 * small helpers every directive parser needs (where an error is, names, strings, arrays). */
#ifndef NLKIT_NL_WORDS_H
#define NLKIT_NL_WORDS_H

#include <stdarg.h>
#include <stddef.h>

#define NL_WORDS_MAX 64 /* words on one line */

typedef struct nl__word {
    char *s; /* NUL-terminated, inside the line's copy */
    int col; /* 1-based byte column in the line */
} nl__word_t;

/* Called for each line that has words; a nonzero return stops the walk and is returned. */
typedef int (*nl_words_fn)(void *ctx, long line, nl__word_t *w, int n);

/* Split `text` into lines and each line into words separated by blanks (space, tab, CR);
 * '#' starts a comment to the end of the line; lines without words are skipped. Returns 0,
 * fn's first nonzero return, NL_ENOMEM, or NL_EINVAL for a line of more than NL_WORDS_MAX
 * words (its number and column in *bad_line, *bad_col). */
int nl__words_each(const char *text, nl_words_fn fn, void *ctx, long *bad_line, int *bad_col);

/* Read a whole text file of at most `max` bytes into a NUL-terminated heap copy; it must be
 * a regular file, opened without waiting (nl__open_regular: a FIFO is refused, not waited
 * for). Returns 0, or NL_EIO / NL_ETOOBIG / NL_EINVAL (not a regular file; a NUL byte: not
 * text) / NL_ENOMEM with "PATH: why" in err. */
int nl__read_text(const char *path, size_t max, char **text, char *err, size_t errlen);

/* A configuration error message "SRC:LINE:COL: ..." into err; returns NL_EINVAL. */
int nl__cfg_vfail(char *err, size_t errlen, const char *src, long line, int col, const char *fmt,
                  va_list ap);

/* Where a configuration parser stands, so every message says where the problem is: the
 * source's name (a path, "command line"), the line being read, the caller's error buffer. */
typedef struct nl__cfg_at {
    const char *src;
    long line;
    char *err;
    size_t errlen;
} nl__cfg_at_t;

/* "SRC:LINE:COL: ..." into at's error buffer; returns NL_EINVAL, for `return nl__cfg_fail(..)`. */
int nl__cfg_fail(const nl__cfg_at_t *at, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Called for each line with words, at->line set to its number; nonzero stops the walk. */
typedef int (*nl__cfg_line_fn)(void *ctx, nl__word_t *w, int n);

/* nl__words_each over `text` with at->line kept current; a line of too many words is an
 * error at its line and column ("more than NL_WORDS_MAX words"). Returns 0, fn's first
 * nonzero return, NL_EINVAL or NL_ENOMEM. */
int nl__cfg_each(const char *text, nl__cfg_at_t *at, nl__cfg_line_fn fn, void *ctx);

/* A configuration parser's "parse this text" entry, over its own configuration `obj`. */
typedef int (*nl__cfg_parse_fn)(void *obj, const char *text, const char *src, char *err,
                                size_t errlen);

/* Read the file at `path` (16 MiB at the most) and parse it with `parse`, the path as its
 * source name. Returns nl__read_text's error or parse's return. */
int nl__cfg_load(const char *path, nl__cfg_parse_fn parse, void *obj, char *err, size_t errlen);

/* Replace *dst by a copy of v (the old one freed); 0 or NL_ENOMEM. */
int nl__cfg_set_str(char **dst, const char *v);

/* Whether s is a name: 1 to max characters of letters, digits, '_', '.' and '-'. */
int nl__cfg_name_ok(const char *s, size_t max);

/* A comma-separated list of names (`v`, "host,path") into names[0..*n), the old ones freed
 * first: at most `max`, each a name of at most `name_max` characters (nl__cfg_name_ok).
 * 0, NL_ENOMEM, or NL_EINVAL at column `col`: "at most MAX MANY" or "bad ONE 'NAME'". */
int nl__cfg_names(const nl__cfg_at_t *at, int col, const char *v, char **names, int *n, int max,
                  size_t name_max, const char *many, const char *one);

/* Make room for element n (zeroed) of a growing array of definitions; NL_EINVAL when n
 * reaches max, NL_ENOMEM. */
int nl__cfg_grow(void **arr, int n, size_t size, int max);

#endif
