#include "traceio/analyses/gpu_busy.h"

#include <map>

#include "traceio/analyses/intervals.h"

namespace tl::trace {

GpuBusy AnalyzeGpuBusy(const Trace& trace, const Steps& steps) {
  GpuBusy out;
  std::map<int, std::vector<Interval>> work, kernels;
  for (uint32_t g : trace.gpu_events()) {
    int device = trace.track_of(g).device;
    work[device].push_back({trace.ts(g), trace.end(g)});
    if (trace.kind(g) == EventKind::kKernel) kernels[device].push_back({trace.ts(g), trace.end(g)});
  }
  out.has_gpu = !work.empty();
  if (!out.has_gpu || steps.analysed_ns <= 0) return out;
  double sum = 0;
  for (auto& [device, intervals] : work) {
    MergeIntervals(intervals);
    auto& k = kernels[device];
    MergeIntervals(k);
    DeviceBusy d;
    d.device = device;
    for (const auto& s : steps.analysed) {
      d.busy_ns += LengthWithin(intervals, s.begin, s.end);
      d.kernel_ns += LengthWithin(k, s.begin, s.end);
      if (out.devices.empty() && s.duration() > 0) {
        out.per_step.push_back(static_cast<double>(LengthWithin(intervals, s.begin, s.end)) /
                               static_cast<double>(s.duration()));
      }
    }
    d.share = static_cast<double>(d.busy_ns) / static_cast<double>(steps.analysed_ns);
    sum += d.share;
    out.devices.push_back(d);
  }
  out.share = sum / static_cast<double>(out.devices.size());
  return out;
}

}  // namespace tl::trace
