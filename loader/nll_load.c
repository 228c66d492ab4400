/* SPDX-License-Identifier: BSD-3-Clause */
/* nll_load.c — the exactly-once load engine behind nl-load (nll_load.h): inputs opened and
 * locked, their positions found, lines stored in batched transactions that commit the
 * position with them, bad lines reported, losses said with their line numbers. */
#include "nll_load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nl_clock.h"
#include "nlkit/nl.h"
#include "nll_db_lite.h" /* the busy timeout, SQLite's allocator settings */
#include "nll_feed.h"
#include "nll_sql.h"

/* A file being loaded: positions are kept only for real files. */
typedef struct source {
    const char *name;    /* as given, for messages */
    char *key;           /* absolute path, or NULL for standard input / pipes */
    nll_file_t file;     /* a regular file: descriptor, size, inode, path (nll_pos.c) */
    int64_t row;         /* its load_file row (0: none yet) */
    nll_pos_t committed; /* where its row stands: this loader's last commit, or the start */
    uint64_t partial;    /* bytes after its last newline, left for the next load */
    /* signs that NetLogger's own tools wrote it (nlkit's reading only): lines refused for
     * what NetLogger writes (an unknown escape such as \d, a repeated guid= or level=), and
     * lines stored with a \n, \t or \r escape decoded; the first of each, for the hint */
    long nl_bad, nl_bad_line, ctl, ctl_line;
    char nl_bad_why[sizeof((nl_perr_t *)0)->msg];
} source_t;

/* Whether the program asked the load to end (a signal): what was read is still committed. */
static int stop_asked(const nll_load_t *ld) { return ld->stop && *ld->stop; }

/* Whether a line nlkit's reading refused is one NetLogger's own reader takes (an escape
 * nlkit does not know such as \d, guid= written twice, a word that is no name=value): a
 * sign that NetLogger's tools wrote it. Only refused lines are read again. */
static int netlogger_sign(const char *line, size_t len)
{
    nl_rec_t rec;
    nl_perr_t pe;
    nl_rec_init(&rec);
    int ok = line && nl_parse(&rec, line, len, 0, NL_PARSE_NETLOGGER, &pe) > 0;
    nl_rec_free(&rec);
    return ok;
}

/* The hint that names --netlogger, once per input, when its lines look written by NetLogger's
 * own tools and were read as nlkit's: values changed (\n stored as a newline) or lines
 * refused, where --netlogger reads them as NetLogger does. */
static void netlogger_hint(const nll_load_t *ld, const source_t *src)
{
    if (ld->parse_flags) return;
    if (src->nl_bad)
        fprintf(stderr,
                "nl-load: %s: %ld refused line(s) are ones NetLogger's own reader takes (line "
                "%ld: %s): if NetLogger's tools wrote %s, load it with --netlogger\n",
                src->name, src->nl_bad, src->nl_bad_line, src->nl_bad_why, src->name);
    if (src->ctl)
        fprintf(stderr,
                "nl-load: %s: %ld line(s) stored with a \\n, \\t or \\r in a quoted value read "
                "as nlkit's escape (a newline, tab or return; line %ld first); NetLogger's writer "
                "means a backslash and a letter by it (\"C:\\new folder\"): if its tools wrote "
                "%s, load it into a fresh archive with --netlogger\n",
                src->name, src->ctl, src->ctl_line, src->name);
}

static void bad_line(nll_load_t *ld, source_t *src, const nl_perr_t *pe, const char *line,
                     size_t len)
{
    ld->t_bad++;
    if (!ld->parse_flags && netlogger_sign(line, len) && !src->nl_bad++) {
        src->nl_bad_line = pe->line;
        snprintf(src->nl_bad_why, sizeof src->nl_bad_why, "%s", pe->msg);
    }
    if (ld->reported < (uint64_t)ld->max_errors) {
        fprintf(stderr, "nl-load: %s:%ld:%d: %s (line not loaded)\n", src->name, pe->line, pe->col,
                pe->msg);
    } else if (ld->reported == (uint64_t)ld->max_errors) {
        fprintf(stderr, "nl-load: more bad lines: counted, not shown (--max-errors)\n");
    }
    ld->reported++;
    if (ld->reject && line) {
        if (fwrite(line, 1, len, ld->reject) != len || putc('\n', ld->reject) == EOF)
            fprintf(stderr, "nl-load: %s: %s (bad lines are still reported here)\n",
                    ld->reject_path, strerror(errno));
    }
}

