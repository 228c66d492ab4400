/* SPDX-License-Identifier: BSD-3-Clause */
/* test_encode.c — the encoder: random byte strings round-trip through the parser unchanged,
 * every line is exactly one line, numbers and timestamps are written exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_test.h"
#include "nlkit/nl_bp.h"

/* Encode one line with the given value, parse it strictly, return the parsed value. */
static void roundtrip_one(const char *v, size_t len, nl_rec_t *rec)
{
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl_enc_begin(&b, 1732276800123456LL, "rt.test", NL_LVL_INFO, "g1");
    nl_enc_str(&b, "val", v, len);
    nl_enc_i64(&b, "after", 7);
    assert_int_equal(nl_enc_end(&b), 0);
    /* exactly one line: a single '\n', at the end; no other control byte anywhere */
    for (size_t i = 0; i + 1 < b.len; i++) {
        unsigned char c = (unsigned char)b.p[i];
        if (c < 0x20 || c == 0x7f) fail_msg("control byte 0x%02x at %zu in encoded line", c, i);
    }
    assert_int_equal(b.p[b.len - 1], '\n');
    nl_perr_t err;
    int rc = nl_parse(rec, b.p, b.len, 1, NL_PARSE_STRICT, &err);
    if (rc != 1)
        fail_msg("parse failed: col %d: %s\nline: %.*s", err.col, err.msg, (int)b.len, b.p);
    assert_int_equal(rec->n, 6);
    const nl_field_t *f = nl_rec_get(rec, "val");
    assert_non_null(f);
    assert_int_equal(f->value_len, len);
    assert_memory_equal(f->value, v, len);
    assert_true(nl_field_is(nl_rec_get(rec, "after"), "7"));
    assert_true(nl_field_is(nl_rec_get(rec, "event"), "rt.test"));
    nl_buf_free(&b);
}

static void test_roundtrip_random(void **state)
{
    (void)state;
    uint64_t seed = 20261122;
    nl_rec_t rec;
    nl_rec_init(&rec);
    char *v = malloc(8192);
    static const char tricky[] = " =\"\\\n\r\t\x01\x7f\xc3\xa9\xff\xe2\x82";
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = iter % 100 == 0 ? 4096 + t_rand(&seed) % 4096 : t_rand(&seed) % 64;
        int mode = (int)(t_rand(&seed) % 3);
        for (size_t i = 0; i < len; i++) {
            uint64_t r = t_rand(&seed);
            char c;
            if (mode == 0)
                c = (char)(1 + r % 255); /* any byte but NUL */
            else if (mode == 1)
                c = tricky[r % (sizeof tricky - 1)];
            else
                c = (char)(32 + r % 95); /* printable */
            v[i] = c;
        }
        roundtrip_one(v, len, &rec);
    }
    free(v);
    nl_rec_free(&rec);
}

static void test_roundtrip_specials(void **state)
{
    (void)state;
    const char *cases[] = {"",
                           "a event=evil ts=0",
                           "\"",
                           "\\",
                           "x\ny",
                           "trail\\",
                           "=",
                           "C:\\dir\\",
                           "d\xc3\xa9j\xc3\xa0",
                           "\xed\xa0\x80" /* surrogate: not UTF-8 */,
                           "\xf4\x90\x80\x80"};
    nl_rec_t rec;
    nl_rec_init(&rec);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        roundtrip_one(cases[i], strlen(cases[i]), &rec);
    nl_rec_free(&rec);
}

/* What nl_bp.h promises NetLogger's reader (NL_PARSE_NETLOGGER reads as it does): every
 * value nlkit writes reads the same there, unless it holds a backslash inside quotes or
 * a byte nlkit escapes (a control character, invalid UTF-8); a quoted value ending in a
 * backslash may then take the fields after it along. */
