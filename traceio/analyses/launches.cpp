#include "traceio/analyses/launches.h"

#include <algorithm>

#include "traceio/analyses/saturating.h"
#include "traceio/analyses/window.h"

namespace tl::trace {

LaunchStats AnalyzeLaunches(const Trace& trace, const Steps& steps) {
  LaunchStats out;
  constexpr int64_t kRuntimeCutoffNs = 50'000;
  constexpr int64_t kDelayCutoffNs = 100'000;
  for (uint32_t g : trace.gpu_events()) {
    uint32_t launch = trace.link(g);
    if (launch == kNoIndex || trace.link(launch) != g) continue;  // first GPU event of each launch only
    if (steps.FindHost(trace.ts(launch)) < 0) continue;
    const int64_t cpu = trace.dur(launch);
    const int64_t gpu = trace.dur(g);
    const int64_t delay = std::max<int64_t>(0, trace.ts(g) - trace.end(launch));
    ++out.launches;
    SatAddTo(out.cpu_ns, cpu);
    SatAddTo(out.gpu_ns, gpu);
    SatAddTo(out.delay_ns, delay);
    // HTA's cuda_kernel_launch_stats: short = cpu_duration <= runtime_cutoff (50 µs) AND gpu_duration <
    // cpu_duration. The cutoff keeps runtime outliers (a launch stalled on a lock or the allocator) from
    // counting as launch overhead.
    if (cpu <= kRuntimeCutoffNs && gpu < cpu) ++out.short_kernels;
    if (cpu > kRuntimeCutoffNs) ++out.runtime_outliers;
    if (delay > kDelayCutoffNs) ++out.delay_outliers;
  }
  if (steps.count() > 0) out.per_step = static_cast<double>(out.launches) / static_cast<double>(steps.count());
  return out;
}

}  // namespace tl::trace
