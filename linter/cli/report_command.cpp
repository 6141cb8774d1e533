// `torchlint report SCRIPT... --trace PATH [--memory SNAPSHOT] [--format markdown|text|json|html] [--lang en|zh]`:
// the PyTorch profiler guide's full report (第四步: environment, top 10 ops, GPU utilisation, memory, bottleneck
// diagnosis, recommendations) for a profiler trace, with the static findings of the scripts cross-checked against it
// and ranked by
// the time their fix would save. The trace sections are traceio's rendering; this file checks the
// scripts and hands both to the cross-check (crosscheck/crosscheck.h). Exit codes: 0 written, 2 a
// usage error or nothing readable.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crosscheck/crosscheck.h"
#include "linter/cli/command.h"
#include "linter/cli/cross_checked.h"
#include "linter/cli/options.h"
#include "linter/cli/trace_reads.h"
#include "linter/engine/check.h"
#include "linter/engine/config.h"
#include "report/crosscheck_report.h"

namespace tl::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> scripts;
  std::string trace;
  std::string memory;  // --memory: a CUDA memory snapshot of the same training
  std::string format = "markdown";
  std::string lang = "en";
  std::string output;
  std::string color = "auto";
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::string target_torch;
};

int RunReport(const ReportArgs& args) {
  CheckOptions options;
  auto select = NormalizeSelectors(args.select, "--select");
  if (!select.ok()) return UsageError(select.error().message);
  options.selection.select = std::move(*select);
  auto ignore = NormalizeSelectors(args.ignore, "--ignore");
  if (!ignore.ok()) return UsageError(ignore.error().message);
  options.selection.ignore = std::move(*ignore);
  auto cross_check = LoadCrossCheckShowingProgress(args.trace);
  if (!cross_check.ok()) return UsageError(cross_check.error().message);
  const Lang notes_lang = args.lang == "zh" ? Lang::kChinese : Lang::kEnglish;
  PrintReadWarnings(cross_check->Warnings(notes_lang), notes_lang);
  if (!args.memory.empty()) {
    auto snapshot = ReadSnapshotReporting(args.memory, notes_lang);
    if (!snapshot) return 2;
    cross_check->SetMemorySnapshot(std::move(*snapshot));
  }

  // The version the code runs on: --target-torch, else what the trace shows, else the current default.
  if (auto error = ResolveTargetTorch(args.target_torch, *cross_check, options,
                                      args.lang == "zh" ? Lang::kChinese : Lang::kEnglish))
    return UsageError(*error);
  auto checked = CheckAgainstTrace(args.scripts, *cross_check, options);
  if (!checked) return 2;
  std::vector<RankedFinding>& findings = checked->findings;
  const trace::Language lang = args.lang == "zh" && args.format != "json" ? trace::Language::kChinese
                                                                          : trace::Language::kEnglish;
  std::vector<TraceFinding> trace_findings = cross_check->TraceOnly(checked->scripts);
  SettleCosts(findings, trace_findings);
  RankFindings(findings);

  std::string out;
  if (args.format == "json") {
    out = CrossCheckReportJson(*cross_check, findings, trace_findings)
              .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    out += '\n';
  } else if (args.format == "html") {
    out = RenderCrossCheckHtml(*cross_check, findings, trace_findings, lang);
  } else if (args.format == "text") {
    // Colours only on a terminal, as `trace` does: never in a file unless asked for.
    const bool color = (args.output.empty() || args.color == "always") && UseColor(args.color);
    out = RenderCrossCheckReport(*cross_check, findings, trace_findings, lang, trace::ReportFormat::kText, color);
  } else {
    out = RenderCrossCheckReport(*cross_check, findings, trace_findings, lang);
  }
  return WriteOutput(args.output, out) ? 0 : 2;
}

Command AddReportCommand(CLI::App& root) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* app = root.add_subcommand(
      "report", "Write the full performance report of a profiler trace, with the scripts' findings ranked by it");
  app->add_option("scripts", args->scripts, "The training scripts (files or folders) the trace was recorded from")
      ->required();
  app->add_option("--trace", args->trace, "A profiler trace file (.json, .json.gz) or a folder of them")->required();
  app->add_option("--memory", args->memory,
                  "A CUDA memory snapshot (torch.cuda.memory._dump_snapshot) of the same training: its analysis joins "
                  "the memory section, and TL103 reads its segment churn");
  app->add_option("--format", args->format,
                  "markdown (default), text (for a terminal), json or html (one self-contained page)")
      ->check(CLI::IsMember({"markdown", "text", "json", "html"}));
  AddColorOption(app, args->color);
  app->add_option("-o,--output", args->output, "Write the report to FILE instead of stdout");
  app->add_option("--lang", args->lang, "en (default) or zh: the PyTorch profiler guide's own section titles")
      ->check(CLI::IsMember({"en", "zh"}));
  AddSelectorOptions(app, args->select, args->ignore, "Rule codes or prefixes to enable (TL1,TL201)",
                     "Rule codes or prefixes to disable");
  app->add_option("--target-torch", args->target_torch,
                  "PyTorch version the code runs on (2.1); default: what the trace shows, else 2.x");
  return {app, [args] { return RunReport(*args); }};
}

}  // namespace

TL_REGISTER_COMMAND(42, AddReportCommand);

}  // namespace tl::cli
