// Renders trace analyses for people and programs: the brief's report (第四步: environment, top 10 ops,
// GPU utilisation, memory, bottleneck diagnosis, recommendations) as text or markdown in English or
// Chinese, and a JSON object with the documented keys (shares as 0-1 fractions). `torchlint trace` and
// `torchlint report` both render through here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "traceio/analysis.h"
#include "traceio/store.h"
#include "traceio/trace_set.h"

namespace tl::trace {

enum class ReportFormat : uint8_t { kText, kMarkdown, kJson };
enum class Language : uint8_t { kEnglish, kChinese };

struct ReportOptions {
  ReportFormat format = ReportFormat::kText;
  Language language = Language::kEnglish;
  size_t top_n = 10;
};

// One trace as a JSON object (the keys `torchlint trace --format json` documents).
nlohmann::json AnalysisToJson(const Trace& trace, const TraceAnalysis& analysis);
// A whole TraceSet: a single trace's object, or {"ranks": [...], "straggler": ...} for a folder, where a
// rank with several files (profiling cycles) has one entry per file, marked `cycle`/`cycles`/`representative`.
nlohmann::json TraceSetToJson(const TraceSet& set);

// `j` as JSON text; invalid UTF-8 in its strings (paths, metadata, error snippets) becomes U+FFFD
// rather than an exception. Every JSON output of a trace goes through here.
std::string JsonText(const nlohmann::json& j, int indent = 2);

// The report for one trace (text or markdown).
std::string RenderReport(const Trace& trace, const TraceAnalysis& analysis, const ReportOptions& options);
// The report for a TraceSet: one trace's report, or a per-rank table followed by the straggler's report
// (else the first rank's most recent file).
std::string RenderTraceSet(const TraceSet& set, const ReportOptions& options);

// The brief's recommendation for a bottleneck kind, one line.
std::string Recommendation(BottleneckKind kind, Language language);

}  // namespace tl::trace
