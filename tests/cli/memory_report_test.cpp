// `--memory SNAPSHOT` end to end, through the built binary: the snapshot's analysis in the memory section
// of `report` (Markdown, JSON, HTML, English and Chinese) and of `trace`, TL103's verdict in `check
// --trace --memory` carrying the snapshot's counts, and a bad or hostile snapshot as a one-line error
// with exit status 2. A small trace and snapshot written here give known figures; the real snapshot of
// the shared traces gives real ones.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "tests/support/english_runs.h"
#include "tests/support/snapshot_pickles.h"

namespace tl::test {
namespace {

// A CUDA training loop that empties the cache on every step (line 11).
constexpr std::string_view kScript = R"py(import torch
from torch.utils.data import DataLoader


def train(model, dataset, optimizer):
    model = model.cuda()
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True, persistent_workers=True)
    for x, y in loader:
        model(x.cuda(non_blocking=True)).sum().backward()
        optimizer.step()
        torch.cuda.empty_cache()
)py";

std::string Ev(std::string_view cat, std::string_view name, int64_t ts, int64_t dur) {
  const bool gpu = cat == "gpu_memcpy";
  return fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {}}})", cat, name,
      gpu ? 0 : 1, gpu ? 7 : 1, ts, dur, gpu ? R"({"device": 0, "stream": 7, "correlation": 1})" : "{}");
}

// Two analysed 1 ms steps (and a short last one) of the script's loop, without stacks: its DataLoader,
// backward and optimizer step tie the trace to it by op names; a cudaFree (40 µs) and a cudaMalloc (20 µs)
// in each step.
std::string Trace() {
  std::vector<std::string> ev;
  for (int s = 0; s < 3; ++s) {
    const int64_t b = s * 1000;
    ev.push_back(Ev("user_annotation", fmt::format("ProfilerStep#{}", s), b, s == 2 ? 10 : 1000));
    if (s == 2) break;
    ev.push_back(Ev("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", b + 1, 5));
    ev.push_back(Ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", b + 20, 10));
    ev.push_back(Ev("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", b + 100, 50));
    ev.push_back(Ev("user_annotation", "Optimizer.step#SGD.step", b + 200, 50));
    ev.push_back(Ev("cuda_runtime", "cudaFree", b + 500, 40));
    ev.push_back(Ev("cuda_runtime", "cudaMalloc", b + 600, 20));
  }
  std::string out = R"({"schemaVersion": 1, "traceEvents": [)";
  for (size_t i = 0; i < ev.size(); ++i) out += (i ? ",\n" : "\n") + ev[i];
  return out + "\n]}";
}

struct Folder {
  TempFolder dir;
  Folder() {
    dir.Write("train.py", std::string(kScript));
    dir.Write("trace.json", Trace());
    dir.Write("snap.pickle", SmallSnapshot({.script = "/home/u/train.py"}));
  }
};

// The text between `from` and the next `to` in `text` (empty when `from` is absent).
std::string Between(const std::string& text, std::string_view from, std::string_view to) {
  const size_t begin = text.find(from);
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find(to, begin + from.size()) - begin);
}