static int begin(nll_load_t *ld, const nll_pos_t *at)
{
    nll_err_t err;
    if (nll_sql_begin(ld->db, &err)) {
        fprintf(stderr, "nl-load: %s\n", err.msg);
        return -1;
    }
    ld->in_tx = 1;
    ld->t_events = ld->t_bad = ld->t_blank = ld->t_untyped = ld->t_unindexed = 0;
    ld->t_recovered = ld->t_recovered_lines = ld->t_folded = 0;
    ld->t_first_line = at->lines + 1;
    ld->t_started = 0;
    return 0;
}

/* Commit what was stored up to `at` (the last line handled), with the file's position;
 * only then are the lines counted as loaded. On failure the caller reports which lines
 * were not loaded. */
static int commit(nll_load_t *ld, source_t *src, const nll_pos_t *at)
{
    if (!ld->in_tx) return 0;
    nll_err_t err;
    int rc = nll_rows_flush(ld->rows, &err); /* PostgreSQL: the gathered rows, by COPY */
    if (!rc && src->key)
        rc = nll_pos_commit(ld->db, &src->file, &src->row, &src->committed, at, &err);
    if (!rc && ld->reject && fflush(ld->reject))
        fprintf(stderr, "nl-load: %s: %s\n", ld->reject_path, strerror(errno));
    if (!rc) rc = nll_sql_commit(ld->db, &err);
    ld->in_tx = 0;
    if (!rc) {
        src->committed = *at;
        ld->events += ld->t_events;
        ld->bad += ld->t_bad;
        ld->untyped += ld->t_untyped;
        ld->unindexed += ld->t_unindexed;
        ld->recovered += ld->t_recovered;
        ld->recovered_lines += ld->t_recovered_lines;
        ld->blank += ld->t_blank;
        ld->folded += ld->t_folded;
        ld->t_events = ld->t_bad = ld->t_blank = ld->t_untyped = ld->t_unindexed = 0;
        ld->t_recovered = ld->t_recovered_lines = ld->t_folded = 0;
        ld->t_first_line = at->lines + 1;
        ld->t_started = 0;
        return 0;
    }
    nll_sql_rollback(ld->db);
    nll_rows_discard(ld->rows);
    fprintf(stderr, "nl-load: %s\n", err.msg);
    return rc == NLL_CONFLICT ? NLL_CONFLICT : -1;
}

/* After a failure: the lines read since the last commit (first uncommitted to `last`, the
 * last read), and what becomes of them; `ended`: the input was read to its end. */
static void report_lost(const nll_load_t *ld, const source_t *src, long last, int ended)
{
    if (last < ld->t_first_line) return;
    if (src->key)
        fprintf(stderr,
                "nl-load: %s: lines %ld-%ld not loaded (rolled back); loading the file again "
                "resumes at line %ld\n",
                src->name, ld->t_first_line, last, ld->t_first_line);
    else
        fprintf(stderr, "nl-load: %s: lines %ld-%ld LOST: read but not committed%s\n", src->name,
                ld->t_first_line, last,
                ended ? "" : "; what came after them was not read (it stays with the writer)");
}

/* One progress line: how far into the file, and the rate of this run (lines up to
 * from_line were loaded by an earlier one). */
static void show_progress(const source_t *src, const nll_pos_t *at, double t0, long from_line,
                          int done)
{
    double el = nl__mono_s() - t0;
    double pct = src->file.size ? 100.0 * (double)at->offset / (double)src->file.size : 0;
    fprintf(stderr, "\rnl-load: %s %5.1f%% %ld lines %.0f lines/s%s", src->name,
            pct > 100 ? 100 : pct, at->lines, el > 0 ? (double)(at->lines - from_line) / el : 0,
            done ? "\n" : "");
}

/* Store one chunk's lines in order (bad ones reported), committing every --batch lines.
 * *at follows the lines handled. 0, -1 after a database failure (reported), or
 * NLL_CONFLICT if another loader moved the file's position (rolled back). */
