/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nla.c — the alert layer without a network: its directives (and their errors, with
 * where), JSON text (every byte string a valid document that reads back the same), and
 * grouping, resolves and the state file through a file receiver, on event time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl_buf.h"
#include "nl_test.h"
#include "nla.h"
#include "nla_am.h"
#include "nla_json.h"

static void test_config(void **state)
{
    (void)state;
    nla_cfg_t c;
    nla_cfg_init(&c);
    char err[256] = "";
    const char *text = "stream s event=m value=x\n" /* the detector's: skipped */
                       "receiver ops http://127.0.0.1:9/ timeout=2s retries=3 backoff=0.5s "
                       "backoff.max=4s queue=7\n"
                       "route kind=missing name=xfer* key=*guid=g* level=Warn notify ops "
                       "group.by=name,host group.wait=30s continue\n"
                       "route notify file:///tmp/x.log resolve=0\n"
                       "silence *host=gw3* until 2026-11-24T18:00:00Z\n"
                       "alerts state=/tmp/s silences=/tmp/f drain=2s\n";
    int rc = nla_cfg_parse(&c, text, "t.conf", err, sizeof err);
    if (rc) print_message("%s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(c.nr, 2); /* ops, and one made for the file URL */
    assert_string_equal(c.r[0].name, "ops");
    assert_true(c.r[0].timeout == 2 && c.r[0].retries == 3 && c.r[0].backoff == 0.5 &&
                c.r[0].backoff_max == 4 && c.r[0].queue == 7);
    assert_string_equal(c.r[1].url, "file:///tmp/x.log");
    assert_int_equal(c.r[1].retries, NLA_RETRY_FOREVER);
    assert_int_equal(c.nrt, 2);
    assert_int_equal(c.rt[0].kind, NLA_MISSING);
    assert_string_equal(c.rt[0].name_glob, "xfer*");
    assert_string_equal(c.rt[0].key_glob, "*guid=g*");
    assert_int_equal(c.rt[0].level, NL_LVL_WARN);
    assert_int_equal(c.rt[0].ngroup, 2);
    assert_string_equal(c.rt[0].group_by[1], "host");
    assert_true(c.rt[0].group_wait == 30 && c.rt[0].group_interval == 30 && c.rt[0].cont);
    assert_int_equal(c.rt[1].recv, 1);
    assert_int_equal(c.rt[1].resolve, 0);
    assert_int_equal(c.ns, 1);
    int64_t until;
    assert_int_equal(nl_ts_parse("2026-11-24T18:00:00Z", 20, &until), 0);
    assert_true(c.s[0].until == until);
    assert_string_equal(c.state, "/tmp/s");
    assert_true(c.drain == 2);
    /* a subscription's notify: first, and the routes after it still match */
    assert_int_equal(nla_cfg_notify(&c, "slow", "http://127.0.0.1:9/", err, sizeof err), 0);
    assert_int_equal(c.nrt, 3);
    assert_string_equal(c.rt[0].name_glob, "slow");
    assert_true(c.rt[0].cont && c.rt[0].kind == NLA_ALERT);
    assert_int_equal(c.nr, 3);
    nla_cfg_free(&c);

    static const struct {
        const char *text, *want;
    } bad[] = {
        {"route notify nobody\n", "e:1:14: no receiver named 'nobody'"},
        {"route kind=x notify -\n", "e:1:7: kind is anomaly, missing or alert"},
        {"route name=a\n", "e:1:7: a route needs 'notify RECEIVER|URL'"},
        {"receiver a http://x/ timeout=0\n", "e:1:22: bad value for timeout"},
        {"receiver a http://x/\nreceiver a http://y/\n", "e:2:10: receiver 'a' defined twice"},
        {"receiver a/b http://x/\n", "e:1:10: bad receiver name"},
        {"silence x until never\n", "e:1:17: bad time 'never'"},
        {"silence x\n", "e:1:9: expected: silence KEYGLOB until TIME"},
        {"alerts drain=-1\n", "e:1:8: bad value for drain"},
        {"route notify - group.by=a,b,c,d,e,f,g,h,i\n", "e:1:16: at most 8 group.by"},
        {"route notify - level=loud\n", "e:1:16: bad value for level"},
        {"receiver am alertmanager:///p\n", "e:1:13: 'alertmanager:///p': no host"},
        {"route notify alertmanager+https://\n", "e:1:14: 'alertmanager+https://': no host"},
        {"receiver w http://x/ refresh=1s\n", "e:1:22: refresh= is for Alertmanager receivers"},
        {"receiver am alertmanager://h:1 refresh=0\n", "e:1:32: bad value for refresh"},
        {"receiver am alertmanager://h:1 ca=x.pem\n", "e:1:32: bad value for ca"},
        {"route notify alertmanager://h:1 resolve=0\n", "e:1:1: resolve=0 does not go with an"},
        {"route notify http://x/ runbook=http://w/\n", "e:1:1: runbook= is for routes to an"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nla_cfg_init(&c);
        err[0] = 0;
        assert_int_equal(nla_cfg_parse(&c, bad[i].text, "e", err, sizeof err), NL_EINVAL);
        if (!strstr(err, bad[i].want))
            fail_msg("%s: got '%s', want '%s'", bad[i].text, err, bad[i].want);
        nla_cfg_free(&c);
    }
}

/* Decode what nla__json_str wrote (a JSON string literal) back to bytes; -1 if it is not
 * one: an independent reading of the escapes, and of UTF-8 validity. */
static long json_unquote(const char *s, size_t n, char *out)
{
    if (n < 2 || s[0] != '"' || s[n - 1] != '"') return -1;
    long k = 0;
    for (size_t i = 1; i < n - 1; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == '"') return -1;
        if (c != '\\') {
            out[k++] = (char)c;
            continue;
        }
        c = (unsigned char)s[++i];
        if (c == '"' || c == '\\') {
            out[k++] = (char)c;
        } else if (c == 'u') {
            unsigned v;
            if (sscanf(s + i + 1, "%4x", &v) != 1 || v > 0xff) return -1;
            out[k++] = (char)v;
            i += 4;
        } else {
            return -1;
        }
    }
    return k;
}

static void test_json_strings(void **state)
{
    (void)state;
    srand(7);
    char in[64], back[64];
    for (int t = 0; t < 20000; t++) {
        size_t n = (size_t)(rand() % 40);
        for (size_t i = 0; i < n; i++) in[i] = (char)(rand() % 4 ? rand() % 128 : rand() % 256);
        if (t == 0) n = (size_t)snprintf(in, sizeof in, "a\"b\\c\n\x01 \xc3\xa9 \xe2\x80\xa8");
        nl_buf_t b;
        char st[512];
        nl_buf_init(&b, st, sizeof st);
        nla__json_str(&b, in, n);
        assert_int_equal(b.err, 0);
        long k = json_unquote(b.p, b.len, back);
        assert_true(k >= 0);
        /* valid UTF-8 is kept as is; any other byte >= 0x80 comes back as \u00XX (its
         * Latin-1 reading), which json_unquote turned into that byte again */
        assert_int_equal((size_t)k, n);
        assert_memory_equal(back, in, n);
        nl_buf_free(&b);
    }
}

/* Alert lines as the detector writes them. */
static char *alert_line(int sec, const char *event, int host)
{
    static char buf[4][400];
    static int i;
    char *b = buf[i++ % 4];
    snprintf(b, sizeof buf[0],
             "ts=2026-11-22T12:%02d:%02d.000000Z event=%s level=%s name=dip key.host=h%02d "
             "value=10\n",
             sec / 60, sec % 60, event, strstr(event, "start") ? "Warn" : "Info", host);
    return b;
}

static void report(nla_t *a, int phase, int sec, int host)
{
    char id[32];
    int n = snprintf(id, sizeof id, "W name=dip key.host=h%02d", host);
    const char *line =
        alert_line(sec, phase == NLA_START ? "nl.alert.start" : "nl.alert.end", host);
    int64_t ts;
    assert_int_equal(nl_ts_parse(line + 3, 27, &ts), 0);
    nla_report_t r = {.kind = NLA_ALERT,
                      .phase = phase,
                      .id = id,
                      .id_len = (size_t)n,
                      .line = line,
                      .len = strlen(line),
                      .ts = ts,
                      .level = phase == NLA_START ? NL_LVL_WARN : NL_LVL_INFO};
    nla_report(a, &r);
    nla_tick(a, ts, 0);
}

static int count_lines(const char *path, const char *ev)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) n += strstr(line, ev) != NULL;
    fclose(f);
    return n;
}

