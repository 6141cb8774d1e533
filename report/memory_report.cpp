#include "report/memory_report.h"

#include <fmt/core.h>

#include "report/page.h"

namespace tl::trace {
namespace {

std::string Bytes(int64_t b) {
  const double v = static_cast<double>(b);
  if (b >= (int64_t{1} << 30)) return fmt::format("{:.2f} GiB", v / (1 << 30));
  if (b >= (int64_t{1} << 20)) return fmt::format("{:.1f} MiB", v / (1 << 20));
  if (b >= 1024) return fmt::format("{:.1f} KiB", v / 1024);
  return fmt::format("{} B", b);
}

}  // namespace

nlohmann::ordered_json SnapshotToJson(const MemorySnapshot& s) {
  nlohmann::ordered_json j;
  j["path"] = s.path;
  j["has_history"] = s.has_history;
  auto& devices = j["devices"] = nlohmann::ordered_json::array();
  for (const auto& d : s.devices) {
    nlohmann::ordered_json dj;
    dj["device"] = d.device;
    dj["allocated_bytes"] = d.allocated_bytes;
    dj["reserved_bytes"] = d.reserved_bytes;
    dj["peak_allocated_bytes"] = d.peak_allocated_bytes;
    dj["history_start_bytes"] = d.history_start_bytes;
    dj["segments"] = d.segments;
    dj["blocks"] = d.blocks;
    dj["fragmentation_bytes"] = d.fragmentation_bytes;
    dj["fragmentation"] = d.fragmentation();
    dj["history"] = {{"events", d.events},
                     {"allocs", d.allocs},
                     {"frees", d.frees},
                     {"segment_allocs", d.segment_allocs},
                     {"segment_frees", d.segment_frees},
                     {"segment_reallocs", d.segment_reallocs}};
    auto& largest = dj["largest"] = nlohmann::ordered_json::array();
    for (const auto& b : d.largest) largest.push_back({{"address", b.address}, {"bytes", b.bytes}, {"site", b.site}});
    auto& sites = dj["sites"] = nlohmann::ordered_json::array();
    for (const auto& site : d.sites) {
      sites.push_back({{"site", site.site},
                       {"allocations", site.allocations},
                       {"bytes", site.bytes},
                       {"live_bytes", site.live_bytes}});
    }
    devices.push_back(std::move(dj));
  }
  j["warnings"] = s.warnings;
  return j;
}

std::string RenderSnapshot(const MemorySnapshot& s, ReportFormat format, Language language) {
  const Page page(format, language);
  const bool zh = page.zh();
  auto t = [&](const char* en, const char* cn) { return page.T(en, cn); };
  auto heading = [&](const std::string& title) { return page.Heading(title); };
  std::string out = page.Title(t("Memory analysis", "显存分析"));
  out += fmt::format("{}: {}\n", t("Snapshot", "快照"), s.path);
  for (const auto& d : s.devices) {
    out += heading(fmt::format("{} {}", t("Device", "设备"), d.device));
    out += fmt::format("- {}: {}\n", t("Allocated at the snapshot", "快照时已分配"), Bytes(d.allocated_bytes));
    out += fmt::format("- {}: {}\n", t("Reserved at the snapshot", "快照时已预留"), Bytes(d.reserved_bytes));
    out += fmt::format("- {}: {}{}\n", t("Peak allocated over the recorded history", "记录期间分配峰值"),
                       Bytes(d.peak_allocated_bytes),
                       s.has_history ? "" : t(" (no history recorded)", "（未记录分配历史）"));
    out += fmt::format("- {}: {} ({} {}), {}: {} ({:.1f}%)\n", t("Segments", "段"), d.segments, d.blocks,
                       t("blocks", "个块"), t("reserved but not allocated", "预留未分配"), Bytes(d.fragmentation_bytes),
                       d.fragmentation() * 100);
    if (s.has_history) {
      out += fmt::format("- {}: {} {}, {} {}; {}: {} {}, {} {}\n", t("History", "历史"), d.allocs,
                         t("allocations", "次分配"), d.frees, t("frees", "次释放"), t("segments", "段"),
                         d.segment_allocs, t("allocated", "次分配"), d.segment_frees, t("freed", "次释放"));
      if (d.segment_frees > 0 && d.segment_reallocs > 0) {
        out += fmt::format("- {}\n",
                           zh ? fmt::format("empty_cache 抖动：释放 {} 个段后又重新分配了 {} 个段（cudaFree 后再 "
                                            "cudaMalloc）",
                                            d.segment_frees, d.segment_reallocs)
                              : fmt::format("empty_cache churn: {} segments freed and {} allocated again "
                                            "after (cudaFree, then cudaMalloc)",
                                            d.segment_frees, d.segment_reallocs));
      }
    }
    if (!d.largest.empty()) {
      out += fmt::format("\n{}:\n", t("Largest live allocations", "最大的存活分配"));
      for (const auto& b : d.largest) {
        out += fmt::format("  {:>12}  {}\n", Bytes(b.bytes),
                           b.site.empty() ? t("(no frames)", "（无调用栈）") : b.site);
      }
    }
    if (!d.sites.empty()) {
      out += fmt::format("\n{}:\n",
                         t("Allocation sites (first frame outside torch)", "分配位置（torch 之外的第一帧）"));
      for (const auto& site : d.sites) {
        out += fmt::format("  {:>12} {} {:>6} {}, {:>12} {}  {}\n", Bytes(site.bytes), t("in", "共"), site.allocations,
                           t("allocations", "次"), Bytes(site.live_bytes), t("live", "存活"), site.site);
      }
    }
  }
  for (const auto& w : s.warnings) out += fmt::format("\n{}: {}\n", t("Note", "说明"), w);
  return out;
}

}  // namespace tl::trace
