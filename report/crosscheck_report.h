// `torchlint report`: the PyTorch profiler guide's report (第四步) for the trace, with the cross-check's
// ranked findings merged into its diagnosis and recommendations and listed with their evidence, as
// Markdown in English or Chinese, or as one JSON object. A memory snapshot held by the cross-check
// (`--memory`) joins the memory section of each. This is the rendering layer above the
// cross-check: it turns the structs of crosscheck/ and traceio/ into text and parses nothing back.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "crosscheck/crosscheck.h"
#include "crosscheck/ranking.h"
#include "report/trace_report.h"

namespace tl {

// `findings` must be settled (SettleCosts, with `trace_findings`) and ranked already. `format` is
// Markdown (the default) or plain text for a terminal, whose headings and verdicts take ANSI colours
// when `color` is set.
std::string RenderCrossCheckReport(const CrossCheck& cross_check, const std::vector<RankedFinding>& findings,
                                   const std::vector<TraceFinding>& trace_findings, trace::Language language,
                                   trace::ReportFormat format = trace::ReportFormat::kMarkdown, bool color = false);
// The same report as one self-contained HTML page (report/html_report.h), each finding linked to its
// line and its rule's docs.
std::string RenderCrossCheckHtml(const CrossCheck& cross_check, const std::vector<RankedFinding>& findings,
                                 const std::vector<TraceFinding>& trace_findings, trace::Language language);
// The same as one JSON object: {"trace": <torchlint trace's object>, "memory_snapshot": <torchlint memory's object,
// with --memory>, "findings": [...], "trace_findings": [...]}.
nlohmann::ordered_json CrossCheckReportJson(const CrossCheck& cross_check, const std::vector<RankedFinding>& findings,
                                            const std::vector<TraceFinding>& trace_findings);

}  // namespace tl