/* Ten hosts start within the wait, an eleventh as it ends: one notification; a twelfth
 * later goes out as the group's update; the state file carries the
 * open alerts over a restart, where nothing is sent again, and the ends go out once. */
static void test_groups_and_state(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char text[1024];
    char *log = strdup(t_path(dir, "alerts.log")), *st = strdup(t_path(dir, "state"));
    snprintf(text, sizeof text,
             "receiver f file://%s?buffer=0\n"
             "route notify f group.by=name group.wait=10s group.interval=5s\n"
             "alerts state=%s drain=5s\n",
             log, st);
    nla_cfg_t c;
    nla_cfg_init(&c);
    char err[256];
    assert_int_equal(nla_cfg_parse(&c, text, "t", err, sizeof err), 0);
    nla_t *a = nla_new(&c, NULL, NULL, err, sizeof err);
    assert_non_null(a);
    for (int h = 0; h < 10; h++) report(a, NLA_START, 60 + h % 3, h); /* within 3 s */
    nla_tick(a, (int64_t)1795348800 * 1000000 + 69 * 1000000LL, 1);   /* not yet due */
    nla_counts_t n;
    nla_counts(a, &n);
    assert_int_equal(n.notifications, 0);
    report(a, NLA_START, 71, 10); /* due at 70: one notification, h10 joined in time */
    nla_counts(a, &n);
    assert_int_equal(n.notifications, 1);
    report(a, NLA_START, 77, 11); /* an update, group.interval after the first */
    nla_counts(a, &n);
    assert_int_equal(n.notifications, 1); /* due at 77: more of that second may come */
    nla_tick(a, (int64_t)1795348800 * 1000000 + 78 * 1000000LL, 0);
    nla_counts(a, &n);
    assert_int_equal(n.notifications, 2);
    nla_finish(a);
    nla_counts(a, &n);
    assert_int_equal(n.opened, 12);
    assert_int_equal(n.delivered, 2);
    nla_free(a);
    assert_int_equal(count_lines(log, "event=nl.alert.start"), 12);

    /* the next run: the twelve are open; a start repeated is not news; ends go out once */
    a = nla_new(&c, NULL, NULL, err, sizeof err);
    assert_non_null(a);
    report(a, NLA_START, 80, 3);
    for (int h = 0; h < 12; h++) report(a, NLA_END, 90, h);
    report(a, NLA_END, 95, 0); /* an end again: already resolved */
    nla_finish(a);
    nla_counts(a, &n);
    assert_int_equal(n.opened, 0);
    assert_int_equal(n.resumed, 1);
    assert_int_equal(n.resolved, 12);
    assert_int_equal(n.notifications, 1);
    nla_free(a);
    assert_int_equal(count_lines(log, "event=nl.alert.start"), 12);
    assert_int_equal(count_lines(log, "event=nl.alert.end"), 12);
    nla_cfg_free(&c);
    free(log);
    free(st);
    t_rmtree(dir);
}