static void test_netlogger_reads_ours(void **state)
{
    (void)state;
    static const char *const atoms[] = {"\\",
                                        "\"",
                                        "=",
                                        " ",
                                        "n",
                                        "t",
                                        "x4",
                                        "1",
                                        "\xc3\xa9",
                                        "\xc2\xa0",
                                        "\xe2\x80\xa8",
                                        "a",
                                        "#",
                                        "\xe2\x98\x83",
                                        "\t"};
    uint64_t seed = 99;
    nl_rec_t rec;
    nl_rec_init(&rec);
    int same = 0, differ = 0;
    for (int it = 0; it < 20000; it++) {
        char v[64];
        size_t n = 0;
        for (int a = (int)(t_rand(&seed) % 8); a > 0; a--) {
            const char *at = atoms[t_rand(&seed) % (sizeof atoms / sizeof atoms[0])];
            memcpy(v + n, at, strlen(at));
            n += strlen(at);
        }
        nl_buf_t b;
        nl_buf_init(&b, NULL, 0);
        nl_enc_begin(&b, 0, "x", NL_LVL_INFO, NULL);
        nl_enc_str(&b, "v", v, n);
        nl_enc_str(&b, "w", "a b", 3);
        assert_int_equal(nl_enc_end(&b), 0);
        assert_int_equal(nl_parse(&rec, b.p, b.len, 1, NL_PARSE_NETLOGGER, NULL), 1);
        const nl_field_t *f = nl_rec_get(&rec, "v");
        size_t at = 0; /* " v=" in the line, which has no NUL to end a strstr */
        while (at + 3 < b.len && memcmp(b.p + at, " v=", 3)) at++;
        assert_true(at + 3 < b.len);
        int quoted = b.p[at + 3] == '"';
        int escaped = memchr(v, '\t', n) || (quoted && memchr(v, '\\', n));
        int ok = f && f->value_len == n && !memcmp(f->value, v, n);
        if (!escaped && !ok)
            fail_msg("NetLogger would read '%.*s' as '%.*s' from %.*s", (int)n, v,
                     f ? (int)f->value_len : 0, f ? f->value : "", (int)b.len, b.p);
        if (!escaped) assert_true(nl_field_is(nl_rec_get(&rec, "w"), "a b"));
        ok ? same++ : differ++;
        nl_buf_free(&b);
    }
    assert_true(same > differ); /* most values hold neither */
    nl_rec_free(&rec);
}

static void expect_line(nl_buf_t *b, const char *want)
{
    assert_int_equal(nl_enc_end(b), 0);
    assert_int_equal(b->len, strlen(want));
    assert_memory_equal(b->p, want, b->len);
}

static void test_quoting_rules(void **state)
{
    (void)state;
    char st[512];
    nl_buf_t b;
    nl_buf_init(&b, st, sizeof st);
    nl_enc_begin(&b, 0, "x", NL_LVL_WARN, NULL);
    nl_enc_str(&b, "plain", "abc", 3);
    nl_enc_str(&b, "empty", "", 0);
    nl_enc_str(&b, "sp", "a b", 3);
    nl_enc_str(&b, "eq", "a=b", 3);
    nl_enc_str(&b, "q", "say \"hi\"", 8);
    nl_enc_str(&b, "ctl", "\x01\x7f\t", 3);
    nl_enc_str(&b, "utf", "d\xc3\xa9j\xc3\xa0", 6);
    nl_enc_str(&b, "bad", "\xff", 1);
    nl_enc_str(&b, "path", "C:\\new\\", 7);     /* a backslash alone: as is */
    nl_enc_str(&b, "qpath", "C:\\new dir", 10); /* quoted for the space: escaped */
    nl_enc_str(&b, "nbsp",
               "a\xc2\xa0"
               "b",
               4); /* NetLogger ends a value there */
    nl_enc_str(&b, "ideo",
               "a\xe3\x80\x80"
               "b",
               5);
    nl_enc_str(&b, "nel",
               "a\xc2\x85"
               "b",
               4);
    expect_line(&b, "ts=1970-01-01T00:00:00.000000Z event=x level=Warn plain=abc empty=\"\" "
                    "sp=\"a b\" eq=\"a=b\" q=\"say \\\"hi\\\"\" ctl=\"\\x01\\x7f\\t\" "
                    "utf=d\xc3\xa9j\xc3\xa0 bad=\"\\xff\" path=C:\\new\\ qpath=\"C:\\\\new dir\" "
                    "nbsp=\"a\xc2\xa0"
                    "b\" ideo=\"a\xe3\x80\x80"
                    "b\" nel=\"a\xc2\x85"
                    "b\"\n");
    assert_int_equal(b.heap, 0); /* fitted in the caller's storage */
}

