// Peak memory of `torchlint trace annotate` against plain `torchlint trace` on the same file: the copy is
// streamed, so annotating should cost about what analysing does, whatever the trace's size. Runs the
// built binary once per command (each a child of its own, so each peak RSS is that command's) on the
// largest trace, decompressed, under the shared traces (TORCHLINT_SHARED_TRACES, default
// ../shared/traces) or on the file given, and prints both peaks and their ratio. It prints figures only.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "traceio/byte_source.h"
#include "traceio/trace_set.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawn

namespace {

// Peak RSS in MiB of one run of `args`, or a negative number when it could not run or failed.
double PeakRssMb(std::vector<std::string> args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1.0;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1) return -1.0;
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Decompressed bytes of a trace file (what the copy streams), or 0 when it cannot be read.
uint64_t StreamBytes(const std::filesystem::path& file) {
  std::string error;
  auto source = tl::trace::OpenSource(file.string(), {}, error);
  if (!source) return 0;
  std::vector<char> buffer(size_t{1} << 20);
  uint64_t total = 0;
  for (;;) {
    const tl::trace::SourceRead r = source->Read(buffer.data(), buffer.size());
    if (!r.error.empty()) return 0;
    if (r.bytes == 0) return total;
    total += r.bytes;
  }
}

// The largest by decompressed size: a small .gz may hold the most events.
std::filesystem::path LargestSharedTrace() {
  namespace fs = std::filesystem;
  const char* env = std::getenv("TORCHLINT_SHARED_TRACES");
  const fs::path dir = env != nullptr && *env != '\0' ? fs::path(env) : fs::path("..") / "shared" / "traces";
  fs::path best;
  uint64_t best_size = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || !tl::trace::LooksLikeTraceFile(it->path().filename().string())) continue;
    const uint64_t size = StreamBytes(it->path());
    if (size > best_size) {
      best = it->path();
      best_size = size;
    }
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path trace = argc > 1 ? std::filesystem::path(argv[1]) : LargestSharedTrace();
  if (trace.empty()) {
    fmt::print("skipped: no shared traces (set TORCHLINT_SHARED_TRACES, or pass a trace file)\n");
    return 0;
  }
  const std::string exe = TL_TORCHLINT_EXE;
  const std::filesystem::path out = std::filesystem::temp_directory_path() /
                                    fmt::format("bench_annotate_{}.json", ::getpid());
  const double plain = PeakRssMb({exe, "trace", trace.string(), "--format", "json"});
  const double annotate = PeakRssMb({exe, "trace", "annotate", trace.string(), "-o", out.string()});
  std::error_code ec;
  const uintmax_t out_bytes = std::filesystem::file_size(out, ec);
  std::filesystem::remove(out, ec);
  if (plain <= 0 || annotate <= 0) {
    fmt::print(stderr, "bench_annotate: torchlint failed on {}\n", trace.string());
    return 2;
  }
  fmt::print(
      "file={} mb_on_disk={:.1f} out_mb={:.1f} trace_peak_rss_mb={:.1f} annotate_peak_rss_mb={:.1f} ratio={:.2f}\n",
      trace.string(), static_cast<double>(std::filesystem::file_size(trace, ec)) / 1e6,
      static_cast<double>(out_bytes) / 1e6, plain, annotate, annotate / plain);
  return 0;
}
