// CUDA memory snapshots, as `torch.cuda.memory._record_memory_history()` then `_dump_snapshot(path)`
// write them (the PyTorch profiler guide's recommended replacement for `export_memory_timeline`): a
// pickled dict of `segments` (each with its `blocks`) and `device_traces` (alloc, free_requested,
// free_completed, segment_alloc, segment_free, ... with Python frames). Read with the restricted pickle
// reader (traceio/pickle_reader.h), so nothing in the file runs. Per device it measures what is allocated
// and reserved at the snapshot, the peak allocated over the recorded history (reconstructed as PyTorch's
// memory viewer does: the trace undone from the snapshot's state backwards), the largest live blocks,
// the allocation sites by the first Python frame outside torch, the segments and the fragmentation
// (reserved but not allocated), and `empty_cache` churn (segments freed and allocated again). The
// cross-check asks it one question for TL103 (SegmentChurnOf) after deciding whether the snapshot was
// recorded from the checked script at all (RecordedFrom).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tl::trace {

struct SnapshotBlock {
  int64_t address = 0;
  int64_t bytes = 0;
  std::string site;  // "model.py:54 (forward)", or empty when the snapshot has no frames for it
};

struct SnapshotSite {
  std::string site;  // "file.py:LINE (function)"
  int64_t allocations = 0;
  int64_t bytes = 0;       // allocated there over the recorded history
  int64_t live_bytes = 0;  // still allocated at the snapshot
};

struct SnapshotDevice {
  int device = 0;
  int64_t allocated_bytes = 0;  // active allocated blocks at the snapshot
  int64_t reserved_bytes = 0;   // the segments' total size
  int64_t peak_allocated_bytes = 0;
  int64_t history_start_bytes = 0;  // allocated when the recorded history begins
  int64_t segments = 0;
  int64_t blocks = 0;
  int64_t fragmentation_bytes = 0;  // reserved - allocated
  double fragmentation() const {
    return reserved_bytes > 0 ? static_cast<double>(fragmentation_bytes) / static_cast<double>(reserved_bytes) : 0.0;
  }
  // The recorded history.
  int64_t events = 0;
  int64_t allocs = 0;
  int64_t frees = 0;
  int64_t segment_allocs = 0;
  int64_t segment_frees = 0;           // cudaFree of whole segments: empty_cache (or an OOM retry) released them
  int64_t segment_freed_bytes = 0;     // their sizes
  int64_t segment_reallocs = 0;        // segment_alloc after a segment_free: the churn empty_cache causes
  std::vector<SnapshotBlock> largest;  // live blocks, largest first
  std::vector<SnapshotSite> sites;     // by bytes allocated, largest first
};

struct MemorySnapshot {
  std::string path;
  std::vector<SnapshotDevice> devices;  // by device
  std::vector<std::string> warnings;    // one line each
  bool has_history = false;             // device_traces present and non-empty
  // The files of the Python frames outside torch and installed packages (the program's own), as the
  // snapshot spells them, each once, at most kMaxFrameFiles: enough to tell whose snapshot it is.
  std::vector<std::string> frame_files;
  static constexpr size_t kMaxFrameFiles = 64;
};

// TL103's question (`--memory` with the cross-check): did the caching allocator hand whole segments back
// to the driver and allocate segments again after (the cudaFree, then cudaMalloc, of empty_cache)?
// Summed over the devices.
struct SegmentChurn {
  bool history = false;  // a history was recorded; without one the snapshot cannot say
  int64_t events = 0;
  int64_t segment_frees = 0;
  int64_t segment_freed_bytes = 0;
  int64_t segment_reallocs = 0;
  bool churn() const { return segment_frees > 0 && segment_reallocs > 0; }
};
SegmentChurn SegmentChurnOf(const MemorySnapshot& snapshot);

// Whether the snapshot was recorded from the script `path`: true when one of its frame files has the
// script's file name, false when its frames name only other files, nullopt when it has no frames of the
// program's own (recorded without stacks) and cannot tell. Names are compared by their last component,
// with `/` and `\` both separators (snapshots from Windows keep theirs), as a trace's are by the
// cross-check: the fixed twin of an A/B pair keeps the script's name.
std::optional<bool> RecordedFrom(const MemorySnapshot& snapshot, std::string_view path);

struct SnapshotResult {
  MemorySnapshot snapshot;
  std::string error;  // one line; set when the file could not be read as a snapshot
  bool ok() const { return error.empty(); }
};

// "1.2 GiB", "512.0 KiB", "96 B": a byte count as the memory reports and summaries print it.
std::string FormatBytes(int64_t bytes);

// `top`: the largest blocks and sites kept per device.
SnapshotResult ReadMemorySnapshot(const std::string& path, size_t top = 10);
// The same from bytes already read (tests, fuzzing).
SnapshotResult ParseMemorySnapshot(std::string_view bytes, const std::string& display_name, size_t top = 10);

}  // namespace tl::trace
