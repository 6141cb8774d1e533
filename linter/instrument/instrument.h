// `torchlint instrument`: puts the PyTorch profiler guide's profiler templates (A-G, nvtx) around a script's training
// step loop and takes them out again. The step loop, its epoch loop and the phases of its body come from the same
// semantic model the linter uses. Every change is a list of tl::Edits applied by the one applier, every inserted line
// is marked (markers.h), and the result is parsed again before anyone writes it, so instrumenting is reversible byte
// for byte, idempotent, and never hands back a script that would not run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/diagnostic.h"
#include "linter/core/result.h"
#include "linter/core/source_file.h"

namespace tl::instrument {

// The profiler set-ups of the PyTorch profiler guide. kC (schedule + tensorboard_trace_handler) is the default.
enum class Template { kA, kB, kC, kD, kE, kG, kNvtx };

std::string_view ToString(Template t);  // "A" ... "G", "nvtx"

struct Options {
  Template base = Template::kC;
  bool labels = false;  // template F: record_function labels around the step's phases
  std::string trace_dir = "./profiler_logs";
  // torch.profiler.schedule: the PyTorch profiler guide's values.
  int skip_first = 10;
  int wait = 5;
  int warmup = 1;
  int active = 3;
  int repeat = 2;
  bool stop_after = false;            // end the step loop once the schedule is done
  std::optional<uint32_t> loop_line;  // 1-based line of the loop to take when there are several
};

// Parses `--template`: one of A B C D E G nvtx, optionally with F ("C,F"); F alone means C,F.
Status ParseTemplate(std::string_view spec, Options& options);

// Checks the option values (schedule counts, trace dir); the error is a one-line message.
Status ValidateOptions(const Options& options);

struct Outcome {
  std::string text;                // the whole new script
  std::vector<Edit> edits;         // the edits of the input that give `text`, line by line (LineEdits)
  bool changed = false;            // text differs from the input
  uint32_t loop_line = 0;          // 1-based line of the step loop (0 for removal)
  std::vector<std::string> notes;  // what the user needs next: where the trace appears, what to run
};

// Instruments `file`. A file that carries markers already is first restored, so instrumenting twice with
// the same options changes nothing, and with other options replaces the old instrumentation. Errors:
// syntax errors in the input, no step loop, several and no --loop-line, a result that would not parse.
Result<Outcome> Instrument(const SourceFile& file, const Options& options);

// Takes every marked insertion out of `file`.
Result<Outcome> Remove(const SourceFile& file);

}  // namespace tl::instrument
