// Kernel launch statistics, joining each runtime launch to its GPU event by correlation id as HTA's
// get_cuda_kernel_launch_stats does: CPU launch duration, GPU duration, launch delay, and the "short"
// kernels whose GPU time is below the CPU time it took to launch them (launch overhead dominates).
#pragma once

#include <cstdint>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct LaunchStats {
  int64_t launches = 0;          // launches with a GPU event
  int64_t short_kernels = 0;     // cpu_dur <= 50 µs and gpu_dur < cpu_dur (HTA)
  int64_t runtime_outliers = 0;  // cpu_dur > 50 µs
  int64_t delay_outliers = 0;    // launch delay > 100 µs
  int64_t cpu_ns = 0;
  int64_t gpu_ns = 0;
  int64_t delay_ns = 0;
  double per_step = 0.0;
  double mean_cpu_us() const {
    return launches ? static_cast<double>(cpu_ns) / 1e3 / static_cast<double>(launches) : 0;
  }
  double mean_gpu_us() const {
    return launches ? static_cast<double>(gpu_ns) / 1e3 / static_cast<double>(launches) : 0;
  }
  double mean_delay_us() const {
    return launches ? static_cast<double>(delay_ns) / 1e3 / static_cast<double>(launches) : 0;
  }
};

LaunchStats AnalyzeLaunches(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
