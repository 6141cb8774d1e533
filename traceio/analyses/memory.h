// Memory: peak allocated and reserved bytes per device from the `[memory]` instants that profile_memory
// writes. Newer traces carry running totals; PyTorch 1.8-1.9 only the signed `Bytes`, so the peak is
// rebuilt from the running sum there.
#pragma once

#include <cstdint>
#include <vector>

#include "traceio/store.h"

namespace tl::trace {

struct DeviceMemory {
  int device_type = 0;  // 0 CPU, 1 CUDA
  int device_id = -1;
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;  // 0 when unknown
  int64_t allocations = 0;
  int64_t total_global_mem = 0;  // from deviceProperties, 0 when unknown
};

struct MemoryStats {
  bool has_events = false;
  std::vector<DeviceMemory> devices;  // CUDA devices first
};

MemoryStats AnalyzeMemory(const Trace& trace);

}  // namespace tl::trace
