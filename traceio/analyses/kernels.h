// Kernel statistics over the analysed steps: the top kernels by total time with count and mean, the
// share of kernels shorter than 10 µs (the PyTorch profiler guide's launch-bound signal), the tensor-core share of
// kernel time (our own name patterns, Volta to Blackwell and AMD), and the pointwise share (memory-bound signal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct KernelStat {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  bool tensor_core = false;
  double mean_ns() const { return count ? static_cast<double>(total_ns) / static_cast<double>(count) : 0.0; }
};

struct KernelSummary {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t short_count = 0;  // < 10 µs
  int64_t tensor_core_ns = 0;
  int64_t tensor_core_count = 0;
  int64_t fp32_gemm_ns = 0;  // explicit non-tensor-core GEMMs (volta_sgemm, simt)
  int64_t elementwise_ns = 0;
  int64_t comm_ns = 0;
  int64_t median_ns = 0;
  std::vector<KernelStat> top;  // by total time
  bool has_kernels() const { return count > 0; }
  double short_share() const { return count ? static_cast<double>(short_count) / static_cast<double>(count) : 0.0; }
  double tensor_core_share() const {
    return total_ns ? static_cast<double>(tensor_core_ns) / static_cast<double>(total_ns) : 0.0;
  }
  double elementwise_share() const {
    return total_ns ? static_cast<double>(elementwise_ns) / static_cast<double>(total_ns) : 0.0;
  }
};

constexpr int64_t kShortKernelNs = 10'000;

KernelSummary AnalyzeKernels(const Trace& trace, const Steps& steps, size_t top_n = 10);

}  // namespace tl::trace