TEST_CASE("report --memory: the snapshot in the memory section of the Markdown, JSON and HTML reports") {
  Folder f;
  const std::vector<std::string> base = {"report",   "train.py",    "--trace",  "trace.json",
                                         "--memory", "snap.pickle", "--select", "TL103"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const RunResult md = RunTorchlint(base, f.dir.path());
  INFO(md.Transcript());
  REQUIRE(md.exit_code == 0);
  const std::string memory = Between(md.out, "## Memory", "## Bottleneck diagnosis");
  CHECK(memory.find("- Memory snapshot: snap.pickle") != std::string::npos);
  CHECK(memory.find("### Snapshot of device 0") != std::string::npos);
  CHECK(memory.find("- Allocated at the snapshot: 4.0 KiB") != std::string::npos);
  CHECK(memory.find("- Peak allocated over the recorded history: 5.0 KiB") != std::string::npos);
  CHECK(memory.find("empty_cache churn: 1 segments freed (2.0 KiB) and 1 allocated again") != std::string::npos);
  CHECK(memory.find("| 4.0 KiB | `train.py:7 (step)` |") != std::string::npos);
  // TL103 is confirmed on the trace's time, with the snapshot's counts beside it.
  CHECK(md.out.find("| confirmed | 0.06 ms |") != std::string::npos);
  CHECK(md.out.find("from the memory snapshot: its history frees 1 segments") != std::string::npos);

  const RunResult json = RunTorchlint(with({"--format", "json"}), f.dir.path());
  REQUIRE(json.exit_code == 0);
  const auto j = nlohmann::json::parse(json.out);
  REQUIRE(j.contains("memory_snapshot"));
  const auto& device = j["memory_snapshot"]["devices"][0];
  CHECK(device["allocated_bytes"] == 4096);
  CHECK(device["reserved_bytes"] == 8192 + 2048);
  CHECK(device["history"]["segment_frees"] == 1);
  CHECK(device["history"]["segment_freed_bytes"] == 2048);
  CHECK(device["history"]["segment_reallocs"] == 1);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0]["code"] == "TL103");
  CHECK(j["findings"][0]["evidence"]["verdict"] == "confirmed");

  const RunResult html = RunTorchlint(with({"--format", "html", "-o", "report.html"}), f.dir.path());
  REQUIRE(html.exit_code == 0);
  const std::string page = ReadText(f.dir.path() / "report.html");
  const std::string section = Between(page, "<section id=\"memory\">", "</section>");
  CHECK(section.find("Snapshot of device 0") != std::string::npos);
  CHECK(section.find("<svg class=\"chart snapshot\"") != std::string::npos);
  CHECK(section.find("<svg class=\"chart blocks\"") != std::string::npos);
  CHECK(section.find("<table class=\"sites\">") != std::string::npos);
  CHECK(section.find("<strong>empty_cache churn: 1 segments freed") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);

  // Without --memory the section holds none of it.
  const RunResult plain = RunTorchlint({"report", "train.py", "--trace", "trace.json"}, f.dir.path());
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("Memory snapshot") == std::string::npos);
}

TEST_CASE("report --memory --lang zh and trace --memory: the same content, in Chinese and in the trace report") {
  Folder f;
  for (const char* format : {"markdown", "html"}) {
    CAPTURE(format);
    const RunResult zh = RunTorchlint(
        {"report", "train.py", "--trace", "trace.json", "--memory", "snap.pickle", "--lang", "zh", "--format", format},
        f.dir.path());
    REQUIRE(zh.exit_code == 0);
    CHECK(zh.out.find("设备 0 的快照") != std::string::npos);
    CHECK(zh.out.find("empty_cache 抖动：释放了 1 个段（2.0 KiB）后又重新分配了 1 个段") != std::string::npos);
    const Markup markup = std::string_view(format) == "html" ? Markup::kHtml : Markup::kMarkdown;
    for (const std::string& run : EnglishRuns(zh.out, markup)) FAIL_CHECK("English in stdout: " << run);
  }
  const RunResult trace = RunTorchlint({"trace", "trace.json", "--format", "markdown", "--memory", "snap.pickle"},
                                       f.dir.path());
  REQUIRE(trace.exit_code == 0);
  CHECK(Between(trace.out, "## Memory", "## Bottleneck").find("### Snapshot of device 0") != std::string::npos);
  const RunResult trace_json = RunTorchlint({"trace", "trace.json", "--format", "json", "--memory", "snap.pickle"},
                                            f.dir.path());
  REQUIRE(trace_json.exit_code == 0);
  CHECK(nlohmann::json::parse(trace_json.out)["memory_snapshot"]["devices"][0]["peak_allocated_bytes"] == 5096);
}

TEST_CASE("check --trace --memory: TL103's evidence carries the snapshot; --memory alone is a usage error") {
  Folder f;
  const RunResult check = RunTorchlint({"check", "train.py", "--trace", "trace.json", "--memory", "snap.pickle",
                                        "--select", "TL103", "--output-format", "json"},
                                       f.dir.path());
  INFO(check.Transcript());
  CHECK(check.exit_code == 1);
  const auto j = nlohmann::json::parse(check.out);
  REQUIRE(j.size() == 1);
  CHECK(j[0]["evidence"]["verdict"] == "confirmed");
  CHECK(j[0]["evidence"]["summary"].get<std::string>().find("allocates 1 again after") != std::string::npos);
  const RunResult alone = RunTorchlint({"check", "train.py", "--memory", "snap.pickle"}, f.dir.path());
  CHECK(alone.exit_code == 2);
  CHECK(alone.err.find("--memory needs --trace") != std::string::npos);
}

