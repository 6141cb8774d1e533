#include "traceio/store.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <type_traits>
#include <unordered_map>

namespace tl::trace {

namespace {

std::optional<int64_t> AsNumber(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

MemoryKind ParseMemoryKind(std::string_view s) {
  if (s == "Pageable") return MemoryKind::kPageable;
  if (s == "Pinned") return MemoryKind::kPinned;
  if (s == "Device" || s == "Device Static" || s == "Array") return MemoryKind::kDevice;
  if (s.empty()) return MemoryKind::kUnknown;
  return MemoryKind::kOther;
}

// Sorts a range that is made of a few sorted runs, as a profiler thread is: cpu ops in time order, then
// that thread's python_function frames in time order, per profiled window. Merges the runs pairwise;
// with more than `max_runs` runs, leaves the range alone and returns false (the caller std::sorts).
template <typename It, typename Less>
bool MergeRuns(It first, It last, Less less, size_t max_runs) {
  std::vector<size_t> bounds{0};
  const auto n = static_cast<size_t>(last - first);
  for (size_t i = 1; i < n; ++i) {
    if (less(first[i], first[i - 1])) {
      bounds.push_back(i);
      if (bounds.size() > max_runs) return false;
    }
  }
  bounds.push_back(n);
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t k = 0; k + 2 < bounds.size(); k += 2) {
      std::inplace_merge(first + bounds[k], first + bounds[k + 1], first + bounds[k + 2], less);
      merged.push_back(bounds[k + 2]);
    }
    if (bounds.size() % 2 == 0) merged.push_back(bounds.back());  // an odd run out waits for the next round
    bounds.swap(merged);
  }
  return true;
}

}  // namespace

std::string_view KindName(EventKind kind) {
  switch (kind) {
    case EventKind::kCpuOp: return "cpu_op";
    case EventKind::kUserAnnotation: return "user_annotation";
    case EventKind::kGpuUserAnnotation: return "gpu_user_annotation";
    case EventKind::kPythonFunction: return "python_function";
    case EventKind::kKernel: return "kernel";
    case EventKind::kMemcpy: return "gpu_memcpy";
    case EventKind::kMemset: return "gpu_memset";
    case EventKind::kRuntime: return "cuda_runtime";
    case EventKind::kDriver: return "cuda_driver";
    case EventKind::kCudaSync: return "cuda_sync";
    case EventKind::kOther: return "other";
  }
  return "other";
}

std::string_view DirectionName(CopyDirection d) {
  switch (d) {
    case CopyDirection::kHtoD: return "HtoD";
    case CopyDirection::kDtoH: return "DtoH";
    case CopyDirection::kDtoD: return "DtoD";
    case CopyDirection::kHtoH: return "HtoH";
    case CopyDirection::kPtoP: return "PtoP";
    case CopyDirection::kUnknown: return "unknown";
  }
  return "unknown";
}

CopyKind ParseCopyKind(std::string_view name) {
  // "Memcpy HtoD (Pageable -> Device)"; ROCm writes "(Host -> Device)", which says nothing of pinning.
  CopyKind k;
  size_t m = name.find("Memcpy ");
  if (m == std::string_view::npos) return k;
  std::string_view rest = name.substr(m + 7);
  if (rest.starts_with("HtoD")) k.direction = CopyDirection::kHtoD;
  else if (rest.starts_with("DtoH")) k.direction = CopyDirection::kDtoH;
  else if (rest.starts_with("DtoD")) k.direction = CopyDirection::kDtoD;
  else if (rest.starts_with("HtoH")) k.direction = CopyDirection::kHtoH;
  else if (rest.starts_with("PtoP")) k.direction = CopyDirection::kPtoP;
  size_t open = rest.find('(');
  size_t arrow = rest.find(" -> ");
  size_t close = rest.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
      open < arrow && arrow < close) {
    k.src = ParseMemoryKind(rest.substr(open + 1, arrow - open - 1));
    k.dst = ParseMemoryKind(rest.substr(arrow + 4, close - arrow - 4));
  }
  return k;
}

