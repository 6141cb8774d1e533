#include "report/crosscheck_report.h"

#include "report/html_report.h"

#include <fmt/core.h>

#include <algorithm>

#include "linter/engine/rule.h"  // LocalizedMessage, LocalizedFixTitle
#include "linter/output/ansi.h"
#include "linter/output/evidence.h"
#include "report/memory_report.h"

namespace tl {

namespace {

struct Texts {
  bool zh;
  const char* operator()(const char* en, const char* zh_text) const { return zh ? zh_text : en; }
};

std::string Location(const RankedFinding& f) {
  if (f.file == nullptr) return "";
  return fmt::format("{}:{}", f.file->path(), f.file->lines().Locate(f.diagnostic.range.begin).line);
}

std::string SourceLine(const RankedFinding& f) {
  if (f.file == nullptr) return "";
  const uint32_t line0 = f.file->lines().Locate(f.diagnostic.range.begin).line - 1;
  std::string_view text = f.file->lines().LineText(line0);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
  return std::string(text);
}

// The language of the rules' sentences (their catalogs) for a report in `language`.
Lang RuleLang(trace::Language language) {
  return language == trace::Language::kChinese ? Lang::kChinese : Lang::kEnglish;
}

// The profiler guide's report for the focus trace with the findings merged into its diagnosis and
// recommendations; shared by the Markdown and the HTML renderings.
trace::TraceReport MergedReport(const trace::RankTrace* focus, const trace::MemorySnapshot* snapshot,
                                const std::vector<RankedFinding>& findings, const std::vector<TraceFinding>& trace_only,
                                trace::Language language) {
  trace::TraceReport report = trace::BuildReport(*focus->read.trace, *focus->analysis, language);
  if (snapshot != nullptr) report.snapshot = *snapshot;
  const bool zh = language == trace::Language::kChinese;
  const double step_ms = focus->analysis->steps.mean_ms();
  auto confirmed = [&](std::string_view code) {
    return std::any_of(findings.begin(), findings.end(), [&](const RankedFinding& f) {
      return f.diagnostic.code == code && f.diagnostic.evidence &&
             f.diagnostic.evidence->verdict == Verdict::kConfirmed;
    });
  };
  auto trace_only_saves = [&](std::string_view code) {
    return std::any_of(trace_only.begin(), trace_only.end(),
                       [&](const TraceFinding& f) { return f.code == code && f.saved_ms_per_step > 0; });
  };

  // 瓶颈诊断: the trace's own verdicts, then what the trace alone adds, then the confirmed findings.
  for (const auto& f : trace_only) {
    if (f.code != "trace-low-gpu-busy" && f.code != "trace-no-tensor-cores") continue;  // the others are the trace's
    trace::DiagnosisItem item;
    item.kind = f.code;
    item.severity = f.level == Priority::kHigh     ? trace::Severity::kHigh
                    : f.level == Priority::kMedium ? trace::Severity::kMedium
                                                   : trace::Severity::kLow;
    item.title = LocalizedTitle(f, RuleLang(language));
    item.impact = LocalizedMessage(f, RuleLang(language));
    report.diagnosis.push_back(std::move(item));
  }
  for (const auto& f : findings) {
    if (!f.diagnostic.evidence || f.diagnostic.evidence->verdict != Verdict::kConfirmed) continue;
    const Evidence& e = *f.diagnostic.evidence;
    trace::DiagnosisItem item;
    item.kind = f.diagnostic.code;
    item.severity = trace::PriorityOf(e.cost_ms_per_step, step_ms);
    item.title = fmt::format(fmt::runtime(zh ? "{} `{}`（{}）：{}" : "{} `{}` ({}): {}"), f.diagnostic.code,
                             f.diagnostic.name, Location(f), LocalizedMessage(f.diagnostic, RuleLang(language)));
    item.impact = LocalizedSummary(e, RuleLang(language));
    report.diagnosis.push_back(std::move(item));
  }

  // 优化建议: the trace's own tips, less those a finding below says with its measured saving, then the
  // fixes of confirmed findings and the trace-only findings, all ranked by the time at stake.
  std::erase_if(report.recommendations, [&](const trace::RecommendationItem& rec) {
    if (rec.bottleneck == trace::BottleneckKind::kData) return confirmed("TL201");
    if (rec.bottleneck == trace::BottleneckKind::kSync) return confirmed("TL101");
    if (rec.bottleneck == trace::BottleneckKind::kLaunch) return trace_only_saves("trace-launch-bound");
    if (rec.bottleneck == trace::BottleneckKind::kCommunication) return trace_only_saves("trace-communication-bound");
    if (rec.kind == "pin-memory") return confirmed("TL202");
    if (rec.kind == "zero-grad") return confirmed("TL301");
    if (rec.kind == "gemm-alignment") return confirmed("TL401");
    if (rec.kind == "tensor-cores" || rec.bottleneck == trace::BottleneckKind::kCompute) {
      return trace_only_saves("trace-no-tensor-cores") || confirmed("TL401");
    }
    return false;
  });
  for (const auto& f : findings) {
    if (!f.diagnostic.evidence || f.diagnostic.evidence->verdict != Verdict::kConfirmed) continue;
    const Evidence& e = *f.diagnostic.evidence;
    trace::RecommendationItem rec;
    rec.kind = f.diagnostic.code;
    rec.priority = trace::PriorityOf(e.saved_ms_per_step, step_ms);
    rec.text = fmt::format(fmt::runtime(zh ? "{}（{} `{}`，{}）" : "{} ({} `{}`, {})"),
                           f.diagnostic.fix ? LocalizedFixTitle(f.diagnostic, RuleLang(language))
                                            : LocalizedMessage(f.diagnostic, RuleLang(language)),
                           f.diagnostic.code, f.diagnostic.name, Location(f));
    const std::string line = SourceLine(f);
    if (!line.empty()) rec.code = fmt::format("# {}\n{}", Location(f), line);
    rec.ms_at_stake_per_step = e.saved_ms_per_step;
    report.recommendations.push_back(std::move(rec));
  }
  for (const auto& f : trace_only) {
    if (f.saved_ms_per_step <= 0) continue;
    trace::RecommendationItem rec;
    rec.kind = f.code;
    rec.priority = trace::PriorityOf(f.saved_ms_per_step, step_ms);
    rec.text = fmt::format(fmt::runtime(zh ? "{}（{}）" : "{} ({})"), LocalizedRecommendation(f, RuleLang(language)),
                           LocalizedTitle(f, RuleLang(language)));
    rec.ms_at_stake_per_step = f.saved_ms_per_step;
    report.recommendations.push_back(std::move(rec));
  }
  trace::RankRecommendations(report.recommendations);
  return report;
}

}  // namespace

std::string RenderCrossCheckHtml(const CrossCheck& cc, const std::vector<RankedFinding>& findings,
                                 const std::vector<TraceFinding>& trace_only, trace::Language language) {
  const trace::RankTrace* focus = cc.Focus();
  if (focus == nullptr) return "";
  const trace::TraceReport report = MergedReport(focus, cc.memory_snapshot(), findings, trace_only, language);
  std::vector<trace::HtmlFinding> rows;
  for (const auto& f : findings) {
    trace::HtmlFinding row;
    row.code = f.diagnostic.code;
    row.message = LocalizedMessage(f.diagnostic, RuleLang(language));
    if (f.file != nullptr) {
      row.path = f.file->path();
      row.line = static_cast<int>(f.file->lines().Locate(f.diagnostic.range.begin).line);
    }
    if (f.diagnostic.evidence) {
      row.ms_saved_per_step = f.diagnostic.evidence->saved_ms_per_step;
      row.verdict = VerdictLabel(f.diagnostic.evidence->verdict, RuleLang(language));
    }
    rows.push_back(std::move(row));
  }
  return trace::RenderHtmlReport(report, *focus->analysis, rows);
}

std::string RenderCrossCheckReport(const CrossCheck& cc, const std::vector<RankedFinding>& findings,
                                   const std::vector<TraceFinding>& trace_only, trace::Language language,
                                   trace::ReportFormat format, bool color) {
  const Texts t{language == trace::Language::kChinese};
  const trace::RankTrace* focus = cc.Focus();
  if (focus == nullptr) return "";
  const bool md = format != trace::ReportFormat::kText;
  color = color && !md;
  std::string out = trace::RenderReport(MergedReport(focus, cc.memory_snapshot(), findings, trace_only, language),
                                        md ? trace::ReportFormat::kMarkdown : trace::ReportFormat::kText, color);
  // A section title as the trace report above writes its own: `## ` in Markdown, underlined in text.
  auto h2 = [&](const char* title) {
    out += md ? fmt::format("\n## {}\n", title)
              : fmt::format("\n{}\n{}\n", ansi::Styled(title, ansi::kBold, color),
                            std::string(std::min<size_t>(trace::DisplayWidth(title), 40), '-'));
  };

  // Every finding with its verdict, ranked.
  h2(t("Findings in the code, ranked by the time their fix would save", "代码中的问题（按预计节省时间排序）"));
  if (findings.empty()) {
    out += fmt::format("- {}\n",
                       t("torchlint check found nothing in the given scripts", "torchlint check 未在脚本中发现问题"));
  } else if (!md) {
    int rank = 0;
    for (const auto& f : findings) {
      const Evidence e = f.diagnostic.evidence.value_or(Evidence{});
      const std::string_view style = e.verdict == Verdict::kConfirmed ? ansi::kRed
                                     : e.verdict == Verdict::kNegligible || e.verdict == Verdict::kRefuted
                                         ? ansi::kBlue
                                         : ansi::kYellow;
      out += fmt::format(fmt::runtime(t("{:>2}. {} {} {} [{}] {:.2f} ms/step ({:.1f}%), saves {:.2f} ms/step\n",
                                        "{:>2}. {} {} {} [{}] 每 step {:.2f} ms（{:.1f}%），预计节省 {:.2f} ms\n")),
                         ++rank, ansi::Styled(f.diagnostic.code, ansi::kBold, color), f.diagnostic.name, Location(f),
                         ansi::Styled(VerdictLabel(e.verdict, RuleLang(language)), style, color), e.cost_ms_per_step,
                         e.share_of_step * 100, e.saved_ms_per_step);
      out += fmt::format("    {}\n", LocalizedSummary(e, RuleLang(language)));
    }
  } else {
    out += t("| # | Rule | Where | Verdict | Cost/step | Share | Saved/step | Evidence |\n",
             "| 排名 | 规则 | 位置 | 结论 | 每 step 耗时 | 占比 | 预计节省 | trace 证据 |\n");
    out += "|---|---|---|---|---|---|---|---|\n";
    int rank = 0;
    for (const auto& f : findings) {
      const Evidence e = f.diagnostic.evidence.value_or(Evidence{});
      std::string summary = LocalizedSummary(e, RuleLang(language));
      for (auto& c : summary) {
        if (c == '|' || c == '\n') c = ' ';
      }
      out += fmt::format("| {} | {} `{}` | `{}` | {} | {:.2f} ms | {:.1f}% | {:.2f} ms | {} |\n", ++rank,
                         f.diagnostic.code, f.diagnostic.name, Location(f), VerdictLabel(e.verdict, RuleLang(language)),
                         e.cost_ms_per_step, e.share_of_step * 100, e.saved_ms_per_step, summary);
    }
  }
  if (!trace_only.empty()) {
    h2(t("Findings of the trace alone (no line to blame)", "仅由 trace 发现的问题（无法归到某行代码）"));
    for (const auto& f : trace_only) {
      out += fmt::format(fmt::runtime(md ? t("- `{}` **{}**: {}. {}{}\n", "- `{}` **{}**：{}。{}{}\n")
                                         : t("- {} {}: {}. {}{}\n", "- {} {}：{}。{}{}\n")),
                         md ? f.code : ansi::Styled(f.code, ansi::kBold, color), LocalizedTitle(f, RuleLang(language)),
                         LocalizedMessage(f, RuleLang(language)), t("Recommendation: ", "建议："),
                         LocalizedRecommendation(f, RuleLang(language)));
    }
  }
  return out;
}

nlohmann::ordered_json CrossCheckReportJson(const CrossCheck& cc, const std::vector<RankedFinding>& findings,
                                            const std::vector<TraceFinding>& trace_only) {
  nlohmann::ordered_json j;
  const trace::RankTrace* focus = cc.Focus();
  j["trace"] = focus != nullptr ? nlohmann::ordered_json(trace::AnalysisToJson(*focus->read.trace, *focus->analysis))
                                : nlohmann::ordered_json(nullptr);
  if (const trace::MemorySnapshot* snapshot = cc.memory_snapshot())
    j["memory_snapshot"] = trace::SnapshotToJson(*snapshot);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  int rank = 0;
  for (const auto& f : findings) {
    nlohmann::ordered_json o;
    o["rank"] = ++rank;
    o["code"] = f.diagnostic.code;
    o["name"] = f.diagnostic.name;
    o["message"] = f.diagnostic.message;
    o["severity"] = std::string(ToString(f.diagnostic.severity));
    o["file"] = f.file != nullptr ? f.file->path() : std::string();
    o["line"] = f.file != nullptr ? f.file->lines().Locate(f.diagnostic.range.begin).line : 0;
    o["fix"] = f.diagnostic.fix ? nlohmann::ordered_json(f.diagnostic.fix->title) : nlohmann::ordered_json(nullptr);
    o["evidence"] = f.diagnostic.evidence ? EvidenceToJson(*f.diagnostic.evidence) : nlohmann::ordered_json(nullptr);
    list.push_back(std::move(o));
  }
  j["findings"] = std::move(list);
  nlohmann::ordered_json tf = nlohmann::ordered_json::array();
  for (const auto& f : trace_only) {
    nlohmann::ordered_json figures = nlohmann::ordered_json::array();
    for (const auto& fig : f.figures)
      figures.push_back({{"metric", fig.metric}, {"value", fig.value}, {"healthy", fig.healthy}});
    tf.push_back({{"code", f.code},
                  {"title", f.title},
                  {"severity", std::string(ToString(f.level))},
                  {"message", f.message},
                  {"recommendation", f.recommendation},
                  {"saved_ms_per_step", f.saved_ms_per_step},
                  {"figures", figures},
                  {"trace", f.trace_path}});
  }
  j["trace_findings"] = std::move(tf);
  return j;
}

}  // namespace tl
