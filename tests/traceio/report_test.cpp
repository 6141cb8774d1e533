// Report rendering: the JSON keys the issue names, the PyTorch profiler guide's section titles in both
// languages, a folder of ranks with its straggler, the `torchlint trace` exit codes, and the report as data
// (BuildReport): one figure per fact, and recommendations ranked by the time at stake, on real traces.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "report/trace_report.h"
#include "tests/support/paths.h"
#include "tests/traceio/helpers.h"

using namespace tl::trace;
using namespace tl::trace::testing;

namespace fs = std::filesystem;

namespace {

// One rank of a job: `step_us` long steps with a kernel and, optionally, a long all-reduce.
std::string RankJson(int rank, int step_us, int comm_us) {
  std::vector<std::string> ev;
  for (int s = 0; s < 3; ++s) {
    int base = s * step_us;
    ev.push_back(
        X("user_annotation", fmt::format("ProfilerStep#{}", s), std::to_string(base), std::to_string(step_us)));
    ev.push_back(X("cpu_op", "aten::mm", std::to_string(base), "8"));
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", std::to_string(base + 1), "5", "1", "1",
                   fmt::format(R"({{"correlation": {}}})", 10 + s)));
    ev.push_back(X("kernel", "sm80_xmma_gemm_f16f16", std::to_string(base + 10), std::to_string(step_us / 4), "0", "7",
                   fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", 10 + s)));
    if (comm_us > 0) {
      ev.push_back(X("kernel", "ncclKernel_AllReduce", std::to_string(base + step_us / 2), std::to_string(comm_us), "0",
                     "20", R"({"device": 0, "stream": 20})"));
    }
  }
  return TraceJson(ev, fmt::format(R"("distributedInfo": {{"backend": "nccl", "rank": {}, "world_size": 3}}, )", rank));
}

}  // namespace

