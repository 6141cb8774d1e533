// Per-step time breakdown in the TensorBoard profiler plugin's priority: Kernel > Memcpy > Memset >
// Communication > Runtime > DataLoader > CPU Exec > Other. Each category claims the part of its union
// not already claimed by a higher one, so the categories sum to the step's wall time.
// python_function frames are not counted as CPU Exec (they enclose everything under with_stack).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

enum class Role : uint8_t { kKernel, kMemcpy, kMemset, kCommunication, kRuntime, kDataLoader, kCpuExec, kOther };
constexpr size_t kRoleCount = 8;
std::string_view RoleName(Role r);

struct StepBreakdown {
  std::array<int64_t, kRoleCount> ns{};
};

struct Breakdown {
  std::vector<StepBreakdown> steps;  // one per analysed step
  std::array<int64_t, kRoleCount> total{};
  double Share(Role r, int64_t denominator) const {
    return denominator > 0 ? static_cast<double>(total[static_cast<size_t>(r)]) / static_cast<double>(denominator)
                           : 0.0;
  }
};

Breakdown AnalyzeBreakdown(const Trace& trace, const Steps& steps);

}  // namespace tl::trace
