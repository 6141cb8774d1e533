#include "report/html_report.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include <fmt/core.h>

#include "report/memory_report.h"
#include "report/trace_report.h"
#include "traceio/event_parser.h"

namespace tl::trace {

namespace {

struct Text {
  Language lang;
  const char* operator()(const char* en, const char* zh) const { return lang == Language::kChinese ? zh : en; }
};

// One colour per breakdown role, in Role order; idle (other) is grey so the eye reads it as a gap.
constexpr std::array<const char*, kRoleCount> kRoleColours = {"#3b6fb6", "#e08a2c", "#c9b22a", "#8a5cc2",
                                                              "#d45087", "#4aa564", "#7aa6d6", "#c8c8c8"};

std::string Ms(int64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }
std::string Pct(double share) { return fmt::format("{:.1f}%", share * 100.0); }

// Long kernel names (templated CUTLASS ones run to hundreds of bytes) are cut for the chart label; the
// full name stays in the SVG <title> tooltip.
std::string Shorten(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return s.substr(0, cut) + "…";
}

// The width of a chart label in the 12px monospace font the charts use (about 7.3px a character;
// East Asian characters are twice as wide).
double TextWidth(std::string_view text) {
  double w = 0.0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    w += c >= 0xE0 ? 14.6 : 7.3;
  }
  return w;
}

struct Bar {
  std::string label;
  double value = 0.0;
  std::string value_text;
};

// Horizontal bars, one row each, scaled to the largest value.
std::string HorizontalBars(const std::vector<Bar>& bars, const char* colour, const char* css_class) {
  constexpr int kRow = 22, kLabelW = 360, kBarW = 330, kWidth = 800;
  double max = 0.0;
  for (const auto& b : bars) max = std::max(max, b.value);
  std::string svg = fmt::format(R"(<svg class="chart {}" role="img" viewBox="0 0 {} {}" width="100%">)", css_class,
                                kWidth, static_cast<int>(bars.size()) * kRow + 4);
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const int y = static_cast<int>(i) * kRow + 2;
    const double w = max > 0 ? b.value / max * kBarW : 0.0;
    // The value goes after the bar, or inside its end when it would run past the chart's edge.
    const double text_w = TextWidth(b.value_text);
    const bool inside = kLabelW + w + 4 + text_w > kWidth - 2 && w > text_w + 8;
    svg += fmt::format(R"(<g><title>{}</title><text x="{}" y="{}" text-anchor="end" class="lbl">{}</text>)"
                       R"(<rect class="bar" x="{}" y="{}" width="{:.1f}" height="{}" fill="{}"/>)"
                       R"(<text x="{:.1f}" y="{}"{} class="val{}">{}</text></g>)",
                       HtmlEscape(b.label), kLabelW - 6, y + 15, HtmlEscape(Shorten(b.label, 46)), kLabelW, y + 2, w,
                       kRow - 6, colour, inside ? kLabelW + w - 4 : kLabelW + w + 4, y + 15,
                       inside ? R"( text-anchor="end")" : "", inside ? " in" : "", HtmlEscape(b.value_text));
  }
  return svg + "</svg>\n";
}

std::string Legend(const std::vector<std::pair<std::string, const char*>>& items) {
  std::string out = R"(<p class="legend">)";
  for (const auto& [label, colour] : items)
    out += fmt::format(R"(<span><i style="background:{}"></i>{}</span>)", colour, HtmlEscape(label));
  return out + "</p>\n";
}

