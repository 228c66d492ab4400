/* SPDX-License-Identifier: BSD-3-Clause */
/* sng_oneread.c — the differential test's program (test_oneread.sh): makes hostile lines,
 * sends them into syslog-ng, and checks what a real central syslog-ng made of them against
 * nlkit's own parser (sng_door.h).
 *
 *   nl-sng-oneread gen SEED N            N hostile lines on standard output
 *   nl-sng-oneread send-tcp PORT         each line of standard input as a syslog message
 *   nl-sng-oneread send-dgram SOCKET     each line as a datagram, as a local program logs
 *                                        (a 0x1e byte in it is sent as a newline)
 *   nl-sng-oneread check GEN DAY REFUSED TAP
 *
 * check reads the lines sent (GEN), the central's per-day file (DAY), its refused file
 * (REFUSED: "DATE host=H program=P refused=WHY MESSAGE") and the door's own reading of
 * every line it admitted (TAP: "EVENT BASE64(MESSAGE)", a log path made of the
 * configuration's door filter and rewrite) and fails on any disagreement:
 *   - a line archived (DAY) that any nlkit reading finds a report in;
 *   - a line admitted (TAP) whose event any nlkit reading finds otherwise, or a report
 *     the door admitted that nlkit's rule does not call one (and the reverse);
 *   - a line refused as a report that nlkit reads as another event;
 *   - the real door and sng_door.h deciding a line differently;
 *   - a line sent intact (no NUL, CR or 0x1e, no space at either end) that is in neither DAY nor
 *     REFUSED.
 * It prints how many of each it saw, and how many refused lines every nlkit reading agrees
 * are one ordinary event (what the door refuses that nlkit alone would have taken). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sng_door.h"

/* ---- lines in memory ----------------------------------------------------------------- */

typedef struct lines {
    char *text; /* the whole file */
    size_t len;
    struct line {
        const char *s;
        size_t len;
    } * v;
    size_t n;
} lines_t;

/* Read a whole file and cut it at newlines (the last line may lack its newline). */
static int lines_read(lines_t *l, const char *path)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "rb");
    if (!f) return fprintf(stderr, "nl-sng-oneread: %s: %s\n", path, strerror(errno)), -1;
    size_t cap = 1 << 16;
    l->text = malloc(cap);
    for (size_t got; l->text && (got = fread(l->text + l->len, 1, cap - l->len, f)) > 0;) {
        l->len += got;
        if (l->len == cap) l->text = realloc(l->text, cap *= 2);
    }
    fclose(f);
    if (!l->text) return fprintf(stderr, "nl-sng-oneread: out of memory\n"), -1;
    size_t vcap = 1024;
    l->v = malloc(vcap * sizeof *l->v);
    for (size_t a = 0; l->v && a < l->len;) {
        const char *nl = memchr(l->text + a, '\n', l->len - a);
        size_t b = nl ? (size_t)(nl - l->text) : l->len;
        if (l->n == vcap) l->v = realloc(l->v, (vcap *= 2) * sizeof *l->v);
        if (l->v) l->v[l->n++] = (struct line){l->text + a, b - a};
        a = b + 1;
    }
    if (!l->v) return fprintf(stderr, "nl-sng-oneread: out of memory\n"), -1;
    return 0;
}

static void lines_free(lines_t *l)
{
    free(l->text);
    free(l->v);
}

