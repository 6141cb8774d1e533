// `trace diff`: the before/after comparison on real pairs of traces (the ResNet50 DataLoader A/B pair of
// the kineto samples, figures from ../shared/traces/real/INVENTORY.md; an nsys before/after pair) and
// on a trace compared with itself.
#include <doctest/doctest.h>

#include <string>

#include "report/diff_report.h"
#include "tests/support/paths.h"
#include "traceio/analyses/diff.h"
#include "traceio/trace_set.h"

namespace tl::trace {
namespace {

const FigureChange& Figure(const TraceDiff& d, const std::string& metric) {
  for (const auto& f : d.figures) {
    if (f.metric == metric) return f;
  }
  FAIL("no figure " << metric);
  static FigureChange none;
  return none;
}

TEST_CASE("the ResNet50 pair: four DataLoader workers make the step 1.25x faster, and the diff says why") {
  auto before = test::SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  auto after = test::SharedTrace(
      "real/kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz");
  if (!before || !after) return;
  const TraceSet b = LoadTraceSet(before->string());
  const TraceSet a = LoadTraceSet(after->string());
  REQUIRE(b.any_readable());
  REQUIRE(a.any_readable());
  const auto& rb = b.ranks.at(0);
  const auto& ra = a.ranks.at(0);
  const TraceDiff d = CompareTraces(*rb.read.trace, *rb.analysis, *ra.read.trace, *ra.analysis, 5);
  // The analyses' own step times; INVENTORY measured 174.89 and 139.75 ms without extending each step to
  // the end of the GPU work it launched, which adds about 5 ms here.
  CHECK(d.step_ms_before == rb.analysis->steps.mean_ms());
  CHECK(d.step_ms_after == ra.analysis->steps.mean_ms());
  CHECK(d.step_ms_before == doctest::Approx(174.89).epsilon(0.04));
  CHECK(d.step_ms_after == doctest::Approx(139.75).epsilon(0.04));
  CHECK(d.speedup() == doctest::Approx(1.25).epsilon(0.02));
  // DataLoader 39.6% -> 1.0% of the step; GPU busy 56.0% -> 72.4%.
  CHECK(Figure(d, "dataloader.share").before == doctest::Approx(0.396).epsilon(0.03));
  CHECK(Figure(d, "dataloader.share").after < 0.02);
  CHECK(Figure(d, "gpu_busy.share").delta() == doctest::Approx(0.164).epsilon(0.05));
  CHECK(Figure(d, "step_ms").before == d.step_ms_before);
  REQUIRE(d.kernels.size() == 5);
  for (size_t i = 1; i < d.kernels.size(); ++i) {
    CHECK(std::abs(d.kernels[i - 1].delta_ms()) >= std::abs(d.kernels[i].delta_ms()));
  }
  CHECK_FALSE(d.ops.empty());
  CHECK(d.notes.empty());  // both mark ProfilerSteps
  const std::string text = RenderDiff(d, ReportFormat::kText, Language::kEnglish);
  CHECK(text.find("1.25x faster") != std::string::npos);
  const std::string zh = RenderDiff(d, ReportFormat::kMarkdown, Language::kChinese);
  CHECK(zh.find("修改前后对比") != std::string::npos);
  const auto j = DiffToJson(d);
  CHECK(j["step_ms"]["speedup"].get<double>() == doctest::Approx(d.speedup()));
  CHECK(j["kernels"].size() == 5);
}

TEST_CASE("a trace compared with itself changes nothing") {
  auto file = test::SharedTrace("nsys/nsys-ai_mock.sqlite");
  if (!file) return;
  const TraceSet s = LoadTraceSet(file->string());
  REQUIRE(s.any_readable());
  const auto& r = s.ranks.at(0);
  const TraceDiff d = CompareTraces(*r.read.trace, *r.analysis, *r.read.trace, *r.analysis);
  CHECK(d.speedup() == doctest::Approx(1.0));
  for (const auto& f : d.figures) {
    INFO(f.metric);
    CHECK(f.delta() == doctest::Approx(0.0));
  }
  for (const auto& k : d.kernels) CHECK(k.delta_ms() == doctest::Approx(0.0));
  // No step markers: the note says the comparison is of whole captures.
  REQUIRE_FALSE(d.notes.empty());
  CHECK(d.notes.back().en.find("no step markers") != std::string::npos);
}

TEST_CASE("an nsys before/after pair compares like a Kineto one") {
  auto before = test::SharedTrace("nsys/nsys-ai_mfu_2gpu_before.sqlite");
  auto after = test::SharedTrace("nsys/nsys-ai_mfu_2gpu_after.sqlite");
  if (!before || !after) return;
  const TraceSet b = LoadTraceSet(before->string());
  const TraceSet a = LoadTraceSet(after->string());
  const TraceDiff d = CompareTraces(*b.ranks.at(0).read.trace, *b.ranks.at(0).analysis, *a.ranks.at(0).read.trace,
                                    *a.ranks.at(0).analysis);
  // 4,010 -> 3,587 kernels in all; the flash-attention forward kernel changes most (fewer calls in the window).
  REQUIRE_FALSE(d.kernels.empty());
  CHECK(d.kernels[0].name.find("flash_fwd_kernel") != std::string::npos);
  CHECK(d.kernels[0].before_calls > d.kernels[0].after_calls);
}

}  // namespace
}  // namespace tl::trace
