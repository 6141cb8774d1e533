// The nvtx template's ranges as the cross-check's attribution. A script is instrumented with
// `--template nvtx`; an Nsight Systems export is then written here with SQLite, its NVTX ranges named
// exactly as the instrumented script names them, with a blocking sync inside the range that holds the
// `.item()` line. Without Python frames, the ranges tie the capture to the script and each finding to the
// phase range that holds its line. The negative cases: a sync in another range, a sync too short to
// matter, and the script checked under another name (its ranges never name it).
#include <doctest/doctest.h>
#include <fmt/core.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "crosscheck/crosscheck.h"
#include "linter/core/source_file.h"
#include "linter/instrument/instrument.h"
#include "tests/crosscheck/support.h"
#include "tests/support/temp_db.h"

namespace tl::test {
namespace {

// A CUDA training loop whose `.item()` (line 11) is a logging line of no phase.
constexpr const char* kScript = R"py(import torch


def train(model, loader, optimizer, loss_fn, device):
    model = model.to(device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        print(loss.item())
        optimizer.zero_grad(set_to_none=True)
)py";

struct Range {
  std::string label;  // as the instrumented script writes it
  std::string name;
  int first = 0, last = 0;
};

// The ranges of the instrumented script, in the order they open.
std::vector<Range> RangesOf(const std::string& text) {
  std::vector<Range> out;
  const std::regex label(R"re(tl_nvtx\("((\w+) [^":]+:(\d+)-(\d+))"\))re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), label); it != std::sregex_iterator(); ++it) {
    out.push_back({(*it)[1].str(), (*it)[2].str(), std::stoi((*it)[3].str()), std::stoi((*it)[4].str())});
  }
  return out;
}

// An export of `steps` steps of 30 ms: each step's range, then its phase ranges one after another, a
// kernel launched in the loss range, and a cudaStreamSynchronize of `sync_ns` inside the range named
// `sync_in`.
class Capture {
 public:
  Capture(const std::vector<Range>& ranges, const std::string& sync_in, int64_t sync_ns, int steps = 4)
      : db_(fmt::format("nvtx_ranges_{}_{}", sync_in, sync_ns)) {
    constexpr int64_t kTid = (int64_t{1} << 24) | 1;  // process 1, thread 1
    constexpr int64_t kPid = int64_t{1} << 24;
    constexpr int64_t kStep = 30'000'000;
    std::string sql = std::string(kExportTables) +
                      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, "
                      "'cudaStreamSynchronize_v3020'), (3, 'gemm_kernel');";
    const Range* step = nullptr;
    std::vector<const Range*> phases;
    for (const auto& r : ranges) {
      if (r.name == "train_step") step = &r;
      else phases.push_back(&r);
    }
    REQUIRE(step != nullptr);
    REQUIRE_FALSE(phases.empty());
    int64_t correlation = 1;
    for (int s = 0; s < steps; ++s) {
      const int64_t begin = 1'000'000 + s * kStep;
      sql += fmt::format("INSERT INTO NVTX_EVENTS VALUES ({}, {}, 59, '{}', {}, NULL, 0);", begin, begin + kStep - 1000,
                         step->label, kTid);
      const int64_t slot = (kStep - 2000) / static_cast<int64_t>(phases.size());
      for (size_t p = 0; p < phases.size(); ++p) {
        const int64_t start = begin + 500 + static_cast<int64_t>(p) * slot, end = start + slot - 500;
        sql += fmt::format("INSERT INTO NVTX_EVENTS VALUES ({}, {}, 59, '{}', {}, NULL, 0);", start, end,
                           phases[p]->label, kTid);
        if (phases[p]->name == "loss_compute") {
          sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ({}, {}, {}, {}, 1);", start + 10,
                             start + 20, kTid, correlation);
          sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({}, {}, 0, 7, {}, {}, 3);", start + 30,
                             start + slot / 2, correlation, kPid);
          ++correlation;
        }
        if (phases[p]->name == sync_in) {
          sql += fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ({}, {}, {}, {}, 2);", start + 100,
                             start + 100 + sync_ns, kTid, correlation++);
        }
      }
    }
    db_.Exec(sql);
  }
  const std::string& path() const { return db_.path(); }

 private:
  TempDb db_;
};

