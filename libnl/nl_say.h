/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_say.h — private: a mistake said on standard error, where the operator who just typed
 * it is looking. A line in the log alone was missed whenever the log went to a file or a
 * collector (NL_SUMMARY='request=sumary:1' logged in full, and the terminal said nothing). */
#ifndef NLKIT_NL_SAY_H
#define NLKIT_NL_SAY_H

/* Say "nlkit: " and the formatted text, and a newline, on standard error, once per process
 * for the same text: every log a program opens reads the same variables, and a program
 * that retries nl_open, or a rules file re-read every second, must not repeat it. Thread-
 * safe; errno is kept. Returns 1 if said now, 0 if said already. */
int nl__say_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
