/* SPDX-License-Identifier: BSD-3-Clause */
/* nll.h — the loader's modules (static library nlload): the archive's schema and
 * upgrades, turning event lines into rows, exactly-once file positions, retention, and
 * baselines. The archive is a SQLite file or a PostgreSQL database (nll_sql.h asks either).
 * Used by nl-load, nl-baseline, nl-detect (baselines from history), nl-report and the
 * tests. Every function returns 0 (NL_OK) or a negative NL_E* code and, on failure, fills
 * the caller's nll_err_t with a message that says where (database path, file:line).
 * The archive is opaque here: nothing of SQLite's or libpq's API shows through, so a part
 * that includes this header reads either database alike (what only SQLite has is in
 * nll_db_lite.h, for loader/ and the SQLite layer's own tests). */
#ifndef NLKIT_NLL_H
#define NLKIT_NLL_H

#include <stddef.h>
#include <stdint.h>

#include "nl_hist.h"
#include "nlkit/nl_bp.h"

typedef struct nll_err {
    char msg[768];
} nll_err_t;

/* An open archive: a SQLite file or a PostgreSQL database. */
typedef struct nll_db nll_db_t;

/* ---- database (nll_db.c) ------------------------------------------------------------ */

/* Open the archive read-write, creating it if absent, and bring its schema up to the
 * newest version in place (each step in its own transaction). Sets WAL mode and a busy
 * timeout, so readers (nl-baseline, nl-detect) work while nl-load writes. */
#define NLL_OPEN_WRITE 0u
/* Open an existing archive read-only; its schema must already be the newest. */
#define NLL_OPEN_READ 1u

/* Open `path` (see the flags above): a file path is a SQLite archive; a libpq connection
 * URI (postgresql://... or postgres://...) or keyword/value string ("host=db user=bob
 * dbname=x": its first word is KEYWORD=) is a PostgreSQL one. `upto` > 0 stops the
 * upgrade at that version (tests make old databases with it); 0 means the newest. On
 * success *out is the connection. */
int nll_db_open(const char *path, unsigned flags, int upto, nll_db_t **out, nll_err_t *err);
/* The name for messages of the archive at `path` before (or without) opening it: a
 * PostgreSQL connection string with its passwords as ***: a URI's user:password@ and
 * ?password= (or ?sslpassword=), a keyword string's password= and sslpassword= (quoted or
 * not); a keyword string that libpq could not read shows its pairs up to there, then "...".
 * nll_conn.c. */
void nll_db_display_name(const char *path, char *out, size_t cap);
/* Whether `path` names a PostgreSQL archive: a connection URI, or libpq's keyword/value
 * form (its first word, after blanks, is KEYWORD= with KEYWORD of letters, digits and '_';
 * a SQLite file whose name begins so is given as ./NAME). */
int nll_db_is_pg(const char *path);
/* The schema version of an open archive (0 for an empty database). */
int nll_db_version(nll_db_t *db, int *version, nll_err_t *err);
/* The newest schema version this build knows. */
int nll_schema_newest(void);
/* Close (NULL is fine). */
void nll_db_close(nll_db_t *db);
/* Fill err with "PATH: what: the database's message" for the connection's last error and
 * return the matching NL_E* code. */
int nll_db_fail(nll_db_t *db, nll_err_t *err, const char *what);
/* Run SQL that returns no rows. */
int nll_db_exec(nll_db_t *db, const char *sql, nll_err_t *err);

/* ---- lines to rows (nll_row.c) -------------------------------------------------------- */

typedef struct nll_rows nll_rows_t;

/* Prepare the insert statements on an archive opened for writing. */
int nll_rows_new(nll_db_t *db, unsigned parse_flags, nll_rows_t **out, nll_err_t *err);
void nll_rows_free(nll_rows_t *r);
/* Parse one line and insert its rows (inside the caller's transaction). Returns 1 if an
 * event was stored, 0 for a blank or comment line, NL_EPARSE/NL_ETS/... for a bad line
 * (perr says where; nothing was inserted), or NL_EIO for a database failure (err says
 * what; the transaction must be rolled back). */
int nll_rows_add(nll_rows_t *r, const char *line, size_t len, long lineno, nl_perr_t *perr,
                 nll_err_t *err);

/* Before the commit of the transaction the rows were stored in: send what a PostgreSQL
 * archive's writer gathered (COPY); nothing to do for SQLite. 0, or NL_EIO/NL_ENOMEM with
 * err filled (the transaction must be rolled back). */
int nll_rows_flush(nll_rows_t *r, nll_err_t *err);
/* The transaction was rolled back: forget what was gathered and not sent. */
void nll_rows_discard(nll_rows_t *r);
/* Texts a PostgreSQL archive could not hold as written (a NUL byte, invalid UTF-8 in a UTF8
 * database), stored with those bytes as \xHH; nl-load counts and reports them. */
uint64_t nll_rows_escaped(const nll_rows_t *r);

/* Records ready to store, one after another (see nll_rec.h for their layout). */
typedef struct nll_batch {
    unsigned char *p;
    size_t len, cap;
} nll_batch_t;

