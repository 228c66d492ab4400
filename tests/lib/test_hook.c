/* SPDX-License-Identifier: BSD-3-Clause */
/* test_hook.c — the door between the core and the layer above it (libnl/nl_hook.h), with a
 * recording hook in place of the summarizer: the core calls every procedure at its point
 * (each event before its line is built, ticks from nl_flush, the flusher and nl_close, the
 * counters in nl_stats, the three fork handlers, free last), obeys the event verdicts, and
 * lets a layer write its own lines past the level threshold. A log has one hook: a second
 * layer is refused, and the same one asking again gets the same ctx. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nl_hook.h"
#include "nl_test.h"

typedef struct rec {
    _Atomic int events, ticks, partial_ticks, final_ticks, checks, stats, prepare, parent, child;
    _Atomic int freed;
    _Atomic int verdict; /* what event() answers */
    char last_event[64];
    char last_guid[NL_GUID_LEN + 1];
    int last_nfields;
    _Atomic int due_soon; /* next_due answers "in 20 ms" */
} rec_t;

static rec_t *g_freed; /* the record whose free() ran: free is the log's last call */

static int r_event(void *ctx, const char *event, int level, const nl_tmpl_t *t,
                   const nl_arg_t *args, const char *guid)
{
    (void)args;
    (void)level;
    rec_t *r = ctx;
    atomic_fetch_add(&r->events, 1);
    snprintf(r->last_event, sizeof r->last_event, "%s", event);
    snprintf(r->last_guid, sizeof r->last_guid, "%s", guid);
    r->last_nfields = t->n;
    return atomic_load(&r->verdict);
}
static void r_tick(void *ctx, int partial, int final)
{
    rec_t *r = ctx;
    atomic_fetch_add(&r->ticks, 1);
    if (partial) atomic_fetch_add(&r->partial_ticks, 1);
    if (final) atomic_fetch_add(&r->final_ticks, 1);
}
static int r_next_due(void *ctx, struct timespec *due)
{
    rec_t *r = ctx;
    if (!atomic_load(&r->due_soon)) return 0;
    clock_gettime(CLOCK_MONOTONIC, due);
    due->tv_nsec += 20000000L;
    if (due->tv_nsec >= 1000000000L) due->tv_sec++, due->tv_nsec -= 1000000000L;
    return 1;
}
static void r_check(void *ctx) { atomic_fetch_add(&((rec_t *)ctx)->checks, 1); }
static void r_stats(void *ctx, nl_stats_t *st)
{
    rec_t *r = ctx;
    atomic_fetch_add(&r->stats, 1);
    st->folded = 11, st->summaries = 12, st->overflow = 13, st->orphans = 14, st->evicted = 15;
}
static void r_prepare(void *ctx) { atomic_fetch_add(&((rec_t *)ctx)->prepare, 1); }
static void r_parent(void *ctx) { atomic_fetch_add(&((rec_t *)ctx)->parent, 1); }
static void r_child(void *ctx) { atomic_fetch_add(&((rec_t *)ctx)->child, 1); }
static void r_free(void *ctx)
{
    atomic_fetch_add(&((rec_t *)ctx)->freed, 1);
    g_freed = ctx;
}

static const nl_hook_ops_t rec_ops = {r_event,   r_tick,   r_next_due, r_check, r_stats,
                                      r_prepare, r_parent, r_child,    r_free};
static const nl_hook_ops_t other_ops = {r_event,   r_tick,   r_next_due, r_check, r_stats,
                                        r_prepare, r_parent, r_child,    r_free};

static rec_t *g_make_into; /* the record make() hands out */
static _Atomic int g_makes;
static int make(nl_log_t *log, void **ctx)
{
    (void)log;
    atomic_fetch_add(&g_makes, 1);
    *ctx = g_make_into;
    return 0;
}
static int make_fails(nl_log_t *log, void **ctx)
{
    (void)log, (void)ctx;
    return NL_ENOMEM;
}

