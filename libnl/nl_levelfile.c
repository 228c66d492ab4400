/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_levelfile.c — the level file (NL_CFG): lets an operator turn a running program's
 * detail up or down by editing a file. Re-read by the flusher thread when its mtime
 * changes; problems are written into the log itself, where the operator is looking. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_log_int.h"

#define LEVELFILE_MAX 65536 /* a level file is a few bytes; more is a mistake */

/* Parse the file's text: the first word that is not a comment, optionally "level=NAME".
 * Returns the level or NL_ELEVEL with *lineno of the offending line. */
static int parse_levelfile(const char *text, int *lineno)
{
    int line = 1;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        size_t i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
        if (i < n && p[i] != '#') {
            size_t e = i;
            while (e < n && p[e] != ' ' && p[e] != '\t' && p[e] != '\r' && p[e] != '#') e++;
            const char *w = p + i;
            size_t wl = e - i;
            if (wl > 6 && !strncmp(w, "level=", 6)) w += 6, wl -= 6;
            *lineno = line;
            return nl_level_parse(w, wl);
        }
        if (!eol) break;
        p = eol + 1;
        line++;
    }
    *lineno = line;
    return NL_ELEVEL; /* empty file */
}

/* Read and apply the file; caller holds cfg_mu. report: write problems into the log. */
static int apply_levelfile(nl_log_t *log, int report)
{
    char *text;
    size_t n;
    int rd = nl__read_small_file(log->level_file.path, LEVELFILE_MAX, &text, &n);
    if (rd == NL_EIO) return 0; /* missing: level unchanged, retried when it appears */
    if (rd == NL_EINVAL || rd == NL_ETOOBIG) {
        if (report) { /* a FIFO would hang nl_open and the flusher: refused, said */
            char msg[NL_URL_PATH_MAX + 64];
            snprintf(msg, sizeof msg, "%s: %s", log->level_file.path,
                     rd == NL_EINVAL ? "not a regular file (a FIFO, device or directory)"
                                     : "larger than 64 KiB");
            nl__log_self(log, NL_LVL_ERROR, "nl.log.config", "level-file", msg);
        }
        return rd;
    }
    if (rd) return rd;
    int lineno;
    int lvl = parse_levelfile(text, &lineno);
    free(text);
    if (lvl < 0) {
        if (report) {
            char msg[NL_URL_PATH_MAX + 64];
            snprintf(msg, sizeof msg,
                     "%s:%d: no valid level name (Fatal Error Warn Info Debug Trace)",
                     log->level_file.path, lineno);
            nl__log_self(log, NL_LVL_ERROR, "nl.log.config", "level-file", msg);
        }
        return NL_ELEVEL;
    }
    atomic_store(&log->gate.level, lvl);
    return 0;
}

int nl_level_file(nl_log_t *log, const char *path)
{
    if (!log || !path || !*path) return NL_EINVAL;
    pthread_mutex_lock(&log->cfg_mu);
    int rc = nl__watch_set(&log->level_file, path);
    if (!rc) {
        nl__watch_changed(&log->level_file);
        rc = apply_levelfile(log, 1);
    }
    pthread_mutex_unlock(&log->cfg_mu);
    return rc;
}

void nl__levelfile_check(nl_log_t *log)
{
    pthread_mutex_lock(&log->cfg_mu);
    if (nl__watch_changed(&log->level_file)) apply_levelfile(log, 1);
    pthread_mutex_unlock(&log->cfg_mu);
}
