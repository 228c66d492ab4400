/* SPDX-License-Identifier: BSD-3-Clause */
/* test_load_summarize.c — nl-load --summarize (issue 64): a service's lines written in full
 * and loaded with --summarize give the archive the same summaries as the library's own
 * summarizer gave the same events as they were written (an injected clock, ticks on the
 * boundaries, closed at the last event): every summary column, host and key field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nll.h"
#include "nll_load.h"
#include "nll_sql.h"
#include "nl_replay.h"
#include "nls.h"

#define RULES "request=summary:1:key=route;db.query=summary:1"
#define REQS 300
#define T0 1795348800000LL /* ms: 2026-11-22T12:00:00Z */

static _Atomic int64_t now_ns;
static int64_t clock_fn(void *arg)
{
    (void)arg;
    return now_ns;
}

typedef struct {
    int64_t t; /* ms after T0 */
    int i, what;
} sev_t;

static int by_time(const void *a, const void *b)
{
    const sev_t *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->i != y->i ? (x->i < y->i ? -1 : 1) : (x->what < y->what ? -1 : 1);
}

/* The service's events: request i from 7i ms, 5-12 ms long, its query inside it; every
 * seventh fails. */
static sev_t *schedule(void)
{
    sev_t *ev = calloc(4 * REQS, sizeof *ev);
    assert_non_null(ev);
    for (int i = 0; i < REQS; i++) {
        ev[4 * i] = (sev_t){7LL * i, i, 0};
        ev[4 * i + 1] = (sev_t){7LL * i + 1, i, 1};
        ev[4 * i + 2] = (sev_t){7LL * i + 2 + i % 3, i, 2};
        ev[4 * i + 3] = (sev_t){7LL * i + 5 + i % 8, i, 3};
    }
    qsort(ev, 4 * REQS, sizeof *ev, by_time);
    return ev;
}

static void guids(int i, char *g, char *c)
{
    snprintf(g, 40, "%08x-0000-4000-8000-%012x", 0xa0000000u, (unsigned)i);
    snprintf(c, 40, "%08x-0000-4000-8000-%012x", 0xc0000000u, (unsigned)i);
}

/* The library's summaries of the schedule, into path. */
static void library(const char *dir, const char *path)
{
    nl_log_t *log = nl_open(path);
    assert_non_null(log);
    nl_const_set(log, "host", "gw1");
    nl_const_set(log, "prog", "svc");
    nl_const_set(log, "pid", "42");
    const char *rules = t_path(dir, "rules");
    FILE *f = fopen(rules, "w");
    assert_non_null(f);
    fputs(RULES, f);
    fclose(f);
    now_ns = T0 * 1000000;
    assert_int_equal(nl__set_clock(log, clock_fn, NULL), 0);
    assert_int_equal(nl_summary_file(log, rules, NULL), 0);
    sev_t *ev = schedule();
    int64_t next = (T0 / 1000 + 1) * 1000; /* ms: the next whole second */
    for (int k = 0; k < 4 * REQS; k++) {
        int64_t t = T0 + ev[k].t;
        while (t >= next) {
            now_ns = next * 1000000;
            nl__summ_tick(log);
            next += 1000;
        }
        now_ns = t * 1000000;
        char g[40], c[40];
        int i = ev[k].i;
        guids(i, g, c);
        const char *route = i % 2 ? "/a" : "/b";
        switch (ev[k].what) {
        case 0: nl_write(log, "request.start", "guid=s route=s", g, route); break;
        case 1: nl_write(log, "db.query.start", "guid=s parent.guid=s", c, g); break;
        case 2: nl_write(log, "db.query.end", "guid=s parent.guid=s", c, g); break;
        default:
            nl_write(log, "request.end", "guid=s route=s status=i", g, route, i % 7 ? 200 : 503);
        }
    }
    free(ev);
    nl_close(log); /* at the last event's time: the running intervals, partial */
}

