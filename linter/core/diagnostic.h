// What a rule reports: a Diagnostic with its byte range and an optional Fix. A Fix is a set of Edits
// (sorted, non-overlapping byte-range replacements) with an applicability level, as in Ruff: safe fixes
// are applied by --fix, unsafe ones only on request, display-only ones are shown but never applied.
#pragma once

#include <any>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/message.h"
#include "linter/core/text_range.h"

namespace tl {

enum class Severity { kError, kWarning, kInfo };

enum class Applicability { kSafe, kUnsafe, kDisplayOnly };

// Whether a fix of `applicability` is applied at `level` (kSafe: safe fixes; kUnsafe: safe and unsafe
// ones, as `--unsafe-fixes` asks). Display-only fixes never are.
constexpr bool IsApplicable(Applicability applicability, Applicability level) {
  return applicability != Applicability::kDisplayOnly && static_cast<int>(applicability) <= static_cast<int>(level);
}

std::string_view ToString(Severity severity);            // "error" | "warning" | "info"
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
  MessageRef title_ref = {};  // the catalog sentence `title` was made from (LocalizedFixTitle)
};

// What a profiler trace says about a finding (the cross-check, `check --trace`). Absent without a trace.
// kNegligible: the trace shows the pattern, but its measured cost is below the materiality threshold
// (docs/crosscheck.md); a CI gate on confirmed findings does not fail on it.
enum class Verdict { kConfirmed, kNegligible, kRefuted, kNotObserved, kUnverifiable };
// "confirmed" | "negligible" | "refuted" | "not-observed" | "unverifiable"
std::string_view ToString(Verdict verdict);

// One trace event a measured cost was taken from, so that two findings explaining the same events can
// share them instead of both claiming the time. `id` is opaque (the trace and the event), `ns` its time.
struct EventClaim {
  uint64_t id = 0;
  int64_t ns = 0;
  friend bool operator==(const EventClaim&, const EventClaim&) = default;
};

struct Evidence {
  Verdict verdict = Verdict::kUnverifiable;
  double cost_ms_per_step = 0.0;    // measured cost of the pattern (this finding's part when shared)
  double share_of_step = 0.0;       // cost over the mean step time, 0..1
  double per_step_count = 0.0;      // occurrences per step
  double saved_ms_per_step = 0.0;   // estimated saving of the fix (the ranking key), by the rule's model
  double step_ms = 0.0;             // the mean step time the shares are of
  std::string summary;              // one sentence with the figures, or what profiler option is missing
  MessageRef summary_ref;           // the catalog sentence `summary` was made from (LocalizedSummary)
  std::vector<std::string> events;  // the events that prove it (names with times), a few at most
  // Where the cost is shared with other findings: "shares 2 of 4 ms/step with TL202 at train.py:12".
  std::string shared_with;
  MessageRef shared_with_ref;      // the catalog sentence `shared_with` was made from
  std::vector<EventClaim> claims;  // the events measured, for sharing; never rendered
};

// An evidence's summary and its shared-with sentence in `lang`, from the catalogs their references name
// (the rule's trace evidence, the cross-check's). The English fields are the machine formats' text.
std::string LocalizedSummary(const Evidence& evidence, Lang lang);
std::string LocalizedSharedWith(const Evidence& evidence, Lang lang);

// What the semantic model knew about the code around a finding, filled by the engine after each rule's
// check so that the cross-check never parses the file again.
struct FindingScope {
  std::string function;       // the enclosing function's name; empty at module level
  int function_def_line = 0;  // its `def` line as CPython reports it (the first decorator's line)
};

// Another place that explains a finding: the helper that syncs, the layer that uses a config value, the
// CUDA training loop that iterates a loader built elsewhere. `path` is empty for the finding's own file
// (then `range` locates it); for another file it is that file's path as the check saw it, with its
// 1-based line and column, since the other file's text is not at hand when the output is written.
struct RelatedLocation {
  std::string path;
  TextRange range;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  MessageRef message_ref;  // the catalog sentence `message` was made from (LocalizedRelated)
};

struct Diagnostic {
  std::string code;        // "TL101"; "parse-error" and "io-error" for notices about the file itself
  std::string name;        // "sync-in-step-loop"
  std::string message;     // sentence case, no trailing period, code in backticks; always English
  MessageRef message_ref;  // the rule's catalog entry `message` was made from (LocalizedMessage)
  Severity severity = Severity::kWarning;
  TextRange range;
  std::optional<Fix> fix;
  std::optional<Evidence> evidence;
  FindingScope scope;
  // What the rule found, as the rule's own typed struct (the sync kind, the dim and its role, the
  // loader's arguments): the rule's trace evidence reads it back with Payload<T>(), never the message.
  std::any payload;
  std::vector<RelatedLocation> related;

  template <typename T>
  const T* Payload() const {
    return std::any_cast<T>(&payload);
  }
};

// A finding of the profiler trace alone (`check --trace`, `report`): a bottleneck the trace shows and no
// line of code is blamed for. Plain data, so that every output format renders it without trace headers.
enum class Priority : uint8_t { kLow, kMedium, kHigh };
std::string_view ToString(Priority priority);  // "low" | "medium" | "high"

struct TraceFigure {
  std::string metric;  // "gpu.busy_share"
  double value = 0.0;
  std::string unit;     // "share", "per_step", "ms", "count"
  std::string healthy;  // the healthy range of the PyTorch profiler guide, "> 0.80"
};

struct TraceFinding {
  std::string code;     // "trace-launch-bound", "trace-communication-bound", "trace-low-gpu-busy",
                        // "trace-no-tensor-cores"
  std::string title;    // "Launch-bound"
  std::string summary;  // one line for rule catalogues (SARIF's rule descriptor)
  Severity severity = Severity::kWarning;
  Priority level = Priority::kLow;  // the classifier's low / medium / high
  std::string message;              // one sentence with the figures
  std::string recommendation;       // the PyTorch profiler guide's recommendation (§3.3)
  // The catalog sentences `title`, `message` and `recommendation` were made from: the English fields
  // are the machine formats' text, and the human renderers ask for theirs in the user's language.
  MessageRef title_ref;
  MessageRef message_ref;
  MessageRef recommendation_ref;
  double cost_ms_per_step = 0.0;   // the measured time at stake
  double saved_ms_per_step = 0.0;  // by the model in docs/crosscheck.md
  double step_ms = 0.0;
  std::vector<TraceFigure> figures;
  std::string trace_path;
  // Where the finding is shown: the checked script's step loop when the script is known (`script`
  // non-empty, `line` 1-based), else the trace file itself (`trace_path`, no line).
  std::string script;
  uint32_t line = 0;
};

// A trace-only finding's title, message and recommendation in `lang`.
std::string LocalizedTitle(const TraceFinding& finding, Lang lang);
std::string LocalizedMessage(const TraceFinding& finding, Lang lang);
std::string LocalizedRecommendation(const TraceFinding& finding, Lang lang);

}  // namespace tl
