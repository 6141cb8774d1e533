// What the cross-check does with verdicts once every finding has one: the materiality threshold that a
// confirmed verdict must pass, the sharing of a measured cost between the findings that explain the same
// trace events (so that no time is counted twice and the savings never add up to more than the step),
// the ranking by the time a fix would save, and the `--fail-on` gate that CI runs on.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/source_file.h"

namespace tl {

// A confirmed verdict needs a measured cost of at least this share of the mean step; below it the
// finding is `negligible` and a gate on confirmed findings does not fail on it (docs/crosscheck.md).
inline constexpr double kMaterialShare = 0.01;

// Applies the threshold to one evidence: confirmed below it becomes negligible (with no saving).
void ApplyMateriality(Evidence& evidence);

// One finding with the file it belongs to, for ranking across files.
struct RankedFinding {
  const SourceFile* file = nullptr;
  Diagnostic diagnostic;
};

// After every file is annotated: findings that claim the same events share them (each keeps its part of
// the time, and `shared_with` says with whom), materiality is applied again to the parts, and when the
// savings (trace-only ones included) would still exceed the step they are scaled down to fit it.
void SettleCosts(std::vector<RankedFinding>& findings, std::vector<TraceFinding>& trace_findings);

// Sorts by the estimated time saved per step (descending), then verdict (confirmed, negligible,
// unverifiable, not-observed, refuted, none), then severity, then file and position. Stable.
void RankFindings(std::vector<RankedFinding>& findings);
// The order RankFindings uses, for one pair.
bool RanksBefore(const RankedFinding& a, const RankedFinding& b);

// `--fail-on`: which findings make `check` exit 1.
enum class FailOn : uint8_t { kAny, kConfirmed, kNone };
std::optional<FailOn> ParseFailOn(std::string_view text);  // "any" | "confirmed" | "none"
// Whether this finding counts towards the exit status under `fail_on`.
bool CountsForExit(const Diagnostic& diagnostic, FailOn fail_on);

}  // namespace tl
