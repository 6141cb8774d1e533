#include "linter/output/evidence.h"

#include <fmt/core.h>

namespace tl {

std::string VerdictLabel(Verdict verdict, Lang lang) {
  if (lang == Lang::kEnglish) return std::string(ToString(verdict));
  switch (verdict) {
    case Verdict::kConfirmed: return "已证实";
    case Verdict::kNegligible: return "影响可忽略";
    case Verdict::kRefuted: return "已排除";
    case Verdict::kNotObserved: return "未观测到";
    case Verdict::kUnverifiable: return "无法验证";
  }
  return std::string(ToString(verdict));
}

std::string EvidenceHeadline(const Evidence& evidence, Lang lang) {
  const bool zh = lang == Lang::kChinese;
  switch (evidence.verdict) {
    case Verdict::kConfirmed:
      return fmt::format(fmt::runtime(zh ? "{}：每 step {:.1f} ms（{:.0f}%），预计每 step 节省约 {:.1f} ms"
                                         : "{}: {:.1f} ms/step ({:.0f}%), saves ~{:.1f} ms/step"),
                         VerdictLabel(evidence.verdict, lang), evidence.cost_ms_per_step, evidence.share_of_step * 100,
                         evidence.saved_ms_per_step);
    case Verdict::kNegligible:
      return fmt::format(fmt::runtime(zh ? "{}：每 step {:.2f} ms（{:.1f}%）" : "{}: {:.2f} ms/step ({:.1f}%)"),
                         VerdictLabel(evidence.verdict, lang), evidence.cost_ms_per_step, evidence.share_of_step * 100);
    case Verdict::kRefuted:
    case Verdict::kNotObserved:
    case Verdict::kUnverifiable: break;
  }
  return VerdictLabel(evidence.verdict, lang);
}

std::string TraceHeadline(const TraceFinding& finding, Lang lang) {
  const bool zh = lang == Lang::kChinese;
  std::string out;
  if (finding.cost_ms_per_step > 0) {
    out = fmt::format(fmt::runtime(zh ? "每 step {:.1f} ms" : "{:.1f} ms/step"), finding.cost_ms_per_step);
    if (finding.step_ms > 0) {
      out += fmt::format(fmt::runtime(zh ? "（{:.0f}%）" : " ({:.0f}%)"),
                         finding.cost_ms_per_step / finding.step_ms * 100);
    }
    out += zh ? "，" : ", ";
  }
  return out + fmt::format(fmt::runtime(zh ? "预计每 step 节省约 {:.1f} ms" : "saves ~{:.1f} ms/step"),
                           finding.saved_ms_per_step);
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
