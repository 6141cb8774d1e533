// `torchlint instrument FILE`: inserts a profiler template around the training step loop (or, with
// --remove, takes it out again) and prints, writes elsewhere, writes in place or diffs the result.
// `torchlint check --instrument FILE` runs the same code (RunInstrument) with --in-place.
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "linter/cli/command.h"
#include "linter/cli/instrument_command.h"
#include "linter/core/fix.h"
#include "linter/core/fs.h"
#include "linter/core/source_file.h"
#include "linter/instrument/instrument.h"

namespace tl::cli {
namespace {

int Fail(const std::string& message) {
  fmt::print(stderr, "torchlint: error: {}\n", message);
  return 2;
}

// Whether one of the first two lines is a PEP 263 encoding declaration (`# -*- coding: latin-1 -*-`).
bool DeclaresEncoding(std::string_view text) {
  for (int line = 0; line < 2 && !text.empty(); ++line) {
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view first = text.substr(0, end);
    const size_t hash = first.find('#');
    if (hash != std::string_view::npos) {
      const size_t coding = first.find("coding", hash);
      if (coding != std::string_view::npos && coding + 6 < first.size() &&
          (first[coding + 6] == ':' || first[coding + 6] == '=')) {
        return true;
      }
    }
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return false;
}

// A file with NUL bytes, or that is not UTF-8 in its first KiB and declares no other encoding, is not a
// script to edit: saying so beats reporting a syntax error at some byte of it.
bool LooksBinary(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return true;
  if (DeclaresEncoding(text)) return false;
  constexpr size_t kHead = 1024;
  if (text.size() <= kHead) return !IsValidUtf8(text);
  std::string_view head = text.substr(0, kHead);
  // Cut back to a character boundary: the continuation bytes at the end, then their lead byte.
  const auto byte = [&head] { return static_cast<unsigned char>(head.back()); };
  for (int i = 0; i < 3 && !head.empty() && (byte() & 0xC0) == 0x80; ++i) head.remove_suffix(1);
  if (!head.empty() && (byte() & 0xC0) == 0xC0) head.remove_suffix(1);
  return !IsValidUtf8(head);
}
}  // namespace

int RunInstrument(InstrumentArgs& args) {
  if (!args.remove) {
    if (auto status = instrument::ParseTemplate(args.template_spec, args.options); !status) {
      return Fail(status.error().message);
    }
    if (args.loop_line > 0) args.options.loop_line = args.loop_line;
  }
  auto text = ReadFile(args.file);
  if (!text) return Fail(text.error().message);
  if (LooksBinary(*text))
    return Fail(fmt::format("{}: binary file, not Python source; nothing was changed", args.file));
  const SourceFile file(args.file, std::move(*text));

  auto outcome = args.remove ? instrument::Remove(file) : instrument::Instrument(file, args.options);
  if (!outcome) return Fail(outcome.error().message);

  if (args.diff) {
    fmt::print("{}", UnifiedDiff(args.file, file.text(), outcome->text));
  } else if (!args.output.empty()) {
    if (auto status = WriteFileAtomically(args.output, outcome->text); !status) return Fail(status.error().message);
  } else if (args.in_place) {
    if (outcome->changed) {
      if (!args.no_backup) {
        const std::string backup = args.file + ".bak";
        if (auto status = WriteFileAtomically(backup, file.text()); !status) return Fail(status.error().message);
        fmt::print(stderr, "torchlint: kept the original as {}\n", backup);
      }
      if (auto status = WriteFileAtomically(args.file, outcome->text); !status) return Fail(status.error().message);
    }
  } else {
    std::fwrite(outcome->text.data(), 1, outcome->text.size(), stdout);
  }

  const bool wrote = !args.diff && (!args.output.empty() || (args.in_place && outcome->changed));
  const std::string target = !args.output.empty() ? args.output : args.file;
  if (args.remove) {
    if (!outcome->changed) {
      fmt::print(stderr, "torchlint: {}: no instrumentation to remove\n", args.file);
    } else {
      fmt::print(stderr, "torchlint: removed the instrumentation from {}{}\n", args.file,
                 wrote ? fmt::format("; wrote {}", target) : "");
    }
    return 0;
  }
  if (!outcome->changed) {
    fmt::print(stderr, "torchlint: {} is already instrumented this way; nothing to change\n", args.file);
  } else {
    fmt::print(stderr, "torchlint: instrumented the step loop at {}:{} with template {}{}{}\n", args.file,
               outcome->loop_line, instrument::ToString(args.options.base), args.options.labels ? ",F" : "",
               wrote ? fmt::format("; wrote {}", target) : "");
  }
  for (const auto& note : outcome->notes) fmt::print(stderr, "torchlint: {}\n", note);
  return 0;
}

namespace {

Command AddInstrumentCommand(CLI::App& root) {
  auto args = std::make_shared<InstrumentArgs>();
  CLI::App* app = root.add_subcommand(
      "instrument", "Insert a profiler template around the training step loop (or take it out with --remove)");
  app->add_option("file", args->file, "The Python script")->required();
  app->add_option("--template", args->template_spec,
                  "A, B, C (default), D, E, G or nvtx; F adds record_function labels (C,F)");
  app->add_option("--trace-dir", args->options.trace_dir, "Where the trace is written (default ./profiler_logs)");
  app->add_option("--skip-first", args->options.skip_first, "Schedule: steps skipped first (default 10)");
  app->add_option("--wait", args->options.wait, "Schedule: idle steps per cycle (default 5)");
  app->add_option("--warmup", args->options.warmup, "Schedule: warm-up steps per cycle (default 1)");
  app->add_option("--active", args->options.active, "Schedule: recorded steps per cycle (default 3)");
  app->add_option("--repeat", args->options.repeat, "Schedule: cycles, 0 for no end (default 2)");
  app->add_flag("--stop-after", args->options.stop_after, "End the step loop once the schedule is done");
  app->add_option("--loop-line", args->loop_line, "Line of the loop to instrument when there are several")
      ->check(CLI::PositiveNumber);
  app->add_flag("--remove", args->remove, "Take the instrumentation out, restoring the original byte for byte");
  auto* diff = app->add_flag("--diff", args->diff, "Print the change as a unified diff and write nothing");
  auto* output = app->add_option("-o,--output", args->output, "Write the result to this file");
  auto* in_place = app->add_flag("--in-place", args->in_place, "Rewrite the file (atomically, keeping FILE.bak)");
  app->add_flag("--no-backup", args->no_backup, "With --in-place, keep no backup");
  app->footer(
      "Without --diff, -o or --in-place the result goes to standard output, and the notes (where the trace will "
      "appear) to standard error. Exit codes: 0 done or nothing to change, 2 usage or input error (nothing is "
      "written). See docs/instrument.md.");
  diff->excludes(output)->excludes(in_place);
  output->excludes(in_place);
  return Command{app, [args] { return RunInstrument(*args); }};
}

}  // namespace

TL_REGISTER_COMMAND(30, AddInstrumentCommand);

}  // namespace tl::cli
