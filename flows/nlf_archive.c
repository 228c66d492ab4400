/* SPDX-License-Identifier: BSD-3-Clause */
/* nlf_archive.c — nl-flows' events from the archive (nl-load's SQLite file or PostgreSQL
 * database), through the loader's archive layer: the raw events of a time window in time
 * order, each written back as a line (its identities and fields as nl-load filed them) and
 * fed to the engine like a line of a file, so one parser reads both. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlf_archive.h"
#include "nll.h"
#include "nll_sql.h"

/* Every field of every raw event in [since, until), one row per field, in event order. A
 * value is read as text (a number nl-load stored as one comes back as its shortest text). */
static const char q_events[] =
    "SELECT e.id, e.ts, e.event, e.level, f.name, CAST(f.value AS TEXT) FROM event e "
    "LEFT JOIN (SELECT event_id, name, value FROM ident UNION ALL "
    "SELECT event_id, name, value FROM value) f ON f.event_id = e.id "
    "WHERE e.ts >= ?1 AND e.ts < ?2 AND e.event NOT LIKE '%.summary' "
    "ORDER BY e.ts, e.id";

static int level_of(const char *s)
{
    int l = nl_level_parse(s, strlen(s));
    return l < 0 ? NL_LVL_INFO : l;
}

/* One event being gathered from its rows: the head, then its fields (name NUL value NUL). */
typedef struct ev {
    int64_t usec;
    int level;
    char event[1024];
    char *fields;
    size_t len, cap;
    int bad;
} ev_t;

static void ev_field(ev_t *e, const char *name, const char *v, size_t vlen)
{
    size_t nl = strlen(name), need = e->len + nl + vlen + 2;
    if (need > e->cap) {
        size_t c = need * 2;
        char *p = realloc(e->fields, c);
        if (!p) {
            e->bad = 1;
            return;
        }
        e->fields = p;
        e->cap = c;
    }
    memcpy(e->fields + e->len, name, nl + 1);
    memcpy(e->fields + e->len + nl + 1, v, vlen);
    e->fields[e->len + nl + 1 + vlen] = '\0';
    e->len = need;
}

/* Write the event back as a line (guid in its place after the head) and feed it. */
static void ev_emit(nlf_t *f, ev_t *e, nl_buf_t *b, const char *name, long no, long *bad,
                    FILE *diag)
{
    const char *guid = NULL;
    for (size_t at = 0; at < e->len;) {
        const char *k = e->fields + at, *v = k + strlen(k) + 1;
        if (!strcmp(k, "guid")) guid = v;
        at = (size_t)(v + strlen(v) + 1 - e->fields);
    }
    nl_buf_reset(b);
    nl_enc_begin(b, e->usec, e->event, e->level, guid);
    for (size_t at = 0; at < e->len;) {
        const char *k = e->fields + at, *v = k + strlen(k) + 1;
        if (strcmp(k, "guid")) nl_enc_str(b, k, v, strlen(v));
        at = (size_t)(v + strlen(v) + 1 - e->fields);
    }
    if (e->bad || nl_enc_end(b)) (*bad)++;
    else nlf_line(f, b->p, b->len, name, no, diag);
    e->len = 0;
    e->bad = 0;
}

int nlf_archive_read(nlf_t *f, const char *path, double since, double until, FILE *diag)
{
    nll_err_t err;
    nll_db_t *db = NULL;
    nll_stmt_t *st = NULL;
    if (nll_db_open(path, NLL_OPEN_READ, 0, &db, &err) ||
        nll_sql_prepare(db, q_events, &st, &err)) {
        fprintf(diag, "nl-flows: %s\n", err.msg);
        nll_db_close(db);
        return 1;
    }
    nll_sql_bind_double(st, 1, isfinite(since) ? since : -1e300);
    nll_sql_bind_double(st, 2, isfinite(until) ? until : 1e300);
    char store[4096], name[256];
    nll_db_display_name(path, name, sizeof name);
    nl_buf_t b;
    nl_buf_init(&b, store, sizeof store);
    ev_t e = {0};
    int64_t cur = INT64_MIN;
    long n = 0, unwritable = 0;
    int rc;
    while ((rc = nll_sql_step(st, &err)) == 1) {
        int64_t id = nll_sql_col_int64(st, 0);
        if (id != cur) {
            if (cur != INT64_MIN) ev_emit(f, &e, &b, name, n, &unwritable, diag);
            cur = id;
            n++;
            e.usec = llround(nll_sql_col_double(st, 1) * 1e6);
            e.level = level_of(nll_sql_col_text(st, 3, NULL));
            const char *ev = nll_sql_col_text(st, 2, NULL);
            e.bad = strlen(ev) >= sizeof e.event;
            snprintf(e.event, sizeof e.event, "%s", ev);
        }
        if (nll_sql_col_type(st, 4) == NLL_T_NULL) continue; /* an event without fields */
        size_t len;
        const char *fname = nll_sql_col_text(st, 4, NULL), *v = nll_sql_col_text(st, 5, &len);
        ev_field(&e, fname, v, len);
    }
    if (cur != INT64_MIN && rc == 0) ev_emit(f, &e, &b, name, n, &unwritable, diag);
    free(e.fields);
    nl_buf_free(&b);
    nll_sql_finalize(st);
    nll_db_close(db);
    if (unwritable)
        fprintf(diag, "nl-flows: %s: %ld event(s) could not be written back as a line, left out\n",
                name, unwritable);
    if (rc < 0) {
        fprintf(diag, "nl-flows: %s (after %ld events)\n", err.msg, n);
        return 1;
    }
    return 0;
}
