#include "traceio/analyses/idle_gaps.h"

#include "traceio/analyses/window.h"

namespace tl::trace {

IdleGaps AnalyzeIdleGaps(const Trace& trace, const Steps& steps) {
  IdleGaps out;
  for (const auto& track : trace.tracks()) {
    if (!track.gpu) continue;
    int64_t prev_end = INT64_MIN;
    for (uint32_t i = track.begin; i < track.end; ++i) {
      if (!IsGpuWork(trace.kind(i))) continue;
      const int64_t start = trace.ts(i);
      if (prev_end != INT64_MIN && start > prev_end && InAnalysedSteps(steps, prev_end)) {
        const int64_t gap = start - prev_end;
        ++out.gaps;
        uint32_t launch = trace.link(i);
        if (launch != kNoIndex && trace.ts(launch) > prev_end) {
          out.host_wait_ns += gap;
        } else if (gap < kConsecutiveKernelDelayNs) {
          out.kernel_wait_ns += gap;
        } else {
          out.other_ns += gap;
        }
      }
      prev_end = std::max(prev_end, trace.end(i));
    }
  }
  return out;
}

}  // namespace tl::trace
