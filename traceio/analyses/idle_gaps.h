// GPU idle gaps per stream, split as HTA splits them: host-wait (the CPU had not yet issued the next
// kernel when the stream went idle: launch- or CPU-bound), kernel-wait (a short gap between back-to-back
// kernels, under 30 µs: launch overhead), and other (syncs, dependencies, profiler artefacts).
#pragma once

#include <cstdint>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct IdleGaps {
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  int64_t gaps = 0;
  int64_t total_ns() const { return host_wait_ns + kernel_wait_ns + other_ns; }
  double host_wait_share() const {
    return total_ns() ? static_cast<double>(host_wait_ns) / static_cast<double>(total_ns()) : 0.0;
  }
};

constexpr int64_t kConsecutiveKernelDelayNs = 30'000;

IdleGaps AnalyzeIdleGaps(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
