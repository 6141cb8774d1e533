// The PyTorch profiler guide's report (第四步) as data: what BuildReport measured for one trace, in the
// sections the guide names, before any of it is laid out as text. Keeping content and layout apart lets
// `torchlint trace` render it as it stands, and lets the cross-check append its own diagnosis and
// recommendation items (code findings with their saving), re-rank them, and render the same way,
// instead of parsing rendered Markdown back. Items are plain vectors; numbers are given at render time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "traceio/analyses/bottleneck.h"
#include "traceio/analyses/breakdown.h"
#include "traceio/analyses/top_ops.h"
#include "traceio/memory_snapshot.h"

namespace tl::trace {

enum class ReportFormat : uint8_t { kText, kMarkdown, kJson };

// 环境信息.
struct EnvironmentFacts {
  std::string trace_path;
  std::string pytorch_version;       // empty: not recorded
  std::string pytorch_era;           // what the trace format implies when the version is not recorded
  std::string cuda_runtime_version;  // empty when not recorded, like the two below
  std::string cuda_driver_version;
  std::string hip_runtime_version;
  std::vector<std::pair<std::string, int>> gpus;  // device name, count
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  size_t step_count = 0;
  std::string step_source;  // "ProfilerStep", "Optimizer.step", "whole trace"
  double mean_step_ms = 0.0;
  bool last_step_dropped = false;
  std::string step_note;  // a step far over the median, in the report's language; empty when none
};

// One row of the top-ops table (times in ns, as measured).
struct TopOpRow {
  std::string name;
  int64_t calls = 0;
  int64_t self_cpu_ns = 0;
  int64_t self_cuda_ns = 0;
  int64_t cuda_total_ns = 0;
};

// One kind of copy, per analysed step.
struct CopyRow {
  std::string direction;  // "HtoD", ...
  std::string src, dst;   // "pageable", "pinned", "device", ...
  double count_per_step = 0.0;
  double mean_bytes = 0.0;
  double gpu_ms_per_step = 0.0;
};

// GPU 利用率概览. Each share says what it is a share of; no figure appears twice under two names.
struct GpuFigures {
  bool has_gpu = false;     // any kernel, memcpy or memset in the steps
  double busy_share = 0.0;  // of step wall time
  bool tensor_cores_used = false;
  double tensor_core_share = 0.0;   // of kernel time
  double short_kernel_share = 0.0;  // of kernels, by count
  int64_t kernels = 0;
  bool has_collectives = false;
  double comm_share_of_kernel_time = 0.0;  // collective kernels' summed time over all kernels' summed time
  double comm_overlap = 0.0;               // part of the collectives' time overlapped by compute kernels
  std::string main_idle_cause;             // in the report's language
  int64_t idle_host_wait_ns = 0, idle_kernel_wait_ns = 0, idle_other_ns = 0;
  // The TensorBoard step breakdown: each instant of the step counted once, for the first role in
  // priority order that is active then. Its DataLoader figure is the time nothing but the DataLoader
  // runs, so it is at most `dataloader_share`.
  std::array<double, kRoleCount> breakdown{};
  double dataloader_share = 0.0;    // time inside DataLoader __next__ calls, over step wall time
  std::string dataloader_iterator;  // "single", "multi", "" (none)
  double syncs_per_step = 0.0;
  double sync_blocked_ms_per_step = 0.0;
  int64_t item_calls = 0, syncing_item_calls = 0;
  bool has_copies = false;
  double pageable_copies_per_step = 0.0;
  std::vector<CopyRow> copies;  // the most frequent kinds, at most four
};

// One point of a device's memory over time, from the trace's first event.
struct MemoryPoint {
  double ms = 0.0;
  int64_t allocated = 0;
  int64_t reserved = 0;  // 0: not recorded
};

// 显存分析, one row per device.
struct MemoryRow {
  std::string device;  // "cuda:0", "cpu"
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;  // 0: not recorded
  int64_t total_global_mem = 0;
  int64_t allocations = 0;
  std::vector<MemoryPoint> timeline;  // thinned to a few hundred points, the peak among them
};

// 瓶颈诊断, one item. `kind` is BottleneckKindName for the trace's verdicts; a caller adding its own
// items names their source (a rule code, "trace-low-gpu-busy", ...).
struct DiagnosisItem {
  std::string kind;
  std::optional<BottleneckKind> bottleneck;  // set for the trace's own verdicts
  Severity severity = Severity::kLow;
  std::string title;   // "Data I/O-bound", in the report's language
  std::string impact;  // one sentence with the figures that matter, in the report's language
  std::vector<EvidenceFigure> figures;
};

// 优化建议, one item. Its priority comes from the time it is about (PriorityOf), so that a tip about
// 0.03 ms of copies never outranks one about a third of the step.
struct RecommendationItem {
  std::string kind;  // BottleneckKindName, or "pin-memory", "zero-grad", "gemm-alignment", "tensor-cores", a rule code
  std::optional<BottleneckKind> bottleneck;
  Severity priority = Severity::kLow;
  std::string text;                   // in the report's language
  std::string code;                   // a Python example, shown in markdown for high-priority items; empty when none
  double ms_at_stake_per_step = 0.0;  // the measured time per step the recommendation is about
};

// 交给 Nsight Compute: one of the hottest kernels and the `ncu` command that profiles one launch of it
// (traceio/analyses/ncu_handoff.h), with what to look for in its report, after the guide's appendix.
struct NcuItem {
  std::string kernel;
  std::string kind;   // KernelClassName: "gemm", "collective", ...
  std::string label;  // the class in the report's language
  double share_of_kernel_time = 0.0;
  double launches_per_step = 0.0;
  size_t also_matched = 0;  // other kernels of the trace the command's regex matches
  std::string command;      // empty for a collective: not worth ncu
  std::string look_for;     // in the report's language
};

struct TraceReport {
  Language language = Language::kEnglish;
  size_t top_n = 10;
  EnvironmentFacts environment;
  std::vector<TopOpRow> top_ops;  // at most top_n rows
  GpuFigures gpu;
  bool memory_recorded = false;
  std::vector<MemoryRow> memory;
  // A CUDA memory snapshot given with the trace (`--memory`): its analysis joins the memory section.
  std::optional<MemorySnapshot> snapshot;
  std::vector<DiagnosisItem> diagnosis;
  std::vector<RecommendationItem> recommendations;  // ranked by ms at stake, largest first
  std::vector<NcuItem> ncu;                         // empty without kernels
  std::string ncu_skip_note;                        // how --launch-skip was chosen, in the report's language
};

// Priority from the time at stake as a share of the mean step: high at 10% or more, medium at 2% or
// more, low below (docs/trace.md). A step of 0 ms makes everything low.
inline constexpr double kHighPriorityShare = 0.10;
inline constexpr double kMediumPriorityShare = 0.02;
Severity PriorityOf(double ms_at_stake_per_step, double step_ms);

// Orders recommendations by ms at stake, largest first; ties keep their order.
void RankRecommendations(std::vector<RecommendationItem>& items);

}  // namespace tl::trace
