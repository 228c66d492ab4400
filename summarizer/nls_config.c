/* SPDX-License-Identifier: BSD-3-Clause */
/* nls_config.c — where rules come from: NL_SUMMARY, a rules file (NL_SUMMARY_FILE or
 * nl_summary_file, re-read when it changes, so an operator can turn summaries on in a
 * running server), and nl_summarize(). The three sources are merged in that order, so on
 * equal specificity the file beats the environment and the API beats both. After any
 * change every known activity is resolved again. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl_enc.h"
#include "nl_say.h"
#include "nls_int.h"

static int copy_rules(nls_rules_t *into, const nls_rules_t *from)
{
    for (int i = 0; i < from->n; i++) {
        int rc = nls_rules_append(into, &from->r[i]);
        if (rc) return rc;
    }
    return 0;
}

int nls__config_apply(nls_t *s)
{
    nls_rules_t merged;
    nls_rules_init(&merged);
    int rc = copy_rules(&merged, &s->env_rules);
    if (!rc) rc = copy_rules(&merged, &s->file_rules);
    if (!rc) rc = copy_rules(&merged, &s->api_rules);
    if (rc) {
        nls_rules_free(&merged);
        return rc;
    }
    nls_rules_free(&s->rules);
    s->rules = merged;
    for (int i = 0; i < s->nacts; i++)
        atomic_store_explicit(&s->acts[i]->res, nls__resolve(s, s->acts[i]->name, s->acts[i]->len),
                              memory_order_release);
    return 0;
}

int nls_config_add(nls_t *s, const char *glob, int mode, double interval_s, const char *vf)
{
    pthread_mutex_lock(&s->cfg_mu);
    int rc = nls_rules_add(&s->api_rules, glob, mode, interval_s, vf);
    if (!rc) rc = nls__config_apply(s);
    pthread_mutex_unlock(&s->cfg_mu);
    return rc;
}

/* Report a configuration problem where the operator is looking: in the log, and once on
 * standard error (the log may be a file or a collector nobody watches yet), naming the
 * variable, the text and what was expected (the parser's message says it). `var` is the
 * variable that gave the rules, `where` its value's name in the message (the text of
 * NL_SUMMARY, the rules file's path); `then` what happens instead. */
static void report(nls_t *s, const char *var, const char *where, const nl_perr_t *e,
                   const char *then)
{
    int text = var && strcmp(var, "NL_SUMMARY") == 0; /* where is the rules themselves */
    char at[48] = ""; /* a whole-file problem has no line or column */
    if (e->line) snprintf(at, sizeof at, ":%ld:%d", e->line, e->col);
    char msg[512];
    snprintf(msg, sizeof msg, "%s%s: %s", text ? var : where, at, e->msg);
    nls__emit_note(s, NL_LVL_ERROR, "nl.summary.config", 0, 0, msg);
    if (text)
        nl__say_once("NL_SUMMARY='%.300s': at %ld:%d: %s; %s", where, e->line, e->col, e->msg,
                     then);
    else
        nl__say_once("%s%s%.300s%s: %s; %s", var ? var : "rules file", var ? "=" : " ", where, at,
                     e->msg, then);
}

/* A whole-file problem (no line or column): fill err with the shared filler, return code. */
static int file_err(nl_perr_t *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nl__perr_vset(err, 0, 0, code, fmt, ap);
    va_end(ap);
    return code;
}

/* Read the rules file into file_rules, all or nothing (caller holds cfg_mu). */
static int load_file(nls_t *s, nl_perr_t *err)
{
    char *text;
    size_t n;
    int rd = nl__read_small_file(s->rules_file.path, NLS_FILE_MAX, &text, &n);
    if (rd == NL_EIO) return file_err(err, NL_EIO, "cannot open: %s", strerror(errno));
    if (rd == NL_EINVAL) /* a FIFO would block the program: only regular files */
        return file_err(err, NL_EINVAL, "not a regular file (a FIFO, device or directory)");
    if (rd == NL_ETOOBIG) return file_err(err, NL_ETOOBIG, "larger than %d bytes", NLS_FILE_MAX);
    if (rd) return rd;
    if (memchr(text, '\0', n)) {
        free(text);
        return file_err(err, NL_EPARSE, "binary data (a NUL byte) in a rules file");
    }
    nls_rules_t fresh;
    nls_rules_init(&fresh);
    int rc = nls_rules_parse(&fresh, text, err);
    free(text);
    if (rc) {
        nls_rules_free(&fresh);
        return rc;
    }
    nls_rules_free(&s->file_rules);
    s->file_rules = fresh;
    return nls__config_apply(s);
}

int nls_config_file(nls_t *s, const char *path, nl_perr_t *err)
{
    pthread_mutex_lock(&s->cfg_mu);
    int rc = nl__watch_set(&s->rules_file, path);
    if (!rc) {
        nl__watch_changed(&s->rules_file);
        rc = load_file(s, err);
    }
    pthread_mutex_unlock(&s->cfg_mu);
    return rc;
}

void nls_config_check(nls_t *s)
{
    pthread_mutex_lock(&s->cfg_mu);
    if (nl__watch_changed(&s->rules_file)) {
        nl_perr_t e;
        memset(&e, 0, sizeof e);
        if (load_file(s, &e))
            report(s, NULL, s->rules_file.path, &e, "the rules in force stay"); /* the old ones */
    }
    pthread_mutex_unlock(&s->cfg_mu);
}

void nls_config_env(nls_t *s)
{
    const char *env = getenv("NL_SUMMARY");
    pthread_mutex_lock(&s->cfg_mu);
    if (env && *env) {
        nl_perr_t e;
        memset(&e, 0, sizeof e);
        if (nls_rules_parse(&s->env_rules, env, &e))
            report(s, "NL_SUMMARY", env, &e, "none of its rules apply");
        else
            nls__config_apply(s);
    }
    pthread_mutex_unlock(&s->cfg_mu);
    const char *file = getenv("NL_SUMMARY_FILE");
    if (file && *file) {
        nl_perr_t e;
        memset(&e, 0, sizeof e);
        if (nls_config_file(s, file, &e))
            report(s, "NL_SUMMARY_FILE", file, &e, "none of its rules apply until it is fixed");
    }
}

void nls__config_free(nls_t *s)
{
    nls_rules_free(&s->env_rules);
    nls_rules_free(&s->file_rules);
    nls_rules_free(&s->api_rules);
    nls_rules_free(&s->rules);
    nl__watch_free(&s->rules_file);
}
