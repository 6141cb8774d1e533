// Renders trace analyses for people and programs: the PyTorch profiler guide's report (第四步:
// environment, top 10 ops, GPU utilisation, memory, bottleneck diagnosis, recommendations) as text or
// markdown in English or Chinese, and a JSON object with the documented keys (shares as 0-1 fractions).
// The report is built as data first (BuildReport, trace_report_model.h), then rendered, so that a caller can
// add items to it before rendering. `torchlint trace` and `torchlint report` both render through here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/trace_report_model.h"
#include "traceio/analysis.h"
#include "traceio/store.h"
#include "traceio/trace_set.h"

namespace tl::trace {

struct ReportOptions {
  ReportFormat format = ReportFormat::kText;
  Language language = Language::kEnglish;
  size_t top_n = 10;
  // Terminal colours in the text format (bold headings, red and yellow priorities); never in markdown.
  bool color = false;
  // `--memory`: a snapshot whose analysis joins the memory section (borrowed for the call).
  const MemorySnapshot* snapshot = nullptr;
};

// One trace as a JSON object (the keys `torchlint trace --format json` documents), in the documented
// key order, with valid UTF-8 throughout, so that a caller can embed it in its own object as it is.
nlohmann::ordered_json AnalysisToJson(const Trace& trace, const TraceAnalysis& analysis);
// A whole TraceSet: a single trace's object, or {"ranks": [...], "straggler": ...} for a folder, where a
// rank with several files (profiling cycles) has one entry per file, marked `cycle`/`cycles`/`representative`.
nlohmann::ordered_json TraceSetToJson(const TraceSet& set);

// `j` as JSON text; invalid UTF-8 in its strings (paths, metadata, error snippets) becomes U+FFFD
// rather than an exception. Every JSON output of a trace goes through here.
std::string JsonText(const nlohmann::ordered_json& j, int indent = 2);
std::string JsonText(const nlohmann::json& j, int indent = 2);

// Columns `s` takes on a terminal, for a title's underline: CJK characters take two.
size_t DisplayWidth(std::string_view s);

// "high" / "高", and a breakdown role's name, in `language`: the words every rendering of the report uses.
std::string SeverityLabel(Severity severity, Language language);
std::string RoleLabel(Role role, Language language);

// The report for one trace as data, its texts in `language`; `top_n` rows in the op table.
TraceReport BuildReport(const Trace& trace, const TraceAnalysis& analysis, Language language, size_t top_n = 10);
// `report` as text or markdown (kJson renders as text: the JSON of a trace is AnalysisToJson's). Items
// are numbered here, in the order of their vectors.
std::string RenderReport(const TraceReport& report, ReportFormat format, bool color = false);
// BuildReport, then RenderReport.
std::string RenderReport(const Trace& trace, const TraceAnalysis& analysis, const ReportOptions& options);
// The report for a TraceSet: one trace's report, or a per-rank table followed by the straggler's report
// (else the first rank's most recent file).
std::string RenderTraceSet(const TraceSet& set, const ReportOptions& options);

}  // namespace tl::trace