/* The text nl_enc_str gives the value v[0, len) (after "v="), into out. */
static size_t encoded_value(const char *v, size_t len, char *out, size_t cap)
{
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl_enc_str(&b, "v", v, len);
    assert_int_equal(b.err, 0);
    assert_true(b.len >= 3 && b.len - 3 < cap);
    size_t n = b.len - 3;
    memcpy(out, b.p + 3, n);
    nl_buf_free(&b);
    return n;
}

/* Plain values are checked 16 bytes at a time: every byte that needs quoting or escaping
 * is found wherever it sits (in the first block, a middle one, the overlapping last one, or
 * a value shorter than a block), and a value of printable bytes is written as is. */
static void test_one_special_anywhere(void **state)
{
    (void)state;
    char v[64], out[512];
    for (size_t len = 1; len <= 49; len++) {
        for (size_t pos = 0; pos < len; pos++) {
            for (int c = 0; c < 256; c++) {
                memset(v, 'x', len);
                v[pos] = (char)c;
                size_t n = encoded_value(v, len, out, sizeof out);
                /* a backslash alone forces nothing; a lone byte >= 0x80 is not UTF-8 */
                int raw = c >= 0x21 && c <= 0x7e && c != '"' && c != '=';
                if (raw && (n != len || memcmp(out, v, len) != 0))
                    fail_msg("byte 0x%02x at %zu of %zu: changed: %.*s", c, pos, len, (int)n, out);
                if (!raw && (out[0] != '"' || out[n - 1] != '"'))
                    fail_msg("byte 0x%02x at %zu of %zu: not quoted: %.*s", c, pos, len, (int)n,
                             out);
            }
        }
    }
}

static void test_numbers(void **state)
{
    (void)state;
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl_enc_begin(&b, 1732276800250000LL, "n", NL_LVL_INFO, "g");
    nl_enc_i64(&b, "i", -9223372036854775807LL - 1);
    nl_enc_u64(&b, "u", 18446744073709551615ULL);
    nl_enc_dbl(&b, "d1", 0.1);
    nl_enc_dbl(&b, "d2", 1e300);
    nl_enc_dbl(&b, "d3", -2.5);
    nl_enc_dbl(&b, "d4", 1048576.0);
    nl_enc_dbl(&b, "d5", NAN);
    nl_enc_dbl(&b, "d6", -INFINITY);
    nl_enc_dbl(&b, "d7", 1.0 / 3.0);
    nl_enc_dbl(&b, "d8", -0.0);
    nl_enc_ts(&b, "t", 0);
    expect_line(
        &b,
        "ts=2024-11-22T12:00:00.250000Z event=n level=Info guid=g "
        "i=-9223372036854775808 u=18446744073709551615 d1=0.1 d2=1e+300 d3=-2.5 "
        "d4=1048576 d5=nan d6=-inf d7=0.3333333333333333 d8=-0 t=1970-01-01T00:00:00.000000Z\n");
    /* and every double reads back exactly */
    nl_rec_t rec;
    nl_rec_init(&rec);
    assert_int_equal(nl_parse(&rec, b.p, b.len, 1, 0, NULL), 1);
    double d;
    assert_int_equal(nl_field_double(nl_rec_get(&rec, "d7"), &d), 0);
    assert_true(d == 1.0 / 3.0);
    assert_int_equal(nl_field_double(nl_rec_get(&rec, "d6"), &d), 0);
    assert_true(isinf(d) && d < 0);
    uint64_t seed = 7;
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = t_rand(&seed);
        double x;
        memcpy(&x, &bits, sizeof x);
        if (isnan(x)) continue;
        nl_buf_reset(&b);
        nl_enc_begin(&b, 0, "n", NL_LVL_INFO, NULL);
        nl_enc_dbl(&b, "x", x);
        assert_int_equal(nl_enc_end(&b), 0);
        assert_int_equal(nl_parse(&rec, b.p, b.len, 1, 0, NULL), 1);
        assert_int_equal(nl_field_double(nl_rec_get(&rec, "x"), &d), 0);
        if (d != x) fail_msg("double %a did not round-trip: %.*s", x, (int)b.len, b.p);
    }
    nl_rec_free(&rec);
    nl_buf_free(&b);
}

