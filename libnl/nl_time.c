/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_time.c — the wall clock and ISO-8601 timestamps, without gmtime/strftime/strptime:
 * those take locks or consult the locale, and nl_write formats a timestamp on every call. */
#include <string.h>
#include <time.h>

#include "nl_num.h"
#include "nlkit/nl_bp.h"

#define USEC_PER_SEC 1000000LL
#define SEC_PER_DAY 86400LL

int64_t nl_now_usec(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * USEC_PER_SEC + t.tv_nsec / 1000;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm): exact
 * for every year, no tables, no time zone. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* Inverse of days_from_civil. */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Two digits of v (0..99). */
static char *put2(char *p, unsigned v)
{
    memcpy(p, nl__digits2 + 2 * v, 2);
    return p + 2;
}

/* ".ffffffZ" and the NUL at p (p is out + 19); returns NL_TS_LEN. */
static int put_fraction(char *p, unsigned frac)
{
    *p++ = '.';
    p = put2(put2(put2(p, frac / 10000), frac / 100 % 100), frac % 100);
    p[0] = 'Z';
    p[1] = '\0';
    return NL_TS_LEN;
}

int nl_ts_format(int64_t usec, char *out)
{
    static const int64_t lo = -62167219200LL * USEC_PER_SEC;          /* 0000-01-01T00:00:00Z */
    static const int64_t hi = 253402300799LL * USEC_PER_SEC + 999999; /* 9999-12-31T23:59:59Z */
    if (usec < lo) usec = lo;
    if (usec > hi) usec = hi;
    int64_t secs = usec >= 0 ? usec / USEC_PER_SEC : -((-usec + USEC_PER_SEC - 1) / USEC_PER_SEC);
    unsigned frac = (unsigned)(usec - secs * USEC_PER_SEC);
    /* Per-thread cache of the "YYYY-MM-DDTHH:MM:SS" text of the last second formatted: most
     * calls fall in the same second as the previous one. Thread-local, so no sharing. */
    static _Thread_local int64_t cached_sec = INT64_MIN;
    static _Thread_local char cached[20];
    if (secs == cached_sec) {
        memcpy(out, cached, 19);
        return put_fraction(out + 19, frac);
    }
    int64_t days = secs >= 0 ? secs / SEC_PER_DAY : -((-secs + SEC_PER_DAY - 1) / SEC_PER_DAY);
    unsigned sod = (unsigned)(secs - days * SEC_PER_DAY);
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    char *p = out;
    p = put2(p, (unsigned)(y / 100));
    p = put2(p, (unsigned)(y % 100));
    *p++ = '-';
    p = put2(p, m);
    *p++ = '-';
    p = put2(p, d);
    *p++ = 'T';
    p = put2(p, sod / 3600);
    *p++ = ':';
    p = put2(p, sod / 60 % 60);
    *p++ = ':';
    p = put2(p, sod % 60);
    memcpy(cached, out, 19);
    cached_sec = secs;
    return put_fraction(p, frac);
}

/* Read exactly n digits at s[*i]; -1 if any is not a digit or the input ends. */
static int64_t digits(const char *s, size_t len, size_t *i, int n)
{
    int64_t v = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (*i >= len || s[*i] < '0' || s[*i] > '9') return -1;
        v = v * 10 + (s[*i] - '0');
    }
    return v;
}

static int expect(const char *s, size_t len, size_t *i, char c)
{
    if (*i >= len || s[*i] != c) return 0;
    (*i)++;
    return 1;
}

/* Up to 9 fraction digits after a '.' (any number when loose), scaled to microseconds
 * (truncating). */
static int fraction_usec(const char *s, size_t len, size_t *i, int64_t *usec, int loose)
{
    *usec = 0;
    if (*i >= len || s[*i] != '.') return 0;
    (*i)++;
    int n = 0;
    int64_t scale = 100000;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
        if (++n > 9 && !loose) return -1;
        *usec += (s[*i] - '0') * scale;
        scale /= 10;
        (*i)++;
    }
    return n == 0 ? -1 : 0;
}

static int parse_epoch(const char *s, size_t len, int64_t *usec, int loose)
{
    size_t i = 0;
    int neg = expect(s, len, &i, '-');
    int64_t sec = 0;
    size_t start = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (i - start >= 12) return NL_ETS; /* beyond year 9999 */
        sec = sec * 10 + (s[i++] - '0');
    }
    if (i == start) return NL_ETS;
    int64_t frac;
    if (fraction_usec(s, len, &i, &frac, loose) < 0 || i != len) return NL_ETS;
    int64_t v = sec * USEC_PER_SEC + frac;
    *usec = neg ? -v : v;
    return 0;
}

/* Loose adds what NetLogger's reader takes and nlkit never writes: a lowercase 'z', no
 * zone at all (read as UTC, as nlkit writes), more than 9 fraction digits. */
static int ts_parse(const char *s, size_t len, int64_t *usec, int loose)
{
    static const unsigned char mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (!s || !usec || len == 0) return NL_ETS;
    if (len < 19 || s[4] != '-') return parse_epoch(s, len, usec, loose);
    size_t i = 0;
    int64_t y = digits(s, len, &i, 4);
    if (y < 0 || !expect(s, len, &i, '-')) return NL_ETS;
    int64_t mo = digits(s, len, &i, 2);
    if (mo < 1 || mo > 12 || !expect(s, len, &i, '-')) return NL_ETS;
    int64_t d = digits(s, len, &i, 2);
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap)) return NL_ETS;
    if (!expect(s, len, &i, 'T')) return NL_ETS;
    int64_t h = digits(s, len, &i, 2);
    if (h < 0 || h > 23 || !expect(s, len, &i, ':')) return NL_ETS;
    int64_t mi = digits(s, len, &i, 2);
    if (mi < 0 || mi > 59 || !expect(s, len, &i, ':')) return NL_ETS;
    int64_t se = digits(s, len, &i, 2);
    if (se < 0 || se > 60) return NL_ETS;
    int64_t frac;
    if (fraction_usec(s, len, &i, &frac, loose) < 0) return NL_ETS;
    int64_t off = 0;
    if (expect(s, len, &i, 'Z') || (loose && (i == len || expect(s, len, &i, 'z')))) {
        off = 0;
    } else if (i < len && (s[i] == '+' || s[i] == '-')) {
        int sign = s[i++] == '-' ? -1 : 1;
        int64_t oh = digits(s, len, &i, 2);
        if (oh < 0 || oh > 23 || !expect(s, len, &i, ':')) return NL_ETS;
        int64_t om = digits(s, len, &i, 2);
        if (om < 0 || om > 59) return NL_ETS;
        off = sign * (oh * 3600 + om * 60);
    } else {
        return NL_ETS;
    }
    if (i != len) return NL_ETS;
    int64_t secs =
        days_from_civil(y, (unsigned)mo, (unsigned)d) * SEC_PER_DAY + h * 3600 + mi * 60 + se - off;
    *usec = secs * USEC_PER_SEC + frac;
    return 0;
}

int nl_ts_parse(const char *s, size_t len, int64_t *usec) { return ts_parse(s, len, usec, 0); }

int nl__ts_parse_loose(const char *s, size_t len, int64_t *usec)
{
    return ts_parse(s, len, usec, 1);
}
