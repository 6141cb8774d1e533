// CUDA memory snapshots, as `torch.cuda.memory._record_memory_history()` then `_dump_snapshot(path)`
// write them (the PyTorch profiler guide's recommended replacement for `export_memory_timeline`): a
// pickled dict of `segments` (each with its `blocks`) and `device_traces` (alloc, free_requested,
// free_completed, segment_alloc, segment_free, ... with Python frames). Read with the restricted pickle
// reader (traceio/pickle_reader.h), so nothing in the file runs. Per device it measures what is allocated
// and reserved at the snapshot, the peak allocated over the recorded history (reconstructed as PyTorch's
// memory viewer does: the trace undone from the snapshot's state backwards), the largest live blocks,
// the allocation sites by the first Python frame outside torch, the segments and the fragmentation
// (reserved but not allocated), and `empty_cache` churn (segments freed and allocated again).
#pragma once

#include <cstdint>
#include <string>
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
  int64_t segment_reallocs = 0;        // segment_alloc after a segment_free: the churn empty_cache causes
  std::vector<SnapshotBlock> largest;  // live blocks, largest first
  std::vector<SnapshotSite> sites;     // by bytes allocated, largest first
};

struct MemorySnapshot {
  std::string path;
  std::vector<SnapshotDevice> devices;  // by device
  std::vector<std::string> warnings;    // one line each
  bool has_history = false;             // device_traces present and non-empty
};

struct SnapshotResult {
  MemorySnapshot snapshot;
  std::string error;  // one line; set when the file could not be read as a snapshot
  bool ok() const { return error.empty(); }
};

// `top`: the largest blocks and sites kept per device.
SnapshotResult ReadMemorySnapshot(const std::string& path, size_t top = 10);
// The same from bytes already read (tests, fuzzing).
SnapshotResult ParseMemorySnapshot(std::string_view bytes, const std::string& display_name, size_t top = 10);

}  // namespace tl::trace
