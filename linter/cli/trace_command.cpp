// `torchlint trace PATH`: read a profiler trace (a file or a folder of ranks), analyse it and print the
// report or JSON. Thin on purpose: reading, analyses and rendering live in traceio/ so that
// `torchlint report` renders the same way.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "crosscheck/crosscheck.h"
#include "crosscheck/ranking.h"
#include "linter/cli/command.h"
#include "linter/cli/cross_checked.h"
#include "linter/cli/markers.h"
#include "linter/cli/options.h"
#include "linter/cli/trace_reads.h"
#include "linter/engine/rule.h"
#include "report/diff_report.h"
#include "report/html_report.h"
#include "report/memory_report.h"
#include "report/trace_report.h"
#include "traceio/annotate.h"
#include "traceio/trace_set.h"

namespace tl::cli {

namespace {

struct TraceArgs {
  std::string path;
  std::string memory;  // --memory: a CUDA memory snapshot whose analysis joins the memory section
  std::string format = "text";
  std::string lang = "en";
  std::string output;
  std::string color = "auto";
  bool include_last_step = false;
  std::string step_range;
  size_t top = 10;
  uint64_t max_decompressed_mb = uint64_t{16} << 10;
  bool no_python = false;
  unsigned jobs = 0;
  // `trace diff BEFORE AFTER [--check SCRIPT...]`
  std::string before;
  std::string after;
  std::vector<std::string> check_scripts;
  std::vector<std::string> after_scripts;
  std::string target_torch;
  // `trace annotate TRACE -o OUT`
  std::string annotate_input;
  std::string annotate_output;
};

trace::ReadOptions ReadOptionsOf(const TraceArgs& args) {
  trace::ReadOptions read;
  read.limits.max_decompressed_bytes = args.max_decompressed_mb << 20;
  read.keep_python_functions = !args.no_python;
  read.threads = args.jobs;
  return read;
}

// The trace that stands for a path in a comparison: the file itself, or a folder's rank 0.
const trace::RankTrace* Representative(const trace::TraceSet& set) {
  for (const auto& r : set.ranks) {
    if (r.read.ok() && r.analysis && r.representative()) return &r;
  }
  return nullptr;
}

// `--check`: the findings the BEFORE trace confirms, each with its predicted saving beside the drop in step
// time AFTER shows and its own cost measured again on AFTER. Nullopt after an error (printed).
std::optional<trace::SavingChecks> CheckSavings(const TraceArgs& args, const CrossCheck& before,
                                                const CrossCheck& after, trace::Language lang) {
  trace::SavingChecks checks;
  checks.asked = true;
  checks.scripts = args.check_scripts;
  const Lang rule_lang = lang == trace::Language::kChinese ? Lang::kChinese : Lang::kEnglish;
  CheckOptions options;
  if (auto error = ResolveTargetTorch(args.target_torch, before, options, rule_lang)) {
    UsageError(*error);
    return std::nullopt;
  }
  auto checked = CheckAgainstTrace(args.check_scripts, before, options, &after, args.after_scripts);
  if (!checked) return std::nullopt;
  // Savings as `report` ranks them: shared events counted once, trace-only savings included.
  std::vector<TraceFinding> trace_only = before.TraceOnly(checked->scripts);
  SettleCosts(checked->findings, trace_only);
  for (size_t i = 0; i < checked->findings.size(); ++i) {
    const RankedFinding& f = checked->findings[i];
    const auto& e = f.diagnostic.evidence;
    if (!e || e->verdict != Verdict::kConfirmed) continue;
    trace::SavingCheck c;
    c.code = f.diagnostic.code;
    c.name = f.diagnostic.name;
    c.file = f.file->path();
    c.line = static_cast<int>(f.file->lines().Locate(f.diagnostic.range.begin).line);
    c.message = LocalizedMessage(f.diagnostic, rule_lang);
    c.predicted_saved_ms = e->saved_ms_per_step;
    c.cost_before_ms = e->cost_ms_per_step;
    const std::optional<Evidence>& later = checked->second[i];
    c.verdict_after = std::string(ToString(later ? later->verdict : Verdict::kUnverifiable));
    if (later && (later->verdict == Verdict::kConfirmed || later->verdict == Verdict::kNegligible ||
                  later->verdict == Verdict::kRefuted)) {
      c.cost_after_ms = later->cost_ms_per_step;
    }
    c.fixed = (later && (later->verdict == Verdict::kRefuted || later->verdict == Verdict::kNotObserved)) ||
              (c.cost_after_ms && *c.cost_after_ms <= 0.5 * c.cost_before_ms);
    checks.findings.push_back(std::move(c));
  }
  std::stable_sort(checks.findings.begin(), checks.findings.end(),
                   [](const auto& x, const auto& y) { return x.predicted_saved_ms > y.predicted_saved_ms; });
  return checks;
}

int RunDiff(const TraceArgs& args) {
  trace::AnalysisOptions analysis;
  analysis.steps.include_last_step = args.include_last_step;
  analysis.steps.step_range = args.step_range;
  analysis.top_n = args.top;
  // With --check the traces are read once, by the cross-checks, and compared from there.
  std::optional<CrossCheck> cc_before, cc_after;
  trace::TraceSet before_set, after_set;
  if (!args.check_scripts.empty()) {
    auto b = LoadCrossCheckShowingProgress(args.before, false, ReadOptionsOf(args), analysis);
    if (!b.ok()) return UsageError(b.error().message);
    auto a = LoadCrossCheckShowingProgress(args.after, false, ReadOptionsOf(args), analysis);
    if (!a.ok()) return UsageError(a.error().message);
    cc_before.emplace(std::move(*b));
    cc_after.emplace(std::move(*a));
  } else {
    before_set = LoadTraceSetShowingProgress(args.before, ReadOptionsOf(args), analysis);
    after_set = LoadTraceSetShowingProgress(args.after, ReadOptionsOf(args), analysis);
  }
  const trace::TraceSet& before = cc_before ? cc_before->traces() : before_set;
  const trace::TraceSet& after = cc_after ? cc_after->traces() : after_set;
  for (const auto* set : {&before, &after}) {
    for (const auto& error : set->errors) fmt::print(stderr, "torchlint: error: {}\n", error);
  }
  const trace::RankTrace* b = Representative(before);
  const trace::RankTrace* a = Representative(after);
  // What was odd about each trace compared (truncated, say); about the same file given twice, once.
  for (const trace::RankTrace* r : {b, a}) {
    if (r == nullptr || (r == a && b != nullptr && b->path == a->path)) continue;
    PrintReadWarnings(r->read, args.lang == "zh" ? Lang::kChinese : Lang::kEnglish);
  }
  if (b == nullptr || a == nullptr) {
    if (!before.errors.empty() || !after.errors.empty()) return 2;  // the error lines named the file
    fmt::print(stderr, "torchlint: error: {} cannot be read as a trace; nothing to compare\n",
               b == nullptr ? args.before : args.after);
    return 2;
  }
  const trace::TraceDiff diff = trace::CompareTraces(*b->read.trace, *b->analysis, *a->read.trace, *a->analysis,
                                                     args.top);
  const trace::Language lang = args.lang == "zh" ? trace::Language::kChinese : trace::Language::kEnglish;
  trace::SavingChecks checks;
  if (cc_before) {
    auto found = CheckSavings(args, *cc_before, *cc_after, args.format == "json" ? trace::Language::kEnglish : lang);
    if (!found) return 2;
    checks = std::move(*found);
  }
  std::string out;
  if (args.format == "json") {
    out = trace::JsonText(trace::DiffToJson(diff, checks)) + "\n";
  } else if (args.format == "html") {
    out = trace::RenderDiffHtml(diff, lang, checks);
  } else {
    out = trace::RenderDiff(
        diff, args.format == "markdown" ? trace::ReportFormat::kMarkdown : trace::ReportFormat::kText, lang, checks);
  }
  return WriteOutput(args.output, out) ? 0 : 2;
}

int RunAnnotate(const TraceArgs& args) {
  std::error_code ec;
  if (std::filesystem::is_directory(args.annotate_input, ec)) {
    fmt::print(stderr,
               "torchlint: error: {} is a folder; `trace annotate` writes one trace file at a time, so give one "
               "rank's file\n",
               args.annotate_input);
    return 2;
  }
  trace::AnalysisOptions analysis;
  analysis.steps.include_last_step = args.include_last_step;
  analysis.steps.step_range = args.step_range;
  const trace::TraceSet set = LoadTraceSetShowingProgress(args.annotate_input, ReadOptionsOf(args), analysis);
  for (const auto& error : set.errors) fmt::print(stderr, "torchlint: error: {}\n", error);
  if (set.ranks.size() > 1) {
    fmt::print(stderr,
               "torchlint: error: {} holds {} processes (an Nsight Systems export); `trace annotate` copies one Kineto "
               "JSON trace file\n",
               args.annotate_input, set.ranks.size());
    return 2;
  }
  const trace::RankTrace* rank = set.ranks.empty() ? nullptr : &set.ranks.front();
  if (rank == nullptr || !rank->read.ok() || !rank->analysis) {
    if (set.errors.empty()) {
      fmt::print(stderr, "torchlint: error: {} cannot be read as a trace; nothing to annotate\n", args.annotate_input);
    }
    return 2;
  }
  const trace::Trace& trace = *rank->read.trace;
  if (trace.metadata().format == trace::TraceFormat::kNsys) {
    fmt::print(stderr,
               "torchlint: error: {} is an Nsight Systems export; `trace annotate` copies Kineto JSON traces only\n",
               args.annotate_input);
    return 2;
  }
  if (rank->read.stats.truncated) {
    fmt::print(stderr, "torchlint: error: {} is truncated at byte {}; annotate needs a complete trace\n",
               args.annotate_input, rank->read.stats.truncated_at);
    return 2;
  }
  const std::vector<trace::ScriptFinding> findings = TraceOnlyMarkers(TraceOnlyFindings(*rank));
  const trace::AnnotateResult result = trace::WriteAnnotatedTrace(
      args.annotate_input, args.annotate_output, trace, *rank->analysis, findings, ReadOptionsOf(args).limits);
  if (!result.ok) {
    fmt::print(stderr, "torchlint: error: {}\n", result.error);
    return 2;
  }
  const trace::AnnotationCounts& c = result.counts;
  fmt::print(
      "wrote {}: {} events added ({} step slices, {} syncs, {} .item() calls, {} DataLoader waits, {} flows, {} "
      "trace findings); open it in ui.perfetto.dev\n",
      args.annotate_output, c.events(), c.steps, c.syncs, c.items, c.dataloader, c.flows, c.findings);
  return 0;
}

int RunTrace(const TraceArgs& args) {
  if (args.path.empty()) {
    fmt::print(stderr,
               "torchlint: error: `trace` needs a PATH (a trace file or folder), or `trace diff BEFORE AFTER`\n");
    return 2;
  }
  const trace::ReadOptions read = ReadOptionsOf(args);
  trace::AnalysisOptions analysis;
  analysis.steps.include_last_step = args.include_last_step;
  analysis.steps.step_range = args.step_range;
  analysis.top_n = args.top;

  trace::TraceSet set = LoadTraceSetShowingProgress(args.path, read, analysis);
  for (const auto& error : set.errors) fmt::print(stderr, "torchlint: error: {}\n", error);
  for (const auto& rank : set.ranks) {
    PrintReadWarnings(rank.read, args.lang == "zh" ? Lang::kChinese : Lang::kEnglish);
  }
  if (!set.any_readable()) return 2;
  std::optional<trace::MemorySnapshot> snapshot;
  if (!args.memory.empty()) {
    snapshot = ReadSnapshotReporting(args.memory, args.lang == "zh" ? Lang::kChinese : Lang::kEnglish);
    if (!snapshot) return 2;
  }

  trace::ReportOptions report;
  report.language = args.lang == "zh" ? trace::Language::kChinese : trace::Language::kEnglish;
  report.top_n = args.top;
  // Colour is for the text format on a terminal: auto leaves a file written with -o plain.
  report.color = args.format == "text" && (args.output.empty() || args.color == "always") && UseColor(args.color);
  report.snapshot = snapshot ? &*snapshot : nullptr;
  std::string out;
  if (args.format == "json") {
    nlohmann::ordered_json j = trace::TraceSetToJson(set);
    if (snapshot) j["memory_snapshot"] = trace::SnapshotToJson(*snapshot);
    out = trace::JsonText(j) + "\n";
  } else if (args.format == "html") {
    // A folder's page describes its representative rank, as `trace diff` compares it.
    const trace::RankTrace* focus = Representative(set);
    if (focus == nullptr) {
      fmt::print(stderr, "torchlint: error: {} has no readable trace to render\n", args.path);
      return 2;
    }
    trace::TraceReport page = trace::BuildReport(*focus->read.trace, *focus->analysis, report.language, args.top);
    page.snapshot = std::move(snapshot);
    out = trace::RenderHtmlReport(page, *focus->analysis);
  } else {
    report.format = args.format == "markdown" ? trace::ReportFormat::kMarkdown : trace::ReportFormat::kText;
    out = trace::RenderTraceSet(set, report);
  }
  if (!WriteOutput(args.output, out)) return 2;
  return set.any_warnings() ? 1 : 0;
}

}  // namespace

Command AddTraceCommand(CLI::App& root) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* sub = root.add_subcommand(
      "trace",
      "Analyse a PyTorch profiler trace (file or folder of ranks): steps, GPU use, syncs, DataLoader, bottlenecks");
  sub->add_option("PATH", args->path,
                  "Trace file (.json, .pt.trace.json, .json.gz, or an Nsight Systems .sqlite export) or a folder of "
                  "them, one per rank");
  sub->add_option("--format", args->format, "Output format (html: one self-contained page with SVG charts)")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}))
      ->capture_default_str();
  sub->add_option("--lang", args->lang, "Report language")->check(CLI::IsMember({"en", "zh"}))->capture_default_str();
  sub->add_option("-o,--output", args->output, "Write the report to FILE instead of stdout");
  sub->add_option("--memory", args->memory,
                  "A CUDA memory snapshot (torch.cuda.memory._dump_snapshot) of the same training: its analysis joins "
                  "the memory section");
  AddColorOption(sub, args->color);
  sub->add_flag("--include-last-step", args->include_last_step,
                "Count the last ProfilerStep too (by default it is treated as partial, as HTA does)");
  sub->add_option("--step-range", args->step_range,
                  "Without ProfilerStep ranges, the NVTX or record_function range that marks one step (default: "
                  "train_step, as `instrument --template nvtx` writes it)");
  sub->add_option("--top", args->top, "Rows in the op and kernel tables")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->add_option("--max-decompressed-mb", args->max_decompressed_mb,
                  "Refuse gzip input that expands beyond this many MiB (gz-bomb guard)")
      ->capture_default_str();
  sub->add_flag("--no-python-frames", args->no_python,
                "Skip python_function events while reading (faster on with_stack traces; no source attribution)");
  sub->add_option("-j,--jobs", args->jobs,
                  "Threads that parse one trace (default 0: one per CPU, at most 8); the result is the same with any")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
  CLI::App* diff = sub->add_subcommand(
      "diff", "Compare two traces of the same training (before and after a fix): step time, breakdown, kernels, ops");
  diff->add_option("BEFORE", args->before, "Trace before the change (file or folder; a folder's rank 0)")->required();
  diff->add_option("AFTER", args->after, "Trace after the change")->required();
  diff->add_option("--format", args->format, "Output format (html: one self-contained page)")
      ->check(CLI::IsMember({"text", "json", "markdown", "html"}))
      ->capture_default_str();
  diff->add_option("--check", args->check_scripts,
                   "The training scripts (files or folders) of BEFORE: list each finding BEFORE confirms with its "
                   "predicted saving beside the saving AFTER measured");
  diff->add_option("--after-script", args->after_scripts,
                   "With --check: the script AFTER was recorded from, one per checked file, when its name differs "
                   "(a fixed twin); findings are judged on AFTER under that name");
  diff->add_option("--target-torch", args->target_torch,
                   "With --check: the PyTorch version the scripts run on (default: what BEFORE shows)");
  diff->add_option("--lang", args->lang, "Report language")->check(CLI::IsMember({"en", "zh"}))->capture_default_str();
  diff->add_option("-o,--output", args->output, "Write the comparison to FILE instead of stdout");
  diff->add_option("--top", args->top, "Kernels and ops listed")->check(CLI::Range(1, 1000))->capture_default_str();
  diff->add_option("--step-range", args->step_range, "Without ProfilerStep ranges, the range that marks one step");
  CLI::App* annotate = sub->add_subcommand(
      "annotate",
      "Write a copy of a Kineto trace with torchlint's findings on the timeline (a `torchlint` track for Perfetto)");
  annotate->add_option("TRACE", args->annotate_input, "One trace file (.json or .json.gz; not a folder)")->required();
  annotate
      ->add_option("-o,--output", args->annotate_output, "The annotated copy (plain JSON; gzip when FILE ends in .gz)")
      ->required();
  annotate->add_flag("--include-last-step", args->include_last_step, "Count the last ProfilerStep too");
  annotate->add_option("--step-range", args->step_range, "Without ProfilerStep ranges, the range that marks one step");
  sub->footer(
      "Exit codes: 0 analysed cleanly, 1 analysed with warnings (e.g. a truncated file), 2 unreadable or not a trace.");
  return {sub, [args, diff, annotate] {
            if (annotate->parsed()) return RunAnnotate(*args);
            return diff->parsed() ? RunDiff(*args) : RunTrace(*args);
          }};
}

TL_REGISTER_COMMAND(20, AddTraceCommand);

}  // namespace tl::cli
