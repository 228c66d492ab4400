/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_levelfile.c — the level file (NL_CFG): lets an operator turn a running program's
 * detail up or down by editing a file. Re-read by the flusher thread when its mtime
 * changes; problems are written into the log itself, and said on standard error too (once),
 * since the log may be a file or a collector the operator is not watching. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_log_int.h"
#include "nl_say.h"

#define LEVELFILE_MAX 65536 /* a level file is a few bytes; more is a mistake */

/* Parse the file's text: the first word that is not a comment, optionally "level=NAME".
 * Returns the level or NL_ELEVEL with *lineno of the offending line and its word in
 * bad[cap] ("" for an empty file). */
static int parse_levelfile(const char *text, int *lineno, char *bad, size_t cap)
{
    bad[0] = '\0';
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
            int lvl = nl_level_parse(w, wl);
            if (lvl < 0) snprintf(bad, cap, "%.*s", (int)(wl > 40 ? 40 : wl), w);
            return lvl;
        }
        if (!eol) break;
        p = eol + 1;
        line++;
    }
    *lineno = line;
    return NL_ELEVEL; /* empty file */
}

/* A problem with the level file, in the log and once on standard error, naming NL_CFG when
 * the variable named the file. */
static void level_problem(nl_log_t *log, const char *msg)
{
    nl__log_self(log, NL_LVL_ERROR, "nl.log.config", "level-file", msg);
    nl__say_once("%s%s; the level stays %s", log->level_from_env ? "NL_CFG=" : "level file ", msg,
                 nl_level_name(atomic_load(&log->gate.level)));
}

/* Read and apply the file; caller holds cfg_mu. report: say what is wrong with it. */
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
            level_problem(log, msg);
        }
        return rd;
    }
    if (rd) return rd;
    int lineno;
    char bad[48];
    int lvl = parse_levelfile(text, &lineno, bad, sizeof bad);
    free(text);
    if (lvl < 0) {
        if (report) {
            char msg[NL_URL_PATH_MAX + 160];
            snprintf(msg, sizeof msg,
                     "%s:%d: no valid level name%s%s%s (expected one of Fatal Error Warn Info "
                     "Debug Trace, alone or as level=NAME)",
                     log->level_file.path, lineno, bad[0] ? ", '" : " (an empty file)", bad,
                     bad[0] ? "'" : "");
            level_problem(log, msg);
        }
        return NL_ELEVEL;
    }
    atomic_store(&log->gate.level, lvl);
    return 0;
}

/* The level file from NL_CFG (from_env) or from nl_level_file. */
static int level_file_set(nl_log_t *log, const char *path, int from_env)
{
    if (!log || !path || !*path) return NL_EINVAL;
    pthread_mutex_lock(&log->cfg_mu);
    log->level_from_env = from_env;
    int rc = nl__watch_set(&log->level_file, path);
    if (!rc) {
        nl__watch_changed(&log->level_file);
        rc = apply_levelfile(log, 1);
    }
    pthread_mutex_unlock(&log->cfg_mu);
    return rc;
}

int nl_level_file(nl_log_t *log, const char *path) { return level_file_set(log, path, 0); }

int nl__level_file_env(nl_log_t *log, const char *path) { return level_file_set(log, path, 1); }

void nl__levelfile_check(nl_log_t *log)
{
    pthread_mutex_lock(&log->cfg_mu);
    if (nl__watch_changed(&log->level_file)) apply_levelfile(log, 1);
    pthread_mutex_unlock(&log->cfg_mu);
}
