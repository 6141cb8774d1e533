// `torchlint trace PATH`: read a profiler trace (a file or a folder of ranks), analyse it and print the
// report or JSON. Thin on purpose: reading, analyses and rendering live in traceio/ so that
// `torchlint report` renders the same way.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/core.h>

#include "linter/cli/command.h"
#include "report/trace_report.h"
#include "traceio/trace_set.h"

namespace tl::cli {

namespace {

struct TraceArgs {
  std::string path;
  std::string format = "text";
  std::string lang = "en";
  bool include_last_step = false;
  size_t top = 10;
  uint64_t max_decompressed_mb = uint64_t{16} << 10;
  bool no_python = false;
  unsigned jobs = 0;
};

int RunTrace(const TraceArgs& args) {
  trace::ReadOptions read;
  read.limits.max_decompressed_bytes = args.max_decompressed_mb << 20;
  read.keep_python_functions = !args.no_python;
  read.threads = args.jobs;
  trace::AnalysisOptions analysis;
  analysis.steps.include_last_step = args.include_last_step;
  analysis.top_n = args.top;

  trace::TraceSet set = trace::LoadTraceSet(args.path, read, analysis);
  for (const auto& error : set.errors) fmt::print(stderr, "torchlint: error: {}\n", error);
  for (const auto& rank : set.ranks) {
    for (const auto& warning : rank.read.warnings) fmt::print(stderr, "torchlint: warning: {}\n", warning);
  }
  if (!set.any_readable()) return 2;

  trace::ReportOptions report;
  report.language = args.lang == "zh" ? trace::Language::kChinese : trace::Language::kEnglish;
  report.top_n = args.top;
  if (args.format == "json") {
    fmt::print("{}\n", trace::JsonText(trace::TraceSetToJson(set)));
  } else {
    report.format = args.format == "markdown" ? trace::ReportFormat::kMarkdown : trace::ReportFormat::kText;
    fmt::print("{}", trace::RenderTraceSet(set, report));
  }
  return set.any_warnings() ? 1 : 0;
}

}  // namespace

Command AddTraceCommand(CLI::App& root) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* sub = root.add_subcommand(
      "trace",
      "Analyse a PyTorch profiler trace (file or folder of ranks): steps, GPU use, syncs, DataLoader, bottlenecks");
  sub->add_option("PATH", args->path, "Trace file (.json, .pt.trace.json, .json.gz) or a folder of them, one per rank")
      ->required();
  sub->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  sub->add_option("--lang", args->lang, "Report language")->check(CLI::IsMember({"en", "zh"}))->capture_default_str();
  sub->add_flag("--include-last-step", args->include_last_step,
                "Count the last ProfilerStep too (by default it is treated as partial, as HTA does)");
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
  sub->footer(
      "Exit codes: 0 analysed cleanly, 1 analysed with warnings (e.g. a truncated file), 2 unreadable or not a trace.");
  return {sub, [args] { return RunTrace(*args); }};
}

TL_REGISTER_COMMAND(20, AddTraceCommand);

}  // namespace tl::cli
