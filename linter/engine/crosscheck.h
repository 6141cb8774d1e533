// The cross-check: `torchlint check --trace` and `torchlint report`. It loads a profiler trace (a file
// or a folder of ranks), attributes each static finding to the trace events that ran for it (the
// finding's line through `CallFrom` or a 1.8-1.9 `Call stack`, else its enclosing function's frames by
// name and def line, else op names and step phases), asks the finding's rule what that evidence says
// (Rule::Confirm, which lives beside the rule's check), ranks the findings by the time their fix would
// save per step, and turns the trace's own bottleneck classification into trace-only findings for what
// no line can be blamed on (launch-bound, communication-bound, low GPU busy, no tensor cores). The
// models behind "time saved" are stated per rule in docs/crosscheck.md. Errors are values: a trace that
// cannot be read comes back as an Error with a one-line message.
#pragma once

#include <fmt/core.h>  // the rules' Confirm overrides format their summaries with it

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "linter/core/diagnostic.h"
#include "linter/core/result.h"
#include "linter/core/source_file.h"
#include "linter/engine/rule.h"
#include "traceio/analyses/source_index.h"
#include "traceio/evidence.h"
#include "traceio/report.h"
#include "traceio/trace_set.h"

namespace tl {

// How a finding was tied to the trace, from the most precise to the least.
enum class AttributionLevel : uint8_t {
  kLine,      // events called from the finding's line (CallFrom, or a 1.8-1.9 Call stack)
  kFunction,  // frames of the enclosing function (by name and def line), the line itself not found
  kStep,      // no stacks, or nothing found: op names and phases of the whole step
};
std::string_view ToString(AttributionLevel level);  // "line" | "function" | "step"

struct Attribution {
  AttributionLevel level = AttributionLevel::kStep;
  trace::SourceMatch where;   // the events' CPU ranges (empty at step level)
  bool ran_in_steps = false;  // some of `where` ran inside the analysed steps
  // With stacks in the trace, the code was looked for and did not run inside the profiled steps.
  bool not_observed = false;
  std::string how;            // "CallFrom sync_item.py:61", "function frame train_step", "op names"
  // `where` when the level is line or function, else null (the whole step): what the evidence
  // queries of traceio take.
  const trace::SourceMatch* scope() const { return level == AttributionLevel::kStep ? nullptr : &where; }
};

// What a rule's Confirm sees for one finding in one trace.
struct EvidenceQuery {
  const trace::TraceEvidence& trace;
  const SourceFile& file;
  int line = 0;                    // 1-based line of the finding
  std::string_view function;       // enclosing function's name; empty at module level
  int function_def_line = 0;       // its `def` line (the first decorator's for decorated functions)
  const Attribution& at;
  double step_ms = 0.0;            // mean analysed step time
  size_t steps = 0;                // analysed steps
};

// Builds an Evidence from a traceio Cost (count, ms and share per step, example events).
Evidence EvidenceFromCost(Verdict verdict, const trace::Cost& cost, double saved_ms_per_step, std::string summary);
// An unverifiable verdict whose summary names what the trace lacks and the profiler option to turn on.
Evidence Unverifiable(std::string summary);
// The sentence that says which profiler option a trace lacks ("profile with record_shapes=True").
std::string MissingOption(std::string_view option);
// A not-observed verdict: `what` ("Line 61") did not run inside the profiled steps, with how it was
// looked up.
Evidence NotObserved(const EvidenceQuery& query, std::string_view what);
// Where the evidence was gathered, for summaries: "under line 61 (CallFrom sync_item.py:61)",
// "under `train_step` (frames of `train_step`)", or "in the profiled steps".
std::string WhereText(const EvidenceQuery& query);
// "31.4%": a 0..1 share as summaries print it.
std::string FormatShare(double share);

// A finding of the trace alone: the bottleneck classifier saw it and no line of code is to blame.
struct TraceFinding {
  std::string code;     // "trace-launch-bound", "trace-communication-bound", "trace-low-gpu-busy",
                        // "trace-no-tensor-cores"
  std::string title;    // "Launch-bound"
  Severity severity = Severity::kWarning;
  trace::Severity level = trace::Severity::kLow;  // the classifier's low / medium / high
  std::string message;  // one sentence with the figures
  std::string recommendation;                     // the brief's recommendation (§3.3)
  double saved_ms_per_step = 0.0;                 // by the model in docs/crosscheck.md
  std::vector<trace::EvidenceFigure> figures;
  std::string trace_path;
};

// One finding with the file it belongs to, for ranking across files.
struct RankedFinding {
  const SourceFile* file = nullptr;
  Diagnostic diagnostic;
};

// Sorts by the estimated time saved per step (descending), then verdict (confirmed, unverifiable,
// not-observed, refuted, none), then severity, then file and position. Stable.
void RankFindings(std::vector<RankedFinding>& findings);
// The order RankFindings uses, for one pair.
bool RanksBefore(const RankedFinding& a, const RankedFinding& b);

// `--fail-on`: which findings make `check` exit 1.
enum class FailOn : uint8_t { kAny, kConfirmed, kNone };
std::optional<FailOn> ParseFailOn(std::string_view text);  // "any" | "confirmed" | "none"
// Whether this finding counts towards the exit status under `fail_on`.
bool CountsForExit(const Diagnostic& diagnostic, FailOn fail_on);

// One-line text for an evidence, as the text output shows it: "confirmed: 12.4 ms/step (31%)".
std::string EvidenceHeadline(const Evidence& evidence);

class CrossCheck {
 public:
  // Reads a trace file or a folder of them. An error when nothing readable is there.
  static Result<CrossCheck> Load(const std::string& path);
  CrossCheck(CrossCheck&&) noexcept;
  CrossCheck& operator=(CrossCheck&&) noexcept;
  ~CrossCheck();

