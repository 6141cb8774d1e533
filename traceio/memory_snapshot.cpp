#include "traceio/memory_snapshot.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <unordered_map>

#include <fmt/core.h>

#include "traceio/pickle_reader.h"

namespace tl::trace {
namespace {

// Larger than any snapshot a training run writes (they are megabytes), and a bound on what is read.
constexpr uint64_t kMaxSnapshotBytes = uint64_t{2} << 30;

int64_t IntOf(const PyValue* v) { return v != nullptr ? v->Int().value_or(0) : 0; }
std::string_view StrOf(const PyValue* v) { return v != nullptr ? v->str() : std::string_view(); }

std::string_view BaseName(std::string_view path) {
  const size_t at = path.find_last_of("/\\");
  return at == std::string_view::npos ? path : path.substr(at + 1);
}

bool IsLibraryFrame(std::string_view file) {
  return file.find("site-packages") != std::string_view::npos || file.find("dist-packages") != std::string_view::npos ||
         file.find("/torch/") != std::string_view::npos || file.find("\\torch\\") != std::string_view::npos ||
         file.starts_with("<");
}

// "model.py:54 (forward)": the first frame outside torch and installed packages, else the first frame.
std::string SiteOf(const PyValue* frames) {
  if (frames == nullptr || !frames->is_list() || frames->items.empty()) return {};
  const PyValue* chosen = nullptr;
  for (const auto& f : frames->items) {
    if (!f->is_dict()) continue;
    if (chosen == nullptr) chosen = f.get();
    if (!IsLibraryFrame(StrOf(f->Get("filename")))) {
      chosen = f.get();
      break;
    }
  }
  if (chosen == nullptr) return {};
  return fmt::format("{}:{} ({})", BaseName(StrOf(chosen->Get("filename"))), IntOf(chosen->Get("line")),
                     StrOf(chosen->Get("name")));
}

SnapshotDevice& DeviceFor(std::map<int, SnapshotDevice>& devices, int device) {
  auto it = devices.find(device);
  if (it == devices.end()) {
    it = devices.emplace(device, SnapshotDevice{}).first;
    it->second.device = device;
  }
  return it->second;
}

// Adds the program's own files among `frames` (outside torch and packages) to `files`, each once.
void CollectFrameFiles(const PyValue* frames, std::vector<std::string>& files) {
  if (frames == nullptr || !frames->is_list()) return;
  for (const auto& f : frames->items) {
    if (files.size() >= MemorySnapshot::kMaxFrameFiles) return;
    if (!f->is_dict()) continue;
    const std::string_view file = StrOf(f->Get("filename"));
    if (file.empty() || IsLibraryFrame(file)) continue;
    if (std::find(files.begin(), files.end(), file) == files.end()) files.emplace_back(file);
  }
}

void ReadHistory(const PyValue& events, SnapshotDevice& d, std::unordered_map<int64_t, std::string>& alloc_site,
                 std::map<std::string, SnapshotSite>& sites, MemorySnapshot& snapshot, const std::string& name) {
  std::vector<std::string>& warnings = snapshot.warnings;
  bool completed = false;
  for (const auto& e : events.items) completed = completed || StrOf(e->Get("action")) == "free_completed";
  const std::string_view free_action = completed ? "free_completed" : "free_requested";
  bool freed_segment = false;
  for (const auto& e : events.items) {
    if (!e->is_dict()) continue;
    ++d.events;
    const std::string_view action = StrOf(e->Get("action"));
    const int64_t size = IntOf(e->Get("size"));
    CollectFrameFiles(e->Get("frames"), snapshot.frame_files);
    if (action == "alloc") {
      ++d.allocs;
      std::string site = SiteOf(e->Get("frames"));
      if (!site.empty()) {
        SnapshotSite& s = sites[site];
        s.site = site;
        ++s.allocations;
        s.bytes += size;
      }
      alloc_site[IntOf(e->Get("addr"))] = std::move(site);
    } else if (action == free_action || (action == "free" && !completed)) {
      ++d.frees;
    } else if (action == "segment_alloc" || action == "segment_map") {
      ++d.segment_allocs;
      if (freed_segment) ++d.segment_reallocs;
    } else if (action == "segment_free" || action == "segment_unmap") {
      ++d.segment_frees;
      d.segment_freed_bytes += size;
      freed_segment = true;
    }
  }
  // The peak: undo the history from the snapshot's state, as the memory viewer does.
  int64_t current = d.allocated_bytes;
  int64_t peak = current;
  for (auto it = events.items.rbegin(); it != events.items.rend(); ++it) {
    const PyValue& e = **it;
    if (!e.is_dict()) continue;
    const std::string_view action = StrOf(e.Get("action"));
    const int64_t size = IntOf(e.Get("size"));
    if (action == "alloc") current -= size;
    else if (action == free_action || (action == "free" && !completed)) current += size;
    peak = std::max(peak, current);
  }
  d.peak_allocated_bytes = peak;
  d.history_start_bytes = current;
  if (current < 0) {
    warnings.push_back(
        fmt::format("{}: device {}: the recorded history frees more than it allocated ({} bytes); the peak may be low",
                    name, d.device, -current));
  }
}

}  // namespace

SnapshotResult ParseMemorySnapshot(std::string_view bytes, const std::string& name, size_t top) {
  SnapshotResult out;
  out.snapshot.path = name;
  PickleResult pickle = ReadPickle(bytes);
  if (!pickle.ok()) {
    out.error = fmt::format("{}: {}", name, pickle.error);
    return out;
  }
  const PyValue& root = *pickle.value;
  const PyValue* segments = root.Get("segments");
  if (!root.is_dict() || segments == nullptr || !segments->is_list()) {
    out.error = fmt::format(
        "{}: a pickle of plain data, but not a memory snapshot (no `segments` list); write one with "
        "torch.cuda.memory._dump_snapshot(path)",
        name);
    return out;
  }
  std::map<int, SnapshotDevice> devices;
  std::map<int, std::vector<SnapshotBlock>> live;
  for (const auto& seg : segments->items) {
    if (!seg->is_dict()) continue;
    SnapshotDevice& d = DeviceFor(devices, static_cast<int>(IntOf(seg->Get("device"))));
    ++d.segments;
    d.reserved_bytes += IntOf(seg->Get("total_size"));
    const PyValue* blocks = seg->Get("blocks");
    if (blocks == nullptr || !blocks->is_list()) continue;
    for (const auto& b : blocks->items) {
      if (!b->is_dict()) continue;
      ++d.blocks;
      if (StrOf(b->Get("state")) != "active_allocated") continue;
      const int64_t size = IntOf(b->Get("size"));
      d.allocated_bytes += size;
      live[d.device].push_back({IntOf(b->Get("address")), size, SiteOf(b->Get("frames"))});
      CollectFrameFiles(b->Get("frames"), out.snapshot.frame_files);
    }
  }
  const PyValue* traces = root.Get("device_traces");
  std::map<int, std::map<std::string, SnapshotSite>> sites;
  std::map<int, std::unordered_map<int64_t, std::string>> alloc_sites;
  if (traces != nullptr && traces->is_list()) {
    for (size_t dev = 0; dev < traces->items.size(); ++dev) {
      const PyValue& events = *traces->items[dev];
      if (!events.is_list() || events.items.empty()) continue;
      out.snapshot.has_history = true;
      SnapshotDevice& d = DeviceFor(devices, static_cast<int>(dev));
      ReadHistory(events, d, alloc_sites[d.device], sites[d.device], out.snapshot, name);
    }
  }
  if (!out.snapshot.has_history) {
    out.snapshot.warnings.push_back(
        fmt::format("{}: no allocation history in the snapshot; the peak is the snapshot's own state. Call "
                    "torch.cuda.memory._record_memory_history() before the steps to record one",
                    name));
  }
  for (auto& [device, d] : devices) {
    d.fragmentation_bytes = std::max<int64_t>(0, d.reserved_bytes - d.allocated_bytes);
    if (!out.snapshot.has_history) d.peak_allocated_bytes = d.history_start_bytes = d.allocated_bytes;
    auto& blocks = live[device];
    auto& by_addr = alloc_sites[device];
    std::map<std::string, SnapshotSite>& per_site = sites[device];
    for (auto& b : blocks) {
      if (b.site.empty()) {
        if (auto it = by_addr.find(b.address); it != by_addr.end()) b.site = it->second;
      }
      if (!b.site.empty()) {
        SnapshotSite& s = per_site[b.site];
        s.site = b.site;
        s.live_bytes += b.bytes;
      }
    }
    std::stable_sort(blocks.begin(), blocks.end(),
                     [](const SnapshotBlock& a, const SnapshotBlock& b) { return a.bytes > b.bytes; });
    if (blocks.size() > top) blocks.resize(top);
    d.largest = std::move(blocks);
    for (auto& [site, s] : per_site) d.sites.push_back(std::move(s));
    std::stable_sort(d.sites.begin(), d.sites.end(), [](const SnapshotSite& a, const SnapshotSite& b) {
      return std::max(a.bytes, a.live_bytes) > std::max(b.bytes, b.live_bytes);
    });
    if (d.sites.size() > top) d.sites.resize(top);
    out.snapshot.devices.push_back(std::move(d));
  }
  return out;
}

std::string FormatBytes(int64_t b) {
  const double v = static_cast<double>(b);
  if (b >= (int64_t{1} << 30)) return fmt::format("{:.2f} GiB", v / (1 << 30));
  if (b >= (int64_t{1} << 20)) return fmt::format("{:.1f} MiB", v / (1 << 20));
  if (b >= 1024) return fmt::format("{:.1f} KiB", v / 1024);
  return fmt::format("{} B", b);
}

SegmentChurn SegmentChurnOf(const MemorySnapshot& snapshot) {
  SegmentChurn c;
  c.history = snapshot.has_history;
  for (const auto& d : snapshot.devices) {
    c.events += d.events;
    c.segment_frees += d.segment_frees;
    c.segment_freed_bytes += d.segment_freed_bytes;
    c.segment_reallocs += d.segment_reallocs;
  }
  return c;
}

std::optional<bool> RecordedFrom(const MemorySnapshot& snapshot, std::string_view path) {
  if (snapshot.frame_files.empty()) return std::nullopt;
  const std::string_view name = BaseName(path);
  return std::any_of(snapshot.frame_files.begin(), snapshot.frame_files.end(),
                     [&](const std::string& file) { return BaseName(file) == name; });
}

SnapshotResult ReadMemorySnapshot(const std::string& path, size_t top) {
  SnapshotResult out;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    out.error = fmt::format("{}: cannot open the file", path);
    return out;
  }
  const std::streamoff size = in.tellg();
  if (size < 0 || static_cast<uint64_t>(size) > kMaxSnapshotBytes) {
    out.error = fmt::format("{}: not a regular file of at most {} GiB; a memory snapshot is far smaller", path,
                            kMaxSnapshotBytes >> 30);
    return out;
  }
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) {
    out.error = fmt::format("{}: cannot read the file", path);
    return out;
  }
  return ParseMemorySnapshot(bytes, path, top);
}

}  // namespace tl::trace
