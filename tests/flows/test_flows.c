/* SPDX-License-Identifier: BSD-3-Clause */
/* test_flows.c — the flow engine (../../flows) on hand-made lines: joining by trace id,
 * span, guid and parent.guid across hosts in any input order; orphans, open flows, clock
 * skew and shared guids counted; the odd flow named with the path that differs; Δa/Δn
 * reduced (a subtree to its shortest path) and merged (paths always together); the reference run; the memory bound. */
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nl_test.h"
#include "nlf.h"

typedef struct run {
    const char *dir, *out;
    nl_log_t *log;
    nlf_t *f;
    char *text;
} run_t;

static void run_start(run_t *r, const nlf_opts_t *o)
{
    r->dir = t_tmpdir();
    r->out = t_path(r->dir, "out.log");
    r->log = nl_open(r->out);
    assert_non_null(r->log);
    char err[128];
    r->f = nlf_new(o, r->log, err, sizeof err);
    assert_non_null(r->f);
}

/* End the input; the report's text (freed by run_free). */
static const char *run_end(run_t *r)
{
    nlf_end_phase(r->f);
    nl_close(r->log);
    r->text = t_slurp(r->out, NULL);
    assert_non_null(r->text);
    return r->text;
}

static void run_free(run_t *r)
{
    nlf_free(r->f);
    free(r->text);
    t_rmtree(r->dir);
}

/* One event at `us` microseconds into the test's day: "EVENT GUID HOST [FIELDS]". */
static void ev(nlf_t *f, long long us, const char *event, const char *guid, const char *host,
               const char *fmt, ...)
{
    char extra[256] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(extra, sizeof extra, fmt, ap);
        va_end(ap);
    }
    char line[512];
    int n = snprintf(line, sizeof line,
                     "ts=2026-01-05T10:%02lld:%02lld.%06lldZ event=%s level=Info guid=%s host=%s%s%s",
                     us / 60000000, us / 1000000 % 60, us % 1000000, event, guid, host,
                     extra[0] ? " " : "", extra);
    nlf_line(f, line, (size_t)n, "test", 1, NULL);
}

/* One request: client → front-end (linked by span ids) → a db query, with a little
 * variation; `retry` adds a retry activity around a second query; `slow` makes the query
 * ten times longer. Trace id from i. */
static void request(nlf_t *f, int i, long long t, int retry, int slow)
{
    char c[32], fe[32], tr[40];
    snprintf(c, sizeof c, "c-%d", i);
    snprintf(fe, sizeof fe, "f-%d", i);
    snprintf(tr, sizeof tr, "%032x", i + 1);
    long long j = (i * 7919) % 13; /* variation, microseconds */
    ev(f, t, "request.start", c, "cl", "trace.id=%s span.id=%016x", tr, 2 * i + 1);
    ev(f, t + 100 + j, "fe.handle.start", fe, "fe", "trace.id=%s span.id=%016x parent.span.id=%016x",
       tr, 2 * i + 2, 2 * i + 1);
    long long q = t + 150 + j;
    ev(f, q, "db.query.start", fe, "fe", "trace.id=%s", tr);
    q += slow ? 4000 : 400 + 3 * j;
    if (retry) ev(f, q - 1, "db.busy", fe, "fe", "trace.id=%s", tr); /* why it was retried */
    ev(f, q, "db.query.end", fe, "fe", "trace.id=%s", tr);
    if (retry) {
        ev(f, q + 10, "retry.start", fe, "fe", "trace.id=%s", tr);
        ev(f, q + 20, "db.query.start", fe, "fe", "trace.id=%s", tr);
        ev(f, q + 420, "db.query.end", fe, "fe", "trace.id=%s", tr);
        ev(f, q + 430, "retry.end", fe, "fe", "trace.id=%s", tr);
        q += 430;
    }
    ev(f, q + 50, "fe.handle.end", fe, "fe", "trace.id=%s", tr);
    ev(f, q + 150, "request.end", c, "cl", "trace.id=%s", tr);
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++) n++;
    return n;
}

