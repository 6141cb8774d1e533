#include "traceio/analyses/syncs.h"

#include <algorithm>
#include <unordered_map>

#include "traceio/analyses/names.h"

namespace tl::trace {

namespace {

bool IsMemcpyCall(std::string_view n) {
  return n.starts_with("cudaMemcpy") || n.starts_with("hipMemcpy") || n.starts_with("cuMemcpy");
}

bool IsItemName(std::string_view n) { return n == "aten::item" || n == "aten::_local_scalar_dense"; }

}  // namespace

SyncUnder SyncsUnder(const Trace& trace, uint32_t event) {
  SyncUnder out;
  trace.ForEachDescendant(event, [&](uint32_t j) {
    if (!IsLaunch(trace.kind(j))) return;
    std::string_view n = trace.name(j);
    if (IsSyncCall(n) && !IsSyncMemcpyCall(n)) {
      out.sync_call = true;
      out.blocked_ns += trace.dur(j);
    } else if (IsMemcpyCall(n)) {
      uint32_t g = trace.link(j);
      bool dtoh = g != kNoIndex && trace.copy_kind(g).direction == CopyDirection::kDtoH;
      if (dtoh || IsSyncMemcpyCall(n)) {
        out.dtoh_copy = out.dtoh_copy || dtoh;
        if (IsSyncMemcpyCall(n)) out.sync_call = true;
        out.blocked_ns += trace.dur(j);
      }
    }
  });
  return out;
}

SyncStats AnalyzeSyncs(const Trace& trace, const Steps& steps) {
  SyncStats out;
  std::unordered_map<StringId, uint8_t> cls;  // 1 sync call, 2 memcpy call, 3 item
  for (uint32_t i = 0; i < trace.size(); ++i) {
    const EventKind k = trace.kind(i);
    if (!IsLaunch(k) && k != EventKind::kCpuOp) continue;
    auto [it, inserted] = cls.try_emplace(trace.name_id(i), 0);
    if (inserted) {
      std::string_view n = trace.name(i);
      if (IsSyncCall(n)) it->second = 1;
      else if (IsMemcpyCall(n)) it->second = 2;
      else if (IsItemName(n)) it->second = 3;
    }
    const uint8_t c = it->second;
    if (c == 0) continue;
    const int step = steps.FindHost(trace.ts(i));
    if (c == 1 && IsLaunch(k)) {
      if (step >= 0) {
        ++out.sync_calls;
        out.sync_ns += trace.dur(i);
      }
    } else if (c == 2 && IsLaunch(k)) {
      uint32_t g = trace.link(i);
      if (g != kNoIndex && step >= 0) {
        CopyKind ck = trace.copy_kind(g);
        if (ck.direction == CopyDirection::kDtoH && ck.dst == MemoryKind::kPageable) {
          ++out.blocking_copies;
          out.blocking_copy_ns += trace.dur(i);
        }
      }
    } else if (c == 3 && k == EventKind::kCpuOp) {
      // A _local_scalar_dense under aten::item is the same call.
      // An item inside another (never in a real trace) is part of the outer one; skipping it also keeps
      // the walks over descendants linear on a file of nested items.
      bool nested = false;
      for (uint32_t p = trace.parent(i); p != kNoIndex && !nested; p = trace.parent(p)) {
        nested = trace.kind(p) == EventKind::kCpuOp && IsItemName(trace.name(p));
      }
      if (nested) continue;
      ItemCall call;
      call.event = i;
      call.step = step;
      SyncUnder under = SyncsUnder(trace, i);
      call.dtoh_copy = under.dtoh_copy;
      call.sync_call = under.sync_call;
      call.blocked_ns = under.blocked_ns;
      if (step >= 0) {
        ++out.items_in_steps;
        if (call.syncs()) {
          ++out.syncing_items;
          out.item_blocked_ns += call.blocked_ns;
        }
      }
      out.items.push_back(call);
    }
  }
  std::sort(out.items.begin(), out.items.end(),
            [&](const ItemCall& a, const ItemCall& b) { return trace.ts(a.event) < trace.ts(b.event); });
  if (steps.count() > 0) {
    const double n = static_cast<double>(steps.count());
    out.per_step = static_cast<double>(out.sync_calls) / n;
    out.blocked_ms_per_step = static_cast<double>(out.sync_ns + out.blocking_copy_ns) / 1e6 / n;
  }
  return out;
}

}  // namespace tl::trace
