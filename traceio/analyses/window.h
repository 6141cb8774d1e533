// Which events count for the per-step figures: those that start inside an analysed step window. With no
// steps at all (an empty trace) nothing counts.
#pragma once

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

inline bool InAnalysedHostSteps(const Steps& steps, int64_t ts) { return steps.FindHost(ts) >= 0; }

// GPU work is assigned to the step of its launch when it has one (the TensorBoard plugin's rule), so a
// kernel that runs just after the CPU step ended still counts for the step that launched it.
inline int StepOfGpuEvent(const Trace& trace, const Steps& steps, uint32_t g) {
  uint32_t launch = trace.link(g);
  int s = launch != kNoIndex ? steps.FindHost(trace.ts(launch)) : -1;
  return s >= 0 ? s : steps.Find(trace.ts(g));
}

}  // namespace tl::trace
