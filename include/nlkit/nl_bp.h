/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nl_bp.h — the nlkit line format ("BP", NetLogger best practices): one event per line of
 * ASCII name=value pairs. This header is the one encoder and the one parser that every
 * nlkit component uses (the library itself, nl-detect, nl-load).
 *
 * Line:   ts=2026-11-22T12:00:00.123456Z event=disk.read.end level=Info guid=<uuid> k=v ...
 *
 * Quoting: a value that is empty or contains a space, '"', '=', a control character
 * (0x00-0x1f, 0x7f), a byte that is not part of valid UTF-8, or a character NetLogger's
 * reader takes for whitespace (U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
 * U+202F, U+205F, U+3000) is written in double quotes, with \" \\ \n \r \t and \xHH
 * escapes. A backslash alone does not make a value quoted: unquoted values are read
 * literally (`path=C:\dir`). So one event is always exactly one line, no value can forge
 * another field, any NUL-free byte string round-trips through encode -> parse unchanged, and
 * NetLogger's own reader (which knows only \") reads every value the same unless it has
 * a backslash inside quotes or a byte escaped above (a quoted value ending in a backslash
 * may then take the fields after it along: there is no way to write that value that
 * NetLogger reads back).
 *
 * Lines that NetLogger's tools wrote are another dialect: NetLogger writes backslashes as
 * they are, so `\n` there is a backslash and an 'n'. Read them with NL_PARSE_NETLOGGER.
 */
#ifndef NLKIT_NL_BP_H
#define NLKIT_NL_BP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits (documented, enforced) ------------------------------------------------- */

/** Longest line, in bytes without the newline, that the encoder writes or the parser
 *  accepts. Longer input is an NL_ETOOBIG error, never truncated silently. */
#define NL_LINE_MAX (1024 * 1024)
/** Most fields in one parsed line. */
#define NL_FIELDS_MAX 256
/** Longest field name. */
#define NL_NAME_MAX 128
/** Length of a textual GUID (UUID) without its NUL. */
#define NL_GUID_LEN 36
/** Length of an ISO-8601 timestamp as written ("2026-11-22T12:00:00.123456Z"). */
#define NL_TS_LEN 27

/* ---- error codes (shared by the whole library) ------------------------------------- */

/** Every nlkit call returns 0 (NL_OK) or one of these negative codes; nl_strerror()
 *  explains them. Codes are stable: new ones are only ever added at the end. */
enum nl_status {
    NL_OK = 0,
    NL_EINVAL = -1,   /* invalid argument (NULL handle, bad level, ...) */
    NL_ENOMEM = -2,   /* out of memory */
    NL_EURL = -3,     /* malformed or unsupported destination URL */
    NL_EFMT = -4,     /* malformed nl_write format string */
    NL_EIO = -5,      /* destination unavailable: the line was dropped and counted */
    NL_ETOOBIG = -6,  /* line longer than NL_LINE_MAX */
    NL_EPARSE = -7,   /* malformed event line */
    NL_ELEVEL = -8,   /* unknown level name */
    NL_ESYS = -9,     /* a system call failed (see the message where reported) */
    NL_ENAME = -10,   /* invalid field name */
    NL_ETS = -11,     /* invalid timestamp */
    NL_EDUP = -12,    /* duplicate field name in one line */
    NL_EMISSING = -13 /* required field (ts, event) missing */
};

/** Human-readable text for an nl_status code. Never NULL; unknown codes get a generic
 *  text. The returned string is static. */
const char *nl_strerror(int code);

/* ---- levels --------------------------------------------------------------------------- */

/** Event levels, most severe first. A log writes an event if its level <= the log's
 *  threshold (default NL_LVL_INFO). */
enum nl_level {
    NL_LVL_FATAL = 0,
    NL_LVL_ERROR = 1,
    NL_LVL_WARN = 2,
    NL_LVL_INFO = 3,
    NL_LVL_DEBUG = 4,
    NL_LVL_TRACE = 5
};

/** Name of a level as written in lines ("Fatal" ... "Trace"), or NULL if out of range. */
const char *nl_level_name(int level);

/** Level for a name, case-insensitive ("info", "Info", "INFO"), or a digit 0-5.
 *  Returns the level, or NL_ELEVEL if the name is unknown. `len` is the name's length. */
