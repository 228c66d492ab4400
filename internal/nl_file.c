/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_file.c — files opened by name, regular and without waiting (nl_file.h). */
#include "nl_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nlkit/nl.h"

const char *nl__file_kind(mode_t m)
{
    if (S_ISREG(m)) return "a regular file";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    return "a special file";
}

static int not_regular(const char *path, mode_t m, char *err, size_t errlen)
{
    if (err && errlen) snprintf(err, errlen, "%s: %s, not a regular file", path, nl__file_kind(m));
    errno = EINVAL;
    return NL_EINVAL;
}

int nl__open_regular(const char *path, int *fd_out, char *err, size_t errlen)
{
    *fd_out = -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        /* a Unix socket cannot be opened at all (ENXIO): say what it is, not "no device" */
        if (e == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return not_regular(path, st.st_mode, err, errlen);
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return NL_EIO;
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return NL_EIO;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(path, st.st_mode, err, errlen);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(e));
        errno = e;
        return NL_EIO;
    }
    *fd_out = fd;
    return 0;
}

int nl__check_regular(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
    return not_regular(path, st.st_mode, err, errlen);
}
