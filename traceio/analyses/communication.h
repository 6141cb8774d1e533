// Communication: the share of kernel time in collective kernels (nccl, rccl, hccl), and how much of
// that time overlaps computation on the same device (HTA's comm/comp overlap). Low overlap with a high
// share is the PyTorch profiler guide's communication-bound pattern.
#pragma once

#include <cstdint>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct Communication {
  int64_t comm_ns = 0;        // sum of collective kernel durations
  int64_t kernel_ns = 0;      // sum of all kernel durations
  int64_t overlapped_ns = 0;  // union of comm time that overlaps compute kernels
  int64_t comm_union_ns = 0;
  int64_t kernels = 0;
  double share() const { return kernel_ns ? static_cast<double>(comm_ns) / static_cast<double>(kernel_ns) : 0.0; }
  double overlap() const {
    return comm_union_ns ? static_cast<double>(overlapped_ns) / static_cast<double>(comm_union_ns) : 0.0;
  }
};

Communication AnalyzeCommunication(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
