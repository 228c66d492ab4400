/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_error.c — text for nl_status codes. */
#include <errno.h>
#include <string.h>

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

const char *nl_open_strerror(int err)
{
    return err == NL_EIO && errno ? strerror(errno) : nl_strerror(err);
}
