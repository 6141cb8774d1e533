// Attribution: which events of a trace are a finding's, and before that whether the trace is the
// checked script's at all. A finding's verdict is only as good as this step, so it is decided first and
// stated in every summary:
// - Provenance: a trace with Python frames (with_stack=True) names the files it ran; when none of them
//   is the checked file, the trace was recorded from another script and nothing in it can confirm or
//   refute the file's findings. A trace without frames is tied to the script only when the ops of its
//   steps are the ones the script's step loop makes (its optimizer's class, its DataLoader, its
//   record_function labels); otherwise attribution by op name would blame the script for another
//   program's events. The rule is written down in docs/crosscheck.md.
// - Level: the finding's line (CallFrom, or a 1.8-1.9 `Call stack`), else its enclosing function's
//   frames, else the whole step by op names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/message.h"
#include "linter/engine/check.h"
#include "traceio/analyses/source_index.h"
#include "traceio/evidence.h"

namespace tl {

enum class ProvenanceKind : uint8_t {
  kFrames,       // the trace's Python frames name the checked file
  kRanges,       // no Python frames; the source ranges `instrument --template nvtx` writes name the file
  kOpNames,      // no Python frames, and the step's ops are the script's loop's
  kOtherScript,  // the trace's Python frames never name the checked file
  kUntied,       // no Python frames, and nothing in the step's ops ties the trace to the script
};

struct Provenance {
  ProvenanceKind kind = ProvenanceKind::kUntied;
  Sentence reason;  // one sentence: why, with what was compared
  bool usable() const {
    return kind == ProvenanceKind::kFrames || kind == ProvenanceKind::kRanges || kind == ProvenanceKind::kOpNames;
  }
};

// What a trace shows that a script's step loop would leave in it, computed once per trace.
struct TraceSignals {
  bool python_frames = false;
  std::vector<std::string> frame_files;        // distinct files of the Python frames and call stacks
  std::vector<std::string> optimizer_classes;  // from `Optimizer.step#SGD.step`
  bool optimizer_step = false;
  bool zero_grad = false;
  bool dataloader = false;               // `enumerate(DataLoader)#...`
  bool backward = false;                 // autograd backward ops
  bool item = false;                     // aten::item / aten::_local_scalar_dense in the steps
  std::vector<std::string> annotations;  // user annotations (record_function labels)
  std::vector<std::string> range_files;  // files the source ranges name (`name file:first-last`)
};
TraceSignals ReadSignals(const trace::TraceEvidence& trace);

// "`a.py`, `b.py` and 2 other files" as the argument `name`, in both languages: at most three files, those
// outside torch and installed packages first.
MessageArg ListFiles(std::string name, const std::vector<std::string>& files);

// Is this trace the script's? `path` is the checked file as given.
Provenance DecideProvenance(const TraceSignals& signals, std::string_view path, const FileFacts& facts);

// How a finding was tied to the trace, from the most precise to the least.
enum class AttributionLevel : uint8_t {
  kLine,      // events called from the finding's line (CallFrom, or a 1.8-1.9 Call stack)
  kFunction,  // frames of the enclosing function (by name and def line), the line itself not found
  kRange,     // no stacks: the narrowest source range of a phase that holds the line (instrument's nvtx)
  kStep,      // no stacks, or nothing found: op names and phases of the whole step
};
std::string_view ToString(AttributionLevel level);  // "line" | "function" | "range" | "step"

struct Attribution {
  AttributionLevel level = AttributionLevel::kStep;
  trace::SourceMatch where;   // the events' CPU ranges (empty at step level)
  bool ran_in_steps = false;  // some of `where` ran inside the analysed steps
  // With stacks in the trace, the code was looked for and did not run inside the profiled steps.
  bool not_observed = false;
  Sentence how;  // "CallFrom sync_item.py:61", "frames of `train_step`", "op names (...)"
  // `where` when the level is line or function, else null (the whole step): what the evidence
  // queries of traceio take.
  const trace::SourceMatch* scope() const { return level == AttributionLevel::kStep ? nullptr : &where; }
};

// Ties one finding at `file:line`, inside `finding_scope`, to a trace whose provenance is usable.
Attribution Attribute(const trace::TraceEvidence& trace, const Provenance& provenance, std::string_view file, int line,
                      const FindingScope& finding_scope, const std::vector<std::string>& file_functions);

}  // namespace tl
