#include "linter/instrument/instrument.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "linter/core/fix.h"
#include "linter/instrument/layout.h"
#include "linter/instrument/markers.h"
#include "linter/instrument/style.h"
#include "linter/semantic/model.h"
#include "linter/ts/ts.h"

namespace tl::instrument {
namespace {

using Lines = std::vector<TemplateLine>;

std::string_view PhaseLabel(semantic::Phase phase) {
  switch (phase) {
    case semantic::Phase::kData: return "data_preprocess";
    case semantic::Phase::kForward: return "forward";
    case semantic::Phase::kLoss: return "loss_compute";
    case semantic::Phase::kBackward: return "backward";
    case semantic::Phase::kOptimizer: return "optimizer_step";
    case semantic::Phase::kOther: break;
  }
  return "";
}

bool UsesProfiler(Template t) { return t != Template::kNvtx; }

// The NVTX ranges of the nvtx template carry what the cross-check needs to tie a trace's time to the
// script's lines: `"<name> <file>:<first>-<last>"`, the lines the range holds in the instrumented script
// (docs/instrument.md). Those lines are known only once every insertion is laid out, so a range is
// first written with a placeholder naming its index, and FillNvtxLines puts the lines in.
std::string NvtxPlaceholder(size_t index) { return fmt::format("@tl-lines-{}@", index); }

// Replaces each placeholder on the marked `tl_nvtx(` lines of `text` with the lines range k holds:
// `spans[k]`, 0-based lines of the input. Insertion adds only marked lines and indents the others, so the
// input's line n is the result's (n+1)-th unmarked line.
Status FillNvtxLines(std::string& text, const std::vector<std::pair<uint32_t, uint32_t>>& spans) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(std::string_view(text).substr(start, end - start));
    start = end;
  }
  auto content = [](std::string_view line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    return line;
  };
  std::vector<uint32_t> result_line;  // of each input line, 1-based
  std::vector<char> marked(lines.size(), 0);
  for (uint32_t i = 0; i < lines.size(); ++i) {
    marked[i] = ParseMarkerLine(content(lines[i])).has_value() ? 1 : 0;
    if (!marked[i]) result_line.push_back(i + 1);
  }
  std::string out;
  out.reserve(text.size() + 16 * spans.size());
  size_t filled = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string piece(lines[i]);
    if (marked[i] && piece.find("tl_nvtx(") != std::string::npos) {
      for (size_t k = 0; k < spans.size(); ++k) {
        const std::string placeholder = NvtxPlaceholder(k);
        const size_t at = piece.find(placeholder);
        if (at == std::string::npos) continue;
        if (spans[k].second >= result_line.size()) return Error{"an NVTX range ends past the script's end"};
        piece.replace(at, placeholder.size(),
                      fmt::format("{}-{}", result_line[spans[k].first], result_line[spans[k].second]));
        ++filled;
        break;
      }
    }
    out += piece;
  }
  if (filled != spans.size()) {
    return Error{fmt::format("{} of {} NVTX ranges were given their lines", filled, spans.size())};
  }
  text = std::move(out);
  return Ok{};
}

// Everything the planner needs about the input, computed once.
struct Input {
  const SourceFile& file;
  std::string_view text;
  LineTable lines;
  ts::Tree tree;
  std::unique_ptr<semantic::Model> model;
  SourceStyle style;
  std::vector<TextRange> strings;

  uint32_t LineOf(uint32_t offset) const { return lines.LineOf(offset); }
  uint32_t FirstLine(ts::Node node) const { return LineOf(node.StartByte()); }
  uint32_t LastLine(ts::Node node) const { return LineOf(node.EndByte() > 0 ? node.EndByte() - 1 : 0); }
  std::string Indent(uint32_t line) const {
    return std::string(LeadingWhitespace(text.substr(lines.Start(line), lines.ContentEnd(line) - lines.Start(line))));
  }
  std::string Where(uint32_t offset) const {
    const uint32_t line = LineOf(offset);
    return fmt::format("{}:{}:{}", file.path(), line + 1, offset - lines.Start(line) + 1);
  }
};

std::string NvtxLabel(const Input& in, std::string_view name, size_t index) {
  const std::string file = std::filesystem::path(std::string(in.file.path())).filename().string();
  return PythonStringLiteral(fmt::format("{} {}:{}", name, file, NvtxPlaceholder(index)));
}

