/* SPDX-License-Identifier: BSD-3-Clause */
/* test_rules.c — summarization rules: the NL_SUMMARY syntax, precedence of globs, errors
 * with line and column, all-or-nothing parsing, activity names. */
#include <string.h>

#include "nl_test.h"
#include "nls_rules.h"

static const nls_rule_t *match(const nls_rules_t *rs, const char *activity)
{
    return nls_rules_match(rs, activity, strlen(activity));
}

static void test_design_example(void **state)
{
    (void)state;
    nls_rules_t rs;
    nls_rules_init(&rs);
    assert_int_equal(nls_rules_parse(&rs, "gridftp.*=summary:1;job.loop=both:5;*=full", NULL), 0);
    assert_int_equal(rs.n, 3);
    const nls_rule_t *r = match(&rs, "gridftp.disk.read");
    assert_non_null(r);
    assert_int_equal(r->mode, NLS_SUMMARY);
    assert_true(r->interval == 1.0);
    assert_string_equal(r->value_field, "value");
    r = match(&rs, "job.loop");
    assert_int_equal(r->mode, NLS_BOTH);
    assert_true(r->interval == 5.0);
    r = match(&rs, "anything.else");
    assert_int_equal(r->mode, NLS_FULL);
    nls_rules_free(&rs);
    /* the point-event modes of the example */
    nls_rules_init(&rs);
    assert_int_equal(nls_rules_parse(&rs, "app.retry=count:10;app.warn=DEDUP", NULL), 0);
    r = match(&rs, "app.retry");
    assert_int_equal(r->mode, NLS_COUNT);
    assert_true(r->interval == 10.0);
    assert_int_equal(match(&rs, "app.warn")->mode, NLS_DEDUP);
    nl_perr_t pe;
    assert_true(nls_rules_parse(&rs, "x=counts", &pe) < 0);
    nls_rules_free(&rs);
    /* without a catch-all, an unmatched activity has no rule (written unchanged) */
    nls_rules_init(&rs);
    assert_int_equal(nls_rules_parse(&rs, "a.*=off", NULL), 0);
    assert_null(match(&rs, "b.x"));
    assert_int_equal(match(&rs, "a.x")->mode, NLS_OFF);
    nls_rules_free(&rs);
}

static void test_precedence(void **state)
{
    (void)state;
    nls_rules_t rs;
    nls_rules_init(&rs);
    /* order in the text does not matter for specificity */
    assert_int_equal(
        nls_rules_parse(&rs, "x=full;*=off;gridftp.disk.*=both:2;gridftp.*=summary", NULL), 0);
    assert_int_equal(match(&rs, "gridftp.disk.write")->mode, NLS_BOTH); /* more literals */
    assert_int_equal(match(&rs, "gridftp.net.write")->mode, NLS_SUMMARY);
    assert_int_equal(match(&rs, "x")->mode, NLS_FULL); /* exact beats '*' */
    assert_int_equal(match(&rs, "y")->mode, NLS_OFF);
    /* a tie goes to the rule added later: a file after the environment, the API after both */
    assert_int_equal(nls_rules_parse(&rs, "gridftp.*=off:3", NULL), 0);
    assert_int_equal(match(&rs, "gridftp.net.write")->mode, NLS_OFF);
    assert_int_equal(nls_rules_add(&rs, "gridftp.*", NLS_BOTH, 0, "nbytes"), 0);
    const nls_rule_t *r = match(&rs, "gridftp.net.write");
    assert_int_equal(r->mode, NLS_BOTH);
    assert_true(r->interval == 0.0);
    assert_string_equal(r->value_field, "nbytes");
    /* '?' matches one character */
    assert_int_equal(nls_rules_parse(&rs, "disk?=summary:9", NULL), 0);
    assert_true(match(&rs, "disk1")->interval == 9.0);
    assert_int_equal(match(&rs, "disk12")->mode, NLS_OFF); /* falls to '*' */
    nls_rules_free(&rs);
}