// One vertical bar per step, stacked by role in Role order, in ms on a shared scale. Only the roles
// present anywhere in the steps get a segment, so every step has the same number of rects.
std::string StepBreakdownChart(const Breakdown& bd, Language lang) {
  std::vector<size_t> present;
  for (size_t r = 0; r < kRoleCount; ++r)
    if (bd.total[r] > 0) present.push_back(r);
  int64_t max_ns = 0;
  for (const auto& s : bd.steps) {
    int64_t sum = 0;
    for (auto v : s.ns) sum += v;
    max_ns = std::max(max_ns, sum);
  }
  constexpr int kHeight = 240, kTop = 10, kLeft = 80, kWidth = 800;
  const int n = static_cast<int>(bd.steps.size());
  const double slot = n > 0 ? static_cast<double>(kWidth - kLeft - 10) / n : 0.0;
  const double bar_w = std::max(2.0, slot * 0.7);
  std::string svg = fmt::format(R"(<svg class="chart steps" role="img" viewBox="0 0 {} {}" width="100%">)", kWidth,
                                kHeight + kTop + 30);
  // Axis: 0 and the tallest step.
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)", kLeft, kTop, kTop + kHeight);
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" class="axis"/>)", kLeft, kTop + kHeight, kWidth - 5);
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" class="lbl">{}</text>)", kLeft - 4, kTop + 10,
                     Ms(max_ns));
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" class="lbl">0</text>)", kLeft - 4, kTop + kHeight);
  for (int i = 0; i < n; ++i) {
    const auto& s = bd.steps[static_cast<size_t>(i)];
    const double x = kLeft + slot * i + (slot - bar_w) / 2;
    double y = kTop + kHeight;
    svg += "<g>";
    for (size_t r : present) {
      const double h = max_ns > 0 ? static_cast<double>(s.ns[r]) / static_cast<double>(max_ns) * kHeight : 0.0;
      y -= h;
      svg += fmt::format(R"(<rect class="seg" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}">)"
                         R"(<title>{} {}: {} {}</title></rect>)",
                         x, y, bar_w, h, kRoleColours[r], "step", i + 1, RoleLabel(static_cast<Role>(r), lang),
                         Ms(s.ns[r]));
    }
    svg += "</g>";
    if (n <= 40 || i % (n / 20 + 1) == 0)
      svg += fmt::format(R"(<text x="{:.1f}" y="{}" text-anchor="middle" class="lbl">{}</text>)", x + bar_w / 2,
                         kTop + kHeight + 16, i + 1);
  }
  svg += "</svg>\n";
  std::vector<std::pair<std::string, const char*>> legend;
  legend.reserve(present.size());
  for (size_t r : present) legend.emplace_back(RoleLabel(static_cast<Role>(r), lang), kRoleColours[r]);
  return svg + Legend(legend);
}

// GPU busy share per step, 0-100%.
std::string BusyChart(const std::vector<double>& per_step) {
  constexpr int kHeight = 120, kTop = 10, kLeft = 80, kWidth = 800;
  const int n = static_cast<int>(per_step.size());
  const double slot = n > 0 ? static_cast<double>(kWidth - kLeft - 10) / n : 0.0;
  const double bar_w = std::max(2.0, slot * 0.7);
  std::string svg = fmt::format(R"(<svg class="chart busy" role="img" viewBox="0 0 {} {}" width="100%">)", kWidth,
                                kHeight + kTop + 24);
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)", kLeft, kTop, kTop + kHeight);
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" class="axis"/>)", kLeft, kTop + kHeight, kWidth - 5);
  // The guide's healthy line.
  svg += fmt::format(R"(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" class="goal"/>)", kLeft, kTop + kHeight * 0.2,
                     kWidth - 5, kTop + kHeight * 0.2);
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" class="lbl">100%</text>)", kLeft - 4, kTop + 10);
  svg += fmt::format(R"(<text x="{}" y="{:.0f}" text-anchor="end" class="lbl">80%</text>)", kLeft - 4,
                     kTop + kHeight * 0.2 + 4);
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" class="lbl">0</text>)", kLeft - 4, kTop + kHeight);
  for (int i = 0; i < n; ++i) {
    const double share = std::clamp(per_step[static_cast<size_t>(i)], 0.0, 1.0);
    const double h = share * kHeight;
    const double x = kLeft + slot * i + (slot - bar_w) / 2;
    svg += fmt::format(R"(<rect class="busybar" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#3b6fb6">)"
                       R"(<title>step {}: {}</title></rect>)",
                       x, kTop + kHeight - h, bar_w, h, i + 1, Pct(share));
  }
  return svg + "</svg>\n";
}

// The unit of a chart's scale, from its largest value: 1e9 (GB), 1e6 (MB), 1e3 (KB) or 1 (bytes).
double ByteUnit(double max_bytes) {
  return max_bytes >= 1e9 ? 1e9 : max_bytes >= 1e6 ? 1e6 : max_bytes >= 1e3 ? 1e3 : 1;
}

