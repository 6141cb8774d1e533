// The trace report (TraceReport) as one self-contained HTML page: the profiler guide's sections with
// their titles in English or Chinese, and bar charts drawn here as inline SVG (no script, font or
// stylesheet is fetched; the page opens offline and prints to PDF). Every string that comes from a trace
// or a script is made valid UTF-8 and HTML-escaped, since op and kernel names can be hostile.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/trace_report_model.h"
#include "traceio/analysis.h"

namespace tl::trace {

// One code finding for `torchlint report`, already ranked by the time its fix would save.
struct HtmlFinding {
  std::string code;  // "TL201"
  std::string message;
  std::string path;  // the script, as given
  int line = 0;      // 1-based
  double ms_saved_per_step = 0.0;
  std::string verdict;  // "confirmed", ...
};

// `text` made valid UTF-8 and escaped for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

// The frame every page shares: the doctype, the head with the stylesheet, and <main> opened with the
// title as <h1> and the subtitle under it; HtmlPageEnd closes them. Both texts are escaped here.
std::string HtmlPageStart(Language lang, std::string_view title, std::string_view subtitle);
std::string HtmlPageEnd();

// Two bars a row on one scale, before (grey) over after (blue), with a legend: for comparisons.
struct PairedBar {
  std::string label;
  double before = 0.0;
  double after = 0.0;
  std::string before_text;
  std::string after_text;
};
std::string PairedBars(const std::vector<PairedBar>& rows, Language lang);

// The page; `findings` are listed in their order when not empty.
std::string RenderHtmlReport(const TraceReport& report, const TraceAnalysis& analysis,
                             const std::vector<HtmlFinding>& findings = {});

}  // namespace tl::trace
