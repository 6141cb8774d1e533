// `torchlint trace` end to end, through the built binary: the report as text, markdown and Chinese
// (golden files), JSON parsed and checked figure by figure, a folder of ranks, and the exit codes. The
// traces are small ones written by the tests, so every figure is known in advance.
#include <algorithm>
#include <nlohmann/json.hpp>

#include <sstream>

#include "cli_support.h"

using tl::test::CheckGolden;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

namespace {

std::string Event(std::string_view cat, std::string_view name, int64_t ts, int64_t dur, int tid,
                  std::string_view args = "{}") {
  return fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": 1, "tid": {}, "ts": {}, "dur": {}, "args": {}}})", cat, name,
      tid, ts, dur, args);
}

std::string Memory(int64_t ts, int64_t bytes, int64_t allocated, int64_t reserved) {
  return fmt::format(
      R"({{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": {}, )"
      R"("args": {{"Total Reserved": {}, "Total Allocated": {}, "Bytes": {}, "Device Id": 0, "Device Type": 1}}}})",
      ts, reserved, allocated, bytes);
}

struct TraceSpec {
  int rank = 0;
  int64_t comm_us = 0;           // an all-reduce kernel per step, when > 0
  int64_t first_step_us = 1000;  // the first step's length; the others are 1000 µs
  std::string extra_metadata;    // raw JSON members, each followed by ", "
};

TraceSpec Rank(int rank, int64_t comm_us = 0) {
  TraceSpec spec;
  spec.rank = rank;
  spec.comm_us = comm_us;
  return spec;
}

// Five ProfilerSteps (the last is partial and left out): per step a DataLoader call, an aten::mm that
// launches a 500 µs tensor-core GEMM, a pageable HtoD copy of 4 MB (50 µs) and one cudaStreamSynchronize.
std::string MakeTrace(const TraceSpec& spec) {
  std::vector<std::string> ev;
  int64_t base = 0;
  int correlation = 1;
  for (int s = 0; s < 5; ++s) {
    const int64_t len = s == 0 ? spec.first_step_us : 1000;
    ev.push_back(Event("user_annotation", fmt::format("ProfilerStep#{}", s), base, len, 1));
    ev.push_back(
        Event("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", base + 1, 5, 1));
    ev.push_back(Event("cpu_op", "aten::mm", base + 10, 100, 1));
    ev.push_back(Event("cuda_runtime", "cudaLaunchKernel", base + 20, 5, 1,
                       fmt::format(R"({{"correlation": {}}})", correlation)));
    ev.push_back(Event("kernel", "sm80_xmma_gemm_f16f16_f16f32", base + 30, 500, 7,
                       fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", correlation)));
    ++correlation;
    ev.push_back(Event("cpu_op", "aten::copy_", base + 150, 80, 1));
    ev.push_back(Event("cuda_runtime", "cudaMemcpyAsync", base + 160, 60, 1,
                       fmt::format(R"({{"correlation": {}}})", correlation)));
    ev.push_back(
        Event("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", base + 600, 50, 7,
              fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}, "bytes": 4000000}})", correlation)));
    ++correlation;
    if (spec.comm_us > 0) {
      ev.push_back(Event("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", base + 660, spec.comm_us, 20,
                         R"({"device": 0, "stream": 20})"));
    }
    ev.push_back(Event("cuda_runtime", "cudaStreamSynchronize", base + 700, 50, 1));
    base += len;
  }
  ev.push_back(Memory(2, 4000000, 4000000, 20000000));
  ev.push_back(Memory(3, 8000000, 12000000, 20000000));
  std::string out = R"({"schemaVersion": 1, )";
  out += R"("deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85000000000, )"
         R"("computeMajor": 8, "computeMinor": 0, "numSms": 108}], )";
  out += fmt::format(R"("distributedInfo": {{"backend": "nccl", "rank": {}, "world_size": 2}}, )", spec.rank);
  out += R"("cuda_runtime_version": 12040, "cuda_driver_version": 12080, "profile_memory": 1, )";
  out += spec.extra_metadata;
  out += R"("traceEvents": [)";
  for (size_t i = 0; i < ev.size(); ++i) out += (i ? ",\n" : "\n") + ev[i];
  return out + "\n]}\n";
}

