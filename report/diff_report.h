// Renders a before/after comparison (traceio/analyses/diff.h) for people, as text or markdown in English
// or Chinese, and for programs as JSON. `torchlint trace diff BEFORE AFTER` prints it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/trace_report_model.h"
#include "traceio/analyses/diff.h"

namespace tl::trace {

nlohmann::ordered_json DiffToJson(const TraceDiff& diff);
std::string RenderDiff(const TraceDiff& diff, ReportFormat format, Language language);

}  // namespace tl::trace
