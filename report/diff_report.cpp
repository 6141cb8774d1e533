#include "report/diff_report.h"

#include <cmath>

#include <fmt/core.h>

#include "report/html_report.h"
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

// "61.48 -> 1.14 ms (refuted)", or what AFTER could not measure.
std::string CostChange(const SavingCheck& f, const Page& page) {
  if (!f.cost_after_ms) {
    return fmt::format("{:.2f} ms -> {} ({})", f.cost_before_ms, page.T("not measured", "未测得"), f.verdict_after);
  }
  return fmt::format("{:.2f} -> {:.2f} ms ({}{})", f.cost_before_ms, *f.cost_after_ms, f.verdict_after,
                     f.fixed ? page.T(", fixed", "，已解决") : "");
}

// The predictions of the findings AFTER shows fixed, summed, against the step's drop, and the ratio: how
// right the models were. Findings still there in AFTER are named apart, since their fix was not tried.
std::string SavingsVerdict(const SavingChecks& checks, double measured, const Page& page) {
  double predicted = 0.0;
  int fixed = 0;
  for (const auto& f : checks.findings) {
    if (!f.fixed) continue;
    predicted += f.predicted_saved_ms;
    ++fixed;
  }
  const int open = static_cast<int>(checks.findings.size()) - fixed;
  std::string out;
  if (fixed == 0) {
    out = fmt::format(fmt::runtime(page.T("AFTER still shows all {} confirmed findings, so no prediction can be held "
                                          "against the step's drop ({:.2f} ms/step).",
                                          "修改后的 trace 仍显示全部 {} 个已证实的问题，因此无法用 step 的下降（{:.2f} "
                                          "ms）检验预计节省。")),
                      open, measured);
  } else {
    std::string ratio;
    if (measured > 0.005 && predicted > 0.005) {
      ratio = fmt::format(fmt::runtime(page.T("; predicted / measured = {:.2f}", "；预计 / 实测 = {:.2f}")),
                          predicted / measured);
    } else if (measured <= 0.005) {
      ratio = page.T("; the step did not get faster", "；step 没有变快");
    }
    const std::string change =
        measured >= 0
            ? fmt::format(fmt::runtime(page.T("the step fell by {:.2f} ms/step", "step 实际下降 {:.2f} ms")), measured)
            : fmt::format(fmt::runtime(page.T("the step rose by {:.2f} ms/step: something else got slower, "
                                              "see the breakdown",
                                              "step 反而增加了 {:.2f} ms：有其他部分变慢了，请看时间分布")),
                          -measured);
    out = fmt::format(fmt::runtime(page.T("The {} finding(s) fixed in AFTER predicted {:.2f} ms/step; {}{}.",
                                          "修改后已解决的 {} 个问题预计每 step 节省 {:.2f} ms；{}{}。")),
                      fixed, predicted, change, ratio);
    if (open > 0) {
      out += fmt::format(fmt::runtime(page.T(" {} other(s) are still there in AFTER and are left out.",
                                             "另有 {} 个问题在修改后仍然存在，未计入。")),
                         open);
    }
  }
  return out + page.T(" The drop is the joint result of every change between the two traces.\n",
                      "这一下降是两个 trace 之间所有改动的共同结果。\n");
}

}  // namespace

nlohmann::ordered_json DiffToJson(const TraceDiff& d, const SavingChecks& checks) {
  nlohmann::ordered_json j;
  j["before"] = {{"step_ms", d.step_ms_before}, {"steps", d.steps_before}};
  j["after"] = {{"step_ms", d.step_ms_after}, {"steps", d.steps_after}};
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
  auto& notes = j["notes"] = nlohmann::ordered_json::array();
  for (const auto& n : d.notes) notes.push_back(n.en);
  if (checks.asked) {
    j["checked_scripts"] = checks.scripts;
    auto& findings = j["findings"] = nlohmann::ordered_json::array();
    for (const auto& f : checks.findings) {
      findings.push_back({{"code", f.code},
                          {"name", f.name},
                          {"file", f.file},
                          {"line", f.line},
                          {"message", f.message},
                          {"predicted_saved_ms_per_step", f.predicted_saved_ms},
                          {"measured_saved_ms_per_step", d.step_ms_before - d.step_ms_after},
                          {"cost_before_ms_per_step", f.cost_before_ms},
                          {"cost_after_ms_per_step", f.cost_after_ms ? nlohmann::ordered_json(*f.cost_after_ms)
                                                                     : nlohmann::ordered_json(nullptr)},
                          {"verdict_after", f.verdict_after},
                          {"fixed_in_after", f.fixed}});
    }
  }
  return j;
}