int nl_level_parse(const char *name, size_t len);

/* ---- timestamps ------------------------------------------------------------------------ */

/** Current UTC time in microseconds since the Unix epoch (CLOCK_REALTIME). */
int64_t nl_now_usec(void);

/** Write `usec` (UTC microseconds since the epoch) as "YYYY-MM-DDTHH:MM:SS.ffffffZ" into
 *  `out`, which must hold NL_TS_LEN + 1 bytes; NUL-terminates. Returns NL_TS_LEN. Years
 *  outside 0000-9999 are clamped to that range. */
int nl_ts_format(int64_t usec, char *out);

/** Parse a timestamp as the line format allows: ISO-8601 "YYYY-MM-DDTHH:MM:SS" with an
 *  optional fraction (1-9 digits) and "Z" or "+HH:MM"/"-HH:MM", or epoch seconds with an
 *  optional fraction ("1732276800.25"). Calendar fields are range-checked (month 1-12, day
 *  valid for the month, hour < 24, minute < 60, second <= 60). On success stores UTC
 *  microseconds since the epoch in *usec (fraction beyond microseconds is truncated) and
 *  returns 0; otherwise NL_ETS. */
int nl_ts_parse(const char *s, size_t len, int64_t *usec);

/* ---- encoder --------------------------------------------------------------------------- */

/** A growable output buffer. Initialise it over caller storage (often the stack) with
 *  nl_buf_init; it moves to the heap only when a line outgrows that storage. The first
 *  error (NL_ENOMEM, NL_ETOOBIG, NL_ENAME) sticks in `err` and later appends are ignored,
 *  so a caller can append a whole line and check once at the end. */
typedef struct nl_buf {
    char *p;      /* bytes; not NUL-terminated */
    size_t len;   /* bytes used */
    size_t cap;   /* bytes available at p */
    size_t limit; /* largest len allowed (NL_LINE_MAX + 1 by default) */
    int err;      /* first error, or 0 */
    int heap;     /* p was allocated by the buffer and must be freed */
} nl_buf_t;

/** Start a buffer over `storage` (may be NULL with cap 0). */
void nl_buf_init(nl_buf_t *b, char *storage, size_t cap);
/** Release heap storage, if any; the buffer can be re-initialised afterwards. */
void nl_buf_free(nl_buf_t *b);
/** Empty the buffer, keeping its storage, and clear its error. */
void nl_buf_reset(nl_buf_t *b);

/** Begin a line with the four required fields, in order: ts, event, level, guid. `guid`
 *  may be NULL (then the field is omitted). `event` is quoted if it needs to be. */
void nl_enc_begin(nl_buf_t *b, int64_t ts_usec, const char *event, int level, const char *guid);
/** Append " name=value" for a byte string of `len` bytes, quoting/escaping as needed.
 *  An invalid name (not [A-Za-z0-9_.-]+, or longer than NL_NAME_MAX) sets NL_ENAME. */
void nl_enc_str(nl_buf_t *b, const char *name, const char *v, size_t len);
/** Append " name=value" for a double: integral values as integers, others in the
 *  shortest of %.15g/%.16g/%.17g that reads back exactly; nan, inf and -inf as such. */
void nl_enc_dbl(nl_buf_t *b, const char *name, double v);
/** Append " name=value" for a signed integer. */
void nl_enc_i64(nl_buf_t *b, const char *name, long long v);
/** Append " name=value" for an unsigned integer. */
void nl_enc_u64(nl_buf_t *b, const char *name, unsigned long long v);
/** Append " name=value" for epoch microseconds written as an ISO-8601 timestamp. */
void nl_enc_ts(nl_buf_t *b, const char *name, int64_t usec);
/** Finish the line with '\n'. Returns 0, or the buffer's first error; the line must not be
 *  emitted if this fails. */
int nl_enc_end(nl_buf_t *b);

/* ---- parser ----------------------------------------------------------------------------- */

/** One parsed field. Pointers refer into the parsed line (zero copy) or, for quoted values
 *  that contained escapes, into the record's scratch space. They are NOT NUL-terminated
 *  and stay valid until the next nl_parse on the same record or until the line's storage
 *  goes away. */
