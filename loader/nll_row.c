/* nll_row.c — one event line into rows: `event`, `ident` (guid, *.id), `value` (the rest)
 * and, for NAME.summary events, the typed `summary` row. Prepared statements, reused. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_num.h"
#include "nll.h"

/* The summary fields that have a column, in the insert statement's parameter order after
 * event_id, ts, event, host, guid (parameters 1-5). */
#define T(name, integer)                                                                           \
    {                                                                                              \
        name, sizeof name - 1, integer                                                             \
    }
static const struct {
    const char *field;
    size_t len;
    int integer; /* an INTEGER column (else REAL) */
} typed[] = {
    T("n", 1),     T("dur.min", 0),      T("dur.max", 0),    T("dur.sum", 0), T("dur.sd", 0),
    T("v.min", 0), T("v.max", 0),        T("v.sum", 0),      T("v.sd", 0),    T("r.min", 0),
    T("r.max", 0), T("r.sum", 0),        T("r.sd", 0),       T("span", 0),    T("open", 1),
    T("int", 0),   T("orphan.start", 1), T("orphan.end", 1),
};
#undef T
#define NTYPED ((int)(sizeof typed / sizeof typed[0]))
#define SUM_FIXED 5

struct nll_rows {
    sqlite3 *db;
    unsigned flags;
    nl_rec_t rec;
    sqlite3_stmt *ins_event, *ins_ident, *ins_value, *ins_summary;
};

static int prep(nll_rows_t *r, const char *sql, sqlite3_stmt **st, nll_err_t *err)
{
    if (sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK)
        return 0;
    return nll_db_fail(r->db, err, "preparing the inserts");
}

int nll_rows_new(sqlite3 *db, unsigned parse_flags, nll_rows_t **out, nll_err_t *err)
{
    nll_rows_t *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    r->db = db;
    r->flags = parse_flags;
    nl_rec_init(&r->rec);
    char sql[1024];
    int len = snprintf(sql, sizeof sql, "INSERT INTO summary (event_id, ts, event, host, guid");
    for (int i = 0; i < NTYPED; i++) {
        len += snprintf(sql + len, sizeof sql - (size_t)len, ", ");
        for (const char *c = typed[i].field; *c; c++) sql[len++] = *c == '.' ? '_' : *c;
        if (!strcmp(typed[i].field, "int"))
            len += snprintf(sql + len, sizeof sql - (size_t)len, "erval");
    }
    len += snprintf(sql + len, sizeof sql - (size_t)len, ") VALUES (?");
    for (int i = 1; i < SUM_FIXED + NTYPED; i++)
        len += snprintf(sql + len, sizeof sql - (size_t)len, ", ?");
    snprintf(sql + len, sizeof sql - (size_t)len, ")");
    int rc = prep(r, "INSERT INTO event (ts, event, level, startend, status) VALUES (?,?,?,?,?)",
                  &r->ins_event, err);
    if (!rc) rc = prep(r, "INSERT INTO ident VALUES (?, ?, ?)", &r->ins_ident, err);
    if (!rc) rc = prep(r, "INSERT INTO value VALUES (?, ?, ?)", &r->ins_value, err);
    if (!rc) rc = prep(r, sql, &r->ins_summary, err);
    if (rc) {
        nll_rows_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void nll_rows_free(nll_rows_t *r)
{
    if (!r) return;
    sqlite3_finalize(r->ins_event);
    sqlite3_finalize(r->ins_ident);
    sqlite3_finalize(r->ins_value);
    sqlite3_finalize(r->ins_summary);
    nl_rec_free(&r->rec);
    free(r);
}

/* Whether s is a number written without superfluous characters and with at most 15
 * significant digits, so the double holds exactly what was written: -?(0|[1-9]D*)(.D*[1-9])?
 * ([eE][+-]?D{1,3})?. Most numbers in logs are; it spares formatting to check them. Then
 * *d is its value when a single exact operation gives it (digits < 2^53 times or divided
 * by an exact power of ten: correctly rounded), and *exact says whether it did. */
static int plain_decimal(const char *s, size_t len, double *d, int *exact)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = s[0] == '-', sig = 0;
    int64_t m = 0, e = 0;
    int seen_nonzero = 0;
    *exact = 0;
    if (i >= len || s[i] < '0' || s[i] > '9') return 0;
    if (s[i] == '0' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9') return 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if ((seen_nonzero |= s[i] != '0')) sig++;
        if (sig <= 15) m = m * 10 + (s[i] - '0');
    }
    if (i < len && s[i] == '.') {
        size_t start = ++i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, e--) {
            if ((seen_nonzero |= s[i] != '0')) sig++;
            if (sig <= 15) m = m * 10 + (s[i] - '0');
        }
        if (i == start || s[i - 1] == '0') return 0; /* "1." or "0.50" */
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int neg = 0, x = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
        size_t start = i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) x = x * 10 + (s[i] - '0');
        if (i == start || i - start > 3) return 0;
        e += neg ? -x : x;
    }
    if (i != len || sig > 15) return 0;
    if (e >= -22 && e <= 22) {
        *d = e < 0 ? (double)m / pow10[-e] : (double)m * pow10[e];
        if (s[0] == '-') *d = -*d;
        *exact = 1;
    }
    return 1;
}

