// Before and after: two traces of the same training compared figure by figure, to answer "did the step
// get faster, and why" (the profiler guide's 修改后再次 profiling). Step time, the breakdown per step,
// GPU busy, syncs and pageable copies per step, the kernels and top-level ops whose time per step changed
// most (matched by name), and the bottlenecks on each side. Figures are per analysed step, so captures of
// different lengths compare; where the two traces measure steps differently, a note says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traceio/analysis.h"
#include "traceio/store.h"

namespace tl::trace {

struct FigureChange {
  std::string metric;  // "step_ms", "breakdown.kernel_ms", "gpu_busy.share", "syncs.per_step", ...
  double before = 0.0;
  double after = 0.0;
  std::string unit;  // "ms", "share", "per_step"
  double delta() const { return after - before; }
};

struct NameChange {
  std::string name;
  double before_ms = 0.0;  // per step
  double after_ms = 0.0;
  double before_calls = 0.0;  // per step
  double after_calls = 0.0;
  double delta_ms() const { return after_ms - before_ms; }
};

// A sentence of the comparison in both report languages.
struct DiffNote {
  std::string en;
  std::string zh;
};

struct TraceDiff {
  double step_ms_before = 0.0;
  double step_ms_after = 0.0;
  size_t steps_before = 0;
  size_t steps_after = 0;
  std::vector<FigureChange> figures;            // step time first, then the breakdown, GPU busy, syncs, copies
  std::vector<NameChange> kernels;              // by |change in ms per step|, largest first
  std::vector<NameChange> ops;                  // top-level CPU ops, the same way
  std::vector<std::string> bottlenecks_before;  // kind names, strongest first
  std::vector<std::string> bottlenecks_after;
  std::vector<DiffNote> notes;  // what limits the comparison
  // Before over after step time: 1.25 means 1.25x the steps per second.
  double speedup() const { return step_ms_after > 0 ? step_ms_before / step_ms_after : 0.0; }
};

TraceDiff CompareTraces(const Trace& before, const TraceAnalysis& before_analysis, const Trace& after,
                        const TraceAnalysis& after_analysis, size_t top_n = 10);

}  // namespace tl::trace
