#include "traceio/analyses/syncs.h"

#include <algorithm>
#include <unordered_map>

#include "traceio/analyses/names.h"
#include "traceio/analyses/saturating.h"

namespace tl::trace {

namespace {

bool IsMemcpyCall(std::string_view n) {
  return n.starts_with("cudaMemcpy") || n.starts_with("hipMemcpy") || n.starts_with("cuMemcpy");
}

bool IsItemName(std::string_view n) { return n == "aten::item" || n == "aten::_local_scalar_dense"; }

bool ContainsInclusive(const Trace& trace, uint32_t outer, uint32_t inner) {
  return trace.ts(outer) <= trace.ts(inner) && trace.end(inner) <= trace.end(outer);
}

// Whether the _local_scalar_dense `lsd` (not nested under an item) is the body of an aten::item all the
// same. Traces with integer-µs timestamps write many item calls with dur 0, or with the scalar read
// ending exactly where the item ends; zero-length events never become parents in the store, so the
// parent rule misses these. Rounding also lets a neighbouring aten::select start between the item and
// its _local_scalar_dense, so the test is against the nearest earlier aten::item on the track
// (`last_item`), which must contain it with both ends inclusive. An item with the very same interval
// that sorts after it (file order breaks the tie) claims it too.
bool BelongsToItem(const Trace& trace, uint32_t lsd, uint32_t last_item,
                   const std::unordered_map<StringId, uint8_t>& cls) {
  const uint32_t track = trace.track_index(lsd);
  if (last_item != kNoIndex && trace.track_index(last_item) == track && ContainsInclusive(trace, last_item, lsd)) {
    return true;
  }
  const uint32_t next = lsd + 1;
  if (next >= trace.size() || trace.track_index(next) != track || trace.kind(next) != EventKind::kCpuOp) return false;
  auto it = cls.find(trace.name_id(next));
  const bool next_is_item = it != cls.end() ? it->second == 3 : trace.name(next) == "aten::item";
  // Where the pair has a length the scalar read became the item's parent instead, and the item is the
  // one skipped as nested: then the scalar read is the call.
  return next_is_item && trace.ts(next) == trace.ts(lsd) && trace.end(next) == trace.end(lsd) &&
         trace.parent(next) != lsd;
}

}  // namespace

SyncUnder SyncsUnder(const Trace& trace, uint32_t event) {
  SyncUnder out;
  trace.ForEachDescendant(event, [&](uint32_t j) {
    if (!IsLaunch(trace.kind(j))) return;
    std::string_view n = trace.name(j);
    if (IsSyncCall(n) && !IsSyncMemcpyCall(n)) {
      out.sync_call = true;
      SatAddTo(out.blocked_ns, trace.dur(j));
    } else if (IsMemcpyCall(n)) {
      uint32_t g = trace.link(j);
      bool dtoh = g != kNoIndex && trace.copy_kind(g).direction == CopyDirection::kDtoH;
      if (dtoh || IsSyncMemcpyCall(n)) {
        out.dtoh_copy = out.dtoh_copy || dtoh;
        if (IsSyncMemcpyCall(n)) out.sync_call = true;
        SatAddTo(out.blocked_ns, trace.dur(j));
      }
    }
  });
  return out;
}

SyncStats AnalyzeSyncs(const Trace& trace, const Steps& steps) {
  SyncStats out;
  std::unordered_map<StringId, uint8_t> cls;  // 1 sync call, 2 memcpy call, 3 aten::item, 4 _local_scalar_dense
  // The latest aten::item op seen. Events come grouped by track and in time order within a track, so
  // this is the nearest item before the current event when both share a track.
  uint32_t last_item = kNoIndex;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    const EventKind k = trace.kind(i);
    if (!IsLaunch(k) && k != EventKind::kCpuOp) continue;
    auto [it, inserted] = cls.try_emplace(trace.name_id(i), 0);
    if (inserted) {
      std::string_view n = trace.name(i);
      if (IsSyncCall(n)) it->second = 1;
      else if (IsMemcpyCall(n)) it->second = 2;
      else if (n == "aten::item") it->second = 3;
      else if (n == "aten::_local_scalar_dense") it->second = 4;
    }
    const uint8_t c = it->second;
    if (c == 0) continue;
    const int step = steps.FindHost(trace.ts(i));
    if (c == 1 && IsLaunch(k)) {
      if (step >= 0) {
        ++out.sync_calls;
        SatAddTo(out.sync_ns, trace.dur(i));
        out.sync_events.push_back(i);
      }
    } else if (c == 2 && IsLaunch(k)) {
      uint32_t g = trace.link(i);
      if (g != kNoIndex && step >= 0) {
        CopyKind ck = trace.copy_kind(g);
        if (ck.direction == CopyDirection::kDtoH && ck.dst == MemoryKind::kPageable) {
          ++out.blocking_copies;
          SatAddTo(out.blocking_copy_ns, trace.dur(i));
        }
      }
    } else if (c >= 3 && k == EventKind::kCpuOp) {
      if (c == 3) last_item = i;
      // A _local_scalar_dense under aten::item is the same call.
      // An item inside another (never in a real trace) is part of the outer one; skipping it also keeps
      // the walks over descendants linear on a file of nested items.
      bool nested = false;
      for (uint32_t p = trace.parent(i); p != kNoIndex && !nested; p = trace.parent(p)) {
        nested = trace.kind(p) == EventKind::kCpuOp && IsItemName(trace.name(p));
      }
      if (nested) continue;
      if (c == 4 && BelongsToItem(trace, i, last_item, cls)) continue;
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
          SatAddTo(out.item_blocked_ns, call.blocked_ns);
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
    out.blocked_ms_per_step = static_cast<double>(SatAdd(out.sync_ns, out.blocking_copy_ns)) / 1e6 / n;
  }
  return out;
}

}  // namespace tl::trace
