/* SPDX-License-Identifier: BSD-3-Clause */
/* test_summary_keys.c — a summary's identity is its activity and key, never a guid (issue
 * 64): a service whose every request has its own guid and a child step (parent.guid),
 * summarized each second, writes one summary per activity, interval and key, with n the
 * requests and their errors counted; key= fields come from the end, else its start; the
 * result field and what counts as an error. Injected clock, ticks by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_test.h"
#include "nlkit/nl.h"
#include "nls.h"
#include "summ_fixture.h"

/* Use these rules (the summarizer's text form) through a rules file. */
static void rules(fixture_t *f, const char *text)
{
    const char *path = t_path(f->dir, "rules");
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    nl_perr_t err;
    assert_int_equal(nl_summary_file(f->log, path, &err), 0);
}

#define REQS 1000
#define SECS 3 /* the requests end within the first three seconds */

/* One event of the service: request i's start (0), its query's start (1) and end (2), its
 * own end (3), at t ms. */
typedef struct {
    int64_t t;
    int i, what;
} sev_t;

static int by_time(const void *a, const void *b)
{
    const sev_t *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->i != y->i ? (x->i < y->i ? -1 : 1) : (x->what < y->what ? -1 : 1);
}

/* The interval a summary line closes, 0 for the first second on the injected clock (BASE
 * is 01:46:40 UTC): its ts is the interval's end. */
static int second_of(nl_rec_t *r)
{
    const char *ts = t_field(r, "ts");
    assert_true(strlen(ts) >= 19);
    return atoi(ts + 17) - 41;
}

/* A count field, written only when not 0. */
static int count(nl_rec_t *r, const char *name)
{
    const char *v = t_field(r, name);
    return v ? atoi(v) : 0;
}

static const char *route_of(int i) { return i % 3 ? "/a" : "/b"; }
static int status_of(int i) { return i % 7 == 0 ? 500 : i % 11 == 0 ? 404 : 200; }
static int64_t end_of(int i) { return 2LL * i + 6 + i % 5; }

static void test_guid_per_request(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    rules(&f, "request=summary:1:key=route\ndb.query=summary:1\n");
    /* request i: 2i ms on, 6-10 ms long, overlapping its neighbours; its query inside it */
    sev_t *ev = calloc(4 * REQS, sizeof *ev);
    assert_non_null(ev);
    for (int i = 0; i < REQS; i++) {
        ev[4 * i] = (sev_t){2LL * i, i, 0};
        ev[4 * i + 1] = (sev_t){2LL * i + 1, i, 1};
        ev[4 * i + 2] = (sev_t){2LL * i + 2 + i % 4, i, 2};
        ev[4 * i + 3] = (sev_t){end_of(i), i, 3};
    }
    qsort(ev, 4 * REQS, sizeof *ev, by_time);
    int64_t next_tick = 1000;
    for (int k = 0; k < 4 * REQS; k++) {
        while (ev[k].t >= next_tick) { /* the flusher on the boundary */
            at(next_tick);
            nl__summ_tick(f.log);
            next_tick += 1000;
        }
        at(ev[k].t);
        char g[40], c[40];
        int i = ev[k].i;
        snprintf(g, sizeof g, "%08x-0000-4000-8000-%012x", 0xa0000000u, (unsigned)i);
        snprintf(c, sizeof c, "%08x-0000-4000-8000-%012x", 0xc0000000u, (unsigned)i);
        int rc = 0;
        switch (ev[k].what) {
        case 0: rc = nl_write(f.log, "request.start", "guid=s route=s", g, route_of(i)); break;
        case 1: rc = nl_write(f.log, "db.query.start", "guid=s parent.guid=s", c, g); break;
        case 2: rc = nl_write(f.log, "db.query.end", "guid=s parent.guid=s", c, g); break;
        default:
            rc = nl_write(f.log, "request.end", "guid=s route=s status=i", g, route_of(i),
                          status_of(i));
        }
        assert_int_equal(rc, 0);
    }
    free(ev);
    /* what each (route, second) and each second should say */
    int want_n[2][SECS] = {{0}}, want_err[2][SECS] = {{0}}, want_4xx[2][SECS] = {{0}};
    int want_q[SECS] = {0};
    for (int i = 0; i < REQS; i++) {
        int r = i % 3 ? 0 : 1, s = (int)(end_of(i) / 1000);
        want_n[r][s]++;
        want_err[r][s] += status_of(i) == 500;
        want_4xx[r][s] += status_of(i) == 404;
        want_q[(2 * i + 2 + i % 4) / 1000]++;
    }
    t_readback_t rb;
    at(SECS * 1000);
    nl__summ_tick(f.log);
    t_rb_load(&rb, f.path);
    size_t idx[64];
    size_t nreq = find(&rb, "request.summary", idx, 64);
    assert_int_equal(nreq, 2 * SECS); /* not one per request */
    int total = 0, seen = 0;
    for (size_t k = 0; k < nreq; k++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[k]);
        int route = strcmp(t_field(r, "route"), "/a") ? 1 : 0;
        int s = second_of(r);
        assert_true(s >= 0 && s < SECS);
        assert_int_equal((int)t_num(r, "n"), want_n[route][s]);
        assert_int_equal((int)t_num(r, "err.n"), want_err[route][s]);
        assert_int_equal(count(r, "res.5xx"), want_err[route][s]);
        assert_int_equal(count(r, "res.4xx"), want_4xx[route][s]);
        assert_int_equal(count(r, "res.2xx"),
                         want_n[route][s] - want_err[route][s] - want_4xx[route][s]);
        assert_null(t_field(r, "res.n"));                        /* every end had a status */
        assert_string_equal(t_field(r, "guid"), nl_guid(f.log)); /* none of the requests' */
        assert_null(t_field(r, "orphan.start"));
        assert_null(t_field(r, "orphan.end"));
        total += (int)t_num(r, "n");
        seen |= 1 << (route * SECS + s);
    }
    assert_int_equal(total, REQS);
    assert_int_equal(seen, (1 << 2 * SECS) - 1);
    size_t nq = find(&rb, "db.query.summary", idx, 64);
    assert_int_equal(nq, SECS); /* parent.guid matches pairs; it is no key */
    for (size_t k = 0; k < nq; k++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[k]);
        int s = second_of(r);
        assert_int_equal((int)t_num(r, "n"), want_q[s]);
        assert_null(t_field(r, "parent.guid"));
        assert_null(t_field(r, "err.n")); /* no result field on its ends */
    }
    t_rb_free(&rb);
    nl_stats_t st;
    nl_stats(f.log, &st);
    assert_int_equal(st.overflow, 0);
    assert_int_equal(st.orphans, 0);
    assert_int_equal(st.summaries, 3 * SECS);
    close_fixture(&f);
}

