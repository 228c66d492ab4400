/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_spdlog_none.c — bench-throughput built without spdlog (libspdlog-dev missing, or
 * a sanitizer build): it says so and leaves the spdlog row out. */
#include <stddef.h>

#include "bench_spdlog.h"

int bench_spdlog_available(void) { return 0; }
void *bench_spdlog_open(const char *path)
{
    (void)path;
    return NULL;
}
void *bench_spdlog_open_async(const char *path)
{
    (void)path;
    return NULL;
}
void bench_spdlog_start(void *logger, const char *guid, long long i)
{
    (void)logger, (void)guid, (void)i;
}
void bench_spdlog_end(void *logger, const char *guid, long long i, long long value)
{
    (void)logger, (void)guid, (void)i, (void)value;
}
void bench_spdlog_close(void *logger) { (void)logger; }
