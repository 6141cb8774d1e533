// Source attribution index: which trace events ran on behalf of a line of the user's code. It reads
// `python_function` frames (name `file.py(DEFLINE): func`, `Python id`/`Python parent id`, and on
// PyTorch 2.14+ `CallFrom` "file.py:LINE", the exact call site) and the `Call stack` args of PyTorch
// 1.8-1.9 ops, and the NVTX (or record_function) ranges that `instrument --template nvtx` names
// `"<name> <file>:<first>-<last>"` after the lines they hold. Paths are matched by their trailing
// components, so an absolute path in the trace matches a relative one in the query and a script copied
// elsewhere still matches by name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traceio/store.h"

namespace tl::trace {

// Number of trailing path components two paths share (0 when the file names differ).
int PathMatchScore(std::string_view a, std::string_view b);

struct FrameName {
  std::string_view file;
  int line = 0;
  std::string_view function;
  bool ok = false;
};
// "torch/nn/modules/module.py(1501): _call_impl" -> file, line, function.
FrameName ParseFrameName(std::string_view name);
// "b_sync_item.py:49" -> file, line.
FrameName ParseCallFrom(std::string_view text);

// "forward train.py:47-49" -> name "forward", file "train.py", lines 47 to 49; "train_step train.py:42"
// is the one line 42. Not ok for a label without a `file:line` after its last space.
struct RangeLabel {
  std::string_view name;
  std::string_view file;
  int first = 0;
  int last = 0;
  bool ok = false;
};
RangeLabel ParseRangeLabel(std::string_view label);

// How a source location was found in the trace.
enum class MatchMethod : uint8_t { kNone, kCallFrom, kCallStack, kFunctionDef, kSourceRange };
std::string_view MatchMethodName(MatchMethod m);

// A CPU range that ran for the queried code: a python frame or an op.
struct CodeSpan {
  uint32_t event = kNoIndex;
  uint32_t track = 0;
  int64_t begin = 0;
  int64_t end = 0;
};

struct SourceMatch {
  MatchMethod method = MatchMethod::kNone;
  std::vector<CodeSpan> spans;  // outermost only
  std::string range;            // kSourceRange: the range's label, "forward train.py:47-49"
  bool found() const { return !spans.empty(); }
};

class SourceIndex {
 public:
  static SourceIndex Build(const Trace& trace);

  bool has_python_frames() const { return !frames_.empty(); }
  bool has_call_from() const { return has_call_from_; }
  bool has_call_stacks() const { return has_call_stacks_; }
  bool has_source_ranges() const { return !ranges_.empty(); }
  // The files the source ranges name, each once.
  std::vector<std::string_view> RangeFiles() const;

  // Events that ran for `file:line`: frames called from that line (CallFrom), or ops whose 1.8-1.9
  // call stack passes through it. Empty when the trace has neither or the line did not run.
  SourceMatch AtLine(const Trace& trace, std::string_view file, int line) const;
  // Frames of a function by its def line (the line in `file.py(LINE): func`), for traces without CallFrom.
  SourceMatch Function(const Trace& trace, std::string_view file, std::string_view function, int def_line = 0) const;
  // Every occurrence of the narrowest source range of `file` that holds `line` (a phase's range before
  // the step's that encloses it). Empty when no range of the file holds the line.
  SourceMatch InRange(const Trace& trace, std::string_view file, int line) const;

 private:
  struct Frame {
    uint32_t event;
    std::string_view file;
    int def_line;
    std::string_view function;
    std::string_view call_file;
    int call_line;
  };
  struct OpStack {
    uint32_t event;
    StringId stack;
  };
  struct Range {
    uint32_t event;
    RangeLabel label;
  };
  std::vector<Frame> frames_;
  std::vector<OpStack> op_stacks_;
  std::vector<Range> ranges_;
  std::unordered_map<StringId, std::vector<FrameName>> parsed_stacks_;
  bool has_call_from_ = false;
  bool has_call_stacks_ = false;
};

}  // namespace tl::trace
