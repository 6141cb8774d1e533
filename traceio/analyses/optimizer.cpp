#include "traceio/analyses/optimizer.h"

#include "traceio/analyses/saturating.h"

namespace tl::trace {

namespace {
bool IsFill(std::string_view n) { return n == "aten::zero_" || n == "aten::fill_"; }
}  // namespace

ZeroGradStats ZeroGradWork(const Trace& trace, uint32_t z) {
  ZeroGradStats out;
  out.calls = 1;
  out.total_ns = trace.dur(z);
  out.events.push_back(z);
  trace.ForEachDescendant(z, [&](uint32_t j) {
    if (trace.kind(j) == EventKind::kCpuOp && IsFill(trace.name(j))) {
      uint32_t p = trace.parent(j);
      if (p == kNoIndex || !IsFill(trace.name(p))) ++out.fill_ops;  // zero_ calls fill_: count once
    } else if (IsLaunch(trace.kind(j))) {
      uint32_t g = trace.link(j);
      if (g != kNoIndex && (trace.kind(g) == EventKind::kKernel || trace.kind(g) == EventKind::kMemset)) {
        ++out.kernels;
        SatAddTo(out.kernel_ns, trace.dur(g));
      }
    }
  });
  return out;
}

OptimizerStats AnalyzeOptimizer(const Trace& trace, const Steps& steps) {
  OptimizerStats out;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    const EventKind k = trace.kind(i);
    if (k != EventKind::kUserAnnotation && k != EventKind::kCpuOp) continue;
    std::string_view n = trace.name(i);
    if (!n.starts_with("Optimizer.")) continue;
    if (steps.FindHost(trace.ts(i)) < 0) continue;
    if (n.starts_with("Optimizer.zero_grad#")) {
      // One inside another (a hand-written annotation of the same name) is counted with the outer one.
      bool nested = false;
      for (uint32_t p = trace.parent(i); p != kNoIndex && !nested; p = trace.parent(p)) {
        nested = trace.name(p).starts_with("Optimizer.zero_grad#");
      }
      if (nested) continue;
      ZeroGradStats z = ZeroGradWork(trace, i);
      auto& agg = out.zero_grad;
      ++agg.calls;
      SatAddTo(agg.total_ns, z.total_ns);
      agg.fill_ops += z.fill_ops;
      agg.kernels += z.kernels;
      SatAddTo(agg.kernel_ns, z.kernel_ns);
      agg.events.push_back(i);
    } else if (n.starts_with("Optimizer.step#")) {
      ++out.step_calls;
      SatAddTo(out.step_ns, trace.dur(i));
    }
  }
  if (steps.count() > 0) {
    out.zero_grad.ms_per_step = static_cast<double>(out.zero_grad.total_ns) / 1e6 / static_cast<double>(steps.count());
  }
  return out;
}

}  // namespace tl::trace
