#include "traceio/analyses/bottleneck.h"

#include <algorithm>

#include "traceio/analysis.h"

namespace tl::trace {

std::string_view BottleneckKindName(BottleneckKind k) {
  switch (k) {
    case BottleneckKind::kCompute: return "compute";
    case BottleneckKind::kMemory: return "memory";
    case BottleneckKind::kLaunch: return "launch";
    case BottleneckKind::kData: return "data";
    case BottleneckKind::kCommunication: return "communication";
    case BottleneckKind::kSync: return "sync";
  }
  return "compute";
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kLow: return "low";
    case Severity::kMedium: return "medium";
    case Severity::kHigh: return "high";
  }
  return "low";
}

namespace {

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

bool HasTensorCores(const Trace& trace, const TraceAnalysis& a) {
  if (!a.kernels.has_kernels()) return false;
  for (const auto& d : trace.metadata().devices) {
    if (d.compute_major >= 7) return true;
  }
  // ROCm traces and traces without deviceProperties: tensor-core kernels seen prove the hardware has them.
  return a.kernels.tensor_core_count > 0 || !trace.metadata().hip_runtime_version.empty();
}

std::vector<Bottleneck> ClassifyBottlenecks(const Trace& trace, const TraceAnalysis& a, const Thresholds& t) {
  std::vector<Bottleneck> out;
  const bool gpu = a.busy.has_gpu && a.kernels.has_kernels();
  const double busy = a.busy.share;
  const double step_ms = a.steps.mean_ms();
  auto busy_figure = [&]() { return EvidenceFigure{"gpu.busy_share", busy, "share", "> " + Pct(t.gpu_busy_healthy)}; };

  // Data I/O: DataLoader share of the step.
  if (a.dataloader.share > t.dataloader_healthy) {
    Bottleneck b{BottleneckKind::kData, Severity::kLow, {}};
    b.severity = a.dataloader.share > t.dataloader_severe                                ? Severity::kHigh
                 : a.dataloader.share > (t.dataloader_healthy + t.dataloader_severe) / 2 ? Severity::kMedium
                                                                                         : Severity::kLow;
    b.evidence.push_back({"dataloader.share", a.dataloader.share, "share", "< " + Pct(t.dataloader_healthy)});
    if (a.dataloader.iterator == IteratorKind::kSingle) {
      b.evidence.push_back({"dataloader.single_process", 1.0, "flag", "num_workers > 0"});
    }
    if (gpu) b.evidence.push_back(busy_figure());
    out.push_back(std::move(b));
  }

  // Sync: explicit syncs per step, and the host time blocked.
  const double blocked_share = step_ms > 0 ? a.syncs.blocked_ms_per_step / step_ms : 0.0;
  if (a.syncs.per_step > t.syncs_per_step_healthy || blocked_share > 0.10) {
    Bottleneck b{BottleneckKind::kSync, Severity::kLow, {}};
    b.severity = blocked_share > 0.20 ? Severity::kHigh : blocked_share > 0.05 ? Severity::kMedium : Severity::kLow;
    b.evidence.push_back({"syncs.per_step", a.syncs.per_step, "per_step", "<= " + Pct(t.syncs_per_step_healthy)});
    b.evidence.push_back({"syncs.blocked_ms_per_step", a.syncs.blocked_ms_per_step, "ms", ""});
    b.evidence.push_back({"syncs.blocked_share", blocked_share, "share", "< 0.10"});
    if (a.syncs.syncing_items > 0) {
      b.evidence.push_back({"syncs.item_syncs_per_step",
                            static_cast<double>(a.syncs.syncing_items) / std::max<double>(1, a.steps.count()),
                            "per_step", "0"});
    }
    out.push_back(std::move(b));
  }

  // Communication: collective kernels' share of kernel time.
  if (gpu && a.comm.share() > t.comm_healthy) {
    Bottleneck b{BottleneckKind::kCommunication, Severity::kLow, {}};
    const double s = a.comm.share();
    b.severity = s > t.comm_severe ? Severity::kHigh : s > 0.30 ? Severity::kMedium : Severity::kLow;
    b.evidence.push_back({"communication.share", s, "share", "< " + Pct(t.comm_healthy)});
    b.evidence.push_back({"communication.overlap", a.comm.overlap(), "share", "high"});
    out.push_back(std::move(b));
  }

  // Launch: most kernels tiny and the GPU waiting on the host.
  bool launch_flagged = false;
  if (gpu && a.kernels.short_share() > t.short_kernel_healthy && busy < t.gpu_busy_healthy) {
    Bottleneck b{BottleneckKind::kLaunch, Severity::kLow, {}};
    b.severity = busy < t.gpu_busy_severe ? (a.kernels.short_share() > 0.8 ? Severity::kHigh : Severity::kMedium)
                                          : Severity::kLow;
    b.evidence.push_back(
        {"gpu.short_kernel_share", a.kernels.short_share(), "share", "< " + Pct(t.short_kernel_healthy)});
    b.evidence.push_back(busy_figure());
    b.evidence.push_back({"launches.per_step", a.launches.per_step, "per_step", ""});
    b.evidence.push_back({"gpu.idle_host_wait_share", a.idle.host_wait_share(), "share", ""});
    out.push_back(std::move(b));
    launch_flagged = true;
  }

  // Compute: GEMM/conv work not on tensor cores on hardware that has them, on a GPU that is busy (§3.3:
  // "GPU 利用率高"; §3.2's healthy > 80%). A GPU idle for a fifth of the step or more is bound by what
  // keeps it idle, not by its arithmetic; the tensor-core tip is then a recommendation only (report.cpp).
  if (gpu && busy >= t.gpu_busy_healthy && HasTensorCores(trace, a) &&
      a.kernels.tensor_core_share() < t.tensor_core_healthy &&
      (a.kernels.fp32_gemm_ns > 0 || a.kernels.tensor_core_ns > 0)) {
    const double tc = a.kernels.tensor_core_share();
    Bottleneck b{BottleneckKind::kCompute, tc < 0.10 ? Severity::kHigh : Severity::kMedium, {}};
    b.evidence.push_back({"gpu.tensor_core_share", tc, "share", "> " + Pct(t.tensor_core_healthy)});
    b.evidence.push_back(busy_figure());
    if (a.gemms.unaligned > 0) {
      b.evidence.push_back({"gemm.unaligned_per_step",
                            static_cast<double>(a.gemms.unaligned) / std::max<double>(1, a.steps.count()), "per_step",
                            "0"});
    }
    out.push_back(std::move(b));
  }

  // Memory: pointwise kernels dominate a busy GPU, or the allocator is at the device's capacity.
  double capacity_share = 0.0;
  for (const auto& d : a.memory.devices) {
    if (d.device_type == 1 && d.total_global_mem > 0) {
      capacity_share = std::max(capacity_share,
                                static_cast<double>(d.peak_allocated) / static_cast<double>(d.total_global_mem));
    }
  }
  const double ew = a.kernels.elementwise_share();
  if ((gpu && ew > t.elementwise_healthy && busy >= t.gpu_busy_severe) || capacity_share > t.memory_capacity) {
    Bottleneck b{BottleneckKind::kMemory, Severity::kLow, {}};
    b.severity = capacity_share > t.memory_capacity || ew > 0.7 ? Severity::kHigh
                 : ew > 0.6                                     ? Severity::kMedium
                                                                : Severity::kLow;
    b.evidence.push_back({"gpu.elementwise_share", ew, "share", "< " + Pct(t.elementwise_healthy)});
    if (capacity_share > 0) {
      b.evidence.push_back({"memory.peak_share_of_device", capacity_share, "share", "< " + Pct(t.memory_capacity)});
    }
    out.push_back(std::move(b));
  }

  // A GPU that idles with none of the above to explain it is waiting on the host: launch/CPU bound.
  const bool explained = std::any_of(out.begin(), out.end(), [](const Bottleneck& b) {
    return b.kind == BottleneckKind::kData || b.kind == BottleneckKind::kSync ||
           b.kind == BottleneckKind::kCommunication;
  });
  if (gpu && busy < t.gpu_busy_healthy && !launch_flagged && !explained) {
    Bottleneck b{BottleneckKind::kLaunch, busy < t.gpu_busy_severe ? Severity::kMedium : Severity::kLow, {}};
    b.evidence.push_back(busy_figure());
    b.evidence.push_back({"gpu.idle_host_wait_share", a.idle.host_wait_share(), "share", ""});
    b.evidence.push_back(
        {"gpu.short_kernel_share", a.kernels.short_share(), "share", "< " + Pct(t.short_kernel_healthy)});
    out.push_back(std::move(b));
  }

  std::stable_sort(out.begin(), out.end(),
                   [](const Bottleneck& x, const Bottleneck& y) { return x.severity > y.severity; });
  return out;
}

std::string Recommendation(BottleneckKind kind, Language lang) {
  auto t = [lang](const char* en, const char* zh) { return std::string(lang == Language::kChinese ? zh : en); };
  switch (kind) {
    case BottleneckKind::kData:
      return t(
          "Load data in worker processes: num_workers=4-8, pin_memory=True, persistent_workers=True, prefetch_factor",
          "设置 num_workers=4~8，pin_memory=True，persistent_workers=True，调整 prefetch_factor");
    case BottleneckKind::kSync:
      return t("Remove .item(), print(cuda_tensor) and .cpu() from the step loop; defer syncs to the end of the step",
               "去掉 .item()、print(cuda_tensor)、.cpu() 调用，把同步延迟到 step 结束");
    case BottleneckKind::kLaunch:
      return t("Fuse small kernels with torch.compile, or capture the step with CUDA Graphs; cut Python overhead",
               "使用 torch.compile 做算子融合，或启用 CUDA Graph，减少 Python 调用");
    case BottleneckKind::kCompute:
      return t(
          "Use mixed precision (BF16/FP16) and keep GEMM dimensions multiples of 8 for tensor cores; torch.compile",
          "混合精度（BF16/FP16）、Tensor Core 对齐（维度为 8 的倍数）、torch.compile");
    case BottleneckKind::kMemory:
      return t("Fuse pointwise ops (torch.compile, Liger Kernel), cut intermediate tensors, use Flash Attention",
               "算子融合（Liger Kernel/torch.compile）、减少中间张量、Flash Attention");
    case BottleneckKind::kCommunication:
      return t("Overlap communication with computation, check load balance, consider gradient compression or ZeRO++",
               "启用通信计算重叠 (overlap_comm)，检查负载均衡，梯度压缩、ZeRO++");
  }
  return "";
}

}  // namespace tl::trace