int nll_value_type(const char *s, size_t len, int64_t *i, double *d)
{
    if (len == 0 || len > 32) return SQLITE_TEXT;
    size_t k = s[0] == '-';
    size_t digits = 0;
    while (k + digits < len && s[k + digits] >= '0' && s[k + digits] <= '9') digits++;
    if (digits && k + digits == len) {
        /* canonical integers only: "007" and "-0" would not read back as sent */
        if ((s[k] == '0' && (digits > 1 || k)) || digits > 19) return SQLITE_TEXT;
        uint64_t u = 0;
        for (size_t j = k; j < len; j++) u = u * 10 + (uint64_t)(s[j] - '0');
        if (u > (uint64_t)INT64_MAX + (uint64_t)k) return SQLITE_TEXT; /* 19 digits < 2^64 */
        *i = k ? (int64_t)(0 - u) : (int64_t)u;
        return SQLITE_INTEGER;
    }
    int exact;
    if (plain_decimal(s, len, d, &exact) && exact) return SQLITE_FLOAT;
    if (nl__strtod(s, len, d) || !isfinite(*d)) return SQLITE_TEXT;
    if (plain_decimal(s, len, d, &exact)) return SQLITE_FLOAT;
    /* 16-17 digits: a number iff it is the shortest text of its double, as we write them */
    char back[40];
    int n = nl__dtoa(*d, back);
    return n >= 0 && (size_t)n == len && !memcmp(back, s, len) ? SQLITE_FLOAT : SQLITE_TEXT;
}

static void bind_typed(sqlite3_stmt *st, int idx, const nl_field_t *f)
{
    int64_t i;
    double d;
    switch (nll_value_type(f->value, f->value_len, &i, &d)) {
    case SQLITE_INTEGER: sqlite3_bind_int64(st, idx, i); break;
    case SQLITE_FLOAT: sqlite3_bind_double(st, idx, d); break;
    default: sqlite3_bind_text(st, idx, f->value, (int)f->value_len, SQLITE_STATIC);
    }
}

static int step(nll_rows_t *r, sqlite3_stmt *st, nll_err_t *err)
{
    errno = 0;
    int rc = sqlite3_step(st);
    int seen = errno; /* for the message: the reset may overwrite it */
    sqlite3_reset(st);
    errno = seen;
    return rc == SQLITE_DONE ? 0 : nll_db_fail(r->db, err, "inserting");
}

/* Comparisons with string literals, their lengths known at compile time (this runs for
 * every field of every line). */
#define NAME_IS(f, lit) ((f)->name_len == sizeof lit - 1 && !memcmp((f)->name, lit, sizeof lit - 1))
#define HAS_SUFFIX(s, len, lit)                                                                    \
    ((len) >= sizeof lit - 1 && !memcmp((s) + (len) - (sizeof lit - 1), lit, sizeof lit - 1))

/* Which summary column field f fills (index into typed[]), or -1 if it stays in `value`:
 * not a typed name, or a value that the column would not give back exactly. */
