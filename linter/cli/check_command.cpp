// `torchlint check [PATH...]`: the linter's main job, with Ruff's flags and exit codes (0 clean,
// 1 findings, 2 usage or input error, and 2 for bad input only when no file at all could be analysed).
// This file only wires things together: discovery, configuration and the torch pin come from
// linter/engine, the checks from the parallel driver, the formats from linter/output.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <fmt/core.h>

#include "crosscheck/crosscheck.h"
#include "linter/cli/command.h"
#include "linter/cli/instrument_command.h"
#include "linter/cli/markers.h"
#include "linter/cli/options.h"
#include "linter/cli/trace_reads.h"
#include "linter/cli/watch.h"
#include "linter/core/fix.h"
#include "linter/core/fs.h"
#include "linter/core/progress.h"
#include "linter/engine/config.h"
#include "linter/engine/discovery.h"
#include "linter/engine/driver.h"
#include "linter/engine/noqa.h"
#include "linter/engine/project_builder.h"
#include "linter/engine/torch_pin.h"
#include "linter/output/report.h"
#include "traceio/annotate.h"

namespace tl::cli {
namespace {

namespace fs = std::filesystem;

struct CheckArgs {
  std::vector<std::string> paths;
  std::string stdin_filename;
  bool no_project = false;
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::string target_torch;
  std::string config;
  bool exit_zero = false;
  bool fix = false;
  bool diff = false;
  size_t jobs = 0;
  std::string output_format = "text";
  std::string color = "auto";
  // The rules' declared options (`--min-dim 32`), by key; kUnset when not given.
  static constexpr int64_t kUnset = INT64_MIN;
  std::map<std::string, int64_t, std::less<>> rule_options;
  double max_file_size_mb = static_cast<double>(kDefaultMaxFileBytes) / 1e6;
  bool no_respect_gitignore = false;
  bool force_exclude = false;
  bool quiet = false;
  std::string trace;            // --trace: a profiler trace file or folder to cross-check against
  std::string fail_on = "any";  // --fail-on any|confirmed|none
  std::string annotate;         // --annotate: write the trace's annotated copy here (with --trace, one file)
  std::string memory;           // --memory: a CUDA memory snapshot, further evidence for the cross-check
  std::string lang = "en";      // --lang en|zh: the findings' sentences in text and github output
  bool watch = false;           // --watch: check again after each change (watch.h)
  // Ruff's flags beyond the findings themselves (docs/check.md).
  bool unsafe_fixes = false;     // --fix/--diff apply unsafe fixes too; else the summary counts them as hidden
  bool no_unsafe_fixes = false;  // overrides `unsafe-fixes = true` in the config
  bool show_fixes = false;       // list the fixes --fix applied; fix titles in concise output
  bool statistics = false;       // counts per code instead of the findings
  bool add_noqa = false;         // write `# noqa: CODE` on every reported line
  bool silent = false;           // -s: nothing but errors
  std::string show_settings;     // print the settings resolved for this file and stop
  std::string instrument;        // `check --instrument FILE` is `instrument FILE --in-place`
  std::string template_spec;     // --template, with --instrument
};

// What the flags give every check pass, read once: --watch runs the passes again, not this.
struct CheckSetup {
  std::optional<OutputFormat> format;
  CliOverrides cli;
  uint64_t max_file_bytes = 0;
  std::optional<FailOn> fail_on;
  std::optional<CrossCheck> cross_check;
  std::optional<TorchVersion> trace_torch;
};

// The ranked findings as `--annotate` puts them on the trace's timeline, each on the events of the trace
// that its evidence measured, then the trace-only findings.
std::vector<trace::ScriptFinding> ScriptFindings(const CrossCheck& cross_check,
                                                 const std::vector<RankedFinding>& ranked,
                                                 const std::vector<TraceFinding>& trace_only) {
  std::vector<trace::ScriptFinding> out;
  out.reserve(ranked.size() + trace_only.size());
  for (const RankedFinding& finding : ranked) {
    const Diagnostic& d = finding.diagnostic;
    trace::ScriptFinding f;
    f.code = d.code;
    f.location = fmt::format("{}:{}", finding.file->path(), finding.file->lines().Locate(d.range.begin).line);
    f.message = d.message;
    if (d.evidence) {
      f.verdict = ToString(d.evidence->verdict);
      f.cost_ms_per_step = d.evidence->cost_ms_per_step;
      f.saved_ms_per_step = d.evidence->saved_ms_per_step;
      f.events = cross_check.FocusEvents(*d.evidence);
    }
    out.push_back(std::move(f));
  }
  for (trace::ScriptFinding& f : TraceOnlyMarkers(trace_only)) out.push_back(std::move(f));
  return out;
}

fs::path Absolute(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  return ec ? path : absolute.lexically_normal();
}

// A path as the user would write it from here: relative below the working folder, else absolute.
std::string ForDisplay(const fs::path& path) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return path.string();
  const fs::path relative = path.lexically_relative(cwd);
  if (relative.empty() || *relative.begin() == "..") return path.string();
  return relative.generic_string();
}

// The flags that exclude one another or need another (Ruff's conventions, --watch); empty when they fit.
std::string FlagConflict(const CheckArgs& args, OutputFormat format) {
  const bool from_stdin = std::find(args.paths.begin(), args.paths.end(), "-") != args.paths.end();
  if (args.watch) {
    const char* with = from_stdin                    ? "- (stdin)"
                       : args.diff                   ? "--diff"
                       : !args.annotate.empty()      ? "--annotate"
                       : args.add_noqa               ? "--add-noqa"
                       : !args.show_settings.empty() ? "--show-settings"
                       : !args.instrument.empty()    ? "--instrument"
                                                     : nullptr;
    if (with != nullptr) {
      return fmt::format("--watch cannot be combined with {}: it checks files on disk again as they change", with);
    }
  }
  if (!args.template_spec.empty() && args.instrument.empty()) return "--template needs --instrument FILE";
  if (!args.instrument.empty() && !args.paths.empty()) {
    return "--instrument FILE rewrites that one script; give no other paths";
  }
  if (args.add_noqa && (args.fix || args.diff)) return "--add-noqa cannot be combined with --fix or --diff";
  if (args.add_noqa && from_stdin) return "--add-noqa edits files in place, so it cannot read stdin";
  if (args.statistics && format != OutputFormat::kText && format != OutputFormat::kConcise) {
    return "--statistics prints text; drop --output-format or use full or concise";
  }
  return "";
}

// `check --instrument FILE [--template T]`: the instrument subcommand's own code, with --in-place.
int RunCheckInstrument(const CheckArgs& args) {
  InstrumentArgs instrument;
  instrument.file = args.instrument;
  if (!args.template_spec.empty()) instrument.template_spec = args.template_spec;
  instrument.in_place = true;
  return RunInstrument(instrument);
}

// `--show-settings FILE`: one `key = value  (source)` line per setting, for that file.
int ShowSettings(const std::string& file, ConfigResolver& configs, const CliOverrides& cli,
                 const std::optional<TorchVersion>& trace_torch, TorchPinResolver& pins) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    return UsageError(
        fmt::format("--show-settings: {} is not a file; give the Python file to explain settings for", file));
  }
  const fs::path absolute = Absolute(file);
  auto config = configs.ForDirectory(absolute.parent_path());
  if (!config.ok()) return UsageError(config.error().message);
  const auto show = [](const fs::path& path) { return ForDisplay(path); };
  fmt::print("Resolved settings for: {}\n", ForDisplay(absolute));
  fmt::print("Settings path: {}\n", (*config)->path.empty() ? "(none: the defaults)" : ForDisplay((*config)->path));
  for (const ResolvedSetting& setting : ExplainSettings(**config, cli, absolute, trace_torch, pins, show)) {
    fmt::print("{} = {}  ({})\n", setting.key, setting.value, setting.source);
  }
  return 0;
}

