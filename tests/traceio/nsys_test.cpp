// The Nsight Systems SQLite reader on real exports (../shared/traces/nsys, figures counted independently
// with Python's sqlite3, see INVENTORY.md) and on hostile databases made here with SQLite itself.
#include <sqlite3.h>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/paths.h"
#include "tests/support/temp_db.h"
#include "traceio/analysis.h"
#include "traceio/nsys_reader.h"
#include "traceio/trace_set.h"

namespace tl::trace {
namespace {

namespace fs = std::filesystem;
using test::kExportTables;
using test::TempDb;

struct Counts {
  size_t kernels = 0, runtime = 0, driver = 0, ranges = 0, ops = 0, syncs = 0, memcpys = 0, memsets = 0;
  size_t pageable_htod = 0, pinned_htod = 0, linked_kernels = 0;
};

Counts CountOf(const Trace& t) {
  Counts c;
  for (uint32_t i = 0; i < t.size(); ++i) {
    switch (t.kind(i)) {
      case EventKind::kKernel:
        ++c.kernels;
        if (t.link(i) != kNoIndex) ++c.linked_kernels;
        break;
      case EventKind::kRuntime: ++c.runtime; break;
      case EventKind::kDriver: ++c.driver; break;
      case EventKind::kUserAnnotation: ++c.ranges; break;
      case EventKind::kCpuOp: ++c.ops; break;
      case EventKind::kCudaSync: ++c.syncs; break;
      case EventKind::kMemset: ++c.memsets; break;
      case EventKind::kMemcpy: {
        ++c.memcpys;
        const CopyKind k = t.copy_kind(i);
        if (k.direction == CopyDirection::kHtoD && k.src == MemoryKind::kPageable) ++c.pageable_htod;
        if (k.direction == CopyDirection::kHtoD && k.src == MemoryKind::kPinned) ++c.pinned_htod;
        break;
      }
      default: break;
    }
  }
  return c;
}

void CheckOneLine(const std::string& error) {
  CHECK_FALSE(error.empty());
  CHECK(error.find('\n') == std::string::npos);
}

TEST_CASE("an H100 torchrun export is two ranks, each with its kernels, copies, syncs and NVTX ranges") {
  auto file = test::SharedTrace("nsys/nsys-ai_h100_2gpu_1s.sqlite");
  if (!file) return;
  CHECK(IsSqliteFile(file->string()));
  NsysRead read = ReadNsysFile(file->string());
  REQUIRE(read.ok());
  CHECK(read.schema_version == "3.25.0");
  REQUIRE(read.processes.size() == 2);
  CHECK(read.processes[0].pid == 111);
  CHECK(read.processes[1].pid == 112);
  CHECK(read.processes[0].name == "python3");
  for (size_t r = 0; r < 2; ++r) {
    INFO("rank " << r);
    const Trace& t = *read.processes[r].read.trace;
    CHECK(t.metadata().rank == static_cast<int>(r));
    CHECK(t.metadata().world_size == 2);
    CHECK(t.metadata().format == TraceFormat::kNsys);
    const Counts c = CountOf(t);
    CHECK(c.kernels == 1721);
    CHECK(c.runtime + c.driver == 2898);
    CHECK(c.ranges + c.ops == 8391);
    CHECK(c.ops > 8000);  // the ranges PyTorch writes per aten op are ops
    CHECK(c.syncs == 122);
    CHECK(c.memcpys == 452);
    CHECK(c.pageable_htod == 2);
    CHECK(c.pinned_htod == 223);
    // Kernels joined to their launch on correlationId within the process: 816 of 1,721 have their launch
    // in this 1 s window (Python's sqlite3 finds the same 816); the rest were launched before it.
    CHECK(c.linked_kernels == 816);
    // Kernel time as Python's sqlite3 sums it: 22,385,163 and 22,444,359 ns.
    int64_t kernel_ns = 0;
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.kind(i) == EventKind::kKernel) kernel_ns += t.dur(i);
    }
    CHECK(kernel_ns == (r == 0 ? 22385163 : 22444359));
  }
  // Runtime names lose nsys's API-version suffix, as Kineto writes them.
  const Trace& t = *read.processes[0].read.trace;
  bool launch = false, suffixed = false;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.kind(i) != EventKind::kRuntime) continue;
    launch = launch || t.name(i) == "cudaLaunchKernel";
    suffixed = suffixed || t.name(i).find("_v7000") != std::string_view::npos;
  }
  CHECK(launch);
  CHECK_FALSE(suffixed);
}

