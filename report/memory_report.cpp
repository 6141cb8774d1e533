#include "report/memory_report.h"

#include <fmt/core.h>

#include "report/page.h"

namespace tl::trace {
namespace {

std::string Bytes(int64_t b) { return FormatBytes(b); }

// A site as a Markdown table cell in a code span: a file name may hold `|`, a backtick or a line break,
// which would end the cell, the span or the row.
std::string CodeCell(std::string site) {
  for (char& c : site) {
    if (c == '|' || c == '`' || c == '\n' || c == '\r') c = ' ';
  }
  return fmt::format("`{}`", site);
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
                     {"segment_freed_bytes", d.segment_freed_bytes},
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

std::string SnapshotChurnText(const SnapshotDevice& d, Language language) {
  if (d.segment_frees == 0 || d.segment_reallocs == 0) return {};
  return language == Language::kChinese
             ? fmt::format("empty_cache 抖动：释放了 {} 个段（{}）后又重新分配了 {} 个段（先 cudaFree 再 cudaMalloc）",
                           d.segment_frees, Bytes(d.segment_freed_bytes), d.segment_reallocs)
             : fmt::format(
                   "empty_cache churn: {} segments freed ({}) and {} allocated again after (cudaFree, then "
                   "cudaMalloc)",
                   d.segment_frees, Bytes(d.segment_freed_bytes), d.segment_reallocs);
}

std::vector<std::string> SnapshotNotes(const MemorySnapshot& s, Language language) {
  const bool zh = language == Language::kChinese;
  std::vector<std::string> out;
  if (!s.has_history) {
    out.push_back(zh ? "快照中没有分配历史，峰值即快照时的状态；请在训练 step 之前调用 "
                       "torch.cuda.memory._record_memory_history() 记录"
                     : "the snapshot has no allocation history, so the peak is its own state; call "
                       "torch.cuda.memory._record_memory_history() before the steps to record one");
  }
  for (const auto& d : s.devices) {
    if (d.history_start_bytes >= 0) continue;
    out.push_back(zh ? fmt::format("设备 {} 记录的历史释放的显存比分配的多 {}，峰值可能偏低", d.device,
                                   Bytes(-d.history_start_bytes))
                     : fmt::format("device {}: the recorded history frees {} more than it allocated, so the peak may "
                                   "be low",
                                   d.device, Bytes(-d.history_start_bytes)));
  }
  return out;
}

std::string RenderSnapshotSection(const MemorySnapshot& s, ReportFormat format, Language language, int section_level) {
  const Page page(format, language);
  auto t = [&](const char* en, const char* cn) { return page.T(en, cn); };
  const bool md = page.md();
  // A device's heading one level below the section's: `###` under the report's `##`; in text, inside a
  // report's section, a plain line, so that it does not read as a section of the report.
  auto heading = [&](const std::string& title) {
    if (md) return fmt::format("\n{} {}\n\n", std::string(static_cast<size_t>(section_level) + 1, '#'), title);
    return section_level > 1 ? fmt::format("\n{}{}\n", title, t(":", "：")) : page.Heading(title);
  };
  std::string out = fmt::format("{}{}: {}\n", section_level > 1 ? "- " : "", t("Memory snapshot", "内存快照"), s.path);
  for (const auto& d : s.devices) {
    out += heading(fmt::format(fmt::runtime(t("Snapshot of device {}", "设备 {} 的快照")), d.device));
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
      if (const std::string churn = SnapshotChurnText(d, language); !churn.empty()) out += fmt::format("- {}\n", churn);
    }
    const std::string no_frames = t("(no frames)", "（无调用栈）");
    if (!d.largest.empty()) {
      out += fmt::format("\n{}:\n", t("Largest live allocations", "最大的存活分配"));
      if (md) out += fmt::format("\n| {} | {} |\n|---:|---|\n", t("Size", "大小"), t("Allocated at", "分配位置"));
      for (const auto& b : d.largest) {
        // Code spans for the sites only: the placeholder is prose.
        const std::string site = b.site.empty() ? no_frames : md ? CodeCell(b.site) : b.site;
        out += md ? fmt::format("| {} | {} |\n", Bytes(b.bytes), site)
                  : fmt::format("  {:>12}  {}\n", Bytes(b.bytes), site);
      }
    }
    if (!d.sites.empty()) {
      out += fmt::format("\n{}:\n",
                         t("Allocation sites (first frame outside torch)", "分配位置（torch 之外的第一帧）"));
      if (md) {
        out += fmt::format("\n| {} | {} | {} | {} |\n|---|---:|---:|---:|\n", t("Site", "位置"),
                           t("Allocations", "分配次数"), t("Allocated", "累计分配"), t("Live", "存活"));
      }
      for (const auto& site : d.sites) {
        out += md ? fmt::format("| {} | {} | {} | {} |\n", CodeCell(site.site), site.allocations, Bytes(site.bytes),
                                Bytes(site.live_bytes))
                  : fmt::format("  {:>12} {} {:>6} {}, {:>12} {}  {}\n", Bytes(site.bytes), t("in", "共"),
                                site.allocations, t("allocations", "次"), Bytes(site.live_bytes), t("live", "存活"),
                                site.site);
      }
    }
  }
  for (const auto& note : SnapshotNotes(s, language)) out += fmt::format("\n{}: {}\n", t("Note", "说明"), note);
  return out;
}

std::string RenderSnapshot(const MemorySnapshot& s, ReportFormat format, Language language) {
  const Page page(format, language);
  return page.Title(page.T("Memory analysis", "显存分析")) + RenderSnapshotSection(s, format, language);
}

}  // namespace tl::trace