// "1.23 GB", "456.7 MB", "12.0 KB" or "64 B", in the chart's unit.
std::string Bytes(double bytes, double unit) {
  if (unit >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (unit >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (unit >= 1e3) return fmt::format("{:.1f} KB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

// One device's allocated (solid) and reserved (dashed) memory over the trace, with its peak marked.
std::string MemoryChart(const MemoryRow& m, Language lang) {
  const Text t{lang};
  constexpr int kHeight = 160, kTop = 12, kLeft = 80, kWidth = 800, kRight = 790;
  double max_ms = 0.0, max_bytes = 0.0;
  size_t peak = 0;
  for (size_t i = 0; i < m.timeline.size(); ++i) {
    const auto& p = m.timeline[i];
    max_ms = std::max(max_ms, p.ms);
    max_bytes = std::max({max_bytes, static_cast<double>(p.allocated), static_cast<double>(p.reserved)});
    if (p.allocated > m.timeline[peak].allocated) peak = i;
  }
  const double min_ms = m.timeline.empty() ? 0.0 : m.timeline.front().ms;
  const double span_ms = std::max(max_ms - min_ms, 1e-6);
  const double unit = ByteUnit(max_bytes);
  auto x_of = [&](double ms) { return kLeft + (ms - min_ms) / span_ms * (kRight - kLeft); };
  auto y_of = [&](double bytes) { return kTop + kHeight - (max_bytes > 0 ? bytes / max_bytes * kHeight : 0.0); };
  std::string svg = fmt::format(R"(<svg class="chart memtime" role="img" viewBox="0 0 {} {}" width="100%">)", kWidth,
                                kHeight + kTop + 26);
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)", kLeft, kTop, kTop + kHeight);
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" class="axis"/>)", kLeft, kTop + kHeight, kRight);
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" class="lbl">{}</text>)", kLeft - 4, kTop + 10,
                     Bytes(max_bytes, unit));
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" class="lbl">0</text>)", kLeft - 4, kTop + kHeight);
  svg += fmt::format(R"(<text x="{}" y="{}" class="lbl">{:.1f} ms</text>)", kLeft, kTop + kHeight + 16, min_ms);
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" class="lbl">{:.1f} ms</text>)", kRight,
                     kTop + kHeight + 16, max_ms);
  // Steps: the level holds until the next event.
  auto path = [&](auto value) {
    std::string d;
    for (size_t i = 0; i < m.timeline.size(); ++i) {
      const auto& p = m.timeline[i];
      const double x = x_of(p.ms), y = y_of(static_cast<double>(value(p)));
      d += i == 0 ? fmt::format("M{:.1f},{:.1f}", x, y) : fmt::format(" H{:.1f} V{:.1f}", x, y);
    }
    return d;
  };
  if (m.peak_reserved > 0) {
    svg += fmt::format(R"(<path class="reserved" d="{}"><title>{}</title></path>)",
                       path([](const MemoryPoint& p) { return p.reserved; }), t("reserved", "已预留"));
  }
  svg += fmt::format(R"(<path class="alloc" d="{}"><title>{}</title></path>)",
                     path([](const MemoryPoint& p) { return p.allocated; }), t("allocated", "已分配"));
  if (!m.timeline.empty()) {
    const auto& p = m.timeline[peak];
    const double x = x_of(p.ms), y = y_of(static_cast<double>(p.allocated));
    const std::string label = fmt::format(fmt::runtime(t("peak {} at {:.1f} ms", "峰值 {}（{:.1f} ms）")),
                                          Bytes(static_cast<double>(p.allocated), unit), p.ms);
    const bool left = x + 6 + TextWidth(label) > kWidth - 2;
    svg += fmt::format(R"(<circle class="peak" cx="{:.1f}" cy="{:.1f}" r="3.5"><title>{}</title></circle>)"
                       R"(<text x="{:.1f}" y="{:.1f}"{} class="lbl">{}</text>)",
                       x, y, HtmlEscape(label), left ? x - 6 : x + 6, std::max(y - 5, 11.0),
                       left ? R"( text-anchor="end")" : "", HtmlEscape(label));
  }
  svg += "</svg>\n";
  std::vector<std::pair<std::string, const char*>> legend = {{t("allocated", "已分配"), "#8a5cc2"}};
  if (m.peak_reserved > 0) legend.emplace_back(t("reserved (caching allocator)", "已预留（缓存分配器）"), "#9aa3b0");
  return svg + Legend(legend);
}

