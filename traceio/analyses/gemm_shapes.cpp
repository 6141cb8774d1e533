#include "traceio/analyses/gemm_shapes.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "traceio/analyses/names.h"
#include "traceio/analyses/saturating.h"

namespace tl::trace {

GemmDims GemmDimsOf(std::string_view op, const std::vector<std::vector<int64_t>>& d) {
  GemmDims g;
  auto last = [](const std::vector<int64_t>& s, size_t from_end) -> int64_t {
    return s.size() > from_end ? s[s.size() - 1 - from_end] : -1;
  };
  if (op == "aten::mm" || op == "aten::bmm" || op == "aten::matmul") {
    if (d.size() < 2 || d[0].empty() || d[1].empty()) return g;
    g.k = last(d[0], 0);
    g.m = d[0].size() >= 2 ? last(d[0], 1) : 1;
    g.n = d[1].size() >= 2 ? last(d[1], 0) : 1;
  } else if (op == "aten::addmm" || op == "aten::baddbmm" || op == "aten::addbmm") {
    if (d.size() < 3 || d[1].size() < 2 || d[2].size() < 2) return g;
    g.m = last(d[1], 1);
    g.k = last(d[1], 0);
    g.n = last(d[2], 0);
  } else if (op == "aten::linear") {
    // input [..., K], weight [N, K], bias [N]
    if (d.size() < 2 || d[0].empty() || d[1].size() != 2) return g;
    g.k = last(d[0], 0);
    g.m = d[0].size() >= 2 ? last(d[0], 1) : 1;
    g.n = d[1][0];
  }
  return g;
}

int64_t GpuTimeUnder(const Trace& trace, uint32_t event) {
  int64_t total = 0;
  trace.ForEachDescendant(event, [&](uint32_t j) {
    if (!IsLaunch(trace.kind(j))) return;
    uint32_t g = trace.link(j);
    if (g != kNoIndex && trace.kind(g) == EventKind::kKernel) SatAddTo(total, trace.dur(g));
  });
  return total;
}

GemmStats AnalyzeGemmShapes(const Trace& trace, const Steps& steps) {
  GemmStats out;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    if (trace.kind(i) != EventKind::kCpuOp) continue;
    std::string_view name = trace.name(i);
    if (!IsGemmOpName(name)) continue;
    bool nested = false;
    for (uint32_t p = trace.parent(i); p != kNoIndex && !nested; p = trace.parent(p)) {
      nested = trace.kind(p) == EventKind::kCpuOp && IsGemmOpName(trace.name(p));
    }
    if (nested) continue;
    auto dims = trace.InputDims(i);
    if (!dims.empty()) out.has_shapes = true;
    if (steps.FindHost(trace.ts(i)) < 0) continue;
    ++out.gemms;
    GemmDims g = GemmDimsOf(name, dims);
    if (!g.known() || (g.k % 8 == 0 && g.n % 8 == 0)) continue;
    std::string dims_text = fmt::format("{}", dims);
    std::string dtype;
    if (const OpInfo* info = trace.op(i); info != nullptr) dtype = std::string(trace.strings().Get(info->input_type));
    auto it = std::find_if(out.shapes.begin(), out.shapes.end(),
                           [&](const GemmShape& s) { return s.op == name && s.dims == dims_text && s.dtype == dtype; });
    if (it == out.shapes.end()) {
      GemmShape s;
      s.op = std::string(name);
      s.dims = dims_text;
      s.dtype = dtype;
      s.m = g.m;
      s.k = g.k;
      s.n = g.n;
      out.shapes.push_back(std::move(s));
      it = out.shapes.end() - 1;
    }
    const int64_t gpu = GpuTimeUnder(trace, i);
    ++it->count;
    SatAddTo(it->cpu_ns, trace.dur(i));
    SatAddTo(it->gpu_ns, gpu);
    it->events.push_back(i);
    ++out.unaligned;
    SatAddTo(out.unaligned_cpu_ns, trace.dur(i));
    SatAddTo(out.unaligned_gpu_ns, gpu);
  }
  std::sort(out.shapes.begin(), out.shapes.end(), [](const GemmShape& a, const GemmShape& b) {
    return SatAdd(a.gpu_ns, a.cpu_ns) > SatAdd(b.gpu_ns, b.cpu_ns);
  });
  return out;
}

}  // namespace tl::trace
