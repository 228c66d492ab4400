/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_state.c — the state file: open alerts (and ended ones whose end is not sent yet)
 * and undelivered notifications, so that a restart neither repeats nor forgets an alert.
 * Written whole to a temporary file, fsync'ed and renamed over the old one: a crash leaves
 * the old state or the new, never half of one. Records are a header line of numbers, then
 * the byte strings it counts (ids may hold any byte):
 *   nlkit-alerts-state 2
 *   G ROUTE SEQ FIRST LASTSENT KEYLEN\n KEY \n
 *   A KIND LEVEL START END NOTIFIED FIRING IDLEN LINELEN ENDLEN\n ID LINE ENDLINE \n
 *   N RECVLEN IDLEN STATUSLEN GROUPLEN FIRSTLEN COUNT ATTEMPTS JSONLEN LINESLEN\n ... \n
 *   E RECORDS\n
 * The end record (format 2) counts the records before it: a file cut at a record boundary
 * (a copy that ran out of room, a truncated backup) lacks it and is refused, as is one
 * whose count differs. Format 1 (before 2026-11) had no end record: it is still read, said
 * once, since its end cannot be checked; the next save writes format 2. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_file.h"
#include "nla_int.h"

#define MAGIC "nlkit-alerts-state 2\n"
#define MAGIC_V1 "nlkit-alerts-state 1\n"

static void put_note(FILE *f, const char *recv, const nla_note_t *n, long *records)
{
    (*records)++;
    fprintf(f, "N %zu %zu %zu %zu %zu %u %u %zu %zu\n", strlen(recv), strlen(n->id),
            strlen(n->status), strlen(n->group), strlen(n->first), n->count, n->attempts,
            n->json_len, n->lines_len);
    fputs(recv, f);
    fputs(n->id, f);
    fputs(n->status, f);
    fputs(n->group, f);
    fputs(n->first, f);
    fwrite(n->json, 1, n->json_len, f);
    fwrite(n->lines, 1, n->lines_len, f);
    fputc('\n', f);
}

typedef struct each_ctx {
    FILE *f;
    const char *recv;
    long *records;
} each_ctx_t;

static void each_note(void *ctx, const nla_note_t *n)
{
    each_ctx_t *e = ctx;
    put_note(e->f, e->recv, n, e->records);
}

