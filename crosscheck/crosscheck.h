// The cross-check: `torchlint check --trace` and `torchlint report`. It loads a profiler trace (a file
// or a folder of ranks), decides for each checked file whether the trace was recorded from it at all
// (crosscheck/attribution.h), ties each static finding to the trace events that ran for it, asks the
// finding's rule evidence what those events say (crosscheck/evidence.h, registered beside each rule's
// check), applies the materiality threshold, and turns the trace's own bottleneck classification into
// trace-only findings for what no line can be blamed on (launch-bound, communication-bound, low GPU
// busy, no tensor cores). Costs shared between findings and the ranking are in crosscheck/ranking.h.
// A CUDA memory snapshot given beside the trace (`--memory`) is further evidence it holds: the rules that
// ask for it (RuleEvidence::UsesMemorySnapshot) see it in their query when it was recorded from the
// checked script.
// This library joins the two halves: it depends on linter/ and traceio/, and neither depends on it.
// Errors are values: a trace that cannot be read comes back as an Error with a one-line message.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crosscheck/attribution.h"
#include "crosscheck/ranking.h"
#include "linter/core/diagnostic.h"
#include "linter/core/result.h"
#include "linter/core/source_file.h"
#include "linter/engine/check.h"
#include "linter/engine/rule.h"
#include "traceio/analyses/bottleneck.h"  // trace::Language, trace::Recommendation
#include "traceio/memory_snapshot.h"
#include "traceio/trace_set.h"

namespace tl {

// A checked script as the trace-only findings need it: where its step loop is, and whether the trace
// is that script's.
struct CheckedScript {
  std::string path;
  uint32_t step_loop_line = 0;
  bool trace_is_its = false;
};

class CrossCheck {
 public:
  // Reads a trace file or a folder of them. An error when nothing readable is there. `read` may carry a
  // progress callback; `analysis` says how steps are found (the last step, an NVTX step range).
  static Result<CrossCheck> Load(const std::string& path, const trace::ReadOptions& read = {},
                                 const trace::AnalysisOptions& analysis = {});
  CrossCheck(CrossCheck&&) noexcept;
  CrossCheck& operator=(CrossCheck&&) noexcept;
  ~CrossCheck();

  const trace::TraceSet& traces() const;
  // The trace files used (readable ranks), and warnings met while reading (truncation, ...).
  std::vector<std::string> Warnings(Lang lang = Lang::kEnglish) const;

  // A memory snapshot (traceio/memory_snapshot.h) of the same training, as further evidence for the rules
  // that use it; Annotate decides per script whether it is that script's. Null until one is set.
  void SetMemorySnapshot(trace::MemorySnapshot snapshot);
  const trace::MemorySnapshot* memory_snapshot() const;

  // The PyTorch version the trace shows, if it shows one: the `pytorch_version` metadata, the 1.8-1.9
  // category names (1.9), or CallFrom (2.x). For version-aware rules when --target-torch is not given.
  std::optional<TorchVersion> TraceTorch() const;
  Sentence TraceTorchReason() const;  // "the trace's pytorch version 2.1.0", for the note the CLI prints

  // Attaches an Evidence to every rule finding in `diagnostics` (notices such as parse-error are left
  // alone), using the facts CheckSource collected (CheckOptions::collect_facts). With several traces (a
  // folder of ranks), the strongest evidence wins: confirmed (the costliest), then negligible, refuted,
  // not-observed, unverifiable. Returns the script as trace-only findings locate against it.
  CheckedScript Annotate(const SourceFile& file, const FileFacts& facts, std::vector<Diagnostic>& diagnostics) const;

  // The trace-only findings, most severe first, each located at the step loop of the first script in
  // `scripts` that the trace is from, else at the trace file.
  // Their sentences are English, with the references that render them in Chinese (LocalizedTitle...).
  std::vector<TraceFinding> TraceOnly(std::span<const CheckedScript> scripts = {}) const;

  // The trace that the report describes (the straggler of a folder, else the first readable one).
  const trace::RankTrace* Focus() const;
  // The events of Focus() that a finding's evidence measured its cost from (indices into its trace).
  std::vector<uint32_t> FocusEvents(const Evidence& evidence) const;

 private:
  struct State;
  explicit CrossCheck(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The trace-only findings of one analysed trace (CrossCheck::TraceOnly on its focus), for commands that
// read a trace without a script (`trace annotate`). Empty when the trace was not read or analysed.
std::vector<TraceFinding> TraceOnlyFindings(const trace::RankTrace& rank, std::span<const CheckedScript> scripts = {});

}  // namespace tl