std::string RenderDiff(const TraceDiff& d, ReportFormat format, Language language, const SavingChecks& checks) {
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
  if (checks.asked) {
    const double measured = d.step_ms_before - d.step_ms_after;  // what the user gained
    out += heading(t("Predicted and measured savings", "预计节省与实测节省"));
    if (checks.findings.empty()) {
      out += t("- the BEFORE trace confirmed no finding of the checked scripts\n",
               "- 修改前的 trace 没有证实所检查脚本中的任何问题\n");
    } else if (md) {
      out += t("| finding | where | predicted | measured (step) | its cost before -> after |\n",
               "| 问题 | 位置 | 预计节省 | 实测节省（step） | 该问题耗时 修改前 -> 修改后 |\n");
      out += "| --- | --- | ---: | ---: | ---: |\n";
      for (const auto& f : checks.findings) {
        out += fmt::format("| {} `{}` | `{}:{}` | {:.2f} ms | {:.2f} ms | {} |\n", f.code, f.name, f.file, f.line,
                           f.predicted_saved_ms, measured, CostChange(f, page));
      }
    } else {
      for (const auto& f : checks.findings) {
        out += fmt::format("  {} {} at {}:{}\n    {} {:.2f} ms/step, {} {:.2f} ms/step; {} {}\n", f.code, f.name,
                           f.file, f.line, t("predicted", "预计节省"), f.predicted_saved_ms,
                           t("measured (the step's drop)", "实测节省（step 的下降）"), measured,
                           t("its own cost", "该问题自身耗时"), CostChange(f, page));
      }
    }
    if (!checks.findings.empty()) out += SavingsVerdict(checks, measured, page);
  }
  if (!d.notes.empty()) {
    out += heading(t("Notes", "说明"));
    for (const auto& n : d.notes) out += "- " + (page.zh() ? n.zh : n.en) + "\n";
  }
  return out;
}