/* Parse one line with rec (the caller's, reused) and append it to b as a record: the work
 * that needs no database, so it can run in another thread than the inserts. Returns 1 if
 * an event was appended, 0 for a blank or comment line, NL_EPARSE/NL_ETS/... for a bad
 * line (perr says where), NL_ENOMEM; nothing is appended unless it returns 1. */
int nll_parse_line(nl_rec_t *rec, unsigned parse_flags, const char *line, size_t len, long lineno,
                   nll_batch_t *b, nl_perr_t *perr);

/* The longest event name and host of one summary together, in bytes: the archive indexes
 * them (summary_event_host_ts), and a PostgreSQL index entry holds at most about 2.7 KB. A
 * longer summary is refused as a bad line, in both archives alike (LIMITS.md). */
#define NLL_SUM_KEY_MAX 2048
/* The longest identity value (guid, *.id) filed in `ident`, whose values are indexed; a
 * longer one is kept exactly in `value` instead, counted and reported. */
#define NLL_IDENT_MAX 2048

/* How many summary fields of the record at b->p + pos had a column but a value that does
 * not fit it ("inf", "nan", text): kept in `value` as written, left out of the summary
 * columns, so of every baseline; nl-load counts and reports them. */
unsigned nll_rec_untyped(const nll_batch_t *b, size_t pos);
/* How many identity values (guid, *.id) of that record were longer than NLL_IDENT_MAX
 * (nll_rec.h): kept as written in `value`, not in the indexed `ident`; nl-load counts and
 * reports them. */
unsigned nll_rec_unindexed(const nll_batch_t *b, size_t pos);
/* How many pieces of that record's line a lenient or NetLogger reading skipped or replaced
 * (junk, a duplicate name's earlier value); nl-load counts and reports them. */
unsigned nll_rec_recovered(const nll_batch_t *b, size_t pos);
/* Whether nlkit's reading of that record's line decoded a \n, \t or \r escape into a value:
 * NetLogger's writer means a backslash and a letter by it ("C:\new folder"); nl-load says so
 * and names --netlogger. */
int nll_rec_ctl_escape(const nll_batch_t *b, size_t pos);
/* Insert the record at byte *pos of b (inside the caller's transaction) and advance *pos
 * past it. 0, or NL_EIO/NL_ENOMEM with err filled (the transaction must be rolled back). */
int nll_rows_store(nll_rows_t *r, const nll_batch_t *b, size_t *pos, nll_err_t *err);
/* Make room for n more bytes (0, or NL_ENOMEM). */
int nll_batch_reserve(nll_batch_t *b, size_t n);
void nll_batch_free(nll_batch_t *b);

/* How a field's text is stored in a column without declared type, as SQLite's storage
 * class codes (the same numbers as nll_sql.h's NLL_T_INT, NLL_T_REAL, NLL_T_TEXT): INTEGER
 * for a canonical integer ("42", not "007" or "-0"); FLOAT for a decimal number written
 * without superfluous characters ("0.5", "1e-05", not "0.50", "1.", "+1", "inf") whose
 * double holds exactly what was written (up to 15 significant digits, or the shortest
 * text of its double, as nlkit writes them); TEXT otherwise. *i / *d receive the number.
 * So no information is lost, and numbers compare as numbers. */
int nll_value_type(const char *s, size_t len, int64_t *i, double *d);

/* ---- exactly-once file positions (nll_pos.c) ------------------------------------------ */

typedef struct nll_pos {
    uint64_t offset; /* bytes already loaded */
    long lines;      /* lines read before offset */
} nll_pos_t;

/* A regular file being loaded: an open descriptor (read with pread only, so the reading
 * thread's offset is untouched), its size when opened, and where it is. */
typedef struct nll_file {
    int fd;
    uint64_t size, inode;
    const char *path; /* absolute */
} nll_file_t;

/* A commit found the file's position moved by another loader (or the file cut short):
 * the transaction must be rolled back and the position found again. */
#define NLL_CONFLICT 1000

/* Where a previous load of this file's content stopped (*row: its load_file row), or
 * zeros and *row 0 if it was never loaded. */
int nll_pos_find(nll_db_t *db, const nll_file_t *f, nll_pos_t *pos, int64_t *row, nll_err_t *err);
/* Record that the file is loaded up to `to`, inside the transaction that inserted those
 * lines' rows; *row is made on the first commit. NLL_CONFLICT if the file's row is no
 * longer at `from` (where this loader's transaction began). */
int nll_pos_commit(nll_db_t *db, const nll_file_t *f, int64_t *row, const nll_pos_t *from,
                   const nll_pos_t *to, nll_err_t *err);

/* ---- retention (nll_prune.c) ----------------------------------------------------------- */

/* Delete every event older than `before` (Unix seconds) except summaries, with its ident
 * and value rows, in one transaction. *deleted receives the number of events removed. */
int nll_prune(nll_db_t *db, double before, int64_t *deleted, nll_err_t *err);

/* ---- time on the command line (nll_when.c) ------------------------------------------- */