// Whether the body has a `continue` that belongs to this loop (not to a loop nested in it, though a
// nested loop's `else:` block continues the outer one).
bool HasOwnContinue(ts::Node body) {
  bool found = false;
  ts::Walk(body, [&](ts::Node node) {
    if (found) return false;
    if (node.Is("continue_statement")) {
      found = true;
      return false;
    }
    if (node.Is("function_definition") || node.Is("class_definition") || node.Is("lambda")) return false;
    if (node.Is("for_statement") || node.Is("while_statement")) {
      if (ts::Node alternative = node.Field("alternative"); alternative && HasOwnContinue(alternative)) found = true;
      return false;
    }
    return true;
  });
  return found;
}

// Names the file already uses, so the profiler variable never shadows one of them.
std::set<std::string, std::less<>> Identifiers(const Input& in) {
  std::set<std::string, std::less<>> names;
  ts::Walk(in.tree.Root(), [&](ts::Node node) {
    if (node.Is("identifier")) names.emplace(node.Text(in.text));
    return true;
  });
  return names;
}

// Which loop to instrument, or an error that says what to do.
Result<int> PickLoop(const Input& in, const Options& options, std::vector<std::string>& notes) {
  const auto& loops = in.model->Loops();
  const std::vector<int> steps = in.model->StepLoops();
  auto line_list = [&](const std::vector<int>& ids) {
    std::vector<std::string> parts;
    parts.reserve(ids.size());
    for (int id : ids) parts.push_back(std::to_string(in.FirstLine(loops[id].node) + 1));
    return fmt::format("{}", fmt::join(parts, ", "));
  };
  if (options.loop_line) {
    int found = -1;
    for (size_t i = 0; i < loops.size(); ++i) {
      if (in.FirstLine(loops[i].node) + 1 != *options.loop_line) continue;
      if (found < 0 || loops[i].role == semantic::LoopRole::kStep) found = static_cast<int>(i);
    }
    if (found < 0) {
      return Error{fmt::format(
          "{}:{}: no for or while loop starts on line {}{}", in.file.path(), *options.loop_line, *options.loop_line,
          steps.empty() ? std::string() : fmt::format(" (step loops start on lines {})", line_list(steps)))};
    }
    return found;
  }
  if (steps.empty()) {
    return Error{
        fmt::format("{}: no training step loop found (a loop over a DataLoader, or one that calls "
                    "backward() or optimizer.step()); pass --loop-line N to pick a loop",
                    in.file.path())};
  }
  if (steps.size() == 1) return steps.front();
  constexpr uint32_t kTraining = semantic::kBackward | semantic::kOptimizerStep | semantic::kTrainingHelper;
  std::vector<int> training;
  for (int id : steps) {
    if (loops[id].evidence & kTraining) training.push_back(id);
  }
  if (training.size() == 1) {
    notes.push_back(
        fmt::format("{} step loops (lines {}); took the one that trains, line {}; pick another with "
                    "--loop-line N",
                    steps.size(), line_list(steps), in.FirstLine(loops[training[0]].node) + 1));
    return training.front();
  }
  return Error{fmt::format("{}: {} candidate step loops (lines {}); pick one with --loop-line N", in.file.path(),
                           steps.size(), line_list(steps))};
}

