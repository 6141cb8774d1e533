#include "crosscheck/ranking.h"

#include <fmt/core.h>

#include <algorithm>
#include <unordered_map>

#include "crosscheck/messages.h"

namespace tl {
namespace {

int VerdictRank(const std::optional<Evidence>& evidence) {
  if (!evidence) return 5;
  switch (evidence->verdict) {
    case Verdict::kConfirmed: return 0;
    case Verdict::kNegligible: return 1;
    case Verdict::kUnverifiable: return 2;
    case Verdict::kNotObserved: return 3;
    case Verdict::kRefuted: return 4;
  }
  return 5;
}

int SeverityRank(Severity severity) {
  switch (severity) {
    case Severity::kError: return 0;
    case Severity::kWarning: return 1;
    case Severity::kInfo: return 2;
  }
  return 3;
}

bool Observed(const Evidence& e) { return e.verdict == Verdict::kConfirmed || e.verdict == Verdict::kNegligible; }

// "TL202 at train.py:12", in both languages.
MessageArg Where(std::string name, const RankedFinding& f) {
  if (f.file == nullptr) return {std::move(name), f.diagnostic.code, {}};
  const Sentence at = CrossCheckSentence(
      "finding-at", {{"code", f.diagnostic.code, {}},
                     {"path", f.file->path(), {}},
                     NumberArg("line", static_cast<int64_t>(f.file->lines().Locate(f.diagnostic.range.begin).line))});
  return SentenceArg(std::move(name), at);
}

}  // namespace

void ApplyMateriality(Evidence& e) {
  if (e.verdict != Verdict::kConfirmed) return;
  if (e.share_of_step >= kMaterialShare) return;
  e.verdict = Verdict::kNegligible;
  e.saved_ms_per_step = 0.0;
  ExtendSummary(e, "negligible",
                {NumberArg("cost", e.cost_ms_per_step, 3), NumberArg("share", e.share_of_step * 100, 2),
                 NumberArg("threshold", kMaterialShare * 100, 0)});
}

void SettleCosts(std::vector<RankedFinding>& findings, std::vector<TraceFinding>& trace_findings) {
  // Who claims each event.
  std::unordered_map<uint64_t, std::vector<size_t>> claimants;
  for (size_t i = 0; i < findings.size(); ++i) {
    const auto& e = findings[i].diagnostic.evidence;
    if (!e || !Observed(*e)) continue;
    for (const EventClaim& c : e->claims) {
      auto& list = claimants[c.id];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
  }
  for (size_t i = 0; i < findings.size(); ++i) {
    auto& e = findings[i].diagnostic.evidence;
    if (!e || !Observed(*e) || e->claims.empty()) continue;
    double total = 0.0, own = 0.0;
    std::vector<size_t> partners;
    for (const EventClaim& c : e->claims) {
      const auto& list = claimants[c.id];
      const double ns = static_cast<double>(std::max<int64_t>(0, c.ns));
      total += ns;
      own += ns / static_cast<double>(std::max<size_t>(1, list.size()));
      for (size_t j : list) {
        if (j != i && std::find(partners.begin(), partners.end(), j) == partners.end()) partners.push_back(j);
      }
    }
    if (partners.empty() || total <= 0.0) continue;
    const double factor = own / total;
    const double whole = e->cost_ms_per_step;
    e->cost_ms_per_step *= factor;
    e->share_of_step *= factor;
    e->saved_ms_per_step *= factor;
    MessageArg names = Where("names", findings[partners.front()]);
    if (partners.size() > 1) {
      names = SentenceArg(
          "names", CrossCheckSentence("and-others", {Where("first", findings[partners.front()]),
                                                     CountArg("others", static_cast<int64_t>(partners.size() - 1),
                                                              "other finding", "other findings", "个问题")}));
    }
    const Sentence shared = CrossCheckSentence(
        "shared-with", {std::move(names), NumberArg("kept", e->cost_ms_per_step, 2), NumberArg("whole", whole, 2)});
    e->shared_with = shared.en;
    e->shared_with_ref = shared.ref;
    ExtendSummary(*e, "with-shared", {SentenceArg("shared_with", shared)});
  }
  for (auto& f : findings) {
    if (f.diagnostic.evidence) ApplyMateriality(*f.diagnostic.evidence);
  }
  // What is left must fit in the step: the shares of the step saved add up to at most one.
  double total_share = 0.0;
  for (const auto& f : findings) {
    const auto& e = f.diagnostic.evidence;
    if (e && e->verdict == Verdict::kConfirmed && e->step_ms > 0) total_share += e->saved_ms_per_step / e->step_ms;
  }
  for (const auto& t : trace_findings) {
    if (t.step_ms > 0) total_share += t.saved_ms_per_step / t.step_ms;
  }
  if (total_share <= 1.0) return;
  const double scale = 1.0 / total_share;
  for (auto& f : findings) {
    auto& e = f.diagnostic.evidence;
    if (!e || e->verdict != Verdict::kConfirmed) continue;
    e->saved_ms_per_step *= scale;
    ExtendSummary(*e, "scaled", {NumberArg("scale", scale, 2)});
  }
  for (auto& t : trace_findings) t.saved_ms_per_step *= scale;
}

bool RanksBefore(const RankedFinding& a, const RankedFinding& b) {
  const double sa = a.diagnostic.evidence ? a.diagnostic.evidence->saved_ms_per_step : 0.0;
  const double sb = b.diagnostic.evidence ? b.diagnostic.evidence->saved_ms_per_step : 0.0;
  if (sa != sb) return sa > sb;
  const int va = VerdictRank(a.diagnostic.evidence), vb = VerdictRank(b.diagnostic.evidence);
  if (va != vb) return va < vb;
  const int ea = SeverityRank(a.diagnostic.severity), eb = SeverityRank(b.diagnostic.severity);
  if (ea != eb) return ea < eb;
  const std::string_view pa = a.file != nullptr ? std::string_view(a.file->path()) : std::string_view();
  const std::string_view pb = b.file != nullptr ? std::string_view(b.file->path()) : std::string_view();
  if (pa != pb) return pa < pb;
  return a.diagnostic.range.begin < b.diagnostic.range.begin;
}

void RankFindings(std::vector<RankedFinding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), RanksBefore);
}

std::optional<FailOn> ParseFailOn(std::string_view text) {
  if (text == "any") return FailOn::kAny;
  if (text == "confirmed") return FailOn::kConfirmed;
  if (text == "none") return FailOn::kNone;
  return std::nullopt;
}

bool CountsForExit(const Diagnostic& diagnostic, FailOn fail_on) {
  switch (fail_on) {
    case FailOn::kAny: return true;
    case FailOn::kNone: return false;
    case FailOn::kConfirmed: return diagnostic.evidence && diagnostic.evidence->verdict == Verdict::kConfirmed;
  }
  return true;
}

}  // namespace tl