// A memory snapshot (`--memory`) under the memory section: per device its allocated, reserved and peak
// memory as bars, fragmentation, history and churn as a list, the largest live blocks as bars and the
// allocation sites as a table. The sentences are memory_report's, as the Markdown report words them.
std::string SnapshotHtml(const MemorySnapshot& s, Language lang) {
  const Text t{lang};
  std::string out = fmt::format("<p>{}{}</p>\n", HtmlEscape(t("Memory snapshot: ", "内存快照：")), HtmlEscape(s.path));
  for (const auto& d : s.devices) {
    out += fmt::format("<h3>{}</h3>\n",
                       HtmlEscape(fmt::format(fmt::runtime(t("Snapshot of device {}", "设备 {} 的快照")), d.device)));
    out += HorizontalBars({{t("allocated at the snapshot", "快照时已分配"), static_cast<double>(d.allocated_bytes),
                            FormatBytes(d.allocated_bytes)},
                           {t("reserved at the snapshot", "快照时已预留"), static_cast<double>(d.reserved_bytes),
                            FormatBytes(d.reserved_bytes)},
                           {s.has_history ? t("peak allocated (history)", "记录期间分配峰值")
                                          : t("peak allocated (no history)", "分配峰值（无历史）"),
                            static_cast<double>(d.peak_allocated_bytes), FormatBytes(d.peak_allocated_bytes)}},
                          "#8a5cc2", "snapshot");
    out += "<ul>\n";
    out += fmt::format(
        "<li>{}</li>\n",
        HtmlEscape(fmt::format(fmt::runtime(t("Fragmentation: {} reserved but not allocated ({:.1f}%), {} segments, "
                                              "{} blocks",
                                              "碎片：{} 预留未分配（{:.1f}%），{} 个段，{} 个块")),
                               FormatBytes(d.fragmentation_bytes), d.fragmentation() * 100, d.segments, d.blocks)));
    if (s.has_history) {
      out += fmt::format(
          "<li>{}</li>\n",
          HtmlEscape(fmt::format(fmt::runtime(t("History: {} allocations, {} frees; segments: {} allocated, {} freed",
                                                "历史：{} 次分配，{} 次释放；段：{} 次分配，{} 次释放")),
                                 d.allocs, d.frees, d.segment_allocs, d.segment_frees)));
      if (const std::string churn = SnapshotChurnText(d, lang); !churn.empty()) {
        out += fmt::format("<li><strong>{}</strong></li>\n", HtmlEscape(churn));
      }
    }
    out += "</ul>\n";
    if (!d.largest.empty()) {
      std::vector<Bar> bars;
      for (const auto& b : d.largest) {
        bars.push_back({b.site.empty() ? t("(no frames)", "（无调用栈）") : b.site, static_cast<double>(b.bytes),
                        FormatBytes(b.bytes)});
      }
      out += fmt::format("<h3>{}</h3>\n", HtmlEscape(t("Largest live allocations", "最大的存活分配")));
      out += HorizontalBars(bars, "#d45087", "blocks");
    }
    if (!d.sites.empty()) {
      out += fmt::format("<h3>{}</h3>\n", HtmlEscape(t("Allocation sites (first frame outside torch)",
                                                       "分配位置（torch 之外的第一帧）")));
      out += fmt::format(
          "<table class=\"sites\"><tr><th>{}</th><th class=\"num\">{}</th><th class=\"num\">{}</th>"
          "<th class=\"num\">{}</th></tr>\n",
          HtmlEscape(t("Site", "位置")), HtmlEscape(t("Allocations", "分配次数")),
          HtmlEscape(t("Allocated", "累计分配")), HtmlEscape(t("Live", "存活")));
      for (const auto& site : d.sites) {
        out += fmt::format(
            "<tr><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td></tr>\n",
            HtmlEscape(site.site), site.allocations, FormatBytes(site.bytes), FormatBytes(site.live_bytes));
      }
      out += "</table>\n";
    }
  }
  for (const auto& note : SnapshotNotes(s, lang)) {
    out += fmt::format("<p class=\"note\">{}</p>\n", HtmlEscape(note));
  }
  return out;
}

// One horizontal bar split into parts, e.g. the GPU idle causes.
std::string SplitBar(const std::vector<std::pair<std::string, int64_t>>& parts) {
  constexpr std::array<const char*, 3> kColours = {"#e08a2c", "#7aa6d6", "#c8c8c8"};
  int64_t total = 0;
  for (const auto& p : parts) total += p.second;
  constexpr int kWidth = 800, kBarW = 780;
  std::string svg = fmt::format(R"(<svg class="chart idle" role="img" viewBox="0 0 {} 34" width="100%">)", kWidth);
  double x = 10;
  std::vector<std::pair<std::string, const char*>> legend;
  for (size_t i = 0; i < parts.size(); ++i) {
    const double w = total > 0 ? static_cast<double>(parts[i].second) / static_cast<double>(total) * kBarW : 0.0;
    const char* colour = kColours[i % kColours.size()];
    svg += fmt::format(R"(<rect class="part" x="{:.1f}" y="4" width="{:.1f}" height="26" fill="{}">)"
                       R"(<title>{}: {}</title></rect>)",
                       x, w, colour, HtmlEscape(parts[i].first), Ms(parts[i].second));
    x += w;
    legend.emplace_back(fmt::format("{} {}", parts[i].first, Ms(parts[i].second)), colour);
  }
  return svg + "</svg>\n" + Legend(legend);
}