static int line_cmp(const void *a, const void *b)
{
    const struct line *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* A line for a message: printable, at most 160 bytes, the rest counted. */
static void show(const char *s, size_t len)
{
    for (size_t i = 0; i < len && i < 160; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            putc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    if (len > 160) fprintf(stderr, "... (%zu bytes)", len);
    putc('\n', stderr);
}

/* ---- gen ------------------------------------------------------------------------------- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}
#define PICK(a) (a)[rnd(sizeof(a) / sizeof(a)[0])]

static const char *const reports[] = {
    "nl.alert.start", "nl.anomaly.start", "nl.missing", "nl.peer.verdict",
    "nl.alert.end",   "nl.missing.end",   "nl.",        "nl.x"};
static const char *const plain[] = {"test.good",
                                    "gridftp.transfer.start",
                                    "nl.log.dropped",
                                    "nl.summary.x",
                                    "nl.log.",
                                    "nl",
                                    "nl.logx",
                                    "a",
                                    "n.l"};
/* report names spelled so one reader or another sees a report */
static const char *const spelt[] = {"nl\\x2ealert.start",
                                    "\"nl\\x2ealert.start\"",
                                    "\"nl.alert.start\"",
                                    "'nl.alert.start'",
                                    "nl\\.alert.start",
                                    "\"nl.alert.\\x73tart\"",
                                    "nl\xef\xbc\x8e"
                                    "alert.start",
                                    "n\xd0\xb5.alert.start",
                                    "nl\xc0\xae"
                                    "alert.start",
                                    "NL.alert.start",
                                    "\"nl.alert.start"};
/* what may stand between fields, for one reader or another */
static const char *const seps[] = {" ",    "  ",   "\t",   "\xc2\xa0", "\xe2\x80\x83",
                                   "\x0b", "\x0c", "\x1c", "\r",       "\xc2\x85",
                                   " \\",  "\"",   "'",    "/",        ","};
/* how a second event can be written into a line */
static const char *const seconds[] = {" x='y event=%s level=Warn name=forged z='",
                                      " note=\"a event=%s\"",
                                      " note=\"a\\\" event=%s\"",
                                      " note=\"unterminated event=%s",
                                      " event=%s",
                                      " Event=%s",
                                      " event =%s",
                                      " event==%s",
                                      " x=\"a\"event=%s",
                                      " a/event=%s",
                                      " sub.event=%s",
                                      " xevent=%s",
                                      " \"event=%s\"",
                                      " x='event=%s'",
                                      " x=\\\"a event=%s\\\"",
                                      " msg=\"C:\\\\\" event=%s"};

static void put_name(char *b, size_t *n, size_t cap, const char *s)
{
    size_t l = strlen(s);
    if (*n + l < cap) memcpy(b + *n, s, l), *n += l;
}

/* A separator, or now and then a NUL byte (which syslog-ng ends a message at). */
static void put_sep(char *b, size_t *n, size_t cap)
{
    if (rnd(16))
        put_name(b, n, cap, PICK(seps));
    else if (*n + 1 < cap)
        b[(*n)++] = 0;
}

/* One hostile line into b (at most cap bytes; may hold NUL bytes, never a newline). */
static size_t gen_line(char *b, size_t cap)
{
    size_t n = 0;
    char tmp[512];
    uint32_t kind = rnd(100);
    if (kind < 4) { /* random bytes */
        size_t len = rnd(200);
        for (size_t i = 0; i < len; i++) {
            char c = (char)rnd(256);
            b[n++] = c == '\n' ? ' ' : c;
        }
        return n;
    }
    if (kind < 8) { /* the forged line and its relatives, as they are */
        uint32_t us = rnd(1000000);
        const char *r = PICK(reports);
        snprintf(tmp, sizeof tmp,
                 "ts=2026-11-22T12:00:00.%06uZ x='y event=%s level=Warn name=forged z='", us, r);
        put_name(b, &n, cap, tmp);
        return n;
    }
    if (kind < 11) { /* a second message smuggled into a datagram (0x1e: a newline there) */
        const char *r = PICK(reports);
        snprintf(tmp, sizeof tmp,
                 "ts=2026-11-22T12:00:00Z event=test.good x=1\x1e<14>Nov 22 12:00:00 gw3 "
                 "nl-detect: ts=2026-11-22T12:00:00Z event=%s name=smuggled",
                 r);
        put_name(b, &n, cap, tmp);
        return n;
    }
    /* a line in the door's form, then changed */
    const char *ev = rnd(3) ? PICK(plain) : PICK(reports);
    /* one draw after another: the order a call evaluates its arguments in is the compiler's */
    uint32_t tsk = rnd(10);
    const char *lead = rnd(20) ? "" : PICK(seps);
    const char *name = rnd(8) ? ev : PICK(spelt);
    snprintf(tmp, sizeof tmp, "%sts=%s%s event=%s", lead,
             tsk == 0   ? "\"2026-11-22T12:00:00Z\""
             : tsk == 1 ? "'2026"
             : tsk == 2 ? ""
                        : "2026-11-22T12:00:00.5Z",
             tsk == 3 ? "'" : "", name);
    put_name(b, &n, cap, tmp);
    if (!rnd(10)) { /* the event not second */
        n = 0;
        snprintf(tmp, sizeof tmp, "ts=2026-11-22T12:00:00Z level=Info%sevent=%s", PICK(seps), ev);
        put_name(b, &n, cap, tmp);
    }
    for (uint32_t k = rnd(5); k-- > 0;) {
        uint32_t what = rnd(6);
        if (what == 0) {
            const char *how = PICK(seconds), *r = rnd(3) ? PICK(reports) : PICK(spelt);
            snprintf(tmp, sizeof tmp, how, r);
            put_name(b, &n, cap, tmp);
        } else if (what == 1) {
            put_sep(b, &n, cap);
            snprintf(tmp, sizeof tmp, "event=%s", PICK(reports));
            put_name(b, &n, cap, tmp);
        } else if (what == 2) {
            put_name(b, &n, cap, " level=Info msg=\"caf\xc3\xa9 \xe2\x80\x8b \xff\xfe\"");
        } else if (what == 3) {
            put_sep(b, &n, cap);
            put_name(b, &n, cap, "k=v");
        } else if (what == 4 && !rnd(40)) { /* very long: near and past NL_LINE_MAX */
            size_t len = rnd(2) ? 1000 * 1000 : NL_LINE_MAX + 10;
            put_name(b, &n, cap, " pad=");
            for (size_t i = 0; i < len && n < cap; i++) b[n++] = 'a';
        } else {
            snprintf(tmp, sizeof tmp, " name=x%u", rnd(1000));
            put_name(b, &n, cap, tmp);
        }
    }
    if (!rnd(20)) put_sep(b, &n, cap);
    return n;
}

static int gen(unsigned long seed, long count)
{
    rng_state = seed * 2654435761u + 88172645463325252ull;
    size_t cap = NL_LINE_MAX + 4096;
    char *b = malloc(cap);
    if (!b) return 1;
    for (long i = 0; i < count; i++) {
        size_t n = gen_line(b, cap);
        fwrite(b, 1, n, stdout);
        putchar('\n');
    }
    free(b);
    return fflush(stdout) ? 1 : 0;
}

/* ---- send ------------------------------------------------------------------------------ */

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Each line of standard input, with a syslog header, over TCP (tcp) or as one datagram
 * each (a unix socket, as programs log into the host daemon). */
static int send_lines(int tcp, const char *where)
{
    int fd = socket(tcp ? AF_INET : AF_UNIX, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
    struct sockaddr_in in = {.sin_family = AF_INET};
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    if (tcp) {
        in.sin_port = htons((uint16_t)atoi(where));
        in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    } else {
        snprintf(un.sun_path, sizeof un.sun_path, "%s", where);
    }
    if (fd < 0 || connect(fd, tcp ? (struct sockaddr *)&in : (struct sockaddr *)&un,
                          tcp ? sizeof in : sizeof un)) {
        fprintf(stderr, "nl-sng-oneread: %s: %s\n", where, strerror(errno));
        return 1;
    }
    lines_t l;
    if (lines_read(&l, "/dev/stdin")) return 1;
    const char *head = tcp ? "<14>Nov 22 12:00:00 evilhost app: " : "<14>Nov 22 12:00:00 app: ";
    size_t hl = strlen(head);
    char *m = malloc(NL_LINE_MAX + 8192);
    int rc = 0;
    for (size_t i = 0; m && i < l.n && !rc; i++) {
        memcpy(m, head, hl);
        memcpy(m + hl, l.v[i].s, l.v[i].len);
        size_t n = hl + l.v[i].len;
        for (size_t k = hl; !tcp && k < n; k++)
            if (m[k] == 0x1e) m[k] = '\n';
        if (tcp) {
            m[n++] = '\n';
            rc = write_all(fd, m, n);
        } else {
            ssize_t w;
            while ((w = send(fd, m, n, 0)) < 0 && (errno == EINTR || errno == ENOBUFS))
                usleep(1000);
            /* a datagram beyond the socket's limits cannot be sent at all: said, not lost */
            if (w < 0 && errno == EMSGSIZE)
                fprintf(stderr, "nl-sng-oneread: line %zu: too big for a datagram\n", i + 1);
            else
                rc = w < 0;
        }
    }
    if (rc || !m)
        fprintf(stderr, "nl-sng-oneread: %s: %s\n", where, m ? strerror(errno) : "out of memory");
    free(m);
    lines_free(&l);
    close(fd);
    return rc || !m;
}

/* ---- check ----------------------------------------------------------------------------- */

static long problems;
static void problem(const char *what, const char *s, size_t len)
{
    if (++problems <= 20) {
        fprintf(stderr, "DISAGREE: %s: ", what);
        show(s, len);
    }
}

static size_t b64_decode(const char *s, size_t len, char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (size_t i = 0; i < len && s[i] != '='; i++) {
        const char *p = memchr(a, s[i], 64);
        if (!p) continue;
        acc = acc << 6 | (uint32_t)(p - a);
        if ((bits += 6) >= 8) out[n++] = (char)(acc >> (bits -= 8));
    }
    return n;
}

static int check(const char *gen_path, const char *day_path, const char *ref_path,
                 const char *tap_path)
{
    lines_t g, d, r, t;
    if (lines_read(&g, gen_path) || lines_read(&d, day_path) || lines_read(&r, ref_path) ||
        lines_read(&t, tap_path))
        return 1;
    nl_rec_t rec;
    nl_rec_init(&rec);
    char why[512];
    const char *ev, *dev;
    size_t elen, dlen;
    long reports = 0, forms = 0, overrefused = 0;
    /* archived: no reading finds a report; the door admits it, and not as a report */
    for (size_t i = 0; i < d.n; i++) {
        for (int m = 0; m < 3; m++)
            if (sng_read_event(&rec, d.v[i].s, d.v[i].len, sng_modes[m], &ev, &elen) &&
                nl__is_report_event(ev, elen)) {
                snprintf(why, sizeof why, "archived, and nlkit (%s) reads the report %.*s",
                         sng_mode_names[m], (int)elen, ev);
                problem(why, d.v[i].s, d.v[i].len);
            }
        if (!sng_door(d.v[i].s, d.v[i].len, &dev, &dlen) || sng_reserved(dev, dlen))
            problem("archived, where sng_door.h refuses it", d.v[i].s, d.v[i].len);
    }
    /* refused: as a report only when the door reads one that nlkit reads too */
    struct line *msgs = malloc((d.n + r.n + 1) * sizeof *msgs);
    char *buf = malloc(NL_LINE_MAX + 65536);
    if (!msgs || !buf) {
        fprintf(stderr, "nl-sng-oneread: out of memory\n");
        return 1;
    }
    size_t nmsgs = 0;
    for (size_t i = 0; i < d.n; i++) msgs[nmsgs++] = d.v[i];
    for (size_t i = 0; i < r.n; i++) {
        const char *s = r.v[i].s, *p = NULL;
        size_t len = r.v[i].len;
        for (size_t k = 0; k + 9 < len && !p; k++)
            if (!memcmp(s + k, " refused=", 9)) p = s + k + 9;
        const char *sp = p ? memchr(p, ' ', len - (size_t)(p - s)) : NULL;
        if (!sp) {
            problem("a refused line without refused=WHY", s, len);
            continue;
        }
        int as_report = sp - p == 6 && !memcmp(p, "report", 6);
        const char *msg = sp + 1;
        size_t ml = len - (size_t)(msg - s);
        msgs[nmsgs++] = (struct line){msg, ml};
        int admitted = sng_door(msg, ml, &dev, &dlen);
        if (as_report) {
            reports++;
            if (!admitted || !sng_reserved(dev, dlen))
                problem("refused as a report, where sng_door.h does not read one", msg, ml);
            else if (sng_door_check(&rec, msg, ml, why, sizeof why))
                problem(why, msg, ml);
        } else {
            forms++;
            if (admitted) problem("refused for its form, where sng_door.h admits it", msg, ml);
            const char *e0 = NULL;
            size_t l0 = 0;
            int same = 1;
            for (int m = 0; m < 3 && same; m++) {
                same = sng_read_event(&rec, msg, ml, sng_modes[m], &ev, &elen) &&
                       !nl__is_report_event(ev, elen) &&
                       (!e0 || (elen == l0 && !memcmp(ev, e0, l0)));
                if (same && !e0) {
                    /* the first reading's name may live in rec's scratch: keep a copy */
                    static char keep[4096];
                    l0 = elen < sizeof keep ? elen : sizeof keep;
                    memcpy(keep, ev, l0);
                    e0 = keep;
                }
            }
            overrefused += same;
        }
    }
    /* the door's own reading of what it admitted (archived and refused as reports) */
    for (size_t i = 0; i < t.n; i++) {
        const char *sp = memchr(t.v[i].s, ' ', t.v[i].len);
        if (!sp) {
            problem("a tap line without its message", t.v[i].s, t.v[i].len);
            continue;
        }
        size_t tl = (size_t)(sp - t.v[i].s), ml = t.v[i].len - tl - 1;
        if (ml / 4 * 3 > NL_LINE_MAX + 65536) continue; /* beyond any message syslog-ng forms */
        ml = b64_decode(sp + 1, ml, buf);
        if (!sng_door(buf, ml, &dev, &dlen) || dlen != tl || memcmp(dev, t.v[i].s, tl))
            problem("the real door's event and sng_door.h's differ", buf, ml);
        if (sng_door_check(&rec, buf, ml, why, sizeof why)) problem(why, buf, ml);
    }
    if (t.n != d.n + (size_t)reports) {
        snprintf(why, sizeof why,
                 "the door admitted %zu lines, %zu archived and %ld refused as reports", t.n, d.n,
                 reports);
        problem(why, "", 0);
    }
    /* every line sent intact arrived once, archived or refused */
    qsort(msgs, nmsgs, sizeof *msgs, line_cmp);
    size_t intact = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct line *x = &g.v[i];
        if (!x->len || x->len > 65536 || x->s[0] == ' ' || x->s[0] == '\t' ||
            memchr(x->s, 0, x->len) || memchr(x->s, '\r', x->len) || memchr(x->s, 0x1e, x->len) ||
            x->s[x->len - 1] == ' ')
            continue;
        intact++;
        struct line *hit = bsearch(x, msgs, nmsgs, sizeof *msgs, line_cmp);
        if (!hit) problem("sent, neither archived nor refused", x->s, x->len);
    }
    printf(
        "oneread: %zu lines sent (%zu intact); %zu archived, %ld refused as reports, %ld refused "
        "for their form (%ld of them lines every nlkit reading takes as one ordinary event); "
        "%zu admitted by the door; %ld disagreement(s)\n",
        g.n, intact, d.n, reports, forms, overrefused, t.n, problems);
    free(buf);
    free(msgs);
    nl_rec_free(&rec);
    lines_free(&g);
    lines_free(&d);
    lines_free(&r);
    lines_free(&t);
    return problems != 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "gen")) return gen(strtoul(argv[2], NULL, 10), atol(argv[3]));
    if (argc == 3 && !strcmp(argv[1], "send-tcp")) return send_lines(1, argv[2]);
    if (argc == 3 && !strcmp(argv[1], "send-dgram")) return send_lines(0, argv[2]);
    if (argc == 6 && !strcmp(argv[1], "check")) return check(argv[2], argv[3], argv[4], argv[5]);
    fprintf(stderr, "usage: nl-sng-oneread gen SEED N | send-tcp PORT | send-dgram SOCKET | "
                    "check GEN DAY REFUSED TAP\n");
    return 2;
}
