/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_state.c — the state file: open alerts (and ended ones whose end is not sent yet)
 * and undelivered notifications, so that a restart neither repeats nor forgets an alert.
 * Written whole to a temporary file, fsync'ed and renamed over the old one: a crash leaves
 * the old state or the new, never half of one. Records are a header line of numbers, then
 * the byte strings it counts (ids may hold any byte):
 *   nlkit-alerts-state 1
 *   G ROUTE SEQ FIRST LASTSENT KEYLEN\n KEY \n
 *   A KIND LEVEL START END NOTIFIED FIRING IDLEN LINELEN ENDLEN\n ID LINE ENDLINE \n
 *   N RECVLEN IDLEN STATUSLEN GROUPLEN FIRSTLEN COUNT ATTEMPTS JSONLEN LINESLEN\n ... \n */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nla_int.h"

#define MAGIC "nlkit-alerts-state 1\n"

static void put_note(FILE *f, const char *recv, const nla_note_t *n)
{
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
} each_ctx_t;

static void each_note(void *ctx, const nla_note_t *n)
{
    each_ctx_t *e = ctx;
    put_note(e->f, e->recv, n);
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
    for (nla_group_t *g = a->g_head; g; g = g->next) {
        fprintf(f, "G %d %u %" PRId64 " %" PRId64 " %zu\n", g->route, g->seq, g->first,
                g->last_sent, strlen(g->key));
        fputs(g->key, f);
        fputc('\n', f);
    }
    for (nla_alert_t *al = a->a_head; al; al = al->next) {
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
            for (const nla_note_t *n = queued[i]; n; n = n->next) put_note(f, a->cfg->r[i].name, n);
        } else {
            each_ctx_t e = {f, a->cfg->r[i].name};
            nla__recv_each(a->recv[i], each_note, &e);
        }
    }
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
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

int nla__state_load(nla_t *a, const nla_restore_ops_t *ops, char *err, size_t errlen)
{
    const char *path = a->cfg->state;
    if (!path) return 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0; /* a first run */
        snprintf(err, errlen, "state file %s: %s", path, strerror(errno));
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
    if (len < strlen(MAGIC) || memcmp(text, MAGIC, strlen(MAGIC))) {
        rc = -1;
    } else {
        c.p += strlen(MAGIC);
        while (c.p < c.end && !rc) {
            rec++;
            if (header(&c, h, sizeof h))
                rc = -1;
            else if (h[0] == 'G')
                rc = load_group(a, ops, &c, h);
            else if (h[0] == 'A')
                rc = load_alert(a, ops, &c, h);
            else if (h[0] == 'N')
                rc = load_note(a, &c, h);
            else
                rc = -1;
        }
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