nlohmann::json ParseJson(const std::string& text) {
  INFO(text);
  REQUIRE(nlohmann::json::accept(text));
  return nlohmann::json::parse(text);
}

}  // namespace

TEST_CASE("trace: text report") {
  TempFolder dir;
  dir.Write("trace.json", MakeTrace({}));
  const auto result = RunTorchlint({"trace", "trace.json"}, dir.path());
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  for (const char* title : {"Environment", "Top 10 ops", "GPU utilisation", "Memory", "Bottleneck diagnosis",
                            "Recommendations (by priority)"}) {
    CAPTURE(title);
    CHECK(result.out.find(title) != std::string::npos);
  }
  CHECK(result.out.find("CUDA driver: 12.8") != std::string::npos);
  CHECK(result.out.find("Scope: 4 steps (ProfilerStep), mean 1.00 ms") != std::string::npos);
  CHECK(result.out.find("GPU busy: 55.0%") != std::string::npos);
  CheckGolden("trace_text.txt", result.Transcript());
}

TEST_CASE("trace: --top changes the op table and its title") {
  TempFolder dir;
  dir.Write("trace.json", MakeTrace({}));
  const auto result = RunTorchlint({"trace", "trace.json", "--top", "1"}, dir.path());
  CHECK(result.exit_code == 0);
  CHECK(result.out.find("Top 1 ops") != std::string::npos);
  CHECK(result.out.find("Top 10 ops") == std::string::npos);
  // One row: the op with the most CUDA time, and no second.
  CHECK(result.out.find("  1  aten::mm") != std::string::npos);
  CHECK(result.out.find("  2  ") == std::string::npos);
}

TEST_CASE("trace: markdown report in Chinese") {
  TempFolder dir;
  dir.Write("trace.json", MakeTrace({}));
  const auto result = RunTorchlint({"trace", "trace.json", "--format", "markdown", "--lang", "zh"}, dir.path());
  CHECK(result.exit_code == 0);
  for (const char* title : {"# PyTorch 性能分析报告", "## 环境信息", "## Top 10 耗时算子", "## GPU 利用率概览",
                            "## 显存分析", "## 瓶颈诊断", "## 优化建议（按优先级）", "| 排名 | 算子 |"}) {
    CAPTURE(title);
    CHECK(result.out.find(title) != std::string::npos);
  }
  // No English fragments left in the sentences the audit found.
  for (const char* english : {"host-wait", "kernel-wait", "healthy", " of 85.0 GB", "cpu_exec", "runtime "}) {
    CAPTURE(english);
    CHECK(result.out.find(english) == std::string::npos);
  }
  CheckGolden("trace_markdown_zh.txt", result.Transcript());
}

