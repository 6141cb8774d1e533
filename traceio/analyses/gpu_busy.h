// GPU busy share: per device, the union of kernel, memcpy and memset time inside the analysed step
// windows over the windows' total time (nsys "GPU time utilization", TensorBoard's GPU utilization but
// counting copies too). Overlapping streams count once.
#pragma once

#include <cstdint>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct DeviceBusy {
  int device = 0;
  int64_t busy_ns = 0;
  int64_t kernel_ns = 0;  // union of kernels only (TensorBoard's definition)
  double share = 0.0;
};

struct GpuBusy {
  bool has_gpu = false;
  std::vector<DeviceBusy> devices;
  std::vector<double> per_step;  // busy share of each analysed step, first device
  double share = 0.0;            // mean over devices with work
};

GpuBusy AnalyzeGpuBusy(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
