// Step windows: the `ProfilerStep#N` ranges the profiler's schedule writes, or, without them,
// `Optimizer.step` boundaries, or the whole trace. Every per-step figure divides by these windows.
// Like the TensorBoard plugin, a step's end is extended to the end of the GPU work its CPU side launched
// (and its start clamped to the previous step's end); like HTA, when there are two or more ProfilerSteps
// the last one is treated as partial and left out of the figures, because the profiler stops before
// the GPU has finished it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traceio/store.h"

namespace tl::trace {

// kNamedRange: NVTX (or record_function) ranges of the step, named `train_step` as `instrument --template
// nvtx` writes them, or with the name the user gives (`--step-range NAME`).
enum class StepSource : uint8_t { kProfilerStep, kOptimizerStep, kWholeTrace, kNamedRange };
std::string_view StepSourceName(StepSource s);

struct Step {
  int64_t number = 0;
  int64_t cpu_begin = 0;
  int64_t cpu_end = 0;
  int64_t begin = 0;  // window used for figures
  int64_t end = 0;
  uint32_t event = kNoIndex;
  bool analysed = true;
  int64_t duration() const { return end - begin; }
};

struct StepOptions {
  bool include_last_step = false;
  // The name of the range that marks one step, when the trace has no ProfilerStep ranges. Empty: the
  // `train_step` ranges of `instrument --template nvtx`. A range matches by its whole name, or by its
  // name followed by a space and what the instrumenter appends (`train_step train.py:42`).
  std::string step_range;
};

struct Steps {
  StepSource source = StepSource::kWholeTrace;
  std::vector<Step> all;
  std::vector<Step> analysed;  // the steps figures are computed over
  int64_t analysed_ns = 0;     // sum of analysed step durations
  bool last_dropped = false;
  size_t count() const { return analysed.size(); }
  double mean_ms() const {
    return analysed.empty() ? 0.0 : static_cast<double>(analysed_ns) / 1e6 / static_cast<double>(analysed.size());
  }
  // Index into `analysed` of the step whose window holds `ts`, or -1.
  int Find(int64_t ts) const;
  // Index into `analysed` of the step whose CPU range holds `ts`, or -1. Host-side events (ops, syncs,
  // DataLoader calls, launches) belong to the step whose CPU range they start in, even where the previous
  // step's window was extended over them by its trailing GPU work.
  int FindHost(int64_t ts) const;
};

Steps FindSteps(const Trace& trace, const StepOptions& options = {});

}  // namespace tl::trace
