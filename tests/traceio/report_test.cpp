// Report rendering: the JSON keys the issue names, the brief's section titles in both languages, a
// folder of ranks with its straggler, and the `torchlint trace` exit codes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/paths.h"
#include "tests/traceio/helpers.h"
#include "traceio/report.h"

using namespace tl::trace;
using namespace tl::trace::testing;

namespace fs = std::filesystem;

namespace {

// One rank of a job: `step_us` long steps with a kernel and, optionally, a long all-reduce.
std::string RankJson(int rank, int step_us, int comm_us) {
  std::vector<std::string> ev;
  for (int s = 0; s < 3; ++s) {
    int base = s * step_us;
    ev.push_back(X("user_annotation", fmt::format("ProfilerStep#{}", s), std::to_string(base), std::to_string(step_us)));
    ev.push_back(X("cpu_op", "aten::mm", std::to_string(base), "8"));
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", std::to_string(base + 1), "5", "1", "1", fmt::format(R"({{"correlation": {}}})", 10 + s)));
    ev.push_back(X("kernel", "sm80_xmma_gemm_f16f16", std::to_string(base + 10), std::to_string(step_us / 4), "0", "7",
                   fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", 10 + s)));
    ev.push_back(X("kernel", "ncclKernel_AllReduce", std::to_string(base + step_us / 2), std::to_string(comm_us), "0", "20",
                   R"({"device": 0, "stream": 20})"));
  }
  return TraceJson(ev, fmt::format(R"("distributedInfo": {{"backend": "nccl", "rank": {}, "world_size": 3}}, )", rank));
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / fmt::format("tl_traceio_{}_{}", ::getpid(), std::rand());
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("JSON has the documented keys, shares as 0-1 fractions") {
  std::string json = TraceJson({X("user_annotation", "ProfilerStep#1", "0", "1000"),
                            X("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "1", "500"),
                            X("cuda_runtime", "cudaLaunchKernel", "600", "5", "1", "1", R"({"correlation": 1})"),
                            X("kernel", "volta_sgemm", "610", "100", "0", "7", R"({"device": 0, "stream": 7, "correlation": 1})"),
                            X("user_annotation", "ProfilerStep#2", "1000", "10")});
  auto r = ReadString(json);
  auto a = Analyze(*r.trace);
  auto j = AnalysisToJson(*r.trace, a);
  CHECK(j["steps"]["count"] == 1);
  CHECK(j["steps"]["mean_ms"].get<double>() == doctest::Approx(1.0));
  CHECK(j["gpu"]["busy_share"].get<double>() == doctest::Approx(0.1));
  CHECK(j["gpu"]["tensor_core_share"].get<double>() == doctest::Approx(0.0));
  CHECK(j["gpu"]["short_kernel_share"].get<double>() == doctest::Approx(0.0));
  CHECK(j["communication"]["share"].get<double>() == doctest::Approx(0.0));
  CHECK(j["dataloader"]["share"].get<double>() == doctest::Approx(0.5));
  CHECK(j["dataloader"]["iterator"] == "single");
  CHECK(j["syncs"].contains("per_step"));
  CHECK(j["syncs"].contains("blocked_ms_per_step"));
  CHECK(j["memcpy"].contains("pageable_per_step"));
  REQUIRE(j["bottlenecks"].is_array());
  REQUIRE(!j["bottlenecks"].empty());
  CHECK(j["bottlenecks"][0]["kind"] == "data");
  CHECK(j["bottlenecks"][0]["severity"] == "high");
  CHECK(j["bottlenecks"][0]["evidence"][0]["metric"] == "dataloader.share");

  // A CPU-only trace has no GPU denominators: null, not 0.
  auto cpu = ReadString(TraceJson({X("cpu_op", "aten::add", "0", "10")}));
  auto jc = AnalysisToJson(*cpu.trace, Analyze(*cpu.trace));
  CHECK(jc["gpu"]["busy_share"].is_null());
  CHECK(jc["gpu"]["tensor_core_share"].is_null());
  CHECK(jc["dataloader"]["iterator"].is_null());
}

TEST_CASE("text and markdown follow the brief's report, in English and Chinese") {
  auto r = ReadString(RankJson(0, 1000, 100));
  auto a = Analyze(*r.trace);
  ReportOptions en;
  std::string text = RenderReport(*r.trace, a, en);
  for (const char* title : {"Environment", "Top 10 ops", "GPU utilisation", "Memory", "Bottleneck diagnosis", "Recommendations"}) {
    CAPTURE(title);
    CHECK(text.find(title) != std::string::npos);
  }
  ReportOptions zh;
  zh.language = Language::kChinese;
  zh.format = ReportFormat::kMarkdown;
  std::string md = RenderReport(*r.trace, a, zh);
  for (const char* title : {"## 环境信息", "## Top 10 耗时算子", "## GPU 利用率概览", "## 显存分析", "## 瓶颈诊断", "## 优化建议"}) {
    CAPTURE(title);
    CHECK(md.find(title) != std::string::npos);
  }
  CHECK(md.find("| 排名 | 算子 | Self CUDA | CUDA Total |") != std::string::npos);
}

TEST_CASE("a folder of ranks: one object per rank, the straggler flagged") {
  TempDir dir;
  // Ranks 0 and 2 wait in the all-reduce for rank 1, which shows the least communication.
  std::ofstream(dir.path / "rank0.pt.trace.json") << RankJson(0, 1000, 400);
  std::ofstream(dir.path / "rank1.pt.trace.json") << RankJson(1, 1000, 50);
  std::ofstream(dir.path / "rank2.pt.trace.json") << RankJson(2, 1000, 420);
  std::ofstream(dir.path / "notes.txt") << "not a trace";
  TraceSet set = LoadTraceSet(dir.path.string());
  CHECK(set.folder);
  REQUIRE(set.ranks.size() == 3);
  CHECK(set.errors.empty());
  REQUIRE(set.straggler.has_value());
  CHECK(set.ranks[static_cast<size_t>(*set.straggler)].rank == 1);
  auto j = TraceSetToJson(set);
  REQUIRE(j["ranks"].size() == 3);
  CHECK(j["ranks"][1]["rank"] == 1);
  CHECK(j["ranks"][1]["straggler"] == true);
  CHECK(j["ranks"][0]["straggler"] == false);
  CHECK(j["straggler"] == 1);
  CHECK(j["ranks"][0].contains("bottlenecks"));
  std::string text = RenderTraceSet(set, {});
  CHECK(text.find("straggler: rank 1") != std::string::npos);

  CHECK(RankFromFileName("rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz") == 34);
  CHECK(RankFromFileName("worker3.1623143089861.pt.trace.json.gz") == 3);
  CHECK_FALSE(RankFromFileName("trace.json").has_value());
}

TEST_CASE("torchlint trace exit codes: 0 clean, 1 warnings, 2 unreadable") {
  fs::path exe = tl::test::TorchlintExe();
  if (!fs::exists(exe)) {
    MESSAGE("skipped: torchlint is not built at " << exe.string());
    return;
  }
  TempDir dir;
  std::string good = TraceJson({X("user_annotation", "ProfilerStep#1", "0", "100"), X("cpu_op", "aten::add", "1", "10")});
  std::ofstream(dir.path / "good.json") << good;
  std::ofstream(dir.path / "cut.json") << good.substr(0, good.size() - 20);
  std::ofstream(dir.path / "bad.json") << "{\"hello\": 1}";
  auto run = [&](const std::string& args) {
    std::string cmd = fmt::format("\"{}\" trace {} >/dev/null 2>&1", exe.string(), args);
    int rc = std::system(cmd.c_str());
    return WEXITSTATUS(rc);
  };
  CHECK(run((dir.path / "good.json").string()) == 0);
  CHECK(run((dir.path / "good.json").string() + " --format json --lang zh") == 0);
  CHECK(run((dir.path / "cut.json").string()) == 1);
  CHECK(run((dir.path / "bad.json").string()) == 2);
  CHECK(run((dir.path / "missing.json").string()) == 2);
  CHECK(run((dir.path / "good.json").string() + " --format yaml") == 2);
}