/* The lines a file receiver has written, once there are `want` (its thread delivers them:
 * wait up to 5 s), or what there are then. */
static int wait_lines(const char *path, const char *ev, int want)
{
    int n = 0;
    for (int i = 0; i < 500 && (n = count_lines(path, ev)) < want; i++) {
        struct timespec ms10 = {0, 10 * 1000000L};
        nanosleep(&ms10, NULL);
    }
    return n;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void tick_at(nla_t *a, int sec, int idle)
{
    nla_tick(a, (int64_t)1795348800 * 1000000 + sec * 1000000LL, idle);
}

/* A silences file written while running is read (within a second), a damaged one keeps
 * the silences in force, and an alert held back is notified when its silence ends. */
static void test_silences_file(void **state)
{
    (void)state;
    const char *dir = t_tmpdir();
    char *log = strdup(t_path(dir, "alerts.log")), *sil = strdup(t_path(dir, "silences"));
    char text[1024], err[256];
    snprintf(text, sizeof text,
             "receiver f file://%s?buffer=0\nroute notify f\nalerts silences=%s\n", log, sil);
    nla_cfg_t c;
    nla_cfg_init(&c);
    assert_int_equal(nla_cfg_parse(&c, text, "t", err, sizeof err), 0);
    FILE *diag = tmpfile();
    nla_t *a = nla_new(&c, NULL, diag, err, sizeof err); /* no file yet: said, not fatal */
    assert_non_null(a);
    report(a, NLA_START, 60, 0);
    tick_at(a, 61, 1);
    write_file(sil, "silence *host=h01 until 2026-11-22T12:01:10Z\n");
    struct timespec pause = {1, 100 * 1000000L};
    nanosleep(&pause, NULL);
    tick_at(a, 62, 1); /* read now */
    report(a, NLA_START, 63, 1);
    tick_at(a, 64, 1);
    nla_counts_t n;
    nla_counts(a, &n);
    assert_int_equal(n.silenced, 1);
    assert_int_equal(wait_lines(log, "event=nl.alert.start", 1), 1); /* h00 only */
    write_file(sil, "silence *host=h01 until\n"); /* damaged: the silence stays */
    nanosleep(&pause, NULL);
    tick_at(a, 65, 1);
    nla_counts(a, &n);
    assert_int_equal(n.state_errors, 1);
    tick_at(a, 69, 1);
    nla_counts(a, &n);
    assert_int_equal(n.notifications, 1); /* h01 still held back */
    tick_at(a, 71, 1);                    /* the silence ended at 70: h01 goes out now */
    assert_int_equal(wait_lines(log, "event=nl.alert.start", 2), 2);
    nla_finish(a);
    nla_free(a);
    rewind(diag);
    char msg[512] = "";
    size_t got = fread(msg, 1, sizeof msg - 1, diag);
    msg[got] = 0;
    assert_non_null(strstr(msg, "does not exist (yet)"));
    assert_non_null(strstr(msg, "silences:1:"));
    assert_non_null(strstr(msg, "the silences in force stay"));
    fclose(diag);
    nla_cfg_free(&c);
    free(log);
    free(sil);
    t_rmtree(dir);
}

/* Alertmanager's URL forms, its alerts' JSON (labels, annotations, times) and a receiver's
 * firing set: what is posted again, and what a resolve takes out. */
static void test_alertmanager(void **state)
{
    (void)state;
    char err[256];
    nla_cfg_t c;
    nla_cfg_init(&c);
    assert_int_equal(nla_cfg_parse(&c,
                                   "receiver am alertmanager+https://am.example.org:9093/am/ "
                                   "refresh=30s generator=http://r/{kind}/{name} ca=/etc/ca.pem\n"
                                   "route name=dip notify am runbook=http://w/{name}\n"
                                   "route notify alertmanager://127.0.0.1:9093\n",
                                   "t", err, sizeof err),
                     0);
    assert_int_equal(c.nr, 2);
    assert_true(c.r[0].refresh == 30 && c.r[1].refresh == 60);
    assert_string_equal(c.r[0].generator, "http://r/{kind}/{name}");
    assert_string_equal(c.rt[0].runbook, "http://w/{name}");
    assert_null(c.rt[1].runbook);
    char *ep = nla__am_endpoint(c.r[0].url, err, sizeof err);
    assert_string_equal(ep, "https://am.example.org:9093/am/api/v2/alerts");
    free(ep);
    ep = nla__am_endpoint(c.r[1].url, err, sizeof err);
    assert_string_equal(ep, "http://127.0.0.1:9093/api/v2/alerts");
    free(ep);
    assert_false(nla__am_url("http://127.0.0.1:9093/"));
    nla_cfg_free(&c);

    /* a missing end: its guid and *.id fields are labels (a field named like one of ours
     * gets key_, a name Alertmanager would refuse is made one it takes) */
    static char line[] = "ts=2026-11-22T12:00:05Z event=nl.missing level=Error guid=g1 "
                         "activity=xfer req.id=7 key.alertname=x key.9x=\"a\\\"b\" "
                         "start.ts=2026-11-22T12:00:00Z timeout=5\n";
    nla_alert_t al = {.kind = NLA_MISSING,
                      .level = NL_LVL_ERROR,
                      .name = "xfer",
                      .key = "xfer guid=g1 req.id=7",
                      .line = line,
                      .line_len = strlen(line),
                      .firing = 1};
    assert_int_equal(nl_ts_parse("2026-11-22T12:00:05Z", 20, &al.start), 0);
    char bs[256], es[256];
    nl_buf_t b, e;
    nl_buf_init(&b, bs, sizeof bs);
    nl_buf_init(&e, es, sizeof es);
    nla__am_alert(&b, &e, &al, "http://w/{name}", "http://r/{kind}/{name}", 1);
    nl__putc(&b, 0);
    const char *want =
        "{\"labels\":{\"alertname\":\"xfer\",\"kind\":\"missing\",\"severity\":\"error\","
        "\"activity\":\"xfer\",\"guid\":\"g1\",\"req_id\":\"7\",\"key_alertname\":\"x\","
        "\"_9x\":\"a\\\"b\"},\"annotations\":{\"summary\":\"xfer guid=g1 req.id=7: started at "
        "2026-11-22T12:00:00Z, no end within 5 s\",\"description\":\"ts=2026-11-22T12:00:05Z";
    if (strncmp(b.p, want, strlen(want))) fail_msg("got %s", b.p);
    assert_non_null(strstr(b.p, "\"runbook_url\":\"http://w/xfer\"},"
                                "\"startsAt\":\"2026-11-22T12:00:05.000000Z\","
                                "\"generatorURL\":\"http://r/missing/xfer\"}"));
    assert_null(strstr(b.p, "endsAt")); /* firing: Alertmanager's resolve_timeout runs */

    /* the firing set: in, again (replaced, not twice), then out by the resolve */
    nla_am_set_t *set = nla__am_set_new();
    assert_int_equal(nla__am_set_apply(set, e.p, e.len), 0);
    assert_int_equal(nla__am_set_apply(set, e.p, e.len), 0);
    assert_int_equal(nla__am_set_count(set), 1);
    size_t len;
    char *body = nla__am_set_body(set, &len);
    assert_true(len == b.len - 1 + 2 && body[0] == '[' && !memcmp(body + 1, b.p, b.len - 1));
    free(body);
    al.firing = 0;
    al.end = al.start + 30000000;
    b.len = e.len = 0;
    nla__am_alert(&b, &e, &al, NULL, NULL, 1);
    nl__putc(&b, 0);
    assert_non_null(strstr(b.p, "\"endsAt\":\"2026-11-22T12:00:35.000000Z\"}"));
    assert_null(strstr(b.p, "runbook_url"));
    assert_int_equal(nla__am_set_apply(set, e.p, e.len), 0);
    assert_int_equal(nla__am_set_count(set), 0);
    body = nla__am_set_body(set, &len);
    assert_string_equal(body, "[]");
    free(body);
    assert_int_equal(nla__am_set_apply(set, "x 1 {}\n", 7), -1); /* unreadable: said */
    nla__am_set_free(set);
    nl_buf_free(&b);
    nl_buf_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config),           cmocka_unit_test(test_json_strings),
        cmocka_unit_test(test_groups_and_state), cmocka_unit_test(test_silences_file),
        cmocka_unit_test(test_alertmanager),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
