// The promise behind `--fail-on confirmed`: a confirmed verdict is one the trace backs. These are the
// negative cases that break it when the cross-check is careless: a trace recorded from another script
// (with and without Python frames), a trace cut before its GPU events, two scripts (or two findings)
// explaining the same events, and costs on both sides of the materiality threshold.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/crosscheck/support.h"

namespace tl::test {
namespace {

const std::string kItemScript = ItemScript(/*set_to_none=*/true);
constexpr const char* kOwl = "real/TraceLens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz";
constexpr const char* kT4 = "real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json";
constexpr const char* kControl = "real/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz";

// ----- is this the script's trace? -----

TEST_CASE("another script's trace with Python frames: nothing is confirmed, the gate passes, and says why") {
  // Our workers0.py against the trace of pin_memory.py: both are CPU runs with CallFrom frames.
  auto cc = LoadTrace(E2eTrace("pin_memory.pt.trace.json.gz"));
  REQUIRE(cc);
  Checked c = CheckAgainst(E2eScriptPath("workers0.py"), E2eScript("workers0.py"), *cc);
  REQUIRE(c.Count("TL201") == 1);
  CHECK_FALSE(c.script.trace_is_its);
  for (const auto& d : c.diagnostics) {
    REQUIRE(d.evidence);
    CHECK(d.evidence->verdict == Verdict::kUnverifiable);
    CHECK(d.evidence->summary.find("this trace was not recorded from tests/e2e/scripts/workers0.py") !=
          std::string::npos);
    CHECK(d.evidence->summary.find("pin_memory.py") != std::string::npos);  // what the frames do name
    CHECK(d.evidence->saved_ms_per_step == 0.0);
  }
  // The same script against its own trace is confirmed: the provenance check is not what says no above.
  auto own = LoadTrace(E2eTrace("workers0.pt.trace.json.gz"));
  REQUIRE(own);
  Checked mine = CheckAgainst(E2eScriptPath("workers0.py"), E2eScript("workers0.py"), *own);
  CHECK(mine.script.trace_is_its);
  REQUIRE(mine.Find("TL201", 55) != nullptr);
  CHECK(mine.Find("TL201", 55)->evidence->verdict == Verdict::kConfirmed);

  // As CI runs it: exit 0 against the other script's trace, 1 against its own.
  TempFolder dir;
  dir.Write("workers0.py", E2eScript("workers0.py"));
  RunResult other = RunTorchlint(
      {"check", "workers0.py", "--trace", E2eTrace("pin_memory.pt.trace.json.gz").string(), "--fail-on", "confirmed"},
      dir.path());
  CHECK(other.exit_code == 0);
  CHECK(other.out.find("= trace: unverifiable") != std::string::npos);
  RunResult self = RunTorchlint(
      {"check", "workers0.py", "--trace", E2eTrace("workers0.pt.trace.json.gz").string(), "--fail-on", "confirmed"},
      dir.path());
  CHECK(self.exit_code == 1);
}

TEST_CASE("a GPU trace of another program (H100 OWLv2 inference, with_stack): TL1 is not confirmed by its syncs") {
  auto trace = SharedTrace(kOwl);
  if (!trace) return;
  auto cc = LoadTrace(*trace);
  REQUIRE(cc);
  // The trace has 82 syncs per step from pageable copies; our script's .item() is not among its frames.
  Checked c = CheckAgainst("train.py", kItemScript, *cc);
  const Diagnostic* d = &FindWithEvidence(c, "TL101", 13);
  CHECK(d->evidence->verdict == Verdict::kUnverifiable);
  CHECK(d->evidence->summary.find("this trace was not recorded from train.py") != std::string::npos);
  TempFolder dir;
  dir.Write("train.py", kItemScript);
  RunResult r = RunTorchlint(
      {"check", "train.py", "--trace", trace->string(), "--select", "TL1", "--fail-on", "confirmed"}, dir.path());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("confirmed:") == std::string::npos);
}

TEST_CASE("a trace without Python frames whose ops contradict the script is not its trace") {
  auto trace = SharedTrace(kControl);
  if (!trace) return;
  auto cc = LoadTrace(*trace);
  REQUIRE(cc);
  // The control trace's optimizer is FusedAdam; this script builds SGD and labels its step.
  const std::string script = R"py(import torch
from torch.profiler import record_function


def train(model, loader, loss_fn):
    model = model.cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        with record_function("my_step"):
            loss = loss_fn(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(loss.item())
)py";
  Checked c = CheckAgainst("sgd_train.py", script, *cc);
  const Diagnostic* d = &FindWithEvidence(c, "TL101", 14);
  CHECK(d->evidence->verdict == Verdict::kUnverifiable);
  CHECK(d->evidence->summary.find("no Python frames") != std::string::npos);
  CHECK(d->evidence->summary.find("`SGD`") != std::string::npos);
  // The item script, whose loop matches the trace's ops, is tied to it by op names.
  Checked tied = CheckAgainst("ddp_train.py", kItemScript, *cc);
  CHECK(tied.script.trace_is_its);
  const Diagnostic* item = tied.Find("TL101", 13);
  REQUIRE(item != nullptr);
  CHECK(item->evidence->verdict == Verdict::kConfirmed);
  CHECK(item->evidence->summary.find("its steps show the script's") != std::string::npos);
}

TEST_CASE("a script whose step loop shows nothing by op name is not tied to a frameless trace") {
  auto trace = SharedTrace(kControl);
  if (!trace) return;
  auto cc = LoadTrace(*trace);
  REQUIRE(cc);
  // No loop at all: a module-level .cuda() model and a DataLoader that is never iterated here.
  Checked c = CheckAgainst("build.py",
                           "import torch\nfrom torch.utils.data import DataLoader\n"
                           "model = torch.nn.Linear(4, 4).cuda()\nloader = DataLoader(range(8))\n",
                           *cc);
  REQUIRE(c.Count("TL201") == 1);
  for (const auto& d : c.diagnostics) {
    REQUIRE(d.evidence);
    CHECK(d.evidence->verdict == Verdict::kUnverifiable);
    CHECK(d.evidence->summary.find("shows nothing that op names could match") != std::string::npos);
  }
}

// ----- a trace cut before its GPU events -----

TEST_CASE("a GPU trace cut before its first kernel: GPU verdicts unverifiable, host verdicts still measured") {
  auto trace = SharedTrace(kT4);
  if (!trace) return;
  const std::string text = ReadText(*trace);
  const size_t first_kernel = text.find("\"cat\": \"kernel\"");
  REQUIRE(first_kernel != std::string::npos);
  REQUIRE(text.find("\"cat\": \"cuda_runtime\"") > first_kernel);  // the cut keeps no CUDA event at all
  TempFolder dir;
  const auto cut = dir.Write("cut.pt.trace.json", std::string_view(text).substr(0, first_kernel - 4096));
  auto cc = LoadTrace(cut);
  REQUIRE(cc);
  const auto warnings = cc->Warnings();
  REQUIRE_FALSE(warnings.empty());
  Checked c = CheckAgainst("t4_train.py", kItemScript, *cc);
  const Diagnostic* d = &FindWithEvidence(c, "TL101", 13);
  CHECK(d->evidence->verdict == Verdict::kUnverifiable);
  CHECK(d->evidence->summary.find("the GPU side is unknown") != std::string::npos);
  CHECK(d->evidence->summary.find("no device") == std::string::npos);  // no "CPU-only run" conclusion
  // The whole trace: the same line is measured (refuted: its .item() calls never sync on the T4).
  auto whole = LoadTrace(*trace);
  REQUIRE(whole);
  Checked full = CheckAgainst("t4_train.py", kItemScript, *whole);
  CHECK(full.Find("TL101", 13)->evidence->verdict == Verdict::kRefuted);
}

// ----- each cost counted once -----

TEST_CASE("two scripts, one trace: the DataLoader's time is shared, and the savings stay within the step") {
  TempFolder dir;
  dir.Write("a/workers0.py", E2eScript("workers0.py"));
  dir.Write("b/workers0.py", E2eScript("workers0.py"));
  const std::string trace = E2eTrace("workers0.pt.trace.json.gz").string();
  RunResult one = RunTorchlint({"report", "a/workers0.py", "--trace", trace, "--format", "json"}, dir.path());
  RunResult two = RunTorchlint({"report", "a/workers0.py", "b/workers0.py", "--trace", trace, "--format", "json"},
                               dir.path());
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  const auto j1 = nlohmann::json::parse(one.out);
  const auto j2 = nlohmann::json::parse(two.out);
  double alone = 0.0, cost_alone = 0.0;
  for (const auto& f : j1["findings"]) {
    if (f["code"] == "TL201") {
      alone = f["evidence"]["saved_ms_per_step"].get<double>();
      cost_alone = f["evidence"]["cost_ms_per_step"].get<double>();
    }
  }
  REQUIRE(alone > 0.0);
  double saved = 0.0, cost = 0.0, step = 0.0;
  int loaders = 0;
  for (const auto& f : j2["findings"]) {
    const auto& e = f["evidence"];
    step = e["step_ms"].get<double>();
    if (e["verdict"] == "confirmed") saved += e["saved_ms_per_step"].get<double>();
    if (f["code"] != "TL201") continue;
    ++loaders;
    cost += e["cost_ms_per_step"].get<double>();
    CHECK(e["verdict"] == "confirmed");
    CHECK(e["shared_with"].get<std::string>().find("also explained by TL201 at") != std::string::npos);
  }
  for (const auto& f : j2["trace_findings"]) saved += f["saved_ms_per_step"].get<double>();
  CHECK(loaders == 2);
  // Each keeps half: together they claim what one did alone, and never more than the step.
  CHECK(cost == doctest::Approx(cost_alone).epsilon(0.001));
  CHECK(saved <= step + 1e-9);
  CHECK(saved == doctest::Approx(alone).epsilon(0.001));
}

Evidence Observed(Verdict verdict, double cost_ms, double step_ms, std::vector<EventClaim> claims) {
  Evidence e;
  e.verdict = verdict;
  e.cost_ms_per_step = cost_ms;
  e.saved_ms_per_step = cost_ms;
  e.step_ms = step_ms;
  e.share_of_step = cost_ms / step_ms;
  e.claims = std::move(claims);
  return e;
}

TEST_CASE("materiality: just under the threshold is negligible, just over it is confirmed") {
  Evidence under = Observed(Verdict::kConfirmed, 0.99, 100.0, {});
  ApplyMateriality(under);
  CHECK(under.verdict == Verdict::kNegligible);
  CHECK(under.saved_ms_per_step == 0.0);
  CHECK(under.summary.find("below the 1%") != std::string::npos);
  Evidence over = Observed(Verdict::kConfirmed, 1.01, 100.0, {});
  ApplyMateriality(over);
  CHECK(over.verdict == Verdict::kConfirmed);
  CHECK(over.saved_ms_per_step == doctest::Approx(1.01));
  // Refuted and unverifiable verdicts are left as they are.
  Evidence refuted = Observed(Verdict::kRefuted, 0.0, 100.0, {});
  ApplyMateriality(refuted);
  CHECK(refuted.verdict == Verdict::kRefuted);
  // The gate counts only what stays confirmed.
  Diagnostic d;
  d.evidence = under;
  CHECK_FALSE(CountsForExit(d, FailOn::kConfirmed));
  d.evidence = over;
  CHECK(CountsForExit(d, FailOn::kConfirmed));
}

TEST_CASE("sharing: two findings on the same events split them, and a split below the threshold is negligible") {
  SourceFile a("a.py", "x = 1\n"), b("b.py", "y = 2\n");
  std::vector<RankedFinding> findings(3);
  findings[0] = {&a, {}};
  findings[1] = {&b, {}};
  findings[2] = {&b, {}};
  findings[0].diagnostic.code = "TL101";
  findings[1].diagnostic.code = "TL202";
  findings[2].diagnostic.code = "TL201";
  // 1.6 ms of a 100 ms step on events 1 and 2, claimed by the first two; the third claims event 3 alone.
  findings[0].diagnostic.evidence = Observed(Verdict::kConfirmed, 1.6, 100.0, {{1, 800'000}, {2, 800'000}});
  findings[1].diagnostic.evidence = Observed(Verdict::kConfirmed, 1.6, 100.0, {{1, 800'000}, {2, 800'000}});
  findings[2].diagnostic.evidence = Observed(Verdict::kConfirmed, 2.0, 100.0, {{3, 2'000'000}});
  std::vector<TraceFinding> none;
  SettleCosts(findings, none);
  for (int i : {0, 1}) {
    const Evidence& e = *findings[static_cast<size_t>(i)].diagnostic.evidence;
    CHECK(e.cost_ms_per_step == doctest::Approx(0.8));
    CHECK(e.verdict == Verdict::kNegligible);  // 0.8% after the split
    CHECK_FALSE(e.shared_with.empty());
  }
  CHECK(findings[0].diagnostic.evidence->shared_with.find("TL202 at b.py:1") != std::string::npos);
  CHECK(findings[2].diagnostic.evidence->verdict == Verdict::kConfirmed);
  CHECK(findings[2].diagnostic.evidence->cost_ms_per_step == doctest::Approx(2.0));
  CHECK(findings[2].diagnostic.evidence->shared_with.empty());
}

TEST_CASE("savings that would exceed the step are scaled to fit it") {
  SourceFile a("a.py", "x = 1\n");
  std::vector<RankedFinding> findings(2);
  findings[0] = {&a, {}};
  findings[1] = {&a, {}};
  findings[0].diagnostic.evidence = Observed(Verdict::kConfirmed, 70.0, 100.0, {{1, 1}});
  findings[1].diagnostic.evidence = Observed(Verdict::kConfirmed, 50.0, 100.0, {{2, 1}});
  std::vector<TraceFinding> trace_findings(1);
  trace_findings[0].saved_ms_per_step = 30.0;
  trace_findings[0].step_ms = 100.0;
  SettleCosts(findings, trace_findings);
  const double total = findings[0].diagnostic.evidence->saved_ms_per_step +
                       findings[1].diagnostic.evidence->saved_ms_per_step + trace_findings[0].saved_ms_per_step;
  CHECK(total == doctest::Approx(100.0));
  CHECK(findings[0].diagnostic.evidence->saved_ms_per_step == doctest::Approx(70.0 / 1.5));
}

}  // namespace
}  // namespace tl::test
