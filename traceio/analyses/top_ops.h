// Operator table in the shape of torch.profiler's key_averages(): per op name, calls, Self CPU, CPU
// total, Self CUDA (kernels launched directly by the op) and CUDA total (kernels launched anywhere
// beneath it). Ranked by Self CUDA when the trace has GPU work, by Self CPU otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct OpStat {
  std::string name;
  int64_t calls = 0;
  int64_t self_cpu_ns = 0;
  int64_t cpu_total_ns = 0;
  int64_t self_cuda_ns = 0;
  int64_t cuda_total_ns = 0;
};

struct TopOps {
  bool by_cuda = false;
  std::vector<OpStat> ops;  // top N
};

TopOps AnalyzeTopOps(const Trace& trace, const Steps& steps, size_t top_n = 10);

}  // namespace tl::trace