// `--add-noqa` for one checked file: writes the directives atomically (as --fix does). Returns the
// number added; a file that could not be written counts in `write_errors` after one error line.
size_t AddNoqaTo(const FileOutcome& outcome, bool silent, size_t& write_errors) {
  // (The project pass drops the text of files with no findings; those have nothing to add.)
  if (!outcome.source || outcome.diagnostics.empty() || outcome.source->text().empty()) return 0;
  auto added = AddNoqa(*outcome.source, outcome.diagnostics);
  if (added.ok()) {
    for (const std::string& warning : added->warnings) {
      if (!silent) fmt::print(stderr, "warning: {}\n", warning);
    }
    if (added->added == 0) return 0;
    Status written = WriteFileAtomically(outcome.path, added->text);
    if (written.ok()) return added->added;
    fmt::print(stderr, "error: {}\n", written.error().message);
  } else {
    fmt::print(stderr, "error: {}\n", added.error().message);
  }
  ++write_errors;
  return 0;
}

// --unsafe-fixes, else `unsafe-fixes` in the config of the working folder (or --config), unless
// --no-unsafe-fixes: one setting for the whole run, as Ruff reads it.
bool UnsafeFixes(const CheckArgs& args, ConfigResolver& configs) {
  if (args.unsafe_fixes || args.no_unsafe_fixes) return args.unsafe_fixes;
  auto config = configs.ForDirectory(Absolute("."));
  return config.ok() && (*config)->unsafe_fixes.value_or(false);
}