TEST_CASE("a hostile or broken snapshot through --memory: one line, exit 2, nothing run") {
  Folder f;
  f.dir.Write("evil.pickle", "cos\nsystem\n(S'touch PWNED'\ntR.");
  f.dir.Write("list.pickle", std::string("\x80\x04]\x94.", 5));  // plain data, not a snapshot
  for (const char* bad : {"evil.pickle", "list.pickle", "missing.pickle"}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"report", "train.py", "--trace", "trace.json", "--memory", bad},
          {"check", "train.py", "--trace", "trace.json", "--memory", bad},
          {"trace", "trace.json", "--memory", bad}}) {
      CAPTURE(fmt::format("torchlint {}", fmt::join(args, " ")));
      const RunResult r = RunTorchlint(args, f.dir.path());
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
      CHECK(r.err.find(bad) != std::string::npos);
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
  }
  const RunResult evil = RunTorchlint({"report", "train.py", "--trace", "trace.json", "--memory", "evil.pickle"},
                                      f.dir.path());
  CHECK(evil.err.find("GLOBAL") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(f.dir.path() / "PWNED"));
}

TEST_CASE("trace --memory: a hostile file name in the snapshot's frames stays text in HTML and one cell in Markdown") {
  TempFolder dir;
  dir.Write("trace.json", Trace());
  dir.Write("odd.pickle", SmallSnapshot({.script = "x<script>|`b`.py"}));
  const RunResult html = RunTorchlint({"trace", "trace.json", "--memory", "odd.pickle", "--format", "html"},
                                      dir.path());
  REQUIRE(html.exit_code == 0);
  CHECK(html.out.find("<script") == std::string::npos);
  CHECK(html.out.find("x&lt;script&gt;|`b`.py:7 (step)") != std::string::npos);
  const RunResult md = RunTorchlint({"trace", "trace.json", "--memory", "odd.pickle", "--format", "markdown"},
                                    dir.path());
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.find("| 4.0 KiB | `x<script>  b .py:7 (step)` |") != std::string::npos);
}

TEST_CASE("report --memory with the real snapshot: its figures in the Markdown and JSON reports") {
  const auto shared = FindSharedMemoryInputs();
  if (!shared) return;
  TempFolder dir;
  const std::vector<std::string> args = {"report",   shared->script.string(),  "--trace", shared->trace.string(),
                                         "--memory", shared->snapshot.string()};
  const RunResult md = RunTorchlint(args, dir.path());
  REQUIRE(md.exit_code == 0);
  const std::string memory = Between(md.out, "## Memory", "## Bottleneck diagnosis");
  CHECK(memory.find("- Allocated at the snapshot: 1.28 GiB") != std::string::npos);
  CHECK(memory.find("- Reserved at the snapshot: 13.21 GiB") != std::string::npos);
  CHECK(memory.find("- Peak allocated over the recorded history: 12.97 GiB") != std::string::npos);
  CHECK(memory.find("reserved but not allocated: 11.92 GiB (90.3%)") != std::string::npos);
  CHECK(memory.find("| 312.5 MiB | `model.py:39 (forward)` |") != std::string::npos);
  CHECK(memory.find("empty_cache churn") == std::string::npos);  // no segment was freed
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const RunResult json = RunTorchlint(json_args, dir.path());
  REQUIRE(json.exit_code == 0);
  const auto d = nlohmann::json::parse(json.out)["memory_snapshot"]["devices"][0];
  CHECK(d["allocated_bytes"] == 1377753600);
  CHECK(d["reserved_bytes"] == 14180941824);
  CHECK(d["peak_allocated_bytes"] == 13927832064);
  CHECK(d["history"]["events"] == 5163);
  CHECK(d["history"]["segment_frees"] == 0);
}

}  // namespace
}  // namespace tl::test
