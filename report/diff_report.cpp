#include "report/diff_report.h"

#include <cmath>

#include <fmt/core.h>

#include "report/page.h"

namespace tl::trace {
namespace {

std::string Value(double v, const std::string& unit) {
  if (unit == "share") return fmt::format("{:.1f}%", v * 100);
  if (unit == "ms") return fmt::format("{:.2f} ms", v);
  return fmt::format("{:.1f}", v);
}

std::string Delta(const FigureChange& f) {
  const double d = f.delta();
  if (f.unit == "share") return fmt::format("{:+.1f} pt", d * 100);
  std::string out = f.unit == "ms" ? fmt::format("{:+.2f} ms", d) : fmt::format("{:+.1f}", d);
  if (std::abs(f.before) > 1e-9) out += fmt::format(" ({:+.0f}%)", d / f.before * 100);
  return out;
}

std::string Joined(const std::vector<std::string>& items, std::string_view none) {
  if (items.empty()) return std::string(none);
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

nlohmann::ordered_json DiffToJson(const TraceDiff& d) {
  nlohmann::ordered_json j;
  j["step_ms"] = {{"before", d.step_ms_before}, {"after", d.step_ms_after}, {"speedup", d.speedup()}};
  j["steps"] = {{"before", d.steps_before}, {"after", d.steps_after}};
  auto& figures = j["figures"] = nlohmann::ordered_json::array();
  for (const auto& f : d.figures) {
    figures.push_back({{"metric", f.metric}, {"unit", f.unit}, {"before", f.before}, {"after", f.after}});
  }
  auto names = [](const std::vector<NameChange>& list) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& c : list) {
      out.push_back({{"name", c.name},
                     {"before_ms_per_step", c.before_ms},
                     {"after_ms_per_step", c.after_ms},
                     {"before_calls_per_step", c.before_calls},
                     {"after_calls_per_step", c.after_calls}});
    }
    return out;
  };
  j["kernels"] = names(d.kernels);
  j["ops"] = names(d.ops);
  j["bottlenecks"] = {{"before", d.bottlenecks_before}, {"after", d.bottlenecks_after}};
  j["notes"] = d.notes;
  return j;
}

std::string RenderDiff(const TraceDiff& d, ReportFormat format, Language language) {
  const Page page(format, language);
  const bool md = page.md();
  auto t = [&](const char* en, const char* cn) { return page.T(en, cn); };
  auto heading = [&](const std::string& title) { return page.Heading(title); };
  std::string out = page.Title(t("Before and after", "修改前后对比"));
  const double s = d.speedup();
  out += fmt::format(
      "{}: {:.2f} ms -> {:.2f} ms ({}); {} {}, {} {}\n", t("Step time", "单步耗时"), d.step_ms_before, d.step_ms_after,
      s >= 1.0 ? fmt::format("{:.2f}x {}", s, t("faster", "更快"))
               : fmt::format("{:.2f}x {}", s > 0 ? 1.0 / s : 0.0, t("slower", "更慢")),
      d.steps_before, t("steps before", "步（修改前）"), d.steps_after, t("steps after", "步（修改后）"));
  out += heading(t("Where the step goes", "单步时间分布"));
  if (md)
    out += fmt::format("| {} | {} | {} | {} |\n| --- | ---: | ---: | ---: |\n", t("figure", "指标"),
                       t("before", "修改前"), t("after", "修改后"), t("change", "变化"));
  for (const auto& f : d.figures) {
    if (f.unit == "ms" && std::abs(f.before) < 0.005 && std::abs(f.after) < 0.005) continue;
    if (md)
      out += fmt::format("| `{}` | {} | {} | {} |\n", f.metric, Value(f.before, f.unit), Value(f.after, f.unit),
                         Delta(f));
    else
      out += fmt::format("  {:<28} {:>12} {:>12}   {}\n", f.metric, Value(f.before, f.unit), Value(f.after, f.unit),
                         Delta(f));
  }
  auto names = [&](const std::vector<NameChange>& list, const std::string& title) {
    out += heading(title);
    if (list.empty()) {
      out += t("- none in the analysed steps\n", "- 分析的步内没有\n");
      return;
    }
    for (const auto& c : list) {
      const std::string name = c.name.size() > 70 ? c.name.substr(0, 67) + "..." : c.name;
      out += fmt::format("{} {:+.3f} ms/step ({:.3f} -> {:.3f}; {:.1f} -> {:.1f} calls)  {}{}{}\n", md ? "-" : " ",
                         c.delta_ms(), c.before_ms, c.after_ms, c.before_calls, c.after_calls, md ? "`" : "", name,
                         md ? "`" : "");
    }
  };
  names(d.kernels, t("Kernels that changed most", "变化最大的 kernel"));
  names(d.ops, t("Ops that changed most", "变化最大的算子"));
  out += heading(t("Bottleneck", "瓶颈诊断"));
  out += fmt::format("- {}: {}\n- {}: {}\n", t("before", "修改前"), Joined(d.bottlenecks_before, t("none", "无")),
                     t("after", "修改后"), Joined(d.bottlenecks_after, t("none", "无")));
  if (!d.notes.empty()) {
    out += heading(t("Notes", "说明"));
    for (const auto& n : d.notes) out += "- " + n + "\n";
  }
  return out;
}

}  // namespace tl::trace
