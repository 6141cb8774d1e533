// The columnar event store every analysis reads. One Trace holds one profiler file (one rank): events
// in parallel columns (int64 ns times, 32-bit interned names, a kind byte, a track), sorted once by
// (track, start, longest first) so each thread or stream is a contiguous range, with the nesting parent
// computed once per track and CPU launches linked to their GPU work through correlation ids, External
// ids and ac2g flows. Only the argument keys analyses use are kept, in side tables.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "traceio/string_pool.h"

namespace tl::trace {

// What an event is, from its category in either vocabulary (PyTorch 1.8-1.9 `Operator`/`Runtime`/`Kernel`,
// 1.10+ `cpu_op`/`cuda_runtime`/`kernel`, ...) and, for legacy files without categories, its name.
enum class EventKind : uint8_t {
  kCpuOp,
  kUserAnnotation,
  kGpuUserAnnotation,
  kPythonFunction,
  kKernel,
  kMemcpy,
  kMemset,
  kRuntime,   // cuda_runtime / hip runtime: launches, syncs, memcpy calls
  kDriver,    // cuda_driver: cuLaunchKernel from Triton and compiled code
  kCudaSync,  // GPU-side sync records (needs enable_cuda_sync_events)
  kOther,     // Trace spans, overhead, anything unknown
};

constexpr bool IsGpuWork(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kMemcpy || k == EventKind::kMemset;
}
constexpr bool IsLaunch(EventKind k) { return k == EventKind::kRuntime || k == EventKind::kDriver; }
constexpr bool IsCpuRange(EventKind k) {
  return k == EventKind::kCpuOp || k == EventKind::kUserAnnotation || k == EventKind::kPythonFunction ||
         k == EventKind::kRuntime || k == EventKind::kDriver;
}
std::string_view KindName(EventKind kind);

// Which profiler wrote the file, as far as the file tells.
enum class TraceFormat : uint8_t {
  kUnknown,
  kLegacyList,  // bare JSON list from builds without Kineto (e.g. Debian's 1.13): names and times only
  kKinetoOld,   // PyTorch 1.8-1.9 category names
  kKineto,      // PyTorch 1.10 and later
  kNsys,        // an Nsight Systems SQLite export (traceio/nsys_reader.h)
};

constexpr uint32_t kNoIndex = 0xffffffffu;
// Deepest nesting the store keeps (see TraceBuilder::Finish); parent walks never go further.
constexpr size_t kMaxNestingDepth = 256;

// A thread (CPU) or a stream (GPU), named by its pid/tid exactly as written (numbers or strings).
struct Track {
  StringId pid = 0;
  StringId tid = 0;
  std::optional<int64_t> pid_number;
  std::optional<int64_t> tid_number;
  StringId thread_name = 0;
  bool gpu = false;     // holds kernels/memcpys/memsets
  int32_t device = -1;  // GPU device for GPU tracks
  uint32_t begin = 0;   // [begin, end) in the sorted event columns
  uint32_t end = 0;
};

// Memcpy direction and pageability, parsed once per distinct GPU memcpy name
// ("Memcpy HtoD (Pageable -> Device)").
enum class CopyDirection : uint8_t { kUnknown, kHtoD, kDtoH, kDtoD, kHtoH, kPtoP };
enum class MemoryKind : uint8_t { kUnknown, kPageable, kPinned, kDevice, kOther };
struct CopyKind {
  CopyDirection direction = CopyDirection::kUnknown;
  MemoryKind src = MemoryKind::kUnknown;
  MemoryKind dst = MemoryKind::kUnknown;
  bool pageable() const { return src == MemoryKind::kPageable || dst == MemoryKind::kPageable; }
};
CopyKind ParseCopyKind(std::string_view name);
std::string_view DirectionName(CopyDirection d);

// Side record of a GPU event (kernel, memcpy, memset).
struct GpuInfo {
  int32_t device = -1;
  int32_t stream = -1;
  int64_t bytes = 0;
};

// Side record of a python_function frame.
struct PythonFrame {
  int64_t python_id = -1;
  int64_t parent_id = -1;
  StringId call_from = 0;  // "file.py:LINE" (PyTorch 2.14+), or 0
};

// Side record of a cpu_op with the args the GEMM and attribution analyses use.
struct OpInfo {
  StringId call_stack = 0;  // 1.8-1.9 `Call stack`, innermost first, ';'-separated
  StringId input_type = 0;  // first entry of `Input type`
  uint32_t dims_begin = 0;  // [dims_begin, dims_end) into Trace::dims(): per input, a count then the sizes
  uint32_t dims_end = 0;
};

// One `[memory]` instant.
struct MemoryEvent {
  int64_t ts = 0;
  int8_t device_type = -1;  // 0 CPU, 1 CUDA
  int32_t device_id = -1;
  int64_t bytes = 0;
  std::optional<int64_t> total_allocated;
  std::optional<int64_t> total_reserved;
};

// A flow endpoint (ac2g, async, async_cpu_to_gpu, fwdbwd).
struct FlowPoint {
  int64_t id = 0;
  int64_t ts = 0;
  uint32_t track = 0;
  bool start = false;
  bool ac2g = false;  // a launch flow, not fwdbwd
};

struct DeviceProperties {
  int id = -1;
  std::string name;
  int64_t total_global_mem = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int num_sms = 0;
};

struct TraceMetadata {
  std::string path;
  TraceFormat format = TraceFormat::kUnknown;
  std::optional<int64_t> base_time_ns;
  // What Finish added to every timestamp (base_time_ns, or 0 where it was not applied): a file's own
  // timestamps are the store's minus this, which is how `trace annotate` writes events the file lines up with.
  int64_t time_shift_ns = 0;
  std::vector<DeviceProperties> devices;
  std::optional<int> rank;
  std::optional<int> world_size;
  std::string backend;
  std::string pytorch_version;  // rarely present; from trace metadata when it is
  std::string cuda_runtime_version;
  std::string cuda_driver_version;
  std::string hip_runtime_version;
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_stack = false;
  bool with_flops = false;
};

class TraceBuilder;

class Trace {
 public:
  Trace() = default;
  Trace(Trace&&) noexcept = default;
  Trace& operator=(Trace&&) noexcept = default;