std::vector<std::vector<int64_t>> Trace::InputDims(uint32_t i) const {
  std::vector<std::vector<int64_t>> out;
  const OpInfo* info = op(i);
  if (info == nullptr) return out;
  for (uint32_t p = info->dims_begin; p < info->dims_end;) {
    auto n = static_cast<uint32_t>(dims_[p++]);
    std::vector<int64_t> shape;
    for (uint32_t k = 0; k < n && p < info->dims_end; ++k) shape.push_back(dims_[p++]);
    out.push_back(std::move(shape));
  }
  return out;
}

CopyKind Trace::copy_kind(uint32_t i) const {
  if (kind_[i] != EventKind::kMemcpy || name_[i] >= copy_kinds_.size()) return {};
  return copy_kinds_[name_[i]];
}

uint32_t Trace::EnclosingOp(uint32_t i) const {
  for (uint32_t p = parent_[i]; p != kNoIndex; p = parent_[p]) {
    if (kind_[p] == EventKind::kCpuOp) return p;
  }
  return kNoIndex;
}

std::vector<uint32_t> Trace::EventsOfKind(std::initializer_list<EventKind> kinds) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < size(); ++i) {
    if (std::find(kinds.begin(), kinds.end(), kind_[i]) != kinds.end()) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) { return ts_[a] < ts_[b]; });
  return out;
}

size_t Trace::MemoryFootprint() const {
  return ts_.capacity() * 8 + dur_.capacity() * 8 + name_.capacity() * 4 + kind_.capacity() + track_.capacity() * 4 +
         parent_.capacity() * 4 + correlation_.capacity() * 8 + external_id_.capacity() * 8 + link_.capacity() * 4 +
         aux_.capacity() * 4 + gpu_.capacity() * sizeof(GpuInfo) + python_.capacity() * sizeof(PythonFrame) +
         ops_.capacity() * sizeof(OpInfo) + dims_.capacity() * 8 + memory_.capacity() * sizeof(MemoryEvent) +
         flows_.capacity() * sizeof(FlowPoint) + strings_.bytes() + strings_.size() * 40;
}

TraceBuilder::TraceBuilder() = default;

uint32_t TraceBuilder::Track(std::string_view pid, std::string_view tid) {
  StringId p = trace_.strings_.Intern(pid);
  StringId t = trace_.strings_.Intern(tid);
  auto [it, inserted] = track_index_.try_emplace({p, t}, static_cast<uint32_t>(trace_.tracks_.size()));
  if (inserted) {
    tl::trace::Track track;
    track.pid = p;
    track.tid = t;
    track.pid_number = AsNumber(pid);
    track.tid_number = AsNumber(tid);
    trace_.tracks_.push_back(track);
  }
  return it->second;
}

void TraceBuilder::SetThreadName(uint32_t track, std::string_view name) {
  trace_.tracks_[track].thread_name = trace_.strings_.Intern(name);
}

void TraceBuilder::Reserve(size_t events) {
  trace_.ts_.reserve(events);
  trace_.dur_.reserve(events);
  trace_.name_.reserve(events);
  trace_.kind_.reserve(events);
  trace_.track_.reserve(events);
  trace_.correlation_.reserve(events);
  trace_.external_id_.reserve(events);
  trace_.aux_.reserve(events);
}

uint32_t TraceBuilder::Add(const Complete& e) {
  auto index = static_cast<uint32_t>(trace_.ts_.size());
  trace_.ts_.push_back(e.ts);
  trace_.dur_.push_back(e.dur < 0 ? 0 : e.dur);
  trace_.name_.push_back(e.name);
  trace_.kind_.push_back(e.kind);
  trace_.track_.push_back(e.track);
  trace_.correlation_.push_back(e.correlation);
  trace_.external_id_.push_back(e.external_id);
  trace_.aux_.push_back(kNoIndex);
  return index;
}

