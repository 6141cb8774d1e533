#include "traceio/analyses/memory.h"

#include <algorithm>
#include <map>

#include "traceio/analyses/saturating.h"

namespace tl::trace {

MemoryStats AnalyzeMemory(const Trace& trace) {
  MemoryStats out;
  struct Acc {
    DeviceMemory m;
    int64_t running = 0;
    bool totals = false;
  };
  std::map<std::pair<int, int>, Acc> by_device;
  for (const auto& e : trace.memory_events()) {
    out.has_events = true;
    Acc& a = by_device[{e.device_type, e.device_id}];
    a.m.device_type = e.device_type;
    a.m.device_id = e.device_id;
    if (e.bytes > 0) ++a.m.allocations;
    SatAddTo(a.running, e.bytes);
    if (e.total_allocated) {
      a.totals = true;
      a.m.peak_allocated = std::max(a.m.peak_allocated, *e.total_allocated);
    } else if (!a.totals) {
      a.m.peak_allocated = std::max(a.m.peak_allocated, a.running);
    }
    if (e.total_reserved) a.m.peak_reserved = std::max(a.m.peak_reserved, *e.total_reserved);
  }
  for (auto& [key, a] : by_device) {
    for (const auto& d : trace.metadata().devices) {
      if (a.m.device_type == 1 && d.id == a.m.device_id) a.m.total_global_mem = d.total_global_mem;
    }
    out.devices.push_back(a.m);
  }
  std::stable_sort(out.devices.begin(), out.devices.end(),
                   [](const DeviceMemory& a, const DeviceMemory& b) { return a.device_type > b.device_type; });
  return out;
}

}  // namespace tl::trace