// Module-level imports of the modules the templates use, added once each. Only imports that run before
// the instrumented region count, and a missing `import torch` goes right after the script's first torch
// import, so the order in which the script imports things (environment set-up before torch) is kept.
Status PlanImports(const Input& in, Layout& layout, const std::vector<std::string>& modules, uint32_t region_first) {
  ts::Node root = in.tree.Root();
  std::set<std::string, std::less<>> bound;  // names bound by `import X` / `import X.y`
  ts::Node first_torch_import, last_import, first_statement;
  bool docstring_possible = true;
  for (ts::Node statement : root.NamedChildren()) {
    if (statement.Is("comment")) continue;
    if (in.FirstLine(statement) >= region_first) break;
    const bool is_import = statement.Is("import_statement") || statement.Is("import_from_statement") ||
                           statement.Is("future_import_statement");
    if (statement.Is("import_statement")) {
      for (ts::Node name : statement.NamedChildren()) {
        if (name.Is("dotted_name")) {
          std::string_view dotted = name.Text(in.text);
          bound.emplace(dotted.substr(0, dotted.find('.')));
        }
      }
    }
    if (is_import) {
      if (!first_torch_import) {
        std::string_view mentioned;
        if (statement.Is("import_from_statement")) {
          if (ts::Node module = statement.Field("module_name"); module) mentioned = module.Text(in.text);
        } else if (statement.Is("import_statement") && statement.NamedChildCount() > 0) {
          ts::Node name = statement.NamedChild(0);
          if (name.Is("aliased_import")) name = name.Field("name");
          if (name) mentioned = name.Text(in.text);
        }
        if (mentioned == "torch" || mentioned.starts_with("torch.")) first_torch_import = statement;
      }
      last_import = statement;
      docstring_possible = false;
      continue;
    }
    const bool docstring = docstring_possible && statement.Is("expression_statement") &&
                           statement.NamedChildCount() == 1 && statement.NamedChild(0).Is("string");
    docstring_possible = false;
    if (docstring) continue;
    if (!first_statement) first_statement = statement;
  }
  std::map<uint32_t, Lines> after;  // insertions after a line
  Lines before;                     // insertions before the first statement
  for (const auto& module : modules) {
    if (bound.contains(module)) continue;
    ts::Node anchor = module == "torch" && first_torch_import ? first_torch_import : last_import;
    if (anchor) {
      after[in.LastLine(anchor)].push_back({0, fmt::format("import {}", module), ""});
    } else {
      before.push_back({0, fmt::format("import {}", module), ""});
    }
  }
  for (auto& [line, code] : after) {
    if (auto status = layout.InsertAfter(Layout::kRoot, line, "", std::move(code)); !status) return status;
  }
  if (!before.empty()) {
    // No import before the region: before the first statement, or the region itself when it comes first.
    return layout.InsertBefore(Layout::kRoot, first_statement ? in.FirstLine(first_statement) : region_first, "",
                               std::move(before));
  }
  return Ok{};
}

struct Rendered {
  Lines pre;     // before the profiled region (callbacks, memory history)
  Lines header;  // the `with` statement that wraps it
};

// The profiler activities, CUDA only when the machine running the script has it.
Lines ActivitiesArgument() {
  return {{1, "activities=[torch.profiler.ProfilerActivity.CPU]", ""},
          {1, "+ ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),", ""}};
}