struct Instrumented {
  std::string text;
  std::vector<Range> ranges;
  int item_line = 0;  // the `.item()` line in the instrumented script
};

Instrumented Instrument() {
  instrument::Options options;
  REQUIRE(instrument::ParseTemplate("nvtx", options).ok());
  auto outcome = instrument::Instrument(SourceFile("train.py", kScript), options);
  REQUIRE(outcome.ok());
  Instrumented out{outcome->text, RangesOf(outcome->text), 0};
  int line = 1;
  for (size_t i = 0; i < out.text.size(); ++i) {
    if (out.text.compare(i, 18, "print(loss.item())") == 0) out.item_line = line;
    if (out.text[i] == '\n') ++line;
  }
  REQUIRE(out.item_line > 0);
  return out;
}

const Diagnostic& ItemFinding(const Checked& checked, int line) {
  const Diagnostic* d = checked.Find("TL101", line);
  REQUIRE(d != nullptr);
  REQUIRE(d->evidence.has_value());
  return *d;
}

}  // namespace

TEST_CASE("the nvtx template gives the .item() line a range of its own, which holds the line") {
  const Instrumented in = Instrument();
  bool held = false;
  for (const auto& r : in.ranges) {
    if (r.name == "other" && r.first <= in.item_line && in.item_line <= r.last) held = true;
  }
  CHECK(held);
  CHECK(in.ranges.front().name == "train_step");
  CHECK(in.ranges.size() >= 5);  // the step, data, forward/loss, backward, optimizer, other
}

TEST_CASE("an nsys capture with the template's ranges confirms the .item() by the syncs in its range") {
  const Instrumented in = Instrument();
  const Capture capture(in.ranges, "other", 2'000'000);
  auto cc = CrossCheck::Load(capture.path());
  REQUIRE(cc.ok());
  const Checked checked = CheckAgainst("train.py", in.text, *cc);
  CHECK(checked.script.trace_is_its);
  const Evidence& e = *ItemFinding(checked, in.item_line).evidence;
  CAPTURE(e.summary);
  CHECK(e.verdict == Verdict::kConfirmed);
  CHECK(e.per_step_count == doctest::Approx(1.0));
  CHECK(e.cost_ms_per_step == doctest::Approx(2.0).epsilon(0.01));
  CHECK(e.summary.find("other train.py:") != std::string::npos);
}

TEST_CASE("a sync in another phase's range is not the .item() line's: refuted") {
  const Instrumented in = Instrument();
  const Capture capture(in.ranges, "backward", 2'000'000);
  auto cc = CrossCheck::Load(capture.path());
  REQUIRE(cc.ok());
  const Checked checked = CheckAgainst("train.py", in.text, *cc);
  const Evidence& e = *ItemFinding(checked, in.item_line).evidence;
  CAPTURE(e.summary);
  CHECK(e.verdict == Verdict::kRefuted);
}

TEST_CASE("a sync of 20 us in a 30 ms step is too small to matter: negligible") {
  const Instrumented in = Instrument();
  const Capture capture(in.ranges, "other", 20'000);
  auto cc = CrossCheck::Load(capture.path());
  REQUIRE(cc.ok());
  const Checked checked = CheckAgainst("train.py", in.text, *cc);
  const Evidence& e = *ItemFinding(checked, in.item_line).evidence;
  CAPTURE(e.summary);
  CHECK(e.verdict == Verdict::kNegligible);
}

TEST_CASE("the capture's ranges name train.py, so another script checked against it is unverifiable") {
  const Instrumented in = Instrument();
  const Capture capture(in.ranges, "other", 2'000'000);
  auto cc = CrossCheck::Load(capture.path());
  REQUIRE(cc.ok());
  const Checked checked = CheckAgainst("evaluate.py", in.text, *cc);
  CHECK_FALSE(checked.script.trace_is_its);
  const Evidence& e = *ItemFinding(checked, in.item_line).evidence;
  CAPTURE(e.summary);
  CHECK(e.verdict == Verdict::kUnverifiable);
  CHECK(e.summary.find("source ranges") != std::string::npos);
}

}  // namespace tl::test
