#include "traceio/analyses/kernels.h"

#include <algorithm>
#include <unordered_map>

#include "traceio/analyses/names.h"
#include "traceio/analyses/saturating.h"
#include "traceio/analyses/window.h"

namespace tl::trace {

KernelSummary AnalyzeKernels(const Trace& trace, const Steps& steps, size_t top_n) {
  KernelSummary out;
  struct Acc {
    int64_t count = 0, total = 0, min = INT64_MAX, max = 0;
  };
  std::unordered_map<StringId, Acc> by_name;
  std::unordered_map<StringId, uint8_t> flags;  // bit0 tc, bit1 fp32 gemm, bit2 elementwise, bit3 comm
  std::vector<int64_t> durations;
  for (uint32_t g : trace.gpu_events()) {
    if (trace.kind(g) != EventKind::kKernel) continue;
    if (StepOfGpuEvent(trace, steps, g) < 0) continue;
    const int64_t d = trace.dur(g);
    StringId name = trace.name_id(g);
    auto [fit, inserted] = flags.try_emplace(name, 0);
    if (inserted) {
      std::string_view n = trace.name(g);
      fit->second = static_cast<uint8_t>((IsTensorCoreKernel(n) ? 1 : 0) | (IsFp32GemmKernel(n) ? 2 : 0) |
                                         (IsElementwiseKernel(n) ? 4 : 0) | (IsCommKernel(n) ? 8 : 0));
    }
    const uint8_t f = fit->second;
    ++out.count;
    SatAddTo(out.total_ns, d);
    durations.push_back(d);
    if (d < kShortKernelNs) ++out.short_count;
    if (f & 1) {
      SatAddTo(out.tensor_core_ns, d);
      ++out.tensor_core_count;
    }
    if (f & 2) SatAddTo(out.fp32_gemm_ns, d);
    if (f & 4) SatAddTo(out.elementwise_ns, d);
    if (f & 8) SatAddTo(out.comm_ns, d);
    Acc& a = by_name[name];
    ++a.count;
    SatAddTo(a.total, d);
    a.min = std::min(a.min, d);
    a.max = std::max(a.max, d);
  }
  if (!durations.empty()) {
    auto mid = durations.begin() + static_cast<std::ptrdiff_t>(durations.size() / 2);
    std::nth_element(durations.begin(), mid, durations.end());
    out.median_ns = *mid;
  }
  std::vector<std::pair<StringId, Acc>> sorted(by_name.begin(), by_name.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.total != b.second.total ? a.second.total > b.second.total : a.first < b.first;
  });
  for (size_t i = 0; i < sorted.size() && i < top_n; ++i) {
    KernelStat k;
    k.name = std::string(trace.strings().Get(sorted[i].first));
    k.count = sorted[i].second.count;
    k.total_ns = sorted[i].second.total;
    k.min_ns = sorted[i].second.min;
    k.max_ns = sorted[i].second.max;
    k.tensor_core = (flags[sorted[i].first] & 1) != 0;
    out.top.push_back(std::move(k));
  }
  return out;
}

}  // namespace tl::trace
