/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_row_pg.c — records into a PostgreSQL archive with COPY: rows are gathered per table
 * while a batch is read and sent at its commit (nll_rows_flush), in the transaction that
 * also records the file positions. Event ids come from the archive's sequence in blocks,
 * so any number of loaders COPY side by side. A raw event's day gets its partitions
 * (event_raw_YYYYMMDD and its ident_/value_ twins) before its rows are sent. A text the
 * database cannot hold (a NUL byte, or bytes that are not UTF-8 in a UTF8 database) is
 * stored with those bytes written \xHH, as nlkit lines write them, and counted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_buf.h"
#include "nl_num.h"
#include "nl_utf8.h"
#include "nll_db_int.h"
#include "nll_rec.h"
#include "nll_row_int.h"

#define IDS_BLOCK 4096 /* event ids taken from the sequence at once */
#define DAYS_KNOWN 64  /* days whose partitions this loader has seen exist */

enum { T_EVENT, T_IDENT, T_VALUE, T_SUMMARY, T_N };

struct nll_pgrows {
    nll_db_t *db;
    nl_buf_t t[T_N]; /* COPY text per table */
    int64_t ids[IDS_BLOCK];
    int nids, next_id;
    int64_t days[DAYS_KNOWN]; /* days (Unix seconds / 86400) known to have partitions */
    int ndays;
    int64_t want[DAYS_KNOWN]; /* days this batch needs */
    int nwant;
    int utf8;                           /* the database is UTF8: text must be valid UTF-8 */
    int s_dur_sum, s_v_sum, s_int, s_n; /* typed slots the derived values read */
    uint64_t escaped;      /* texts gathered with \xHH for bytes the database refuses */
    uint64_t escaped_sent; /* of those, sent (in batches that were flushed) */
};

/* Rows go in COPY's binary format: numbers as their bytes (nothing formatted here, nothing
 * parsed by the server), texts as their bytes with a length. */
static const char copy_head[19] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";

static void put_be(nl_buf_t *b, uint64_t v, int n)
{
    char t[8];
    for (int i = 0; i < n; i++) t[i] = (char)(v >> (8 * (n - 1 - i)));
    nl__put(b, t, (size_t)n);
}

/* A row of n fields: the buffer's header first when it is the batch's first row. */
static void put_row(nl_buf_t *b, int n)
{
    if (!b->len) nl__put(b, copy_head, sizeof copy_head);
    put_be(b, (uint64_t)n, 2);
}

static void put_null(nl_buf_t *b) { put_be(b, 0xffffffffu, 4); }

static void put_i64(nl_buf_t *b, int64_t v)
{
    put_be(b, 8, 4);
    put_be(b, (uint64_t)v, 8);
}

static void put_i16(nl_buf_t *b, int v)
{
    put_be(b, 2, 4);
    put_be(b, (uint64_t)(uint16_t)v, 2);
}

static void put_bool(nl_buf_t *b, int v)
{
    put_be(b, 1, 4);
    nl__putc(b, (char)(v != 0));
}

static void put_dbl(nl_buf_t *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_be(b, 8, 4);
    put_be(b, u, 8);
}

/* A text field: NUL and (in a UTF8 database) bytes that are not UTF-8 written \xHH, as
 * nlkit lines write them, since the server refuses them; counted. */
static void put_text(nll_pgrows_t *p, nl_buf_t *b, const char *s, size_t len)
{
    size_t at = b->len;
    put_be(b, 0, 4); /* the length, set below */
    const unsigned char *u = (const unsigned char *)s;
    int changed = 0;
    size_t run = 0; /* bytes from s + i - run kept as they are */
    for (size_t i = 0; i < len;) {
        unsigned c = u[i];
        size_t l = c == 0 ? 0 : c < 0x80 || !p->utf8 ? 1 : nl__utf8_len(u + i, len - i);
        if (l) {
            i += l, run += l;
            continue;
        }
        nl__put(b, s + i - run, run);
        run = 0;
        char esc[8];
        snprintf(esc, sizeof esc, "\\x%02x", c);
        nl__put(b, esc, 4);
        changed = 1;
        i++;
    }
    nl__put(b, s + len - run, run);
    if (!b->err) {
        uint32_t n = (uint32_t)(b->len - at - 4);
        unsigned char *q = (unsigned char *)b->p + at;
        q[0] = (unsigned char)(n >> 24), q[1] = (unsigned char)(n >> 16);
        q[2] = (unsigned char)(n >> 8), q[3] = (unsigned char)n;
    }
    p->escaped += (uint64_t)changed;
}

/* A number as the text of value.value: an integer in decimal, a double as the shortest
 * text that reads back exactly. */
