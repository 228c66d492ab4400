/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_label.c — label names from field names (nl_label.h). */
#include "nl_label.h"

#include <string.h>

#include "nl_buf.h"

void nl__label_name(nl_buf_t *b, const char *s, size_t n, const char *const *ours, size_t nours)
{
    int pre = n >= 2 && s[0] == '_' && s[1] == '_';
    for (size_t i = 0; i < nours; i++)
        if (strlen(ours[i]) == n && !memcmp(ours[i], s, n)) pre = 1;
    if (pre) nl__put(b, "key_", 4);
    if (!pre && n && s[0] >= '0' && s[0] <= '9') nl__putc(b, '_');
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        nl__putc(b, ok ? c : '_');
    }
}