constexpr const char* kStyle = R"(
:root { color-scheme: light; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", sans-serif;
  color: #1d2430; background: #f6f7f9; margin: 0; }
main { max-width: 920px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.2em; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #e3e6eb; }
h3 { font-size: 1em; margin: 18px 0 6px; color: #444; }
.sub { color: #5b6473; margin: 0 0 16px; word-break: break-all; }
ul { padding-left: 20px; } li { margin: 3px 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { word-break: break-all; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.92em; }
svg.chart { display: block; margin: 6px 0; max-width: 800px; }
svg .lbl, svg .val { font-size: 12px; fill: #3a4250; font-family: ui-monospace, Menlo, Consolas, monospace; }
svg .val.in { fill: #fff; }
svg .alloc { fill: none; stroke: #8a5cc2; stroke-width: 1.5; }
svg .reserved { fill: none; stroke: #9aa3b0; stroke-width: 1.2; stroke-dasharray: 5 3; }
svg .peak { fill: #c0392b; }
svg .axis { stroke: #9aa3b0; stroke-width: 1; }
svg .goal { stroke: #4aa564; stroke-width: 1; stroke-dasharray: 4 3; }
.legend { font-size: 0.85em; color: #3a4250; margin: 2px 0 10px; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend i { display: inline-block; width: 11px; height: 11px; margin-right: 5px; vertical-align: -1px; }
.sev { display: inline-block; min-width: 3.5em; text-align: center; border-radius: 3px; padding: 0 6px;
  font-size: 0.8em; font-weight: 600; color: #fff; margin-right: 6px; }
.sev-high { background: #c0392b; } .sev-medium { background: #d68910; } .sev-low { background: #7f8c8d; }
.note { color: #5b6473; font-style: italic; }
ol > li { margin: 6px 0; }
code, .loc { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.92em; }
pre { white-space: pre-wrap; word-break: break-all; background: #f4f5f7; padding: 6px 8px; border-radius: 3px; }
@media print {
  body { background: #fff; font-size: 11pt; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  section, svg.chart, tr { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
)";

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string clean(text);
  SanitizeUtf8(clean.data(), clean.size());
  std::string out;
  out.reserve(clean.size());
  for (char c : clean) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string HtmlPageStart(Language lang, std::string_view title, std::string_view subtitle) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n<h1>{}</h1>\n<p class=\"sub\">{}</p>\n",
      lang == Language::kChinese ? "zh" : "en", HtmlEscape(title), kStyle, HtmlEscape(title), HtmlEscape(subtitle));
}

std::string HtmlPageEnd() { return "</main>\n</body>\n</html>\n"; }

std::string PairedBars(const std::vector<PairedBar>& rows, Language lang) {
  constexpr int kRow = 16, kGap = 8, kLabelW = 260, kBarW = 400, kWidth = 800;
  constexpr const char* kBefore = "#9aa3b0";
  constexpr const char* kAfter = "#3b6fb6";
  double max = 0.0;
  for (const auto& r : rows) max = std::max({max, r.before, r.after});
  const int height = static_cast<int>(rows.size()) * (2 * kRow + kGap) + 4;
  std::string svg = fmt::format(R"(<svg class="chart paired" role="img" viewBox="0 0 {} {}" width="100%">)", kWidth,
                                height);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const int y = static_cast<int>(i) * (2 * kRow + kGap) + 2;
    svg += fmt::format(R"(<g><title>{}</title><text x="{}" y="{}" text-anchor="end" class="lbl">{}</text>)",
                       HtmlEscape(r.label), kLabelW - 6, y + kRow + 4, HtmlEscape(Shorten(r.label, 32)));
    for (int side = 0; side < 2; ++side) {
      const double v = side == 0 ? r.before : r.after;
      const double w = max > 0 ? std::max(0.0, v) / max * kBarW : 0.0;
      svg += fmt::format(R"(<rect class="bar {}" x="{}" y="{}" width="{:.1f}" height="{}" fill="{}"/>)"
                         R"(<text x="{:.1f}" y="{}" class="val">{}</text>)",
                         side == 0 ? "before" : "after", kLabelW, y + side * kRow, w, kRow - 3,
                         side == 0 ? kBefore : kAfter, kLabelW + w + 4, y + side * kRow + 11,
                         HtmlEscape(side == 0 ? r.before_text : r.after_text));
    }
    svg += "</g>";
  }
  svg += "</svg>\n";
  const bool zh = lang == Language::kChinese;
  return svg + Legend({{zh ? "修改前" : "before", kBefore}, {zh ? "修改后" : "after", kAfter}});
}

std::string RenderHtmlReport(const TraceReport& r, const TraceAnalysis& a, const std::vector<HtmlFinding>& findings) {
  const Language lang = r.language;
  Text t{lang};
  const auto& env = r.environment;
  const auto& g = r.gpu;
  std::string out;
  auto h2 = [&](const std::string& id, const std::string& s) {
    out += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", id, HtmlEscape(s));
  };
  auto end = [&] { out += "</section>\n"; };
  auto note = [&](const std::string& s) { out += fmt::format("<p class=\"note\">{}</p>\n", HtmlEscape(s)); };
  auto sev = [&](Severity s) {
    const char* cls = s == Severity::kHigh ? "high" : s == Severity::kMedium ? "medium" : "low";
    return fmt::format("<span class=\"sev sev-{}\">{}</span>", cls, HtmlEscape(SeverityLabel(s, lang)));
  };

  out += HtmlPageStart(lang, t("PyTorch performance report", "PyTorch 性能分析报告"),
                       t("Trace: ", "Trace 文件：") + env.trace_path);

  // 环境信息
  h2("environment", t("Environment", "环境信息"));
  out += "<ul>\n";
  auto li = [&](const std::string& k, const std::string& v) {
    out += fmt::format("<li>{}{}</li>\n", HtmlEscape(k), HtmlEscape(v));
  };
  li(t("PyTorch version: ", "PyTorch 版本："),
     env.pytorch_version.empty() ? fmt::format("{} ({})", t("not recorded", "未记录"), env.pytorch_era)
                                 : env.pytorch_version);
  if (!env.cuda_runtime_version.empty()) li(t("CUDA runtime: ", "CUDA Runtime 版本："), env.cuda_runtime_version);
  if (!env.cuda_driver_version.empty()) li(t("CUDA driver: ", "CUDA 驱动版本："), env.cuda_driver_version);
  if (!env.hip_runtime_version.empty()) li(t("HIP runtime: ", "HIP Runtime 版本："), env.hip_runtime_version);
  std::string gpu_text;
  for (const auto& [name, count] : env.gpus)
    gpu_text += fmt::format("{}{} x {}", gpu_text.empty() ? "" : ", ", name, count);
  li(fmt::format("GPU{}", t(": ", "：")), gpu_text.empty() ? t("none recorded", "未记录") : gpu_text);
  if (env.rank)
    li(t("Rank: ", "Rank："),
       fmt::format("{} / {}", *env.rank, env.world_size ? std::to_string(*env.world_size) : "?"));
  li(t("Scope: ", "分析范围："),
     fmt::format(fmt::runtime(t("{} steps ({}), mean {:.2f} ms", "{} 个 step（{}），平均 {:.2f} ms")), env.step_count,
                 env.step_source, env.mean_step_ms));
  if (!env.step_note.empty()) li(t("Note: ", "注意："), env.step_note);
  out += "</ul>\n";
  end();

  // Top 10 ops
  h2("top-ops", fmt::format(fmt::runtime(t("Top {} ops", "Top {} 耗时算子")), r.top_n));
  if (r.top_ops.empty()) {
    note(t("no operators in the trace", "trace 中没有算子"));
  } else {
    const bool by_cuda = std::any_of(r.top_ops.begin(), r.top_ops.end(),
                                     [](const auto& o) { return o.self_cuda_ns > 0; });
    std::vector<Bar> bars;
    for (const auto& o : r.top_ops) {
      const int64_t v = by_cuda ? o.self_cuda_ns : o.self_cpu_ns;
      bars.push_back({o.name, static_cast<double>(v), Ms(v)});
    }
    out += fmt::format("<h3>{}</h3>\n", HtmlEscape(by_cuda ? "Self CUDA" : "Self CPU"));
    out += HorizontalBars(bars, "#3b6fb6", "ops");
    out += fmt::format(
        "<table><tr><th>#</th><th>{}</th><th class=\"num\">Self CUDA</th><th class=\"num\">CUDA total</th>"
        "<th class=\"num\">Self CPU</th><th class=\"num\">{}</th></tr>\n",
        HtmlEscape(t("Op", "算子")), HtmlEscape(t("Calls", "调用次数")));
    for (size_t i = 0; i < r.top_ops.size(); ++i) {
      const auto& o = r.top_ops[i];
      out += fmt::format(
          "<tr><td>{}</td><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
          i + 1, HtmlEscape(o.name), Ms(o.self_cuda_ns), Ms(o.cuda_total_ns), Ms(o.self_cpu_ns), o.calls);
    }
    out += "</table>\n";
  }
  end();

  // GPU 利用率概览
  h2("gpu", t("GPU utilisation", "GPU 利用率概览"));
  if (!g.has_gpu) {
    note(t("No GPU activity in the trace (CPU-only profile; add ProfilerActivity.CUDA): no GPU charts.",
           "trace 中没有 GPU 活动（仅 CPU；请启用 ProfilerActivity.CUDA），因此没有 GPU 图表。"));
  } else {
    out += "<ul>\n";
    li(t("GPU busy: ", "GPU 活跃时间占比："), fmt::format("{} ({} > 80%)", Pct(g.busy_share), t("healthy", "健康值")));
    li(t("Tensor cores: ", "Tensor Core 使用情况："),
       fmt::format("{} ({} {})", g.tensor_cores_used ? t("yes", "是") : t("no", "否"), Pct(g.tensor_core_share),
                   t("of kernel time", "的 kernel 时间")));
    li(t("Kernels under 10 µs: ", "耗时 < 10μs 的 kernel："), Pct(g.short_kernel_share));
    li(t("Main idle cause: ", "主要空闲原因："), g.main_idle_cause);
    out += "</ul>\n";
    if (!a.busy.per_step.empty()) {
      out += fmt::format("<h3>{}</h3>\n", HtmlEscape(t("GPU busy per step", "每个 step 的 GPU 活跃占比")));
      out += BusyChart(a.busy.per_step);
    }
    out += fmt::format("<h3>{}</h3>\n", HtmlEscape(t("GPU idle split", "GPU 空闲拆分")));
    out += SplitBar({{t("host wait", "等待 CPU 下发"), g.idle_host_wait_ns},
                     {t("kernel wait", "kernel 间短间隙"), g.idle_kernel_wait_ns},
                     {t("other", "其他"), g.idle_other_ns}});
    if (!a.kernels.top.empty()) {
      std::vector<Bar> bars;
      for (size_t i = 0; i < a.kernels.top.size() && i < r.top_n; ++i) {
        const auto& k = a.kernels.top[i];
        bars.push_back({k.name, static_cast<double>(k.total_ns), fmt::format("{} ({}x)", Ms(k.total_ns), k.count)});
      }
      out += fmt::format("<h3>{}</h3>\n", HtmlEscape(t("Top kernels by total time", "按总耗时排序的 kernel")));
      out += HorizontalBars(bars, "#e08a2c", "kernels");
    }
  }
  if (!a.breakdown.steps.empty()) {
    out += fmt::format("<h3>{}</h3>\n",
                       HtmlEscape(t("Step time breakdown (each instant counted once, kernel > memcpy > memset > "
                                    "communication > runtime > dataloader > cpu_exec)",
                                    "Step 时间拆分（每一时刻只计一次：kernel > 内存拷贝 > 内存置位 > 通信 > CUDA "
                                    "Runtime > DataLoader > CPU 执行）")));
    out += StepBreakdownChart(a.breakdown, lang);
  }
  end();

  // After the top kernels: the hand-off to Nsight Compute, for traces with kernels.
  if (!r.ncu.empty()) {
    h2("ncu", t("Hand-off to Nsight Compute: the hottest kernels", "交给 Nsight Compute：最热的 kernel"));
    note(t("Each command profiles one launch of one kernel; replace python train.py with your own command.",
           "每条命令只分析一个 kernel 的一次启动；请把 python train.py 换成你自己的启动命令。"));
    note(r.ncu_skip_note);
    out += "<ol class=\"ncu\">\n";
    for (const auto& n : r.ncu) {
      out += fmt::format("<li><code>{}</code> — {}{}{}", HtmlEscape(n.kernel), HtmlEscape(n.label),
                         HtmlEscape(t(", ", "，")),
                         HtmlEscape(fmt::format(fmt::runtime(t("{} of kernel time, {:.1f} launches per step",
                                                               "占 kernel 时间的 {}，每 step 启动 {:.1f} 次")),
                                                Pct(n.share_of_kernel_time), n.launches_per_step)));
      out += fmt::format("<br>{}{}", HtmlEscape(t("Look for: ", "关注：")), HtmlEscape(n.look_for));
      if (!n.command.empty()) out += fmt::format("<pre><code>{}</code></pre>", HtmlEscape(n.command));
      out += "</li>\n";
    }
    out += "</ol>\n";
    end();
  }

  // 显存
  h2("memory", t("Memory", "显存分析"));
  if ((!r.memory_recorded || r.memory.empty()) && r.snapshot) {
    note(t("No memory events in the trace (profile_memory=True); the snapshot below says what it recorded.",
           "trace 中没有显存事件（profile_memory=True）；以下是内存快照记录的内容。"));
  } else if (!r.memory_recorded || r.memory.empty()) {
    note(t("No memory events in the trace (profile with profile_memory=True to see memory).",
           "trace 中没有显存事件（使用 profile_memory=True 采集）。"));
  } else {
    std::vector<Bar> bars;
    for (const auto& m : r.memory) {
      std::string text = fmt::format("{:.2f} GB", static_cast<double>(m.peak_allocated) / 1e9);
      if (m.total_global_mem > 0) text += fmt::format(" / {:.1f} GB", static_cast<double>(m.total_global_mem) / 1e9);
      bars.push_back({m.device, static_cast<double>(m.peak_allocated), text});
    }
    out += fmt::format("<h3>{}</h3>\n", HtmlEscape(t("Peak allocated per device", "各设备峰值显存")));
    out += HorizontalBars(bars, "#8a5cc2", "memory");
    for (const auto& m : r.memory) {
      if (m.timeline.size() < 2) continue;
      out += fmt::format(
          "<h3>{}</h3>\n",
          HtmlEscape(fmt::format(fmt::runtime(t("Memory over time: {}", "显存随时间变化：{}")), m.device)));
      out += MemoryChart(m, lang);
    }
  }
  if (r.snapshot) out += SnapshotHtml(*r.snapshot, lang);
  end();

  // 瓶颈诊断
  h2("diagnosis", t("Bottleneck diagnosis", "瓶颈诊断"));
  if (r.diagnosis.empty()) {
    note(t("no metric is outside the healthy range", "所有指标均在健康范围内"));
  } else {
    out += "<ol>\n";
    for (const auto& d : r.diagnosis) {
      out += fmt::format("<li>{}<strong>{}</strong>", sev(d.severity), HtmlEscape(d.title));
      if (!d.impact.empty()) out += fmt::format(" — {}", HtmlEscape(d.impact));
      out += "</li>\n";
    }
    out += "</ol>\n";
  }
  if (!findings.empty()) {
    out += fmt::format(
        "<h3>{}</h3>\n<ol class=\"findings\">\n",
        HtmlEscape(t("Code findings, by time their fix would save", "代码问题（按修复可节省的时间排序）")));
    for (const auto& f : findings) {
      const std::string loc = fmt::format("{}:{}", f.path, f.line);
      const std::string href = f.path.starts_with("/") ? "file://" + f.path : f.path;
      out += fmt::format(
          "<li><a class=\"rule\" href=\"docs/rules/{0}.md\"><code>{0}</code></a> {1} — "
          "<a class=\"loc\" href=\"{2}\">{3}</a>",
          HtmlEscape(f.code), HtmlEscape(f.message), HtmlEscape(href), HtmlEscape(loc));
      if (f.ms_saved_per_step > 0)
        out += fmt::format(fmt::runtime(t(" — saves up to {:.2f} ms per step", " — 每 step 至多节省 {:.2f} ms")),
                           f.ms_saved_per_step);
      if (!f.verdict.empty()) out += fmt::format(" ({})", HtmlEscape(f.verdict));
      out += "</li>\n";
    }
    out += "</ol>\n";
  }
  end();

  // 优化建议
  h2("recommendations", t("Recommendations (by priority)", "优化建议（按优先级）"));
  if (r.recommendations.empty()) {
    note(t("nothing to change on this evidence", "根据当前 trace 无需调整"));
  } else {
    out += "<ol>\n";
    for (const auto& rec : r.recommendations) {
      out += fmt::format("<li>{}{}", sev(rec.priority), HtmlEscape(rec.text));
      if (rec.ms_at_stake_per_step > 0)
        out += fmt::format(
            fmt::runtime(t(" — expected gain: up to {:.2f} ms per step", " — 预期收益：每 step 至多 {:.2f} ms")),
            rec.ms_at_stake_per_step);
      out += "</li>\n";
    }
    out += "</ol>\n";
  }
  end();
  out += HtmlPageEnd();
  return out;
}

}  // namespace tl::trace