static void put_int_text(nll_pgrows_t *p, nl_buf_t *b, int64_t v)
{
    char t[24], *e = t + sizeof t, *q = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *--q = '-';
    put_text(p, b, q, (size_t)(e - q));
}

static void put_dbl_text(nll_pgrows_t *p, nl_buf_t *b, double v)
{
    char t[40];
    put_text(p, b, t, (size_t)nl__dtoa(v, t));
}

/* The start of an ident or value row (n fields in all): its event's id, time and partition
 * key, and the field's name. */
static void put_field_head(nll_pgrows_t *p, nl_buf_t *t, int n, int64_t id, double ts, int raw,
                           const char *name, size_t name_len)
{
    put_row(t, n);
    put_i64(t, id);
    put_dbl(t, ts);
    put_bool(t, raw);
    put_text(p, t, name, name_len);
}

int nll__pgrows_new(nll_db_t *db, nll_pgrows_t **out, nll_err_t *err)
{
    nll_pgrows_t *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return NL_ENOMEM;
    }
    p->db = db;
    for (int i = 0; i < T_N; i++) {
        nl_buf_init(&p->t[i], NULL, 0);
        p->t[i].limit = (size_t)1 << 40; /* batches are bounded by lines, not here */
    }
    p->s_dur_sum = p->s_v_sum = p->s_int = p->s_n = -1;
    for (int i = 0; i < nll__ntyped; i++) {
        const char *c = nll__typed[i].column;
        if (!strcmp(c, "dur_sum")) p->s_dur_sum = i;
        if (!strcmp(c, "v_sum")) p->s_v_sum = i;
        if (!strcmp(c, "interval")) p->s_int = i;
        if (!strcmp(c, "n")) p->s_n = i;
    }
    nll_stmt_t *st;
    int rc = nll_sql_prepare(db, "SELECT current_setting('server_encoding')", &st, err);
    if (!rc && (rc = nll_sql_step(st, err)) == 1)
        p->utf8 = !strcmp(nll_sql_col_text(st, 0, NULL), "UTF8");
    if (!rc || rc == 1) nll_sql_finalize(st);
    if (rc < 0) {
        nll__pgrows_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

void nll__pgrows_free(nll_pgrows_t *p)
{
    if (!p) return;
    for (int i = 0; i < T_N; i++) nl_buf_free(&p->t[i]);
    free(p);
}

uint64_t nll__pgrows_escaped(const nll_pgrows_t *p) { return p->escaped_sent; }

/* The next event id: from the block taken from the sequence. */
static int next_id(nll_pgrows_t *p, int64_t *id, nll_err_t *err)
{
    if (p->next_id == p->nids) {
        nll_stmt_t *st;
        int rc = nll_sql_prepare(
            p->db, "SELECT nextval('event_id_seq') FROM generate_series(1, 4096)", &st, err);
        if (rc) return rc;
        p->nids = p->next_id = 0;
        while ((rc = nll_sql_step(st, err)) == 1 && p->nids < IDS_BLOCK)
            p->ids[p->nids++] = nll_sql_col_int64(st, 0);
        nll_sql_finalize(st);
        if (rc < 0) return rc;
        if (!p->nids) {
            snprintf(err->msg, sizeof err->msg, "%s: no event ids from event_id_seq",
                     nll_db_name(p->db));
            return NL_EIO;
        }
    }
    *id = p->ids[p->next_id++];
    return 0;
}

/* Note that a raw event of time ts needs its day's partitions. */
static int need_day(nll_pgrows_t *p, double ts, nll_err_t *err)
{
    int64_t d = (int64_t)floor(ts / 86400);
    for (int i = 0; i < p->ndays; i++)
        if (p->days[i] == d) return 0;
    for (int i = 0; i < p->nwant; i++)
        if (p->want[i] == d) return 0;
    if (p->nwant == DAYS_KNOWN) {
        snprintf(err->msg, sizeof err->msg,
                 "%s: one batch spans more than %d days: load with a smaller --batch",
                 nll_db_name(p->db), DAYS_KNOWN);
        return NL_EINVAL;
    }
    p->want[p->nwant++] = d;
    return 0;
}

int nll__pgrows_store(nll_pgrows_t *p, const nll_batch_t *b, size_t *pos, nll_err_t *err)
{
    const unsigned char *q = b->p + *pos;
    nll_rhdr_t h;
    memcpy(&h, q, sizeof h);
    *pos += h.total;
    const char *event = (const char *)q + sizeof h, *level = event + h.event_len;
    q += sizeof h + h.event_len + h.level_len;
    int64_t id;
    int rc = next_id(p, &id, err);
    if (!rc && !h.summary) rc = need_day(p, h.ts, err);
    if (rc) return rc;
    int raw = !h.summary;

    nl_buf_t *e = &p->t[T_EVENT];
    put_row(e, 7);
    put_i64(e, id);
    put_dbl(e, h.ts);
    put_text(p, e, event, h.event_len);
    if (h.has_level)
        put_text(p, e, level, h.level_len);
    else
        put_null(e);
    put_i16(e, h.startend);
    if (h.has_status)
        put_i64(e, h.status);
    else
        put_null(e);
    put_bool(e, raw);

    /* the summary row: its typed columns by slot, then the derived values */
    double typed[64];
    int has[64] = {0}, isint[64] = {0};
    const char *host = NULL, *guid = NULL;
    size_t host_len = 0, guid_len = 0;
    for (uint32_t k = 0; k < h.nfields; k++) {
        nll_fhdr_t f;
        memcpy(&f, q, sizeof f);
        const char *name = (const char *)q + sizeof f, *val = name + f.name_len;
        int numeric = f.kind == NLL_K_VALUE_INT || f.kind == NLL_K_VALUE_REAL ||
                      f.kind == NLL_K_SUM_INT || f.kind == NLL_K_SUM_REAL;
        q += sizeof f + f.name_len + (numeric ? 8 : f.value_len);
        int64_t i;
        double d;
        switch (f.kind) {
        case NLL_K_SUM_INT:
        case NLL_K_SUM_REAL:
            if (f.slot < 64) {
                if (f.kind == NLL_K_SUM_INT) {
                    memcpy(&i, val, 8);
                    isint[f.slot] = 1;
                    memcpy(&typed[f.slot], &i, 8); /* the int64's bits: kept exact */
                } else {
                    memcpy(&typed[f.slot], val, 8);
                }
                has[f.slot] = 1;
            }
            continue;
        case NLL_K_SUM_HOST: host = val, host_len = f.value_len; continue;
        case NLL_K_GUID:
            guid = val, guid_len = f.value_len;
            /* fall through - in ident as every guid */
        case NLL_K_IDENT: {
            nl_buf_t *t = &p->t[T_IDENT];
            put_field_head(p, t, 5, id, h.ts, raw, name, f.name_len);
            put_text(p, t, val, f.value_len);
            continue;
        }
        default: break;
        }
        nl_buf_t *t = &p->t[T_VALUE];
        put_field_head(p, t, 6, id, h.ts, raw, name, f.name_len);
        if (f.kind == NLL_K_VALUE_INT) {
            memcpy(&i, val, 8);
            put_int_text(p, t, i);
            put_dbl(t, (double)i);
        } else if (f.kind == NLL_K_VALUE_REAL) {
            memcpy(&d, val, 8);
            put_dbl_text(p, t, d);
            put_dbl(t, d);
        } else {
            put_text(p, t, val, f.value_len);
            put_null(t);
        }
    }
    if (!h.summary) return 0;
    nl_buf_t *s = &p->t[T_SUMMARY];
    put_row(s, 5 + (nll__ntyped < 64 ? nll__ntyped : 64) + 4);
    put_i64(s, id);
    put_dbl(s, h.ts);
    put_text(p, s, event, h.event_len);
    if (host)
        put_text(p, s, host, host_len);
    else
        put_null(s);
    if (guid)
        put_text(p, s, guid, guid_len);
    else
        put_null(s);
    double num[64];
    for (int k = 0; k < nll__ntyped && k < 64; k++) {
        if (!has[k]) {
            put_null(s);
            continue;
        }
        if (isint[k]) {
            int64_t i;
            memcpy(&i, &typed[k], 8);
            put_i64(s, i);
            num[k] = (double)i;
        } else {
            put_dbl(s, typed[k]);
            num[k] = typed[k];
        }
    }
    /* rate, avgrate, busy, mean_dur: as the SQLite archive's generated columns compute them
     * (NULL when a part is missing or the divisor is 0) */
#define PART(slot) ((slot) >= 0 && has[slot])
    struct {
        int a, b;
    } div[4] = {{p->s_v_sum, p->s_dur_sum},
                {p->s_v_sum, p->s_int},
                {p->s_dur_sum, p->s_int},
                {p->s_dur_sum, p->s_n}};
    for (int k = 0; k < 4; k++) {
        if (PART(div[k].a) && PART(div[k].b) && num[div[k].b] != 0)
            put_dbl(s, num[div[k].a] / num[div[k].b]);
        else
            put_null(s);
    }
#undef PART
    return 0;
}

/* Make the partitions of the days this batch needs, under a lock every loader takes for
 * it, before any row is sent (so this transaction holds no lock another waits on). */
static int make_days(nll_pgrows_t *p, nll_err_t *err)
{
    int rc = 0, locked = 0;
    for (int i = 0; i < p->nwant && !rc; i++) {
        int64_t d = p->want[i];
        int64_t secs = d * 86400;
        char day[16], iso[40];
        /* the partition's name is its UTC date */
        if (nl_ts_format(secs * 1000000, iso) < 10) return NL_EINVAL;
        snprintf(day, sizeof day, "%.4s%.2s%.2s", iso, iso + 5, iso + 8);
        char sql[1024];
        int64_t have = 0;
        snprintf(sql, sizeof sql, "SELECT count(to_regclass('event_raw_%s'))", day);
        rc = nll_sql_int(p->db, sql, &have, err);
        if (!rc && !have) {
            if (!locked) rc = nll_sql_exec(p->db, "SELECT pg_advisory_xact_lock(7285)", err);
            locked = 1;
            for (int t = 0; !rc && t < 3; t++) {
                static const char *const tab[] = {"event", "ident", "value"};
                snprintf(sql, sizeof sql,
                         "CREATE TABLE IF NOT EXISTS %s_raw_%s PARTITION OF %s_raw FOR VALUES "
                         "FROM (%lld) TO (%lld)",
                         tab[t], day, tab[t], (long long)secs, (long long)(secs + 86400));
                rc = nll_sql_exec(p->db, sql, err);
            }
        }
        if (!rc && p->ndays < DAYS_KNOWN) p->days[p->ndays++] = d;
    }
    p->nwant = 0;
    return rc;
}

static int copy(nll_pgrows_t *p, const char *sql, nl_buf_t *b, nll_err_t *err)
{
    if (!b->len) return 0;
    if (b->err) {
        snprintf(err->msg, sizeof err->msg, "%s: out of memory gathering rows", nll_db_name(p->db));
        return NL_ENOMEM;
    }
    PGconn *c = p->db->pg;
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COPY_IN) {
        int rc = nll__pg_fail(p->db, r, err, "COPY");
        PQclear(r);
        return rc;
    }
    PQclear(r);
    put_be(b, 0xffff, 2); /* the trailer */
    if (b->err) {
        snprintf(err->msg, sizeof err->msg, "%s: out of memory gathering rows", nll_db_name(p->db));
        PQputCopyEnd(c, "nl-load: out of memory");
        while ((r = PQgetResult(c))) PQclear(r);
        nl_buf_reset(b);
        return NL_ENOMEM;
    }
    int ok = 1;
    for (size_t at = 0; ok && at < b->len; at += 1 << 20) /* in pieces: int-sized, streamed */
        ok = PQputCopyData(c, b->p + at, (int)(b->len - at < 1 << 20 ? b->len - at : 1 << 20)) == 1;
    ok = PQputCopyEnd(c, ok ? NULL : "nl-load: sending failed") == 1 && ok;
    int rc = 0;
    while ((r = PQgetResult(c))) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && !rc) rc = nll__pg_fail(p->db, r, err, "COPY");
        PQclear(r);
    }
    if (!ok && !rc) rc = nll__pg_fail(p->db, NULL, err, "COPY");
    nl_buf_reset(b);
    return rc;
}