/* The core's log (no summarizer: nl__log_open) with a recording hook; lines go to path. */
static nl_log_t *open_hooked(const char *path, rec_t *r)
{
    char url[512];
    snprintf(url, sizeof url, "file://%s?flush=20", path);
    int err;
    nl_log_t *log = nl__log_open(url, &err);
    assert_non_null(log);
    memset(r, 0, sizeof *r);
    g_make_into = r;
    int rc = -1;
    assert_ptr_equal(nl__hook_attach(log, &rec_ops, make, &rc), r);
    assert_int_equal(rc, 0);
    return log;
}

static size_t count_event(const char *path, const char *event)
{
    t_readback_t rb;
    t_rb_load(&rb, path);
    size_t n = 0;
    for (size_t i = 0; i < rb.n; i++)
        if (!strcmp(t_field(t_rb_rec(&rb, i), "event"), event)) n++;
    t_rb_free(&rb);
    return n;
}

/* Every event reaches the hook first, with its template and the log's GUID; the verdict
 * decides whether its line is written, and "suppress" counts as filtered. */
static void test_event_verdicts(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "hook.log");
    rec_t r;
    nl_log_t *log = open_hooked(path, &r);
    assert_int_equal(nl_write(log, "a.start", "x=i y=s", 1, "z"), 0);
    assert_int_equal(atomic_load(&r.events), 1);
    assert_string_equal(r.last_event, "a.start");
    assert_string_equal(r.last_guid, nl_guid(log));
    assert_int_equal(r.last_nfields, 2);
    atomic_store(&r.verdict, NL_HOOK_FOLDED);
    assert_int_equal(nl_write(log, "a.folded", "x=i", 2), 0);
    atomic_store(&r.verdict, NL_HOOK_SUPPRESS);
    assert_int_equal(nl_write(log, "a.off", "x=i", 3), 0);
    atomic_store(&r.verdict, NL_HOOK_WRITE);
    nl_set_level(log, NL_LVL_WARN);
    assert_int_equal(nl_write(log, "a.below", "x=i", 4), 0); /* below the level: no hook call */
    assert_int_equal(atomic_load(&r.events), 3);
    nl_stats_t st;
    assert_int_equal(nl_stats(log, &st), 0);
    assert_int_equal(st.filtered, 2); /* a.off and a.below */
    assert_int_equal(st.folded, 11);  /* the hook's counters, as it filled them */
    assert_int_equal(st.evicted, 15);
    nl_close(log);
    assert_int_equal(count_event(path, "a.start"), 1);
    assert_int_equal(count_event(path, "a.folded"), 0);
    assert_int_equal(count_event(path, "a.off"), 0);
    assert_int_equal(count_event(path, "a.below"), 0);
    t_rmtree(dir);
}

/* nl_flush asks for the partial work, the flusher for what is due (and a config check),
 * nl_close for everything, then frees the hook, once. */
static void test_ticks_and_free(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "hook.log");
    rec_t r;
    nl_log_t *log = open_hooked(path, &r);
    nl_flush(log);
    assert_int_equal(atomic_load(&r.partial_ticks), 1);
    assert_int_equal(atomic_load(&r.final_ticks), 0);
    for (int i = 0; i < 200 && atomic_load(&r.checks) < 2; i++) t_sleep_ms(10);
    assert_true(atomic_load(&r.checks) >= 2); /* the flusher (every 20 ms) */
    assert_true(atomic_load(&r.ticks) >= 3);
    g_freed = NULL;
    nl_close(log);
    assert_int_equal(atomic_load(&r.final_ticks), 1);
    assert_int_equal(atomic_load(&r.freed), 1);
    assert_ptr_equal(g_freed, &r);
    t_rmtree(dir);
}

