// The HTML report (report/html_report.h): a hostile op name is escaped and made valid UTF-8, the zh page
// carries the profiler guide's Chinese section titles, a CPU-only trace gets a note instead of GPU
// charts, and no page refers to anything outside itself.
#include <doctest/doctest.h>

#include <string>

#include "report/html_report.h"
#include "report/trace_report.h"
#include "tests/traceio/helpers.h"

using namespace tl::trace;
using namespace tl::trace::testing;

namespace {

std::string GpuTraceJson(const std::string& op_name) {
  std::vector<std::string> ev;
  for (int s = 0; s < 3; ++s) {
    const int base = s * 1000;
    ev.push_back(X("user_annotation", fmt::format("ProfilerStep#{}", s), std::to_string(base), "1000"));
    ev.push_back(X("cpu_op", op_name, std::to_string(base), "8"));
    ev.push_back(X("cuda_runtime", "cudaLaunchKernel", std::to_string(base + 1), "5", "1", "1",
                   fmt::format(R"({{"correlation": {}}})", 10 + s)));
    ev.push_back(X("kernel", "sm80_xmma_gemm_f16f16", std::to_string(base + 10), "250", "0", "7",
                   fmt::format(R"({{"device": 0, "stream": 7, "correlation": {}}})", 10 + s)));
  }
  return TraceJson(ev);
}

std::string Html(const std::string& json, Language lang) {
  auto r = ReadString(json);
  REQUIRE(r.trace);
  auto a = Analyze(*r.trace);
  return RenderHtmlReport(BuildReport(*r.trace, a, lang), a);
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("html report: a hostile op name is escaped and its invalid UTF-8 replaced") {
  // \xff is not UTF-8; the JSON escape \" puts quotes in the name.
  const std::string html = Html(GpuTraceJson(R"(<script>alert(\"x\")</script>&\u00ff)"), Language::kEnglish);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;") != std::string::npos);
  CHECK(HtmlEscape("a\xff<b>'") == "a?&lt;b&gt;&#39;");
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
}

TEST_CASE("html report: GPU charts and the Chinese section titles") {
  const std::string html = Html(GpuTraceJson("aten::mm"), Language::kChinese);
  for (const char* title : {"环境信息", "Top 10 耗时算子", "GPU 利用率概览", "显存分析", "瓶颈诊断", "优化建议"})
    CHECK_MESSAGE(html.find(title) != std::string::npos, title);
  CHECK(html.find("<html lang=\"zh\">") != std::string::npos);
  CHECK(Count(html, "<svg") >= 4);  // ops, busy, idle split, kernels, steps
  CHECK(Count(html, "class=\"chart kernels\"") == 1);
  CHECK(Count(html, "class=\"chart steps\"") == 1);
  CHECK(html.find("@media print") != std::string::npos);
}

TEST_CASE("html report: a trace without GPU gets a note instead of GPU charts") {
  const std::string html = Html(TraceJson({X("cpu_op", "aten::add", "0", "10")}), Language::kEnglish);
  CHECK(html.find("No GPU activity in the trace") != std::string::npos);
  CHECK(html.find("class=\"chart busy\"") == std::string::npos);
  CHECK(html.find("class=\"chart kernels\"") == std::string::npos);
  CHECK(html.find("class=\"chart idle\"") == std::string::npos);
  CHECK(html.find("No memory events in the trace") != std::string::npos);
}

TEST_CASE("html report: memory over time, with the peak marked and reserved dashed") {
  std::vector<std::string> ev = {X("user_annotation", "ProfilerStep#1", "0", "1000")};
  const int64_t allocated[] = {500000000, 1500000000, 2500000000, 700000000};
  for (int i = 0; i < 4; ++i) {
    ev.push_back(fmt::format(
        R"({{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": {}, "args": {{"Total Reserved": 3000000000, "Total Allocated": {}, "Bytes": 1, "Device Id": 0, "Device Type": 1}}}})",
        100 + i * 200, allocated[i]));
  }
  const std::string html = Html(TraceJson(ev), Language::kEnglish);
  CHECK(Count(html, "class=\"chart memtime\"") == 1);
  CHECK(html.find("Memory over time: cuda:0") != std::string::npos);
  CHECK(Count(html, "<path class=\"alloc\"") == 1);
  CHECK(Count(html, "<path class=\"reserved\"") == 1);
  // The peak, 2.5 GB at the third event (0.5 ms after the first event at 0.1 ms; ms from the trace's start).
  CHECK(html.find("peak 2.50 GB at 0.5 ms") != std::string::npos);
  CHECK(html.find("3.00 GB") != std::string::npos);  // the scale's top: the reserved total
  CHECK(html.find("The analyses keep peaks per device") == std::string::npos);
  const std::string zh = Html(TraceJson(ev), Language::kChinese);
  CHECK(zh.find("显存随时间变化：cuda:0") != std::string::npos);
  CHECK(zh.find("峰值 2.50 GB（0.5 ms）") != std::string::npos);
}

TEST_CASE("html report: a bar's value that would run past the chart is drawn inside the bar") {
  // One bar at full width with a long value text: outside, it would end past the 800px edge.
  const std::string html = Html(GpuTraceJson("aten::mm"), Language::kEnglish);
  const size_t kernels = html.find("class=\"chart kernels\"");
  REQUIRE(kernels != std::string::npos);
  const std::string chart = html.substr(kernels, html.find("</svg>", kernels) - kernels);
  // The largest bar (x 360, width 330) ends at 690; "0.75 ms (3x)" is about 88px wide, so it fits
  // outside; nothing in this chart is drawn inside.
  CHECK(chart.find("class=\"val in\"") == std::string::npos);
  CHECK(chart.find("x=\"694.0\"") != std::string::npos);
  // The memory bar's "1.50 GB / 80.0 GB" style text with a device size runs past the edge.
  std::vector<std::string> ev = {X("user_annotation", "ProfilerStep#1", "0", "1000")};
  ev.push_back(
      R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Total Reserved": 3000000000, "Total Allocated": 1500000000, "Bytes": 1, "Device Id": 0, "Device Type": 1}})");
  std::string json = TraceJson(ev);
  json.insert(
      json.find('{') + 1,
      R"("deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85031714816, "computeMajor": 8, "computeMinor": 0}], )");
  const std::string mem = Html(json, Language::kEnglish);
  const size_t bars = mem.find("class=\"chart memory\"");
  REQUIRE(bars != std::string::npos);
  const std::string memory_chart = mem.substr(bars, mem.find("</svg>", bars) - bars);
  CHECK(memory_chart.find("1.50 GB / 85.0 GB") != std::string::npos);
  CHECK(memory_chart.find("class=\"val in\"") != std::string::npos);
  CHECK(memory_chart.find("text-anchor=\"end\" class=\"val in\"") != std::string::npos);
}
