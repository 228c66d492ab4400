/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_dline.h — private: the deferred consumer's line builder (nl_defer.c). It writes exactly
 * the bytes nl__log_build writes for the same event, clock reading, template and head, but
 * does once what a line's parts have in common with the previous lines of the same ring:
 *
 * - the timestamp's text up to the second ("ts=YYYY-MM-DDTHH:MM:SS."), kept while the
 *   second lasts; each line formats its microseconds only;
 * - a plan per (template, head, event name, level): the text " event=NAME level=LEVEL
 *   guid=" and the head's constants, rendered by the encoder's own code when the plan is
 *   made and copied whole after that; the fields' " name=" come from the template;
 * - a string's length, stored by the writer with its bytes, so no byte is measured twice;
 * - a guid field's last value (when written as it is) and an integer field's last value
 *   and text, compared and copied when they come again;
 * - integers eight digits a word; a line's room checked once, texts copied in fixed moves.
 *
 * Values (strings, numbers, times) are written by the encoder's own functions, so the slow
 * cases (escapes, doubles, NaN, huge and negative numbers) stay exact by construction.
 * A builder is one ring's, used under the ring's consumer lock: no locking of its own. */
#ifndef NLKIT_NL_DLINE_H
#define NLKIT_NL_DLINE_H

#include <stdint.h>

#include "nl_buf.h"
#include "nl_fmt.h"
#include "nl_head.h"

/* A string slot of a record that holds NULL (the others hold the string's length). */
#define NL__DLINE_NO_STR UINT64_MAX
#define NL__DLINE_PLANS 16 /* plans kept per ring: 8 sets of 2, by a hash of their key */

typedef struct nl__dplan nl__dplan_t;

typedef struct nl__dline {
    int64_t sec0;    /* the first microsecond of the cached second; -1: none */
    char ts[3 + 20]; /* "ts=YYYY-MM-DDTHH:MM:SS." of that second */
    nl__dplan_t *plan[NL__DLINE_PLANS];
} nl__dline_t;

/* An empty builder; nl__dline_free lets go of its plans. */
void nl__dline_init(nl__dline_t *c);
void nl__dline_free(nl__dline_t *c);

/* Append the event's line to b (as nl__log_build would, from an empty b): its time usec,
 * level, event name (a text that does not change while the log is open: a literal, or a
 * pair handle's), template t and head h; the arguments as the record keeps them (saved:
 * nl_write's argument slots, a string's holding its length or NL__DLINE_NO_STR; strs: the
 * strings' bytes, each with its NUL, in field order). Returns 0 with the line appended, or
 * 1 with b as it was, when it cannot plan this event (no memory) or the line may not fit
 * b's room (b is the consumer's batch, at most 16 KiB, so NL_LINE_MAX is never reached
 * here): the caller then builds the line the synchronous way, into an empty b. */
int nl__dline_build(nl__dline_t *c, nl_buf_t *b, int64_t usec, int level, const char *event,
                    nl_tmpl_t *t, const nl_arg_t *saved, const char *strs, const nl_head_t *h);

#endif