static int summary_slot(const nl_field_t *f, sqlite3_stmt *st)
{
    for (int t = 0; t < NTYPED; t++) {
        if (f->name_len != typed[t].len || memcmp(f->name, typed[t].field, typed[t].len)) continue;
        int64_t i;
        double d;
        int ty = nll_value_type(f->value, f->value_len, &i, &d);
        if (typed[t].integer) {
            if (ty != SQLITE_INTEGER) return -1;
            sqlite3_bind_int64(st, SUM_FIXED + 1 + t, i);
        } else {
            if (ty == SQLITE_INTEGER && (i > (1ll << 53) || i < -(1ll << 53))) return -1;
            if (ty == SQLITE_TEXT) return -1;
            sqlite3_bind_double(st, SUM_FIXED + 1 + t, ty == SQLITE_INTEGER ? (double)i : d);
        }
        return t;
    }
    return -1;
}

int nll_rows_add(nll_rows_t *r, const char *line, size_t len, long lineno, nl_perr_t *perr,
                 nll_err_t *err)
{
    nl_rec_t *rec = &r->rec;
    int rc = nl_parse(rec, line, len, lineno, r->flags, perr);
    if (rc <= 0) return rc;
    const nl_field_t *ts = &rec->f[rec->i_ts], *ev = &rec->f[rec->i_event];
    int64_t usec = rec->ts_usec;
    if (!usec && nl_ts_parse(ts->value, ts->value_len, &usec)) {
        perr->line = lineno;
        uintptr_t v = (uintptr_t)ts->value, l0 = (uintptr_t)line;
        perr->col = v >= l0 && v <= l0 + len ? (int)(v - l0) + 1 : 1; /* escaped: unknown */
        perr->code = NL_ETS;
        snprintf(perr->msg, sizeof perr->msg, "unreadable ts, cannot archive the event");
        return NL_ETS;
    }
    int is_summary = HAS_SUFFIX(ev->value, ev->value_len, ".summary");
    int startend = HAS_SUFFIX(ev->value, ev->value_len, ".start") ? 0
                   : HAS_SUFFIX(ev->value, ev->value_len, ".end") ? 1
                                                                  : 2;
    const nl_field_t *status = nl_rec_get(rec, "status");
    int64_t status_i = 0;
    double unused;
    int status_col = status && nll_value_type(status->value, status->value_len, &status_i,
                                              &unused) == SQLITE_INTEGER;

    sqlite3_stmt *st = r->ins_event;
    double tsec = (double)usec / 1e6;
    sqlite3_bind_double(st, 1, tsec);
    sqlite3_bind_text(st, 2, ev->value, (int)ev->value_len, SQLITE_STATIC);
    if (rec->i_level >= 0)
        sqlite3_bind_text(st, 3, rec->f[rec->i_level].value, (int)rec->f[rec->i_level].value_len,
                          SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    sqlite3_bind_int(st, 4, startend);
    if (status_col)
        sqlite3_bind_int64(st, 5, status_i);
    else
        sqlite3_bind_null(st, 5);
    if ((rc = step(r, st, err))) return rc;
    sqlite3_int64 id = sqlite3_last_insert_rowid(r->db);

    sqlite3_stmt *sum = r->ins_summary;
    if (is_summary) {
        sqlite3_clear_bindings(sum);
        sqlite3_bind_int64(sum, 1, id);
        sqlite3_bind_double(sum, 2, tsec);
        sqlite3_bind_text(sum, 3, ev->value, (int)ev->value_len, SQLITE_STATIC);
    }
    for (int k = 0; k < rec->n; k++) {
        const nl_field_t *f = &rec->f[k];
        if (k == rec->i_ts || k == rec->i_event || k == rec->i_level) continue;
        if (status_col && f == status) continue;
        if (is_summary) {
            if (k == rec->i_guid)
                sqlite3_bind_text(sum, 5, f->value, (int)f->value_len, SQLITE_STATIC);
            else if (NAME_IS(f, "host")) {
                sqlite3_bind_text(sum, 4, f->value, (int)f->value_len, SQLITE_STATIC);
                continue; /* lives in summary.host only: a row fewer per summary */
            } else if (summary_slot(f, sum) >= 0)
                continue;
        }
        int ident = k == rec->i_guid || HAS_SUFFIX(f->name, f->name_len, ".id");
        st = ident ? r->ins_ident : r->ins_value;
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, f->name, (int)f->name_len, SQLITE_STATIC);
        if (ident)
            sqlite3_bind_text(st, 3, f->value, (int)f->value_len, SQLITE_STATIC);
        else
            bind_typed(st, 3, f);
        if ((rc = step(r, st, err))) return rc;
    }
    return is_summary && (rc = step(r, sum, err)) ? rc : 1;
}
