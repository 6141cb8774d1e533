#include "traceio/analyses/breakdown.h"

#include <algorithm>
#include <unordered_map>

#include "traceio/analyses/intervals.h"
#include "traceio/analyses/names.h"

namespace tl::trace {

std::string_view RoleName(Role r) {
  switch (r) {
    case Role::kKernel: return "kernel";
    case Role::kMemcpy: return "memcpy";
    case Role::kMemset: return "memset";
    case Role::kCommunication: return "communication";
    case Role::kRuntime: return "runtime";
    case Role::kDataLoader: return "dataloader";
    case Role::kCpuExec: return "cpu_exec";
    case Role::kOther: return "other";
  }
  return "other";
}

namespace {

// Subtracts merged `claimed` from merged `mine` and returns the length left.
int64_t Unclaimed(const std::vector<Interval>& mine, const std::vector<Interval>& claimed) {
  return TotalLength(mine) - OverlapLength(mine, claimed);
}

}  // namespace

Breakdown AnalyzeBreakdown(const Trace& trace, const Steps& steps) {
  Breakdown out;
  const size_t n_steps = steps.count();
  out.steps.resize(n_steps);
  if (n_steps == 0) return out;
  std::vector<std::array<std::vector<Interval>, kRoleCount>> roles(n_steps);

  std::unordered_map<StringId, int8_t> role_of_name;  // cpu-side names: -1 not yet classified
  auto host_role = [&](uint32_t i) -> int {
    auto [it, inserted] = role_of_name.try_emplace(trace.name_id(i), -1);
    if (inserted) {
      std::string_view n = trace.name(i);
      if (n.starts_with("ProfilerStep#")) it->second = -2;  // the step itself
      else if (IsDataLoaderName(n)) it->second = static_cast<int8_t>(Role::kDataLoader);
      else if (IsCommOp(n)) it->second = static_cast<int8_t>(Role::kCommunication);
      else it->second = static_cast<int8_t>(Role::kCpuExec);
    }
    return it->second;
  };
  auto add = [&](int role, int64_t b, int64_t e) {
    // Events rarely span steps; clip against every step they touch.
    auto it = std::upper_bound(steps.analysed.begin(), steps.analysed.end(), b,
                               [](int64_t t, const Step& s) { return t < s.begin; });
    if (it != steps.analysed.begin()) --it;
    for (; it != steps.analysed.end() && it->begin < e; ++it) {
      int64_t lo = std::max(b, it->begin), hi = std::min(e, it->end);
      if (lo < hi)
        roles[static_cast<size_t>(it - steps.analysed.begin())][static_cast<size_t>(role)].push_back({lo, hi});
    }
  };
  std::unordered_map<StringId, bool> comm_kernel;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    const EventKind k = trace.kind(i);
    const int64_t b = trace.ts(i), e = trace.end(i);
    if (e <= b) continue;
    switch (k) {
      case EventKind::kKernel: {
        auto [it, inserted] = comm_kernel.try_emplace(trace.name_id(i), false);
        if (inserted) it->second = IsCommKernel(trace.name(i));
        add(static_cast<int>(it->second ? Role::kCommunication : Role::kKernel), b, e);
        break;
      }
      case EventKind::kMemcpy: add(static_cast<int>(Role::kMemcpy), b, e); break;
      case EventKind::kMemset: add(static_cast<int>(Role::kMemset), b, e); break;
      case EventKind::kRuntime:
      case EventKind::kDriver: add(static_cast<int>(Role::kRuntime), b, e); break;
      case EventKind::kCpuOp:
      case EventKind::kUserAnnotation: {
        int role = host_role(i);
        if (role == -2) break;
        if (role == static_cast<int>(Role::kCpuExec)) {
          // Nested ops are inside their parent's range already; only the outermost op adds to the union.
          bool covered = false;
          for (uint32_t p = trace.parent(i); p != kNoIndex && !covered; p = trace.parent(p)) {
            const EventKind pk = trace.kind(p);
            covered = (pk == EventKind::kCpuOp || pk == EventKind::kUserAnnotation) && host_role(p) != -2;
          }
          if (covered) break;
        }
        add(role, b, e);
        break;
      }
      default: break;
    }
  }
  for (size_t s = 0; s < n_steps; ++s) {
    std::vector<Interval> claimed;
    int64_t sum = 0;
    for (size_t r = 0; r + 1 < kRoleCount; ++r) {
      auto& mine = roles[s][r];
      MergeIntervals(mine);
      int64_t t = Unclaimed(mine, claimed);
      out.steps[s].ns[r] = t;
      sum += t;
      if (!mine.empty()) {
        claimed.insert(claimed.end(), mine.begin(), mine.end());
        MergeIntervals(claimed);
      }
    }
    out.steps[s].ns[static_cast<size_t>(Role::kOther)] = std::max<int64_t>(0, steps.analysed[s].duration() - sum);
    for (size_t r = 0; r < kRoleCount; ++r) out.total[r] += out.steps[s].ns[r];
  }
  return out;
}

}  // namespace tl::trace