Rendered RenderProfiler(const Options& o, std::string_view prof) {
  const std::string dir = PythonStringLiteral(o.trace_dir);
  const std::string schedule = fmt::format(
      "schedule=torch.profiler.schedule(skip_first={}, wait={}, warmup={}, active={}, repeat={}),", o.skip_first,
      o.wait, o.warmup, o.active, o.repeat);
  const std::string save = fmt::format("torch.profiler.tensorboard_trace_handler({})({})", dir, prof);
  Rendered r;
  std::string handler = "tl_on_trace_ready";
  Lines kwargs;
  switch (o.base) {
    case Template::kA:
      r.pre = {{0, fmt::format("def tl_on_trace_ready({}):", prof), ""},
               {1, "sort_by = \"cuda_time_total\" if torch.cuda.is_available() else \"cpu_time_total\"", ""},
               {1, fmt::format("print({}.key_averages().table(sort_by=sort_by, row_limit=20))", prof), ""},
               {1, save, ""}};
      kwargs = {{1, "record_shapes=True,", ""}, {1, "with_flops=True,", ""}};
      break;
    case Template::kB:
      r.pre = {
          {0, "if torch.cuda.is_available() and hasattr(torch.cuda.memory, \"_record_memory_history\"):", ""},
          {1, "torch.cuda.memory._record_memory_history()", ""},
          {0, fmt::format("def tl_on_trace_ready({}):", prof), ""},
          {1, "sort_by = \"self_cuda_memory_usage\" if torch.cuda.is_available() else \"self_cpu_memory_usage\"", ""},
          {1, fmt::format("print({}.key_averages().table(sort_by=sort_by, row_limit=20))", prof), ""},
          {1, save, ""},
          {1, "if torch.cuda.is_available() and hasattr(torch.cuda.memory, \"_dump_snapshot\"):", ""},
          {2,
           fmt::format("torch.cuda.memory._dump_snapshot(os.path.join({}, f\"memory_snapshot_step{{{}.step_num}}"
                       ".pickle\"))",
                       dir, prof),
           ""}};
      kwargs = {{1, "record_shapes=True,", ""}, {1, "profile_memory=True,", ""}};
      break;
    case Template::kD:
      r.pre = {{0, fmt::format("def tl_on_trace_ready({}):", prof), ""},
               {1, fmt::format("os.makedirs({}, exist_ok=True)", dir), ""},
               {1,
                fmt::format("{}.export_chrome_trace(os.path.join({}, f\"chrome_step{{{}.step_num}}.pt.trace.json\"))",
                            prof, dir, prof),
                ""}};
      break;
    case Template::kE:
      r.pre = {
          {0, fmt::format("def tl_on_trace_ready({}):", prof), ""},
          {1, "metric = \"self_cuda_time_total\" if torch.cuda.is_available() else \"self_cpu_time_total\"", ""},
          {1, fmt::format("print({}.key_averages(group_by_stack_n=5).table(sort_by=metric, row_limit=10))", prof), ""},
          {1, save, ""},
          {1,
           fmt::format("{}.export_stacks(os.path.join({}, f\"profiler_stacks_step{{{}.step_num}}.txt\"), "
                       "metric=metric)",
                       prof, dir, prof),
           ""}};
      // Without verbose, Kineto builds keep no stacks in the events the table and export_stacks read.
      kwargs = {{1, "with_stack=True,", ""},
                {1, "experimental_config=torch._C._profiler._ExperimentalConfig(verbose=True),", ""}};
      break;
    case Template::kC:
    case Template::kG:
    case Template::kNvtx:
      handler = fmt::format("torch.profiler.tensorboard_trace_handler({})", dir);
      kwargs = {{1, "record_shapes=True,", ""}, {1, "profile_memory=True,", ""}, {1, "with_stack=True,", ""}};
      break;
  }
  r.header.push_back({0, "with torch.profiler.profile(", ""});
  for (auto& line : ActivitiesArgument()) r.header.push_back(line);
  r.header.push_back({1, schedule, ""});
  r.header.push_back({1, fmt::format("on_trace_ready={},", handler), ""});
  for (auto& line : kwargs) r.header.push_back(line);
  r.header.push_back({0, fmt::format(") as {}:", prof), ""});
  return r;
}

// Contiguous runs of body statements with one phase, as (first statement, last statement, phase).
struct PhaseRun {
  ts::Node first, last;
  semantic::Phase phase;
};
// With `other`, the runs of statements of no phase too (the nvtx template gives every line of the step a
// range of its own phase, so that a finding on a logging line is measured on that line's events).
std::vector<PhaseRun> PhaseRuns(const Input& in, int loop, bool other) {
  std::vector<PhaseRun> runs;
  const std::vector<ts::Node> statements = in.model->BodyStatements(loop);
  for (size_t i = 0; i < statements.size(); ++i) {
    const semantic::Phase phase = in.model->PhaseOf(statements[i]);
    if (phase == semantic::Phase::kOther && !other) continue;
    size_t j = i;
    while (j + 1 < statements.size() && in.model->PhaseOf(statements[j + 1]) == phase) ++j;
    // A run that shares a line with a statement outside it (`a = f(); b = g()`) cannot be wrapped.
    const bool shares_before = i > 0 && in.LastLine(statements[i - 1]) == in.FirstLine(statements[i]);
    const bool shares_after = j + 1 < statements.size() &&
                              in.FirstLine(statements[j + 1]) == in.LastLine(statements[j]);
    if (!shares_before && !shares_after) runs.push_back({statements[i], statements[j], phase});
    i = j;
  }
  return runs;
}

std::vector<uint32_t> CommentLines(const Input& in, ts::Node body, std::string_view text) {
  std::vector<uint32_t> out;
  const uint32_t first = in.FirstLine(body), last = in.LastLine(body);
  for (uint32_t line = first; line <= last; ++line) {
    std::string_view content = in.text.substr(in.lines.Start(line), in.lines.ContentEnd(line) - in.lines.Start(line));
    content.remove_prefix(LeadingWhitespace(content).size());
    while (!content.empty() && (content.back() == ' ' || content.back() == '\t')) content.remove_suffix(1);
    if (content == text && !InsideString(in.strings, in.lines.Start(line))) out.push_back(line);
  }
  return out;
}

