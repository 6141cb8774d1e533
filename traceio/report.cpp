#include "traceio/report.h"

#include <algorithm>
#include <map>

#include <fmt/core.h>

namespace tl::trace {

namespace {

using nlohmann::json;

json Share(bool valid, double v) { return valid ? json(v) : json(nullptr); }

std::string Ms(int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }
std::string Pct(double v) { return fmt::format("{:.1f}%", v * 100); }

std::string FormatName(const TraceMetadata& md) {
  switch (md.format) {
    case TraceFormat::kKineto: return "kineto";
    case TraceFormat::kKinetoOld: return "kineto-1.8";
    case TraceFormat::kLegacyList: return "legacy";
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

std::string SeverityLabel(Severity s, Language lang) {
  Text t{lang};
  switch (s) {
    case Severity::kHigh: return t("high", "高");
    case Severity::kMedium: return t("medium", "中");
    case Severity::kLow: return t("low", "低");
  }
  return "";
}

std::string FigureText(const EvidenceFigure& f) {
  std::string v = f.unit == "share" ? Pct(f.value) : fmt::format("{:.2f}", f.value);
  if (f.unit == "ms") v += " ms";
  if (f.unit == "flag") v = "yes";
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
  return healthy.empty() ? fmt::format("{} {}", f.metric, v) : fmt::format("{} {} (healthy {})", f.metric, v, healthy);
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
    case BottleneckKind::kMemory:
      return "model = torch.compile(model)  # fuses pointwise ops";
    case BottleneckKind::kCommunication:
      return "model = DDP(model, bucket_cap_mb=50, gradient_as_bucket_view=True)";
  }
  return "";
}

}  // namespace

std::string Recommendation(BottleneckKind kind, Language lang) {
  Text t{lang};
  switch (kind) {
    case BottleneckKind::kData:
      return t("Load data in worker processes: num_workers=4-8, pin_memory=True, persistent_workers=True, prefetch_factor",
               "设置 num_workers=4~8，pin_memory=True，persistent_workers=True，调整 prefetch_factor");
    case BottleneckKind::kSync:
      return t("Remove .item(), print(cuda_tensor) and .cpu() from the step loop; defer syncs to the end of the step",
               "去掉 .item()、print(cuda_tensor)、.cpu() 调用，把同步延迟到 step 结束");
    case BottleneckKind::kLaunch:
      return t("Fuse small kernels with torch.compile, or capture the step with CUDA Graphs; cut Python overhead",
               "使用 torch.compile 做算子融合，或启用 CUDA Graph，减少 Python 调用");
    case BottleneckKind::kCompute:
      return t("Use mixed precision (BF16/FP16) and keep GEMM dimensions multiples of 8 for tensor cores; torch.compile",
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

json AnalysisToJson(const Trace& trace, const TraceAnalysis& a) {
  const auto& md = trace.metadata();
  const bool gpu = a.busy.has_gpu;
  const bool kernels = a.kernels.has_kernels();
  json j;
  j["file"] = md.path;
  j["format"] = FormatName(md);
  json env;
  env["pytorch_version"] = md.pytorch_version.empty() ? json(nullptr) : json(md.pytorch_version);
  env["cuda_runtime_version"] = md.cuda_runtime_version.empty() ? json(nullptr) : json(md.cuda_runtime_version);
  env["hip_runtime_version"] = md.hip_runtime_version.empty() ? json(nullptr) : json(md.hip_runtime_version);
  env["gpus"] = json::array();
  for (const auto& d : md.devices) {
    env["gpus"].push_back({{"id", d.id}, {"name", d.name}, {"compute_capability", fmt::format("{}.{}", d.compute_major, d.compute_minor)},
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
    g["top_kernels"].push_back({{"name", k.name}, {"count", k.count}, {"total_ms", static_cast<double>(k.total_ns) / 1e6},
                                {"mean_us", k.mean_ns() / 1e3}, {"tensor_core", k.tensor_core}});
  }
  j["gpu"] = g;
  j["communication"] = {{"share", Share(kernels, a.comm.share())}, {"overlap", Share(a.comm.comm_union_ns > 0, a.comm.overlap())}};
  j["dataloader"] = {{"share", a.dataloader.share},
                     {"iterator", a.dataloader.iterator == IteratorKind::kNone ? json(nullptr)
                                                                               : json(std::string(IteratorName(a.dataloader.iterator)))},
                     {"calls", a.dataloader.calls}};
  j["syncs"] = {{"per_step", a.syncs.per_step},
                {"blocked_ms_per_step", a.syncs.blocked_ms_per_step},
                {"item_calls", a.syncs.items_in_steps},
                {"syncing_item_calls", a.syncs.syncing_items}};
  json copies = json::array();
  for (const auto& c : a.copies.groups) {
    auto kind_name = [](MemoryKind m) {
      switch (m) {
        case MemoryKind::kPageable: return "pageable";
        case MemoryKind::kPinned: return "pinned";
        case MemoryKind::kDevice: return "device";
        case MemoryKind::kOther: return "other";
        case MemoryKind::kUnknown: return "unknown";
      }
      return "unknown";
    };
    copies.push_back({{"direction", std::string(DirectionName(c.kind.direction))}, {"src", kind_name(c.kind.src)},
                      {"dst", kind_name(c.kind.dst)}, {"count", c.count}, {"bytes", c.bytes},
                      {"gpu_ms", static_cast<double>(c.gpu_ns) / 1e6}});
  }
  j["memcpy"] = {{"pageable_per_step", a.copies.pageable_per_step}, {"kinds", copies}};
  const auto& z = a.optimizer.zero_grad;
  j["optimizer"] = {{"zero_grad", {{"calls", z.calls}, {"ms_per_step", z.ms_per_step}, {"fill_ops", z.fill_ops}, {"kernels", z.kernels}}}};
  json shapes = json::array();
  for (const auto& s : a.gemms.shapes) {
    shapes.push_back({{"op", s.op}, {"input_dims", s.dims}, {"dtype", s.dtype}, {"k", s.k}, {"n", s.n}, {"count", s.count},
                      {"cpu_ms", static_cast<double>(s.cpu_ns) / 1e6}, {"gpu_ms", static_cast<double>(s.gpu_ns) / 1e6}});
  }
  j["gemm"] = {{"has_shapes", a.gemms.has_shapes}, {"count", a.gemms.gemms}, {"unaligned", a.gemms.unaligned}, {"unaligned_shapes", shapes}};
  json mem = json::array();
  for (const auto& d : a.memory.devices) {
    mem.push_back({{"device", d.device_type == 1 ? fmt::format("cuda:{}", d.device_id) : std::string("cpu")},
                   {"peak_allocated_bytes", d.peak_allocated},
                   {"peak_reserved_bytes", d.peak_reserved}});
  }
  j["memory"] = mem;
  json bd;
  for (size_t r = 0; r < kRoleCount; ++r) {
    bd[std::string(RoleName(static_cast<Role>(r)))] = a.breakdown.Share(static_cast<Role>(r), a.steps.analysed_ns);
  }
  j["breakdown"] = bd;
  json ops = json::array();
  for (const auto& o : a.top_ops.ops) {
    ops.push_back({{"name", o.name}, {"calls", o.calls}, {"self_cpu_ms", static_cast<double>(o.self_cpu_ns) / 1e6},
                   {"cpu_total_ms", static_cast<double>(o.cpu_total_ns) / 1e6}, {"self_cuda_ms", static_cast<double>(o.self_cuda_ns) / 1e6},
                   {"cuda_total_ms", static_cast<double>(o.cuda_total_ns) / 1e6}});
  }
  j["top_ops"] = ops;
  json bn = json::array();
  for (const auto& b : a.bottlenecks) {
    json ev = json::array();
    for (const auto& f : b.evidence) {
      ev.push_back({{"metric", f.metric}, {"value", f.value}, {"healthy", f.healthy.empty() ? json(nullptr) : json(f.healthy)}});
    }
    bn.push_back({{"kind", std::string(BottleneckKindName(b.kind))}, {"severity", std::string(SeverityName(b.severity))},
                  {"evidence", ev}, {"recommendation", Recommendation(b.kind, Language::kEnglish)}});
  }
  j["bottlenecks"] = bn;
  return j;
}

json TraceSetToJson(const TraceSet& set) {
  auto one = [](const RankTrace& r) {
    json j = r.read.ok() && r.analysis ? AnalysisToJson(*r.read.trace, *r.analysis) : json::object();
    j["file"] = r.path;
    j["warnings"] = r.read.warnings;
    if (!r.read.ok()) j["error"] = r.read.error;
    return j;
  };
  if (!set.folder && set.ranks.size() == 1) return one(set.ranks[0]);
  json j;
  j["path"] = set.path;
  j["ranks"] = json::array();
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    json r = one(set.ranks[i]);
    r["rank"] = set.ranks[i].rank;
    r["straggler"] = set.straggler && static_cast<size_t>(*set.straggler) == i;
    j["ranks"].push_back(std::move(r));
  }
  j["straggler"] = set.straggler ? json(set.ranks[static_cast<size_t>(*set.straggler)].rank) : json(nullptr);
  j["errors"] = set.errors;
  return j;
}

std::string RenderReport(const Trace& trace, const TraceAnalysis& a, const ReportOptions& opt) {
  const bool md = opt.format == ReportFormat::kMarkdown;
  const Language lang = opt.language;
  Text t{lang};
  const auto& meta = trace.metadata();
  std::string out;
  auto h1 = [&](const std::string& s) { out += md ? fmt::format("# {}\n\n", s) : fmt::format("{}\n{}\n\n", s, std::string(s.size(), '=')); };
  auto h2 = [&](const std::string& s) { out += md ? fmt::format("\n## {}\n", s) : fmt::format("\n{}\n{}\n", s, std::string(std::min<size_t>(s.size(), 40), '-')); };
  auto item = [&](const std::string& s) { out += fmt::format("- {}\n", s); };

  h1(t("PyTorch performance report", "PyTorch 性能分析报告"));
  out += fmt::format("{}{}\n", t("Trace: ", "Trace 文件："), meta.path);

  h2(t("Environment", "环境信息"));
  std::string era = meta.format == TraceFormat::kKinetoOld ? "1.8-1.9"
                    : meta.format == TraceFormat::kLegacyList ? t("built without Kineto", "无 Kineto 的构建")
                    : meta.format == TraceFormat::kKineto ? ">= 1.10" : "?";
  item(fmt::format("{}{}", t("PyTorch version: ", "PyTorch 版本："),
                   meta.pytorch_version.empty() ? fmt::format("{} ({})", t("not recorded", "未记录"), era) : meta.pytorch_version));
  if (!meta.cuda_runtime_version.empty()) item(fmt::format("CUDA runtime: {}", meta.cuda_runtime_version));
  if (!meta.hip_runtime_version.empty()) item(fmt::format("HIP runtime: {}", meta.hip_runtime_version));
  std::map<std::string, int> gpus;
  for (const auto& d : meta.devices) ++gpus[d.name];
  std::string gpu_text;
  for (const auto& [name, count] : gpus) gpu_text += fmt::format("{}{} x {}", gpu_text.empty() ? "" : ", ", name, count);
  item(fmt::format("GPU{}{}", t(": ", "："), gpu_text.empty() ? t("none recorded", "未记录") : gpu_text));
  if (meta.rank) item(fmt::format("{}{} / {}", t("Rank: ", "Rank："), *meta.rank, meta.world_size.value_or(0)));
  item(fmt::format("{}{} {} ({}), {} {:.2f} ms{}", t("Scope: ", "分析范围："), a.steps.count(),
                   t("steps", "个 step"), StepSourceName(a.steps.source), t("mean", "平均"), a.steps.mean_ms(),
                   a.steps.last_dropped ? t("; the last, partial step is left out", "；最后一个不完整的 step 未计入") : ""));

  h2(t("Top 10 ops", "Top 10 耗时算子"));
  if (a.top_ops.ops.empty()) {
    item(t("no operators in the trace", "trace 中没有算子"));
  } else if (md) {
    out += t("| # | Op | Self CUDA | CUDA total | Self CPU | Calls |\n|---|----|-----------|------------|----------|-------|\n",
             "| 排名 | 算子 | Self CUDA | CUDA Total | Self CPU | 调用次数 |\n|------|------|-----------|------------|----------|---------|\n");
    for (size_t i = 0; i < a.top_ops.ops.size(); ++i) {
      const auto& o = a.top_ops.ops[i];
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", i + 1, o.name, Ms(o.self_cuda_ns), Ms(o.cuda_total_ns), Ms(o.self_cpu_ns), o.calls);
    }
  } else {
    out += fmt::format("{:>3}  {:<44} {:>12} {:>12} {:>12} {:>7}\n", "#", t("Op", "算子"), "Self CUDA", "CUDA total", "Self CPU", t("Calls", "调用"));
    for (size_t i = 0; i < a.top_ops.ops.size(); ++i) {
      const auto& o = a.top_ops.ops[i];
      std::string name = o.name.size() > 44 ? o.name.substr(0, 41) + "..." : o.name;
      out += fmt::format("{:>3}  {:<44} {:>12} {:>12} {:>12} {:>7}\n", i + 1, name, Ms(o.self_cuda_ns), Ms(o.cuda_total_ns), Ms(o.self_cpu_ns), o.calls);
    }
  }

  h2(t("GPU utilisation", "GPU 利用率概览"));
  if (!a.busy.has_gpu) {
    item(t("no GPU activity in the trace (CPU-only profile; add ProfilerActivity.CUDA)",
           "trace 中没有 GPU 活动（仅 CPU；请启用 ProfilerActivity.CUDA）"));
  } else {
    item(fmt::format("{}{} ({} > 80%)", t("GPU busy: ", "GPU 活跃时间占比："), Pct(a.busy.share), t("healthy", "健康值")));
    item(fmt::format("{}{} ({} {})", t("Tensor cores: ", "Tensor Core 使用情况："),
                     a.kernels.tensor_core_count > 0 ? t("yes", "是") : t("no", "否"), Pct(a.kernels.tensor_core_share()),
                     t("of kernel time", "的 kernel 时间")));
    item(fmt::format("{}{} ({} {})", t("Kernels under 10 µs: ", "耗时 < 10μs 的 kernel："), Pct(a.kernels.short_share()),
                     a.kernels.count, t("kernels", "个 kernel")));
    if (a.comm.kernels > 0) {
      item(fmt::format("{}{} ({} {})", t("Communication: ", "通信耗时占比："), Pct(a.comm.share()),
                       Pct(a.comm.overlap()), t("overlapped with compute", "与计算重叠")));
    }
    // The main idle cause, from the breakdown and the idle split.
    std::string cause;
    if (a.dataloader.share > 0.10) cause = t("DataLoader", "DataLoader");
    else if (a.syncs.per_step > 3) cause = t("CPU-GPU syncs", "CPU 同步");
    else if (a.comm.share() > 0.2) cause = t("communication wait", "通信等待");
    else if (a.idle.host_wait_share() > 0.5) cause = t("host (launch/CPU) bound", "CPU 端发射/执行");
    else cause = t("no single cause", "无单一主因");
    item(fmt::format("{}{}", t("Main idle cause: ", "主要空闲原因："), cause));
    item(fmt::format("{}host-wait {}, kernel-wait {}, other {}", t("GPU idle split: ", "GPU 空闲拆分："),
                     Ms(a.idle.host_wait_ns), Ms(a.idle.kernel_wait_ns), Ms(a.idle.other_ns)));
  }
  std::string bd;
  for (size_t r = 0; r < kRoleCount; ++r) {
    double s = a.breakdown.Share(static_cast<Role>(r), a.steps.analysed_ns);
    if (s >= 0.001) bd += fmt::format("{}{} {}", bd.empty() ? "" : ", ", RoleName(static_cast<Role>(r)), Pct(s));
  }
  if (!bd.empty()) item(fmt::format("{}{}", t("Step breakdown: ", "Step 时间拆分："), bd));
  item(fmt::format("{}{} ({}: {})", t("DataLoader: ", "DataLoader 耗时占比："), Pct(a.dataloader.share),
                   t("iterator", "迭代器"),
                   a.dataloader.iterator == IteratorKind::kSingle ? t("single-process, num_workers=0", "单进程，num_workers=0")
                   : a.dataloader.iterator == IteratorKind::kMulti ? t("multi-process", "多进程") : t("none", "无")));
  item(fmt::format("{}{:.1f}, {} {:.2f} ms; .item(): {} / {} {}", t("Syncs per step: ", "每个 step 的同步次数："), a.syncs.per_step,
                   t("blocking", "阻塞"), a.syncs.blocked_ms_per_step, a.syncs.syncing_items, a.syncs.items_in_steps,
                   t("really synchronised", "真正触发同步")));
  if (a.copies.count > 0) {
    item(fmt::format("{}{:.1f}", t("Pageable memcpys per step: ", "每个 step 的 pageable 拷贝："), a.copies.pageable_per_step));
  }

  h2(t("Memory", "显存分析"));
  if (!a.memory.has_events) {
    item(t("not recorded (profile with profile_memory=True)", "未记录（请启用 profile_memory=True）"));
  } else {
    for (const auto& d : a.memory.devices) {
      std::string dev = d.device_type == 1 ? fmt::format("cuda:{}", d.device_id) : std::string("cpu");
      std::string cap = d.total_global_mem > 0
                            ? fmt::format(" ({} of {:.1f} GB)", Pct(static_cast<double>(d.peak_allocated) / static_cast<double>(d.total_global_mem)),
                                          static_cast<double>(d.total_global_mem) / 1e9)
                            : "";
      item(fmt::format("{} {}{:.3f} GB{}, {}{:.3f} GB, {} {}", dev, t("peak allocated ", "峰值分配 "),
                       static_cast<double>(d.peak_allocated) / 1e9, cap, t("peak reserved ", "峰值预留 "),
                       static_cast<double>(d.peak_reserved) / 1e9, d.allocations, t("allocations", "次分配")));
    }
  }

  h2(t("Bottleneck diagnosis", "瓶颈诊断"));
  if (a.bottlenecks.empty()) {
    item(t("no metric is outside the healthy range", "所有指标均在健康范围内"));
  }
  for (size_t i = 0; i < a.bottlenecks.size(); ++i) {
    const auto& b = a.bottlenecks[i];
    std::string figs;
    for (const auto& f : b.evidence) figs += (figs.empty() ? "" : "; ") + FigureText(f);
    out += fmt::format("{}. {}[{}]{} {} — {}{}\n", i + 1, md ? "**" : "", SeverityLabel(b.severity, lang), md ? "**" : "",
                       KindTitle(b.kind, lang), t("evidence: ", "依据："), figs);
  }

  h2(t("Recommendations (by priority)", "优化建议（按优先级）"));
  int n = 0;
  for (const auto& b : a.bottlenecks) {
    out += fmt::format("{}. {}[{}]{} {}\n", ++n, md ? "**" : "", SeverityLabel(b.severity, lang), md ? "**" : "", Recommendation(b.kind, lang));
    if (md && b.severity == Severity::kHigh) out += fmt::format("   ```python\n   {}\n   ```\n", [&] {
      std::string code = CodeExample(b.kind);
      std::string indented;
      for (char c : code) indented += c == '\n' ? std::string("\n   ") : std::string(1, c);
      return indented;
    }());
  }
  if (a.copies.pageable_htod > 0) {
    out += fmt::format("{}. [{}] {}\n", ++n, SeverityLabel(Severity::kMedium, lang),
                       t("Pin host memory (DataLoader(pin_memory=True)) and copy with .to(device, non_blocking=True): pageable HtoD copies block the host",
                         "使用 pin_memory=True 并以 non_blocking=True 拷贝：pageable HtoD 拷贝会阻塞 CPU"));
  }
  if (a.optimizer.zero_grad.fill_ops > 0) {
    out += fmt::format("{}. [{}] {}\n", ++n, SeverityLabel(Severity::kLow, lang),
                       t("Use optimizer.zero_grad(set_to_none=True): zero_grad launches a fill per parameter",
                         "使用 optimizer.zero_grad(set_to_none=True)：当前每个参数都会启动一次 fill"));
  }
  if (a.gemms.unaligned > 0) {
    out += fmt::format("{}. [{}] {}\n", ++n, SeverityLabel(Severity::kLow, lang),
                       t("Pad GEMM dimensions (K, N) to multiples of 8 so that fp16/bf16 GEMMs use tensor cores",
                         "将 GEMM 维度（K、N）补齐为 8 的倍数，使 fp16/bf16 GEMM 使用 Tensor Core"));
  }
  if (n == 0) item(t("nothing to change on this evidence", "根据当前 trace 无需调整"));
  return out;
}

std::string RenderTraceSet(const TraceSet& set, const ReportOptions& opt) {
  Text t{opt.language};
  std::string out;
  if (!set.folder) {
    if (set.ranks.empty() || !set.ranks[0].read.ok()) return out;
    return RenderReport(*set.ranks[0].read.trace, *set.ranks[0].analysis, opt);
  }
  const bool md = opt.format == ReportFormat::kMarkdown;
  out += md ? fmt::format("# {}\n\n", t("Ranks", "各 Rank 概览")) : fmt::format("{}\n", t("Ranks", "各 Rank 概览"));
  if (md) out += "| rank | steps | mean ms | GPU busy | DataLoader | comm | syncs/step | top bottleneck | file |\n|---|---|---|---|---|---|---|---|---|\n";
  else out += fmt::format("{:>5} {:>6} {:>10} {:>9} {:>11} {:>7} {:>11}  {:<22} {}\n", "rank", "steps", "mean ms", "GPU busy", "DataLoader", "comm", "syncs/step", "top bottleneck", "file");
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const auto& r = set.ranks[i];
    if (!r.analysis) continue;
    const auto& a = *r.analysis;
    std::string top = a.bottlenecks.empty() ? "-" : fmt::format("{} ({})", BottleneckKindName(a.bottlenecks[0].kind), SeverityName(a.bottlenecks[0].severity));
    std::string rank = fmt::format("{}{}", r.rank, set.straggler && static_cast<size_t>(*set.straggler) == i ? "*" : "");
    if (md) {
      out += fmt::format("| {} | {} | {:.2f} | {} | {} | {} | {:.1f} | {} | `{}` |\n", rank, a.steps.count(), a.steps.mean_ms(),
                         Pct(a.busy.share), Pct(a.dataloader.share), Pct(a.comm.share()), a.syncs.per_step, top, r.path);
    } else {
      out += fmt::format("{:>5} {:>6} {:>10.2f} {:>9} {:>11} {:>7} {:>11.1f}  {:<22} {}\n", rank, a.steps.count(), a.steps.mean_ms(),
                         Pct(a.busy.share), Pct(a.dataloader.share), Pct(a.comm.share()), a.syncs.per_step, top, r.path);
    }
  }
  if (set.straggler) {
    out += fmt::format("\n{} {}\n", t("* straggler: rank", "* 慢节点：rank"), set.ranks[static_cast<size_t>(*set.straggler)].rank);
  }
  // The full report of the straggler (or the first readable rank) follows the table.
  const RankTrace* focus = set.straggler ? &set.ranks[static_cast<size_t>(*set.straggler)] : nullptr;
  for (const auto& r : set.ranks) {
    if (focus == nullptr && r.analysis) focus = &r;
  }
  if (focus != nullptr) out += "\n" + RenderReport(*focus->read.trace, *focus->analysis, opt);
  return out;
}

}  // namespace tl::trace