TEST_CASE("trace: JSON keys and figures") {
  TempFolder dir;
  dir.Write("trace.json", MakeTrace({}));
  const auto result = RunTorchlint({"trace", "trace.json", "--format", "json"}, dir.path());
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  const auto j = ParseJson(result.out);
  for (const char* key : {"file", "format", "environment", "steps", "gpu", "communication", "dataloader", "syncs",
                          "memcpy", "memory", "breakdown", "top_ops", "bottlenecks"}) {
    CAPTURE(key);
    CHECK(j.contains(key));
  }
  CHECK(j["file"] == "trace.json");
  CHECK(j["environment"]["cuda_runtime_version"] == "12.4");
  CHECK(j["environment"]["cuda_driver_version"] == "12.8");
  CHECK(j["environment"]["rank"] == 0);
  CHECK(j["steps"]["count"] == 4);
  CHECK(j["steps"]["last_partial_step_dropped"] == true);
  CHECK(j["steps"]["mean_ms"].get<double>() == doctest::Approx(1.0));
  CHECK(j["steps"]["median_ms"].get<double>() == doctest::Approx(1.0));
  CHECK(j["steps"]["outlier_index"].is_null());
  CHECK(j["steps"]["note"].is_null());
  CHECK(j["gpu"]["busy_share"].get<double>() == doctest::Approx(0.55));
  CHECK(j["gpu"]["tensor_core_share"].get<double>() == doctest::Approx(1.0));
  CHECK(j["gpu"]["kernels"] == 4);
  CHECK(j["communication"]["share"].get<double>() == doctest::Approx(0.0));
  CHECK(j["dataloader"]["share"].get<double>() == doctest::Approx(0.005));
  CHECK(j["dataloader"]["iterator"] == "single");
  CHECK(j["syncs"]["per_step"].get<double>() == doctest::Approx(1.0));
  CHECK(j["memcpy"]["pageable_per_step"].get<double>() == doctest::Approx(1.0));
  REQUIRE(j["memcpy"]["kinds"].size() == 1);
  const auto& copies = j["memcpy"]["kinds"][0];
  CHECK(copies["direction"] == "HtoD");
  CHECK(copies["src"] == "pageable");
  CHECK(copies["count"] == 4);  // over the 4 analysed steps
  CHECK(copies["count_per_step"].get<double>() == doctest::Approx(1.0));
  CHECK(copies["bytes"] == 16000000);
  CHECK(copies["bytes_per_step"].get<double>() == doctest::Approx(4e6));
  CHECK(copies["gpu_ms_per_step"].get<double>() == doctest::Approx(0.05));
  REQUIRE(j["memory"].size() == 1);
  CHECK(j["memory"][0]["peak_allocated_bytes"] == 12000000);
  CHECK(j["memory"][0]["peak_reserved_bytes"] == 20000000);
  REQUIRE_FALSE(j["top_ops"].empty());
  CHECK(j["top_ops"][0]["name"] == "aten::mm");
  CHECK(j["top_ops"][0]["calls"] == 4);
}

TEST_CASE("trace: a stretched first step gets a note") {
  TempFolder dir;
  TraceSpec spec;
  spec.first_step_us = 1800;
  dir.Write("trace.json", MakeTrace(spec));
  const auto json = RunTorchlint({"trace", "trace.json", "--format", "json"}, dir.path());
  const auto j = ParseJson(json.out);
  CHECK(j["steps"]["outlier_index"] == 0);
  CHECK(j["steps"]["median_ms"].get<double>() == doctest::Approx(1.0));
  CHECK(j["steps"]["note"].get<std::string>().starts_with("step 1 of 4 takes 1.8 ms, 1.8x the median step (1.0 ms)"));
  const auto text = RunTorchlint({"trace", "trace.json"}, dir.path());
  CHECK(text.out.find("- Note: step 1 of 4 takes 1.8 ms, 1.8x the median step") != std::string::npos);
  const auto zh = RunTorchlint({"trace", "trace.json", "--lang", "zh"}, dir.path());
  CHECK(zh.out.find("- 注意：第 1 个 step（共 4 个）耗时 1.8 ms") != std::string::npos);
  // Without the stretch, no note.
  dir.Write("even.json", MakeTrace({}));
  CHECK(RunTorchlint({"trace", "even.json"}, dir.path()).out.find("Note: ") == std::string::npos);
}