TEST_CASE("NVTX ranges named by textId are read, and a range-less capture is one window that says so") {
  auto file = test::SharedTrace("nsys/nsys-ai_mfu_2gpu_before.sqlite");
  if (!file) return;
  NsysRead read = ReadNsysFile(file->string());
  REQUIRE(read.ok());
  REQUIRE(read.processes.size() == 2);
  // 9,443 and 9,675 closed ranges, of which 224 and 238 are named through StringIds.
  const Counts c0 = CountOf(*read.processes[0].read.trace);
  const Counts c1 = CountOf(*read.processes[1].read.trace);
  CHECK(c0.ranges + c0.ops == 9443);
  CHECK(c1.ranges + c1.ops == 9675);
  CHECK(read.processes[0].read.stats.bad_events == 0);
  const TraceAnalysis a = Analyze(*read.processes[0].read.trace);
  CHECK(a.steps.source == StepSource::kWholeTrace);
  CHECK(a.steps.count() == 1);
}

TEST_CASE("GPU properties come from TARGET_INFO_GPU, and a one-process export states no rank") {
  auto mock = test::SharedTrace("nsys/nsys-ai_mock.sqlite");
  auto clover = test::SharedTrace("nsys/pipit_perlmutter-cloverleaf-cuda.sqlite");
  if (!mock || !clover) return;
  NsysRead m = ReadNsysFile(mock->string());
  REQUIRE(m.ok());
  REQUIRE(m.processes.size() == 1);
  const Trace& t = *m.processes[0].read.trace;
  CHECK_FALSE(t.metadata().rank.has_value());
  REQUIRE(t.metadata().devices.size() == 1);
  CHECK(t.metadata().devices[0].name == "NVIDIA GeForce RTX 3080");
  CHECK(t.metadata().devices[0].compute_major == 8);
  CHECK(t.metadata().devices[0].num_sms == 68);
  CHECK(CountOf(t).kernels == 2);

  NsysRead c = ReadNsysFile(clover->string());
  REQUIRE(c.ok());
  REQUIRE(c.processes.size() == 1);
  const Trace& ct = *c.processes[0].read.trace;
  CHECK(ct.metadata().devices.size() == 4);
  const Counts cc = CountOf(ct);
  CHECK(cc.kernels == 1312);
  CHECK(cc.pageable_htod == 254);
  CHECK(cc.syncs == 1312);
  // The analyses run on it unchanged: the copies analysis sees the same pageable copies.
  const TraceAnalysis a = Analyze(ct);
  CHECK(a.copies.pageable_htod_events.size() == 254);
}

TEST_CASE("a folder of exports is a trace set whose ranks are the processes, told by magic bytes") {
  auto h100 = test::SharedTrace("nsys/nsys-ai_h100_2gpu_1s.sqlite");
  if (!h100) return;
  TempDb tmp("folder");
  // A name that does not say SQLite: the file is still read as one, by its header.
  fs::create_symlink(*h100, tmp.dir() / "capture.sqlite");
  TraceSet set = LoadTraceSet(tmp.dir().string());
  CHECK(set.errors.empty());
  REQUIRE(set.ranks.size() == 2);
  CHECK(set.ranks[0].rank == 0);
  CHECK(set.ranks[1].rank == 1);
  CHECK(set.rank_count() == 2);
  REQUIRE(set.ranks[0].analysis.has_value());
  CHECK(set.ranks[0].analysis->kernels.count > 0);

  TraceSet single = LoadTraceSet(h100->string());
  CHECK(single.ranks.size() == 2);
}