Result<Outcome> Plan(const Input& in, const Options& options) {
  Outcome outcome;
  auto picked = PickLoop(in, options, outcome.notes);
  if (!picked) return picked.error();
  const auto& loops = in.model->Loops();
  const semantic::Loop& loop = loops[*picked];
  const uint32_t loop_line = in.FirstLine(loop.node);
  outcome.loop_line = loop_line + 1;

  const std::vector<ts::Node> body = in.model->BodyStatements(*picked);
  if (body.empty() || !loop.body)
    return Error{fmt::format("{}: the loop has no body to instrument", in.Where(loop.node.StartByte()))};
  const uint32_t body_first = in.FirstLine(body.front());
  const uint32_t body_last = in.LastLine(body.back());
  if (body_first == loop_line) {
    return Error{
        fmt::format("{}: the loop's body is on the same line as its header; put it on lines of its own "
                    "to instrument it",
                    in.Where(loop.node.StartByte()))};
  }
  const std::string body_indent = in.Indent(body_first);

  const std::set<std::string, std::less<>> names = Identifiers(in);
  const std::string prof = names.contains("prof") ? "tl_prof" : "prof";
  const bool profiler = UsesProfiler(options.base);

  // The region the profiler wraps: the epoch loop around the step loop when there is one, so a single
  // profiler and schedule span all epochs.
  ts::Node region = loop.node;
  int epoch = -1;
  if (loop.epoch_loop >= 0 && loop.epoch_loop < static_cast<int>(loops.size())) {
    epoch = loop.epoch_loop;
    region = loops[epoch].node;
  }
  const uint32_t region_first = in.FirstLine(region);
  const uint32_t region_last = in.LastLine(region);
  const std::string region_indent = in.Indent(region_first);

  Layout layout(in.text, in.lines, in.style, in.strings);
  std::vector<std::string> modules = {"torch"};
  if (options.base == Template::kB || options.base == Template::kD || options.base == Template::kE) {
    modules.push_back("os");
  }
  if (options.base == Template::kNvtx) modules.push_back("contextlib");
  if (auto status = PlanImports(in, layout, modules, region_first); !status) return status.error();

  const int outer = layout.ContainerOf(region_first);
  const int64_t stop_at = options.skip_first + int64_t{options.wait + options.warmup + options.active} * options.repeat;
  Lines stop_check = {{0, fmt::format("if {}.step_num >= {}:", prof, stop_at), ""}, {1, "break", ""}};

  if (profiler) {
    Rendered rendered = RenderProfiler(options, prof);
    if (!rendered.pre.empty()) {
      if (auto s = layout.InsertBefore(outer, region_first, region_indent, std::move(rendered.pre)); !s)
        return s.error();
    }
    if (auto w = layout.Wrap(region_first, region_last, region_indent, std::move(rendered.header), {}); !w) {
      return w.error();
    }
    if (options.stop_after && epoch >= 0) {
      const std::vector<ts::Node> epoch_body = in.model->BodyStatements(epoch);
      if (!epoch_body.empty() && in.FirstLine(epoch_body.front()) != region_first) {
        const uint32_t first = in.FirstLine(epoch_body.front());
        if (auto s = layout.InsertBefore(layout.ContainerOf(first), first, in.Indent(first), stop_check); !s) {
          return s.error();
        }
      }
    }
    if (options.stop_after) {
      if (auto s = layout.InsertBefore(layout.ContainerOf(body_first), body_first, body_indent, stop_check); !s) {
        return s.error();
      }
    }
    // prof.step() ends every iteration. With a `continue` in the body, a try/finally is the one place
    // every path out of the iteration passes through; without one, the end of the body is.
    if (HasOwnContinue(loop.body)) {
      auto w = layout.Wrap(body_first, body_last, body_indent, {{0, "try:", ""}},
                           {{0, "finally:", ""}, {1, fmt::format("{}.step()", prof), ""}});
      if (!w) return w.error();
    } else {
      if (auto s = layout.InsertAfter(layout.ContainerOf(body_last), body_last, body_indent,
                                      {{0, fmt::format("{}.step()", prof), ""}});
          !s) {
        return s.error();
      }
    }
  } else {
    // nvtx: a range per step around the whole body, and one per phase inside it.
    if (auto s = layout.InsertBefore(outer, region_first, region_indent,
                                     {{0,
                                       "tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else "
                                       "contextlib.nullcontext",
                                       ""}});
        !s) {
      return s.error();
    }
    if (auto w = layout.Wrap(body_first, body_last, body_indent,
                             {{0, fmt::format("with tl_nvtx({}):", NvtxLabel(in, "train_step", 0)), ""}}, {});
        !w) {
      return w.error();
    }
  }

  if (options.base == Template::kG) {
    const std::vector<uint32_t> off = CommentLines(in, loop.body, "# torchlint: profile-off");
    const std::vector<uint32_t> on = CommentLines(in, loop.body, "# torchlint: profile-on");
    if (off.empty()) {
      return Error{
          fmt::format("{}: template G needs a region of the step loop marked with a `# torchlint: "
                      "profile-off` line and a `# torchlint: profile-on` line",
                      in.Where(loop.node.StartByte()))};
    }
    // Collection can only be toggled while the profiler records; in its skip, wait and warm-up steps
    // the call would raise.
    auto toggle = [&](bool enable) -> Lines {
      return {
          {0,
           fmt::format("if {}.current_action in (torch.profiler.ProfilerAction.RECORD, "
                       "torch.profiler.ProfilerAction.RECORD_AND_SAVE):",
                       prof),
           ""},
          {1, fmt::format("{0}.toggle_collection_dynamic({1}, {0}.activities)", prof, enable ? "True" : "False"), ""}};
    };
    // The toggle takes the indentation of the code after the marker comment (a comment's own
    // indentation means nothing to Python), or of the code before it at the end of the body.
    auto code_indent = [&](uint32_t marker) {
      auto is_code = [&](uint32_t line) {
        std::string_view content = in.text.substr(in.lines.Start(line),
                                                  in.lines.ContentEnd(line) - in.lines.Start(line));
        content.remove_prefix(LeadingWhitespace(content).size());
        return !content.empty() && content.front() != '#' && !InsideString(in.strings, in.lines.Start(line));
      };
      for (uint32_t line = marker + 1; line <= body_last; ++line) {
        if (is_code(line)) return in.Indent(line);
      }
      for (uint32_t line = marker; line-- > body_first;) {
        if (is_code(line)) return in.Indent(line);
      }
      return body_indent;  // NOLINT(performance-no-automatic-move): a captured reference, copied on purpose
    };
    for (uint32_t line : off) {
      if (auto s = layout.InsertAfter(layout.ContainerOf(line), line, code_indent(line), toggle(false)); !s) {
        return s.error();
      }
    }
    for (uint32_t line : on) {
      if (auto s = layout.InsertAfter(layout.ContainerOf(line), line, code_indent(line), toggle(true)); !s) {
        return s.error();
      }
    }
  }

  // The lines of the input each NVTX range holds: [0] is the step's (the whole loop), then one per run.
  std::vector<std::pair<uint32_t, uint32_t>> nvtx_spans = {{loop_line, body_last}};
  if (options.labels || options.base == Template::kNvtx) {
    const bool nvtx = options.base == Template::kNvtx;
    const std::vector<PhaseRun> runs = PhaseRuns(in, *picked, nvtx);
    const bool any_phase = std::any_of(runs.begin(), runs.end(),
                                       [](const PhaseRun& r) { return r.phase != semantic::Phase::kOther; });
    if (!any_phase)
      outcome.notes.push_back(
          nvtx ? "no data, forward, loss, backward or optimizer statements recognised in the step loop's body; its "
                 "statements are in `other` ranges"
               : "no data, forward, loss, backward or optimizer statements recognised in the step loop's body; no "
                 "labels added");
    for (const auto& run : runs) {
      const std::string opener =
          options.base == Template::kNvtx
              ? fmt::format("with tl_nvtx({}):",
                            NvtxLabel(in, run.phase == semantic::Phase::kOther ? "other" : PhaseLabel(run.phase),
                                      nvtx_spans.size()))
              : fmt::format("with torch.profiler.record_function({}):", PythonStringLiteral(PhaseLabel(run.phase)));
      if (nvtx) nvtx_spans.emplace_back(in.FirstLine(run.first), in.LastLine(run.last));
      const uint32_t first = in.FirstLine(run.first);
      if (auto w = layout.Wrap(first, in.LastLine(run.last), in.Indent(first), {{0, opener, ""}}, {}); !w) {
        return w.error();
      }
    }
  }

  auto applied = ApplyEdits(in.text, layout.Render());
  if (!applied)
    return Error{
        fmt::format("{}: internal error while applying the edits: {}", in.file.path(), applied.error().message)};
  outcome.text = std::move(*applied);
  if (options.base == Template::kNvtx) {
    if (auto s = FillNvtxLines(outcome.text, nvtx_spans); !s) {
      return Error{fmt::format("{}: internal error: {}", in.file.path(), s.error().message)};
    }
  }

  // Notes for the user: where to look afterwards.
  const uint32_t first_ready = options.skip_first + options.wait + options.warmup + options.active;
  const std::string where = fmt::format("{} (relative to the folder the script is run from)", options.trace_dir);
  switch (options.base) {
    case Template::kD:
      outcome.notes.push_back(
          fmt::format("the trace will be written to {}: chrome_step<N>.pt.trace.json after step {}, "
                      "then after every {} more steps ({} window{})",
                      where, first_ready, options.wait + options.warmup + options.active,
                      options.repeat == 0 ? "until the loop ends" : std::to_string(options.repeat),
                      options.repeat == 1 ? "" : "s"));
      break;
    case Template::kNvtx:
      outcome.notes.push_back("the NVTX ranges are recorded by Nsight Systems; run:");
      outcome.notes.push_back(fmt::format("nsys profile --trace=cuda,nvtx,osrt,cudnn,cublas -o {}/{} python {}",
                                          options.trace_dir, std::filesystem::path(in.file.path()).stem().string(),
                                          in.file.path()));
      break;
    default:
      outcome.notes.push_back(fmt::format(
          "the trace will be written to {}: <host>_<pid>.<time>.pt.trace.json after step "
          "{} ({} window{} of {} active steps)",
          where, first_ready, options.repeat == 0 ? std::string("repeating") : std::to_string(options.repeat),
          options.repeat == 1 ? "" : "s", options.active));
      outcome.notes.push_back(fmt::format("read it with: torchlint trace {}", options.trace_dir));
      break;
  }
  return outcome;
}