TEST_CASE("trace: a folder of two ranks, one the straggler") {
  TempFolder dir;
  // Rank 0 waits 400 µs per step in the all-reduce for rank 1, which waits 50 µs.
  dir.Write("ranks/rank0.pt.trace.json", MakeTrace(Rank(0, 400)));
  dir.Write("ranks/rank1.pt.trace.json", MakeTrace(Rank(1, 50)));
  const auto text = RunTorchlint({"trace", "ranks"}, dir.path());
  INFO(text.out);
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("* straggler: rank 1") != std::string::npos);
  CHECK(text.out.find("ranks/rank0.pt.trace.json") != std::string::npos);
  CHECK(text.out.find("\n   0       4       1.00") != std::string::npos);
  CHECK(text.out.find("\n   1*      4       1.00") != std::string::npos);
  CHECK(text.out.find("Trace: ranks/rank1.pt.trace.json") != std::string::npos);  // the straggler's report follows

  const auto json = RunTorchlint({"trace", "ranks", "--format", "json"}, dir.path());
  CHECK(json.exit_code == 0);
  const auto j = ParseJson(json.out);
  CHECK(j["rank_count"] == 2);
  REQUIRE(j["ranks"].size() == 2);
  CHECK(j["ranks"][0]["rank"] == 0);
  CHECK(j["ranks"][1]["rank"] == 1);
  CHECK(j["straggler"] == 1);
  CHECK(j["ranks"][1]["straggler"] == true);
  CHECK(j["straggler_test"]["metric"] == "communication.share");
  CHECK(j["straggler_test"]["value"].get<double>() == doctest::Approx(50.0 / 550.0));
  CHECK(j["straggler_test"]["others_mean"].get<double>() == doctest::Approx(400.0 / 900.0));

  const auto zh = RunTorchlint({"trace", "ranks", "--lang", "zh"}, dir.path());
  CHECK(zh.out.find("* 慢节点：rank 1") != std::string::npos);
  CHECK(zh.out.find("首要瓶颈") != std::string::npos);
  CHECK(zh.out.find("top bottleneck") == std::string::npos);
}

TEST_CASE("trace: a CPU-only rank shows dashes, not 0% GPU busy") {
  TempFolder dir;
  dir.Write("ranks/rank0.json", MakeTrace({}));
  std::string cpu = R"({"schemaVersion": 1, "traceEvents": [)";
  for (int s = 0; s < 3; ++s) {
    cpu += fmt::format("{}{},\n{}", s ? ",\n" : "",
                       Event("user_annotation", fmt::format("ProfilerStep#{}", s), s * 1000, 1000, 1),
                       Event("cpu_op", "aten::add", s * 1000 + 5, 100, 1));
  }
  dir.Write("ranks/rank1.json", cpu + "]}");
  const auto result = RunTorchlint({"trace", "ranks"}, dir.path());
  CHECK(result.exit_code == 0);
  // The columns: rank, steps, mean ms, GPU busy, DataLoader, comm, syncs/step, top bottleneck, file.
  std::vector<std::string> row;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.ends_with("ranks/rank1.json")) continue;
    std::istringstream words(line);
    for (std::string w; words >> w;) row.push_back(w);
    break;
  }
  INFO(result.out);
  REQUIRE(row.size() == 9);
  CHECK(row[0] == "1");
  CHECK(row[3] == "-");     // GPU busy
  CHECK(row[5] == "-");     // comm
  CHECK(row[4] == "0.0%");  // DataLoader is a CPU figure: still shown
}

TEST_CASE("trace: several files of one rank are its profiling cycles") {
  TempFolder dir;
  // tensorboard_trace_handler names: <worker>.<epoch ms>.pt.trace.json, one file per cycle.
  dir.Write("run/worker0.1623143089861.pt.trace.json", MakeTrace(Rank(0, 400)));
  dir.Write("run/worker0.1623143099999.pt.trace.json", MakeTrace(Rank(0, 420)));
  dir.Write("run/worker1.1623143089870.pt.trace.json", MakeTrace(Rank(1, 410)));
  const auto json = RunTorchlint({"trace", "run", "--format", "json"}, dir.path());
  CHECK(json.exit_code == 0);
  const auto j = ParseJson(json.out);
  CHECK(j["rank_count"] == 2);
  REQUIRE(j["ranks"].size() == 3);
  CHECK(j["ranks"][0]["rank"] == 0);
  CHECK(j["ranks"][1]["rank"] == 0);
  CHECK(j["ranks"][2]["rank"] == 1);
  CHECK(j["ranks"][0]["cycles"] == 2);
  CHECK(j["ranks"][0]["representative"] == false);
  CHECK(j["ranks"][1]["representative"] == true);
  CHECK(j["ranks"][2]["representative"] == true);
  // The two cycles of rank 0 (400 vs 420 µs of all-reduce) are not compared with each other, and the ranks
  // are close: no straggler.
  CHECK(j["straggler"].is_null());
  const auto text = RunTorchlint({"trace", "run"}, dir.path());
  CHECK(text.out.find("\n (0)       4") != std::string::npos);
  CHECK(text.out.find("(N): an earlier profiling cycle of rank N") != std::string::npos);
}

