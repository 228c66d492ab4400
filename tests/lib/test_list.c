/* SPDX-License-Identifier: BSD-3-Clause */
/* test_list.c — the intrusive lists of internal/nl_list.h against a plain array kept beside
 * them: random appends, ordered inserts and unlinks, then both directions walked and the
 * head and tail checked after every step. */
#include <stdint.h>
#include <string.h>

#include "nl_list.h"
#include "nl_test.h"

#define N 64

typedef struct el {
    struct el *prev, *next;
    int v, in;
} el_t;

typedef struct sq {
    struct sq *next;
    int v;
} sq_t;

/* The list, walked both ways, is exactly model[0..n). */
static void check(el_t *head, el_t *tail, el_t **model, int n)
{
    int i = 0;
    for (el_t *e = head; e; e = e->next, i++) {
        assert_true(i < n);
        assert_ptr_equal(e, model[i]);
        assert_ptr_equal(e->prev, i ? model[i - 1] : NULL);
    }
    assert_int_equal(i, n);
    for (el_t *e = tail; e; e = e->prev) assert_ptr_equal(e, model[--i]);
    assert_int_equal(i, 0);
    assert_ptr_equal(head, n ? model[0] : NULL);
    assert_ptr_equal(tail, n ? model[n - 1] : NULL);
}

static void test_first_append_and_last_unlink(void **state)
{
    (void)state;
    el_t a = {0}, b = {0};
    el_t *head = NULL, *tail = NULL;
    NL__DL_APPEND(head, tail, &a);
    assert_ptr_equal(head, &a);
    assert_ptr_equal(tail, &a);
    NL__DL_APPEND(head, tail, &b);
    NL__DL_UNLINK(head, tail, &b);
    assert_ptr_equal(tail, &a);
    assert_null(b.prev);
    assert_null(b.next);
    NL__DL_UNLINK(head, tail, &a);
    assert_null(head);
    assert_null(tail);
    NL__DL_INSERT_AFTER(head, tail, (el_t *)NULL, &b); /* into an empty list */
    assert_ptr_equal(head, &b);
    assert_ptr_equal(tail, &b);
}

static void test_random_operations_match_an_array(void **state)
{
    (void)state;
    el_t els[N];
    el_t *model[N];
    int n = 0;
    memset(els, 0, sizeof els);
    el_t *head = NULL, *tail = NULL;
    uint64_t seed = 48;
    for (int step = 0; step < 20000; step++) {
        el_t *e = &els[t_rand(&seed) % N];
        if (e->in) {
            int i = 0;
            while (model[i] != e) i++;
            NL__DL_UNLINK(head, tail, e);
            memmove(model + i, model + i + 1, (size_t)(n - i - 1) * sizeof *model);
            n--;
            e->in = 0;
            assert_null(e->prev);
            assert_null(e->next);
        } else if (t_rand(&seed) & 1) {
            NL__DL_APPEND(head, tail, e);
            model[n++] = e;
            e->in = 1;
        } else { /* after a random place, or first */
            int at = (int)(t_rand(&seed) % (uint64_t)(n + 1)) - 1;
            el_t *after = at >= 0 ? model[at] : NULL;
            NL__DL_INSERT_AFTER(head, tail, after, e);
            int pos = at + 1; /* e's index in the model */
            memmove(&model[pos + 1], &model[pos], (size_t)(n - pos) * sizeof *model);
            model[pos] = e;
            n++;
            e->in = 1;
        }
        check(head, tail, model, n);
    }
}

static void test_queue_appends_in_order(void **state)
{
    (void)state;
    sq_t q[5];
    sq_t *head = NULL, *tail = NULL;
    for (int i = 0; i < 5; i++) {
        q[i].next = &q[0]; /* stale: append must clear it */
        q[i].v = i;
        NL__SQ_APPEND(head, tail, &q[i]);
        assert_ptr_equal(tail, &q[i]);
    }
    int i = 0;
    for (sq_t *e = head; e; e = e->next) assert_int_equal(e->v, i++);
    assert_int_equal(i, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_append_and_last_unlink),
        cmocka_unit_test(test_random_operations_match_an_array),
        cmocka_unit_test(test_queue_appends_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
