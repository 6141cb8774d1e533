#include "traceio/analyses/top_ops.h"

#include <algorithm>
#include <unordered_map>

#include "traceio/analyses/saturating.h"

namespace tl::trace {

TopOps AnalyzeTopOps(const Trace& trace, const Steps& steps, size_t top_n) {
  TopOps out;
  std::unordered_map<StringId, OpStat> by_name;
  auto in_scope = [&](int64_t ts) { return steps.FindHost(ts) >= 0; };
  // Time of each op's direct op/annotation children, clipped to the op, in one pass over the children.
  std::vector<int64_t> children(trace.size(), 0);
  for (uint32_t j = 0; j < trace.size(); ++j) {
    const uint32_t p = trace.parent(j);
    if (p == kNoIndex || trace.kind(p) != EventKind::kCpuOp) continue;
    if (trace.kind(j) == EventKind::kCpuOp || trace.kind(j) == EventKind::kUserAnnotation) {
      SatAddTo(children[p], std::min(trace.end(j), trace.end(p)) - trace.ts(j));
    }
  }
  for (uint32_t i = 0; i < trace.size(); ++i) {
    if (trace.kind(i) != EventKind::kCpuOp || !in_scope(trace.ts(i))) continue;
    OpStat& s = by_name[trace.name_id(i)];
    ++s.calls;
    SatAddTo(s.cpu_total_ns, trace.dur(i));
    SatAddTo(s.self_cpu_ns, std::max<int64_t>(0, trace.dur(i) - children[i]));
  }
  for (uint32_t g : trace.gpu_events()) {
    uint32_t launch = trace.link(g);
    if (launch == kNoIndex || !in_scope(trace.ts(launch))) continue;
    out.by_cuda = true;
    uint32_t op = trace.EnclosingOp(launch);
    if (op == kNoIndex) continue;
    SatAddTo(by_name[trace.name_id(op)].self_cuda_ns, trace.dur(g));
    // Count CUDA total once per distinct ancestor name, as key_averages does per event.
    for (uint32_t p = op; p != kNoIndex; p = trace.parent(p)) {
      if (trace.kind(p) == EventKind::kCpuOp) SatAddTo(by_name[trace.name_id(p)].cuda_total_ns, trace.dur(g));
    }
  }
  for (auto& [id, s] : by_name) {
    s.name = std::string(trace.strings().Get(id));
    out.ops.push_back(std::move(s));
  }
  std::sort(out.ops.begin(), out.ops.end(), [&](const OpStat& a, const OpStat& b) {
    if (out.by_cuda && a.self_cuda_ns != b.self_cuda_ns) return a.self_cuda_ns > b.self_cuda_ns;
    if (a.self_cpu_ns != b.self_cpu_ns) return a.self_cpu_ns > b.self_cpu_ns;
    return a.name < b.name;
  });
  if (out.ops.size() > top_n) out.ops.resize(top_n);
  return out;
}

}  // namespace tl::trace
