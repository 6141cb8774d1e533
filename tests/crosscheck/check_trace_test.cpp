// `torchlint check --trace` and `--fail-on` as a user or CI runs them: the evidence in every output
// format, ranked output, the trace's PyTorch version for version-aware rules, trace-only findings, and
// the exit status of the CI gate (`--select TL1 --fail-on confirmed`).
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "tests/crosscheck/support.h"

namespace tl::test {
namespace {

const std::string kItemScript = ItemScript(/*set_to_none=*/false);

constexpr const char* kControl = "real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz";
constexpr const char* kT4 = "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json";

TEST_CASE("check --select TL1 --fail-on confirmed: exit 1 on the A100 trace whose .item() syncs") {
  auto trace = SharedTrace(kControl);
  if (!trace) return;
  TempFolder dir;
  dir.Write("train.py", kItemScript);
  RunResult r = RunTorchlint(
      {"check", "train.py", "--trace", trace->string(), "--select", "TL1", "--fail-on", "confirmed"}, dir.path());
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("train.py:13:") != std::string::npos);
  CHECK(r.out.find("= trace: confirmed: ") != std::string::npos);
  CHECK(r.out.find("ms/step (") != std::string::npos);
  // TL301 is not selected: it neither prints nor fails.
  CHECK(r.out.find("TL301") == std::string::npos);
  // What the trace alone says is listed after the findings, against the trace file.
  CHECK(r.out.find("trace-communication-bound Communication-bound: ") != std::string::npos);
}

TEST_CASE("check --select TL1 --fail-on confirmed: exit 0 on the T4 trace whose .item() calls never sync") {
  auto trace = SharedTrace(kT4);
  if (!trace) return;
  TempFolder dir;
  dir.Write("train.py", kItemScript);
  RunResult r = RunTorchlint(
      {"check", "train.py", "--trace", trace->string(), "--select", "TL1", "--fail-on", "confirmed"}, dir.path());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("= trace: refuted") != std::string::npos);
  // Without --fail-on the finding still fails the run, as a plain check does.
  RunResult any = RunTorchlint({"check", "train.py", "--trace", trace->string(), "--select", "TL1"}, dir.path());
  CHECK(any.exit_code == 1);
  RunResult none = RunTorchlint({"check", "train.py", "--trace", trace->string(), "--fail-on", "none"}, dir.path());
  CHECK(none.exit_code == 0);
}

TEST_CASE("check --trace --output-format json: an evidence object on every finding, ranked, plus trace-only ones") {
  auto trace = SharedTrace(kControl);
  if (!trace) return;
  TempFolder dir;
  dir.Write("train.py", kItemScript);
  RunResult r = RunTorchlint({"check", "train.py", "--trace", trace->string(), "--output-format", "json"}, dir.path());
  CHECK(r.exit_code == 1);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() >= 2);
  // TL101 (5.97 ms/step blocked: 4 syncing .item() calls a step) ranks before TL301 (the trace has no
  // fill work: refuted).
  CHECK(j[0]["code"] == "TL101");
  const auto& e = j[0]["evidence"];
  CHECK(e["verdict"] == "confirmed");
  CHECK(e["per_step_count"].get<double>() == doctest::Approx(4.0));
  CHECK(e["cost_ms_per_step"].get<double>() > 1.0);
  CHECK(e["cost_ms_per_step"].get<double>() == doctest::Approx(5.97).epsilon(0.01));
  CHECK(e["saved_ms_per_step"].get<double>() == doctest::Approx(e["cost_ms_per_step"].get<double>()));
  CHECK(e["share_of_step"].get<double>() > 0.0);
  CHECK(e["share_of_step"].get<double>() == doctest::Approx(0.078).epsilon(0.02));
  CHECK(e.contains("summary"));
  CHECK(e["summary"].get<std::string>().find("4.0 of 5.0 .item() calls per step") != std::string::npos);
  bool refuted_zero_grad = false, communication = false;
  for (const auto& f : j) {
    if (f["code"] == "TL301") refuted_zero_grad = f["evidence"]["verdict"] == "refuted";
    // Located at the step loop (line 7) of the script the trace is tied to by its op names.
    if (f["code"] == "trace-communication-bound") communication = f["file"] == "train.py" && f["line"] == 7;
  }
  CHECK(refuted_zero_grad);
  CHECK(communication);
}