/* The value of `name=` on the first line containing `event`, into out. */
static const char *field_of(const char *text, const char *event, const char *name, char *out,
                            size_t cap)
{
    out[0] = '\0';
    const char *l = strstr(text, event);
    if (!l) return out;
    const char *end = strchr(l, '\n');
    char key[64];
    snprintf(key, sizeof key, " %s=", name);
    const char *p = strstr(l, key);
    if (!p || (end && p > end)) return out;
    p += strlen(key);
    size_t n = strcspn(p, " \n");
    if (n >= cap) n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

static void test_odd_flow_named_with_its_cause(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    for (int i = 0; i < 200; i++) request(r.f, i, 1000000LL + i * 10000LL, i == 150, 0);
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "flows", v, sizeof v), "200");
    assert_string_equal(field_of(t, "nl.flow.stats", "judged", v, sizeof v), "200");
    assert_string_equal(field_of(t, "nl.flow.stats", "suspects", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.stats", "orphans", v, sizeof v), "0");
    assert_string_equal(field_of(t, "nl.flow.suspect", "guid", v, sizeof v), "c-150");
    assert_string_equal(field_of(t, "nl.flow.suspect", "trace.id", v, sizeof v),
                        "00000000000000000000000000000097");
    assert_string_equal(field_of(t, "nl.flow.suspect", "root", v, sizeof v), "request");
    assert_string_equal(field_of(t, "nl.flow.suspect", "hosts", v, sizeof v), "cl,fe");
    assert_string_equal(field_of(t, "nl.flow.suspect", "path", v, sizeof v),
                        "request/fe.handle/retry/db.query");
    /* Δa: the retry subtree, reduced to its shortest path; nothing else only-anomalous */
    assert_string_equal(field_of(t, "rank=1 kind=", "path", v, sizeof v), "request/fe.handle/retry");
    assert_string_equal(field_of(t, "rank=1 kind=", "kind", v, sizeof v), "only.anomalous");
    assert_int_equal(count_of(t, "kind=only.anomalous"), 1);
    /* the busy point always came with the retry: one line, the shorter path leading */
    assert_string_equal(field_of(t, "rank=1 kind=", "also", v, sizeof v),
                        "request/fe.handle/db.query/db.busy");
    assert_null(strstr(t, "path=request/fe.handle/retry/db.query share"));
    assert_int_equal(count_of(t, "event=nl.flow.top"), 1);
    run_free(&r);
}

static void test_slow_path_by_time_and_fault_free_names_none(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    for (int i = 0; i < 200; i++) request(r.f, i, 1000000LL + i * 10000LL, 0, i == 77);
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "suspects", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.suspect", "guid", v, sizeof v), "c-77");
    assert_string_equal(field_of(t, "nl.flow.suspect", "path", v, sizeof v),
                        "request/fe.handle/db.query");
    /* no coverage difference: the time difference comes first */
    assert_string_equal(field_of(t, "rank=1 kind=", "kind", v, sizeof v), "time");
    assert_string_equal(field_of(t, "rank=1 kind=", "path", v, sizeof v), "request/fe.handle/db.query");
    run_free(&r);

    run_start(&r, &o);
    for (int i = 0; i < 300; i++) request(r.f, i, 1000000LL + i * 10000LL, 0, 0);
    t = run_end(&r);
    assert_string_equal(field_of(t, "nl.flow.stats", "suspects", v, sizeof v), "0");
    assert_null(strstr(t, "nl.flow.cause"));
    run_free(&r);
}

/* Processes without trace ids: a parent's guid handed to its child as parent.guid, the
 * child's file read first (its lines before the parent's), its clock 2 ms early. */
static void test_parent_guid_joins_in_any_order_and_skew_is_counted(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    ev(r.f, 1000, "work.start", "child", "h2", "parent.guid=parent");
    ev(r.f, 5000, "work.end", "child", "h2", "parent.guid=parent");
    ev(r.f, 2500, "job.start", "parent", "h1", NULL);
    ev(r.f, 2600, "spawn", "parent", "h1", NULL);
    ev(r.f, 9000, "job.end", "parent", "h1", NULL);
    ev(r.f, 2000, "other.start", "alone", "h3", "parent.guid=gone"); /* parent never seen */
    ev(r.f, 2100, "other.end", "alone", "h3", "parent.guid=gone");
    ev(r.f, 2200, "hang.start", "stuck", "h3", NULL); /* never ends */
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "flows", v, sizeof v), "3");
    assert_string_equal(field_of(t, "nl.flow.stats", "orphans", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.stats", "open.flows", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.stats", "skewed", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.stats", "skew.max", v, sizeof v), "0.0015");
    /* too few flows of each root activity to compare: counted, not judged */
    assert_string_equal(field_of(t, "nl.flow.stats", "unjudged", v, sizeof v), "3");
    run_free(&r);
}

/* A server that writes its process guid on every request's lines: the guid is seen with two
 * trace ids, so it joins nothing; each trace stays its own flow. */
static void test_shared_guid_does_not_merge_traces(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    ev(r.f, 1000, "serve.start", "srv", "h1", "trace.id=aaaa");
    ev(r.f, 1100, "serve.start", "srv", "h1", "trace.id=bbbb");
    ev(r.f, 1200, "serve.end", "srv", "h1", "trace.id=aaaa");
    ev(r.f, 1300, "serve.end", "srv", "h1", "trace.id=bbbb");
    ev(r.f, 1400, "idle", "srv", "h1", NULL); /* the shared guid alone: no flow to join */
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "flows", v, sizeof v), "2");
    assert_string_equal(field_of(t, "nl.flow.stats", "shared.keys", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.stats", "ambiguous", v, sizeof v), "1");
    run_free(&r);
}

/* Normal flows carry a cache hit, the odd ones do not (and take longer): Δn names it. */
static void test_only_normal_path(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    for (int i = 0; i < 100; i++) {
        char g[16];
        snprintf(g, sizeof g, "g%d", i);
        long long t = 1000000LL + i * 10000LL, j = i % 7;
        int odd = i == 60 || i == 61;
        ev(r.f, t, "get.start", g, "h", NULL);
        if (!odd) ev(r.f, t + 10, "cache.hit", g, "h", NULL);
        ev(r.f, t + 20, "read.start", g, "h", NULL);
        ev(r.f, t + 20 + (odd ? 900 : 100 + j), "read.end", g, "h", NULL);
        ev(r.f, t + 1000, "get.end", g, "h", NULL);
    }
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "suspects", v, sizeof v), "2");
    assert_string_equal(field_of(t, "rank=1 kind=", "kind", v, sizeof v), "only.normal");
    assert_string_equal(field_of(t, "rank=1 kind=", "path", v, sizeof v), "get/cache.hit");
    assert_string_equal(field_of(t, "rank=1 kind=", "share", v, sizeof v), "1");
    run_free(&r);
}

