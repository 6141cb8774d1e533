// Ingest-plus-analysis benchmark for the trace module: reads one trace (plain or gzip), runs every
// analysis, and prints wall time, decompressed MB/s, event count and the process's peak RSS. One file
// per process, so that the peak RSS is this file's. bench/trace.sh runs it beside Python's json.load.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/core.h>

#include "linter/core/progress.h"
#include "traceio/analysis.h"
#include "traceio/reader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: bench_trace TRACE [--no-python-frames] [--threads N] [--chunk-kb N] [--progress]\n");
    return 2;
  }
  tl::trace::ReadOptions options;
  // --progress: the reader calls a progress bar as `torchlint trace` does (drawn only on a terminal), so
  // that its cost shows beside a run without one.
  tl::ProgressBar bar = tl::ProgressBar::ForStderr(false);
  uint64_t progress_calls = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-python-frames") {
      options.keep_python_functions = false;
    } else if (arg == "--chunk-kb" && i + 1 < argc) {
      options.chunk_bytes = static_cast<size_t>(std::stoul(argv[++i])) << 10;
    } else if (arg == "--progress") {
      bar.Start(fmt::format("reading {}", argv[1]), tl::ProgressUnit::kBytes);
      options.progress = [&](uint64_t done, uint64_t total) {
        ++progress_calls;
        bar.Update(done, total);
      };
    } else if (arg == "--threads" && i + 1 < argc) {
      options.threads = static_cast<unsigned>(std::stoul(argv[++i]));
    } else {
      fmt::print(stderr, "bench_trace: unknown argument {}\n", arg);
      return 2;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  tl::trace::ReadResult r = tl::trace::ReadTraceFile(argv[1], options);
  bar.Finish();
  const auto t1 = std::chrono::steady_clock::now();
  if (!r.ok()) {
    fmt::print(stderr, "{}\n", r.error);
    return 2;
  }
  tl::trace::TraceAnalysis a = tl::trace::Analyze(*r.trace);
  const auto t2 = std::chrono::steady_clock::now();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double read_s = std::chrono::duration<double>(t1 - t0).count();
  const double total_s = std::chrono::duration<double>(t2 - t0).count();
  const double mb = static_cast<double>(r.stats.bytes) / 1e6;
  // CPU time as well as wall time: on a shared machine the wall clock includes other people's work.
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  fmt::print(
      "file={} mb={:.1f} events={} stored={} steps={} read_s={:.3f} analyse_s={:.3f} total_s={:.3f} "
      "cpu_s={:.3f} mb_per_s={:.0f} peak_rss_mb={:.1f} store_mb={:.1f} progress_calls={}\n",
      argv[1], mb, r.stats.events, r.trace->size(), a.steps.count(), read_s, total_s - read_s, total_s, cpu_s,
      mb / total_s, static_cast<double>(usage.ru_maxrss) / 1024.0,
      static_cast<double>(r.trace->MemoryFootprint()) / 1e6, progress_calls);
  return 0;
}
