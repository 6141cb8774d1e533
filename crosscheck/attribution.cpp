#include "crosscheck/attribution.h"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include "crosscheck/messages.h"

namespace tl {
namespace {

constexpr size_t kMaxListed = 4096;  // distinct files or labels kept: enough to decide, bounded for hostile traces

void AddUnique(std::vector<std::string>& list, std::string_view value) {
  if (value.empty() || list.size() >= kMaxListed) return;
  if (std::find(list.begin(), list.end(), value) == list.end()) list.emplace_back(value);
}

// Library code says nothing about which script ran: frames of torch, of site-packages and of the
// interpreter's own modules are left out when the reason lists the files a trace names.
bool IsLibraryPath(std::string_view path) {
  return path.find("site-packages") != std::string_view::npos || path.find("dist-packages") != std::string_view::npos ||
         path.find("/lib/python") != std::string_view::npos || path.starts_with("torch/") ||
         path.find("/torch/") != std::string_view::npos || path.starts_with("<");
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Names a profiler gives its own annotations: not labels a script chose.
bool IsProfilerAnnotation(std::string_view name) {
  return name.starts_with("ProfilerStep#") || name.starts_with("enumerate(DataLoader)") ||
         name.starts_with("Optimizer.") || name.starts_with("## ") || name.starts_with("PyTorch Profiler");
}

// Traceio matches a path by any shared trailing components; when frames of two files with the same name
// (a/train.py and b/train.py) called from that line, keep those whose CallFrom path shares the longest
// suffix with the finding's path.
void KeepBestPathMatch(const trace::Trace& tr, std::string_view file, trace::SourceMatch& m) {
  auto score = [&](const trace::CodeSpan& span) {
    const trace::PythonFrame* py = tr.python(span.event);
    if (py == nullptr || py->call_from == 0) return 0;
    return trace::PathMatchScore(trace::ParseCallFrom(tr.strings().Get(py->call_from)).file, file);
  };
  int best = 0;
  for (const auto& span : m.spans) best = std::max(best, score(span));
  if (best == 0) return;
  std::erase_if(m.spans, [&](const trace::CodeSpan& span) { return score(span) < best; });
}

}  // namespace

MessageArg ListFiles(std::string name, const std::vector<std::string>& files) {
  std::vector<std::string_view> shown;
  for (const auto& f : files) {
    if (!IsLibraryPath(f) && shown.size() < 3) shown.push_back(f);
  }
  for (const auto& f : files) {
    if (shown.empty() && IsLibraryPath(f)) shown.push_back(f);
  }
  std::string en, zh;
  for (std::string_view f : shown) {
    en += fmt::format("{}`{}`", en.empty() ? "" : ", ", f);
    zh += fmt::format("{}`{}`", zh.empty() ? "" : "、", f);
  }
  const size_t others = files.size() - shown.size();
  if (others == 0) return {std::move(name), std::move(en), std::move(zh)};
  const Sentence list = CrossCheckSentence(
      "files-and-others", {{"files", std::move(en), std::move(zh)},
                           CountArg("others", static_cast<int64_t>(others), "other file", "other files", "个文件")});
  return SentenceArg(std::move(name), list);
}

std::string_view ToString(AttributionLevel level) {
  switch (level) {
    case AttributionLevel::kLine: return "line";
    case AttributionLevel::kFunction: return "function";
    case AttributionLevel::kRange: return "range";
    case AttributionLevel::kStep: return "step";
  }
  return "step";
}

TraceSignals ReadSignals(const trace::TraceEvidence& evidence) {
  TraceSignals out;
  const trace::Trace& tr = evidence.trace();
  // Names are interned into dense ids: each distinct (kind, name) and each distinct stack is looked at
  // once, with one flag test per event instead of a hash insert, whatever the trace's size.
  const size_t ids = tr.strings().size();
  std::vector<uint16_t> seen(ids, 0);  // a bit per EventKind
  std::vector<bool> seen_stacks(ids, false);
  auto first_stack = [&](trace::StringId id) {
    if (id >= ids || seen_stacks[id]) return false;
    seen_stacks[id] = true;
    return true;
  };
  for (uint32_t i = 0; i < tr.size(); ++i) {
    const trace::EventKind kind = tr.kind(i);
    if (kind == trace::EventKind::kPythonFunction) {
      out.python_frames = true;
      if (const trace::PythonFrame* py = tr.python(i);
          py != nullptr && py->call_from != 0 && first_stack(py->call_from)) {
        AddUnique(out.frame_files, trace::ParseCallFrom(tr.strings().Get(py->call_from)).file);
      }
    }
    if (kind == trace::EventKind::kCpuOp) {
      if (const trace::OpInfo* op = tr.op(i); op != nullptr && op->call_stack != 0 && first_stack(op->call_stack)) {
        std::string_view stack = tr.strings().Get(op->call_stack);
        while (!stack.empty()) {
          const size_t semi = stack.find(';');
          const trace::FrameName frame = trace::ParseFrameName(stack.substr(0, semi));
          if (frame.ok) {
            out.python_frames = true;
            AddUnique(out.frame_files, frame.file);
          }
          stack.remove_prefix(semi == std::string_view::npos ? stack.size() : semi + 1);
        }
      }
    }
    const trace::StringId name_id = tr.name_id(i);
    const auto kind_bit = static_cast<uint16_t>(1u << static_cast<unsigned>(kind));
    if (name_id >= ids || (seen[name_id] & kind_bit) != 0) continue;
    seen[name_id] |= kind_bit;
    const std::string_view name = tr.name(i);
    if (kind == trace::EventKind::kPythonFunction) {
      const trace::FrameName frame = trace::ParseFrameName(name);
      if (frame.ok) AddUnique(out.frame_files, frame.file);
      continue;
    }
    if (name.starts_with("Optimizer.step#")) {
      out.optimizer_step = true;
      std::string_view cls = name.substr(15);
      cls = cls.substr(0, cls.find('.'));
      AddUnique(out.optimizer_classes, cls);
    } else if (name.starts_with("Optimizer.zero_grad#")) {
      out.zero_grad = true;
    } else if (name.starts_with("enumerate(DataLoader)#")) {
      out.dataloader = true;
    } else if (name == "aten::item" || name == "aten::_local_scalar_dense") {
      out.item = true;
    } else if (name.find("Backward") != std::string_view::npos || name.starts_with("autograd::engine")) {
      out.backward = true;
    }
    if (kind == trace::EventKind::kUserAnnotation && !IsProfilerAnnotation(name)) AddUnique(out.annotations, name);
  }
  for (std::string_view file : evidence.RangeFiles()) AddUnique(out.range_files, file);
  return out;
}

Provenance DecideProvenance(const TraceSignals& signals, std::string_view path, const FileFacts& facts) {
  Provenance out;
  if (signals.python_frames) {
    for (const auto& f : signals.frame_files) {
      if (trace::PathMatchScore(f, path) > 0) {
        out.kind = ProvenanceKind::kFrames;
        out.reason = CrossCheckSentence("frames-name", {{"file", f, {}}});
        return out;
      }
    }
    out.kind = ProvenanceKind::kOtherScript;
    const MessageArg path_arg{"path", std::string(path), {}};
    out.reason = signals.frame_files.empty()
                     ? CrossCheckSentence("other-script-no-files", {path_arg})
                     : CrossCheckSentence("other-script", {path_arg, ListFiles("files", signals.frame_files)});
    return out;
  }
  // No frames, but ranges named after the lines they hold: they name the script they were written into.
  if (!signals.range_files.empty()) {
    for (const auto& f : signals.range_files) {
      if (trace::PathMatchScore(f, path) > 0) {
        out.kind = ProvenanceKind::kRanges;
        out.reason = CrossCheckSentence("ranges-name", {{"file", f, {}}});
        return out;
      }
    }
    out.kind = ProvenanceKind::kOtherScript;
    out.reason = CrossCheckSentence("other-script-ranges",
                                    {{"path", std::string(path), {}}, ListFiles("files", signals.range_files)});
    return out;
  }
  // No frames: compare what the script's step loop does with what the trace's ops show.
  int expected = 0, matched = 0;
  std::string seen_en, seen_zh;  // what matched, listed in each language
  auto expect = [&](bool script, bool trace, std::string_view en, std::string_view zh) {
    if (!script) return;
    ++expected;
    if (trace) {
      ++matched;
      seen_en += fmt::format("{}{}", seen_en.empty() ? "" : ", ", en);
      seen_zh += fmt::format("{}{}", seen_zh.empty() ? "" : "、", zh);
    }
  };
  const Sentence loader_loop = CrossCheckSentence("signal-dataloader");
  expect(facts.calls_optimizer_step, signals.optimizer_step, "optimizer.step()", "optimizer.step()");
  expect(facts.calls_zero_grad, signals.zero_grad, "zero_grad()", "zero_grad()");
  expect(facts.loops_over_loader, signals.dataloader, loader_loop.en, loader_loop.In(Lang::kChinese));
  expect(facts.calls_backward, signals.backward, "backward()", "backward()");
  expect(facts.calls_item, signals.item, ".item()", ".item()");
  for (const auto& label : facts.record_function_labels) {
    const std::string call = fmt::format("record_function(\"{}\")", label);
    expect(true, Contains(signals.annotations, label), call, call);
  }
  std::optional<Sentence> contradiction;
  if (!facts.optimizer_classes.empty() && !signals.optimizer_classes.empty()) {
    bool any = false;
    for (const auto& cls : facts.optimizer_classes) any = any || Contains(signals.optimizer_classes, cls);
    if (!any) {
      contradiction = CrossCheckSentence("contradiction-optimizer", {{"trace", signals.optimizer_classes.front(), {}},
                                                                     {"script", facts.optimizer_classes.front(), {}}});
    }
  }
  if (!contradiction && !facts.record_function_labels.empty() && !signals.annotations.empty()) {
    bool any = false;
    for (const auto& label : facts.record_function_labels) any = any || Contains(signals.annotations, label);
    if (!any)
      contradiction = CrossCheckSentence("contradiction-annotations", {{"label", signals.annotations.front(), {}}});
  }
  const MessageArg path_arg{"path", std::string(path), {}};
  if (contradiction) {
    out.kind = ProvenanceKind::kUntied;
    out.reason = CrossCheckSentence("untied-contradiction", {path_arg, SentenceArg("contradiction", *contradiction)});
    return out;
  }
  if (expected == 0 || matched == 0 || matched * 2 < expected) {
    out.kind = ProvenanceKind::kUntied;
    out.reason = expected == 0 ? CrossCheckSentence("untied-nothing", {path_arg})
                               : CrossCheckSentence("untied-few", {NumberArg("matched", matched),
                                                                   NumberArg("expected", expected), path_arg});
    return out;
  }
  out.kind = ProvenanceKind::kOpNames;
  out.reason = CrossCheckSentence(
      "tied-by-ops", {{"list", seen_en, seen_zh}, NumberArg("matched", matched), NumberArg("expected", expected)});
  return out;
}

namespace {

// A phase's source range (instrument's nvtx template) that holds the line. The step's own range holds
// every line of the loop and so says no more than the step's op names, which stay the judge there.
bool AttributeToRange(const trace::TraceEvidence& te, const Provenance& provenance, std::string_view file, int line,
                      Attribution& at) {
  if (!te.capabilities().source_ranges || !provenance.usable()) return false;
  trace::SourceMatch r = te.LocateRange(file, line);
  if (!r.found()) return false;
  // Every span of the match has the same name: the first tells whether it is the steps' own range.
  const trace::Steps& steps = te.analysis().steps;
  const uint32_t first = r.spans.front().event;
  if (std::any_of(steps.all.begin(), steps.all.end(), [&](const trace::Step& st) { return st.event == first; })) {
    return false;
  }
  at.level = AttributionLevel::kRange;
  at.ran_in_steps = te.RanInSteps(r);
  at.not_observed = !at.ran_in_steps;
  at.how = CrossCheckSentence("how-range", {{"range", r.range, {}}});
  at.where = std::move(r);
  return true;
}

}  // namespace

Attribution Attribute(const trace::TraceEvidence& te, const Provenance& provenance, std::string_view file, int line,
                      const FindingScope& fn, const std::vector<std::string>& file_functions) {
  Attribution at;
  if (!te.capabilities().stacks() || provenance.kind == ProvenanceKind::kOpNames) {
    if (AttributeToRange(te, provenance, file, line, at)) return at;
    at.how = CrossCheckSentence("how-op-names", {SentenceArg("reason", provenance.reason)});
    return at;
  }
  trace::SourceMatch m = te.Locate(file, line);
  if (m.method == trace::MatchMethod::kCallFrom) KeepBestPathMatch(te.trace(), file, m);
  if (m.found()) {
    at.level = AttributionLevel::kLine;
    at.ran_in_steps = te.RanInSteps(m);
    at.not_observed = !at.ran_in_steps;
    at.how = CrossCheckSentence("how-match", {{"method", std::string(trace::MatchMethodName(m.method)), {}},
                                              {"file", std::string(file.substr(file.find_last_of("/\\") + 1)), {}},
                                              NumberArg("line", line)});
    at.where = std::move(m);
    return at;
  }
  if (!fn.function.empty()) {
    // Frames already on the stack when tracing started carry the executing line, not the def line, so a
    // name-only match is the fallback.
    trace::SourceMatch f = te.LocateFunction(file, fn.function, fn.function_def_line);
    if (!f.found()) f = te.LocateFunction(file, fn.function, 0);
    if (f.found()) {
      at.level = AttributionLevel::kFunction;
      at.ran_in_steps = te.RanInSteps(f);
      at.not_observed = !at.ran_in_steps;
      at.how = CrossCheckSentence("how-frames", {{"function", fn.function, {}}});
      at.where = std::move(f);
      return at;
    }
    // Python frames of this file are in the trace, but none of this function: it did not run while the
    // profiler traced.
    for (const std::string& other : file_functions) {
      if (other == fn.function) continue;
      if (te.LocateFunction(file, other, 0).found()) {
        at.not_observed = true;
        at.how = CrossCheckSentence("how-frames-others", {{"function", fn.function, {}}});
        return at;
      }
    }
  }
  // Module-level code, or a trace whose frames carry no call sites: the step's op names decide, in a
  // trace whose provenance is established.
  if (AttributeToRange(te, provenance, file, line, at)) return at;
  at.how = CrossCheckSentence("how-op-names-line", {NumberArg("line", line), SentenceArg("reason", provenance.reason)});
  return at;
}

}  // namespace tl