static int store_chunk(nll_load_t *ld, source_t *src, const nll_chunk_t *c, nll_pos_t *at, double t)
{
    size_t rec = 0, bad = 0;
    for (size_t i = 0; i < c->n; i++) {
        const nll_line_t *l = &c->lines[i];
        if (!ld->in_tx && begin(ld, at)) return -1;
        if (!ld->t_started) ld->t_started = t;
        if (l->kind == NLL_L_EVENT) {
            nll_err_t err;
            ld->t_untyped += nll_rec_untyped(&c->recs, rec);
            ld->t_unindexed += nll_rec_unindexed(&c->recs, rec);
            unsigned skipped = nll_rec_recovered(&c->recs, rec);
            ld->t_recovered += skipped;
            ld->t_recovered_lines += skipped > 0;
            if (nll_rec_ctl_escape(&c->recs, rec) && !src->ctl++) src->ctl_line = l->lineno;
            if (nll_rows_store(ld->rows, &c->recs, &rec, &err)) {
                fprintf(stderr, "nl-load: %s:%ld: %s\n", src->name, l->lineno, err.msg);
                at->lines = l->lineno; /* for the report: this line was not stored either */
                return -1;
            }
            ld->t_events++;
        } else if (l->kind == NLL_L_BLANK) {
            ld->t_blank++;
        } else if (l->kind == NLL_L_FOLDED) {
            ld->t_folded++;
        } else {
            nll_bad_t b;
            memcpy(&b, c->bads.p + bad, sizeof b);
            const char *text = (const char *)c->bads.p + bad + sizeof b;
            bad += sizeof b + b.len;
            bad_line(ld, src, &b.perr, b.len ? text : NULL, b.len);
        }
        at->offset = l->off;
        at->lines = l->lineno;
        if (ld->t_events + ld->t_bad + ld->t_blank + ld->t_folded >= (uint64_t)ld->batch) {
            int rc = commit(ld, src, at);
            if (rc) return rc;
        }
    }
    return 0;
}

/* Load one open descriptor to its end (or to a stop request): a thread reads and parses
 * (nll_feed) while this one inserts. 0, -1 after a database or read failure (already
 * reported), or NLL_CONFLICT (the caller finds the position again and retries). */
static int load_fd(nll_load_t *ld, int fd, source_t *src, nll_pos_t start)
{
    nll_feed_t *feed =
        nll_feed_start(fd, start.offset, start.lines, ld->parse_flags, !src->key, ld->summarize);
    if (!feed) {
        fprintf(stderr, "nl-load: cannot start the reading thread: out of memory\n");
        return -1;
    }
    nll_pos_t at = start;
    long read_last = start.lines;       /* the last line read: what a loss report ends at */
    ld->t_first_line = start.lines + 1; /* the first one not committed: where it begins */
    int rc = 0, stopping = 0, end = NLL_FEED_MORE, err_no = 0;
    double t0 = nl__mono_s(), shown = t0;
    while (!rc && end == NLL_FEED_MORE) {
        if (stop_asked(ld) && !stopping) {
            nll_feed_stop(feed); /* it hands over what it read: stored, then committed */
            stopping = 1;
        }
        /* a batch is never older than a second: wait for input only until then */
        int wait_ms = 250;
        if (ld->t_started) {
            double left = ld->t_started + 1.0 - nl__mono_s();
            wait_ms = left > 0 ? (int)(left * 1000) + 1 : 0;
        }
        nll_chunk_t *c = nll_feed_next(feed, wait_ms);
        double t = nl__mono_s();
        if (c) {
            if (c->n) read_last = c->lines[c->n - 1].lineno;
            rc = store_chunk(ld, src, c, &at, t);
            end = c->end;
            err_no = c->err_no;
            if (end == NLL_FEED_EOF) src->partial = c->partial;
            nll_feed_done(feed, c);
        }
        if (!rc && ld->t_started && t - ld->t_started >= 1.0) rc = commit(ld, src, &at);
        if (ld->progress && t - shown >= 0.25) {
            show_progress(src, &at, t0, start.lines, 0);
            shown = t;
        }
    }
    if (!rc) rc = commit(ld, src, &at);
    if (rc && ld->in_tx) { /* a failed insert: nothing of this transaction stays */
        nll_sql_rollback(ld->db);
        nll_rows_discard(ld->rows);
        ld->in_tx = 0;
    }
    if (!rc && end == NLL_FEED_ERROR) {
        fprintf(stderr, "nl-load: %s: read error after line %ld: %s\n", src->name, at.lines,
                strerror(err_no));
        rc = -1;
    }
    if (rc && end == NLL_FEED_MORE && !src->key) {
        /* lines already read from a pipe are gone with us: count them into the report */
        nll_feed_stop(feed);
        for (nll_chunk_t *c; end == NLL_FEED_MORE && (c = nll_feed_next(feed, -1));) {
            if (c->n) read_last = c->lines[c->n - 1].lineno;
            end = c->end;
            nll_feed_done(feed, c);
        }
    }
    if (rc && rc != NLL_CONFLICT && end != NLL_FEED_ERROR)
        report_lost(ld, src, read_last, end == NLL_FEED_EOF);
    if (ld->progress && at.lines > start.lines) show_progress(src, &at, t0, start.lines, 1);
    nll_feed_free(feed);
    return rc;
}

