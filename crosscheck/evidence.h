// What a rule's trace evidence sees and returns. Each rule file under rules/ holds, beside its Check, a
// RuleEvidence that registers here (TL_REGISTER_EVIDENCE): given one finding (with the rule's typed
// payload) and one trace, already tied to the finding's line or function by the attribution, it says
// confirmed, refuted, not observed or unverifiable, with the cost per step and the saving of the fix by
// the rule's stated model (docs/crosscheck.md). The helpers below build Evidence values so that every
// rule words and measures them the same way. Materiality and the sharing of costs between findings are
// applied after the rule has spoken, by the cross-check, never by the rule.
#pragma once

#include <fmt/core.h>  // the rules' Confirm overrides format their figures with it

#include <memory>
#include <string>
#include <string_view>

#include "crosscheck/attribution.h"
#include "crosscheck/messages.h"
#include "linter/core/diagnostic.h"
#include "linter/core/source_file.h"
#include "traceio/evidence.h"
#include "traceio/memory_snapshot.h"

namespace tl {

// What a rule's Confirm sees for one finding in one trace.
struct EvidenceQuery {
  const trace::TraceEvidence& trace;
  const SourceFile& file;
  int line = 0;               // 1-based line of the finding
  std::string_view function;  // enclosing function's name; empty at module level
  int function_def_line = 0;  // its `def` line (the first decorator's for decorated functions)
  const Attribution& at;
  double step_ms = 0.0;      // mean analysed step time
  size_t steps = 0;          // analysed steps
  uint32_t trace_index = 0;  // which trace of a folder, for the ids of claimed events
  // The memory snapshot given with --memory, for a rule that uses one (UsesMemorySnapshot), when it was
  // recorded from this file or cannot tell; null otherwise. Asked through traceio's questions
  // (trace::SegmentChurnOf), never read field by field for a verdict of its own making.
  const trace::MemorySnapshot* memory = nullptr;
};

class RuleEvidence {
 public:
  virtual ~RuleEvidence() = default;
  virtual std::string_view Code() const = 0;  // the rule it confirms: "TL101"
  // Must be thread-safe and must not read the diagnostic's message: the payload says what was found.
  virtual Evidence Confirm(const Diagnostic& diagnostic, const EvidenceQuery& query) const = 0;
  // Whether the verdict rests on the GPU side of the trace (kernels, copies, syncs). Such verdicts stay
  // unverifiable on a trace that was cut before any GPU event: the GPU side may be in the missing tail.
  virtual bool NeedsGpu() const { return true; }
  // Whether a memory snapshot (`--memory`) is evidence for this rule: the cross-check then passes it in the
  // query, and says in the summary when the snapshot given was another program's.
  virtual bool UsesMemorySnapshot() const { return false; }

 protected:
  // The sentence `id` of the rule's catalog (RuleMeta::messages, ids "ev-..."), for a summary or a part of
  // one: the helpers below take summaries only as catalog sentences, so that every summary exists in
  // both languages. Throws std::logic_error for an id the catalog lacks, which the rule tests catch.
  Sentence Say(std::string_view id, MessageArgs args = {}) const;
};

// The registered evidence of a rule, or null when the rule has none.
const RuleEvidence* FindRuleEvidence(std::string_view code);

namespace detail {
void RegisterRuleEvidence(std::unique_ptr<RuleEvidence> evidence);
struct RuleEvidenceRegistrar {
  explicit RuleEvidenceRegistrar(std::unique_ptr<RuleEvidence> evidence) { RegisterRuleEvidence(std::move(evidence)); }
};
}  // namespace detail

// Builds an Evidence from a traceio Cost: its figures, example events and the events it claims.
Evidence EvidenceFromCost(const EvidenceQuery& query, Verdict verdict, const trace::Cost& cost,
                          double saved_ms_per_step, Sentence summary);
// An Evidence with a verdict and a summary and no figures.
Evidence VerdictOnly(Verdict verdict, Sentence summary);
// The events of trace `trace_index` (of a folder; 0 for one file) that an evidence's claims name, as
// indices into that trace; aggregate keys (KeyClaim) name no event and are left out.
std::vector<uint32_t> ClaimedEvents(const Evidence& evidence, uint32_t trace_index);
// An opaque claim id for something that is not one event (a GEMM shape aggregated over many events):
// findings that claim the same key share it.
EventClaim KeyClaim(const EvidenceQuery& query, std::string_view key, int64_t ns);
// An unverifiable verdict whose summary names what the trace lacks and the profiler option to turn on.
Evidence Unverifiable(Sentence summary);
// An unverifiable verdict for a trace without CUDA activity, which cannot show `what` ("host-to-device
// copies"): profile with ProfilerActivity.CUDA.
Evidence NoCudaActivity(const Sentence& what);
// The clause that says which profiler option a trace lacks ("profile with record_shapes=True ...").
Sentence MissingOption(std::string_view option);
// A not-observed verdict: `what` ("Line 61", TheLine) did not run inside the profiled steps, with how it
// was looked up.
Evidence NotObserved(const EvidenceQuery& query, const Sentence& what);
// "Line 61": the finding's line as the subject of a sentence.
Sentence TheLine(const EvidenceQuery& query);
// Where the evidence was gathered, for summaries: "under line 61 (CallFrom sync_item.py:61)",
// "under `train_step` (frames of `train_step`)", or "in the profiled steps".
Sentence WhereText(const EvidenceQuery& query);
// "31.4%": a 0..1 share as summaries print it, as the argument `name`.
std::string FormatShare(double share);
MessageArg ShareArg(std::string name, double share);
// "3 profiled steps" (and its Chinese) for the query's steps, as the argument `name`.
MessageArg StepsArg(const EvidenceQuery& query, std::string name = "steps");

}  // namespace tl

#define TL_EVIDENCE_CONCAT_INNER(a, b) a##b
#define TL_EVIDENCE_CONCAT(a, b) TL_EVIDENCE_CONCAT_INNER(a, b)
#define TL_REGISTER_EVIDENCE(EvidenceClass)                                                   \
  static const ::tl::detail::RuleEvidenceRegistrar TL_EVIDENCE_CONCAT(tl_evidence_registrar_, \
                                                                      __LINE__)(std::make_unique<EvidenceClass>())