/* A key= field missing from the end is its start's; one on the end wins; an orphan end has
 * its own; a key field neither has is left out. The outcome is the result field's. */
static void test_key_from_end_or_start(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    rules(&f, "req=summary:1:key=route,method");
    at(100);
    nl_write(f.log, "req.start", "guid=s route=s", "g1", "/a");
    nl_write(f.log, "req.start", "guid=s route=s", "g2", "/a");
    nl_write(f.log, "req.start", "guid=s", "g3");
    at(200);
    nl_write(f.log, "req.end", "guid=s status=i", "g1", 503); /* /a, from its start */
    nl_write(f.log, "req.end", "guid=s route=s status=s", "g2", "/b", "200"); /* /b */
    nl_write(f.log, "req.end", "guid=s method=s status=i", "g3", "GET", 201); /* no route */
    nl_write(f.log, "req.end", "guid=s route=s", "g4", "/a");                 /* an orphan, of /a */
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[8];
    assert_int_equal(find(&rb, "req.summary", idx, 8), 3);
    int seen = 0;
    for (int k = 0; k < 3; k++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[k]);
        const char *route = t_field(r, "route");
        if (!route) {
            assert_string_equal(t_field(r, "method"), "GET");
            assert_string_equal(t_field(r, "n"), "1");
            assert_string_equal(t_field(r, "err.n"), "0");
            assert_string_equal(t_field(r, "res.2xx"), "1");
            seen |= 1;
        } else if (!strcmp(route, "/a")) {
            assert_null(t_field(r, "method"));
            assert_string_equal(t_field(r, "n"), "1");
            assert_string_equal(t_field(r, "err.n"), "1");
            assert_string_equal(t_field(r, "res.5xx"), "1");
            assert_string_equal(t_field(r, "orphan.end"), "1");
            NEAR(t_num(r, "dur.sum"), 0.1);
            seen |= 2;
        } else {
            assert_string_equal(route, "/b");
            assert_string_equal(t_field(r, "n"), "1");
            assert_string_equal(t_field(r, "err.n"), "0");
            assert_string_equal(t_field(r, "res.2xx"), "1");
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    t_rb_free(&rb);
    close_fixture(&f);
}

/* result= names the outcome field: a number is an error unless 0 (an HTTP status from 500
 * on), a word unless ok, success or true; status= is then just a field. */
static void test_result_field(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    rules(&f, "job=summary:1:result=code");
    static const struct {
        const char *fmt;
        int i;
        const char *s;
        int err;
    } ends[] = {{"code=i", 0, NULL, 0},      {"code=i", 2, NULL, 1},     {"code=s", 0, "OK", 0},
                {"code=s", 0, "Success", 0}, {"code=s", 0, "failed", 1}, {"code=i", 404, NULL, 0},
                {"code=i", 502, NULL, 1},    {"status=i", 500, NULL, 0}, {"code=d", 0, NULL, 0}};
    int errs = 0;
    for (size_t k = 0; k < sizeof ends / sizeof *ends; k++) {
        char g[8];
        snprintf(g, sizeof g, "j%zu", k);
        at(100 + (int64_t)k);
        nl_write(f.log, "job.start", "guid=s", g);
        at(200 + (int64_t)k);
        char fmt[32];
        snprintf(fmt, sizeof fmt, "guid=s %s", ends[k].fmt);
        if (ends[k].s)
            nl_write(f.log, "job.end", fmt, g, ends[k].s);
        else if (!strcmp(ends[k].fmt, "code=d"))
            nl_write(f.log, "job.end", fmt, g, 0.0);
        else
            nl_write(f.log, "job.end", fmt, g, ends[k].i);
        errs += ends[k].err;
    }
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[4];
    assert_int_equal(find(&rb, "job.summary", idx, 4), 1);
    nl_rec_t *r = t_rb_rec(&rb, idx[0]);
    assert_string_equal(t_field(r, "n"), "9");
    assert_int_equal((int)t_num(r, "err.n"), errs);
    assert_string_equal(t_field(r, "res.n"), "8"); /* the status=500 end had no code */
    assert_string_equal(t_field(r, "res.4xx"), "1");
    assert_string_equal(t_field(r, "res.5xx"), "1");
    t_rb_free(&rb);
    close_fixture(&f);
}

/* key=guid asks for the old identity, one summary per guid (nl-bottleneck joins both ends
 * of a transfer by it): through nl_write and a pair handle alike, the guid where a line's
 * guid goes, once; the log's own guid when the event has none. */
static void test_key_guid(void **state)
{
    (void)state;
    fixture_t f;
    open_log(&f);
    rules(&f, "xfer=summary:1:key=stream.id,guid\nblk=summary:1:key=guid");
    const char *g1 = "11111111-1111-4111-8111-111111111111", *g2 = "a b"; /* quoted */
    nl_pair_t *h = nl_pair(f.log, "blk", "bytes", NULL);
    assert_non_null(h);
    for (int k = 0; k < 3; k++) {
        at(100 + k);
        nl_write(f.log, "xfer.start", "guid=s stream.id=i", k == 2 ? g2 : g1, 1);
        nl_pair_start(h, k == 2 ? g2 : g1);
        nl_write(f.log, "xfer.start", "");
        at(200 + k);
        nl_write(f.log, "xfer.end", "guid=s stream.id=i", k == 2 ? g2 : g1, 1);
        nl_pair_end(h, k == 2 ? g2 : g1, 10);
        nl_write(f.log, "xfer.end", "");
    }
    t_readback_t rb;
    tick_and_load(&f, 1000, &rb);
    size_t idx[8];
    assert_int_equal(find(&rb, "xfer.summary", idx, 8), 3);
    int seen = 0;
    for (int k = 0; k < 3; k++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[k]);
        /* the guid in the head's place, and only there */
        assert_true(r->f[3].name_len == 4 && !memcmp(r->f[3].name, "guid", 4));
        for (int i = 4; i < r->n; i++)
            assert_false(r->f[i].name_len == 4 && !memcmp(r->f[i].name, "guid", 4));
        const char *g = t_field(r, "guid");
        if (!strcmp(g, g1)) {
            assert_string_equal(t_field(r, "stream.id"), "1");
            assert_string_equal(t_field(r, "n"), "2");
            seen |= 1;
        } else if (!strcmp(g, g2)) {
            assert_string_equal(t_field(r, "stream.id"), "1");
            assert_string_equal(t_field(r, "n"), "1");
            seen |= 2;
        } else {
            assert_string_equal(g, nl_guid(f.log));
            assert_null(t_field(r, "stream.id"));
            assert_string_equal(t_field(r, "n"), "3");
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);
    assert_int_equal(find(&rb, "blk.summary", idx, 8), 2);
    for (int k = 0; k < 2; k++) {
        nl_rec_t *r = t_rb_rec(&rb, idx[k]);
        int one = !strcmp(t_field(r, "guid"), g1);
        assert_true(one || !strcmp(t_field(r, "guid"), g2));
        assert_string_equal(t_field(r, "n"), one ? "2" : "1");
    }
    t_rb_free(&rb);
    close_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guid_per_request),
        cmocka_unit_test(test_key_from_end_or_start),
        cmocka_unit_test(test_result_field),
        cmocka_unit_test(test_key_guid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