std::unique_ptr<Reporter> MakeCheckReporter(const CheckArgs& args, OutputFormat format, const OutputOptions& options) {
  if (args.silent || args.add_noqa) return MakeNullReporter();
  if (args.statistics) return MakeStatisticsReporter(options);
  return MakeReporter(format, options);
}

// The flags, and the trace with --trace. An exit status when they stop the run.
std::optional<int> SetUpCheck(const CheckArgs& args, CheckSetup& setup) {
  // Flags first: every usage error is reported before any file is read.
  const auto& format = setup.format = ParseOutputFormat(args.output_format);
  if (!format)
    return UsageError(fmt::format("unknown --output-format `{}`; use text, json, sarif or github", args.output_format));
  if (std::string conflict = FlagConflict(args, *format); !conflict.empty()) return UsageError(conflict);
  if (!args.instrument.empty()) return RunCheckInstrument(args);
  CliOverrides& cli = setup.cli;
  if (!args.select.empty()) {
    auto select = NormalizeSelectors(args.select, "--select");
    if (!select.ok()) return UsageError(select.error().message);
    cli.select = std::move(*select);
  }
  auto ignore = NormalizeSelectors(args.ignore, "--ignore");
  if (!ignore.ok()) return UsageError(ignore.error().message);
  cli.ignore = std::move(*ignore);
  if (!args.target_torch.empty()) {
    cli.target_torch = TorchVersion::Parse(args.target_torch);
    if (!cli.target_torch) {
      return UsageError(
          fmt::format("--target-torch: `{}` is not a version; use major.minor such as 2.1", args.target_torch));
    }
  }
  for (const auto& [key, value] : args.rule_options) {
    if (value == CheckArgs::kUnset) continue;
    const FoundOption option = FindRuleOption(key);
    if (option.spec == nullptr) continue;
    if (std::string why = CheckRuleOption(*option.spec, value); !why.empty()) return UsageError("--" + why);
    cli.rule_options[key] = value;
  }
  if (!(args.max_file_size_mb > 0) || args.max_file_size_mb > 4000) {
    return UsageError("--max-file-size: use a size in MB between 0 and 4000, such as 10");
  }
  setup.max_file_bytes = static_cast<uint64_t>(args.max_file_size_mb * 1e6);

  const auto& fail_on = setup.fail_on = ParseFailOn(args.fail_on);
  if (!fail_on) return UsageError(fmt::format("--fail-on: `{}`; use any, confirmed or none", args.fail_on));
  if (*fail_on == FailOn::kConfirmed && args.trace.empty()) {
    return UsageError("--fail-on confirmed needs --trace: only a profiler trace can confirm a finding");
  }
  if (!args.annotate.empty() && args.trace.empty()) {
    return UsageError("--annotate needs --trace: it writes a copy of that trace with the findings on its timeline");
  }
  if (!args.memory.empty() && args.trace.empty()) {
    return UsageError(
        "--memory needs --trace: the snapshot is evidence beside a profiler trace (or see `torchlint "
        "memory SNAPSHOT`)");
  }
  auto& cross_check = setup.cross_check;
  if (!args.trace.empty()) {
    auto loaded = LoadCrossCheckShowingProgress(args.trace, args.quiet || args.silent);
    if (!loaded.ok()) return UsageError(loaded.error().message);
    cross_check = std::move(*loaded);
    if (!args.annotate.empty() && (cross_check->traces().folder || cross_check->Focus() == nullptr)) {
      return UsageError(
          fmt::format("--annotate writes one trace file; --trace {} is a folder, so give one rank's file", args.trace));
    }
    if (!args.silent) {
      const Lang lang = args.lang == "zh" ? Lang::kChinese : Lang::kEnglish;
      PrintReadWarnings(cross_check->Warnings(lang), lang);
    }
    setup.trace_torch = cross_check->TraceTorch();
    if (!args.memory.empty()) {
      auto snapshot = ReadSnapshotReporting(args.memory, args.lang == "zh" ? Lang::kChinese : Lang::kEnglish);
      if (!snapshot) return 2;
      cross_check->SetMemorySnapshot(std::move(*snapshot));
    }
  }
  return std::nullopt;
}