/* The flusher wakes when the hook's next due time comes before its own period. */
static void test_next_due_wakes_flusher(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "hook.log");
    char url[512];
    snprintf(url, sizeof url, "file://%s?flush=5000", path);
    int err;
    nl_log_t *log = nl__log_open(url, &err);
    assert_non_null(log);
    rec_t r;
    memset(&r, 0, sizeof r);
    atomic_store(&r.due_soon, 1);
    g_make_into = &r;
    int rc;
    assert_ptr_equal(nl__hook_attach(log, &rec_ops, make, &rc), &r); /* wakes the flusher */
    double t0 = t_now_s();
    while (atomic_load(&r.ticks) < 5 && t_now_s() - t0 < 4) t_sleep_ms(5);
    /* five ticks well inside one 5 s flush period: the flusher followed next_due */
    assert_true(atomic_load(&r.ticks) >= 5);
    nl_close(log);
    t_rmtree(dir);
}

/* One hook per log: the same layer gets its ctx back without a second make; another layer
 * is refused; a make that fails leaves no hook. nl__log_emit writes past the level. */
static void test_one_hook_and_emit(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "hook.log");
    char url[512];
    snprintf(url, sizeof url, "file://%s", path);
    int err, rc = -1;
    nl_log_t *log = nl__log_open(url, &err);
    assert_non_null(log);
    assert_null(nl__hook_attach(log, &rec_ops, NULL, &rc)); /* no make: only looks */
    assert_int_equal(rc, 0);
    assert_null(nl__hook_attach(log, &rec_ops, make_fails, &rc));
    assert_int_equal(rc, NL_ENOMEM);
    assert_int_equal(nl_write(log, "plain", "x=i", 1), 0); /* no hook: written */
    rec_t r;
    memset(&r, 0, sizeof r);
    g_make_into = &r;
    atomic_store(&g_makes, 0);
    assert_ptr_equal(nl__hook_attach(log, &rec_ops, make, &rc), &r);
    assert_ptr_equal(nl__hook_attach(log, &rec_ops, make, &rc), &r);
    assert_int_equal(atomic_load(&g_makes), 1);
    assert_null(nl__hook_attach(log, &other_ops, make, &rc));
    assert_int_equal(rc, NL_EINVAL);
    assert_int_equal(atomic_load(&g_makes), 1);

    nl_set_level(log, NL_LVL_ERROR);
    nl_const_set(log, "site", "lbl");
    char stack[256];
    nl_buf_t b;
    nl_buf_init(&b, stack, sizeof stack);
    const nl_head_t *h = nl__log_head(log);
    assert_int_equal(h->nconst, 1);
    nl_enc_begin(&b, nl_now_usec(), "own.line", NL_LVL_INFO, h->guid);
    nl__put(&b, h->enc, h->coff[h->nconst]);
    nl__log_emit(log, &b, NL_LVL_INFO); /* Info, below Error: written all the same */
    nl_buf_free(&b);
    nl_close(log);
    t_readback_t rb;
    t_rb_load(&rb, path);
    assert_int_equal(rb.n, 2);
    nl_rec_t *own = t_rb_rec(&rb, 1);
    assert_string_equal(t_field(own, "event"), "own.line");
    assert_string_equal(t_field(own, "site"), "lbl");
    assert_int_equal(atomic_load(&r.events), 0); /* the layer's own line skips the hook */
    t_rb_free(&rb);
    t_rmtree(dir);
}

/* fork(): prepare before; after it, the parent's handler in the parent and the child's in
 * the child, each once (the child's releases the hook's locks itself: releasing them a
 * second time would be undefined). */
static void test_fork_handlers(void **state)
{
    (void)state;
    const char *dir = t_tmpdir(), *path = t_path(dir, "hook.log");
    rec_t r;
    nl_log_t *log = open_hooked(path, &r);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) /* the record is this process's copy */
        _exit(atomic_load(&r.prepare) == 1 && atomic_load(&r.child) == 1 &&
                      atomic_load(&r.parent) == 0
                  ? 0
                  : 1);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(atomic_load(&r.prepare), 1);
    assert_int_equal(atomic_load(&r.parent), 1);
    assert_int_equal(atomic_load(&r.child), 0);
    nl_close(log);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_verdicts),         cmocka_unit_test(test_ticks_and_free),
        cmocka_unit_test(test_next_due_wakes_flusher), cmocka_unit_test(test_one_hook_and_emit),
        cmocka_unit_test(test_fork_handlers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