TEST_CASE("a SQLite database that is not an nsys export is a one-line error") {
  TempDb db("notnsys");
  db.Exec("CREATE TABLE customers(id INTEGER, name TEXT); INSERT INTO customers VALUES (1, 'a');");
  NsysRead read = ReadNsysFile(db.path());
  CHECK_FALSE(read.ok());
  CheckOneLine(read.error);
  CHECK(read.error.find("not an Nsight Systems export") != std::string::npos);
  TraceSet set = LoadTraceSet(db.path());
  CHECK_FALSE(set.any_readable());
  REQUIRE(set.errors.size() == 1);
}

// The error of reading a database made from `sql`, which must be one line.
std::string ErrorOf(const std::string& name, const std::string& sql) {
  TempDb db(name);
  db.Exec(sql);
  NsysRead read = ReadNsysFile(db.path());
  CHECK_FALSE(read.ok());
  CheckOneLine(read.error);
  return read.error;
}

TEST_CASE("a view named like an nsys table is never queried") {
  // A recursive view that would never end if it were read.
  ErrorOf("view",
          "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
          "SELECT x AS start, x AS end FROM n;");
}

TEST_CASE("a failed capture without CUDA or NVTX tables says what to profile with") {
  const std::string error = ErrorOf("nocuda",
                                    "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INT); INSERT INTO "
                                    "TARGET_INFO_SESSION_START_TIME VALUES (1);");
  CHECK(error.find("--trace=cuda,nvtx") != std::string::npos);
}

TEST_CASE("truncated and corrupt databases are one-line errors, never a crash") {
  auto h100 = test::SharedTrace("nsys/nsys-ai_h100_2gpu_1s.sqlite");
  if (!h100) return;
  std::ifstream in(*h100, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 100000);
  TempDb tmp("cut");
  for (size_t cut : {size_t{100}, size_t{4096}, size_t{65536}, bytes.size() / 2, bytes.size() - 1}) {
    INFO("cut at " << cut);
    const std::string path = (tmp.dir() / "cut.sqlite").string();
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(cut));
    NsysRead read = ReadNsysFile(path);
    if (!read.ok()) CheckOneLine(read.error);
    // Whatever was read is whole: every kept process has a trace.
    for (const auto& p : read.processes) CHECK(p.read.trace.has_value());
  }
  // The header of a database followed by noise; and noise in the middle of the real file.
  std::string noise = bytes.substr(0, 16) + std::string(8192, '\x5a');
  const std::string path = (tmp.dir() / "noise.sqlite").string();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(noise.data(), static_cast<std::streamsize>(noise.size()));
  NsysRead read = ReadNsysFile(path);
  CHECK_FALSE(read.ok());
  CheckOneLine(read.error);
  std::string damaged = bytes;
  for (size_t i = damaged.size() / 3; i < damaged.size() / 3 + 20000; ++i) damaged[i] = static_cast<char>(i * 131);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(damaged.data(), static_cast<std::streamsize>(damaged.size()));
  NsysRead hurt = ReadNsysFile(path);
  if (!hurt.ok()) CheckOneLine(hurt.error);
}

