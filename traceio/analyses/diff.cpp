#include "traceio/analyses/diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include <fmt/core.h>

#include "traceio/analyses/saturating.h"

namespace tl::trace {
namespace {

struct Totals {
  int64_t ns = 0;
  int64_t calls = 0;
};

bool IsStepMarker(std::string_view name) { return name.starts_with("ProfilerStep#"); }

// Time per name inside the analysed steps: kernels on the GPU, top-level CPU ops on the host.
std::map<std::string, Totals, std::less<>> PerName(const Trace& t, const Steps& steps, bool kernels) {
  std::map<std::string, Totals, std::less<>> out;
  for (uint32_t i = 0; i < t.size(); ++i) {
    const EventKind k = t.kind(i);
    if (kernels) {
      if (k != EventKind::kKernel || steps.Find(t.ts(i)) < 0) continue;
    } else {
      // PyTorch 1.8-1.9 record the ProfilerStep#N range as an op: it is the step, not an op of it, and
      // the ops under it are the top-level ones.
      if (k != EventKind::kCpuOp || IsStepMarker(t.name(i)) || steps.FindHost(t.ts(i)) < 0) continue;
      const uint32_t p = t.parent(i);
      if (p != kNoIndex && t.kind(p) == EventKind::kCpuOp && !IsStepMarker(t.name(p))) continue;  // in its top op
    }
    auto it = out.find(t.name(i));
    if (it == out.end()) it = out.emplace(std::string(t.name(i)), Totals{}).first;
    SatAddTo(it->second.ns, t.dur(i));
    ++it->second.calls;
  }
  return out;
}

std::vector<NameChange> Changes(const Trace& b, const Steps& sb, const Trace& a, const Steps& sa, bool kernels,
                                size_t top_n) {
  const auto before = PerName(b, sb, kernels);
  const auto after = PerName(a, sa, kernels);
  const double nb = static_cast<double>(std::max<size_t>(1, sb.count()));
  const double na = static_cast<double>(std::max<size_t>(1, sa.count()));
  std::map<std::string_view, NameChange> merged;
  for (const auto& [name, tot] : before) {
    NameChange& c = merged[name];
    c.name = name;
    c.before_ms = static_cast<double>(tot.ns) / 1e6 / nb;
    c.before_calls = static_cast<double>(tot.calls) / nb;
  }
  for (const auto& [name, tot] : after) {
    NameChange& c = merged[name];
    c.name = name;
    c.after_ms = static_cast<double>(tot.ns) / 1e6 / na;
    c.after_calls = static_cast<double>(tot.calls) / na;
  }
  std::vector<NameChange> out;
  out.reserve(merged.size());
  for (auto& [name, c] : merged) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(), [](const NameChange& x, const NameChange& y) {
    return std::abs(x.delta_ms()) > std::abs(y.delta_ms());
  });
  if (out.size() > top_n) out.resize(top_n);
  return out;
}

double PerStep(int64_t value, const Steps& steps) {
  return steps.count() > 0 ? static_cast<double>(value) / static_cast<double>(steps.count()) : 0.0;
}

std::vector<std::string> Kinds(const TraceAnalysis& a) {
  std::vector<std::string> out;
  for (const auto& b : a.bottlenecks) {
    out.push_back(fmt::format("{} ({})", BottleneckKindName(b.kind), SeverityName(b.severity)));
  }
  return out;
}

}  // namespace

TraceDiff CompareTraces(const Trace& before, const TraceAnalysis& ab, const Trace& after, const TraceAnalysis& aa,
                        size_t top_n) {
  TraceDiff d;
  d.step_ms_before = ab.steps.mean_ms();
  d.step_ms_after = aa.steps.mean_ms();
  d.steps_before = ab.steps.count();
  d.steps_after = aa.steps.count();
  d.figures.push_back({"step_ms", d.step_ms_before, d.step_ms_after, "ms"});
  for (size_t r = 0; r < kRoleCount; ++r) {
    const auto role = static_cast<Role>(r);
    d.figures.push_back({fmt::format("breakdown.{}_ms", RoleName(role)), PerStep(ab.breakdown.total[r], ab.steps) / 1e6,
                         PerStep(aa.breakdown.total[r], aa.steps) / 1e6, "ms"});
  }
  d.figures.push_back({"gpu_busy.share", ab.busy.share, aa.busy.share, "share"});
  d.figures.push_back({"syncs.per_step", ab.syncs.per_step, aa.syncs.per_step, "per_step"});
  d.figures.push_back({"syncs.blocked_ms", ab.syncs.blocked_ms_per_step, aa.syncs.blocked_ms_per_step, "ms"});
  d.figures.push_back(
      {"copies.pageable_per_step", ab.copies.pageable_per_step, aa.copies.pageable_per_step, "per_step"});
  d.figures.push_back({"dataloader.share", ab.dataloader.share, aa.dataloader.share, "share"});
  d.figures.push_back(
      {"kernels.tensor_core_share", ab.kernels.tensor_core_share(), aa.kernels.tensor_core_share(), "share"});
  d.kernels = Changes(before, ab.steps, after, aa.steps, true, top_n);
  d.ops = Changes(before, ab.steps, after, aa.steps, false, top_n);
  d.bottlenecks_before = Kinds(ab);
  d.bottlenecks_after = Kinds(aa);
  if (ab.steps.source != aa.steps.source) {
    d.notes.push_back(
        {fmt::format("The traces mark steps differently (before: {}, after: {}); per-step figures may "
                     "not compare like for like",
                     StepSourceName(ab.steps.source), StepSourceName(aa.steps.source)),
         fmt::format("两个 trace 划分 step 的方式不同（修改前：{}，修改后：{}），每个 step 的指标可能不能直接对比",
                     StepSourceName(ab.steps.source), StepSourceName(aa.steps.source))});
  }
  if (ab.steps.source == StepSource::kWholeTrace || aa.steps.source == StepSource::kWholeTrace) {
    d.notes.push_back(
        {"At least one trace has no step markers, so its whole capture is one step: compare captures of the "
         "same length, or profile with a schedule and prof.step()",
         "至少有一个 trace 没有 step 标记，整个采集被当作一个 step：请对比长度相同的采集，或使用 schedule 并调用 "
         "prof.step() 进行 profiling"});
  }
  if (before.gpu_events().empty() != after.gpu_events().empty()) {
    d.notes.push_back({"Only one of the traces has GPU activity; GPU figures compare with nothing",
                       "只有一个 trace 含有 GPU 活动，GPU 指标无从对比"});
  }
  return d;
}

}  // namespace tl::trace
