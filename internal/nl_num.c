/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_num.c — doubles to and from text in the C locale. The application may have called
 * setlocale(LC_NUMERIC, ...) (a German locale writes "1,5"); log lines must not change
 * with it. One immutable "C" locale object is created once (pthread_once) and used through
 * uselocale/strtod_l, which touch only the calling thread. */
#define _GNU_SOURCE
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_num.h"

static pthread_once_t c_once = PTHREAD_ONCE_INIT;
static locale_t c_locale; /* written once under c_once, then read-only */

static void c_locale_init(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t c_loc(void)
{
    pthread_once(&c_once, c_locale_init);
    return c_locale;
}

int nl__strtod(const char *s, size_t len, double *out)
{
    char tmp[64];
    if (len == 0 || len >= sizeof tmp) return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    locale_t c = c_loc();
    double v = c ? strtod_l(tmp, &end, c) : strtod(tmp, &end);
    if (end != tmp + len) return -1;
    *out = v;
    return 0;
}

#define D10(t) t "0" t "1" t "2" t "3" t "4" t "5" t "6" t "7" t "8" t "9"
const char nl__digits2[200] =
    D10("0") D10("1") D10("2") D10("3") D10("4") D10("5") D10("6") D10("7") D10("8") D10("9");
#undef D10

char *nl__utoa_back(unsigned long long v, char *end)
{
    char *p = end;
    while (v >= 100) {
        p -= 2;
        memcpy(p, nl__digits2 + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, nl__digits2 + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

int nl__dtoa(double v, char *out)
{
    if (isnan(v)) return (int)(strcpy(out, "nan"), 3);
    if (isinf(v)) return v < 0 ? (int)(strcpy(out, "-inf"), 4) : (int)(strcpy(out, "inf"), 3);
    locale_t c = c_loc();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(out, 33, "%.*g", prec, v);
        double back;
        if (prec == 17 || (nl__strtod(out, (size_t)n, &back) == 0 && back == v)) break;
    }
    if (c) uselocale(old);
    return n;
}

double nl__parse_dur(const char *s)
{
    static const struct {
        const char *u;
        double mul;
    } units[] = {{"", 1},     {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"m", 60},
                 {"h", 3600}, {"d", 86400}, {"w", 7 * 86400}};
    size_t n = strspn(s, "0123456789.");
    double v;
    if (!n || nl__strtod(s, n, &v) || !isfinite(v)) return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(s + n, units[i].u)) return v * units[i].mul;
    return -1;
}