TEST_CASE("rows with missing, backwards or mistyped times are counted and skipped") {
  TempDb db("badrows");
  db.Exec(kExportTables);
  db.Exec(
      "INSERT INTO StringIds VALUES (1, 'gemm_kernel'), (2, 'cudaLaunchKernel_v7000');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 110, 16777217, 5, 2);"  // pid 1, tid 1
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (120, 150, 0, 7, 5, 16777216, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (200, 150, 0, 7, 6, 16777216, 1);"   // backwards
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (NULL, 150, 0, 7, 6, 16777216, 1);"  // no start
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('soon', 150, 0, 7, 6, 16777216, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (160, 170, 0, 7, 8, 16777216, 999);"  // unknown name id
      "INSERT INTO NVTX_EVENTS VALUES (90, NULL, 59, 'open', 16777217, NULL, 0);"          // never closed
      "INSERT INTO NVTX_EVENTS VALUES (90, 300, 59, NULL, 16777217, NULL, 0);"             // no name
      "INSERT INTO NVTX_EVENTS VALUES (90, 300, 59, 'train_step', 16777217, NULL, 0);");
  NsysRead read = ReadNsysFile(db.path());
  REQUIRE(read.ok());
  REQUIRE(read.processes.size() == 1);
  const auto& p = read.processes[0];
  CHECK(p.read.stats.bad_events == 5);
  REQUIRE(p.read.warnings.size() == 1);
  CHECK(p.read.warnings[0].find("5 rows skipped") != std::string::npos);
  const Trace& t = *p.read.trace;
  const Counts c = CountOf(t);
  CHECK(c.kernels == 2);
  CHECK(c.ranges == 1);
  CHECK(c.linked_kernels == 1);
  bool unknown = false;
  for (uint32_t i = 0; i < t.size(); ++i) unknown = unknown || t.name(i) == "<unknown>";
  CHECK(unknown);
}

TEST_CASE("steps come from the NVTX ranges instrument writes, or from the range the user names") {
  TempDb db("steps");
  db.Exec(kExportTables);
  db.Exec(
      "INSERT INTO NVTX_EVENTS VALUES (0, 100, 59, 'train_step train.py:42', 16777217, NULL, 0);"
      "INSERT INTO NVTX_EVENTS VALUES (10, 40, 59, 'forward', 16777217, NULL, 0);"
      "INSERT INTO NVTX_EVENTS VALUES (100, 220, 59, 'train_step train.py:42', 16777217, NULL, 0);"
      "INSERT INTO NVTX_EVENTS VALUES (230, 300, 59, 'train_steps_total', 16777217, NULL, 0);"
      "INSERT INTO NVTX_EVENTS VALUES (300, 360, 60, 'iteration', 16777217, NULL, 0);"
      "INSERT INTO NVTX_EVENTS VALUES (360, 420, 60, 'iteration', 16777217, NULL, 0);"
      "INSERT INTO NVTX_EVENTS VALUES (365, 380, 60, 'iteration', 16777217, NULL, 0);");
  NsysRead read = ReadNsysFile(db.path());
  REQUIRE(read.ok());
  const Trace& t = *read.processes.at(0).read.trace;
  const Steps by_template = FindSteps(t);
  CHECK(by_template.source == StepSource::kNamedRange);
  REQUIRE(by_template.count() == 2);  // not `train_steps_total`, whose name only starts the same
  CHECK(by_template.analysed[1].duration() == 120);
  StepOptions named;
  named.step_range = "iteration";
  const Steps by_name = FindSteps(t, named);
  CHECK(by_name.source == StepSource::kNamedRange);
  CHECK(by_name.count() == 2);  // the range nested in the second is not a step of its own
  named.step_range = "no_such_range";
  CHECK(FindSteps(t, named).source == StepSource::kWholeTrace);
}

TEST_CASE("a million NVTX ranges are read as a million ranges") {
  TempDb db("million");
  db.Exec(kExportTables);
  db.Exec(
      "BEGIN; WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 999999) "
      "INSERT INTO NVTX_EVENTS SELECT x * 10, x * 10 + 5, 59, 'phase', 16777217, NULL, 0 FROM n; COMMIT;");
  NsysRead read = ReadNsysFile(db.path());
  REQUIRE(read.ok());
  REQUIRE(read.processes.size() == 1);
  CHECK(CountOf(*read.processes[0].read.trace).ranges == 1000000);
}

TEST_CASE("a file that only looks like SQLite by name is not taken for one") {
  TempDb tmp("name");
  const std::string path = (tmp.dir() / "fake.sqlite").string();
  std::ofstream(path) << "[]";
  CHECK_FALSE(IsSqliteFile(path));
  CHECK_FALSE(IsSqliteFile((tmp.dir() / "missing.sqlite").string()));
}

}  // namespace
}  // namespace tl::trace