// One check pass: configuration, discovery, the checks and the report. --watch runs it after each change;
// `written` (may be null) gets the files --fix wrote.
int RunCheckPass(const CheckArgs& args, const CheckSetup& setup, std::vector<fs::path>* written) {
  const auto& format = setup.format;
  const CliOverrides& cli = setup.cli;
  const uint64_t max_file_bytes = setup.max_file_bytes;
  const auto& fail_on = setup.fail_on;
  const auto& cross_check = setup.cross_check;
  const auto& trace_torch = setup.trace_torch;
  std::optional<Config> forced;
  if (!args.config.empty()) {
    auto loaded = LoadConfigFile(args.config);
    if (!loaded.ok()) return UsageError(loaded.error().message);
    if (!*loaded) {
      return UsageError(fmt::format("{}: no [tool.torchlint] table; add one or pass a torchlint.toml", args.config));
    }
    Config config = std::move(**loaded);
    config.root = Absolute(config.root.empty() ? fs::path(".") : config.root);
    forced = std::move(config);
  }
  ConfigResolver configs(std::move(forced));
  TorchPinResolver pins;
  if (!args.show_settings.empty()) return ShowSettings(args.show_settings, configs, cli, trace_torch, pins);

  std::vector<std::string> paths = args.paths;
  if (paths.empty()) paths.push_back(".");
  bool read_stdin = false;
  std::vector<std::string> file_arguments;
  for (const std::string& path : paths) {
    if (path == "-") {
      read_stdin = true;
    } else {
      file_arguments.push_back(path);
    }
  }

  // Discovery. A config error met while deciding exclusions stops the run: its patterns are unknown.
  std::optional<std::string> config_error;
  DiscoveryOptions discovery_options;
  discovery_options.respect_gitignore = !args.no_respect_gitignore;
  discovery_options.force_exclude = args.force_exclude;
  discovery_options.excluded = [&](const fs::path& path, bool is_dir) {
    auto config = configs.ForDirectory(path.parent_path());
    if (!config.ok()) {
      if (!config_error) config_error = config.error().message;
      return false;
    }
    return (*config)->Excludes(path, is_dir);
  };
  DiscoveryResult discovered = DiscoverFiles(file_arguments, discovery_options);
  if (config_error) return UsageError(*config_error);

  // One task per file, each with the options its own config gives.
  std::set<fs::path> announced_pins;
  // Notes are for people (stderr), in the language asked for whatever the format of stdout.
  const bool zh_notes = args.lang == "zh";
  const Lang notes_lang = zh_notes ? Lang::kChinese : Lang::kEnglish;
  auto make_options = [&](const fs::path& absolute) -> Result<std::shared_ptr<const CheckOptions>> {
    auto config = configs.ForDirectory(absolute.parent_path());
    if (!config.ok()) return config.error();
    auto options = std::make_shared<CheckOptions>();
    options->collect_facts = cross_check.has_value();
    const TargetTorchSource target = ConfigureOptions(**config, cli, absolute, trace_torch, pins, *options);
    const bool notes = !args.quiet && !args.silent;  // -q and -s silence notes
    if (notes && target.kind == TargetTorchSource::kTrace && announced_pins.insert(fs::path(args.trace)).second) {
      PrintTraceTorchNote(*cross_check, *trace_torch, notes_lang);
    } else if (notes && target.kind == TargetTorchSource::kPin && announced_pins.insert(target.pin->source).second) {
      fmt::print(stderr,
                 fmt::runtime(zh_notes ? "注：目标 PyTorch 版本 {} 由 {} 中的 `{}` 推断；可用 --target-torch 覆盖\n"
                                       : "note: target PyTorch {} inferred from `{}` in {}; pass --target-torch to "
                                         "override\n"),
                 target.pin->version.ToString(), zh_notes ? ForDisplay(target.pin->source) : target.pin->requirement,
                 zh_notes ? target.pin->requirement : ForDisplay(target.pin->source));
    }
    return std::shared_ptr<const CheckOptions>(std::move(options));
  };

  std::vector<FileTask> tasks;
  if (read_stdin) {
    auto text = ReadStdin(max_file_bytes);
    if (!text.ok()) return UsageError(text.error().message + "; raise it with --max-file-size");
    FileTask task;
    task.display_path = args.stdin_filename.empty() ? "-" : args.stdin_filename;
    task.path = Absolute(args.stdin_filename.empty() ? fs::path("stdin.py") : fs::path(args.stdin_filename));
    task.text = std::move(*text);
    task.write_back = false;
    auto options = make_options(task.path);
    if (!options.ok()) return UsageError(options.error().message);
    task.options = std::move(*options);
    tasks.push_back(std::move(task));
  }
  for (DiscoveredFile& file : discovered.files) {
    auto options = make_options(file.path);
    if (!options.ok()) return UsageError(options.error().message);
    FileTask task;
    task.display_path = std::move(file.display_path);
    task.path = std::move(file.path);
    task.options = std::move(*options);
    tasks.push_back(std::move(task));
  }

  const Applicability fix_level = UnsafeFixes(args, configs) ? Applicability::kUnsafe : Applicability::kSafe;
  // With stdin and --fix the fixed source goes to stdout (as Ruff does), so findings go to stderr.
  const bool fix_stdin = read_stdin && args.fix && !args.diff;
  OutputOptions output_options;
  output_options.out = fix_stdin ? stderr : stdout;
  output_options.color = *format == OutputFormat::kText && UseColor(args.color);
  output_options.tool_version = "0.1.0";
  // JSON and SARIF are read by machines: English whatever --lang says.
  const bool zh = args.lang == "zh" && (*format == OutputFormat::kText || *format == OutputFormat::kConcise ||
                                        *format == OutputFormat::kGithub);
  output_options.lang = zh ? Lang::kChinese : Lang::kEnglish;
  output_options.fix_level = fix_level;
  output_options.show_fixes = args.show_fixes;
  std::unique_ptr<Reporter> reporter = MakeCheckReporter(args, *format, output_options);

  size_t failed = 0;
  for (const PathError& error : discovered.errors) {
    fmt::print(stderr, "error: {}\n", error.message);
    reporter->AddError(error.path, error.message);
    ++failed;
  }
  if (tasks.empty() && failed == 0) {
    if (!args.silent) fmt::print(stderr, "warning: no Python files found under the given paths\n");
    reporter->Finish();
    return 0;
  }

  DriverOptions driver_options;
  driver_options.jobs = args.jobs;
  driver_options.max_file_bytes = max_file_bytes;
  driver_options.fix_mode = args.diff ? FixMode::kDiff : args.fix ? FixMode::kApply : FixMode::kNone;
  driver_options.fix_level = fix_level;
  driver_options.project = !args.no_project;
  driver_options.project_root = FindProjectRoot(
      read_stdin ? (args.stdin_filename.empty() ? fs::path(".") : fs::path(args.stdin_filename))
                 : fs::path(paths.front()));
  ProgressBar bar = ProgressBar::ForStderr(args.quiet || args.silent);
  bar.Start("checking", ProgressUnit::kCount);
  driver_options.progress = bar.Callback();

  ReportSummary summary;
  summary.diff_mode = args.diff;
  summary.fix_mode = args.fix;
  size_t analysed = 0;
  size_t write_errors = 0;
  size_t failing = 0;  // findings that count for the exit status under --fail-on
  std::vector<std::unique_ptr<SourceFile>> ranked_sources;
  std::vector<RankedFinding> ranked;
  std::vector<CheckedScript> scripts;
  std::vector<FixedFile> fixed_files;  // --show-fixes
  size_t noqa_added = 0;               // --add-noqa
  RunChecks(std::move(tasks), driver_options, [&](FileOutcome&& outcome) {
    if (!outcome.notes.empty() || outcome.error || !outcome.diagnostics.empty() || outcome.fixes_applied > 0) {
      bar.Clear();  // before this file's lines; the next file's progress draws it again
    }
    if (outcome.written && written != nullptr) written->push_back(Absolute(outcome.display_path));
    for (const std::string& note : outcome.notes) {
      if (!args.silent) fmt::print(stderr, "warning: {}\n", note);
    }
    if (outcome.error) {
      fmt::print(stderr, "error: {}\n", *outcome.error);
      reporter->AddError(outcome.display_path, *outcome.error);
      if (outcome.source) {
        ++write_errors;
      } else {
        ++failed;
      }
    }
    if (!outcome.source) return;
    ++analysed;
    if (args.add_noqa) {
      noqa_added += AddNoqaTo(outcome, args.silent, write_errors);
      return;
    }
    summary.fixed += outcome.fixes_applied;
    if (args.show_fixes && !outcome.applied.empty()) {
      FixedFile& fixed = fixed_files.emplace_back(FixedFile{outcome.display_path, {}});
      for (AppliedFix& fix : outcome.applied) fixed.fixes.emplace_back(std::move(fix.code), std::move(fix.name));
    }
    if (args.diff) {
      if (outcome.fixes_applied > 0) {
        const std::string diff = UnifiedDiff(outcome.display_path, outcome.original, outcome.source->text());
        std::fwrite(diff.data(), 1, diff.size(), stdout);
      }
      return;
    }
    if (cross_check) scripts.push_back(cross_check->Annotate(*outcome.source, outcome.facts, outcome.diagnostics));
    summary.findings += outcome.diagnostics.size();
    for (const Diagnostic& diagnostic : outcome.diagnostics) {
      if (diagnostic.fix && IsApplicable(diagnostic.fix->applicability, fix_level)) ++summary.fixable;
      if (diagnostic.fix && fix_level == Applicability::kSafe &&
          diagnostic.fix->applicability == Applicability::kUnsafe) {
        ++summary.hidden_fixes;
      }
      // With a trace the gate is counted after the costs are settled across files, below (--fix from
      // stdin writes the fixed text instead of ranking, so it counts here).
      if ((!cross_check || fix_stdin) && CountsForExit(diagnostic, *fail_on)) ++failing;
    }
    if (cross_check && !fix_stdin) {
      if (outcome.diagnostics.empty()) return;  // nothing to rank, and the reporters print findings only
      ranked_sources.push_back(std::make_unique<SourceFile>(std::move(*outcome.source)));
      for (Diagnostic& diagnostic : outcome.diagnostics)
        ranked.push_back({ranked_sources.back().get(), std::move(diagnostic)});
      return;
    }
    reporter->AddFile(*outcome.source, outcome.diagnostics);
    if (fix_stdin) {
      const std::string_view text = outcome.source->text();
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
  });
  bar.Finish();
  std::vector<trace::ScriptFinding> annotated;
  if (cross_check) {
    // Costs claimed by several findings (in one file or in several) are shared before anything counts.
    std::vector<TraceFinding> trace_findings = cross_check->TraceOnly(scripts);
    SettleCosts(ranked, trace_findings);
    RankFindings(ranked);
    for (const RankedFinding& finding : ranked) failing += CountsForExit(finding.diagnostic, *fail_on) ? 1 : 0;
    if (!args.annotate.empty()) annotated = ScriptFindings(*cross_check, ranked, trace_findings);
    for (RankedFinding& finding : ranked) reporter->AddFile(*finding.file, {std::move(finding.diagnostic)});
    for (const TraceFinding& finding : trace_findings) reporter->AddTraceFinding(finding);
  }
  reporter->Finish();
  std::fflush(stdout);
  if (cross_check && !args.annotate.empty()) {
    const trace::RankTrace& focus = *cross_check->Focus();
    const trace::AnnotateResult result = trace::WriteAnnotatedTrace(focus.path, args.annotate, *focus.read.trace,
                                                                    *focus.analysis, annotated);
    if (!result.ok) {
      fmt::print(stderr, "torchlint: error: {}\n", result.error);
      return 2;
    }
  }

  if (analysed == 0 && failed > 0) return 2;  // the error lines said it all
  if (args.add_noqa) {
    if (!args.quiet && !args.silent) {
      fmt::print(stderr, "Added {} noqa directive{}.\n", noqa_added, noqa_added == 1 ? "" : "s");
    }
    return failed > 0 || write_errors > 0 ? 1 : 0;
  }
  const bool text_format = *format == OutputFormat::kText || *format == OutputFormat::kConcise;
  if (text_format && !args.silent) std::fputs(FormatFixed(fixed_files).c_str(), stderr);
  if (text_format && !args.quiet && !args.silent && !args.statistics) {
    fmt::print(stderr, "{}\n", FormatSummary(summary, output_options.lang));
  }

  if (args.exit_zero) return 0;
  if (args.diff) return summary.fixed > 0 || failed > 0 ? 1 : 0;
  return failing > 0 || failed > 0 || write_errors > 0 ? 1 : 0;
}

int RunCheck(const CheckArgs& args) {
  CheckSetup setup;
  if (auto status = SetUpCheck(args, setup)) return *status;
  if (!args.watch) return RunCheckPass(args, setup, nullptr);
  return WatchAndCheck(args.paths, [&](std::vector<fs::path>& written) { return RunCheckPass(args, setup, &written); });
}

// The flags Ruff's users know beyond --fix and --diff (docs/check.md).
void AddRuffFlags(CLI::App* app, CheckArgs& args) {
  auto* unsafe = app->add_flag("--unsafe-fixes", args.unsafe_fixes,
                               "With --fix or --diff, apply unsafe fixes too (config: unsafe-fixes = true)");
  app->add_flag("--no-unsafe-fixes", args.no_unsafe_fixes, "Apply safe fixes only, whatever the config says")
      ->excludes(unsafe);
  app->add_flag("--show-fixes", args.show_fixes,
                "After --fix, list the fixes applied per file and code; in concise output, show each fix title");
  app->add_flag("--statistics", args.statistics, "Print the number of findings per code instead of the findings");
  app->add_flag("--add-noqa", args.add_noqa, "Add `# noqa: CODE` to every line with a finding, in place");
  app->add_option("--show-settings", args.show_settings,
                  "Print the settings resolved for this file, and where each came from");
  app->add_option("--instrument", args.instrument,
                  "Insert a profiler template into this script in place (as `instrument FILE --in-place`)");
  app->add_option("--template", args.template_spec, "With --instrument: the template (as `instrument --template`)");
}

Command AddCheckCommand(CLI::App& root) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* app = root.add_subcommand("check", "Check Python files for PyTorch performance anti-patterns");
  app->add_option("paths", args->paths, "Files or folders to check (default: the current folder); - reads stdin");
  app->add_flag("--no-project", args->no_project,
                "Check each file alone: no project index (helpers and devices of other files are not followed)");
  app->add_option("--stdin-filename", args->stdin_filename,
                  "The path to report and to find the config for when reading stdin");
  AddSelectorOptions(app, args->select, args->ignore,
                     "Rule codes or prefixes to enable (TL1,TL201); replaces the config's",
                     "Rule codes or prefixes to disable, on top of the config's");
  app->add_option("--target-torch", args->target_torch,
                  "PyTorch version the code runs on (2.1); default: the config, a torch pin, or 2.x");
  for (const Rule* rule : AllRules()) {
    for (const RuleOptionSpec& spec : rule->Meta().options) {
      int64_t& slot = args->rule_options.try_emplace(std::string(spec.key), CheckArgs::kUnset).first->second;
      app->add_option(fmt::format("--{}", spec.key), slot,
                      fmt::format("{}: {} (default {})", rule->Meta().code, spec.help, spec.default_value));
    }
  }
  app->add_option("--config", args->config, "Use this pyproject.toml or torchlint.toml for every file");
  app->add_option("--max-file-size", args->max_file_size_mb,
                  "Skip files larger than this many MB, with a message (default 10)");
  app->add_flag("--exit-zero", args->exit_zero, "Exit 0 even when there are findings");
  app->add_flag("--fix", args->fix, "Apply safe fixes, writing each file atomically");
  app->add_flag("--diff", args->diff, "Print the safe fixes as a unified diff and change nothing");
  AddRuffFlags(app, *args);
  app->add_option("-j,--jobs", args->jobs, "Files checked in parallel (default: one per CPU); output order is fixed");
  app->add_option("--output-format", args->output_format, "full (default), concise, json, sarif or github")
      ->check(CLI::IsMember({"text", "full", "concise", "json", "sarif", "github"}));
  app->add_option("--lang", args->lang, "en (default) or zh: the findings in text and github output (JSON, SARIF: en)")
      ->check(CLI::IsMember({"en", "zh"}));
  AddColorOption(app, args->color);
  app->add_flag("--no-respect-gitignore", args->no_respect_gitignore, "Also check files that .gitignore excludes");
  app->add_flag("--force-exclude", args->force_exclude,
                "Apply the config's exclude to files named on the command line too (for pre-commit)");
  app->add_flag("-q,--quiet", args->quiet, "Do not print the summary line, notes or the progress bar");
  app->add_flag("-s,--silent", args->silent, "Print nothing but errors (the exit status still tells)");
  app->add_flag("-w,--watch", args->watch,
                "Check again whenever a Python file or a config under the paths changes (inotify); Ctrl-C stops");
  app->add_option("--trace", args->trace,
                  "Cross-check the findings against a profiler trace (file or folder): verdict and cost per step");
  app->add_option("--memory", args->memory,
                  "With --trace: a CUDA memory snapshot (torch.cuda.memory._dump_snapshot) of the same training, "
                  "further evidence (TL103 reads its segment churn)");
  app->add_option("--annotate", args->annotate,
                  "With --trace (one file): write a copy of the trace with the findings and their evidence on the "
                  "timeline, for ui.perfetto.dev (docs/annotate.md)");
  app->add_option("--fail-on", args->fail_on,
                  "Which findings make the exit status 1: any (default), confirmed (by --trace), none");
  return {app, [args] { return RunCheck(*args); }};
}

}  // namespace

TL_REGISTER_COMMAND(10, AddCheckCommand);

}  // namespace tl::cli
