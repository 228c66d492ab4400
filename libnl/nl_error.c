/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_error.c — text for nl_status codes. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nl_log_int.h"
#include "nl_say.h"
#include "nl_url.h"
#include "nlkit/nl.h"

const char *nl_strerror(int code)
{
    switch (code) {
    case NL_OK: return "success";
    case NL_EINVAL: return "invalid argument";
    case NL_ENOMEM: return "out of memory";
    case NL_EURL: return "malformed or unsupported destination URL";
    case NL_EFMT: return "malformed format string";
    case NL_EIO: return "destination unavailable, line dropped";
    case NL_ETOOBIG: return "line longer than NL_LINE_MAX";
    case NL_EPARSE: return "malformed event line";
    case NL_ELEVEL: return "unknown level name";
    case NL_ESYS: return "system call failed";
    case NL_ENAME: return "invalid field name";
    case NL_ETS: return "invalid timestamp";
    case NL_EDUP: return "duplicate field name";
    case NL_EMISSING: return "required field missing";
    default: return "unknown error";
    }
}

/* This thread's last nl_open: the NL_DEST it opened instead of its URL, or "". */
static _Thread_local char open_dest[NL_URL_PATH_MAX + 64];

void nl__open_dest(const char *env)
{
    snprintf(open_dest, sizeof open_dest, "%s", env ? env : "");
}

const char *nl_open_strerror(int err)
{
    const char *why = err == NL_EIO && errno ? strerror(errno) : nl_strerror(err);
    if (err == NL_OK || !open_dest[0]) return why;
    static _Thread_local char msg[sizeof open_dest + 256];
    snprintf(msg, sizeof msg, "NL_DEST=%s: %s", open_dest, why);
    return msg;
}

/* Said once (nl_say.h): a program that retries nl_open every second with the same mistyped
 * NL_DEST would otherwise fill its own standard error with it. */
void nl__open_report(const char *url, int err)
{
    if (open_dest[0])
        nl__say_once("cannot open the log: %s", nl_open_strerror(err));
    else
        nl__say_once("cannot open the log '%s': %s", url ? url : "(null)", nl_open_strerror(err));
}
