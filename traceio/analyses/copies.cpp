#include "traceio/analyses/copies.h"

#include <algorithm>

#include "traceio/analyses/saturating.h"
#include "traceio/analyses/window.h"

namespace tl::trace {

CopyStats AnalyzeCopies(const Trace& trace, const Steps& steps) {
  CopyStats out;
  for (uint32_t g : trace.gpu_events()) {
    if (trace.kind(g) != EventKind::kMemcpy || StepOfGpuEvent(trace, steps, g) < 0) continue;
    CopyKind k = trace.copy_kind(g);
    auto it = std::find_if(out.groups.begin(), out.groups.end(), [&](const CopyGroup& c) {
      return c.kind.direction == k.direction && c.kind.src == k.src && c.kind.dst == k.dst;
    });
    if (it == out.groups.end()) {
      out.groups.push_back(CopyGroup{k, 0, 0, 0, 0});
      it = out.groups.end() - 1;
    }
    const GpuInfo* info = trace.gpu(g);
    const int64_t bytes = info != nullptr ? info->bytes : 0;
    const uint32_t launch = trace.link(g);
    const int64_t host = launch != kNoIndex ? trace.dur(launch) : 0;
    ++it->count;
    SatAddTo(it->bytes, bytes);
    SatAddTo(it->gpu_ns, trace.dur(g));
    SatAddTo(it->host_ns, host);
    ++out.count;
    if (k.pageable()) ++out.pageable;
    if (k.pageable() && k.direction == CopyDirection::kHtoD) {
      ++out.pageable_htod;
      SatAddTo(out.pageable_htod_bytes, bytes);
      SatAddTo(out.pageable_htod_gpu_ns, trace.dur(g));
      SatAddTo(out.pageable_htod_host_ns, host);
      out.pageable_htod_events.push_back(g);
    }
  }
  std::sort(out.groups.begin(), out.groups.end(),
            [](const CopyGroup& a, const CopyGroup& b) { return a.count > b.count; });
  if (steps.count() > 0) out.pageable_per_step = static_cast<double>(out.pageable) / static_cast<double>(steps.count());
  return out;
}

}  // namespace tl::trace