TEST_CASE("check --trace: sarif carries the evidence in result properties, github in the message") {
  auto trace = SharedTrace(kControl);
  if (!trace) return;
  TempFolder dir;
  dir.Write("train.py", kItemScript);
  RunResult sarif = RunTorchlint(
      {"check", "train.py", "--trace", trace->string(), "--select", "TL1", "--output-format", "sarif"}, dir.path());
  const auto j = nlohmann::json::parse(sarif.out);
  const auto& results = j["runs"][0]["results"];
  REQUIRE(results.size() >= 1);
  CHECK(results[0]["properties"]["evidence"]["verdict"] == "confirmed");
  // The trace-only finding, which no line can be blamed for, is a result of its own.
  bool communication = false;
  for (const auto& result : results) communication = communication || result["ruleId"] == "trace-communication-bound";
  CHECK(communication);
  RunResult github = RunTorchlint(
      {"check", "train.py", "--trace", trace->string(), "--select", "TL1", "--output-format", "github"}, dir.path());
  CHECK(github.out.find("::warning file=train.py,line=13") != std::string::npos);
  CHECK(github.out.find("confirmed: ") != std::string::npos);
  // The trace-only finding is annotated on a file too: the script's step loop, else the trace.
  CHECK(github.out.find("::notice file=") != std::string::npos);
  CHECK(github.out.find(",title=trace-communication-bound::Communication-bound") != std::string::npos);
}

TEST_CASE("check --trace on a PyTorch 1.9 trace: the bare zero_grad() is reported unless --target-torch says 2.x") {
  auto trace = SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  if (!trace) return;
  TempFolder dir;
  dir.Write("resnet50_profiler_api.py", R"py(import torch
from torch.utils.data import DataLoader


def main(model, trainset, optimizer, criterion):
    model = model.cuda()
    loader = DataLoader(trainset, batch_size=32, num_workers=4, pin_memory=True)
    for inputs, labels in loader:
        loss = criterion(model(inputs.cuda()), labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
)py");
  RunResult r = RunTorchlint(
      {"check", "resnet50_profiler_api.py", "--trace", trace->string(), "--output-format", "json"}, dir.path());
  CHECK(r.err.find("target PyTorch 1.9") != std::string::npos);
  const auto j = nlohmann::json::parse(r.out);
  bool zero_grad = false;
  for (const auto& f : j) {
    if (f["code"] == "TL301") {
      zero_grad = true;
      CHECK(f["line"] == 10);
      CHECK(f["evidence"]["verdict"] == "confirmed");
      CHECK(f["evidence"]["cost_ms_per_step"].get<double>() == doctest::Approx(6.0).epsilon(0.15));
    }
  }
  CHECK(zero_grad);
  RunResult pinned = RunTorchlint(
      {"check", "resnet50_profiler_api.py", "--trace", trace->string(), "--target-torch", "2.1", "--select", "TL301"},
      dir.path());
  CHECK(pinned.exit_code == 0);
}

TEST_CASE("check: --fail-on confirmed without --trace, or an unreadable trace, is a usage error") {
  TempFolder dir;
  dir.Write("train.py", kItemScript);
  RunResult no_trace = RunTorchlint({"check", "train.py", "--fail-on", "confirmed"}, dir.path());
  CHECK(no_trace.exit_code == 2);
  CHECK(no_trace.err.find("--trace") != std::string::npos);
  RunResult missing = RunTorchlint({"check", "train.py", "--trace", "nowhere.json"}, dir.path());
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("--trace") != std::string::npos);
}

}  // namespace
}  // namespace tl::test