/* With a reference run the score is the distance to the nearest reference flow: a flow like
 * one of them is normal even when rare, one of a root activity never seen is not. */
static void test_reference_run(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    nlf_begin_phase(r.f, NLF_REFERENCE);
    for (int i = 0; i < 100; i++) request(r.f, i, 1000000LL + i * 10000LL, i % 10 == 0, 0);
    nlf_end_phase(r.f);
    nlf_begin_phase(r.f, NLF_WATCH);
    for (int i = 0; i < 100; i++) /* retries, rare here, are in the reference: normal */
        request(r.f, 1000 + i, 9000000LL + i * 10000LL, i == 5, i == 50);
    ev(r.f, 10000000LL, "unknown.start", "u", "h", NULL);
    ev(r.f, 10000100LL, "unknown.end", "u", "h", NULL);
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "suspects", v, sizeof v), "2");
    assert_non_null(strstr(t, "guid=c-1050 "));
    assert_non_null(strstr(t, "guid=u root=unknown"));
    assert_null(strstr(t, "guid=c-1005 "));
    run_free(&r);
}

/* --max-events: the stalest flows are completed early, counted; nothing is lost silently. */
static void test_memory_bound(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    o.max_events = 20;
    o.max_flow_events = 6;
    run_t r;
    run_start(&r, &o);
    for (int i = 0; i < 50; i++) request(r.f, i, 1000000LL + i * 100LL, 0, 0); /* overlapping */
    for (int i = 0; i < 10; i++) ev(r.f, 2000000LL + i, "x", "big", "h", NULL);
    const char *t = run_end(&r);
    char v[256];
    assert_int_not_equal(atoi(field_of(t, "nl.flow.stats", "evicted", v, sizeof v)), 0);
    assert_string_equal(field_of(t, "nl.flow.stats", "flow.full", v, sizeof v), "4");
    nlf_counts_t n;
    nlf_counts(r.f, &n);
    assert_int_equal(n.events, 50 * 6 + 10);
    run_free(&r);
}