  size_t size() const { return ts_.size(); }
  int64_t ts(uint32_t i) const { return ts_[i]; }
  int64_t dur(uint32_t i) const { return dur_[i]; }
  int64_t end(uint32_t i) const { return ts_[i] + dur_[i]; }
  StringId name_id(uint32_t i) const { return name_[i]; }
  std::string_view name(uint32_t i) const { return strings_.Get(name_[i]); }
  EventKind kind(uint32_t i) const { return kind_[i]; }
  uint32_t track_index(uint32_t i) const { return track_[i]; }
  const Track& track_of(uint32_t i) const { return tracks_[track_[i]]; }
  // The innermost enclosing event on the same track, or kNoIndex.
  uint32_t parent(uint32_t i) const { return parent_[i]; }
  int64_t correlation(uint32_t i) const { return correlation_[i]; }
  int64_t external_id(uint32_t i) const { return external_id_[i]; }
  // For a GPU event, the runtime/driver call that launched it; for a launch, its first GPU event.
  uint32_t link(uint32_t i) const { return link_[i]; }
  const GpuInfo* gpu(uint32_t i) const { return aux_[i] != kNoIndex && IsGpuWork(kind_[i]) ? &gpu_[aux_[i]] : nullptr; }
  const PythonFrame* python(uint32_t i) const {
    return aux_[i] != kNoIndex && kind_[i] == EventKind::kPythonFunction ? &python_[aux_[i]] : nullptr;
  }
  const OpInfo* op(uint32_t i) const {
    return aux_[i] != kNoIndex && (kind_[i] == EventKind::kCpuOp || kind_[i] == EventKind::kUserAnnotation)
               ? &ops_[aux_[i]]
               : nullptr;
  }
  // Input Dims of an op as a list of shapes.
  std::vector<std::vector<int64_t>> InputDims(uint32_t i) const;
  CopyKind copy_kind(uint32_t i) const;

  // The nearest ancestor that is a cpu_op (the op a launch belongs to), or kNoIndex.
  uint32_t EnclosingOp(uint32_t i) const;
  // One past the last descendant of `i`: nesting is computed so that the descendants of an event are the
  // events after it on its track that start before it ends.
  uint32_t DescendantsEnd(uint32_t i) const {
    const Track& t = tracks_[track_[i]];
    const int64_t stop = end(i);
    uint32_t j = i + 1;
    while (j < t.end && ts_[j] < stop) ++j;
    return j;
  }
  template <typename Fn>
  void ForEachDescendant(uint32_t i, Fn&& fn) const {
    const uint32_t last = DescendantsEnd(i);
    for (uint32_t j = i + 1; j < last; ++j) fn(j);
  }
  bool IsAncestor(uint32_t ancestor, uint32_t j) const {
    for (uint32_t p = parent_[j]; p != kNoIndex; p = parent_[p]) {
      if (p == ancestor) return true;
      if (p < ancestor) return false;  // parents precede children in the sorted order
    }
    return false;
  }