Result<Input> Load(const SourceFile& file) {
  auto tree = ParsePython(file.text());
  if (!tree) return Error{fmt::format("{}: {}", file.path(), tree.error().message)};
  Input in{file, file.text(), LineTable(file.text()), std::move(*tree), nullptr, {}, {}};
  if (ts::Node error = ts::FirstSyntaxError(in.tree.Root()); error) {
    return Error{fmt::format("{}: syntax error; fix it before instrumenting", in.Where(error.StartByte()))};
  }
  in.model = semantic::Model::Build(file, in.tree);
  in.style = DetectStyle(in.text, in.lines, in.tree.Root());
  in.strings = StringRanges(in.tree.Root());
  return in;
}

Result<std::string> Restore(std::string_view text, std::string_view path) {
  auto edits = PlanRemoval(text);
  if (!edits) return Error{fmt::format("{}: {}", path, edits.error().message)};
  auto restored = ApplyEdits(text, std::move(*edits));
  if (!restored) return Error{fmt::format("{}: internal error while removing: {}", path, restored.error().message)};
  return restored;
}

}  // namespace

std::string_view ToString(Template t) {
  switch (t) {
    case Template::kA: return "A";
    case Template::kB: return "B";
    case Template::kC: return "C";
    case Template::kD: return "D";
    case Template::kE: return "E";
    case Template::kG: return "G";
    case Template::kNvtx: return "nvtx";
  }
  return "C";
}