void TraceBuilder::AttachGpu(uint32_t event, const GpuInfo& info) {
  trace_.aux_[event] = static_cast<uint32_t>(trace_.gpu_.size());
  trace_.gpu_.push_back(info);
}

void TraceBuilder::AttachPython(uint32_t event, const PythonFrame& frame) {
  trace_.aux_[event] = static_cast<uint32_t>(trace_.python_.size());
  trace_.python_.push_back(frame);
}

void TraceBuilder::AttachOp(uint32_t event, StringId call_stack, StringId input_type, std::span<const int64_t> dims) {
  OpInfo info;
  info.call_stack = call_stack;
  info.input_type = input_type;
  info.dims_begin = static_cast<uint32_t>(trace_.dims_.size());
  trace_.dims_.insert(trace_.dims_.end(), dims.begin(), dims.end());
  info.dims_end = static_cast<uint32_t>(trace_.dims_.size());
  trace_.aux_[event] = static_cast<uint32_t>(trace_.ops_.size());
  trace_.ops_.push_back(info);
}

Trace TraceBuilder::Finish() {
  Trace& t = trace_;
  const size_t n = t.ts_.size();

  // Kineto's fractional timestamps are relative to baseTimeNanoseconds; making them absolute lets ranks
  // of one job line up. Integer epoch-µs traces carry no base.
  if (t.metadata_.base_time_ns && *t.metadata_.base_time_ns > 0) {
    const int64_t base = *t.metadata_.base_time_ns;
    // Guard against files whose ts are already absolute: only shift when the sum stays in range.
    bool safe = true;
    for (size_t i = 0; i < n && safe; ++i) safe = t.ts_[i] < INT64_MAX - base - t.dur_[i];
    if (safe) {
      for (auto& v : t.ts_) v += base;
      for (auto& m : t.memory_) m.ts += base;
      for (auto& f : t.flows_) f.ts += base;
      t.metadata_.time_shift_ns = base;
    }
  }

  // Which tracks hold GPU work, and on which device.
  for (size_t i = 0; i < n; ++i) {
    if (IsGpuWork(t.kind_[i])) {
      auto& track = t.tracks_[t.track_[i]];
      track.gpu = true;
      if (track.device < 0) {
        const GpuInfo* g = t.aux_[i] != kNoIndex ? &t.gpu_[t.aux_[i]] : nullptr;
        if (g != nullptr && g->device >= 0) {
          track.device = g->device;
        } else if (track.pid_number) {
          track.device = static_cast<int32_t>(*track.pid_number);
        } else {
          track.device = 0;
        }
      }
    }
  }

  // Sort once by (track, start, longest first) so that each track is a contiguous range and parents come
  // before their children. Packed keys keep the sort cache-friendly on millions of events.
  struct Key {
    uint32_t track;
    uint32_t index;
    int64_t ts;
    int64_t neg_dur;
  };
  auto less = [](const Key& a, const Key& b) {
    if (a.track != b.track) return a.track < b.track;
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.neg_dur != b.neg_dur) return a.neg_dur < b.neg_dur;
    return a.index < b.index;
  };
  auto key_of = [&](size_t i) { return Key{t.track_[i], static_cast<uint32_t>(i), t.ts_[i], -t.dur_[i]}; };
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i) sorted = !less(key_of(i), key_of(i - 1));
  std::vector<Key> keys;
  if (!sorted) {
    // Keys laid out grouped by track (a counting sort, stable, so each track keeps file order), then
    // each track's few sorted runs are merged: the profiler writes a thread's events in time order, in
    // a handful of runs. The result is the one std::sort by `less` gives, as `less` is a total order.
    std::vector<uint32_t> start(t.tracks_.size() + 1, 0);
    for (size_t i = 0; i < n; ++i) ++start[t.track_[i] + 1];
    for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    keys.resize(n);
    {
      std::vector<uint32_t> next(start.begin(), start.end() - 1);
      for (size_t i = 0; i < n; ++i) keys[next[t.track_[i]]++] = key_of(i);
    }
    for (size_t tr = 0; tr + 1 < start.size(); ++tr) {
      auto first = keys.begin() + start[tr];
      auto last = keys.begin() + start[tr + 1];
      if (!MergeRuns(first, last, less, 64)) std::sort(first, last, less);
    }
  }
  std::vector<uint32_t> order(sorted ? 0 : n);
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
  keys.clear();
  keys.shrink_to_fit();
  if (!sorted) {
    // One column at a time, gathered through `order` into a scratch column that then takes its place:
    // reads follow the merged runs, so they stay mostly sequential, and the extra memory is one column.
    auto permute = [&](auto& column) {
      std::remove_reference_t<decltype(column)> out(n);
      for (size_t i = 0; i < n; ++i) out[i] = column[order[i]];
      column.swap(out);
    };
    permute(t.ts_);
    permute(t.dur_);
    permute(t.name_);
    permute(t.kind_);
    permute(t.track_);
    permute(t.correlation_);
    permute(t.external_id_);
    permute(t.aux_);
  }
  order.clear();
  order.shrink_to_fit();

  for (auto& track : t.tracks_) track.begin = track.end = 0;
  for (size_t i = 0; i < n; ++i) {
    auto& track = t.tracks_[t.track_[i]];
    if (track.end == 0) track.begin = static_cast<uint32_t>(i);
    track.end = static_cast<uint32_t>(i + 1);
  }

  // Nesting: a stack per track; an event is popped once a later event starts at or after its end, so the
  // descendants of i are exactly the events after it on its track that start before it ends. Real stacks
  // are a few hundred deep at most; past kMaxNestingDepth an event becomes a leaf under the deepest one,
  // so that walks up the parents stay short even on a hostile file of a million identical events.
  t.parent_.assign(n, kNoIndex);
  t.nesting_capped_ = 0;
  std::vector<uint32_t> stack;
  for (const auto& track : t.tracks_) {
    stack.clear();
    for (uint32_t i = track.begin; i < track.end; ++i) {
      while (!stack.empty() && t.ts_[stack.back()] + t.dur_[stack.back()] <= t.ts_[i]) stack.pop_back();
      if (!stack.empty()) t.parent_[i] = stack.back();
      if (t.dur_[i] <= 0) continue;
      if (stack.size() < kMaxNestingDepth) stack.push_back(i);
      else ++t.nesting_capped_;
    }
  }

  // Launch <-> GPU work through the correlation id; ac2g/async flows fill in where the arg is missing.
  t.link_.assign(n, kNoIndex);
  std::unordered_map<int64_t, uint32_t> launch_by_corr;
  launch_by_corr.reserve(n / 8 + 16);
  bool missing = false;
  for (uint32_t i = 0; i < n; ++i) {
    if (IsLaunch(t.kind_[i]) && t.correlation_[i] != 0) launch_by_corr.emplace(t.correlation_[i], i);
    if (IsGpuWork(t.kind_[i]) && t.correlation_[i] == 0) missing = true;
  }
  if (missing && !t.flows_.empty()) {
    // Flow endpoints sit at the exact ts of their events: 's' on the launch, 'f' on the GPU event.
    auto find_at = [&](uint32_t track_index, int64_t ts, bool want_gpu) -> uint32_t {
      if (track_index >= t.tracks_.size()) return kNoIndex;
      const auto& track = t.tracks_[track_index];
      auto first = t.ts_.begin() + track.begin;
      auto last = t.ts_.begin() + track.end;
      for (auto it = std::lower_bound(first, last, ts); it != last && *it == ts; ++it) {
        auto j = static_cast<uint32_t>(it - t.ts_.begin());
        if (want_gpu ? IsGpuWork(t.kind_[j]) : IsLaunch(t.kind_[j])) return j;
      }
      return kNoIndex;
    };
    for (const auto& f : t.flows_) {
      if (!f.ac2g) continue;
      uint32_t j = find_at(f.track, f.ts, !f.start);
      if (j == kNoIndex || t.correlation_[j] != 0) continue;
      t.correlation_[j] = f.id;
      if (f.start) launch_by_corr.emplace(f.id, j);
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!IsGpuWork(t.kind_[i]) && t.kind_[i] != EventKind::kCudaSync) continue;
    if (t.correlation_[i] == 0) continue;
    auto it = launch_by_corr.find(t.correlation_[i]);
    if (it == launch_by_corr.end()) continue;
    t.link_[i] = it->second;
    if (IsGpuWork(t.kind_[i]) && t.link_[it->second] == kNoIndex) t.link_[it->second] = i;
  }

  // Last resort, for GPU work that no correlation id or flow links: the External id, which the profiler
  // writes on an op, on its launches and on their kernels. Of the launches with the kernel's External id,
  // the last one to start at or before the kernel is taken.
  std::unordered_map<int64_t, std::vector<uint32_t>> launches_by_ext;
  bool unlinked = false;
  for (uint32_t i = 0; i < n && !unlinked; ++i) {
    unlinked = IsGpuWork(t.kind_[i]) && t.link_[i] == kNoIndex && t.external_id_[i] != 0;
  }
  if (unlinked) {
    for (uint32_t i = 0; i < n; ++i) {
      if (IsLaunch(t.kind_[i]) && t.external_id_[i] != 0) launches_by_ext[t.external_id_[i]].push_back(i);
    }
    for (auto& [ext, list] : launches_by_ext) {
      std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) { return t.ts_[a] < t.ts_[b]; });
    }
    for (uint32_t i = 0; i < n; ++i) {
      if (!IsGpuWork(t.kind_[i]) || t.link_[i] != kNoIndex || t.external_id_[i] == 0) continue;
      auto it = launches_by_ext.find(t.external_id_[i]);
      if (it == launches_by_ext.end()) continue;
      const auto& list = it->second;
      auto after = std::upper_bound(list.begin(), list.end(), t.ts_[i],
                                    [&](int64_t ts, uint32_t j) { return ts < t.ts_[j]; });
      if (after == list.begin()) continue;
      const uint32_t launch = *(after - 1);
      t.link_[i] = launch;
      if (t.link_[launch] == kNoIndex) t.link_[launch] = i;
    }
  }

  t.gpu_events_.clear();
  for (uint32_t i = 0; i < n; ++i) {
    if (IsGpuWork(t.kind_[i])) t.gpu_events_.push_back(i);
  }
  std::stable_sort(t.gpu_events_.begin(), t.gpu_events_.end(),
                   [&](uint32_t a, uint32_t b) { return t.ts_[a] < t.ts_[b]; });

  t.copy_kinds_.assign(t.strings_.size(), CopyKind{});
  std::vector<bool> seen(t.strings_.size(), false);
  for (uint32_t i = 0; i < n; ++i) {
    if (t.kind_[i] != EventKind::kMemcpy || seen[t.name_[i]]) continue;
    seen[t.name_[i]] = true;
    t.copy_kinds_[t.name_[i]] = ParseCopyKind(t.strings_.Get(t.name_[i]));
  }

  if (n > 0) {
    t.min_ts_ = *std::min_element(t.ts_.begin(), t.ts_.end());
    t.max_end_ = t.min_ts_;
    for (size_t i = 0; i < n; ++i) t.max_end_ = std::max(t.max_end_, t.ts_[i] + t.dur_[i]);
  }
  std::stable_sort(t.memory_.begin(), t.memory_.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts < b.ts; });
  return std::move(trace_);
}

}  // namespace tl::trace
