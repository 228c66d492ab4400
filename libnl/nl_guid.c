/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_guid.c — GUIDs: RFC 4122 UUIDs from libuuid. */
#include <uuid/uuid.h>

#include "nl_guid.h"
#include "nlkit/nl.h"

void nl_guid_new(char *out)
{
    uuid_t u;
    uuid_generate(u);
    uuid_unparse_lower(u, out);
}

int nl__guid_valid(const char *s)
{
    uuid_t u;
    return s && uuid_parse(s, u) == 0;
}
