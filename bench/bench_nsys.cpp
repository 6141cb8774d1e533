// Reading Nsight Systems SQLite exports: torchlint's reader (into the trace store, names interned, one
// trace per process, launches linked) against Python's sqlite3 reading the same tables into lists, side
// by side in one run, alternating, so that the machine's noise hits both alike. Prints medians and their
// ratio. The inputs are the real exports under TORCHLINT_SHARED_TRACES/nsys when present, and a large
// synthetic export made here (--rows N kernels, N launches and N NVTX ranges).
//
//   build/bench/bench_nsys [--repeat 5] [--rows 1000000] [FILE.sqlite ...]
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "traceio/nsys_reader.h"

namespace fs = std::filesystem;

namespace {

// The same tables and columns the reader queries, into Python lists.
constexpr const char* kPython = R"py(
import sqlite3, sys, time
t = time.perf_counter()
db = sqlite3.connect("file:" + sys.argv[1] + "?immutable=1", uri=True)
tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
rows = 0
def take(sql):
    global rows
    data = db.execute(sql).fetchall()
    rows += len(data)
    return data
if "StringIds" in tables: take("select id, value from StringIds")
if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
    take("select start, end, deviceId, streamId, correlationId, globalPid, demangledName from CUPTI_ACTIVITY_KIND_KERNEL")
if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
    take("select start, end, globalTid, correlationId, nameId from CUPTI_ACTIVITY_KIND_RUNTIME")
if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
    take("select start, end, deviceId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind from CUPTI_ACTIVITY_KIND_MEMCPY")
if "NVTX_EVENTS" in tables:
    take("select start, end, globalTid, text, textId, domainId from NVTX_EVENTS where eventType in (59, 60)")
print(time.perf_counter() - t, rows)
)py";

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

bool MakeSynthetic(const std::string& path, int64_t rows) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return false;
  const std::string sql = fmt::format(R"sql(
CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float, 128, 128>(float const*, float*)'),
                             (2, 'cudaLaunchKernel_v7000');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, correlationId INT,
                                        globalPid INT, demangledName INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT, correlationId INT, nameId INT);
CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT, globalTid INT, textId INT, domainId INT);
BEGIN;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < {0})
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT x * 100, x * 100 + 5, 16777217, x, 2 FROM n;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < {0})
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT x * 100 + 10, x * 100 + 60, 0, 7, x, 16777216, 1 FROM n;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < {0})
INSERT INTO NVTX_EVENTS SELECT x * 100, x * 100 + 90, 59, 'aten::mm, seq = ' || x || ', op_id = ' || x, 16777217,
                               NULL, 0 FROM n;
COMMIT;)sql",
                                      rows);
  const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

// Python's own timing of its reads (not its start-up), and the rows it read.
bool RunPython(const std::string& script, const std::string& file, double& seconds, int64_t& rows) {
  const std::string cmd = fmt::format("python3 '{}' '{}'", script, file);
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return false;
  long long read_rows = 0;  // NOLINT(google-runtime-int): fscanf's %lld
  const int n = std::fscanf(pipe, "%lf %lld", &seconds, &read_rows);
  rows = static_cast<int64_t>(read_rows);
  return pclose(pipe) == 0 && n == 2;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  int64_t synthetic_rows = 1000000;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--rows" && i + 1 < argc) synthetic_rows = std::max<int64_t>(1, std::atoll(argv[++i]));
    else files.push_back(a);
  }
  const fs::path tmp = fs::temp_directory_path() / fmt::format("tl_bench_nsys_{}", getpid());
  fs::create_directories(tmp);
  const std::string script = (tmp / "read.py").string();
  if (FILE* f = std::fopen(script.c_str(), "w")) {
    std::fputs(kPython, f);
    std::fclose(f);
  }
  if (files.empty()) {
    const char* env = std::getenv("TORCHLINT_SHARED_TRACES");
    const fs::path shared = env != nullptr && *env != '\0' ? fs::path(env) : fs::path("../shared/traces");
    for (const char* name : {"nsys-ai_h100_2gpu_1s.sqlite", "nsys-ai_mfu_2gpu_before.sqlite"}) {
      if (fs::exists(shared / "nsys" / name)) files.push_back((shared / "nsys" / name).string());
    }
    if (files.empty()) fmt::print("skipped: the real exports (no shared traces; set TORCHLINT_SHARED_TRACES)\n");
    const std::string big = (tmp / "synthetic.sqlite").string();
    if (MakeSynthetic(big, synthetic_rows)) files.push_back(big);
  }
  fmt::print("{:<34} {:>9} {:>12} {:>12} {:>8}\n", "export", "rows", "torchlint s", "python3 s", "ratio");
  for (const std::string& file : files) {
    std::vector<double> ours, theirs;
    int64_t rows = 0;
    size_t events = 0;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const tl::trace::NsysRead read = tl::trace::ReadNsysFile(file);
      ours.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (!read.ok()) {
        fmt::print("{}: {}\n", file, read.error);
        break;
      }
      events = 0;
      for (const auto& p : read.processes) events += p.read.trace->size();
      double seconds = 0;
      if (!RunPython(script, file, seconds, rows)) {
        fmt::print("skipped: python3's sqlite3 run failed on {}\n", file);
        break;
      }
      theirs.push_back(seconds);
    }
    if (ours.empty() || theirs.empty()) continue;
    const double a = Median(ours), b = Median(theirs);
    fmt::print("{:<34} {:>9} {:>12.4f} {:>12.4f} {:>7.2f}x  ({} events stored)\n",
               fs::path(file).filename().string().substr(0, 34), rows, a, b, b / std::max(a, 1e-9), events);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  fmt::print("peak RSS of this process: {:.1f} MB (medians of {} alternating runs; ratio = python3 / torchlint)\n",
             static_cast<double>(usage.ru_maxrss) / 1024.0, repeat);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return 0;
}