namespace tl::test {
namespace {

// Each rule's docs say, first, exactly what the issue's "Evidence per rule" list says.
TEST_CASE("each rule's Trace evidence section opens with the issue's wording") {
  const std::vector<std::pair<std::string_view, std::string_view>> expected = {
      {"TL101",
       "## Trace evidence\nThe device syncs under the line, and the CPU time blocked. That means a DtoH copy plus\n"
       "`cudaStreamSynchronize` inside `aten::item`/`_local_scalar_dense`, or sync calls.\n"},
      {"TL201", "## Trace evidence\nThe share of the step spent in `_SingleProcessDataLoaderIter.__next__`.\n"},
      {"TL202", "## Trace evidence\nPageable HtoD copies and their time.\n"},
      {"TL301", "## Trace evidence\nThe `fill_`/`zero_` work under `zero_grad`.\n"},
      {"TL401", "## Trace evidence\nGEMMs with unaligned K or N, their time, and whether tensor-core kernels ran.\n"},
  };
  for (const auto& [code, text] : expected) {
    const std::string_view rule_code = code;  // clang < 16 cannot capture a structured binding in a lambda
    CAPTURE(rule_code);
    const Rule* rule = FindRule(code);
    REQUIRE(rule != nullptr);
    CHECK(rule->Meta().docs.find(text) != std::string_view::npos);
  }
}

TEST_CASE("check --trace --annotate: the findings and their verdicts on the trace's timeline") {
  auto trace = SharedTrace(kControl);
  if (!trace) return;
  TempFolder dir;
  dir.Write("train.py", kItemScript);
  RunResult r = RunTorchlint({"check", "train.py", "--trace", trace->string(), "--annotate", "annotated.json"},
                             dir.path());
  INFO(r.Transcript());
  CHECK(r.exit_code == 1);
  const std::string text = ReadText(dir.path() / "annotated.json");
  REQUIRE(nlohmann::json::accept(text));
  const nlohmann::json events = nlohmann::json::parse(text)["traceEvents"];
  std::vector<nlohmann::json> findings;
  std::vector<nlohmann::json> steps;
  std::map<int64_t, std::string> track_names;
  // The trace's own slices, by (name, ts, dur), to find the events the markers sit on.
  std::set<std::tuple<std::string, double, double>> slices;
  for (const auto& e : events) {
    if (e.value("cat", "") != "torchlint") {
      if (e.value("ph", "") == "X" && e.contains("ts") && e.contains("dur"))
        slices.insert({e.value("name", ""), e["ts"].get<double>(), e["dur"].get<double>()});
      if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name" && e["tid"].is_number())
        track_names[e["tid"].get<int64_t>()] = e["args"].value("name", "");
      continue;
    }
    if (e["tid"].get<int64_t>() >= 5) findings.push_back(e);
    if (e["tid"] == 1) steps.push_back(e);
  }
  REQUIRE(steps.size() == 5);
  size_t item_slices = 0;
  bool trace_only = false;
  for (const auto& f : findings) {
    INFO(f.dump());
    const nlohmann::json& args = f["args"];
    if (args["verdict"] == "trace-only") {
      // A trace-only finding is about the whole loop: it spans the analysed steps.
      CHECK(f["ts"] == steps.front()["ts"]);
      CHECK(f["ts"].get<double>() + f["dur"].get<double>() ==
            doctest::Approx(steps.back()["ts"].get<double>() + steps.back()["dur"].get<double>()));
      trace_only = trace_only || args["code"] == "trace-communication-bound";
      continue;
    }
    if (!args.contains("event")) continue;
    // A script finding's slices sit on the events its cost was measured from, one each.
    CHECK(slices.count({args["event"].get<std::string>(), f["ts"].get<double>(), f["dur"].get<double>()}) == 1);
    if (args["code"] == "TL101" && args["location"] == "train.py:13") {
      CHECK(args["verdict"] == "confirmed");
      CHECK(args["cost_ms_per_step"].get<double>() > 1.0);
      CHECK(track_names[f["tid"].get<int64_t>()].starts_with("TL101 train.py:13 (confirmed)"));
      ++item_slices;
    }
  }
  // Measured on this trace: 5 syncing .item() calls a step over 5 steps.
  CHECK(item_slices >= 25);
  CHECK(trace_only);

  // Without --trace, or with a folder of ranks: a usage error and no file.
  RunResult no_trace = RunTorchlint({"check", "train.py", "--annotate", "a.json"}, dir.path());
  CHECK(no_trace.exit_code == 2);
  RunResult folder = RunTorchlint(
      {"check", "train.py", "--trace", trace->parent_path().string(), "--annotate", "b.json"}, dir.path());
  CHECK(folder.exit_code == 2);
  CHECK(folder.err.find("give one rank's file") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.path() / "a.json"));
  CHECK(!std::filesystem::exists(dir.path() / "b.json"));
}

}  // namespace
}  // namespace tl::test
