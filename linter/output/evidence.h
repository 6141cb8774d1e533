// How an Evidence (the cross-check's verdict on one finding) is shown: the one-line headline of the text
// and GitHub formats, which always names the expected saving next to the measured cost, and the
// `evidence` object of the JSON output, SARIF properties and the report. Plain data in, text out: the
// output layer never sees a trace.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "linter/core/diagnostic.h"

namespace tl {

// "confirmed: 12.4 ms/step (31%), saves ~12.4 ms/step", "negligible: 0.01 ms/step (0.1%)", "refuted";
// in Chinese "已证实：每 step 12.4 ms（31%），预计每 step 节省约 12.4 ms".
std::string EvidenceHeadline(const Evidence& evidence, Lang lang = Lang::kEnglish);

// A trace-only finding's figures: "14.0 ms/step (18%), saves ~7.0 ms/step".
std::string TraceHeadline(const TraceFinding& finding, Lang lang = Lang::kEnglish);

// A verdict as the human reports name it: "confirmed", "not-observed"; "已证实", "未观测到".
std::string VerdictLabel(Verdict verdict, Lang lang);

// {verdict, cost_ms_per_step, share_of_step, per_step_count, saved_ms_per_step, step_ms, summary,
// shared_with, events}.
nlohmann::ordered_json EvidenceToJson(const Evidence& evidence);

}  // namespace tl
