#include "linter/output/evidence.h"

#include <fmt/core.h>

namespace tl {

std::string EvidenceHeadline(const Evidence& evidence) {
  switch (evidence.verdict) {
    case Verdict::kConfirmed:
      return fmt::format("confirmed: {:.1f} ms/step ({:.0f}%), saves ~{:.1f} ms/step", evidence.cost_ms_per_step,
                         evidence.share_of_step * 100, evidence.saved_ms_per_step);
    case Verdict::kNegligible:
      return fmt::format("negligible: {:.2f} ms/step ({:.1f}%)", evidence.cost_ms_per_step,
                         evidence.share_of_step * 100);
    case Verdict::kRefuted:
    case Verdict::kNotObserved:
    case Verdict::kUnverifiable: return std::string(ToString(evidence.verdict));
  }
  return std::string(ToString(evidence.verdict));
}

std::string TraceHeadline(const TraceFinding& finding) {
  std::string out;
  if (finding.cost_ms_per_step > 0) {
    out = fmt::format("{:.1f} ms/step", finding.cost_ms_per_step);
    if (finding.step_ms > 0) out += fmt::format(" ({:.0f}%)", finding.cost_ms_per_step / finding.step_ms * 100);
    out += ", ";
  }
  return out + fmt::format("saves ~{:.1f} ms/step", finding.saved_ms_per_step);
}

nlohmann::ordered_json EvidenceToJson(const Evidence& e) {
  nlohmann::ordered_json j;
  j["verdict"] = std::string(ToString(e.verdict));
  j["cost_ms_per_step"] = e.cost_ms_per_step;
  j["share_of_step"] = e.share_of_step;
  j["per_step_count"] = e.per_step_count;
  j["saved_ms_per_step"] = e.saved_ms_per_step;
  j["step_ms"] = e.step_ms;
  j["summary"] = e.summary;
  j["shared_with"] = e.shared_with.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.shared_with);
  j["events"] = e.events;
  return j;
}

}  // namespace tl