TEST_CASE("trace: a rank number too large for an int in a file name") {
  TempFolder dir;
  dir.Write("ranks/rank0.json", MakeTrace(Rank(0)));
  std::string nameless = MakeTrace(Rank(0));
  nameless.replace(nameless.find(R"("distributedInfo")"),
                   std::string_view(R"("distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2}, )").size(),
                   "");
  dir.Write("ranks/rank99999999999999.json", nameless);
  const auto result = RunTorchlint({"trace", "ranks", "--format", "json"}, dir.path());
  CHECK(result.exit_code == 0);
  CHECK(result.err.empty());
  const auto j = ParseJson(result.out);
  REQUIRE(j["ranks"].size() == 2);
  CHECK(j["ranks"][0]["rank"] == 0);
  CHECK(j["ranks"][1]["rank"] == 1);  // the next free rank
}

TEST_CASE("trace: invalid UTF-8 never breaks the JSON") {
  TempFolder dir;
  // A folder with a valid trace and a garbage file whose error snippet holds raw bytes >= 0x80.
  dir.Write("mixed/rank0.json", MakeTrace({}));
  dir.Write("mixed/rank1.json", std::string("\x89PNG\r\n\x1a\n\xff\xfe\x80\x81garbage", 18));
  const auto mixed = RunTorchlint({"trace", "mixed", "--format", "json"}, dir.path());
  CHECK(mixed.exit_code == 1);
  CHECK(mixed.err.find("internal error") == std::string::npos);
  CHECK(mixed.err.find("mixed/rank1.json") != std::string::npos);
  const auto j = ParseJson(mixed.out);
  REQUIRE(j["ranks"].size() == 1);
  CHECK(j["ranks"][0]["rank"] == 0);
  CHECK(j["ranks"][0]["steps"]["count"] == 4);
  REQUIRE(j["errors"].size() == 1);
  CHECK(j["errors"][0].get<std::string>().find("mixed/rank1.json") != std::string::npos);

  // pytorch_version holding invalid UTF-8.
  TraceSpec spec;
  spec.extra_metadata = "\"pytorch_version\": \"2.1\xff\xfe\", ";
  dir.Write("version.json", MakeTrace(spec));
  const auto version = RunTorchlint({"trace", "version.json", "--format", "json"}, dir.path());
  CHECK(version.exit_code <= 1);
  CHECK(version.err.find("internal error") == std::string::npos);
  const auto v = ParseJson(version.out);
  CHECK(v["steps"]["count"] == 4);
  CHECK(v["environment"]["pytorch_version"].get<std::string>().starts_with("2.1"));

  // A file name that is not UTF-8.
  const std::string latin1_name = "caf\xe9.json";
  dir.Write(latin1_name, MakeTrace({}));
  const auto name = RunTorchlint({"trace", latin1_name, "--format", "json"}, dir.path());
  CHECK(name.exit_code == 0);
  const auto n = ParseJson(name.out);
  CHECK(n["file"] == "caf\xef\xbf\xbd.json");  // U+FFFD for the bad byte
  CHECK(n["steps"]["count"] == 4);
}