std::string RenderDiffHtml(const TraceDiff& d, Language language, const SavingChecks& checks) {
  const Page page(ReportFormat::kMarkdown, language);
  auto t = [&](const char* en, const char* cn) { return page.T(en, cn); };
  const double s = d.speedup();
  std::string out = HtmlPageStart(
      language, t("Before and after", "修改前后对比"),
      fmt::format("{}: {:.2f} ms -> {:.2f} ms ({})", t("Step time", "单步耗时"), d.step_ms_before, d.step_ms_after,
                  s >= 1.0 ? fmt::format("{:.2f}x {}", s, t("faster", "更快"))
                           : fmt::format("{:.2f}x {}", s > 0 ? 1.0 / s : 0.0, t("slower", "更慢"))));
  auto section = [&](const char* id, const std::string& title) {
    out += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", id, HtmlEscape(title));
  };
  section("breakdown", t("Where the step goes", "单步时间分布"));
  std::vector<PairedBar> bars;
  for (const auto& f : d.figures) {
    if (f.unit != "ms" || (std::abs(f.before) < 0.005 && std::abs(f.after) < 0.005)) continue;
    bars.push_back({f.metric, f.before, f.after, Value(f.before, f.unit), Value(f.after, f.unit)});
  }
  out += PairedBars(bars, language);
  out += fmt::format(
      "<table><tr><th>{}</th><th class=\"num\">{}</th><th class=\"num\">{}</th>"
      "<th class=\"num\">{}</th></tr>\n",
      HtmlEscape(t("figure", "指标")), HtmlEscape(t("before", "修改前")), HtmlEscape(t("after", "修改后")),
      HtmlEscape(t("change", "变化")));
  for (const auto& f : d.figures) {
    if (f.unit == "ms" && std::abs(f.before) < 0.005 && std::abs(f.after) < 0.005) continue;
    out += fmt::format(
        "<tr><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td></tr>\n",
        HtmlEscape(f.metric), HtmlEscape(Value(f.before, f.unit)), HtmlEscape(Value(f.after, f.unit)),
        HtmlEscape(Delta(f)));
  }
  out += "</table>\n</section>\n";
  auto names = [&](const char* id, const std::vector<NameChange>& list, const std::string& title) {
    section(id, title);
    if (list.empty()) {
      out += fmt::format("<p class=\"note\">{}</p>\n", HtmlEscape(t("none in the analysed steps", "分析的步内没有")));
    } else {
      out += fmt::format(
          "<table><tr><th>{}</th><th class=\"num\">{}</th><th class=\"num\">{}</th>"
          "<th class=\"num\">{}</th></tr>\n",
          HtmlEscape(t("name", "名称")), HtmlEscape(t("change", "变化")), HtmlEscape(t("before", "修改前")),
          HtmlEscape(t("after", "修改后")));
      for (const auto& c : list) {
        out += fmt::format(
            "<tr><td class=\"name\">{}</td><td class=\"num\">{:+.3f} ms</td><td class=\"num\">{:.3f} ms "
            "({:.1f})</td><td class=\"num\">{:.3f} ms ({:.1f})</td></tr>\n",
            HtmlEscape(c.name), c.delta_ms(), c.before_ms, c.before_calls, c.after_ms, c.after_calls);
      }
      out += "</table>\n";
    }
    out += "</section>\n";
  };
  names("kernels", d.kernels,
        t("Kernels that changed most (ms per step, calls per step)", "变化最大的 kernel（每 step 耗时与调用次数）"));
  names("ops", d.ops,
        t("Ops that changed most (ms per step, calls per step)", "变化最大的算子（每 step 耗时与调用次数）"));
  section("bottleneck", t("Bottleneck", "瓶颈诊断"));
  out += fmt::format("<ul><li>{}: {}</li><li>{}: {}</li></ul>\n</section>\n", HtmlEscape(t("before", "修改前")),
                     HtmlEscape(Joined(d.bottlenecks_before, t("none", "无"))), HtmlEscape(t("after", "修改后")),
                     HtmlEscape(Joined(d.bottlenecks_after, t("none", "无"))));
  if (checks.asked) {
    const double measured = d.step_ms_before - d.step_ms_after;
    section("savings", t("Predicted and measured savings", "预计节省与实测节省"));
    if (checks.findings.empty()) {
      out += fmt::format("<p class=\"note\">{}</p>\n",
                         HtmlEscape(t("The BEFORE trace confirmed no finding of the checked scripts.",
                                      "修改前的 trace 没有证实所检查脚本中的任何问题。")));
    } else {
      std::vector<PairedBar> rows;
      for (const auto& f : checks.findings) {
        rows.push_back({fmt::format("{} {}:{}", f.code, f.file, f.line), f.predicted_saved_ms, measured,
                        fmt::format("{} {:.2f} ms", t("predicted", "预计"), f.predicted_saved_ms),
                        fmt::format("{} {:.2f} ms", t("measured", "实测"), measured)});
      }
      out += PairedBars(rows, language);
      out += fmt::format(
          "<table><tr><th>{}</th><th>{}</th><th class=\"num\">{}</th><th class=\"num\">{}</th><th "
          "class=\"num\">{}</th></tr>\n",
          HtmlEscape(t("finding", "问题")), HtmlEscape(t("where", "位置")), HtmlEscape(t("predicted", "预计节省")),
          HtmlEscape(t("measured (step)", "实测节省（step）")),
          HtmlEscape(t("its cost before -> after", "该问题耗时 修改前 -> 修改后")));
      for (const auto& f : checks.findings) {
        out += fmt::format(
            "<tr><td>{} <code>{}</code><br>{}</td><td class=\"loc\">{}:{}</td><td class=\"num\">{:.2f} ms</td>"
            "<td class=\"num\">{:.2f} ms</td><td class=\"num\">{}</td></tr>\n",
            HtmlEscape(f.code), HtmlEscape(f.name), HtmlEscape(f.message), HtmlEscape(f.file), f.line,
            f.predicted_saved_ms, measured, HtmlEscape(CostChange(f, page)));
      }
      out += "</table>\n";
      out += fmt::format("<p>{}</p>\n", HtmlEscape(SavingsVerdict(checks, measured, page)));
    }
    out += "</section>\n";
  }
  if (!d.notes.empty()) {
    section("notes", t("Notes", "说明"));
    out += "<ul>\n";
    for (const auto& n : d.notes) out += fmt::format("<li>{}</li>\n", HtmlEscape(page.zh() ? n.zh : n.en));
    out += "</ul>\n</section>\n";
  }
  return out + HtmlPageEnd();
}

}  // namespace tl::trace
