// Optimizer cost: `Optimizer.zero_grad#...` ranges and the `fill_`/`zero_` ops and kernels beneath
// them. With set_to_none=False (the default before PyTorch 2.0) zero_grad launches one fill kernel per
// parameter; with set_to_none=True it encloses no work at all.
#pragma once

#include <cstdint>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct ZeroGradStats {
  int64_t calls = 0;     // zero_grad ranges inside the analysed steps
  int64_t total_ns = 0;  // their CPU duration
  int64_t fill_ops = 0;  // aten::zero_ / aten::fill_ beneath them (outermost only)
  int64_t kernels = 0;   // GPU kernels/memsets launched beneath them
  int64_t kernel_ns = 0;
  std::vector<uint32_t> events;
  double ms_per_step = 0.0;  // CPU time of zero_grad per step
};

struct OptimizerStats {
  ZeroGradStats zero_grad;
  int64_t step_calls = 0;
  int64_t step_ns = 0;
};

OptimizerStats AnalyzeOptimizer(const Trace& trace, const Steps& steps);
// The fill/zero work under one zero_grad range.
ZeroGradStats ZeroGradWork(const Trace& trace, uint32_t zero_grad_event);

}  // namespace tl::trace