/* A point in time: an ISO-8601 timestamp, a date (YYYY-MM-DD, midnight UTC), Unix seconds,
 * or an age back from `now` ("30d", "12h", "90m", "2w"). Returns 0 or NL_ETS. */
int nll_parse_when(const char *s, double now, double *out);

/* ---- anomaly episodes in the archive (nll_eps.c) ---------------------------------------- */

/* The episodes nl-detect recorded (nl.anomaly.start / nl.anomaly.end lines loaded as any
 * event), for baselines that leave the faults out. Opaque. */
typedef struct nll_eps nll_eps_t;
#define NLL_EPS_NAMES 8 /* key fields other than host an archive's episodes may use */

/* Read every episode: from its start.ts to its end line's ts (both included), or with no
 * end while its end is not in the archive; for its key's values (key.host=gw2 ...) of its
 * trig.event (any event when its start is not in the archive). One scan of the event table.
 * 0, NL_ENOMEM, NL_EINVAL (more key names than NLL_EPS_NAMES) or an archive error, with err
 * filled; *out is freed with nll_eps_free. */
int nll_eps_read(nll_db_t *db, nll_eps_t **out, nll_err_t *err);
void nll_eps_free(nll_eps_t *eps);
/* How many episodes were read. */
int nll_eps_count(const nll_eps_t *eps);
/* The key names other than host the episodes use (*names: that many, owned by eps). */
int nll_eps_names(const nll_eps_t *eps, const char *const **names);
/* Whether a value of `event` at ts from `host`, whose fields named by nll_eps_names are
 * vals[i] (NULL or "" when it has none), lies inside an episode of its key. */
int nll_eps_covers(const nll_eps_t *eps, const char *event, double ts, const char *host,
                   const char *const *vals);

/* ---- baselines (nll_base.c) ------------------------------------------------------------ */

/* Which summaries a baseline reads. NULL/negative members are not constrained. */
typedef struct nll_base_q {
    const char *event;  /* exact summary event name, e.g. gridftp.disk.write.summary */
    const char *host;   /* NULL: all hosts */
    const char *metric; /* rate, avgrate, busy, mean.dur, or a summary column's field name
                         * (n, dur.sum, v.max, ...) */
    double since;       /* Unix seconds, inclusive (or -INFINITY) */
    double until;       /* exclusive (or INFINITY) */
    int hour;           /* 0-23: only summaries in that UTC hour; -1 all */
    int dow;            /* 0-6 (Sunday 0): only that weekday; -1 all */
    /* leave out values inside these anomaly episodes (NULL: keep every value) */
    const nll_eps_t *skip;
} nll_base_q_t;

/* Initialise a query for `event` and `metric`, everything else unconstrained. */
void nll_base_q_init(nll_base_q_t *q, const char *event, const char *metric);

typedef struct nll_base {
    int64_t n;
    double mean, sd; /* sd: sample standard deviation (NAN if n < 2) */
    double p5, p50, p95;
    double first_ts, last_ts;
    int64_t skipped; /* values left out: inside an episode of q->skip */
} nll_base_t;

/* The summary column holding `metric`, or NULL if it is not one the archive types. */
const char *nll_base_column(const char *metric);
/* Compute the baseline of the values selected by q. n == 0 when none matched. */
int nll_base_get(nll_db_t *db, const nll_base_q_t *q, nll_base_t *out, nll_err_t *err);
/* Visit the selected values oldest first, the newest `limit` of them if limit > 0 (for
 * seeding a detector's history); those inside q->skip's episodes are left out and added to
 * *skipped (if not NULL), and the limit counts only the values kept. */
int nll_base_values(nll_db_t *db, const nll_base_q_t *q, int64_t limit,
                    void (*fn)(void *ctx, double ts, double x), void *ctx, int64_t *skipped,
                    nll_err_t *err);

/* The hosts whose `event` summaries fall in [since, until) (-INFINITY / INFINITY: open),
 * sorted, in a new array of new strings (*n of them; free each, then the array). 0,
 * NL_ENOMEM or an archive error with err filled (then *hosts is NULL and *n 0). */
int nll_base_hosts(nll_db_t *db, const char *event, double since, double until, char ***hosts,
                   int *n, nll_err_t *err);

/* Percentiles over many summaries: their histograms (dur.h or v.h) merged. */
typedef struct nll_pct {
    nl__hist_t h;        /* the merge: as one histogram of every pair's duration or value */
    double lo, hi;      /* the exact extremes over those summaries (dur/v min and max) */
    int64_t summaries;  /* histograms merged */
    int64_t unreadable; /* histograms left out: damaged text */
    int64_t skipped;    /* summaries left out: inside an episode of q->skip */
} nll_pct_t;

/* Merge the `series` ("dur" or "v") histograms of the summaries q selects (q->metric is
 * not used) into out; free out->h with nl__hist_free. 0, NL_EINVAL (bad series) or
 * NL_EIO with err filled. */
int nll_base_pct(nll_db_t *db, const nll_base_q_t *q, const char *series, nll_pct_t *out,
                 nll_err_t *err);

#endif
