/* SPDX-License-Identifier: BSD-3-Clause */
/* test_hash.c — the short-key tools of internal/nl_hash.h that the summarizer's identity
 * table and caches rely on: nl__key_eq agrees with memcmp for every length up to 80 and a
 * difference at every position (the word loop and the overlapping last word both count),
 * and nl__hash gives equal keys equal hashes wherever they sit in memory. */
#include <stdlib.h>
#include <string.h>

#include "nl_hash.h"
#include "nl_test.h"

enum { MAXLEN = 80 };

static void test_key_eq_every_length_and_position(void **state)
{
    (void)state;
    uint64_t rs = 7;
    unsigned char a[MAXLEN + 8], b[MAXLEN + 8];
    for (size_t n = 0; n <= MAXLEN; n++) {
        for (size_t i = 0; i < sizeof a; i++) a[i] = (unsigned char)t_rand(&rs);
        /* equal n bytes, at every misalignment of the second key */
        for (size_t off = 0; off < 8; off++) {
            memcpy(b + off, a, n);
            b[off + n] = (unsigned char)(a[n] ^ 0x5a); /* a byte beyond n never matters */
            assert_true(nl__key_eq(a, b + off, n));
            for (size_t pos = 0; pos < n; pos++) {
                for (int bit = 0; bit < 8; bit += 7) { /* the low and the high bit */
                    b[off + pos] ^= (unsigned char)(1u << bit);
                    if (nl__key_eq(a, b + off, n))
                        fail_msg("length %zu, byte %zu, bit %d differs, called equal", n, pos, bit);
                    b[off + pos] ^= (unsigned char)(1u << bit);
                }
            }
        }
    }
}

static void test_hash_of_equal_keys(void **state)
{
    (void)state;
    uint64_t rs = 11;
    unsigned char a[MAXLEN], b[MAXLEN + 8];
    for (size_t n = 0; n <= MAXLEN; n++) {
        for (size_t i = 0; i < n; i++) a[i] = (unsigned char)t_rand(&rs);
        memcpy(b + 3, a, n);
        assert_true(nl__hash(a, n, 42) == nl__hash(b + 3, n, 42));
        if (n) { /* and a one-bit change changes it (for these keys; not a promise in general) */
            b[3 + n - 1] ^= 1;
            assert_true(nl__hash(a, n, 42) != nl__hash(b + 3, n, 42));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_eq_every_length_and_position),
        cmocka_unit_test(test_hash_of_equal_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
