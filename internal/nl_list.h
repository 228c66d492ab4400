/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_list.h — internal: intrusive lists, written once for every part (which parts use
 * them: internal/README.md). The element carries its own links (members named `prev` and
 * `next`); the list is a head and a tail pointer held by the owner, NULL when empty; the
 * first element's prev and the last one's next are NULL, so `for (e = head; e; e = e->next)`
 * walks it. No sentinel: owners keep plain pointers they can test and read, as before.
 *
 * Statement macros, generic over the element type, in the spirit of libuv's queue.h and
 * BSD's sys/queue.h. Every argument is an lvalue named once at the call (no side effects:
 * the macros evaluate them more than once). */
#ifndef NLKIT_NL_LIST_H
#define NLKIT_NL_LIST_H

#include <stddef.h>

/* Doubly linked: put `e` at the tail (the singly linked append, below, with its prev). */
#define NL__DL_APPEND(head, tail, e)                                                         \
    do {                                                                                     \
        (e)->prev = (tail);                                                                  \
        NL__SQ_APPEND(head, tail, e);                                                        \
    } while (0)

/* Doubly linked: put `e` right after `after`, or first when `after` is NULL. */
#define NL__DL_INSERT_AFTER(head, tail, after, e)                                            \
    do {                                                                                     \
        (e)->prev = (after);                                                                 \
        (e)->next = (after) ? (after)->next : (head);                                        \
        if ((e)->next)                                                                       \
            (e)->next->prev = (e);                                                           \
        else                                                                                 \
            (tail) = (e);                                                                    \
        if (after)                                                                           \
            (after)->next = (e);                                                             \
        else                                                                                 \
            (head) = (e);                                                                    \
    } while (0)

/* Doubly linked: take `e` out (it must be in this list); its links are cleared. */
#define NL__DL_UNLINK(head, tail, e)                                                         \
    do {                                                                                     \
        if ((e)->prev)                                                                       \
            (e)->prev->next = (e)->next;                                                     \
        else                                                                                 \
            (head) = (e)->next;                                                              \
        if ((e)->next)                                                                       \
            (e)->next->prev = (e)->prev;                                                     \
        else                                                                                 \
            (tail) = (e)->prev;                                                              \
        (e)->prev = (e)->next = NULL;                                                        \
    } while (0)

/* Singly linked with a tail pointer (a FIFO queue: members named `next` only): put `e` at
 * the tail. */
#define NL__SQ_APPEND(head, tail, e)                                                         \
    do {                                                                                     \
        (e)->next = NULL;                                                                    \
        if (tail)                                                                            \
            (tail)->next = (e);                                                              \
        else                                                                                 \
            (head) = (e);                                                                    \
        (tail) = (e);                                                                        \
    } while (0)

#endif
