#include "crosscheck/evidence.h"

#include "linter/engine/rule.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

namespace tl {
namespace {

std::vector<std::unique_ptr<RuleEvidence>>& Registry() {
  static std::vector<std::unique_ptr<RuleEvidence>> registry;
  return registry;
}

// Claim ids: the trace's index in the high 32 bits and the event in the low ones; keys that stand for
// aggregates (KeyClaim) set the top bit so that they never meet an event's id.
constexpr uint64_t kKeyBit = uint64_t{1} << 63;

}  // namespace

namespace detail {
void RegisterRuleEvidence(std::unique_ptr<RuleEvidence> evidence) { Registry().push_back(std::move(evidence)); }
}  // namespace detail

const RuleEvidence* FindRuleEvidence(std::string_view code) {
  for (const auto& e : Registry()) {
    if (e->Code() == code) return e.get();
  }
  return nullptr;
}

Sentence RuleEvidence::Say(std::string_view id, MessageArgs args) const {
  const Rule* rule = FindRule(Code());
  if (rule == nullptr) throw std::logic_error(fmt::format("{}: the evidence has no rule", Code()));
  return MakeSentence(rule->Meta().messages, id, std::move(args));
}

std::string FormatShare(double share) { return fmt::format("{:.1f}%", share * 100); }

MessageArg ShareArg(std::string name, double share) { return {std::move(name), FormatShare(share), {}}; }

MessageArg StepsArg(const EvidenceQuery& q, std::string name) {
  return CountArg(std::move(name), static_cast<int64_t>(q.steps), "profiled step", "profiled steps", "个 step");
}

Sentence MissingOption(std::string_view option) {
  return CrossCheckSentence("missing-option", {{"option", std::string(option), {}}});
}

Evidence VerdictOnly(Verdict verdict, Sentence summary) {
  Evidence e;
  e.verdict = verdict;
  SetSummary(e, std::move(summary));
  return e;
}

Evidence Unverifiable(Sentence summary) { return VerdictOnly(Verdict::kUnverifiable, std::move(summary)); }

Evidence NoCudaActivity(const Sentence& what) {
  return Unverifiable(CrossCheckSentence("no-cuda", {SentenceArg("what", what)}));
}

Evidence EvidenceFromCost(const EvidenceQuery& q, Verdict verdict, const trace::Cost& cost, double saved_ms_per_step,
                          Sentence summary) {
  Evidence e;
  e.verdict = verdict;
  e.cost_ms_per_step = cost.ms_per_step;
  e.share_of_step = cost.share_of_step;
  e.per_step_count = cost.count_per_step;
  e.step_ms = q.step_ms;
  e.saved_ms_per_step = verdict == Verdict::kConfirmed ? std::max(0.0, saved_ms_per_step) : 0.0;
  SetSummary(e, std::move(summary));
  for (const auto& ex : cost.examples) {
    e.events.push_back(fmt::format("{} @{:.3f} ms ({:.3f} ms)", ex.name, ex.start_ms, ex.dur_ms));
  }
  const trace::Trace& tr = q.trace.trace();
  e.claims.reserve(cost.claims.size());
  for (uint32_t event : cost.claims) {
    if (event >= tr.size()) continue;
    e.claims.push_back({(static_cast<uint64_t>(q.trace_index) << 32) | event, tr.dur(event)});
  }
  return e;
}

std::vector<uint32_t> ClaimedEvents(const Evidence& evidence, uint32_t trace_index) {
  std::vector<uint32_t> out;
  for (const EventClaim& claim : evidence.claims) {
    if ((claim.id & kKeyBit) != 0 || (claim.id >> 32) != trace_index) continue;
    out.push_back(static_cast<uint32_t>(claim.id & 0xffffffffU));
  }
  return out;
}

EventClaim KeyClaim(const EvidenceQuery& q, std::string_view key, int64_t ns) {
  const uint64_t h = std::hash<std::string_view>{}(key);
  return {kKeyBit | (static_cast<uint64_t>(q.trace_index & 0x7fff) << 48) | (h & 0xffffffffffffULL), ns};
}

Evidence NotObserved(const EvidenceQuery& q, const Sentence& what) {
  Evidence e = VerdictOnly(
      Verdict::kNotObserved,
      CrossCheckSentence("not-observed", {SentenceArg("what", what), StepsArg(q), SentenceArg("how", q.at.how)}));
  e.step_ms = q.step_ms;
  return e;
}

Sentence TheLine(const EvidenceQuery& q) { return CrossCheckSentence("line", {NumberArg("line", q.line)}); }

Sentence WhereText(const EvidenceQuery& q) {
  switch (q.at.level) {
    case AttributionLevel::kLine:
      return CrossCheckSentence("where-line", {NumberArg("line", q.line), SentenceArg("how", q.at.how)});
    case AttributionLevel::kFunction:
      return CrossCheckSentence("where-function",
                                {{"function", std::string(q.function), {}}, SentenceArg("how", q.at.how)});
    case AttributionLevel::kRange: return CrossCheckSentence("where-range", {SentenceArg("how", q.at.how)});
    case AttributionLevel::kStep: break;
  }
  return CrossCheckSentence("where-step");
}

}  // namespace tl
