#include "linter/cli/markers.h"

namespace tl::cli {

std::vector<trace::ScriptFinding> TraceOnlyMarkers(const std::vector<TraceFinding>& findings) {
  std::vector<trace::ScriptFinding> out;
  out.reserve(findings.size());
  for (const TraceFinding& finding : findings) {
    trace::ScriptFinding f;
    f.code = finding.code;
    f.message = finding.message;
    f.verdict = "trace-only";
    f.cost_ms_per_step = finding.cost_ms_per_step;
    f.saved_ms_per_step = finding.saved_ms_per_step;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tl::cli
