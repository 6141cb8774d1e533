// Bottleneck classification by the PyTorch profiler guide's §3.3 table (compute, memory, launch, data
// I/O, communication, sync bound), each verdict carrying the figures that support it beside the §3.2
// healthy thresholds. An entry appears whenever its metric is outside the healthy range, and its
// severity grows as the metric gets worse.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tl::trace {

struct TraceAnalysis;
class Trace;

enum class BottleneckKind : uint8_t { kCompute, kMemory, kLaunch, kData, kCommunication, kSync };
enum class Severity : uint8_t { kLow, kMedium, kHigh };
std::string_view BottleneckKindName(BottleneckKind k);  // "compute", "memory", ...
std::string_view SeverityName(Severity s);              // "low", "medium", "high"

struct EvidenceFigure {
  std::string metric;  // e.g. "dataloader.share"
  double value = 0.0;
  std::string unit;     // "share", "per_step", "ms", "count"
  std::string healthy;  // the §3.2 healthy range, e.g. "< 0.10"
};

struct Bottleneck {
  BottleneckKind kind = BottleneckKind::kCompute;
  Severity severity = Severity::kLow;
  std::vector<EvidenceFigure> evidence;
};

// Healthy thresholds from the guide's §3.2 (and §3.3 where §3.2 has none).
struct Thresholds {
  double gpu_busy_healthy = 0.80;  // > 80% healthy, < 50% severe; compute-bound needs at least this
  double gpu_busy_severe = 0.50;
  double tensor_core_healthy = 0.50;  // > 50% on GPUs with tensor cores
  double dataloader_healthy = 0.10;   // < 10%, > 30% is the bottleneck
  double dataloader_severe = 0.30;
  double comm_healthy = 0.20;  // < 20%, > 40% needs work (§3.3: > 30% of CUDA time)
  double comm_severe = 0.40;
  double syncs_per_step_healthy = 3.0;  // "no more than 2-3 necessary syncs per step"
  double short_kernel_healthy = 0.50;   // §3.3: > 50% of kernels under 10 µs is launch-bound
  double elementwise_healthy = 0.50;    // §3.3: pointwise ops dominate
  double memory_capacity = 0.90;        // peak allocated over device memory
};

// Whether the trace ran on GPUs with tensor cores: compute capability 7.0 or later, a ROCm runtime, or
// tensor-core kernels seen. False on a CPU-only trace.
bool HasTensorCores(const Trace& trace, const TraceAnalysis& analysis);

std::vector<Bottleneck> ClassifyBottlenecks(const Trace& trace, const TraceAnalysis& analysis,
                                            const Thresholds& thresholds = {});

// The language of the texts the trace side hands out (the guide's recommendations, report text).
enum class Language : uint8_t { kEnglish, kChinese };

// The PyTorch profiler guide's recommendation for a bottleneck kind (§3.3), one line.
std::string Recommendation(BottleneckKind kind, Language language);

}  // namespace tl::trace
