#include "traceio/analyses/source_index.h"

#include <algorithm>
#include <charconv>

namespace tl::trace {

namespace {

std::string_view NextComponent(std::string_view& path) {
  while (!path.empty() && (path.back() == '/' || path.back() == '\\')) path.remove_suffix(1);
  size_t slash = path.find_last_of("/\\");
  std::string_view part = slash == std::string_view::npos ? path : path.substr(slash + 1);
  path.remove_suffix(part.size());
  return part;
}

int ToInt(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() ? v : 0;
}

// Keeps only spans that are not inside another span of the list (same track).
void KeepOutermost(const Trace& trace, std::vector<CodeSpan>& spans) {
  std::sort(spans.begin(), spans.end(), [](const CodeSpan& a, const CodeSpan& b) {
    return a.track != b.track ? a.track < b.track : a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  std::vector<CodeSpan> out;
  for (const auto& s : spans) {
    if (!out.empty() && out.back().track == s.track && s.begin >= out.back().begin && s.end <= out.back().end) continue;
    out.push_back(s);
  }
  (void)trace;
  spans.swap(out);
}

}  // namespace

int PathMatchScore(std::string_view a, std::string_view b) {
  int score = 0;
  while (true) {
    std::string_view pa = NextComponent(a), pb = NextComponent(b);
    if (pa.empty() || pb.empty() || pa != pb || pa == "." || pa == "..") break;
    ++score;
  }
  return score;
}

FrameName ParseFrameName(std::string_view name) {
  FrameName f;
  size_t close = name.find("): ");
  if (close == std::string_view::npos) return f;
  size_t open = name.rfind('(', close);
  if (open == std::string_view::npos || open == 0) return f;
  f.file = name.substr(0, open);
  f.line = ToInt(name.substr(open + 1, close - open - 1));
  f.function = name.substr(close + 3);
  f.ok = f.line > 0;
  return f;
}

FrameName ParseCallFrom(std::string_view text) {
  FrameName f;
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return f;
  f.file = text.substr(0, colon);
  f.line = ToInt(text.substr(colon + 1));
  f.ok = f.line > 0;
  return f;
}

RangeLabel ParseRangeLabel(std::string_view label) {
  RangeLabel r;
  const size_t space = label.rfind(' ');
  if (space == std::string_view::npos || space == 0) return r;
  std::string_view where = label.substr(space + 1);
  const size_t colon = where.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return r;
  std::string_view lines = where.substr(colon + 1);
  const size_t dash = lines.find('-');
  auto number = [](std::string_view digits, int& out) {
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc() && p == digits.data() + digits.size() && out > 0;
  };
  if (!number(lines.substr(0, dash), r.first)) return r;
  r.last = r.first;
  if (dash != std::string_view::npos && !number(lines.substr(dash + 1), r.last)) return r;
  if (r.last < r.first) return r;
  r.name = label.substr(0, space);
  while (!r.name.empty() && r.name.back() == ' ') r.name.remove_suffix(1);
  r.file = where.substr(0, colon);
  r.ok = !r.name.empty();
  return r;
}

std::string_view MatchMethodName(MatchMethod m) {
  switch (m) {
    case MatchMethod::kSourceRange: return "source range";
    case MatchMethod::kCallFrom: return "CallFrom";
    case MatchMethod::kCallStack: return "Call stack";
    case MatchMethod::kFunctionDef: return "function frame";
    case MatchMethod::kNone: return "none";
  }
  return "none";
}

SourceIndex SourceIndex::Build(const Trace& trace) {
  SourceIndex index;
  for (uint32_t i = 0; i < trace.size(); ++i) {
    const EventKind k = trace.kind(i);
    if (k == EventKind::kUserAnnotation) {
      if (const RangeLabel label = ParseRangeLabel(trace.name(i)); label.ok) index.ranges_.push_back({i, label});
    }
    if (k == EventKind::kPythonFunction) {
      FrameName n = ParseFrameName(trace.name(i));
      Frame f{i, n.file, n.line, n.function, {}, 0};
      if (const PythonFrame* py = trace.python(i); py != nullptr && py->call_from != 0) {
        FrameName c = ParseCallFrom(trace.strings().Get(py->call_from));
        if (c.ok) {
          f.call_file = c.file;
          f.call_line = c.line;
          index.has_call_from_ = true;
        }
      }
      index.frames_.push_back(f);
    } else if (k == EventKind::kCpuOp || k == EventKind::kUserAnnotation) {
      const OpInfo* op = trace.op(i);
      if (op == nullptr || op->call_stack == 0) continue;
      index.op_stacks_.push_back({i, op->call_stack});
      auto [it, inserted] = index.parsed_stacks_.try_emplace(op->call_stack);
      if (inserted) {
        std::string_view text = trace.strings().Get(op->call_stack);
        while (!text.empty()) {
          size_t semi = text.find(';');
          std::string_view item = text.substr(0, semi);
          FrameName fn = ParseFrameName(item);
          if (fn.ok) it->second.push_back(fn);
          if (semi == std::string_view::npos) break;
          text.remove_prefix(semi + 1);
        }
      }
      if (!it->second.empty()) index.has_call_stacks_ = true;
    }
  }
  return index;
}

std::vector<std::string_view> SourceIndex::RangeFiles() const {
  std::vector<std::string_view> files;
  for (const auto& r : ranges_) {
    if (std::find(files.begin(), files.end(), r.label.file) == files.end()) files.push_back(r.label.file);
  }
  return files;
}

SourceMatch SourceIndex::InRange(const Trace& trace, std::string_view file, int line) const {
  SourceMatch m;
  // The narrowest label that holds the line; among labels as narrow, the best path match.
  const Range* best = nullptr;
  int best_score = 0;
  for (const auto& r : ranges_) {
    if (line < r.label.first || line > r.label.last) continue;
    const int score = PathMatchScore(r.label.file, file);
    if (score == 0) continue;
    const int width = r.label.last - r.label.first;
    const int best_width = best ? best->label.last - best->label.first : 0;
    if (best == nullptr || width < best_width || (width == best_width && score > best_score)) {
      best = &r;
      best_score = score;
    }
  }
  if (best == nullptr) return m;
  const StringId name = trace.name_id(best->event);
  for (const auto& r : ranges_) {
    if (trace.name_id(r.event) != name) continue;
    m.spans.push_back({r.event, trace.track_index(r.event), trace.ts(r.event), trace.end(r.event)});
  }
  m.method = MatchMethod::kSourceRange;
  m.range = std::string(trace.name(best->event));
  KeepOutermost(trace, m.spans);
  return m;
}

SourceMatch SourceIndex::AtLine(const Trace& trace, std::string_view file, int line) const {
  SourceMatch m;
  for (const auto& f : frames_) {
    if (f.call_line != line || f.call_file.empty()) continue;
    if (PathMatchScore(f.call_file, file) == 0) continue;
    m.spans.push_back({f.event, trace.track_index(f.event), trace.ts(f.event), trace.end(f.event)});
  }
  if (!m.spans.empty()) {
    m.method = MatchMethod::kCallFrom;
    KeepOutermost(trace, m.spans);
    return m;
  }
  for (const auto& op : op_stacks_) {
    auto it = parsed_stacks_.find(op.stack);
    if (it == parsed_stacks_.end()) continue;
    bool hit = std::any_of(it->second.begin(), it->second.end(),
                           [&](const FrameName& fn) { return fn.line == line && PathMatchScore(fn.file, file) > 0; });
    if (hit) m.spans.push_back({op.event, trace.track_index(op.event), trace.ts(op.event), trace.end(op.event)});
  }
  if (!m.spans.empty()) {
    m.method = MatchMethod::kCallStack;
    KeepOutermost(trace, m.spans);
  }
  return m;
}

SourceMatch SourceIndex::Function(const Trace& trace, std::string_view file, std::string_view function,
                                  int def_line) const {
  SourceMatch m;
  for (const auto& f : frames_) {
    if (f.function != function || (def_line > 0 && f.def_line != def_line)) continue;
    if (PathMatchScore(f.file, file) == 0) continue;
    m.spans.push_back({f.event, trace.track_index(f.event), trace.ts(f.event), trace.end(f.event)});
  }
  if (!m.spans.empty()) {
    m.method = MatchMethod::kFunctionDef;
    KeepOutermost(trace, m.spans);
  }
  return m;
}

}  // namespace tl::trace
