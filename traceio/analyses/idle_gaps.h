// GPU idle time inside the analysed steps, split as HTA splits its idle gaps: host-wait (the CPU had not
// yet issued the next kernel when the GPU went idle: launch- or CPU-bound), kernel-wait (a short gap
// between back-to-back kernels, under 30 µs: launch overhead), and other (syncs, dependencies, profiler
// artefacts). HTA measures gaps per stream; summed over streams those can exceed the step time, so here
// a gap is time when the device as a whole is idle (no kernel, memcpy or memset on any of its streams,
// the complement of GpuBusy's union), clipped to the step windows. Per device the three parts add up to
// the analysed step time less its busy time; with several devices (rare in one rank's file) the
// figures are summed over them.
#pragma once

#include <cstdint>

#include "traceio/analyses/saturating.h"
#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct IdleGaps {
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  int64_t gaps = 0;  // idle stretches that overlap the steps, counting the edges before and after work
  int64_t total_ns() const { return SatAdd(SatAdd(host_wait_ns, kernel_wait_ns), other_ns); }
  double host_wait_share() const {
    return total_ns() ? static_cast<double>(host_wait_ns) / static_cast<double>(total_ns()) : 0.0;
  }
};

constexpr int64_t kConsecutiveKernelDelayNs = 30'000;

IdleGaps AnalyzeIdleGaps(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
