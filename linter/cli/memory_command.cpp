// `torchlint memory SNAPSHOT.pickle`: read a CUDA memory snapshot (torch.cuda.memory._dump_snapshot) with
// the restricted pickle reader and print the memory analysis, as text, markdown or JSON.
#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "linter/cli/command.h"
#include "linter/cli/trace_reads.h"
#include "report/memory_report.h"
#include "report/trace_report.h"
#include "traceio/memory_snapshot.h"

namespace tl::cli {
namespace {

struct MemoryArgs {
  std::string path;
  std::string format = "text";
  std::string lang = "en";
  size_t top = 10;
};

int RunMemory(const MemoryArgs& args) {
  const std::optional<trace::MemorySnapshot> snapshot = ReadSnapshotReporting(
      args.path, args.lang == "zh" ? Lang::kChinese : Lang::kEnglish, args.top);
  if (!snapshot) return 2;
  if (args.format == "json") {
    fmt::print("{}\n", trace::JsonText(trace::SnapshotToJson(*snapshot)));
  } else {
    fmt::print("{}", trace::RenderSnapshot(*snapshot,
                                           args.format == "markdown" ? trace::ReportFormat::kMarkdown
                                                                     : trace::ReportFormat::kText,
                                           args.lang == "zh" ? trace::Language::kChinese : trace::Language::kEnglish));
  }
  return 0;
}

Command AddMemoryCommand(CLI::App& root) {
  auto args = std::make_shared<MemoryArgs>();
  CLI::App* sub = root.add_subcommand(
      "memory", "Analyse a CUDA memory snapshot (torch.cuda.memory._dump_snapshot): peak, live blocks, sites, churn");
  sub->add_option("SNAPSHOT", args->path, "The snapshot pickle")->required();
  sub->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  sub->add_option("--lang", args->lang, "Report language")->check(CLI::IsMember({"en", "zh"}))->capture_default_str();
  sub->add_option("--top", args->top, "Largest blocks and sites listed per device")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub->footer(
      "The pickle is read as plain data only: a snapshot that names a class or function is refused and nothing in "
      "it runs. Exit codes: 0 analysed, 2 unreadable or not a snapshot.");
  return {sub, [args] { return RunMemory(*args); }};
}

}  // namespace

TL_REGISTER_COMMAND(36, AddMemoryCommand);

}  // namespace tl::cli