typedef struct nl_field {
    const char *name;
    const char *value;
    uint32_t name_len;
    uint32_t value_len;
} nl_field_t;

/** A parsed line: fields in input order, and the indices of the well-known ones. Reuse one
 *  record for many lines; free it with nl_rec_free. */
typedef struct nl_rec {
    nl_field_t f[NL_FIELDS_MAX];
    int n;             /* fields parsed */
    int i_ts, i_event; /* index of ts / event in f (always set after a successful parse) */
    int i_level;       /* index of level, or -1 */
    int i_guid;        /* index of guid, or -1 */
    int64_t ts_usec;   /* ts as UTC microseconds (0 if lenient parsing could not read it) */
    int recovered;     /* lenient mode: problems skipped over in this line */
    char *scratch;     /* owned storage for unescaped values */
    size_t scratch_cap;
} nl_rec_t;

/** Where and why a line was rejected. `line` is what the caller passed as lineno; `col` is
 *  the 1-based byte column of the offending character. */
typedef struct nl_perr {
    long line;
    int col;
    int code;     /* NL_EPARSE, NL_ETS, NL_EDUP, NL_EMISSING, NL_ENAME, NL_ETOOBIG, NL_ENOMEM */
    char msg[96]; /* e.g. "unterminated quote" */
} nl_perr_t;

/** Parse strictly (default): any deviation from the format is an error. */
#define NL_PARSE_STRICT 0u
/** Parse leniently, for damaged nlkit lines. Recovered (and counted in rec->recovered)
 *  instead of rejected: an unknown escape (kept literally), a bad \x escape (kept
 *  literally), an unterminated quote (value runs to end of line), junk after a closing
 *  quote (dropped), a token without '=' (skipped), an empty or invalid name (field
 *  skipped), a duplicate name (the last value kept, in the first one's place, as
 *  NetLogger does), a control character in a value (kept), an unparsable ts (kept as text,
 *  ts_usec = 0). Read without counting: the timestamps NetLogger accepts and nlkit does
 *  not write (lowercase 'z', no zone = UTC, more than 9 fraction digits). Still rejected:
 *  missing ts or event, too many fields, over-long line. */
#define NL_PARSE_LENIENT 1u
/** Parse a line as NetLogger's own reader does (NLSimpleParser, which Pegasus WMS ships),
 *  for lines NetLogger's tools wrote: only \" is an escape (`"C:\new"` holds a backslash
 *  and an 'n'); a quoted value ends at the first '"' not preceded by a backslash, or else
 *  at the line's last '"'; an unquoted value ends at whitespace as Python sees it (U+00A0
 *  and the other Unicode spaces included) or at a '"'; anything that is not NAME=VALUE is
 *  skipped (counted in rec->recovered); a duplicate name keeps its last value; timestamps
 *  as in lenient mode. Lines starting with '#' are still comments. Rejected as in lenient
 *  mode. */
#define NL_PARSE_NETLOGGER 2u

/** Initialise a record before first use. */
void nl_rec_init(nl_rec_t *rec);
/** Free a record's scratch storage. */
void nl_rec_free(nl_rec_t *rec);

/** Parse one line (`len` bytes, a trailing "\n" or "\r\n" is ignored; the line must not
 *  contain other newlines). Returns 1 if an event was parsed into `rec`, 0 if the line is
 *  blank or a '#' comment (not an event), or a negative code with `err` (may be NULL)
 *  filled in. Never reads outside [line, line+len). */
int nl_parse(nl_rec_t *rec, const char *line, size_t len, long lineno, unsigned flags,
             nl_perr_t *err);

/** The first field called `name` in a parsed record, or NULL. */
const nl_field_t *nl_rec_get(const nl_rec_t *rec, const char *name);

/** Whether a field's value equals the NUL-terminated string `s`. */
int nl_field_is(const nl_field_t *f, const char *s);

/** A field's value as a double, read in the C locale whatever the program's locale
 *  ("nan", "inf" accepted). Returns 0, or NL_EPARSE if the whole value is not a number. */
int nl_field_double(const nl_field_t *f, double *out);

#ifdef __cplusplus
}
#endif
#endif