static void test_timestamps(void **state)
{
    (void)state;
    char out[NL_TS_LEN + 1];
    assert_int_equal(nl_ts_format(1732276800123456LL, out), NL_TS_LEN);
    assert_string_equal(out, "2024-11-22T12:00:00.123456Z");
    nl_ts_format(-1, out);
    assert_string_equal(out, "1969-12-31T23:59:59.999999Z");
    nl_ts_format(951782400000000LL, out); /* leap day 2000 */
    assert_string_equal(out, "2000-02-29T00:00:00.000000Z");
    int64_t us;
    assert_int_equal(nl_ts_parse("2026-11-22T13:00:00.000001+01:00", 32, &us), 0);
    assert_int_equal(us, 1795348800000001LL);
    assert_int_equal(nl_ts_parse("1732276800.25", 13, &us), 0);
    assert_int_equal(us, 1732276800250000LL);
    assert_int_equal(nl_ts_parse("2026-02-29T00:00:00Z", 20, &us), NL_ETS); /* not leap */
    assert_int_equal(nl_ts_parse("2024-02-29T00:00:00Z", 20, &us), 0);
    assert_int_equal(nl_ts_parse("2026-11-22T24:00:00Z", 20, &us), NL_ETS);
    assert_int_equal(nl_ts_parse("2026-11-22T12:00:00", 19, &us), NL_ETS); /* no zone */
    assert_int_equal(nl_ts_parse("2026-11-22T12:00:00.Z", 21, &us), NL_ETS);
    assert_int_equal(nl_ts_parse("12ab", 4, &us), NL_ETS);
    /* format -> parse is the identity over a wide range */
    uint64_t seed = 3;
    for (int i = 0; i < 100000; i++) {
        int64_t v = (int64_t)(t_rand(&seed) % 253402300799000000ULL);
        nl_ts_format(v, out);
        assert_int_equal(nl_ts_parse(out, NL_TS_LEN, &us), 0);
        if (us != v) fail_msg("%s parsed to %lld, want %lld", out, (long long)us, (long long)v);
    }
}

/* nl__put's short copies (two overlapping moves per size class): every length from 0 to
 * 100, from every source misalignment, lands exactly, and the byte after it is untouched. */
static void test_put_every_length(void **state)
{
    (void)state;
    char src[128], dst[256];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (char)('A' + i % 53);
    for (size_t n = 0; n <= 100; n++) {
        for (size_t off = 0; off < 8; off++) {
            memset(dst, '#', sizeof dst);
            nl_buf_t b;
            nl_buf_init(&b, dst, sizeof dst);
            nl__put(&b, "x", 1);
            nl__put(&b, src + off, n);
            assert_int_equal(b.len, n + 1);
            assert_true(b.p == dst);
            if (memcmp(dst + 1, src + off, n) != 0)
                fail_msg("length %zu offset %zu: wrong bytes", n, off);
            if (dst[n + 1] != '#') fail_msg("length %zu offset %zu: wrote past the end", n, off);
        }
    }
}

static void test_names_and_limits(void **state)
{
    (void)state;
    nl_buf_t b;
    nl_buf_init(&b, NULL, 0);
    nl_enc_begin(&b, 0, "x", NL_LVL_INFO, NULL);
    nl_enc_str(&b, "bad name", "v", 1);
    assert_int_equal(nl_enc_end(&b), NL_ENAME);
    nl_buf_reset(&b);
    nl_enc_begin(&b, 0, "x", NL_LVL_INFO, NULL);
    size_t big = NL_LINE_MAX;
    char *v = malloc(big);
    memset(v, 'a', big);
    nl_enc_str(&b, "v", v, big);
    assert_int_equal(nl_enc_end(&b), NL_ETOOBIG);
    free(v);
    nl_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_random),     cmocka_unit_test(test_roundtrip_specials),
        cmocka_unit_test(test_quoting_rules),        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_netlogger_reads_ours), cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_names_and_limits),     cmocka_unit_test(test_put_every_length),
        cmocka_unit_test(test_one_special_anywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