int nla__state_save(nla_t *a, nla_note_t *const *queued, int final)
{
    const char *path = a->cfg->state;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        a->n.state_errors++;
        fprintf(a->diag, "nl-detect: state file %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fputs(MAGIC, f);
    long records = 0;
    for (nla_group_t *g = a->g_head; g; g = g->next) {
        records++;
        fprintf(f, "G %d %u %" PRId64 " %" PRId64 " %zu\n", g->route, g->seq, g->first,
                g->last_sent, strlen(g->key));
        fputs(g->key, f);
        fputc('\n', f);
    }
    for (nla_alert_t *al = a->a_head; al; al = al->next) {
        records++;
        fprintf(f, "A %d %d %" PRId64 " %" PRId64 " %d %d %zu %zu %zu\n", al->kind, al->level,
                al->start, al->end, al->notified, al->firing, al->ment->klen, al->line_len,
                al->end_line ? al->end_len : (size_t)0);
        fwrite(al->ment->key, 1, al->ment->klen, f);
        fwrite(al->line, 1, al->line_len, f);
        if (al->end_line) fwrite(al->end_line, 1, al->end_len, f);
        fputc('\n', f);
    }
    for (int i = 0; i < a->cfg->nr; i++) {
        if (final) {
            for (const nla_note_t *n = queued[i]; n; n = n->next)
                put_note(f, a->cfg->r[i].name, n, &records);
        } else {
            each_ctx_t e = {f, a->cfg->r[i].name, &records};
            nla__recv_each(a->recv[i], each_note, &e);
        }
    }
    fprintf(f, "E %ld\n", records);
    int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        a->n.state_errors++;
        fprintf(a->diag, "nl-detect: state file %s: cannot write: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    /* the rename itself durable: the directory's entry */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = 0;
    else
        snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    return 0;
}

/* Reading: a cursor over the whole file. */
typedef struct cur {
    const char *p, *end;
} cur_t;

static int take(cur_t *c, size_t n, char **out)
{
    if ((size_t)(c->end - c->p) < n) return -1;
    if (out) {
        if (!(*out = malloc(n + 1))) return -1;
        memcpy(*out, c->p, n);
        (*out)[n] = 0;
    }
    c->p += n;
    return 0;
}

static int header(cur_t *c, char *line, size_t cap)
{
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    if (!nl || (size_t)(nl - c->p) >= cap) return -1;
    memcpy(line, c->p, (size_t)(nl - c->p));
    line[nl - c->p] = 0;
    c->p = nl + 1;
    return 0;
}

static int load_alert(nla_t *a, const nla_restore_ops_t *ops, cur_t *c, const char *h)
{
    int kind, level, notified, firing;
    int64_t start, end;
    size_t idl, ll, el;
    if (sscanf(h, "A %d %d %" SCNd64 " %" SCNd64 " %d %d %zu %zu %zu", &kind, &level, &start, &end,
               &notified, &firing, &idl, &ll, &el) != 9 ||
        kind < NLA_ANOMALY || kind > NLA_ALERT || idl == 0)
        return -1;
    char *id = NULL, *line = NULL, *eline = NULL;
    int rc = -1;
    if (take(c, idl, &id) || take(c, ll, &line) || take(c, el, el ? &eline : NULL) ||
        take(c, 1, NULL))
        goto out;
    if (nl__map_get(&a->alerts, id, idl)) goto out;
    nla_alert_t *al = ops->alert_add(a, id, idl, kind, level, start, line, ll);
    if (!al) goto out;
    al->notified = notified;
    al->firing = firing;
    al->end = end;
    if (!firing && eline) {
        al->end_line = eline;
        al->end_len = el;
        eline = NULL;
    }
    if (start > a->now) a->now = start;
    if (end > a->now) a->now = end;
    al->silenced = nla__silenced(a, al->key, start);
    /* back into its groups as notified (or not yet); an end not yet sent goes out */
    ops->route_restored(a, al);
    rc = 0;
out:
    free(id);
    free(line);
    free(eline);
    return rc;
}

static int load_group(nla_t *a, const nla_restore_ops_t *ops, cur_t *c, const char *h)
{
    int route;
    unsigned seq;
    int64_t first, last;
    size_t kl;
    char *key = NULL;
    if (sscanf(h, "G %d %u %" SCNd64 " %" SCNd64 " %zu", &route, &seq, &first, &last, &kl) != 5 ||
        take(c, kl, &key) || take(c, 1, NULL)) {
        free(key);
        return -1;
    }
    int rc = ops->group_restore(a, route, key, kl, seq, first, last);
    free(key);
    return rc;
}

static int load_note(nla_t *a, cur_t *c, const char *h)
{
    size_t rl, il, sl, gl, fl, jl, ll;
    unsigned count, attempts;
    if (sscanf(h, "N %zu %zu %zu %zu %zu %u %u %zu %zu", &rl, &il, &sl, &gl, &fl, &count, &attempts,
               &jl, &ll) != 9)
        return -1;
    nla_note_t *n = calloc(1, sizeof *n);
    char *recv = NULL;
    if (!n || take(c, rl, &recv) || take(c, il, &n->id) || take(c, sl, &n->status) ||
        take(c, gl, &n->group) || take(c, fl, &n->first) || take(c, jl, &n->json) ||
        take(c, ll, &n->lines) || take(c, 1, NULL)) {
        free(recv);
        nla__note_free(n);
        return -1;
    }
    n->count = count;
    n->attempts = attempts;
    n->json_len = jl;
    n->lines_len = ll;
    int i = 0;
    while (i < a->cfg->nr && strcmp(a->cfg->r[i].name, recv)) i++;
    if (i == a->cfg->nr) {
        a->n.state_errors++;
        fprintf(a->diag,
                "nl-detect: state file: notification %s was for receiver '%s', which the "
                "configuration no longer has: not sent\n",
                n->id, recv);
        nla__note_free(n);
    } else {
        nla__recv_push(a->recv[i], n);
    }
    free(recv);
    return 0;
}

/* The bytes a G, A or N record's header says follow it (before the newline that closes the
 * record), at most `left`: 0, or -1 for a header that is none of those or counts more. */
static int payload_len(const char *h, size_t left, size_t *len)
{
    int d1, d2, d3, d4;
    unsigned u1, u2;
    int64_t t1, t2;
    size_t v[7];
    int nv;
    if (h[0] == 'G')
        nv = sscanf(h, "G %d %u %" SCNd64 " %" SCNd64 " %zu", &d1, &u1, &t1, &t2, &v[0]) == 5 ? 1
                                                                                           : -1;
    else if (h[0] == 'A')
        nv = sscanf(h, "A %d %d %" SCNd64 " %" SCNd64 " %d %d %zu %zu %zu", &d1, &d2, &t1, &t2,
                    &d3, &d4, &v[0], &v[1], &v[2]) == 9
                 ? 3
                 : -1;
    else if (h[0] == 'N')
        nv = sscanf(h, "N %zu %zu %zu %zu %zu %u %u %zu %zu", &v[0], &v[1], &v[2], &v[3], &v[4],
                    &u1, &u2, &v[5], &v[6]) == 9
                 ? 7
                 : -1;
    else
        nv = -1;
    if (nv < 0) return -1;
    *len = 0;
    for (int i = 0; i < nv; i++) {
        if (v[i] > left - *len) return -1;
        *len += v[i];
    }
    return 0;
}

/* Whether a format-2 file is whole, before anything of it is applied (a receiver's thread
 * would start sending a restored notification at once): every record's header, the bytes
 * it counts and its closing newline, then the end record with the number of records before
 * it, and nothing after. 0, or -1 with err naming the file and the record. */
static int check_whole(cur_t c, const char *path, char *err, size_t errlen)
{
    char h[256];
    long rec = 0;
    while (c.p < c.end) {
        rec++;
        size_t n;
        if (header(&c, h, sizeof h)) break;
        if (h[0] == 'E') {
            long want;
            char extra;
            if (sscanf(h, "E %ld%c", &want, &extra) != 1) break;
            if (want != rec - 1) {
                snprintf(err, errlen,
                         "state file %s: its end record (record %ld) counts %ld record(s), the "
                         "file holds %ld: damaged (move it away to start without it)",
                         path, rec, want, rec - 1);
                return -1;
            }
            if (c.p != c.end) {
                snprintf(err, errlen,
                         "state file %s: %zu byte(s) after its end record (record %ld): damaged "
                         "(move it away to start without it)",
                         path, (size_t)(c.end - c.p), rec);
                return -1;
            }
            return 0;
        }
        if (payload_len(h, (size_t)(c.end - c.p), &n) || take(&c, n, NULL) || c.p == c.end ||
            *c.p++ != '\n')
            break;
        if (c.p == c.end) {
            snprintf(err, errlen,
                     "state file %s: cut short after record %ld: no end record (a whole file "
                     "ends with 'E %ld'; move it away to start without it)",
                     path, rec, rec);
            return -1;
        }
    }
    if (!rec)
        snprintf(err, errlen,
                 "state file %s: cut short after its first line: no end record (move it away "
                 "to start without it)",
                 path);
    else
        snprintf(err, errlen,
                 "state file %s: damaged at record %ld (move it away to start without it)", path,
                 rec);
    return -1;
}

int nla__state_load(nla_t *a, const nla_restore_ops_t *ops, char *err, size_t errlen)
{
    const char *path = a->cfg->state;
    if (!path) return 0;
    char why[512];
    int fd;
    FILE *f = NULL;
    if (nl__open_regular(path, &fd, why, sizeof why)) { /* a FIFO would block us for ever */
        if (errno == ENOENT) return 0;                  /* a first run */
        snprintf(err, errlen, "state file %s", why);
        return -1;
    }
    if (!(f = fdopen(fd, "r"))) {
        snprintf(err, errlen, "state file %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (len + 65536 > cap) {
            char *nt = cap > ((size_t)1 << 30) ? NULL : realloc(text, cap = cap * 2 + 65536);
            if (!nt) {
                rc = -1;
                break;
            }
            text = nt;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (!got) break;
    }
    if (ferror(f)) rc = -1;
    fclose(f);
    if (rc) {
        free(text);
        snprintf(err, errlen, "state file %s: cannot read it whole", path);
        return -1;
    }
    cur_t c = {text, text + len};
    char h[256];
    long rec = 0;
    size_t ml = strlen(MAGIC); /* MAGIC_V1 is as long */
    int v2 = len >= ml && !memcmp(text, MAGIC, ml), v1 = len >= ml && !memcmp(text, MAGIC_V1, ml);
    if (!v1 && !v2) {
        if (len < ml && !memcmp(text ? text : "", MAGIC, len))
            snprintf(err, errlen,
                     "state file %s: cut short in its first line (%zu byte(s)): damaged (move it "
                     "away to start without it)",
                     path, len);
        else
            snprintf(err, errlen,
                     "state file %s: not an nlkit alerts state file (the first line is not "
                     "'%.*s'; move it away to start without it)",
                     path, (int)ml - 1, MAGIC);
        free(text);
        return -1;
    }
    c.p += ml;
    if (v2 && check_whole(c, path, err, errlen)) {
        free(text);
        return -1;
    }
    if (v1)
        fprintf(a->diag,
                "nl-detect: state file %s: format 1 (an earlier nlkit), which has no end record: "
                "read without checking that it is whole; the next save writes format 2\n",
                path);
    while (c.p < c.end && !rc) {
        rec++;
        if (header(&c, h, sizeof h))
            rc = -1;
        else if (h[0] == 'E' && v2)
            break; /* checked above: the end */
        else if (h[0] == 'G')
            rc = load_group(a, ops, &c, h);
        else if (h[0] == 'A')
            rc = load_alert(a, ops, &c, h);
        else if (h[0] == 'N')
            rc = load_note(a, &c, h);
        else
            rc = -1;
    }
    free(text);
    if (rc) {
        snprintf(err, errlen,
                 "state file %s: damaged at record %ld (move it away to start without it)", path,
                 rec);
        return -1;
    }
    return 0;
}