/* The same events written in full, as the library writes them, into path. */
static void full(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    sev_t *ev = schedule();
    for (int k = 0; k < 4 * REQS; k++) {
        char ts[NL_TS_LEN + 1], g[40], c[40];
        nl_ts_format((T0 + ev[k].t) * 1000, ts);
        int i = ev[k].i;
        guids(i, g, c);
        const char *route = i % 2 ? "/a" : "/b";
        const char *head = "level=Info";
        switch (ev[k].what) {
        case 0:
            fprintf(f, "ts=%s event=request.start %s guid=%s host=gw1 prog=svc pid=42 route=%s\n",
                    ts, head, g, route);
            break;
        case 1:
            fprintf(f,
                    "ts=%s event=db.query.start %s guid=%s host=gw1 prog=svc pid=42 "
                    "parent.guid=%s\n",
                    ts, head, c, g);
            break;
        case 2:
            fprintf(f,
                    "ts=%s event=db.query.end %s guid=%s host=gw1 prog=svc pid=42 "
                    "parent.guid=%s\n",
                    ts, head, c, g);
            break;
        default:
            fprintf(f,
                    "ts=%s event=request.end %s guid=%s host=gw1 prog=svc pid=42 route=%s "
                    "status=%d\n",
                    ts, head, g, route, i % 7 ? 200 : 503);
        }
    }
    free(ev);
    fclose(f);
}

/* Load path into db, with --summarize's rules or without. */
static void load(const char *db, const char *path, const char *summarize)
{
    nll_load_t ld = {
        .batch = 1000, .max_errors = 10, .quiet = 1, .db_path = db, .summarize = summarize};
    assert_int_equal(nll_load_open(&ld, 1000), 0);
    assert_int_equal(nll_load_path(&ld, path, 0), 0);
    assert_int_equal(ld.bad, 0);
    if (summarize) assert_int_equal(ld.folded, 4 * REQS); /* every pair's lines */
    nll_load_close(&ld);
}

/* The archive's summaries as text, one per line, sorted: every column but the ids and
 * the guid, and the route. */
static char *summaries(const char *db_path)
{
    nll_db_t *db;
    nll_err_t err;
    assert_int_equal(nll_db_open(db_path, NLL_OPEN_READ, 0, &db, &err), 0);
    nll_stmt_t *st;
    const char *sql =
        "SELECT s.ts, s.event, s.host, coalesce((SELECT value FROM value v WHERE v.event_id = "
        "s.event_id AND v.name = 'route'), '-'), s.n, s.err_n, s.dur_min, s.dur_max, "
        "s.dur_sum, s.dur_sd, s.dur_p50, s.dur_p99, s.span, s.open, s.interval, "
        "s.orphan_start, s.orphan_end, (SELECT group_concat(name || '=' || value, ' ') FROM "
        "value v WHERE v.event_id = s.event_id AND v.name LIKE 'res.%') FROM summary s "
        "ORDER BY 1, 2, 4";
    if (nll_sql_prepare(db, sql, &st, &err)) fail_msg("%s", err.msg);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    int rows = 0;
    while (nll_sql_step(st, &err) == 1) {
        for (int k = 0; k < 18; k++) {
            size_t vl = 4;
            const char *v =
                nll_sql_col_type(st, k) == NLL_T_NULL ? "NULL" : nll_sql_col_text(st, k, &vl);
            len +=
                (size_t)snprintf(out + len, cap - len, "%s%.*s", k ? " " : "", (int)vl, v ? v : "");
        }
        len += (size_t)snprintf(out + len, cap - len, "\n");
        assert_true(len < cap - 1024);
        rows++;
    }
    nll_sql_finalize(st);
    nll_db_close(db);
    assert_true(rows >= 4);
    return out;
}

static void test_same_summaries(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char lib_log[512], full_log[512], lib_db[512], full_db[512];
    snprintf(lib_log, sizeof lib_log, "%s", t_path(dir, "lib.log"));
    snprintf(full_log, sizeof full_log, "%s", t_path(dir, "full.log"));
    snprintf(lib_db, sizeof lib_db, "%s", t_path(dir, "lib.db"));
    snprintf(full_db, sizeof full_db, "%s", t_path(dir, "full.db"));
    library(dir, lib_log);
    full(full_log);
    load(lib_db, lib_log, NULL);
    load(full_db, full_log, RULES);
    char *a = summaries(lib_db), *b = summaries(full_db);
    if (strcmp(a, b)) fail_msg("the library's:\n%s\nnl-load --summarize's:\n%s", a, b);
    assert_non_null(strstr(a, "request.summary gw1 /a")); /* one per route and second */
    free(a);
    free(b);
    t_rmtree(dir);
}

/* Bad rules are refused with their place, before anything is read. */
static void test_rules_checked(void **state)
{
    (void)state;
    nl_perr_t pe = {0};
    assert_true(nl__replay_check("request=summary:1:key=", &pe) < 0);
    assert_int_equal(pe.col, 23);
    assert_int_equal(nl__replay_check(RULES, &pe), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_summaries),
        cmocka_unit_test(test_rules_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