TEST_CASE("JSON has the documented keys, shares as 0-1 fractions") {
  std::string json = TraceJson(
      {X("user_annotation", "ProfilerStep#1", "0", "1000"),
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

TEST_CASE("text and markdown follow the PyTorch profiler guide's report, in English and Chinese") {
  auto r = ReadString(RankJson(0, 1000, 100));
  auto a = Analyze(*r.trace);
  ReportOptions en;
  std::string text = RenderReport(*r.trace, a, en);
  for (const char* title :
       {"Environment", "Top 10 ops", "GPU utilisation", "Memory", "Bottleneck diagnosis", "Recommendations"}) {
    CAPTURE(title);
    CHECK(text.find(title) != std::string::npos);
  }
  ReportOptions zh;
  zh.language = Language::kChinese;
  zh.format = ReportFormat::kMarkdown;
  std::string md = RenderReport(*r.trace, a, zh);
  for (const char* title :
       {"## 环境信息", "## Top 10 耗时算子", "## GPU 利用率概览", "## 显存分析", "## 瓶颈诊断", "## 优化建议"}) {
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
  std::string good = TraceJson(
      {X("user_annotation", "ProfilerStep#1", "0", "100"), X("cpu_op", "aten::add", "1", "10")});
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

namespace {

// The straggler's rank, or -1, for a folder of these traces.
int StragglerOf(const std::vector<std::string>& traces) {
  TempDir dir;
  for (size_t i = 0; i < traces.size(); ++i)
    std::ofstream(dir.path / fmt::format("rank{}.pt.trace.json", i)) << traces[i];
  TraceSet set = LoadTraceSet(dir.path.string());
  REQUIRE(set.ranks.size() == traces.size());
  return set.straggler ? set.ranks[static_cast<size_t>(*set.straggler)].rank : -1;
}

}  // namespace

TEST_CASE("the straggler rule is sound for two ranks") {
  // Communication share: rank 1 at 9% against 62% is the one the other waits for.
  CHECK(StragglerOf({RankJson(0, 1000, 400), RankJson(1, 1000, 50)}) == 1);
  // 50% against 62%: 12 points but only 19% less, within what two healthy ranks differ by. The median of
  // two is the larger, so the rule before flagged whichever rank had less communication.
  CHECK(StragglerOf({RankJson(0, 1000, 400), RankJson(1, 1000, 250)}) == -1);
  // Without collectives, the longest step: 30% longer is flagged, 5% is noise. With two ranks the median
  // was the longer step itself, so nothing was ever flagged.
  CHECK(StragglerOf({RankJson(0, 1000, 0), RankJson(1, 1300, 0)}) == 1);
  CHECK(StragglerOf({RankJson(0, 1000, 0), RankJson(1, 1050, 0)}) == -1);
  // Three ranks, one slow: still found.
  CHECK(StragglerOf({RankJson(0, 1000, 0), RankJson(1, 1000, 0), RankJson(2, 1400, 0)}) == 2);
}

TEST_CASE("real pair: HTA's sampled ranks 0 and 1 are too close to name a straggler") {
  auto rank0 = tl::test::SharedTrace("real/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz");
  auto rank1 = tl::test::SharedTrace("real/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-1.json.gz");
  if (!rank0 || !rank1) return;
  TempDir dir;
  fs::copy_file(*rank0, dir.path / "sampled_rank-0.json.gz");
  fs::copy_file(*rank1, dir.path / "sampled_rank-1.json.gz");
  TraceSet set = LoadTraceSet(dir.path.string());
  REQUIRE(set.ranks.size() == 2);
  CHECK(set.ranks[0].rank == 0);
  CHECK(set.ranks[1].rank == 1);
  REQUIRE(set.straggler_test.has_value());
  CHECK(set.straggler_test->metric == "communication.share");
  CHECK(set.straggler_test->rank == 1);
  CHECK(set.straggler_test->value == doctest::Approx(0.553).epsilon(0.02));
  CHECK(set.straggler_test->others_mean == doctest::Approx(0.648).epsilon(0.02));
  CHECK_FALSE(set.straggler.has_value());
  auto j = TraceSetToJson(set);
  CHECK(j["straggler"].is_null());
  CHECK(j["straggler_test"]["flagged"] == false);
}

TEST_CASE("several files of one rank: grouped as profiling cycles, the most recent stands for the rank") {
  TempDir dir;
  // No rank in the metadata or the name: tensorboard_trace_handler's "<worker>.<ms>.pt.trace.json" files
  // of one worker are one rank. The cycle order is the traces' own clock, not the name.
  auto trace_at = [](int start_us) {
    return TraceJson({X("user_annotation", "ProfilerStep#1", std::to_string(start_us), "1000"),
                      X("cpu_op", "aten::add", std::to_string(start_us + 1), "10")});
  };
  std::ofstream(dir.path / "host_7.200.pt.trace.json") << trace_at(0);
  std::ofstream(dir.path / "host_7.100.pt.trace.json") << trace_at(50000);
  std::ofstream(dir.path / "other_9.100.pt.trace.json") << trace_at(0);
  TraceSet set = LoadTraceSet(dir.path.string());
  REQUIRE(set.ranks.size() == 3);
  CHECK(set.rank_count() == 2);
  CHECK(set.has_cycles());
  CHECK(set.ranks[0].rank == 0);
  CHECK(set.ranks[1].rank == 0);
  CHECK(set.ranks[2].rank == 1);
  CHECK(fs::path(set.ranks[0].path).filename() == "host_7.200.pt.trace.json");  // earlier clock
  CHECK(fs::path(set.ranks[1].path).filename() == "host_7.100.pt.trace.json");
  CHECK(set.ranks[0].cycle == 0);
  CHECK(set.ranks[0].cycles == 2);
  CHECK_FALSE(set.ranks[0].representative());
  CHECK(set.ranks[1].representative());
  CHECK(set.ranks[2].representative());

  // Two cycles of one rank and nothing else: nothing to compare, so no straggler, however they differ.
  TempDir one;
  std::ofstream(one.path / "worker0.1623143089861.pt.trace.json") << RankJson(0, 1000, 400);
  std::ofstream(one.path / "worker0.1623143099999.pt.trace.json") << RankJson(0, 1000, 20);
  TraceSet cycles = LoadTraceSet(one.path.string());
  REQUIRE(cycles.ranks.size() == 2);
  CHECK(cycles.rank_count() == 1);
  CHECK_FALSE(cycles.straggler.has_value());
  CHECK_FALSE(cycles.straggler_test.has_value());
}

TEST_CASE("rank numbers in file names: parsed without exceptions, out-of-range ones ignored") {
  CHECK_FALSE(RankFromFileName("rank99999999999999.json").has_value());
  CHECK(RankFromFileName("rank2147483647.json") == 2147483647);
  CHECK_FALSE(RankFromFileName("rank2147483648.json").has_value());
  CHECK(RankFromFileName("rank_007.json") == 7);
  TempDir dir;
  std::string plain = TraceJson(
      {X("user_annotation", "ProfilerStep#1", "0", "100"), X("cpu_op", "aten::add", "1", "10")});
  std::ofstream(dir.path / "rank99999999999999.json") << plain;
  std::ofstream(dir.path / "rank0.json") << plain;
  std::ofstream(dir.path / "rank2147483647.json") << plain;
  std::ofstream(dir.path / "trace.json") << plain;
  TraceSet set = LoadTraceSet(dir.path.string());
  REQUIRE(set.ranks.size() == 4);
  CHECK(set.errors.empty());
  // rank0 and INT_MAX from their names; the others take the next free ranks.
  CHECK(set.ranks[0].rank == 0);
  CHECK(set.ranks[1].rank == 1);
  CHECK(set.ranks[2].rank == 2);
  CHECK(set.ranks[3].rank == 2147483647);
  CHECK(set.rank_count() == 4);
}

TEST_CASE("JSON stays valid with invalid UTF-8 in metadata and paths") {
  auto r = ReadString(RankJson(0, 1000, 100));
  REQUIRE(r.ok());
  r.trace->metadata().pytorch_version = "2.1\xff\xfe";
  r.trace->metadata().path = "caf\xe9.json";
  auto j = AnalysisToJson(*r.trace, Analyze(*r.trace));
  std::string text;
  CHECK_NOTHROW(text = j.dump());
  CHECK(j["environment"]["pytorch_version"] == "2.1\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(j["file"] == "caf\xef\xbf\xbd.json");
  nlohmann::json raw = {{"error", "bad\x80"}};
  CHECK(JsonText(raw, -1) == "{\"error\":\"bad\xef\xbf\xbd\"}");
}

TEST_CASE("report: a step over 1.5x the median gets a note") {
  auto stretched = ReadString(TraceJson(
      {X("user_annotation", "ProfilerStep#1", "0", "2000"), X("user_annotation", "ProfilerStep#2", "2000", "1000"),
       X("user_annotation", "ProfilerStep#3", "3000", "1000"), X("user_annotation", "ProfilerStep#4", "4000", "1100"),
       X("user_annotation", "ProfilerStep#5", "5100", "10")}));
  auto a = Analyze(*stretched.trace);
  REQUIRE(a.steps.count() == 4);
  auto j = AnalysisToJson(*stretched.trace, a);
  CHECK(j["steps"]["median_ms"].get<double>() == doctest::Approx(1.05));
  CHECK(j["steps"]["outlier_index"] == 0);
  CHECK(j["steps"]["note"].get<std::string>().starts_with("step 1 of 4 takes 2.0 ms, 1.9x the median step (1.1 ms)"));
  CHECK(RenderReport(*stretched.trace, a, {}).find("- Note: step 1 of 4 takes 2.0 ms") != std::string::npos);

  // 1.4x is not an outlier.
  auto even = ReadString(TraceJson(
      {X("user_annotation", "ProfilerStep#1", "0", "1400"), X("user_annotation", "ProfilerStep#2", "1400", "1000"),
       X("user_annotation", "ProfilerStep#3", "2400", "1000"), X("user_annotation", "ProfilerStep#4", "3400", "10")}));
  auto ae = Analyze(*even.trace);
  auto je = AnalysisToJson(*even.trace, ae);
  CHECK(je["steps"]["outlier_index"].is_null());
  CHECK(je["steps"]["note"].is_null());
  CHECK(RenderReport(*even.trace, ae, {}).find("Note: ") == std::string::npos);
}

TEST_CASE("real A100 rank: the first step, stretched by GPU lag, is noted") {
  auto file = tl::test::SharedTrace(
      "real/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz");
  if (!file) return;
  auto r = ReadTraceFile(file->string());
  REQUIRE(r.ok());
  auto a = Analyze(*r.trace);
  auto j = AnalysisToJson(*r.trace, a);
  REQUIRE(j["steps"]["per_step_ms"].size() == 4);
  CHECK(j["steps"]["per_step_ms"][0].get<double>() == doctest::Approx(371.6).epsilon(0.01));
  CHECK(j["steps"]["median_ms"].get<double>() == doctest::Approx(216.35).epsilon(0.01));
  CHECK(j["steps"]["outlier_index"] == 0);
  ReportOptions zh;
  zh.language = Language::kChinese;
  CHECK(RenderReport(*r.trace, a, zh).find("注意：第 1 个 step（共 4 个）耗时 371.6 ms") != std::string::npos);
}

TEST_CASE("report cosmetics: priority order, --top in the title, driver version, unknown reserved memory") {
  auto file = tl::test::SharedTrace(
      "real/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz");
  if (file) {
    auto r = ReadTraceFile(file->string());
    REQUIRE(r.ok());
    auto a = Analyze(*r.trace);
    ReportOptions opt;
    const std::string text = RenderReport(*r.trace, a, opt);
    // Syncs (152 ms per step) and exposed communication (40 ms) are high; the pageable-copy advice,
    // about 0.07 ms, is low: high first, then low, as the time at stake falls.
    const std::string recs = text.substr(text.find("Recommendations (by priority)"));
    const size_t low = recs.find("[low]");
    REQUIRE(low != std::string::npos);
    CHECK(recs.find("[high]") < low);
    CHECK(recs.rfind("[high]") < low);
    CHECK(recs.find("[medium]") == std::string::npos);
    CHECK(recs.find("[low] Pin host memory") != std::string::npos);
    opt.top_n = 3;
    const std::string top3 = RenderReport(*r.trace, a, opt);
    CHECK(top3.find("Top 3 ops") != std::string::npos);
    CHECK(top3.find("\n  4  ") == std::string::npos);  // three rows, whatever the analysis kept
    CHECK(top3.find("\n  3  ") != std::string::npos);
  }

  // PyTorch 1.8-1.9 memory events carry no reserved total: "unknown", and null in JSON.
  auto old = ReadString(TraceJson(
      {X("user_annotation", "ProfilerStep#1", "0", "1000"),
       R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 4096}})"},
      R"("cuda_driver_version": 12080, )"));
  REQUIRE(old.ok());
  auto ao = Analyze(*old.trace);
  ReportOptions en;
  const std::string text = RenderReport(*old.trace, ao, en);
  CHECK(text.find("peak reserved unknown (not in the trace)") != std::string::npos);
  CHECK(text.find("peak reserved 0.000 GB") == std::string::npos);
  CHECK(text.find("- CUDA driver: 12.8") != std::string::npos);
  auto jo = AnalysisToJson(*old.trace, ao);
  CHECK(jo["environment"]["cuda_driver_version"] == "12.8");
  REQUIRE(jo["memory"].size() == 1);
  CHECK(jo["memory"][0]["peak_allocated_bytes"] == 4096);
  CHECK(jo["memory"][0]["peak_reserved_bytes"].is_null());
  ReportOptions zh;
  zh.language = Language::kChinese;
  CHECK(RenderReport(*old.trace, ao, zh).find("峰值预留 不可用") != std::string::npos);
}

namespace {

struct Loaded {
  ReadResult read;
  TraceAnalysis analysis;
};

// A shared trace read and analysed, or nullopt after the "skipped:" line.
std::optional<Loaded> LoadShared(const std::string& relative) {
  auto file = tl::test::SharedTrace(relative);
  if (!file) return std::nullopt;
  Loaded l{ReadTraceFile(file->string()), {}};
  REQUIRE(l.read.ok());
  l.analysis = Analyze(*l.read.trace);
  return l;
}

std::vector<std::string> DiagnosisKinds(const TraceReport& r) {
  std::vector<std::string> kinds;
  for (const auto& d : r.diagnosis) kinds.push_back(d.kind);
  return kinds;
}

const RecommendationItem* FindRecommendation(const TraceReport& r, std::string_view kind) {
  for (const auto& rec : r.recommendations) {
    if (rec.kind == kind) return &rec;
  }
  return nullptr;
}

bool MentionsTensorCores(const TraceReport& r) {
  for (const auto& rec : r.recommendations) {
    if (rec.text.find("tensor cores") != std::string::npos) return true;
  }
  return false;
}

constexpr const char* kResnetWorkers0 =
    "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
constexpr const char* kSampledRank0 = "real/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz";
constexpr const char* kT4Fp32 = "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json";

}  // namespace

TEST_CASE("priority from the time at stake: high at 10% of the step, medium at 2%, low below") {
  CHECK(PriorityOf(10.0, 100.0) == Severity::kHigh);
  CHECK(PriorityOf(9.99, 100.0) == Severity::kMedium);
  CHECK(PriorityOf(2.0, 100.0) == Severity::kMedium);
  CHECK(PriorityOf(1.99, 100.0) == Severity::kLow);
  CHECK(PriorityOf(0.0, 100.0) == Severity::kLow);
  CHECK(PriorityOf(5.0, 0.0) == Severity::kLow);  // no step to compare with
  std::vector<RecommendationItem> recs(3);
  recs[0].kind = "a";
  recs[0].ms_at_stake_per_step = 1;
  recs[1].kind = "b";
  recs[1].ms_at_stake_per_step = 5;
  recs[2].kind = "c";
  recs[2].ms_at_stake_per_step = 1;
  RankRecommendations(recs);
  CHECK(recs[0].kind == "b");
  CHECK(recs[1].kind == "a");  // ties keep their order
  CHECK(recs[2].kind == "c");
}

TEST_CASE("BuildReport: diagnosis items of the right kinds on known traces") {
  struct Case {
    const char* file;
    std::vector<std::string> kinds;
  };
  const Case cases[] = {
      {kResnetWorkers0, {"data", "launch"}},
      {kSampledRank0, {"communication"}},
      {"real/HolisticTraceAnalysis/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
       {"compute"}},
      {"real/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", {"launch"}},
      {"cpu/torch2.14.1/c_workers0.pt.trace.json", {"data"}},
      {"cpu/torch2.14.1/a_baseline.pt.trace.json", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    auto l = LoadShared(c.file);
    if (!l) continue;
    const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
    CHECK(DiagnosisKinds(r) == c.kinds);
    for (const auto& d : r.diagnosis) {
      CHECK(d.bottleneck.has_value());
      CHECK(!d.title.empty());
      CHECK(!d.impact.empty());
      CHECK(!d.figures.empty());
    }
    // Ranked by the time at stake, so priorities never rise down the list.
    for (size_t i = 1; i < r.recommendations.size(); ++i) {
      CHECK(r.recommendations[i - 1].ms_at_stake_per_step >= r.recommendations[i].ms_at_stake_per_step);
      CHECK(r.recommendations[i - 1].priority >= r.recommendations[i].priority);
    }
    // The old entry point renders the same report.
    ReportOptions md;
    md.format = ReportFormat::kMarkdown;
    CHECK(RenderReport(*l->read.trace, l->analysis, md) == RenderReport(r, ReportFormat::kMarkdown));
  }
}

TEST_CASE("BuildReport: a caller appends and re-ranks items, and rendering numbers them") {
  auto l = LoadShared(kResnetWorkers0);
  if (!l) return;
  TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
  const size_t before = r.recommendations.size();
  r.diagnosis.push_back({"TL201",
                         std::nullopt,
                         Severity::kHigh,
                         "DataLoader without workers",
                         "train.py:9 loads in the main process",
                         {}});
  r.recommendations.push_back({"TL201", std::nullopt, PriorityOf(150.0, r.environment.mean_step_ms),
                               "Set num_workers=8 (train.py:9)", "", 150.0});
  RankRecommendations(r.recommendations);
  REQUIRE(r.recommendations.size() == before + 1);
  CHECK(r.recommendations[0].kind == "TL201");
  const std::string text = RenderReport(r, ReportFormat::kText);
  CHECK(text.find("1. [high] Set num_workers=8 (train.py:9) — expected gain: up to 150.00 ms per step") !=
        std::string::npos);
  CHECK(text.find("3. [high] DataLoader without workers — impact: train.py:9 loads in the main process\n") !=
        std::string::npos);
}

TEST_CASE("one fact, one figure: the DataLoader's time and its time alone are named apart (resnet50, num_workers=0)") {
  auto l = LoadShared(kResnetWorkers0);
  if (!l) return;
  const auto& a = l->analysis;
  const TraceReport r = BuildReport(*l->read.trace, a, Language::kEnglish);
  // 39.3% of the step inside __next__; 34.2% with nothing else running (kernels queued before overlap the rest).
  CHECK(r.gpu.dataloader_share == doctest::Approx(0.393).epsilon(0.01));
  CHECK(r.gpu.breakdown[static_cast<size_t>(Role::kDataLoader)] == doctest::Approx(0.342).epsilon(0.01));
  CHECK(r.gpu.breakdown[static_cast<size_t>(Role::kDataLoader)] <= r.gpu.dataloader_share);
  const std::string text = RenderReport(r, ReportFormat::kText);
  CHECK(
      text.find("- DataLoader: 39.3% of step time inside __next__ calls; 34.2% of step time with nothing else running "
                "(the breakdown's dataloader); iterator: single-process, num_workers=0") != std::string::npos);
  CHECK(text.find("- Step breakdown (of step wall time, each instant counted once") != std::string::npos);
  CHECK(text.find("- DataLoader: 39.3% (") == std::string::npos);  // the old unnamed figure
  // The diagnosis and the recommendation use the DataLoader line's figure, not the breakdown's.
  REQUIRE(!r.diagnosis.empty());
  CHECK(r.diagnosis[0].kind == "data");
  CHECK(r.diagnosis[0].impact.find("39.3% of step time") != std::string::npos);
  const auto* data = FindRecommendation(r, "data");
  REQUIRE(data != nullptr);
  CHECK(data->ms_at_stake_per_step == doctest::Approx(0.393 * r.environment.mean_step_ms).epsilon(0.01));  // 70.6 ms
  CHECK(data->priority == Severity::kHigh);
}

TEST_CASE(
    "one fact, one figure: collectives' share of kernel time and of the step are named apart (HTA sampled rank 0)") {
  auto l = LoadShared(kSampledRank0);
  if (!l) return;
  const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
  CHECK(r.gpu.comm_share_of_kernel_time == doctest::Approx(0.648).epsilon(0.01));
  CHECK(r.gpu.breakdown[static_cast<size_t>(Role::kCommunication)] == doctest::Approx(0.284).epsilon(0.01));
  const std::string text = RenderReport(r, ReportFormat::kText);
  CHECK(text.find("- Collective kernels: 64.8% of GPU kernel time, 11.8% of it overlapped with compute") !=
        std::string::npos);
  CHECK(text.find("- Communication: 64.8%") == std::string::npos);  // the old unnamed figure
  CHECK(text.find("communication 28.4%") != std::string::npos);     // in the step breakdown, of step wall time
  // The recommendation is about the communication compute does not hide: 172 ms, 28.4% of the step,
  // which is the breakdown's figure to within a point (there, memcpys also claim time before it).
  const auto* comm = FindRecommendation(r, "communication");
  REQUIRE(comm != nullptr);
  CHECK(comm->ms_at_stake_per_step == doctest::Approx(172.3).epsilon(0.01));
  CHECK(comm->ms_at_stake_per_step / r.environment.mean_step_ms ==
        doctest::Approx(r.gpu.breakdown[static_cast<size_t>(Role::kCommunication)]).epsilon(0.03));
  // Chinese names the kernel-time share too.
  const std::string zh = RenderReport(BuildReport(*l->read.trace, l->analysis, Language::kChinese),
                                      ReportFormat::kText);
  CHECK(zh.find("集合通信 kernel 耗时占比：GPU kernel 时间的 64.8%") != std::string::npos);
}

TEST_CASE("\"1 step\", not \"1 steps\"") {
  for (const char* file :
       {kSampledRank0,
        "real/HolisticTraceAnalysis/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"}) {
    CAPTURE(file);
    auto l = LoadShared(file);
    if (!l) continue;
    CHECK(l->analysis.steps.count() == 1);
    const std::string text = RenderReport(*l->read.trace, l->analysis, {});
    CHECK(text.find("- Scope: 1 step (ProfilerStep), mean ") != std::string::npos);
    CHECK(text.find("1 steps") == std::string::npos);
  }
  if (auto l = LoadShared(kResnetWorkers0)) {
    CHECK(RenderReport(*l->read.trace, l->analysis, {}).find("- Scope: 5 steps (ProfilerStep)") != std::string::npos);
  }
  // One kernel, one allocation.
  auto one = ReadString(TraceJson(
      {X("user_annotation", "ProfilerStep#1", "0", "1000"),
       X("cuda_runtime", "cudaLaunchKernel", "1", "5", "1", "1", R"({"correlation": 1})"),
       X("kernel", "volta_sgemm", "10", "100", "0", "7", R"({"device": 0, "stream": 7, "correlation": 1})")}));
  REQUIRE(one.ok());
  const std::string text = RenderReport(*one.trace, Analyze(*one.trace), {});
  CHECK(text.find("(1 kernel)") != std::string::npos);
  CHECK(text.find("1 step (") != std::string::npos);
}

TEST_CASE(
    "no compute-bound diagnosis on an idle GPU; the tensor-core tip stands where tensor cores could run the GEMMs") {
  // HTA sampled rank 0: busy 45.9%, so not compute-bound (it was, at [low], before).
  if (auto l = LoadShared(kSampledRank0)) {
    const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
    CHECK(l->analysis.busy.share == doctest::Approx(0.459).epsilon(0.02));
    CHECK(DiagnosisKinds(r) == std::vector<std::string>{"communication"});
  }
  // Busy GPUs still get it: 97.4% busy with no tensor-core time, and 83.7% busy with 15.1%.
  for (const char* file :
       {"real/HolisticTraceAnalysis/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        "real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz"}) {
    CAPTURE(file);
    auto l = LoadShared(file);
    if (!l) continue;
    const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
    const auto kinds = DiagnosisKinds(r);
    CHECK(std::find(kinds.begin(), kinds.end(), "compute") != kinds.end());
    CHECK(FindRecommendation(r, "compute") != nullptr);
  }
  // T4, fp32, busy 23.7%: no verdict, but the tip, at the 3.95 ms per step of fp32 GEMMs (17% of the step).
  if (auto l = LoadShared(kT4Fp32)) {
    const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
    const auto kinds = DiagnosisKinds(r);
    CHECK(std::find(kinds.begin(), kinds.end(), "compute") == kinds.end());
    const auto* tc = FindRecommendation(r, "tensor-cores");
    REQUIRE(tc != nullptr);
    CHECK(tc->ms_at_stake_per_step == doctest::Approx(3.95).epsilon(0.02));
    CHECK(tc->priority == Severity::kHigh);
    CHECK(FindRecommendation(r, "gemm-alignment") != nullptr);  // 2 unaligned GEMMs per step on a T4
    CHECK(l->analysis.kernels.tensor_core_count == 0);
  }
}

TEST_CASE("no tensor-core tip on a CPU-only trace, though its GEMMs are unaligned") {
  for (const char* file : {"cpu/torch2.14.1/e_unaligned.pt.trace.json", "cpu/torch2.14.1/a_baseline.pt.trace.json",
                           "cpu/torch2.14.1/d_zero_grad_false.pt.trace.json"}) {
    CAPTURE(file);
    auto l = LoadShared(file);
    if (!l) continue;
    CHECK(!l->analysis.busy.has_gpu);
    CHECK(l->analysis.gemms.unaligned > 0);  // the old report advised padding them for tensor cores
    CHECK(!HasTensorCores(*l->read.trace, l->analysis));
    const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
    CHECK(FindRecommendation(r, "gemm-alignment") == nullptr);
    CHECK(FindRecommendation(r, "tensor-cores") == nullptr);
    CHECK(!MentionsTensorCores(r));
    CHECK(RenderReport(r, ReportFormat::kText).find("tensor cores") == std::string::npos);
  }
}

TEST_CASE("recommendations rank by the time at stake: 0.1 ms of pageable copies is low") {
  if (auto l = LoadShared(kSampledRank0)) {
    const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
    const auto* pin = FindRecommendation(r, "pin-memory");
    REQUIRE(pin != nullptr);
    // 8 pageable HtoD copies: 0.03 ms of transfers, 0.10 ms of host calls, in a 607 ms step.
    CHECK(pin->ms_at_stake_per_step == doctest::Approx(0.095).epsilon(0.05));
    CHECK(pin->priority == Severity::kLow);  // was [medium]
    CHECK(r.recommendations.back().kind == "pin-memory");
    CHECK(r.recommendations.front().kind == "communication");
    CHECK(r.recommendations.front().priority == Severity::kHigh);
  }
  // resnet50 with 4 workers: 10.7 ms per step of pageable copies in a 144 ms step is medium.
  if (auto l = LoadShared(
          "real/kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz")) {
    const TraceReport r = BuildReport(*l->read.trace, l->analysis, Language::kEnglish);
    const auto* pin = FindRecommendation(r, "pin-memory");
    REQUIRE(pin != nullptr);
    CHECK(pin->ms_at_stake_per_step == doctest::Approx(10.65).epsilon(0.02));
    CHECK(pin->priority == Severity::kMedium);
    // The JSON carries the same ranking and figures.
    auto j = AnalysisToJson(*l->read.trace, l->analysis);
    REQUIRE(j["recommendations"].size() == r.recommendations.size());
    for (size_t i = 0; i < r.recommendations.size(); ++i) {
      CHECK(j["recommendations"][i]["kind"] == r.recommendations[i].kind);
      CHECK(j["recommendations"][i]["ms_at_stake_per_step"].get<double>() ==
            doctest::Approx(r.recommendations[i].ms_at_stake_per_step));
    }
  }
}

TEST_CASE("AnalysisToJson is an ordered_json that embeds as it is, keys in the documented order") {
  auto r = ReadString(RankJson(0, 1000, 100));
  auto a = Analyze(*r.trace);
  nlohmann::ordered_json outer;
  outer["trace"] = AnalysisToJson(*r.trace, a);
  auto it = outer["trace"].begin();
  CHECK(it.key() == "file");
  CHECK((++it).key() == "format");
  CHECK((++it).key() == "environment");
  CHECK(JsonText(outer, -1).starts_with("{\"trace\":{\"file\":"));
}
