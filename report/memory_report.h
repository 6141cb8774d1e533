// Renders a CUDA memory snapshot (traceio/memory_snapshot.h) as the PyTorch profiler guide's memory
// section (显存分析): text or markdown in English or Chinese, and JSON with
// devices[].{device, allocated_bytes, reserved_bytes, peak_allocated_bytes, ...}.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/trace_report_model.h"
#include "traceio/memory_snapshot.h"

namespace tl::trace {

nlohmann::ordered_json SnapshotToJson(const MemorySnapshot& snapshot);
std::string RenderSnapshot(const MemorySnapshot& snapshot, ReportFormat format, Language language);

}  // namespace tl::trace