int nll_load_path(nll_load_t *ld, const char *name, int reload)
{
    if (!strcmp(name, "-")) {
        source_t src = {.name = "(stdin)"};
        int rc = load_fd(ld, 0, &src, (nll_pos_t){0, 0});
        netlogger_hint(ld, &src);
        return rc;
    }
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        fprintf(stderr, "nl-load: %s: %s\n", name, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    source_t src = {.name = name};
    int rc = 0;
    if (!S_ISREG(st.st_mode)) { /* a pipe or FIFO: read as it comes, no position */
        rc = load_fd(ld, fd, &src, (nll_pos_t){0, 0});
        netlogger_hint(ld, &src);
        close(fd);
        return rc;
    }
    if (!(src.key = realpath(name, NULL)))
        fprintf(stderr,
                "nl-load: %s: %s: loading it without a recorded position (a re-run "
                "would load it again)\n",
                name, strerror(errno));
    src.file = (nll_file_t){
        .fd = fd, .size = (uint64_t)st.st_size, .inode = (uint64_t)st.st_ino, .path = src.key};
    /* one loader per file at a time: a second one waits, then resumes where it stopped
     * (nll_pos_commit catches what a lock cannot: the same content under two names) */
    if (src.key && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (!ld->quiet) fprintf(stderr, "nl-load: %s: another nl-load has it: waiting\n", name);
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR && !stop_asked(ld)) {
        }
    }
    for (int attempt = 0; src.key && !rc; attempt++) {
        nll_pos_t pos;
        nll_err_t err;
        if ((rc = nll_pos_find(ld->db, &src.file, &pos, &src.row, &err))) {
            fprintf(stderr, "nl-load: %s\n", err.msg);
            break;
        }
        src.committed = pos;
        if (reload) pos = (nll_pos_t){0, 0}; /* the row is still checked against its place */
        if (lseek(fd, (off_t)pos.offset, SEEK_SET) < 0) {
            fprintf(stderr, "nl-load: %s: %s\n", name, strerror(errno));
            rc = -1;
            break;
        }
        rc = load_fd(ld, fd, &src, pos);
        if (rc != NLL_CONFLICT) break;
        if (attempt == 4) {
            fprintf(stderr,
                    "nl-load: %s: gave up after 5 tries; what was stored is stored once, "
                    "run again for the rest\n",
                    name);
            rc = -1;
            break;
        }
        rc = 0; /* find the position again and go on from there */
        reload = 0;
    }
    if (!src.key) rc = load_fd(ld, fd, &src, (nll_pos_t){0, 0});
    netlogger_hint(ld, &src);
    if (!rc && src.partial && !ld->quiet)
        fprintf(stderr,
                "nl-load: %s: its last %llu byte(s) have no newline yet: left for the next load\n",
                name, (unsigned long long)src.partial);
    free(src.key);
    close(fd);
    return rc;
}

