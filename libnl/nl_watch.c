/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_watch.c — noticing that an operator edited a file (see nl_watch.h). stat() and a
 * comparison of modification times: cheap enough for the flusher to ask every interval. */
#include "nl_watch.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nlkit/nl.h"

int nl__watch_set(nl_watch_t *w, const char *path)
{
    char *copy = strdup(path);
    if (!copy) return NL_ENOMEM;
    free(w->path);
    w->path = copy;
    w->seen = 0;
    return 0;
}

int nl__watch_changed(nl_watch_t *w)
{
    struct stat st;
    if (!w->path || stat(w->path, &st) != 0) return 0;
    if (w->seen && st.st_mtim.tv_sec == w->mtime.tv_sec && st.st_mtim.tv_nsec == w->mtime.tv_nsec)
        return 0;
    w->mtime = st.st_mtim;
    w->seen = 1;
    return 1;
}

void nl__watch_free(nl_watch_t *w)
{
    free(w->path);
    w->path = NULL;
}