static void test_layout_and_comments(void **state)
{
    (void)state;
    nls_rules_t rs;
    nls_rules_init(&rs);
    const char *file = "# rules for the transfer service\n"
                       "  gridftp.* = Summary : 0.5 : nbytes   # disk and network\n"
                       "\n"
                       "job.loop=both;;  ;\r\n"
                       "*=full\n";
    nl_perr_t err;
    assert_int_equal(nls_rules_parse(&rs, file, &err), 0);
    assert_int_equal(rs.n, 3);
    const nls_rule_t *r = match(&rs, "gridftp.disk.write");
    assert_int_equal(r->mode, NLS_SUMMARY);
    assert_true(r->interval == 0.5);
    assert_string_equal(r->value_field, "nbytes");
    assert_true(match(&rs, "job.loop")->interval == 1.0); /* default interval */
    assert_int_equal(nls_rules_parse(&rs, "", &err), 0);
    assert_int_equal(nls_rules_parse(&rs, "# only a comment", &err), 0);
    assert_int_equal(rs.n, 3);
    nls_rules_free(&rs);
}

static void test_errors(void **state)
{
    (void)state;
    struct {
        const char *text;
        int code, line, col;
        const char *says;
    } cases[] = {
        {"a=sumary", NL_EPARSE, 1, 3, "unknown mode"},
        {"a=full\nb=both:-1", NL_EPARSE, 2, 8, "bad interval"},
        {"a=full\nb=both:1e9", NL_EPARSE, 2, 8, "bad interval"},
        {"a=full\n\n  c=both:x", NL_EPARSE, 3, 10, "bad interval"},
        {"x y=full", NL_ENAME, 1, 1, "bad glob"},
        {"=full", NL_ENAME, 1, 1, "missing"},
        {"a", NL_EPARSE, 1, 2, "expected '='"},
        {"a=full:1:bad name", NL_ENAME, 1, 10, "bad value field"},
        {"a=full junk", NL_EPARSE, 1, 3, "unknown mode"},
        {"a=full:1:b*", NL_ENAME, 1, 10, "bad value field"},
        {"a=full:1:", NL_ENAME, 1, 10, "bad value field"},
        {"d\xc3\xa9=full", NL_ENAME, 1, 1, "bad glob"},
        {"a=summary:1:v:x", NL_EPARSE, 1, 15, "unexpected"},
        {"a=summary:keys=x", NL_EPARSE, 1, 11, "unknown or repeated option"},
        {"a=summary:key=x:key=y", NL_EPARSE, 1, 17, "unknown or repeated option"},
        {"a=summary:key=x,,y", NL_ENAME, 1, 17, "bad key field"},
        {"a=summary:key=", NL_ENAME, 1, 15, "bad key field"},
        {"a=summary:key=a,b,c,d,e", NL_EINVAL, 1, 23, "more than 4 key fields"},
        {"a=summary:result=b c", NL_ENAME, 1, 18, "bad result field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nls_rules_t rs;
        nls_rules_init(&rs);
        nl_perr_t err = {0};
        int rc = nls_rules_parse(&rs, cases[i].text, &err);
        if (rc != cases[i].code || err.line != cases[i].line || err.col != cases[i].col ||
            !strstr(err.msg, cases[i].says))
            fail_msg("'%s': got %d at %ld:%d '%s', want %d at %d:%d '%s'", cases[i].text, rc,
                     err.line, err.col, err.msg, cases[i].code, cases[i].line, cases[i].col,
                     cases[i].says);
        assert_int_equal(rs.n, 0); /* nothing from a bad text is kept */
        nls_rules_free(&rs);
    }
    /* all or nothing on top of earlier rules */
    nls_rules_t rs;
    nls_rules_init(&rs);
    assert_int_equal(nls_rules_parse(&rs, "a=full", NULL), 0);
    assert_true(nls_rules_parse(&rs, "b=both;c=bogus", NULL) < 0);
    assert_int_equal(rs.n, 1);
    assert_null(match(&rs, "b"));
    /* the API checks its arguments the same way */
    assert_int_equal(nls_rules_add(&rs, "bad glob", NLS_FULL, 1, NULL), NL_ENAME);
    assert_int_equal(nls_rules_add(&rs, "a", 7, 1, NULL), NL_EINVAL);
    assert_int_equal(nls_rules_add(&rs, "a", NLS_FULL, -1, NULL), NL_EINVAL);
    assert_int_equal(nls_rules_add(&rs, "a", NLS_FULL, 1, "v v"), NL_ENAME);
    for (int i = rs.n; i < NLS_RULES_MAX; i++)
        assert_int_equal(nls_rules_add(&rs, "z", NLS_OFF, 1, NULL), 0);
    assert_int_equal(nls_rules_add(&rs, "z", NLS_OFF, 1, NULL), NL_EINVAL); /* limit, said */
    nls_rules_free(&rs);
}

/* key= and result= options: anywhere after the mode, beside the positional interval and
 * value field; the defaults without them. */
static void test_key_and_result_options(void **state)
{
    (void)state;
    nls_rules_t rs;
    nls_rules_init(&rs);
    assert_int_equal(nls_rules_parse(&rs,
                                     "request=summary:1:key=route,method:result=code\n"
                                     "xfer=both:key=stream.id:5:nbytes\n"
                                     "plain=summary:2:bytes",
                                     NULL),
                     0);
    const nls_rule_t *r = match(&rs, "request");
    assert_int_equal(r->mode, NLS_SUMMARY);
    assert_true(r->interval == 1.0);
    assert_int_equal(r->nkeys, 2);
    assert_string_equal(r->keys[0], "route");
    assert_string_equal(r->keys[1], "method");
    assert_string_equal(r->result_field, "code");
    assert_string_equal(r->value_field, "value");
    r = match(&rs, "xfer");
    assert_int_equal(r->nkeys, 1);
    assert_string_equal(r->keys[0], "stream.id");
    assert_true(r->interval == 5.0);
    assert_string_equal(r->value_field, "nbytes");
    assert_string_equal(r->result_field, "status");
    r = match(&rs, "plain");
    assert_int_equal(r->nkeys, 0);
    assert_string_equal(r->result_field, "status");
    assert_string_equal(r->value_field, "bytes");
    /* copied whole (nls_config.c merges the sources with it) */
    nls_rules_t copy;
    nls_rules_init(&copy);
    for (int i = 0; i < rs.n; i++) assert_int_equal(nls_rules_append(&copy, &rs.r[i]), 0);
    r = match(&copy, "request");
    assert_int_equal(r->nkeys, 2);
    assert_string_equal(r->keys[1], "method");
    assert_string_equal(r->result_field, "code");
    nls_rules_free(&copy);
    nls_rules_free(&rs);
}

/* (an event's kind by its name is the line format's: tests/lib/test_line_format.c) */
static void test_mode_names(void **state)
{
    (void)state;
    assert_string_equal(nls_mode_name(NLS_BOTH), "both");
    assert_null(nls_mode_name(9));
}

/* An interval under 10 ms would write more summaries than events (summary:0.000001 wrote
 * a million lines in 3 s): refused by the parser and by nl_summarize's path alike. */
static void test_interval_floor(void **state)
{
    (void)state;
    nls_rules_t rs;
    nls_rules_init(&rs);
    nl_perr_t err;
    assert_int_equal(nls_rules_parse(&rs, "a=summary:0.000001", &err), NL_EPARSE);
    assert_non_null(strstr(err.msg, "0.01 to"));
    assert_int_equal(nls_rules_add(&rs, "a", NLS_SUMMARY, 0.000001, NULL), NL_EINVAL);
    assert_int_equal(nls_rules_add(&rs, "a", NLS_SUMMARY, 0.01, NULL), 0);
    assert_int_equal(nls_rules_add(&rs, "b", NLS_SUMMARY, 0, NULL), 0); /* once per run */
    nls_rules_free(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_example),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_layout_and_comments),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mode_names),
        cmocka_unit_test(test_interval_floor),
        cmocka_unit_test(test_key_and_result_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