/* --prune-before and --keep-raw: raw events before `before` deleted, said how many. */
int nll_load_prune(nll_load_t *ld, double before)
{
    int64_t n;
    nll_err_t err;
    if (nll_prune(ld->db, before, &n, &err)) {
        fprintf(stderr, "nl-load: pruning: %s\n", err.msg);
        return -1;
    }
    char when[NL_TS_LEN + 1];
    nl_ts_format((int64_t)(before * 1e6), when);
    fprintf(stderr, "nl-load: %s: deleted %lld raw events older than %s (summaries kept)\n",
            ld->db_name, (long long)n, when);
    return 0;
}

int nll_load_open(nll_load_t *ld, long busy_ms)
{
    /* One connection, one thread: SQLite's global allocation statistics (a mutex and a
     * counter update on every malloc) buy nothing here. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    nll_err_t err;
    nll_db_display_name(ld->db_path, ld->db_name, sizeof ld->db_name);
    int open_failed = nll_db_open(ld->db_path, NLL_OPEN_WRITE, 0, &ld->db, &err);
    if (!open_failed) {
        if (nll_db_sqlite(ld->db)) sqlite3_busy_timeout(nll_db_sqlite(ld->db), (int)busy_ms);
        open_failed = nll_rows_new(ld->db, ld->parse_flags, &ld->rows, &err);
    }
    if (open_failed) {
        fprintf(stderr, "nl-load: %s\n", err.msg);
        nll_db_close(ld->db);
        ld->db = NULL;
        return -1;
    }
    if (ld->reject_path && !(ld->reject = fopen(ld->reject_path, "a"))) {
        fprintf(stderr, "nl-load: %s: %s\n", ld->reject_path, strerror(errno));
        nll_rows_free(ld->rows);
        nll_db_close(ld->db);
        ld->rows = NULL;
        ld->db = NULL;
        return -1;
    }
    return 0;
}

void nll_load_report(const nll_load_t *ld, int failed)
{
    if (!ld->quiet || ld->bad || failed)
        fprintf(stderr, "nl-load: %s: %llu events loaded, %llu bad lines%s%s%s\n", ld->db_name,
                (unsigned long long)ld->events, (unsigned long long)ld->bad,
                ld->bad && ld->reject_path ? " (copied to " : "",
                ld->bad && ld->reject_path ? ld->reject_path : "",
                ld->bad && ld->reject_path ? ")" : "");
    if (ld->summarize && (!ld->quiet || failed))
        fprintf(stderr,
                "nl-load: %s: %llu line(s) folded into the summaries loaded (--summarize)\n",
                ld->db_name, (unsigned long long)ld->folded);
    if (ld->untyped)
        fprintf(stderr,
                "nl-load: %s: %llu summary field(s) not a finite number of their column's kind "
                "(inf, nan, text): kept as written in `value`, left out of the summary columns "
                "and baselines\n",
                ld->db_name, (unsigned long long)ld->untyped);
    if (ld->unindexed)
        fprintf(stderr,
                "nl-load: %s: %llu identity value(s) (guid, *.id) longer than %d bytes: kept as "
                "written in `value`, not in `ident` (whose values are indexed)\n",
                ld->db_name, (unsigned long long)ld->unindexed, NLL_IDENT_MAX);
    if (ld->recovered)
        fprintf(stderr,
                "nl-load: %s: %llu line(s) loaded without %llu piece(s) the %s reading skipped or "
                "replaced (words that are no name=value, an empty value, a name given twice: "
                "its last value kept)\n",
                ld->db_name, (unsigned long long)ld->recovered_lines,
                (unsigned long long)ld->recovered,
                ld->parse_flags == NL_PARSE_NETLOGGER ? "NetLogger" : "lenient");
    if (nll_rows_escaped(ld->rows))
        fprintf(stderr,
                "nl-load: %s: %llu text(s) held bytes the database cannot store (a NUL, or not "
                "UTF-8): stored with those bytes written \\xHH, as an nlkit line writes them\n",
                ld->db_name, (unsigned long long)nll_rows_escaped(ld->rows));
}

int nll_load_close(nll_load_t *ld)
{
    int rc = ld->reject && fclose(ld->reject) ? -1 : 0;
    ld->reject = NULL;
    nll_rows_free(ld->rows);
    nll_db_close(ld->db);
    ld->rows = NULL;
    ld->db = NULL;
    return rc;
}
