// GEMM shapes: aten::mm/addmm/bmm/linear/matmul whose K or N (from record_shapes' Input Dims) is not a
// multiple of 8, which keeps fp16/bf16 GEMMs off tensor cores or onto slower tiles. M (batch x sequence)
// does not matter. Only the outermost GEMM op of a nest is counted (linear -> addmm is one GEMM).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traceio/analyses/steps.h"
#include "traceio/store.h"

namespace tl::trace {

struct GemmShape {
  std::string op;
  std::string dims;   // Input Dims as written, e.g. [[257, 1000], [1001, 1000], [1001]]
  std::string dtype;  // first Input type
  int64_t m = -1, k = -1, n = -1;
  int64_t count = 0;
  int64_t cpu_ns = 0;
  int64_t gpu_ns = 0;  // kernels launched beneath the op
  std::vector<uint32_t> events;
};

struct GemmStats {
  bool has_shapes = false;  // some GEMM carried Input Dims
  int64_t gemms = 0;        // outermost GEMM ops inside the steps
  int64_t unaligned = 0;
  int64_t unaligned_cpu_ns = 0;
  int64_t unaligned_gpu_ns = 0;
  std::vector<GemmShape> shapes;  // unaligned ones, by time
};

struct GemmDims {
  int64_t m = -1, k = -1, n = -1;
  bool known() const { return k > 0 && n > 0; }
};
// K and N from an op name and its Input Dims; unknown when the shapes do not fit the op.
GemmDims GemmDimsOf(std::string_view op, const std::vector<std::vector<int64_t>>& dims);

GemmStats AnalyzeGemmShapes(const Trace& trace, const Steps& steps);
// GPU kernel time launched beneath a CPU range.
int64_t GpuTimeUnder(const Trace& trace, uint32_t event);

}  // namespace tl::trace
