// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`, or the file `nsys stats` writes) into
// the same Trace store the Kineto reader fills, one Trace per profiled process (one rank of a `torchrun`
// job), so every analysis, the bottleneck diagnosis, the reports and the cross-check work unchanged.
// SQLite itself reads the file (Debian's libsqlite3), read-only and with untrusted-schema defences on;
// only tables (never views) that exist in `sqlite_master`, with the columns `PRAGMA table_info` lists,
// are queried, because the exporter creates tables lazily and its columns changed between export
// schemas 2.9 and 3.25. Rows are stepped one at a time into the store: memory holds the store, never a
// result set. What it reads:
//   CUPTI_ACTIVITY_KIND_KERNEL / MEMCPY / MEMSET  GPU work, on a track per (device, stream), named as
//                                                  Kineto names it ("Memcpy HtoD (Pageable -> Device)")
//   CUPTI_ACTIVITY_KIND_RUNTIME                    runtime and driver calls, joined to the GPU work on
//                                                  correlationId within the process
//   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION            GPU-side sync records
//   NVTX_EVENTS                                    push/pop and start/end ranges (name in `text` or
//                                                  `textId`), as user annotations on their thread; the
//                                                  ranges of `torch.autograd.profiler.emit_nvtx`
//                                                  ("aten::mm, seq = 3, op_id = 7") as CPU ops
//   TARGET_INFO_GPU, ThreadNames, PROCESSES         device properties, thread and process names
// A file that SQLite cannot read, a database that is not an nsys export, and an export without any CUDA
// or NVTX table are errors with one line that says so; malformed rows are counted and skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "traceio/reader.h"

namespace tl::trace {

// True when the file starts with SQLite's 16-byte header ("SQLite format 3\0"): the format is told by its
// magic bytes, not by its name.
bool IsSqliteFile(const std::string& path);

struct NsysProcess {
  int64_t pid = 0;
  std::string name;  // from PROCESSES ("python3"), when present
  ReadResult read;   // read.trace->metadata().rank is the process's rank in the capture
};

struct NsysRead {
  std::vector<NsysProcess> processes;  // ordered by rank
  std::string error;                   // one line, set when nothing could be read
  std::vector<std::string> warnings;   // one line each, for the whole file
  std::string schema_version;          // EXPORT_SCHEMA_VERSION ("3.25.0"), when present
  bool ok() const { return error.empty(); }
};

NsysRead ReadNsysFile(const std::string& path);

}  // namespace tl::trace
