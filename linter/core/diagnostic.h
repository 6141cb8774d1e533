// What a rule reports: a Diagnostic with its byte range and an optional Fix. A Fix is a set of Edits
// (sorted, non-overlapping byte-range replacements) with an applicability level, as in Ruff: safe fixes
// are applied by --fix, unsafe ones only on request, display-only ones are shown but never applied.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/text_range.h"

namespace tl {

enum class Severity { kError, kWarning, kInfo };

enum class Applicability { kSafe, kUnsafe, kDisplayOnly };

std::string_view ToString(Severity severity);           // "error" | "warning" | "info"
std::string_view ToString(Applicability applicability);  // "safe" | "unsafe" | "display-only"

struct Edit {
  TextRange range;          // bytes to replace; empty for an insertion
  std::string replacement;  // new text
  friend bool operator==(const Edit&, const Edit&) = default;
};

struct Fix {
  std::string title;  // imperative: "Add `pin_memory=True`"
  Applicability applicability = Applicability::kSafe;
  std::vector<Edit> edits;
};

// What a profiler trace says about a finding (the cross-check, `check --trace`). Absent without a trace.
enum class Verdict { kConfirmed, kRefuted, kNotObserved, kUnverifiable };
std::string_view ToString(Verdict verdict);  // "confirmed" | "refuted" | "not-observed" | "unverifiable"

struct Evidence {
  Verdict verdict = Verdict::kUnverifiable;
  double cost_ms_per_step = 0.0;    // measured cost of the pattern
  double share_of_step = 0.0;       // cost over the mean step time, 0..1
  double per_step_count = 0.0;      // occurrences per step
  double saved_ms_per_step = 0.0;   // estimated saving of the fix (the ranking key), by the rule's model
  std::string summary;              // one sentence with the figures, or what profiler option is missing
  std::vector<std::string> events;  // the events that prove it (names with times), a few at most
};

struct Diagnostic {
  std::string code;     // "TL101"; "parse-error" and "io-error" for notices about the file itself
  std::string name;     // "sync-in-step-loop"
  std::string message;  // sentence case, no trailing period, code in backticks
  Severity severity = Severity::kWarning;
  TextRange range;
  std::optional<Fix> fix;
  std::optional<Evidence> evidence;
};

}  // namespace tl