Status ParseTemplate(std::string_view spec, Options& options) {
  std::optional<Template> base;
  bool labels = false;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string name(spec.substr(start, comma - start));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    std::optional<Template> t;
    if (name == "A") t = Template::kA;
    else if (name == "B") t = Template::kB;
    else if (name == "C") t = Template::kC;
    else if (name == "D") t = Template::kD;
    else if (name == "E") t = Template::kE;
    else if (name == "G") t = Template::kG;
    else if (name == "NVTX") t = Template::kNvtx;
    else if (name == "F") labels = true;
    else return Error{fmt::format("unknown template `{}`; choose A, B, C, D, E, F, G or nvtx (F combines: C,F)", name)};
    if (t) {
      if (base && *base != *t)
        return Error{fmt::format("templates {} and {} cannot be combined; only F combines with another",
                                 ToString(*base), ToString(*t))};
      base = t;
    }
    start = comma + 1;
  }
  if (labels && base == Template::kNvtx) return Error{"nvtx already labels the phases of the step; drop F"};
  options.base = base.value_or(Template::kC);
  options.labels = labels;
  return Ok{};
}

Status ValidateOptions(const Options& o) {
  if (o.skip_first < 0 || o.wait < 0 || o.warmup < 0 || o.repeat < 0) {
    return Error{"--skip-first, --wait, --warmup and --repeat must be 0 or more"};
  }
  if (o.active < 1) return Error{"--active must be 1 or more"};
  constexpr int kMaxSteps = 1'000'000;  // keeps skip_first + (wait + warmup + active) * repeat in range
  if (o.skip_first > kMaxSteps || o.wait > kMaxSteps || o.warmup > kMaxSteps || o.active > kMaxSteps ||
      o.repeat > kMaxSteps) {
    return Error{"schedule values must be at most 1000000"};
  }
  if (o.trace_dir.empty()) return Error{"--trace-dir must not be empty"};
  if (o.stop_after && o.repeat == 0) return Error{"--stop-after needs a schedule that ends: set --repeat above 0"};
  if (o.stop_after && o.base == Template::kNvtx) return Error{"--stop-after needs a profiler schedule; nvtx has none"};
  return Ok{};
}

