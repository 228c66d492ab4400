/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_words.h — internal: the tools' configuration texts (nl-detect's directives, its alert
 * routes and silences files): read a text file whole, and split it into lines of words. */
#ifndef NLKIT_NL_WORDS_H
#define NLKIT_NL_WORDS_H

#include <stdarg.h>
#include <stddef.h>

#define NL_WORDS_MAX 64 /* words on one line */

typedef struct nl_word {
    char *s; /* NUL-terminated, inside the line's copy */
    int col; /* 1-based byte column in the line */
} nl_word_t;

/* Called for each line that has words; a nonzero return stops the walk and is returned. */
typedef int (*nl_words_fn)(void *ctx, long line, nl_word_t *w, int n);

/* Split `text` into lines and each line into words separated by blanks (space, tab, CR);
 * '#' starts a comment to the end of the line; lines without words are skipped. Returns 0,
 * fn's first nonzero return, NL_ENOMEM, or NL_EINVAL for a line of more than NL_WORDS_MAX
 * words (its number and column in *bad_line, *bad_col). */
int nl__words_each(const char *text, nl_words_fn fn, void *ctx, long *bad_line, int *bad_col);

/* Read a whole text file of at most `max` bytes into a NUL-terminated heap copy. Returns 0,
 * or NL_EIO / NL_ETOOBIG / NL_EINVAL (a NUL byte: not text) / NL_ENOMEM with
 * "PATH: why" in err. */
int nl__read_text(const char *path, size_t max, char **text, char *err, size_t errlen);

/* A configuration error message "SRC:LINE:COL: ..." into err; returns NL_EINVAL. */
int nl__cfg_vfail(char *err, size_t errlen, const char *src, long line, int col, const char *fmt,
                  va_list ap);

/* Make room for element n (zeroed) of a growing array of definitions; NL_EINVAL when n
 * reaches max, NL_ENOMEM. */
int nl__cfg_grow(void **arr, int n, size_t size, int max);

#endif
