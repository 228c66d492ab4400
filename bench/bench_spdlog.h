/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_spdlog.h — spdlog as bench-throughput's baseline, behind a C interface (spdlog is
 * C++): bench_spdlog.cpp when the build found spdlog, bench_spdlog_none.c otherwise. */
#ifndef NLKIT_BENCH_SPDLOG_H
#define NLKIT_BENCH_SPDLOG_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if built with spdlog, 0 if not (then the row is left out). */
int bench_spdlog_available(void);
/* A thread-safe logger writing to a new file at path (spdlog's basic_file_sink_mt), with
 * the same timestamp form as nlkit; NULL on failure. */
void *bench_spdlog_open(const char *path);
/* The same through spdlog's asynchronous logger: a queue of 8192 messages and one
 * background thread of its own, blocking when the queue is full (spdlog's default). */
void *bench_spdlog_open_async(const char *path);
/* The Figure 2 loop's start and end lines, as bench-throughput's other writers write them. */
void bench_spdlog_start(void *logger, const char *guid, long long i);
void bench_spdlog_end(void *logger, const char *guid, long long i, long long value);
/* Flush and free (an asynchronous logger's queue is written out first). */
void bench_spdlog_close(void *logger);

#ifdef __cplusplus
}
#endif
#endif