TEST_CASE("trace: exit codes 0 clean, 1 truncated, 2 not a trace") {
  TempFolder dir;
  const std::string good = MakeTrace({});
  dir.Write("good.json", good);
  dir.Write("cut.json", good.substr(0, good.size() * 3 / 4));
  dir.Write("notes.json", "{\"hello\": 1}");
  const auto clean = RunTorchlint({"trace", "good.json"}, dir.path());
  CHECK(clean.exit_code == 0);
  CHECK(clean.err.empty());

  const auto cut = RunTorchlint({"trace", "cut.json"}, dir.path());
  CHECK(cut.exit_code == 1);
  CHECK(cut.err.starts_with("torchlint: warning: cut.json: truncated at byte "));
  CHECK(cut.out.find("PyTorch performance report") != std::string::npos);  // still analysed

  const auto not_trace = RunTorchlint({"trace", "notes.json"}, dir.path());
  CHECK(not_trace.exit_code == 2);
  CHECK(not_trace.out.empty());
  CHECK(not_trace.err.starts_with("torchlint: error: notes.json: "));
  CHECK(std::count(not_trace.err.begin(), not_trace.err.end(), '\n') == 1);

  CHECK(RunTorchlint({"trace", "missing.json"}, dir.path()).exit_code == 2);
  CHECK(RunTorchlint({"trace", "good.json", "--format", "yaml"}, dir.path()).exit_code == 2);
}

TEST_CASE("trace: -j 1 and -j 4 print the same report, byte for byte") {
  // f_tiny_ops is 8 MB: 32 chunks of the reader, so -j 4 parses them on worker threads.
  auto trace = tl::test::SharedTrace("cpu/torch2.14.1/f_tiny_ops.pt.trace.json");
  if (!trace) return;
  TempFolder dir;
  const auto one = RunTorchlint({"trace", trace->string(), "--format", "json", "-j", "1"}, dir.path());
  const auto four = RunTorchlint({"trace", trace->string(), "--format", "json", "--jobs", "4"}, dir.path());
  REQUIRE(one.exit_code == 0);
  CHECK(four.exit_code == 0);
  CHECK(one.out == four.out);
  CHECK(nlohmann::json::parse(one.out)["steps"]["count"].get<int>() > 0);
  const auto text_one = RunTorchlint({"trace", trace->string(), "-j", "1"}, dir.path());
  const auto text_four = RunTorchlint({"trace", trace->string(), "-j", "4"}, dir.path());
  CHECK(text_one.out == text_four.out);
}

TEST_CASE("trace: consistent text on real traces (one figure per fact, 1 step, priorities by time at stake)") {
  auto rank0 = tl::test::SharedTrace("real/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz");
  if (!rank0) return;
  TempFolder dir;
  const auto text = RunTorchlint({"trace", rank0->string()}, dir.path());
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("- Scope: 1 step (ProfilerStep), mean 607.31 ms") != std::string::npos);
  CHECK(text.out.find("1 steps") == std::string::npos);
  // 64.8% is of kernel time, 28.4% of the step: each named for what it measures.
  CHECK(text.out.find("- Collective kernels: 64.8% of GPU kernel time, 11.8% of it overlapped with compute") !=
        std::string::npos);
  CHECK(text.out.find("communication 28.4%") != std::string::npos);
  // Busy 45.9%: no compute-bound verdict. 0.1 ms of pageable copies in a 607 ms step: low, and last.
  CHECK(text.out.find("Compute-bound") == std::string::npos);
  CHECK(text.out.find("[medium] Pin host memory") == std::string::npos);
  CHECK(text.out.find("[low] Pin host memory") != std::string::npos);
  CHECK(text.out.find("1. [high] Overlap communication with computation") != std::string::npos);

  const auto json = RunTorchlint({"trace", rank0->string(), "--format", "json"}, dir.path());
  REQUIRE(json.exit_code == 0);
  const auto j = ParseJson(json.out);
  REQUIRE(j["recommendations"].is_array());
  REQUIRE(!j["recommendations"].empty());
  CHECK(j["recommendations"][0]["kind"] == "communication");
  CHECK(j["recommendations"][0]["priority"] == "high");
  CHECK(j["recommendations"][0]["ms_at_stake_per_step"].get<double>() == doctest::Approx(172.3).epsilon(0.01));
  CHECK(j["communication"]["share"].get<double>() == doctest::Approx(0.648).epsilon(0.01));
  CHECK(j["breakdown"]["communication"].get<double>() == doctest::Approx(0.284).epsilon(0.01));
}