  const std::vector<Track>& tracks() const { return tracks_; }
  const StringPool& strings() const { return strings_; }
  StringPool& strings() { return strings_; }
  const std::vector<MemoryEvent>& memory_events() const { return memory_; }
  const std::vector<FlowPoint>& flows() const { return flows_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const TraceMetadata& metadata() const { return metadata_; }
  TraceMetadata& metadata() { return metadata_; }
  // Events of one kind in time order (kernels, memcpys, ...) across tracks.
  std::vector<uint32_t> EventsOfKind(std::initializer_list<EventKind> kinds) const;
  // Events whose kind counts as GPU work, sorted by start time.
  const std::vector<uint32_t>& gpu_events() const { return gpu_events_; }
  int64_t min_ts() const { return min_ts_; }
  // Events that would have nested deeper than kMaxNestingDepth (kept as leaves one level up).
  uint64_t nesting_capped() const { return nesting_capped_; }
  int64_t max_end() const { return max_end_; }
  size_t MemoryFootprint() const;

 private:
  friend class TraceBuilder;
  std::vector<int64_t> ts_;
  std::vector<int64_t> dur_;
  std::vector<StringId> name_;
  std::vector<EventKind> kind_;
  std::vector<uint32_t> track_;
  std::vector<uint32_t> parent_;
  std::vector<int64_t> correlation_;
  std::vector<int64_t> external_id_;
  std::vector<uint32_t> link_;
  std::vector<uint32_t> aux_;
  std::vector<GpuInfo> gpu_;
  std::vector<PythonFrame> python_;
  std::vector<OpInfo> ops_;
  std::vector<int64_t> dims_;
  std::vector<MemoryEvent> memory_;
  std::vector<FlowPoint> flows_;
  std::vector<Track> tracks_;
  std::vector<uint32_t> gpu_events_;
  std::vector<CopyKind> copy_kinds_;  // by name id, filled lazily at Finish
  StringPool strings_;
  TraceMetadata metadata_;
  int64_t min_ts_ = 0;
  int64_t max_end_ = 0;
  uint64_t nesting_capped_ = 0;
};

// Accumulates events as the reader parses them, then sorts and links them into a Trace.
class TraceBuilder {
 public:
  TraceBuilder();
  StringPool& strings() { return trace_.strings_; }
  TraceMetadata& metadata() { return trace_.metadata_; }

  uint32_t Track(std::string_view pid, std::string_view tid);
  void SetThreadName(uint32_t track, std::string_view name);

  struct Complete {
    int64_t ts = 0;
    int64_t dur = 0;
    StringId name = 0;
    EventKind kind = EventKind::kOther;
    uint32_t track = 0;
    int64_t correlation = 0;
    int64_t external_id = 0;
  };
  // Room for about `events` complete events, so the columns do not grow (and copy) as they fill.
  void Reserve(size_t events);
  // Returns the new event's index (pre-sort).
  uint32_t Add(const Complete& e);
  void AttachGpu(uint32_t event, const GpuInfo& info);
  void AttachPython(uint32_t event, const PythonFrame& frame);
  void AttachOp(uint32_t event, StringId call_stack, StringId input_type, std::span<const int64_t> dims);
  void AddMemory(const MemoryEvent& m) { trace_.memory_.push_back(m); }
  void AddFlow(const FlowPoint& f) { trace_.flows_.push_back(f); }
  size_t event_count() const { return trace_.ts_.size(); }

  // Applies baseTimeNanoseconds, sorts, nests, correlates. The builder is spent afterwards.
  Trace Finish();

 private:
  Trace trace_;
  std::vector<std::pair<StringId, StringId>> track_keys_;
  struct PairHash {
    size_t operator()(const std::pair<StringId, StringId>& p) const {
      return std::hash<uint64_t>()((uint64_t{p.first} << 32) | p.second);
    }
  };
  std::unordered_map<std::pair<StringId, StringId>, uint32_t, PairHash> track_index_;
};

}  // namespace tl::trace
