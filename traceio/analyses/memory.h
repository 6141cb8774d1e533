// Memory: peak allocated and reserved bytes per device from the `[memory]` instants that profile_memory
// writes, and how they moved over the trace. Newer traces carry running totals; PyTorch 1.8-1.9 only the
// signed `Bytes`, so the totals are rebuilt from the running sum there.
#pragma once

#include <cstdint>
#include <vector>

#include "traceio/store.h"

namespace tl::trace {

// One point of a device's memory over time: the totals right after the event at `ts`.
struct MemorySample {
  int64_t ts = 0;  // the trace's own time base, ns
  int64_t allocated = 0;
  int64_t reserved = 0;  // 0 when the trace has no reserved total
  friend bool operator==(const MemorySample&, const MemorySample&) = default;
};

// At most this many samples per device: a profile_memory trace holds one event per allocation (hundreds
// of thousands), a chart needs a few hundred points.
constexpr size_t kMaxMemorySamples = 512;

struct DeviceMemory {
  int device_type = 0;  // 0 CPU, 1 CUDA
  int device_id = -1;
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;  // 0 when unknown
  int64_t allocations = 0;
  int64_t total_global_mem = 0;  // from deviceProperties, 0 when unknown
  // The totals over time, in time order, at most kMaxMemorySamples. When the events are thinned, each
  // time bucket keeps its highest point and its last one, so the peak is always in the series and the
  // level between buckets is right.
  std::vector<MemorySample> timeline;
};

struct MemoryStats {
  bool has_events = false;
  std::vector<DeviceMemory> devices;  // CUDA devices first
};

MemoryStats AnalyzeMemory(const Trace& trace);

}  // namespace tl::trace