TEST_CASE("trace: no tensor-core tip on a CPU-only trace") {
  auto cpu = tl::test::SharedTrace("cpu/torch2.14.1/e_unaligned.pt.trace.json");
  if (!cpu) return;
  TempFolder dir;
  const auto text = RunTorchlint({"trace", cpu->string()}, dir.path());
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("no GPU activity in the trace") != std::string::npos);
  CHECK(text.out.find("tensor cores") == std::string::npos);
  CHECK(text.out.find("Pad GEMM") == std::string::npos);
  CHECK(text.out.find("- Scope: 2 steps (ProfilerStep)") != std::string::npos);
}

TEST_CASE("trace diff: a longer first step is slower, in text and JSON; bad inputs exit 2") {
  TempFolder dir;
  TraceSpec slow = Rank(0);
  slow.first_step_us = 3000;
  // The analysed steps are 0-3 (the last is partial), so the slow trace's mean step is about
  // (3000 + 3 * 1000) / 4 = 1500 µs against 1000 µs.
  dir.Write("before.json", MakeTrace(slow));
  dir.Write("after.json", MakeTrace(Rank(0)));
  auto text = RunTorchlint({"trace", "diff", "before.json", "after.json"}, dir.path());
  INFO(text.Transcript());
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("Before and after") != std::string::npos);
  CHECK(text.out.find("faster") != std::string::npos);
  auto json = RunTorchlint({"trace", "diff", "before.json", "after.json", "--format", "json"}, dir.path());
  REQUIRE(json.exit_code == 0);
  const auto j = ParseJson(json.out);
  CHECK(j["step_ms"]["before"].get<double>() > j["step_ms"]["after"].get<double>());
  CHECK(j["step_ms"]["speedup"].get<double>() > 1.0);
  CHECK(j["steps"]["before"].get<int>() == 4);

  dir.Write("junk.json", "not a trace");
  auto bad = RunTorchlint({"trace", "diff", "before.json", "junk.json"}, dir.path());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("junk.json") != std::string::npos);
  auto missing = RunTorchlint({"trace", "diff", "before.json"}, dir.path());
  CHECK(missing.exit_code == 2);
  auto no_path = RunTorchlint({"trace"}, dir.path());
  CHECK(no_path.exit_code == 2);
  CHECK(no_path.err.find("needs a PATH") != std::string::npos);
}

TEST_CASE("memory: a snapshot's JSON carries the documented keys; a pickle that names code exits 2 and runs nothing") {
  TempFolder dir;
  auto file = tl::test::SharedTrace("memory/assignment2-systems_memory_snapshot.pickle");
  if (file) {
    auto json = RunTorchlint({"memory", file->string(), "--format", "json"}, dir.path());
    REQUIRE(json.exit_code == 0);
    const auto j = ParseJson(json.out);
    REQUIRE(j["devices"].size() == 1);
    CHECK(j["devices"][0]["device"] == 0);
    CHECK(j["devices"][0]["allocated_bytes"] == 1377753600);
    CHECK(j["devices"][0]["reserved_bytes"] == 14180941824);
    CHECK(j["devices"][0]["peak_allocated_bytes"] == 13927832064);
    auto zh = RunTorchlint({"memory", file->string(), "--lang", "zh"}, dir.path());
    CHECK(zh.out.find("显存分析") != std::string::npos);
  }
  dir.Write("evil.pickle", "cos\nsystem\n(S'touch PWNED'\ntR.");
  auto evil = RunTorchlint({"memory", "evil.pickle"}, dir.path());
  CHECK(evil.exit_code == 2);
  CHECK(evil.err.find("GLOBAL") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "PWNED"));
  auto missing = RunTorchlint({"memory", "nope.pickle"}, dir.path());
  CHECK(missing.exit_code == 2);
}

TEST_CASE("trace: --format html -o writes the page, and a bad output path is a one-line error") {
  TempFolder dir;
  dir.Write("trace.json", MakeTrace({}));
  const auto ok = RunTorchlint({"trace", "trace.json", "--format", "html", "-o", "report.html"}, dir.path());
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.empty());
  const std::string html = tl::test::ReadText(dir.path() / "report.html");
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);

  const auto bad = RunTorchlint({"trace", "trace.json", "--format", "html", "-o", "no/such/dir/report.html"},
                                dir.path());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("torchlint: error: cannot write no/such/dir/report.html") == 0);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
}

