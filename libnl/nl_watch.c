/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_watch.c — noticing that an operator edited a file (see nl_watch.h). stat() and a
 * comparison of modification times: cheap enough for the flusher to ask every interval. */
#include "nl_watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nl_file.h"
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

int nl__read_small_file(const char *path, size_t max, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int fd, rc = nl__open_regular(path, &fd, NULL, 0);
    if (rc) return rc;
    char *buf = malloc(max + 2);
    if (!buf) {
        close(fd);
        return NL_ENOMEM;
    }
    size_t n = 0;
    while (n <= max) { /* one byte more than max tells "too long" */
        ssize_t r = read(fd, buf + n, max + 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            errno = e;
            return NL_EIO;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (n > max) {
        free(buf);
        return NL_ETOOBIG;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