  const trace::TraceSet& traces() const;
  // The trace files used (readable ranks), and warnings met while reading (truncation, ...).
  std::vector<std::string> Warnings() const;

  // The PyTorch version the trace shows, if it shows one: the `pytorch_version` metadata, the 1.8-1.9
  // category names (1.9), or CallFrom (2.x). For version-aware rules when --target-torch is not given.
  std::optional<TorchVersion> TraceTorch() const;
  std::string TraceTorchReason() const;  // "1.8-1.9 category names", for the note the CLI prints

  // Attaches an Evidence to every rule finding in `diagnostics` (notices such as parse-error are left
  // alone). With several traces (a folder of ranks), the strongest evidence wins: confirmed (the
  // costliest), then refuted, not-observed, unverifiable.
  void Annotate(const SourceFile& file, std::vector<Diagnostic>& diagnostics) const;

  // The trace-only findings, most severe first.
  std::vector<TraceFinding> TraceOnly(trace::Language language = trace::Language::kEnglish) const;

  // The trace that the report describes (the straggler of a folder, else the first readable one).
  const trace::RankTrace* Focus() const;

 private:
  struct State;
  explicit CrossCheck(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The `evidence` object of the json output and the report: {verdict, cost_ms_per_step, share_of_step,
// per_step_count, saved_ms_per_step, summary, events}.
nlohmann::ordered_json EvidenceToJson(const Evidence& evidence);

// `torchlint report`: the brief's report (第四步) for the trace, with the ranked findings merged into its
// diagnosis and recommendations and listed with their evidence. `findings` must be ranked already.
std::string RenderCrossCheckReport(const CrossCheck& cross_check, const std::vector<RankedFinding>& findings,
                                   trace::Language language);
// The same as one JSON object: {"trace": <torchlint trace's object>, "findings": [...],
// "trace_findings": [...]}.
nlohmann::ordered_json CrossCheckReportJson(const CrossCheck& cross_check, const std::vector<RankedFinding>& findings);

}  // namespace tl