TEST_CASE("trace --color: bold headings and coloured priorities in text only; NO_COLOR and files stay plain") {
  TempFolder dir;
  dir.Write("trace.json", MakeTrace({}));
  const std::string bold = "\x1b[1m";
  const std::string red = "\x1b[1;31m";
  auto always = RunTorchlint({"trace", "trace.json", "--color", "always"}, dir.path());
  CHECK(always.exit_code == 0);
  CHECK(always.out.find(bold + "Environment\x1b[0m\n-----------") != std::string::npos);
  CHECK(always.out.find(red + "[high]\x1b[0m") != std::string::npos);
  // Stripped of its colours it is the plain report, byte for byte.
  auto plain = RunTorchlint({"trace", "trace.json"}, dir.path());
  std::string stripped = always.out;
  for (size_t at = stripped.find('\x1b'); at != std::string::npos; at = stripped.find('\x1b', at)) {
    stripped.erase(at, stripped.find('m', at) - at + 1);
  }
  CHECK(stripped == plain.out);
  CHECK(plain.out.find('\x1b') == std::string::npos);  // auto, and stdout is a file

  auto no_color = RunTorchlint({"trace", "trace.json", "--color", "auto"}, dir.path(), "", "NO_COLOR=1");
  CHECK(no_color.out.find('\x1b') == std::string::npos);
  auto never = RunTorchlint({"trace", "trace.json", "--color", "never"}, dir.path());
  CHECK(never.out == plain.out);
  for (const char* format : {"json", "markdown", "html"}) {
    CAPTURE(format);
    auto other = RunTorchlint({"trace", "trace.json", "--color", "always", "--format", format}, dir.path());
    CHECK(other.exit_code == 0);
    CHECK(other.out.find('\x1b') == std::string::npos);
  }
  auto bad = RunTorchlint({"trace", "trace.json", "--color", "sometimes"}, dir.path());
  CHECK(bad.exit_code == 2);
}

TEST_CASE("-o FILE: every format of trace, trace diff and report writes the file; a failed write is one line, exit 2") {
  TempFolder dir;
  dir.Write("trace.json", MakeTrace({}));
  dir.Write("train.py", tl::test::ReadText(tl::test::CliDir() / "inputs" / "demo" / "train.py"));
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> commands = {
      {{"trace", "trace.json"}, {"text", "json", "markdown", "html"}},
      {{"trace", "diff", "trace.json", "trace.json"}, {"text", "json", "markdown"}},
      {{"report", "train.py", "--trace", "trace.json"}, {"markdown", "json", "html"}},
  };
  for (const auto& command : commands) {
    const std::vector<std::string>& base = command.first;  // a plain reference: CAPTURE's lambda takes it
    for (const std::string& format : command.second) {
      std::vector<std::string> args = base;
      args.insert(args.end(), {"--format", format});
      CAPTURE(fmt::format("{} --format {}", base[0], format));
      const auto to_stdout = RunTorchlint(args, dir.path());
      REQUIRE(to_stdout.exit_code == 0);
      args.insert(args.end(), {"-o", "out.txt"});
      const auto to_file = RunTorchlint(args, dir.path());
      CHECK(to_file.exit_code == 0);
      CHECK(to_file.out.empty());
      CHECK(tl::test::ReadText(dir.path() / "out.txt") == to_stdout.out);
      args.back() = "no/such/folder/out.txt";
      const auto failed = RunTorchlint(args, dir.path());
      CHECK(failed.exit_code == 2);
      CHECK(failed.out.empty());
      CHECK(failed.err.find("cannot write no/such/folder/out.txt") != std::string::npos);
      // One error line (a `note:` about the PyTorch version may precede it).
      const size_t error_at = failed.err.find("error: ");
      CHECK(failed.err.find("error: ", error_at + 1) == std::string::npos);
      CHECK(failed.err.find('\n', error_at) == failed.err.size() - 1);
    }
  }
}
