#include "traceio/analyses/communication.h"

#include <map>
#include <unordered_map>

#include "traceio/analyses/intervals.h"
#include "traceio/analyses/names.h"
#include "traceio/analyses/saturating.h"
#include "traceio/analyses/window.h"

namespace tl::trace {

Communication AnalyzeCommunication(const Trace& trace, const Steps& steps) {
  Communication out;
  std::map<int, std::vector<Interval>> comm, compute;
  std::unordered_map<StringId, bool> is_comm;
  for (uint32_t g : trace.gpu_events()) {
    if (trace.kind(g) != EventKind::kKernel || StepOfGpuEvent(trace, steps, g) < 0) continue;
    auto [it, inserted] = is_comm.try_emplace(trace.name_id(g), false);
    if (inserted) it->second = IsCommKernel(trace.name(g));
    const int device = trace.track_of(g).device;
    SatAddTo(out.kernel_ns, trace.dur(g));
    if (it->second) {
      ++out.kernels;
      SatAddTo(out.comm_ns, trace.dur(g));
      comm[device].push_back({trace.ts(g), trace.end(g)});
    } else {
      compute[device].push_back({trace.ts(g), trace.end(g)});
    }
  }
  for (auto& [device, c] : comm) {
    MergeIntervals(c);
    auto& k = compute[device];
    MergeIntervals(k);
    SatAddTo(out.comm_union_ns, TotalLength(c));
    SatAddTo(out.overlapped_ns, OverlapLength(c, k));
  }
  return out;
}

}  // namespace tl::trace