int nll__pgrows_flush(nll_pgrows_t *p, nll_err_t *err)
{
    int rc = make_days(p, err);
    if (!rc)
        rc = copy(
            p,
            "COPY event (id, ts, event, level, startend, status, raw) FROM STDIN (FORMAT binary)",
            &p->t[T_EVENT], err);
    if (!rc)
        rc = copy(p, "COPY ident (event_id, ts, raw, name, value) FROM STDIN (FORMAT binary)",
                  &p->t[T_IDENT], err);
    if (!rc)
        rc = copy(p, "COPY value (event_id, ts, raw, name, value, num) FROM STDIN (FORMAT binary)",
                  &p->t[T_VALUE], err);
    if (!rc) {
        char sql[1024];
        int len = snprintf(sql, sizeof sql, "COPY summary (event_id, ts, event, host, guid");
        for (int i = 0; i < nll__ntyped; i++)
            len += snprintf(sql + len, sizeof sql - (size_t)len, ", %s", nll__typed[i].column);
        snprintf(sql + len, sizeof sql - (size_t)len,
                 ", rate, avgrate, busy, mean_dur) FROM STDIN (FORMAT binary)");
        rc = copy(p, sql, &p->t[T_SUMMARY], err);
    }
    if (rc) {
        nll__pgrows_discard(p);
        return rc;
    }
    p->escaped_sent += p->escaped;
    p->escaped = 0;
    return 0;
}

void nll__pgrows_discard(nll_pgrows_t *p)
{
    for (int i = 0; i < T_N; i++) nl_buf_reset(&p->t[i]);
    p->nwant = 0;
    p->escaped = 0;
    p->ndays = 0; /* a rolled-back transaction may have made none of them */
}
