// Renders a CUDA memory snapshot (traceio/memory_snapshot.h) as the PyTorch profiler guide's memory
// section (显存分析): text or markdown in English or Chinese, and JSON with
// devices[].{device, allocated_bytes, reserved_bytes, peak_allocated_bytes, ...}. `torchlint memory`
// prints it as a page of its own; `trace --memory` and `report --memory` put the same body inside their
// memory section, and the HTML report draws it with the sentences below.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/trace_report_model.h"
#include "traceio/memory_snapshot.h"

namespace tl::trace {

nlohmann::ordered_json SnapshotToJson(const MemorySnapshot& snapshot);
// The page of `torchlint memory`: a title, then RenderSnapshotSection.
std::string RenderSnapshot(const MemorySnapshot& snapshot, ReportFormat format, Language language);
// The snapshot's analysis under a report's memory section: its path, then each device under a heading one
// level below `section_level` (2: `##`), its figures, largest live blocks and allocation sites (tables in
// markdown), and the notes.
std::string RenderSnapshotSection(const MemorySnapshot& snapshot, ReportFormat format, Language language,
                                  int section_level = 1);

// The sentence on a device's empty_cache churn (segments freed, then allocated again); empty when none.
std::string SnapshotChurnText(const SnapshotDevice& device, Language language);
// What the reader should know about the figures (no history recorded, a history that frees more than it
// allocated), in `language`, from the snapshot's data.
std::vector<std::string> SnapshotNotes(const MemorySnapshot& snapshot, Language language);

}  // namespace tl::trace
