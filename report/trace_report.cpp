#include "report/trace_report.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "linter/output/ansi.h"
#include "report/memory_report.h"

namespace tl::trace {

namespace {

// Objects keep their keys in the order written here, the documented order.
using json = nlohmann::ordered_json;

json Share(bool valid, double v) { return valid ? json(v) : json(nullptr); }

// Strings from the input (paths, metadata, names, error snippets) may hold invalid UTF-8, and dump()
// throws on it. The objects handed out are made valid here, with U+FFFD for bad bytes, so that any
// caller may dump them; a round trip through nlohmann's own replacing dump keeps its rules.
json ValidUtf8(const json& j) { return json::parse(j.dump(-1, ' ', false, json::error_handler_t::replace)); }

std::string Ms(int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }
std::string Pct(double v) { return fmt::format("{:.1f}%", v * 100); }
// A share that must not read 0.0% when it is not zero.
std::string SmallPct(double v) { return v > 0 && v < 0.0005 ? std::string("< 0.1%") : Pct(v); }

std::string Bytes(double b) {
  if (b < 1e3) return fmt::format("{:.0f} B", b);
  if (b < 1e6) return fmt::format("{:.1f} KB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.2f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

std::string FormatName(const TraceMetadata& md) {
  switch (md.format) {
    case TraceFormat::kKineto: return "kineto";
    case TraceFormat::kKinetoOld: return "kineto-1.8";
    case TraceFormat::kLegacyList: return "legacy";
    case TraceFormat::kNsys: return "nsys";
    case TraceFormat::kUnknown: return "unknown";
  }
  return "unknown";
}

struct Text {
  Language lang;
  const char* operator()(const char* en, const char* zh) const { return lang == Language::kChinese ? zh : en; }
};

std::string KindTitle(BottleneckKind k, Language lang) {
  Text t{lang};
  switch (k) {
    case BottleneckKind::kCompute: return t("Compute-bound", "计算瓶颈（Compute-bound）");
    case BottleneckKind::kMemory: return t("Memory-bound", "访存瓶颈（Memory-bound）");
    case BottleneckKind::kLaunch: return t("Launch-bound", "启动开销瓶颈（Launch-bound）");
    case BottleneckKind::kData: return t("Data I/O-bound", "数据加载瓶颈（Data I/O-bound）");
    case BottleneckKind::kCommunication: return t("Communication-bound", "通信瓶颈（Communication-bound）");
    case BottleneckKind::kSync: return t("Sync-bound", "同步瓶颈（Sync-bound）");
  }
  return "";
}

}  // namespace

std::string SeverityLabel(Severity s, Language lang) {
  Text t{lang};
  switch (s) {
    case Severity::kHigh: return t("high", "高");
    case Severity::kMedium: return t("medium", "中");
    case Severity::kLow: return t("low", "低");
  }
  return "";
}

namespace {

std::string FigureText(const EvidenceFigure& f, Language lang) {
  Text t{lang};
  std::string v = f.unit == "share" ? Pct(f.value) : fmt::format("{:.2f}", f.value);
  if (f.unit == "ms") v += " ms";
  if (f.unit == "flag") v = t("yes", "是");
  std::string healthy = f.healthy;
  if (f.unit == "share" && !healthy.empty()) {
    // "> 0.80" -> "> 80%"
    size_t sp = healthy.find(' ');
    if (sp != std::string::npos) {
      try {
        healthy = healthy.substr(0, sp + 1) + Pct(std::stod(healthy.substr(sp + 1)));
      } catch (...) {
      }
    }
  }
  if (healthy.empty()) return fmt::format("{} {}", f.metric, v);
  return fmt::format(fmt::runtime(t("{} {} (healthy {})", "{} {}（健康值 {}）")), f.metric, v, healthy);
}

}  // namespace

std::string RoleLabel(Role r, Language lang) {
  if (lang == Language::kEnglish) return std::string(RoleName(r));
  switch (r) {
    case Role::kKernel: return "Kernel";
    case Role::kMemcpy: return "内存拷贝";
    case Role::kMemset: return "内存置位";
    case Role::kCommunication: return "通信";
    case Role::kRuntime: return "CUDA Runtime";
    case Role::kDataLoader: return "DataLoader";
    case Role::kCpuExec: return "CPU 执行";
    case Role::kOther: return "其他";
  }
  return "其他";
}

namespace {

// Short kind names for the rank table.
std::string KindShort(BottleneckKind k, Language lang) {
  if (lang == Language::kEnglish) return std::string(BottleneckKindName(k));
  switch (k) {
    case BottleneckKind::kCompute: return "计算";
    case BottleneckKind::kMemory: return "访存";
    case BottleneckKind::kLaunch: return "启动开销";
    case BottleneckKind::kData: return "数据加载";
    case BottleneckKind::kCommunication: return "通信";
    case BottleneckKind::kSync: return "同步";
  }
  return "";
}

std::string StepSourceLabel(StepSource s, Language lang) {
  if (lang == Language::kChinese && s == StepSource::kWholeTrace) return "整个 trace";
  return std::string(StepSourceName(s));
}

const char* MemoryKindName(MemoryKind m) {
  switch (m) {
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kOther: return "other";
    case MemoryKind::kUnknown: return "unknown";
  }
  return "unknown";
}

// A step much longer than the others: usually the first analysed one, whose window the TensorBoard rule
// stretches to the end of GPU work queued before it (warm-up, or lag carried over from the steps before
// the profiler's active phase). The mean includes it, so the report says so.
struct StepOutlier {
  size_t index = 0;  // into steps.analysed
  double ms = 0.0;
  double median_ms = 0.0;
  size_t over = 0;  // how many steps are over the limit
};

constexpr double kStepOutlierRatio = 1.5;

double MedianStepMs(const Steps& steps) {
  std::vector<double> v;
  for (const auto& s : steps.analysed) v.push_back(static_cast<double>(s.duration()) / 1e6);
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<StepOutlier> FindStepOutlier(const Steps& steps) {
  if (steps.count() < 3) return std::nullopt;  // with two steps the median is their mean: no outlier to see
  StepOutlier o;
  o.median_ms = MedianStepMs(steps);
  if (o.median_ms <= 0) return std::nullopt;
  for (size_t i = 0; i < steps.analysed.size(); ++i) {
    const double ms = static_cast<double>(steps.analysed[i].duration()) / 1e6;
    if (ms <= kStepOutlierRatio * o.median_ms) continue;
    ++o.over;
    if (ms > o.ms) {
      o.ms = ms;
      o.index = i;
    }
  }
  if (o.over == 0) return std::nullopt;
  return o;
}

std::string StepOutlierNote(const StepOutlier& o, size_t count, Language lang) {
  Text t{lang};
  std::string more;
  if (o.over > 1)
    more = fmt::format(fmt::runtime(t("; {} steps are over 1.5x the median", "；共 {} 个 step 超过中位数的 1.5 倍")),
                       o.over);
  return fmt::format(
      fmt::runtime(t("step {0} of {1} takes {2:.1f} ms, {3:.1f}x the median step ({4:.1f} ms){5}: its window may be "
                     "stretched by GPU work queued before it (warm-up or GPU lag), and the mean includes it",
                     "第 {0} 个 step（共 {1} 个）耗时 {2:.1f} ms，是 step 中位数（{4:.1f} ms）的 {3:.1f} 倍{5}："
                     "其窗口可能被此前排队的 GPU 工作（预热或 GPU 滞后）拉长，平均值包含了它")),
      o.index + 1, count, o.ms, o.ms / o.median_ms, o.median_ms, more);
}

const char* CodeExample(BottleneckKind k) {
  switch (k) {
    case BottleneckKind::kData:
      return "loader = DataLoader(ds, batch_size=B, num_workers=8, pin_memory=True,\n"
             "                    persistent_workers=True, prefetch_factor=4)";
    case BottleneckKind::kSync:
      return "running_loss += loss.detach()      # no .item() inside the loop\n"
             "...\n"
             "print(running_loss.item() / steps)  # one sync at the end";
    case BottleneckKind::kLaunch:
      return "model = torch.compile(model, mode=\"reduce-overhead\")  # fusion + CUDA Graphs";
    case BottleneckKind::kCompute:
      return "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n    loss = criterion(model(x), y)";
    case BottleneckKind::kMemory: return "model = torch.compile(model)  # fuses pointwise ops";
    case BottleneckKind::kCommunication: return "model = DDP(model, bucket_cap_mb=50, gradient_as_bucket_view=True)";
  }
  return "";
}

std::string Plural(size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

// The class of a kernel handed to Nsight Compute, and what to look for in its ncu report: the PyTorch
// profiler guide's table of when ncu is needed, row by row.
std::string NcuClassLabel(KernelClass k, Language lang) {
  Text t{lang};
  switch (k) {
    case KernelClass::kGemm: return t("matmul (GEMM)", "矩阵乘（GEMM）");
    case KernelClass::kConvolution: return t("convolution", "卷积");
    case KernelClass::kElementwise: return t("pointwise (memory-bound)", "逐元素（访存型）");
    case KernelClass::kReduction: return t("reduction", "归约");
    case KernelClass::kTriton: return t("Triton (custom kernel)", "Triton 自定义 kernel");
    case KernelClass::kCollective: return t("collective", "集合通信");
    case KernelClass::kOther: return t("other", "其他");
  }
  return "";
}

std::string NcuLookFor(KernelClass k, Language lang) {
  Text t{lang};
  switch (k) {
    case KernelClass::kGemm:
      return t(
          "a matmul below expectation: SM use, tensor-core use (does it run on the tensor pipes at all?) and the "
          "warp stall reasons that hold the pipeline back",
          "matmul 性能未达预期：看 SM 利用率、Tensor Core 命中率（是否用上了 Tensor Core）以及拖慢流水线的 "
          "warp stall 原因");
    case KernelClass::kConvolution:
      return t(
          "a convolution runs as an implicit GEMM: SM use, tensor-core use and pipeline stalls, as for a matmul, "
          "and whether the memory layout (channels_last) lets it use tensor cores",
          "卷积以隐式 GEMM 运行：与 matmul 一样看 SM 利用率、Tensor Core 命中率和流水线停顿，并确认内存布局"
          "（channels_last）能否让它用上 Tensor Core");
    case KernelClass::kElementwise:
      return t(
          "memory-bound by nature: DRAM throughput against the peak, the L2 hit rate and sectors per request "
          "(global load efficiency); near the DRAM peak only fusing it with its neighbours (torch.compile) helps",
          "天然是访存型：看 DRAM 吞吐与峰值带宽之比、L2 命中率和每次请求的 sector 数（global load 效率）；"
          "若 DRAM 已接近峰值，只有与相邻算子融合（torch.compile）才有帮助");
    case KernelClass::kReduction:
      return t("memory throughput first, then the warp stall reasons (barriers, shuffles) and branch efficiency",
               "先看访存吞吐，再看 warp stall 原因的分布（barrier、shuffle）和分支效率");
    case KernelClass::kTriton:
      return t(
          "a kernel of your own (Triton, from torch.compile): achieved occupancy, registers per thread, "
          "shared-memory bank conflicts and the source lines where warps stall",
          "自定义 Triton kernel（来自 torch.compile）：看实际 occupancy、每个线程的 register 用量、shared memory 的"
          " bank 冲突，以及 warp 停顿所在的源码行");
    case KernelClass::kOther:
      return t(
          "a kernel the trace cannot place: the roofline first (compute- or memory-bound), then occupancy, "
          "registers and warp stall reasons",
          "无法归类的 kernel：先用 Roofline 判断是计算受限还是访存受限，再看 occupancy、register 用量和 warp stall"
          " 原因");
    case KernelClass::kCollective:
      return t(
          "not worth ncu: it would measure the wait for the other ranks, not the kernel; look at its overlap with "
          "compute in the trace or in Nsight Systems",
          "不值得用 ncu 分析：它测到的是等待其他 rank 的时间，而不是 kernel 本身；请在 trace 或 Nsight Systems "
          "中看它与计算的重叠");
  }
  return "";
}

// How --launch-skip was chosen, for the report and the JSON.
std::string NcuSkipNote(const NcuHandoff& n, Language lang) {
  Text t{lang};
  if (n.basis == SkipBasis::kNoSteps) {
    return t(
        "the trace has no steps, so --launch-skip is 0 and ncu profiles each kernel's first launch, which may "
        "be a warm-up one: raise --launch-skip to pass the warm-up",
        "trace 中没有 step，因此 --launch-skip 为 0，ncu 分析每个 kernel 的第一次启动，它可能属于预热阶段："
        "请调大 --launch-skip 以跳过预热");
  }
  if (n.basis == SkipBasis::kProfilerStepNumber && n.steps_before == 0) {
    return t("the trace starts at ProfilerStep#0, so --launch-skip is 0 and ncu profiles each kernel's first launch",
             "trace 从 ProfilerStep#0 开始，因此 --launch-skip 为 0，ncu 分析每个 kernel 的第一次启动");
  }
  if (n.basis == SkipBasis::kProfilerStepNumber) {
    return fmt::format(
        fmt::runtime(
            t("--launch-skip skips each kernel's launches in steps 0 to {1}, before ProfilerStep#{0} where "
              "the trace starts, and ncu profiles its first launch in that step; launches outside the step "
              "loop (set-up, validation) would shift it",
              "--launch-skip 跳过 trace 起点 ProfilerStep#{0} 之前第 0 到第 {1} 个 step 中该 kernel 的全部启动，"
              "ncu 分析它在该 step 中的第一次启动；step 循环之外的启动（初始化、验证）会使其偏移")),
        n.steps_before, n.steps_before - 1);
  }
  return fmt::format(
      fmt::runtime(t("the trace does not say how many steps ran before it, so --launch-skip skips each kernel's "
                     "launches in {} steps, the skip_first, wait and warm-up steps of the PyTorch profiler guide's "
                     "schedule (10, 5, 1); launches outside the step loop would shift it",
                     "trace 未记录其之前运行了多少个 step，因此 --launch-skip 跳过 {} 个 step 中该 kernel 的启动，即 "
                     "PyTorch profiler 指南中 schedule 的 skip_first、wait 和 warmup（10、5、1）；step 循环之外的启动会"
                     "使其偏移")),
      n.steps_before);
}

std::string NcuSkipBasisName(SkipBasis b) {
  switch (b) {
    case SkipBasis::kProfilerStepNumber: return "profiler_step_number";
    case SkipBasis::kAssumedSchedule: return "assumed_schedule";
    case SkipBasis::kNoSteps: return "no_steps";
  }
  return "no_steps";
}

}  // namespace

json AnalysisToJson(const Trace& trace, const TraceAnalysis& a) {
  const auto& md = trace.metadata();
  const bool gpu = a.busy.has_gpu;
  const bool kernels = a.kernels.has_kernels();
  const double n_steps_json = static_cast<double>(std::max<size_t>(1, a.steps.count()));
  json j;
  j["file"] = md.path;
  j["format"] = FormatName(md);
  json env;
  env["pytorch_version"] = md.pytorch_version.empty() ? json(nullptr) : json(md.pytorch_version);
  env["cuda_runtime_version"] = md.cuda_runtime_version.empty() ? json(nullptr) : json(md.cuda_runtime_version);
  env["cuda_driver_version"] = md.cuda_driver_version.empty() ? json(nullptr) : json(md.cuda_driver_version);
  env["hip_runtime_version"] = md.hip_runtime_version.empty() ? json(nullptr) : json(md.hip_runtime_version);
  env["gpus"] = json::array();
  for (const auto& d : md.devices) {
    env["gpus"].push_back({{"id", d.id},
                           {"name", d.name},
                           {"compute_capability", fmt::format("{}.{}", d.compute_major, d.compute_minor)},
                           {"total_memory_bytes", d.total_global_mem}});
  }
  env["rank"] = md.rank ? json(*md.rank) : json(nullptr);
  env["world_size"] = md.world_size ? json(*md.world_size) : json(nullptr);
  j["environment"] = env;

  j["steps"] = {{"count", a.steps.count()},
                {"mean_ms", a.steps.mean_ms()},
                {"source", std::string(StepSourceName(a.steps.source))},
                {"last_partial_step_dropped", a.steps.last_dropped},
                {"per_step_ms", json::array()}};
  for (const auto& s : a.steps.analysed) j["steps"]["per_step_ms"].push_back(static_cast<double>(s.duration()) / 1e6);
  j["steps"]["median_ms"] = MedianStepMs(a.steps);
  const auto outlier = FindStepOutlier(a.steps);
  j["steps"]["outlier_index"] = outlier ? json(outlier->index) : json(nullptr);
  j["steps"]["note"] = outlier ? json(StepOutlierNote(*outlier, a.steps.count(), Language::kEnglish)) : json(nullptr);

  json g;
  g["busy_share"] = Share(gpu, a.busy.share);
  g["tensor_core_share"] = Share(kernels, a.kernels.tensor_core_share());
  g["short_kernel_share"] = Share(kernels, a.kernels.short_share());
  g["kernels"] = a.kernels.count;
  g["kernel_ms"] = static_cast<double>(a.kernels.total_ns) / 1e6;
  g["median_kernel_us"] = static_cast<double>(a.kernels.median_ns) / 1e3;
  g["devices"] = json::array();
  for (const auto& d : a.busy.devices) g["devices"].push_back({{"device", d.device}, {"busy_share", d.share}});
  g["idle"] = {{"host_wait_ms", static_cast<double>(a.idle.host_wait_ns) / 1e6},
               {"kernel_wait_ms", static_cast<double>(a.idle.kernel_wait_ns) / 1e6},
               {"other_ms", static_cast<double>(a.idle.other_ns) / 1e6}};
  g["launches"] = {{"count", a.launches.launches},
                   {"per_step", a.launches.per_step},
                   {"short_kernels", a.launches.short_kernels},
                   {"mean_cpu_us", a.launches.mean_cpu_us()},
                   {"mean_delay_us", a.launches.mean_delay_us()},
                   {"runtime_outliers", a.launches.runtime_outliers},
                   {"delay_outliers", a.launches.delay_outliers}};
  g["top_kernels"] = json::array();
  for (const auto& k : a.kernels.top) {
    g["top_kernels"].push_back({{"name", k.name},
                                {"count", k.count},
                                {"total_ms", static_cast<double>(k.total_ns) / 1e6},
                                {"mean_us", k.mean_ns() / 1e3},
                                {"tensor_core", k.tensor_core}});
  }
  j["gpu"] = g;
  // The hand-off to Nsight Compute: the hottest kernels, each with the ncu command for one launch of it.
  json ncu = json::array();
  for (const auto& k : a.ncu.kernels) {
    const bool profiled = !k.command.empty();
    json sections = json::array();
    for (auto s : k.sections) sections.push_back(std::string(s));
    ncu.push_back({{"kernel", k.name},
                   {"class", std::string(KernelClassName(k.kind))},
                   {"share_of_kernel_time", k.share_of_kernel_time},
                   {"launches_per_step", static_cast<double>(k.launches) / n_steps_json},
                   {"kernel_name_base", profiled ? json(std::string(NameBaseName(k.pattern.base))) : json(nullptr)},
                   {"regex", profiled ? json(k.pattern.regex) : json(nullptr)},
                   {"matched_kernels", profiled ? json(k.matched_names) : json(nullptr)},
                   {"launch_skip", profiled ? json(k.launch_skip) : json(nullptr)},
                   {"steps_skipped", a.ncu.steps_before},
                   {"steps_skipped_basis", NcuSkipBasisName(a.ncu.basis)},
                   {"sections", sections},
                   {"command", profiled ? json(k.command) : json(nullptr)},
                   {"look_for", NcuLookFor(k.kind, Language::kEnglish)}});
  }
  j["ncu"] = std::move(ncu);
  j["communication"] = {{"share", Share(kernels, a.comm.share())},
                        {"overlap", Share(a.comm.comm_union_ns > 0, a.comm.overlap())}};
  j["dataloader"] = {{"share", a.dataloader.share},
                     {"iterator", a.dataloader.iterator == IteratorKind::kNone
                                      ? json(nullptr)
                                      : json(std::string(IteratorName(a.dataloader.iterator)))},
                     {"calls", a.dataloader.calls}};
  j["syncs"] = {{"per_step", a.syncs.per_step},
                {"blocked_ms_per_step", a.syncs.blocked_ms_per_step},
                {"item_calls", a.syncs.items_in_steps},
                {"syncing_item_calls", a.syncs.syncing_items}};
  // Totals over the analysed steps (count, bytes, gpu_ms, as before) and the same per step.
  json copies = json::array();
  const double n_steps = static_cast<double>(std::max<size_t>(1, a.steps.count()));
  for (const auto& c : a.copies.groups) {
    copies.push_back({{"direction", std::string(DirectionName(c.kind.direction))},
                      {"src", MemoryKindName(c.kind.src)},
                      {"dst", MemoryKindName(c.kind.dst)},
                      {"count", c.count},
                      {"bytes", c.bytes},
                      {"gpu_ms", static_cast<double>(c.gpu_ns) / 1e6},
                      {"count_per_step", static_cast<double>(c.count) / n_steps},
                      {"bytes_per_step", static_cast<double>(c.bytes) / n_steps},
                      {"gpu_ms_per_step", static_cast<double>(c.gpu_ns) / 1e6 / n_steps}});
  }
  j["memcpy"] = {{"pageable_per_step", a.copies.pageable_per_step}, {"kinds", copies}};
  const auto& z = a.optimizer.zero_grad;
  j["optimizer"] = {
      {"zero_grad",
       {{"calls", z.calls}, {"ms_per_step", z.ms_per_step}, {"fill_ops", z.fill_ops}, {"kernels", z.kernels}}}};
  json shapes = json::array();
  for (const auto& s : a.gemms.shapes) {
    shapes.push_back({{"op", s.op},
                      {"input_dims", s.dims},
                      {"dtype", s.dtype},
                      {"k", s.k},
                      {"n", s.n},
                      {"count", s.count},
                      {"cpu_ms", static_cast<double>(s.cpu_ns) / 1e6},
                      {"gpu_ms", static_cast<double>(s.gpu_ns) / 1e6}});
  }
  j["gemm"] = {{"has_shapes", a.gemms.has_shapes},
               {"count", a.gemms.gemms},
               {"unaligned", a.gemms.unaligned},
               {"unaligned_shapes", shapes}};
  json mem = json::array();
  for (const auto& d : a.memory.devices) {
    // [ms from the trace's first event, allocated bytes, reserved bytes or null], thinned, the peak kept.
    json timeline = json::array();
    for (const auto& s : d.timeline) {
      timeline.push_back({static_cast<double>(s.ts - trace.min_ts()) / 1e6, s.allocated,
                          d.peak_reserved > 0 ? json(s.reserved) : json(nullptr)});
    }
    mem.push_back(
        {{"device", d.device_type == 1 ? fmt::format("cuda:{}", d.device_id) : std::string("cpu")},
         {"peak_allocated_bytes", d.peak_allocated},
         {"peak_reserved_bytes", d.peak_reserved > 0 ? json(d.peak_reserved) : json(nullptr)},  // null: not recorded
         {"timeline", std::move(timeline)}});
  }
  j["memory"] = mem;
  json bd;
  for (size_t r = 0; r < kRoleCount; ++r) {
    bd[std::string(RoleName(static_cast<Role>(r)))] = a.breakdown.Share(static_cast<Role>(r), a.steps.analysed_ns);
  }
  j["breakdown"] = bd;
  json ops = json::array();
  for (const auto& o : a.top_ops.ops) {
    ops.push_back({{"name", o.name},
                   {"calls", o.calls},
                   {"self_cpu_ms", static_cast<double>(o.self_cpu_ns) / 1e6},
                   {"cpu_total_ms", static_cast<double>(o.cpu_total_ns) / 1e6},
                   {"self_cuda_ms", static_cast<double>(o.self_cuda_ns) / 1e6},
                   {"cuda_total_ms", static_cast<double>(o.cuda_total_ns) / 1e6}});
  }
  j["top_ops"] = ops;
  json bn = json::array();
  for (const auto& b : a.bottlenecks) {
    json ev = json::array();
    for (const auto& f : b.evidence) {
      ev.push_back(
          {{"metric", f.metric}, {"value", f.value}, {"healthy", f.healthy.empty() ? json(nullptr) : json(f.healthy)}});
    }
    bn.push_back({{"kind", std::string(BottleneckKindName(b.kind))},
                  {"severity", std::string(SeverityName(b.severity))},
                  {"evidence", ev},
                  {"recommendation", Recommendation(b.kind, Language::kEnglish)}});
  }
  j["bottlenecks"] = bn;
  // The report's recommendations, ranked by the time at stake (BuildReport), with their priority.
  json recs = json::array();
  for (const auto& rec : BuildReport(trace, a, Language::kEnglish).recommendations) {
    recs.push_back({{"kind", rec.kind},
                    {"priority", std::string(SeverityName(rec.priority))},
                    {"text", rec.text},
                    {"ms_at_stake_per_step", rec.ms_at_stake_per_step}});
  }
  j["recommendations"] = recs;
  return ValidUtf8(j);
}

// Each rank's analysis is valid UTF-8 already (AnalysisToJson); only the text added here, which comes
// from file names and the input, is made so.
json TraceSetToJson(const TraceSet& set) {
  auto one = [](const RankTrace& r) {
    json j = r.read.ok() && r.analysis ? AnalysisToJson(*r.read.trace, *r.analysis) : json::object();
    j["file"] = ValidUtf8(r.path);
    j["warnings"] = ValidUtf8(r.read.warnings);
    if (!r.read.ok()) j["error"] = ValidUtf8(r.read.error);
    return j;
  };
  if (!set.folder && set.ranks.size() == 1) return one(set.ranks[0]);
  json j;
  j["path"] = ValidUtf8(set.path);
  j["rank_count"] = set.rank_count();
  j["ranks"] = json::array();
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const auto& rt = set.ranks[i];
    json r = one(rt);
    r["rank"] = rt.rank;
    r["straggler"] = set.straggler && static_cast<size_t>(*set.straggler) == i;
    // Several files of one rank: its profiling cycles, oldest first; the last stands for the rank.
    r["cycle"] = rt.cycle;
    r["cycles"] = rt.cycles;
    r["representative"] = rt.representative();
    j["ranks"].push_back(std::move(r));
  }
  j["straggler"] = set.straggler ? json(set.ranks[static_cast<size_t>(*set.straggler)].rank) : json(nullptr);
  if (set.straggler_test) {
    const auto& st = *set.straggler_test;
    j["straggler_test"] = {{"metric", st.metric},
                           {"rank", st.rank},
                           {"value", st.value},
                           {"others_mean", st.others_mean},
                           {"flagged", set.straggler.has_value()}};
  } else {
    j["straggler_test"] = nullptr;
  }
  j["errors"] = ValidUtf8(set.errors);
  return j;
}

std::string JsonText(const nlohmann::ordered_json& j, int indent) {
  // Paths, error snippets and metadata strings come from the input and may hold invalid UTF-8, which
  // dump() would throw on; replace it with U+FFFD instead.
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string JsonText(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

Severity PriorityOf(double ms_at_stake_per_step, double step_ms) {
  if (step_ms <= 0) return Severity::kLow;
  const double share = ms_at_stake_per_step / step_ms;
  return share >= kHighPriorityShare     ? Severity::kHigh
         : share >= kMediumPriorityShare ? Severity::kMedium
                                         : Severity::kLow;
}

void RankRecommendations(std::vector<RecommendationItem>& items) {
  std::stable_sort(items.begin(), items.end(), [](const RecommendationItem& x, const RecommendationItem& y) {
    return x.ms_at_stake_per_step > y.ms_at_stake_per_step;
  });
}

namespace {

// The sentence that says what a verdict costs, with the figures a reader needs to judge it.
std::string ImpactOf(const Bottleneck& b, const TraceAnalysis& a, double n_steps, Language lang) {
  Text t{lang};
  const double step_ms = a.steps.mean_ms();
  switch (b.kind) {
    case BottleneckKind::kData:
      return fmt::format(
          fmt::runtime(t("DataLoader __next__ calls take {} of step time, {:.2f} ms per step{}",
                         "DataLoader __next__ 调用占 step 时间的 {}，每 step {:.2f} ms{}")),
          Pct(a.dataloader.share), static_cast<double>(a.dataloader.total_ns) / 1e6 / n_steps,
          a.dataloader.iterator == IteratorKind::kSingle
              ? t(", loaded in the training process (num_workers=0)", "，在训练进程中加载（num_workers=0）")
              : "");
    case BottleneckKind::kSync:
      return fmt::format(fmt::runtime(t("{:.1f} syncs per step block the host for {:.2f} ms, {} of the step",
                                        "每 step {:.1f} 次同步，阻塞 CPU {:.2f} ms，占 step 的 {}")),
                         a.syncs.per_step, a.syncs.blocked_ms_per_step,
                         Pct(step_ms > 0 ? a.syncs.blocked_ms_per_step / step_ms : 0.0));
    case BottleneckKind::kCommunication:
      return fmt::format(
          fmt::runtime(t("collective kernels take {} of GPU kernel time, {} of it overlapped with compute; "
                         "{:.2f} ms per step is not overlapped",
                         "集合通信 kernel 占 GPU kernel 时间的 {}，其中 {} 与计算重叠；每 step {:.2f} ms 未被重叠")),
          Pct(a.comm.share()), Pct(a.comm.overlap()),
          static_cast<double>(a.comm.comm_union_ns - a.comm.overlapped_ns) / 1e6 / n_steps);
    case BottleneckKind::kLaunch:
      return fmt::format(
          fmt::runtime(t("the GPU is busy {} of the step and idle {:.2f} ms per step; {} of kernels run under 10 µs",
                         "GPU 仅在 step 的 {} 时间内活跃，每 step 空闲 {:.2f} ms；{} 的 kernel 短于 10 μs")),
          Pct(a.busy.share), (1.0 - a.busy.share) * step_ms, Pct(a.kernels.short_share()));
    case BottleneckKind::kCompute:
      return fmt::format(
          fmt::runtime(
              t("the GPU is busy {} of the step, but only {} of kernel time runs on tensor cores; "
                "fp32 GEMMs take {:.2f} ms per step",
                "GPU 在 step 的 {} 时间内活跃，但只有 {} 的 kernel 时间使用 Tensor Core；fp32 GEMM 每 step {:.2f} ms")),
          Pct(a.busy.share), Pct(a.kernels.tensor_core_share()),
          static_cast<double>(a.kernels.fp32_gemm_ns) / 1e6 / n_steps);
    case BottleneckKind::kMemory: {
      std::string cap;
      for (const auto& f : b.evidence) {
        if (f.metric == "memory.peak_share_of_device") {
          cap = fmt::format(fmt::runtime(t("; peak memory is {} of the device", "；峰值显存占设备的 {}")),
                            Pct(f.value));
        }
      }
      return fmt::format(fmt::runtime(t("pointwise kernels take {} of kernel time, {:.2f} ms per step{}",
                                        "逐元素 kernel 占 kernel 时间的 {}，每 step {:.2f} ms{}")),
                         Pct(a.kernels.elementwise_share()),
                         static_cast<double>(a.kernels.elementwise_ns) / 1e6 / n_steps, cap);
    }
  }
  return "";
}

// The measured time per step a bottleneck's recommendation is about.
double MsAtStake(BottleneckKind k, const TraceAnalysis& a, double n_steps) {
  switch (k) {
    case BottleneckKind::kData: return static_cast<double>(a.dataloader.total_ns) / 1e6 / n_steps;
    case BottleneckKind::kSync: return a.syncs.blocked_ms_per_step;
    // The part of communication that compute does not hide.
    case BottleneckKind::kCommunication:
      return static_cast<double>(std::max<int64_t>(0, a.comm.comm_union_ns - a.comm.overlapped_ns)) / 1e6 / n_steps;
    // The GPU's time waiting on the host that neither the DataLoader (when it runs alone) nor blocking
    // syncs explain: what launch and Python overhead keep idle.
    case BottleneckKind::kLaunch: {
      const double loading_ms = a.breakdown.Share(Role::kDataLoader, a.steps.analysed_ns) * a.steps.mean_ms();
      return std::max(
          0.0, static_cast<double>(a.idle.host_wait_ns) / 1e6 / n_steps - loading_ms - a.syncs.blocked_ms_per_step);
    }
    case BottleneckKind::kCompute: return static_cast<double>(a.kernels.fp32_gemm_ns) / 1e6 / n_steps;
    case BottleneckKind::kMemory: return static_cast<double>(a.kernels.elementwise_ns) / 1e6 / n_steps;
  }
  return 0.0;
}

// Kernel names run to hundreds of bytes; the report shows their start, the JSON the whole.
constexpr size_t kNcuNameShown = 120;

}  // namespace

TraceReport BuildReport(const Trace& trace, const TraceAnalysis& a, Language lang, size_t top_n) {
  Text t{lang};
  TraceReport r;
  r.language = lang;
  r.top_n = top_n;
  const auto& meta = trace.metadata();
  const double n_steps = static_cast<double>(std::max<size_t>(1, a.steps.count()));
  const double step_ms = a.steps.mean_ms();

  auto& env = r.environment;
  env.trace_path = meta.path;
  env.pytorch_version = meta.pytorch_version;
  env.pytorch_era = meta.format == TraceFormat::kKinetoOld    ? "1.8-1.9"
                    : meta.format == TraceFormat::kLegacyList ? t("built without Kineto", "无 Kineto 的构建")
                    : meta.format == TraceFormat::kKineto     ? ">= 1.10"
                                                              : "?";
  env.cuda_runtime_version = meta.cuda_runtime_version;
  env.cuda_driver_version = meta.cuda_driver_version;
  env.hip_runtime_version = meta.hip_runtime_version;
  std::map<std::string, int> gpus;
  for (const auto& d : meta.devices) ++gpus[d.name];
  env.gpus.assign(gpus.begin(), gpus.end());
  if (meta.rank) env.rank = *meta.rank;
  if (meta.world_size) env.world_size = *meta.world_size;
  env.step_count = a.steps.count();
  env.step_source = StepSourceLabel(a.steps.source, lang);
  env.mean_step_ms = step_ms;
  env.last_step_dropped = a.steps.last_dropped;
  if (const auto outlier = FindStepOutlier(a.steps)) env.step_note = StepOutlierNote(*outlier, a.steps.count(), lang);

  for (size_t i = 0; i < std::min(top_n, a.top_ops.ops.size()); ++i) {
    const auto& o = a.top_ops.ops[i];
    r.top_ops.push_back({o.name, o.calls, o.self_cpu_ns, o.self_cuda_ns, o.cuda_total_ns});
  }

  auto& g = r.gpu;
  g.has_gpu = a.busy.has_gpu;
  g.busy_share = a.busy.share;
  g.tensor_cores_used = a.kernels.tensor_core_count > 0;
  g.tensor_core_share = a.kernels.tensor_core_share();
  g.short_kernel_share = a.kernels.short_share();
  g.kernels = a.kernels.count;
  g.has_collectives = a.comm.kernels > 0;
  g.comm_share_of_kernel_time = a.comm.share();
  g.comm_overlap = a.comm.overlap();
  // The main idle cause, from the breakdown and the idle split.
  if (a.dataloader.share > 0.10) g.main_idle_cause = t("DataLoader", "DataLoader");
  else if (a.syncs.per_step > 3) g.main_idle_cause = t("CPU-GPU syncs", "CPU 同步");
  else if (a.comm.share() > 0.2) g.main_idle_cause = t("communication wait", "通信等待");
  else if (a.idle.host_wait_share() > 0.5) g.main_idle_cause = t("host (launch/CPU) bound", "CPU 端发射/执行");
  else g.main_idle_cause = t("no single cause", "无单一主因");
  g.idle_host_wait_ns = a.idle.host_wait_ns;
  g.idle_kernel_wait_ns = a.idle.kernel_wait_ns;
  g.idle_other_ns = a.idle.other_ns;
  for (size_t i = 0; i < kRoleCount; ++i) g.breakdown[i] = a.breakdown.Share(static_cast<Role>(i), a.steps.analysed_ns);
  g.dataloader_share = a.dataloader.share;
  g.dataloader_iterator = std::string(IteratorName(a.dataloader.iterator));
  g.syncs_per_step = a.syncs.per_step;
  g.sync_blocked_ms_per_step = a.syncs.blocked_ms_per_step;
  g.item_calls = a.syncs.items_in_steps;
  g.syncing_item_calls = a.syncs.syncing_items;
  g.has_copies = a.copies.count > 0;
  g.pageable_copies_per_step = a.copies.pageable_per_step;
  for (size_t i = 0; i < a.copies.groups.size() && i < 4; ++i) {
    const auto& c = a.copies.groups[i];
    g.copies.push_back({std::string(DirectionName(c.kind.direction)), MemoryKindName(c.kind.src),
                        MemoryKindName(c.kind.dst), static_cast<double>(c.count) / n_steps,
                        c.count > 0 ? static_cast<double>(c.bytes) / static_cast<double>(c.count) : 0.0,
                        static_cast<double>(c.gpu_ns) / 1e6 / n_steps});
  }

  r.memory_recorded = a.memory.has_events;
  for (const auto& d : a.memory.devices) {
    MemoryRow row{d.device_type == 1 ? fmt::format("cuda:{}", d.device_id) : std::string("cpu"),
                  d.peak_allocated,
                  d.peak_reserved,
                  d.total_global_mem,
                  d.allocations,
                  {}};
    row.timeline.reserve(d.timeline.size());
    for (const auto& s : d.timeline)
      row.timeline.push_back({static_cast<double>(s.ts - trace.min_ts()) / 1e6, s.allocated, s.reserved});
    r.memory.push_back(std::move(row));
  }

  bool compute_advised = false;
  for (const auto& b : a.bottlenecks) {
    r.diagnosis.push_back({std::string(BottleneckKindName(b.kind)), b.kind, b.severity, KindTitle(b.kind, lang),
                           ImpactOf(b, a, n_steps, lang), b.evidence});
    const double ms = MsAtStake(b.kind, a, n_steps);
    r.recommendations.push_back({std::string(BottleneckKindName(b.kind)), b.kind, PriorityOf(ms, step_ms),
                                 Recommendation(b.kind, lang), CodeExample(b.kind), ms});
    compute_advised = compute_advised || b.kind == BottleneckKind::kCompute;
  }
  // fp32 GEMMs on a tensor-core GPU that is not busy enough to be compute-bound: the tip stands, without
  // the verdict, at the time those GEMMs take.
  const bool tensor_core_gpu = HasTensorCores(trace, a);
  if (!compute_advised && tensor_core_gpu && a.kernels.fp32_gemm_ns > 0 &&
      a.kernels.tensor_core_share() < Thresholds{}.tensor_core_healthy) {
    const double ms = MsAtStake(BottleneckKind::kCompute, a, n_steps);
    r.recommendations.push_back({"tensor-cores", BottleneckKind::kCompute, PriorityOf(ms, step_ms),
                                 Recommendation(BottleneckKind::kCompute, lang), CodeExample(BottleneckKind::kCompute),
                                 ms});
  }
  if (a.copies.pageable_htod > 0) {
    // What pinning is about: the copies' transfer time, or the host time of the calls that issue them
    // (a pageable copy blocks the host), whichever is longer.
    const double ms = static_cast<double>(std::max(a.copies.pageable_htod_gpu_ns, a.copies.pageable_htod_host_ns)) /
                      1e6 / n_steps;
    r.recommendations.push_back({"pin-memory", std::nullopt, PriorityOf(ms, step_ms),
                                 t("Pin host memory (DataLoader(pin_memory=True)) and copy with .to(device, "
                                   "non_blocking=True): pageable HtoD copies block the host",
                                   "使用 pin_memory=True 并以 non_blocking=True 拷贝：pageable HtoD 拷贝会阻塞 CPU"),
                                 "", ms});
  }
  if (a.optimizer.zero_grad.fill_ops > 0) {
    const double ms = a.optimizer.zero_grad.ms_per_step;
    r.recommendations.push_back({"zero-grad", std::nullopt, PriorityOf(ms, step_ms),
                                 t("Use optimizer.zero_grad(set_to_none=True): zero_grad launches a fill per parameter",
                                   "使用 optimizer.zero_grad(set_to_none=True)：当前每个参数都会启动一次 fill"),
                                 "", ms});
  }
  // Padding only helps where tensor cores run the GEMMs: not on a CPU-only trace.
  if (a.gemms.unaligned > 0 && tensor_core_gpu) {
    const double ms = static_cast<double>(a.gemms.unaligned_gpu_ns) / 1e6 / n_steps;
    r.recommendations.push_back(
        {"gemm-alignment", std::nullopt, PriorityOf(ms, step_ms),
         t("Pad GEMM dimensions (K, N) to multiples of 8 so that fp16/bf16 GEMMs use tensor cores",
           "将 GEMM 维度（K、N）补齐为 8 的倍数，使 fp16/bf16 GEMM 使用 Tensor Core"),
         "", ms});
  }
  RankRecommendations(r.recommendations);
  for (const auto& k : a.ncu.kernels) {
    r.ncu.push_back({k.name, std::string(KernelClassName(k.kind)), NcuClassLabel(k.kind, lang), k.share_of_kernel_time,
                     static_cast<double>(k.launches) / n_steps, k.matched_names > 0 ? k.matched_names - 1 : 0,
                     k.command, NcuLookFor(k.kind, lang)});
  }
  if (!r.ncu.empty()) r.ncu_skip_note = NcuSkipNote(a.ncu, lang);
  return r;
}

// CJK characters (3- and 4-byte UTF-8 here) take two columns, continuation bytes none.
size_t DisplayWidth(std::string_view s) {
  size_t w = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) == 0x80) continue;
    w += c >= 0xE1 ? 2 : 1;
  }
  return w;
}

std::string RenderReport(const TraceReport& r, ReportFormat format, bool color) {
  const bool md = format == ReportFormat::kMarkdown;
  color = color && !md;
  const Language lang = r.language;
  Text t{lang};
  const auto& env = r.environment;
  const auto& g = r.gpu;
  std::string out;
  auto h1 = [&](const std::string& s) {
    out += md ? fmt::format("# {}\n\n", s)
              : fmt::format("{}\n{}\n\n", ansi::Styled(s, ansi::kBold, color), std::string(DisplayWidth(s), '='));
  };
  auto h2 = [&](const std::string& s) {
    out += md ? fmt::format("\n## {}\n", s)
              : fmt::format("\n{}\n{}\n", ansi::Styled(s, ansi::kBold, color),
                            std::string(std::min<size_t>(DisplayWidth(s), 40), '-'));
  };
  auto item = [&](const std::string& s) { out += fmt::format("- {}\n", s); };
  auto tag = [&](Severity s) {
    if (md) return fmt::format("**[{}]**", SeverityLabel(s, lang));
    const std::string_view style = s == Severity::kHigh     ? ansi::kRed
                                   : s == Severity::kMedium ? ansi::kYellow
                                                            : std::string_view();
    return ansi::Styled(fmt::format("[{}]", SeverityLabel(s, lang)), style, color);
  };

  h1(t("PyTorch performance report", "PyTorch 性能分析报告"));
  out += fmt::format("{}{}\n", t("Trace: ", "Trace 文件："), env.trace_path);

  h2(t("Environment", "环境信息"));
  item(fmt::format("{}{}", t("PyTorch version: ", "PyTorch 版本："),
                   env.pytorch_version.empty() ? fmt::format("{} ({})", t("not recorded", "未记录"), env.pytorch_era)
                                               : env.pytorch_version));
  if (!env.cuda_runtime_version.empty())
    item(fmt::format("{}{}", t("CUDA runtime: ", "CUDA Runtime 版本："), env.cuda_runtime_version));
  if (!env.cuda_driver_version.empty())
    item(fmt::format("{}{}", t("CUDA driver: ", "CUDA 驱动版本："), env.cuda_driver_version));
  if (!env.hip_runtime_version.empty())
    item(fmt::format("{}{}", t("HIP runtime: ", "HIP Runtime 版本："), env.hip_runtime_version));
  std::string gpu_text;
  for (const auto& [name, count] : env.gpus)
    gpu_text += fmt::format("{}{} x {}", gpu_text.empty() ? "" : ", ", name, count);
  item(fmt::format("GPU{}{}", t(": ", "："), gpu_text.empty() ? t("none recorded", "未记录") : gpu_text));
  if (env.rank) {
    item(fmt::format("{}{} / {}", t("Rank: ", "Rank："), *env.rank,
                     env.world_size ? fmt::format("{}", *env.world_size) : std::string("?")));
  }
  const std::string steps = lang == Language::kChinese ? fmt::format("{} 个 step", env.step_count)
                                                       : Plural(env.step_count, "step", "steps");
  item(fmt::format(fmt::runtime(t("Scope: {} ({}), mean {:.2f} ms{}", "分析范围：{}（{}），平均 {:.2f} ms{}")), steps,
                   env.step_source, env.mean_step_ms,
                   env.last_step_dropped ? t("; the last, partial step is left out", "；最后一个不完整的 step 未计入")
                                         : ""));
  if (!env.step_note.empty()) item(fmt::format("{}{}", t("Note: ", "注意："), env.step_note));

  h2(fmt::format(fmt::runtime(t("Top {} ops", "Top {} 耗时算子")), r.top_n));
  if (r.top_ops.empty()) {
    item(t("no operators in the trace", "trace 中没有算子"));
  } else if (md) {
    out += t(
        "| # | Op | Self CUDA | CUDA total | Self CPU | Calls "
        "|\n|---|----|-----------|------------|----------|-------|\n",
        "| 排名 | 算子 | Self CUDA | CUDA Total | Self CPU | 调用次数 "
        "|\n|------|------|-----------|------------|----------|---------|\n");
    for (size_t i = 0; i < r.top_ops.size(); ++i) {
      const auto& o = r.top_ops[i];
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", i + 1, o.name, Ms(o.self_cuda_ns), Ms(o.cuda_total_ns),
                         Ms(o.self_cpu_ns), o.calls);
    }
  } else {
    out += fmt::format("{:>3}  {:<44} {:>12} {:>12} {:>12} {:>7}\n", "#", t("Op", "算子"), "Self CUDA", "CUDA total",
                       "Self CPU", t("Calls", "调用"));
    for (size_t i = 0; i < r.top_ops.size(); ++i) {
      const auto& o = r.top_ops[i];
      std::string name = o.name.size() > 44 ? o.name.substr(0, 41) + "..." : o.name;
      out += fmt::format("{:>3}  {:<44} {:>12} {:>12} {:>12} {:>7}\n", i + 1, name, Ms(o.self_cuda_ns),
                         Ms(o.cuda_total_ns), Ms(o.self_cpu_ns), o.calls);
    }
  }

  h2(t("GPU utilisation", "GPU 利用率概览"));
  if (!g.has_gpu) {
    item(t("no GPU activity in the trace (CPU-only profile; add ProfilerActivity.CUDA)",
           "trace 中没有 GPU 活动（仅 CPU；请启用 ProfilerActivity.CUDA）"));
  } else {
    item(fmt::format("{}{} ({} > 80%)", t("GPU busy: ", "GPU 活跃时间占比："), Pct(g.busy_share),
                     t("healthy", "健康值")));
    item(fmt::format("{}{} ({} {})", t("Tensor cores: ", "Tensor Core 使用情况："),
                     g.tensor_cores_used ? t("yes", "是") : t("no", "否"), Pct(g.tensor_core_share),
                     t("of kernel time", "的 kernel 时间")));
    item(fmt::format("{}{} ({})", t("Kernels under 10 µs: ", "耗时 < 10μs 的 kernel："), Pct(g.short_kernel_share),
                     lang == Language::kChinese ? fmt::format("共 {} 个 kernel", g.kernels)
                                                : Plural(static_cast<size_t>(g.kernels), "kernel", "kernels")));
    if (g.has_collectives) {
      // A share of summed kernel time (the guide's 通信耗时占比, §3.3 "占 CUDA 时间"), not of the step:
      // the step breakdown's communication figure is the other.
      item(fmt::format(fmt::runtime(t("Collective kernels: {} of GPU kernel time, {} of it overlapped with compute",
                                      "集合通信 kernel 耗时占比：GPU kernel 时间的 {}，其中 {} 与计算重叠")),
                       Pct(g.comm_share_of_kernel_time), Pct(g.comm_overlap)));
    }
    item(fmt::format("{}{}", t("Main idle cause: ", "主要空闲原因："), g.main_idle_cause));
    item(fmt::format("{}{} {}, {} {}, {} {}", t("GPU idle split: ", "GPU 空闲拆分："), t("host-wait", "等待 CPU 下发"),
                     Ms(g.idle_host_wait_ns), t("kernel-wait", "kernel 间短间隙"), Ms(g.idle_kernel_wait_ns),
                     t("other", "其他"), Ms(g.idle_other_ns)));
  }
  std::string bd;
  for (size_t i = 0; i < kRoleCount; ++i) {
    if (g.breakdown[i] >= 0.001)
      bd += fmt::format("{}{} {}", bd.empty() ? "" : ", ", RoleLabel(static_cast<Role>(i), lang), Pct(g.breakdown[i]));
  }
  if (!bd.empty()) {
    item(fmt::format(
        "{}{}",
        t("Step breakdown (of step wall time, each instant counted once, for the first of kernel > memcpy > memset > "
          "communication > runtime > dataloader > cpu_exec active then): ",
          "Step 时间拆分（占 step 墙钟时间，每一时刻只计一次，归于当时活跃的第一项：kernel > 内存拷贝 > 内存置位 > "
          "通信 > CUDA Runtime > DataLoader > CPU 执行）："),
        bd));
  }
  const std::string iterator = g.dataloader_iterator == "single"
                                   ? t("single-process, num_workers=0", "单进程，num_workers=0")
                               : g.dataloader_iterator == "multi" ? t("multi-process", "多进程")
                                                                  : t("none", "无");
  const double dl_alone = g.breakdown[static_cast<size_t>(Role::kDataLoader)];
  // Two figures, named for what each measures: all the time inside __next__, and the part of it when
  // nothing else runs (the breakdown's), which is smaller where kernels queued earlier overlap loading.
  std::string alone;
  if (g.dataloader_share > 0 && !bd.empty()) {
    alone = fmt::format(fmt::runtime(t("; {} of step time with nothing else running (the breakdown's dataloader)",
                                       "；step 时间的 {} 只有 DataLoader 在运行（即 Step 时间拆分中的 DataLoader）")),
                        Pct(dl_alone));
  }
  item(fmt::format(fmt::runtime(t("DataLoader: {} of step time inside __next__ calls{}; iterator: {}",
                                  "DataLoader 耗时占比：step 时间的 {} 在 __next__ 调用中{}；迭代器：{}")),
                   Pct(g.dataloader_share), alone, iterator));
  item(fmt::format("{}{:.1f}, {} {:.2f} ms; .item(): {} / {} {}", t("Syncs per step: ", "每个 step 的同步次数："),
                   g.syncs_per_step, t("blocking", "阻塞"), g.sync_blocked_ms_per_step, g.syncing_item_calls,
                   g.item_calls, t("really synchronised", "真正触发同步")));
  if (g.has_copies) {
    item(fmt::format("{}{:.1f}", t("Pageable memcpys per step: ", "每个 step 的 pageable 拷贝："),
                     g.pageable_copies_per_step));
    // Per step, like the line above (the JSON keeps the totals too).
    std::string kinds;
    for (const auto& c : g.copies) {
      kinds += fmt::format("{}{} {}->{} {:.1f} x {}, {:.3f} ms", kinds.empty() ? "" : "; ", c.direction, c.src, c.dst,
                           c.count_per_step, Bytes(c.mean_bytes), c.gpu_ms_per_step);
    }
    item(fmt::format(
        "{}{}",
        t("Memcpys per step (count x mean size, GPU time): ", "每个 step 的拷贝（次数 x 平均大小，GPU 时间）："),
        kinds));
  }

  // After the kernel figures: the hand-off to Nsight Compute, for traces with kernels.
  if (!r.ncu.empty()) {
    h2(t("Hand-off to Nsight Compute: the hottest kernels", "交给 Nsight Compute：最热的 kernel"));
    item(t("each command profiles one launch of one kernel; replace `python train.py` with your own command",
           "每条命令只分析一个 kernel 的一次启动；请把 `python train.py` 换成你自己的启动命令"));
    item(r.ncu_skip_note);
    int k = 0;
    for (const auto& n : r.ncu) {
      std::string name = n.kernel;
      if (name.size() > kNcuNameShown) {
        size_t cut = kNcuNameShown - 3;
        while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
        name = name.substr(0, cut) + "...";
      }
      out += fmt::format(fmt::runtime(t("{}. `{}` — {}, {} of kernel time, {:.1f} launches per step\n",
                                        "{}. `{}` — {}，占 kernel 时间的 {}，每 step 启动 {:.1f} 次\n")),
                         ++k, name, n.label, Pct(n.share_of_kernel_time), n.launches_per_step);
      out += fmt::format("   {}{}\n", t("Look for: ", "关注："), n.look_for);
      if (n.command.empty()) continue;
      if (n.also_matched > 0) {
        out += lang == Language::kChinese
                   ? fmt::format("   其正则还匹配 trace 中另外 {} 个 kernel；--launch-skip 也计入了它们的启动\n",
                                 n.also_matched)
                   : fmt::format("   Its regex also matches {} of the trace; --launch-skip counts their launches too\n",
                                 Plural(n.also_matched, "other kernel", "other kernels"));
      }
      out += md ? fmt::format("   ```sh\n   {}\n   ```\n", n.command) : fmt::format("   {}\n", n.command);
    }
  }

  h2(t("Memory", "显存分析"));
  if (!r.memory_recorded) {
    item(t("not recorded (profile with profile_memory=True)", "未记录（请启用 profile_memory=True）"));
  } else {
    for (const auto& d : r.memory) {
      const double used = d.total_global_mem > 0
                              ? static_cast<double>(d.peak_allocated) / static_cast<double>(d.total_global_mem)
                              : 0;
      const double total_gb = static_cast<double>(d.total_global_mem) / 1e9;
      std::string cap;
      if (d.total_global_mem > 0) {
        cap = lang == Language::kChinese ? fmt::format("（占 {:.1f} GB 的 {}）", total_gb, Pct(used))
                                         : fmt::format(" ({} of {:.1f} GB)", Pct(used), total_gb);
      }
      // PyTorch 1.8-1.9 and CPU memory events carry no reserved total.
      std::string reserved = d.peak_reserved > 0
                                 ? fmt::format("{:.3f} GB", static_cast<double>(d.peak_reserved) / 1e9)
                                 : std::string(t("unknown (not in the trace)", "不可用（trace 中未记录）"));
      const std::string allocations = lang == Language::kChinese
                                          ? fmt::format("{} 次分配", d.allocations)
                                          : Plural(static_cast<size_t>(d.allocations), "allocation", "allocations");
      item(fmt::format("{} {}{:.3f} GB{}{}{}{}{}{}", d.device, t("peak allocated ", "峰值分配 "),
                       static_cast<double>(d.peak_allocated) / 1e9, cap, t(", ", "，"),
                       t("peak reserved ", "峰值预留 "), reserved, t(", ", "，"), allocations));
    }
  }
  if (r.snapshot) out += RenderSnapshotSection(*r.snapshot, format, lang, 2);

  h2(t("Bottleneck diagnosis", "瓶颈诊断"));
  if (r.diagnosis.empty()) item(t("no metric is outside the healthy range", "所有指标均在健康范围内"));
  int n = 0;
  for (const auto& d : r.diagnosis) {
    std::string figs;
    for (const auto& f : d.figures) figs += (figs.empty() ? "" : "; ") + FigureText(f, lang);
    out += fmt::format("{}. {} {}", ++n, tag(d.severity), d.title);
    if (!d.impact.empty()) out += fmt::format("{}{}", t(" — impact: ", " — 影响："), d.impact);
    if (!figs.empty())
      out += fmt::format("{}{}", d.impact.empty() ? t(" — evidence: ", " — 依据：") : t(". Evidence: ", "。依据："),
                         figs);
    out += "\n";
  }

  h2(t("Recommendations (by priority)", "优化建议（按优先级）"));
  n = 0;
  const double step_ms = env.mean_step_ms;
  for (const auto& rec : r.recommendations) {
    std::string gain = rec.ms_at_stake_per_step > 0
                           ? fmt::format(fmt::runtime(t(" — expected gain: up to {:.2f} ms per step ({} of the step)",
                                                        " — 预期收益：每 step 至多 {:.2f} ms（占 step 的 {}）")),
                                         rec.ms_at_stake_per_step,
                                         SmallPct(step_ms > 0 ? rec.ms_at_stake_per_step / step_ms : 0.0))
                           : std::string(
                                 t(" — expected gain: none measured in this trace", " — 预期收益：本 trace 中未测得"));
    out += fmt::format("{}. {} {}{}\n", ++n, tag(rec.priority), rec.text, gain);
    if (md && rec.priority == Severity::kHigh && !rec.code.empty()) {
      std::string indented;
      for (char c : rec.code) indented += c == '\n' ? std::string("\n   ") : std::string(1, c);
      out += fmt::format("   ```python\n   {}\n   ```\n", indented);
    }
  }
  if (n == 0) item(t("nothing to change on this evidence", "根据当前 trace 无需调整"));
  return out;
}

std::string RenderReport(const Trace& trace, const TraceAnalysis& a, const ReportOptions& opt) {
  TraceReport report = BuildReport(trace, a, opt.language, opt.top_n);
  if (opt.snapshot != nullptr) report.snapshot = *opt.snapshot;
  return RenderReport(report, opt.format, opt.color);
}

std::string RenderTraceSet(const TraceSet& set, const ReportOptions& opt) {
  Text t{opt.language};
  std::string out;
  if (!set.folder) {
    if (set.ranks.empty() || !set.ranks[0].read.ok()) return out;
    return RenderReport(*set.ranks[0].read.trace, *set.ranks[0].analysis, opt);
  }
  const bool md = opt.format == ReportFormat::kMarkdown;
  out += md ? fmt::format("# {}\n\n", t("Ranks", "各 Rank 概览"))
            : fmt::format("{}\n", ansi::Styled(t("Ranks", "各 Rank 概览"), ansi::kBold, opt.color));
  const char* h_rank = "rank";
  const char* h_steps = t("steps", "step 数");
  const char* h_mean = t("mean ms", "平均 ms");
  const char* h_busy = t("GPU busy", "GPU 活跃");
  const char* h_dl = "DataLoader";
  const char* h_comm = t("comm", "通信");
  const char* h_sync = t("syncs/step", "同步/step");
  const char* h_top = t("top bottleneck", "首要瓶颈");
  const char* h_file = t("file", "文件");
  if (md) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n|---|---|---|---|---|---|---|---|---|\n",
                       h_rank, h_steps, h_mean, h_busy, h_dl, h_comm, h_sync, h_top, h_file);
  } else {
    out += fmt::format("{:>4}  {:>6} {:>10} {:>9} {:>11} {:>7} {:>11}  {:<22} {}\n", h_rank, h_steps, h_mean, h_busy,
                       h_dl, h_comm, h_sync, h_top, h_file);
  }
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const auto& r = set.ranks[i];
    if (!r.analysis) continue;
    const auto& a = *r.analysis;
    std::string top = a.bottlenecks.empty() ? "-"
                                            : fmt::format("{} ({})", KindShort(a.bottlenecks[0].kind, opt.language),
                                                          SeverityLabel(a.bottlenecks[0].severity, opt.language));
    // An earlier profiling cycle of a rank is shown in parentheses under it; the straggler gets a star.
    std::string rank = r.representative() ? fmt::format("{}", r.rank) : fmt::format("({})", r.rank);
    const bool straggler = set.straggler && static_cast<size_t>(*set.straggler) == i;
    // A rank without GPU events has no GPU figures: a dash, not 0%.
    std::string busy = a.busy.has_gpu ? Pct(a.busy.share) : "-";
    std::string comm = a.kernels.has_kernels() ? Pct(a.comm.share()) : "-";
    if (md) {
      out += fmt::format("| {}{} | {} | {:.2f} | {} | {} | {} | {:.1f} | {} | `{}` |\n", rank, straggler ? "*" : "",
                         a.steps.count(), a.steps.mean_ms(), busy, Pct(a.dataloader.share), comm, a.syncs.per_step, top,
                         r.path);
    } else {
      out += fmt::format("{:>4}{} {:>6} {:>10.2f} {:>9} {:>11} {:>7} {:>11.1f}  {:<22} {}\n", rank,
                         straggler ? "*" : " ", a.steps.count(), a.steps.mean_ms(), busy, Pct(a.dataloader.share), comm,
                         a.syncs.per_step, top, r.path);
    }
  }
  std::string notes;
  if (set.has_cycles()) {
    notes += t(
        "(N): an earlier profiling cycle of rank N; each rank's most recent file stands for it when ranks are "
        "compared\n",
        "(N)：rank N 较早的一个 profiling 周期；比较各 rank 时，每个 rank 取其最新的文件\n");
  }
  if (set.straggler) {
    const auto& s = set.ranks[static_cast<size_t>(*set.straggler)];
    notes += fmt::format("{} {}", t("* straggler: rank", "* 慢节点：rank"), s.rank);
    if (s.cycles > 1) notes += fmt::format(fmt::runtime(t(" (most recent file: {})", "（最新文件：{}）")), s.path);
    notes += "\n";
  }
  if (set.straggler_test) {
    // Why a rank was or was not flagged: the figure compared and the rule.
    const auto& st = *set.straggler_test;
    const bool comm = st.metric == "communication.share";
    std::string value = comm ? Pct(st.value) : fmt::format("{:.2f} ms", st.value);
    std::string others = comm ? Pct(st.others_mean) : fmt::format("{:.2f} ms", st.others_mean);
    std::string rule =
        comm ? fmt::format(
                   fmt::runtime(t("a straggler waits least: {:.0f}% less communication than the others' mean, "
                                  "and at least {:.0f} points",
                                  "慢节点等待最少：通信占比比其他 rank 的均值低 {:.0f}% 以上，且至少 {:.0f} 个百分点")),
                   kStragglerCommRelative * 100, kStragglerCommGap * 100)
             : fmt::format(fmt::runtime(t("no collectives; a straggler's step is {:.0f}% longer than the others' mean",
                                          "无集合通信；慢节点的 step 比其他 rank 的均值长 {:.0f}% 以上")),
                           kStragglerStepRelative * 100);
    notes += fmt::format(
        fmt::runtime(t("{} rank {}: {} {} vs {} for the others ({})\n", "{}rank {}：{} {}，其他 rank 均值 {}（{}）\n")),
        set.straggler ? t("Straggler test:", "慢节点判定：") : t("No straggler; closest is", "无慢节点；最接近的是 "),
        st.rank, comm ? t("communication", "通信占比") : t("mean step", "平均 step"), value, others, rule);
  }
  if (!notes.empty()) out += "\n" + notes;
  // The full report of the straggler (or the first rank's most recent file) follows the table.
  const RankTrace* focus = set.straggler ? &set.ranks[static_cast<size_t>(*set.straggler)] : nullptr;
  for (const auto& r : set.ranks) {
    if (focus == nullptr && r.analysis && r.representative()) focus = &r;
  }
  if (focus != nullptr) out += "\n" + RenderReport(*focus->read.trace, *focus->analysis, opt);
  return out;
}

}  // namespace tl::trace