Result<Outcome> Instrument(const SourceFile& file, const Options& options) {
  if (auto status = ValidateOptions(options); !status) return status.error();
  // A file instrumented before is planned from its original, so a second run is a no-op.
  std::optional<SourceFile> restored;
  if (HasMarkers(file.text())) {
    auto original = Restore(file.text(), file.path());
    if (!original) return original.error();
    restored.emplace(file.path(), std::move(*original));
  }
  const SourceFile& original = restored ? *restored : file;
  auto input = Load(original);
  if (!input) return input.error();
  auto outcome = Plan(*input, options);
  if (!outcome) return outcome.error();

  // Never hand back a script that would not parse, or one that --remove would not restore exactly.
  auto tree = ParsePython(outcome->text);
  if (!tree) return Error{fmt::format("{}: {}", file.path(), tree.error().message)};
  if (ts::Node error = ts::FirstSyntaxError(tree->Root()); error) {
    LineTable lines(outcome->text);
    const uint32_t line = lines.LineOf(error.StartByte());
    return Error{
        fmt::format("{}: the instrumented script would not parse (syntax error at its line {}, column {}); "
                    "nothing was written",
                    file.path(), line + 1, error.StartByte() - lines.Start(line) + 1)};
  }
  // The indentation check is ours, not CPython's: it only judges the result when the input passes it.
  const bool input_indentation_ok = FirstMisindentedStatement(input->text, input->lines, input->tree.Root()).IsNull();
  if (input_indentation_ok) {
    LineTable lines(outcome->text);
    if (ts::Node bad = FirstMisindentedStatement(outcome->text, lines, tree->Root()); bad) {
      const uint32_t line = lines.LineOf(bad.StartByte());
      return Error{
          fmt::format("{}: the instrumented script would not run (inconsistent indentation at its line "
                      "{}); nothing was written",
                      file.path(), line + 1)};
    }
  }
  auto back = Restore(outcome->text, file.path());
  if (!back || *back != original.text()) {
    return Error{
        fmt::format("{}: internal error: removing the instrumentation would not restore the file exactly; "
                    "nothing was written",
                    file.path())};
  }
  outcome->changed = outcome->text != file.text();
  outcome->edits = LineEdits(file.text(), outcome->text);
  return outcome;
}

Result<Outcome> Remove(const SourceFile& file) {
  Outcome outcome;
  if (!HasMarkers(file.text())) {
    outcome.text = std::string(file.text());
    outcome.notes.push_back("no instrumentation to remove");
    return outcome;
  }
  auto restored = Restore(file.text(), file.path());
  if (!restored) return restored.error();
  outcome.text = std::move(*restored);
  outcome.changed = outcome.text != file.text();
  outcome.edits = LineEdits(file.text(), outcome.text);
  return outcome;
}

}  // namespace tl::instrument
