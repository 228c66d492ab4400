/* SPDX-License-Identifier: BSD-3-Clause */
/* nla_silence.c — silences: the configuration's and a silences file's, read again when the
 * file changes so that maintenance can be announced without a restart. */
#include <fnmatch.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "nl_words.h"
#include "nla_int.h"

static int matches(const nla_silence_t *s, int n, const char *key, int64_t at)
{
    for (int i = 0; i < n; i++)
        if (at < s[i].until && fnmatch(s[i].glob, key, 0) == 0) return 1;
    return 0;
}

int nla__silenced(nla_t *a, const char *key, int64_t at)
{
    return matches(a->cfg->s, a->cfg->ns, key, at) || matches(a->file.s, a->file.ns, key, at);
}

void nla__silences_next(nla_t *a)
{
    a->silence_next = INT64_MAX;
    for (int k = 0; k < 2; k++) {
        const nla_cfg_t *c = k ? &a->file : a->cfg;
        for (int i = 0; i < c->ns; i++)
            if (c->s[i].until > a->now && c->s[i].until < a->silence_next)
                a->silence_next = c->s[i].until;
    }
}

void nla__silences_reload(nla_t *a)
{
    const char *path = a->cfg->silences;
    if (!path) return;
    struct stat st;
    if (stat(path, &st)) {
        if (a->file_seen != -1) { /* gone: its silences end (said once) */
            if (a->file_seen == 1)
                fprintf(a->diag, "nl-detect: silences file %s is gone: its silences end\n", path);
            else
                fprintf(a->diag, "nl-detect: silences file %s does not exist (yet)\n", path);
            nla_cfg_free(&a->file);
            a->file_seen = -1;
            a->silences_changed = 1;
        }
        return;
    }
    long long mt = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    if (a->file_seen == 1 && mt == a->file_mtime && (long long)st.st_size == a->file_size) return;
    char err[512], *text;
    nla_cfg_t fresh;
    nla_cfg_init(&fresh);
    int rc = nl__read_text(path, (size_t)16 << 20, &text, err, sizeof err);
    if (!rc) {
        rc = nla__silences_parse(&fresh, text, path, err, sizeof err);
        free(text);
    }
    a->file_mtime = mt;
    a->file_size = (long long)st.st_size;
    if (rc) { /* keep what held before: a half-written file must not lift every silence */
        a->n.state_errors++;
        fprintf(a->diag, "nl-detect: %s (the silences in force stay)\n", err);
        nla_cfg_free(&fresh);
        if (a->file_seen != 1) a->file_seen = 1;
        return;
    }
    nla_cfg_free(&a->file);
    a->file = fresh;
    a->file_seen = 1;
    a->silences_changed = 1;
}
