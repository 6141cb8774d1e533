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
