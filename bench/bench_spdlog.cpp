/* SPDX-License-Identifier: BSD-3-Clause */
// bench_spdlog.cpp — the spdlog writer of bench-throughput (see bench_spdlog.h): the same
// lines as nlkit's, through spdlog's multi-threaded file sink, its timestamp in UTC.
#include <memory>

#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include "bench_spdlog.h"

namespace
{
struct holder {
    std::shared_ptr<spdlog::logger> lg;
    std::shared_ptr<spdlog::details::thread_pool> tp; /* the async logger's, or none */
};
} // namespace

int bench_spdlog_available(void) { return 1; }

void *bench_spdlog_open(const char *path)
{
    try {
        auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, true);
        auto lg = std::make_shared<spdlog::logger>("bench", sink);
        lg->set_pattern("ts=%Y-%m-%dT%H:%M:%S.%fZ %v", spdlog::pattern_time_type::utc);
        lg->set_level(spdlog::level::info);
        return new holder{lg, nullptr};
    } catch (const std::exception &) {
        return nullptr;
    }
}

void *bench_spdlog_open_async(const char *path)
{
    try {
        auto tp = std::make_shared<spdlog::details::thread_pool>(8192, 1);
        auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, true);
        auto lg = std::make_shared<spdlog::async_logger>("bench_async", sink, tp,
                                                         spdlog::async_overflow_policy::block);
        lg->set_pattern("ts=%Y-%m-%dT%H:%M:%S.%fZ %v", spdlog::pattern_time_type::utc);
        lg->set_level(spdlog::level::info);
        return new holder{lg, tp};
    } catch (const std::exception &) {
        return nullptr;
    }
}

void bench_spdlog_start(void *logger, const char *guid, long long i)
{
    static_cast<holder *>(logger)->lg->info("event=example.loop.start level=Info guid={} i={}",
                                            guid, i);
}

void bench_spdlog_end(void *logger, const char *guid, long long i, long long value)
{
    static_cast<holder *>(logger)->lg->info(
        "event=example.loop.end level=Info guid={} i={} value={}", guid, i, value);
}

void bench_spdlog_close(void *logger)
{
    auto *h = static_cast<holder *>(logger);
    h->lg->flush();
    h->lg.reset();
    h->tp.reset(); /* joins its thread once the queue (the flush included) is written */
    delete h;
}