/* Activity names are bounded: a flood of distinct names is counted, not held. */
static void test_names_bounded(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    o.max_flow_events = 100000;
    run_t r;
    run_start(&r, &o);
    for (int i = 0; i < 70000; i++) {
        char name[32];
        snprintf(name, sizeof name, "junk.%d", i);
        ev(r.f, 1000000LL + i, name, "g", "h", NULL);
    }
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "name.overflow", v, sizeof v), "4464");
    assert_string_equal(field_of(t, "nl.flow.stats", "flows", v, sizeof v), "1");
    run_free(&r);
}

/* A guid that names itself as its parent is one guid with no parent: its start and end
 * are one closed activity (they were a start left open and an end without a start), and a
 * child of it still hangs under it. */
static void test_self_parent(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    run_t r;
    run_start(&r, &o);
    ev(r.f, 1000000, "a.start", "g1", "h", "parent.guid=g1");
    ev(r.f, 1200000, "b.start", "g2", "h", "parent.guid=g1");
    ev(r.f, 1300000, "b.end", "g2", "h", "parent.guid=g1");
    ev(r.f, 2000000, "a.end", "g1", "h", "parent.guid=g1");
    const char *t = run_end(&r);
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "flows", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.stats", "open.flows", v, sizeof v), "0");
    assert_string_equal(field_of(t, "nl.flow.stats", "open.activities", v, sizeof v), "0");
    assert_string_equal(field_of(t, "nl.flow.stats", "unmatched.ends", v, sizeof v), "0");
    assert_string_equal(field_of(t, "nl.flow.stats", "orphans", v, sizeof v), "0");
    assert_string_equal(field_of(t, "nl.flow.stats", "skewed", v, sizeof v), "0");
    run_free(&r);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds to join and profile one parent chain n guids deep (each guid a start and an
 * end, nested in time, the whole chain one flow), its counts checked. */
static double chain_cpu(int n)
{
    nlf_opts_t o;
    nlf_opts_default(&o);
    o.max_flow_events = o.max_events = 2 * (size_t)n;
    run_t r;
    run_start(&r, &o);
    double t0 = cpu_s();
    char g[32];
    for (int i = 0; i < n; i++) {
        snprintf(g, sizeof g, "g%d", i);
        if (i) ev(r.f, i, "a.start", g, "h", "parent.guid=g%d", i - 1);
        else ev(r.f, i, "a.start", g, "h", NULL);
    }
    for (int i = n - 1; i >= 0; i--) {
        snprintf(g, sizeof g, "g%d", i);
        ev(r.f, 2LL * n - i, "a.end", g, "h", NULL);
    }
    const char *t = run_end(&r);
    double cpu = cpu_s() - t0;
    char v[256];
    assert_string_equal(field_of(t, "nl.flow.stats", "flows", v, sizeof v), "1");
    assert_string_equal(field_of(t, "nl.flow.stats", "open.flows", v, sizeof v), "0");
    assert_string_equal(field_of(t, "nl.flow.stats", "unmatched.ends", v, sizeof v), "0");
    assert_string_equal(field_of(t, "nl.flow.stats", "orphans", v, sizeof v), "0");
    assert_int_equal(atoi(field_of(t, "nl.flow.stats", "too.deep", v, sizeof v)), n - 32);
    run_free(&r);
    return cpu;
}

/* A parent chain takes time linear in its depth: 8 times deeper takes well under 64 times
 * as long (it took 48 s for 200k, quadratic: a walk to the root per guid, a scan of the
 * flow's guids per new guid). CPU time, not the wall clock, and a ratio with room to spare
 * (linear is about 8; 24 allowed), so a busy machine does not fail it. */
static void test_deep_chain_linear(void **state)
{
    (void)state;
    double small = chain_cpu(25000), big = chain_cpu(200000);
    printf("    parent chain: 25k deep %.3f s CPU, 200k deep %.3f s (x%.1f)\n", small, big,
           big / small);
    assert_true(big < 24 * small + 0.5);
    assert_true(big < 60); /* and not slow in itself (a few seconds under ASan) */
}

/* Memory per event held, at its worst: every event a flow of its own, with a guid, a
 * parent.guid and a trace id (LIMITS.md, nl-flows(1) MEMORY: about 0.9 KB; 1.7 KB before
 * flows started their arrays at one element). By the C library's own count of bytes in
 * use; skipped where it keeps none (ASan's allocator). */
static void test_memory_per_event(void **state)
{
    (void)state;
    nlf_opts_t o;
    nlf_opts_default(&o);
    o.idle = 1e6; /* none completes */
    enum { N = 20000 };
    run_t r;
    run_start(&r, &o);
    struct mallinfo2 m0 = mallinfo2();
    for (int i = 0; i < N; i++) {
        char g[48];
        snprintf(g, sizeof g, "6f1c2a40-0000-4000-8000-%012d", i);
        ev(r.f, i, "a.start", g, "h",
           "parent.guid=7f1c2a40-0000-4000-8000-%012d trace.id=0123456789abcdef0123456789%06d",
           i, i);
    }
    struct mallinfo2 m1 = mallinfo2();
    size_t used0 = m0.uordblks + m0.hblkhd, used1 = m1.uordblks + m1.hblkhd;
    nlf_counts_t n;
    nlf_counts(r.f, &n);
    assert_int_equal(n.flows, N);
    run_end(&r);
    run_free(&r);
    if (used1 <= used0) skip();
    double per = (double)(used1 - used0) / N;
    printf("    %.0f bytes an event (one-event flows with guid, parent.guid, trace.id)\n", per);
    assert_true(per < 1024);
}

static void test_bad_options(void **state)
{
    (void)state;
    nlf_opts_t o;
    char err[128];
    nlf_opts_default(&o);
    o.k = 100; /* history 128 < 2k */
    assert_null(nlf_new(&o, NULL, err, sizeof err));
    assert_non_null(strstr(err, "history"));
    nlf_opts_default(&o);
    o.idle = 0;
    assert_null(nlf_new(&o, NULL, err, sizeof err));
    nlf_opts_default(&o);
    o.floor = NAN;
    assert_null(nlf_new(&o, NULL, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_odd_flow_named_with_its_cause),
        cmocka_unit_test(test_slow_path_by_time_and_fault_free_names_none),
        cmocka_unit_test(test_parent_guid_joins_in_any_order_and_skew_is_counted),
        cmocka_unit_test(test_shared_guid_does_not_merge_traces),
        cmocka_unit_test(test_only_normal_path),
        cmocka_unit_test(test_reference_run),
        cmocka_unit_test(test_memory_bound),
        cmocka_unit_test(test_names_bounded),
        cmocka_unit_test(test_self_parent),
        cmocka_unit_test(test_deep_chain_linear),
        cmocka_unit_test(test_memory_per_event),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
