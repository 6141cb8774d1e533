// `torchlint trace annotate`: a copy of a Kineto trace with torchlint's evidence on its timeline, for
// Perfetto or chrome://tracing. The original bytes are streamed through unchanged; a small scanner
// (strings, escapes, bracket depth: it finds a position, it parses nothing) finds the closing `]` of
// the top-level `traceEvents` array, and the markers are inserted there, in a process of their own: a
// slice per analysed step named by the bottleneck diagnosis, a slice on every sync call, `.item()` and
// DataLoader wait that proves a finding, a flow arrow from each sync to the kernel it waited for, and a
// track per finding with a slice on each event that proves it.
// Memory holds the analysed store and the markers, never the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "traceio/analysis.h"
#include "traceio/byte_source.h"
#include "traceio/store.h"

namespace tl::trace {

struct AnnotationCounts {
  size_t steps = 0;           // bottleneck slices, one per analysed step
  size_t syncs = 0;           // explicit sync calls (TL101)
  size_t items = 0;           // .item() calls inside the steps (TL101)
  size_t dataloader = 0;      // DataLoader __next__ waits (TL201)
  size_t flows = 0;           // sync -> kernel arrows (each an "s" and an "f" event)
  size_t findings = 0;        // findings drawn (check --annotate; trace-only ones in trace annotate too)
  size_t finding_slices = 0;  // their slices: one per evidence event, or one over the steps
  size_t metadata = 0;        // process and thread names
  size_t events() const { return steps + syncs + items + dataloader + 2 * flows + finding_slices + metadata; }
};

// A finding of `check SCRIPT --trace TRACE --annotate OUT`, as the check rendered it, or a trace-only
// finding (a bottleneck no line is blamed for). Each gets a track of its own: a slice on every event its
// measured cost was taken from, or, when it claims no single event (an aggregate, a verdict without a
// cost, a trace-only finding), one slice over the analysed steps.
struct ScriptFinding {
  std::string code;      // "TL101", "trace-launch-bound"
  std::string location;  // "train.py:42"; empty for a trace-only finding
  std::string message;
  std::string verdict;  // "confirmed", ... (docs/crosscheck.md); "trace-only"
  double cost_ms_per_step = 0.0;
  double saved_ms_per_step = 0.0;
  std::vector<uint32_t> events;  // indices into the annotated trace of the events that prove it
};

// At most this many evidence slices per finding (the rest are counted in the finding's first slice).
constexpr size_t kMaxFindingSlices = 2000;

struct Annotations {
  int64_t pid = 0;                  // the process the markers sit in, unused by the trace
  std::vector<std::string> events;  // one JSON object each, in the file's own time base
  AnnotationCounts counts;
};

// The marker events for one analysed trace.
Annotations BuildAnnotations(const Trace& trace, const TraceAnalysis& analysis,
                             std::span<const ScriptFinding> findings = {});

struct SpliceResult {
  bool ok = false;
  std::string error;            // one line when !ok
  uint64_t input_bytes = 0;     // decompressed bytes copied from the source
  uint64_t inserted_at = 0;     // output offset of the first inserted byte
  uint64_t inserted_bytes = 0;  // the output is the input with these bytes inserted at inserted_at
};

// Copies `source` to `out`, byte for byte, with `events` (JSON objects) appended to the top-level
// `traceEvents` array (or to a bare top-level list, the legacy export). `name` is for messages.
SpliceResult SpliceEvents(ByteSource& source, const std::vector<std::string>& events, std::FILE* out,
                          std::string_view name);

struct AnnotateResult {
  bool ok = false;
  std::string error;  // one line when !ok; then no output file exists
  AnnotationCounts counts;
  SpliceResult splice;
};

// Writes `output` (plain JSON, gzip when its name ends in .gz) as the annotated copy of `input`, which
// `trace`/`analysis` were read from. The copy goes to a temp file beside `output` and is renamed into place; on any
// error it is removed.
AnnotateResult WriteAnnotatedTrace(const std::string& input, const std::string& output, const Trace& trace,
                                   const TraceAnalysis& analysis, std::span<const ScriptFinding> findings = {},
                                   const SourceLimits& limits = {});

}  // namespace tl::trace
