/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_file.h — internal: opening a file a tool or the library reads by name (a configuration,
 * rules, the level file, silences, alert state, an archive to read), once, the same way
 * everywhere: a regular file, never a wait. Not part of the public API. */
#ifndef NLKIT_NL_FILE_H
#define NLKIT_NL_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* What a file of mode `m` is, for messages: "a FIFO", "a directory", "a socket",
 * "a character device", "a block device", "a regular file", "a special file". */
const char *nl__file_kind(mode_t m);

/* Open `path` read-only as a regular file without ever blocking: the open is non-blocking
 * (a FIFO with no writer, or a device, would otherwise hold the caller in open(2) for ever),
 * anything but a regular file is refused, then O_NONBLOCK is cleared so the descriptor
 * reads as usual. Symbolic links are followed (configuration under /etc often is one).
 * The descriptor is close-on-exec and never becomes a controlling terminal.
 * Returns 0 with the descriptor in *fd; NL_EIO when it cannot be opened (errno kept: ENOENT
 * tells a missing file); NL_EINVAL when it is not a regular file (errno EINVAL). Either way
 * "PATH: why" goes into err ("PATH: a FIFO, not a regular file") unless err is NULL. */
int nl__open_regular(const char *path, int *fd, char *err, size_t errlen);

/* Whether `path` names something other than a regular file: 0 if it is a regular file or
 * does not exist (a file about to be created), else NL_EINVAL with "PATH: a FIFO, not a
 * regular file" in err (err may be NULL). For names handed to a library that opens them
 * itself (SQLite's archive), checked before it does. Never blocks. */
int nl__check_regular(const char *path, char *err, size_t errlen);

#endif
