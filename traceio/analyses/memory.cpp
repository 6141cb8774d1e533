#include "traceio/analyses/memory.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "traceio/analyses/saturating.h"

namespace tl::trace {

namespace {

// Thins a time-ordered series to at most kMaxMemorySamples: the window is cut into equal buckets and
// each keeps its highest point and its last point (once when they are the same).
std::vector<MemorySample> Thin(std::vector<MemorySample> series) {
  if (series.size() <= kMaxMemorySamples) return series;
  constexpr size_t kBuckets = kMaxMemorySamples / 2;
  const int64_t first = series.front().ts;
  const int64_t span = std::max<int64_t>(1, series.back().ts - first);
  std::vector<MemorySample> out;
  out.reserve(kMaxMemorySamples);
  auto bucket_of = [&](const MemorySample& s) {
    return static_cast<size_t>(static_cast<double>(s.ts - first) / static_cast<double>(span) *
                               static_cast<double>(kBuckets - 1));
  };
  size_t i = 0;
  while (i < series.size()) {
    const size_t bucket = bucket_of(series[i]);
    size_t end = i;
    size_t peak = i;
    while (end < series.size() && bucket_of(series[end]) == bucket) {
      if (series[end].allocated > series[peak].allocated) peak = end;
      ++end;
    }
    out.push_back(series[peak]);
    if (end - 1 != peak) out.push_back(series[end - 1]);
    i = end;
  }
  return out;
}

}  // namespace

MemoryStats AnalyzeMemory(const Trace& trace) {
  MemoryStats out;
  struct Acc {
    DeviceMemory m;
    int64_t running = 0;
    int64_t allocated = 0;  // the level after the last event
    int64_t reserved = 0;
    bool totals = false;
    std::vector<MemorySample> series;
  };
  const auto& events = trace.memory_events();
  // In time order: the running sum of a trace without totals is only right that way.
  std::vector<uint32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return events[a].ts < events[b].ts; });
  std::map<std::pair<int, int>, Acc> by_device;
  for (uint32_t index : order) {
    const MemoryEvent& e = events[index];
    out.has_events = true;
    Acc& a = by_device[{e.device_type, e.device_id}];
    a.m.device_type = e.device_type;
    a.m.device_id = e.device_id;
    if (e.bytes > 0) ++a.m.allocations;
    SatAddTo(a.running, e.bytes);
    if (e.total_allocated) {
      a.totals = true;
      a.allocated = *e.total_allocated;
    } else if (!a.totals) {
      a.allocated = a.running;
    }
    if (e.total_reserved) a.reserved = *e.total_reserved;
    a.m.peak_allocated = std::max(a.m.peak_allocated, a.allocated);
    a.m.peak_reserved = std::max(a.m.peak_reserved, a.reserved);
    a.series.push_back({e.ts, a.allocated, a.reserved});
  }
  for (auto& [key, a] : by_device) {
    for (const auto& d : trace.metadata().devices) {
      if (a.m.device_type == 1 && d.id == a.m.device_id) a.m.total_global_mem = d.total_global_mem;
    }
    a.m.timeline = Thin(std::move(a.series));
    out.devices.push_back(std::move(a.m));
  }
  std::stable_sort(out.devices.begin(), out.devices.end(),
                   [](const DeviceMemory& a, const DeviceMemory& b) { return a.device_type > b.device_type; });
  return out;
}

}  // namespace tl::trace
