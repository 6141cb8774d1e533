#include "linter/core/fix.h"

#include <algorithm>
#include <fmt/core.h>

namespace tl {

std::string_view ToString(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "info";
  }
  return "warning";
}

std::string_view ToString(Applicability applicability) {
  switch (applicability) {
    case Applicability::kSafe: return "safe";
    case Applicability::kUnsafe: return "unsafe";
    case Applicability::kDisplayOnly: return "display-only";
  }
  return "safe";
}

std::string_view ToString(Verdict verdict) {
  switch (verdict) {
    case Verdict::kConfirmed: return "confirmed";
    case Verdict::kNegligible: return "negligible";
    case Verdict::kRefuted: return "refuted";
    case Verdict::kNotObserved: return "not-observed";
    case Verdict::kUnverifiable: return "unverifiable";
  }
  return "unverifiable";
}

std::string_view ToString(Priority priority) {
  switch (priority) {
    case Priority::kLow: return "low";
    case Priority::kMedium: return "medium";
    case Priority::kHigh: return "high";
  }
  return "low";
}

std::string LocalizedSummary(const Evidence& evidence, Lang lang) {
  return LocalizedText(evidence.summary_ref, evidence.summary, lang);
}

std::string LocalizedSharedWith(const Evidence& evidence, Lang lang) {
  return LocalizedText(evidence.shared_with_ref, evidence.shared_with, lang);
}

std::string LocalizedTitle(const TraceFinding& finding, Lang lang) {
  return LocalizedText(finding.title_ref, finding.title, lang);
}

std::string LocalizedMessage(const TraceFinding& finding, Lang lang) {
  return LocalizedText(finding.message_ref, finding.message, lang);
}

std::string LocalizedRecommendation(const TraceFinding& finding, Lang lang) {
  return LocalizedText(finding.recommendation_ref, finding.recommendation, lang);
}

namespace {

bool Conflicts(const Edit& a, const Edit& b) {
  // Two insertions at one offset do not conflict; an insertion strictly inside a replaced range does.
  if (a.range.empty() && b.range.empty()) return false;
  if (a.range.empty()) return b.range.begin < a.range.begin && a.range.begin < b.range.end;
  if (b.range.empty()) return a.range.begin < b.range.begin && b.range.begin < a.range.end;
  return a.range.Overlaps(b.range);
}

}  // namespace

Result<std::string> ApplyEdits(std::string_view text, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    if (a.range.begin != b.range.begin) return a.range.begin < b.range.begin;
    return a.range.end < b.range.end;
  });
  for (size_t i = 0; i < edits.size(); ++i) {
    if (edits[i].range.begin > edits[i].range.end || edits[i].range.end > text.size()) {
      return Error{fmt::format("edit {}..{} is outside the text ({} bytes)", edits[i].range.begin, edits[i].range.end,
                               text.size())};
    }
    if (i > 0 && (Conflicts(edits[i - 1], edits[i]) || edits[i - 1].range.end > edits[i].range.begin)) {
      return Error{fmt::format("edits {}..{} and {}..{} overlap", edits[i - 1].range.begin, edits[i - 1].range.end,
                               edits[i].range.begin, edits[i].range.end)};
    }
  }
  std::string out;
  size_t grow = 0;
  for (const auto& e : edits) grow += e.replacement.size();
  out.reserve(text.size() + grow);
  uint32_t cursor = 0;
  for (const auto& e : edits) {
    out.append(text.substr(cursor, e.range.begin - cursor));
    out.append(e.replacement);
    cursor = e.range.end;
  }
  out.append(text.substr(cursor));
  return out;
}

FixOutcome ApplyFixes(std::string_view text, const std::vector<const Fix*>& fixes, Applicability max_level) {
  FixOutcome outcome;
  std::vector<Edit> taken;
  for (size_t index = 0; index < fixes.size(); ++index) {
    const Fix* fix = fixes[index];
    if (fix == nullptr || !IsApplicable(fix->applicability, max_level) || fix->edits.empty()) {
      continue;
    }
    bool clash = false;
    for (const auto& edit : fix->edits) {
      if (edit.range.begin > edit.range.end || edit.range.end > text.size()) clash = true;
      for (const auto& other : taken) {
        if (Conflicts(edit, other) || (edit.range.empty() != other.range.empty() && edit.range == other.range)) {
          clash = true;
        }
      }
      for (const auto& sibling : fix->edits) {
        if (&sibling != &edit && Conflicts(edit, sibling)) clash = true;
      }
    }
    if (clash) {
      ++outcome.skipped;
      continue;
    }
    taken.insert(taken.end(), fix->edits.begin(), fix->edits.end());
    outcome.taken.push_back(index);
    ++outcome.applied;
  }
  auto applied = ApplyEdits(text, taken);
  if (!applied.ok()) {
    // Cannot happen after the checks above; keep the text unchanged rather than corrupt it.
    outcome.text = std::string(text);
    outcome.skipped += outcome.applied;
    outcome.applied = 0;
    outcome.taken.clear();
    return outcome;
  }
  outcome.text = std::move(applied).value();
  return outcome;
}

namespace {

std::vector<std::string_view> SplitLinesKeepEnds(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      lines.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

struct DiffOp {
  char kind;  // ' ', '-', '+'
  std::string_view line;
};

// Myers-free simple diff: the edits torchlint makes are small and local, so trimming the common
// prefix and suffix and diffing the middle with an LCS table is fast enough; the middle is capped so
// a pathological input degrades to "replace the whole middle" instead of quadratic memory.
std::vector<DiffOp> DiffLines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  std::vector<DiffOp> ops;
  for (size_t i = 0; i < prefix; ++i) ops.push_back({' ', a[i]});
  const size_t n = a.size() - prefix - suffix;
  const size_t m = b.size() - prefix - suffix;
  constexpr size_t kMaxCells = 4'000'000;
  if (n * m <= kMaxCells) {
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;) {
      for (size_t j = m; j-- > 0;) {
        at(i, j) = a[prefix + i] == b[prefix + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
      }
    }
    size_t i = 0;
    size_t j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
        ops.push_back({' ', a[prefix + i]});
        ++i;
        ++j;
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        ops.push_back({'-', a[prefix + i]});  // deletions before insertions, as diff -u prints them
        ++i;
      } else {
        ops.push_back({'+', b[prefix + j]});
        ++j;
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) ops.push_back({'-', a[prefix + i]});
    for (size_t j = 0; j < m; ++j) ops.push_back({'+', b[prefix + j]});
  }
  for (size_t i = a.size() - suffix; i < a.size(); ++i) ops.push_back({' ', a[i]});
  return ops;
}

}  // namespace

std::vector<Edit> LineEdits(std::string_view before, std::string_view after) {
  std::vector<Edit> edits;
  if (before == after) return edits;
  const auto ops = DiffLines(SplitLinesKeepEnds(before), SplitLinesKeepEnds(after));
  uint32_t offset = 0;  // in `before`
  bool open = false;
  Edit current;
  for (const DiffOp& op : ops) {
    if (op.kind == ' ') {
      if (open) edits.push_back(current);
      open = false;
      offset += static_cast<uint32_t>(op.line.size());
      continue;
    }
    if (!open) {
      current = Edit{{offset, offset}, {}};
      open = true;
    }
    if (op.kind == '-') {
      offset += static_cast<uint32_t>(op.line.size());
      current.range.end = offset;
    } else {
      current.replacement += op.line;
    }
  }
  if (open) edits.push_back(std::move(current));
  return edits;
}

std::string UnifiedDiff(std::string_view path, std::string_view before, std::string_view after) {
  if (before == after) return {};
  const auto a = SplitLinesKeepEnds(before);
  const auto b = SplitLinesKeepEnds(after);
  const auto ops = DiffLines(a, b);
  constexpr size_t kContext = 3;

  std::string out = fmt::format("--- a/{}\n+++ b/{}\n", path, path);
  size_t k = 0;
  while (k < ops.size()) {
    // Find the next change.
    size_t first = k;
    while (first < ops.size() && ops[first].kind == ' ') ++first;
    if (first == ops.size()) break;
    size_t start = first > kContext ? first - kContext : 0;
    if (start < k) start = k;
    // Extend the hunk while changes are within 2*context of each other.
    size_t end = first;
    size_t last_change = first;
    while (end < ops.size()) {
      if (ops[end].kind != ' ') last_change = end;
      if (end - last_change > 2 * kContext) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + kContext + 1);
    // Line numbers of the hunk start in each file.
    size_t a_line = 1;
    size_t b_line = 1;
    for (size_t i = 0; i < start; ++i) {
      if (ops[i].kind != '+') ++a_line;
      if (ops[i].kind != '-') ++b_line;
    }
    size_t a_count = 0;
    size_t b_count = 0;
    for (size_t i = start; i < end; ++i) {
      if (ops[i].kind != '+') ++a_count;
      if (ops[i].kind != '-') ++b_count;
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_count == 0 ? a_line - 1 : a_line, a_count,
                       b_count == 0 ? b_line - 1 : b_line, b_count);
    for (size_t i = start; i < end; ++i) {
      out.push_back(ops[i].kind);
      out.append(ops[i].line);
      if (ops[i].line.empty() || ops[i].line.back() != '\n') out.append("\n\\ No newline at end of file\n");
    }
    k = end;
  }
  return out;
}

std::optional<LineIndent> IndentOf(std::string_view text, uint32_t offset) {
  if (offset > text.size()) return std::nullopt;
  uint32_t start = offset;
  while (start > 0 && text[start - 1] != '\n') --start;
  LineIndent out{start, std::string(text.substr(start, offset - start))};
  if (out.indent.find_first_not_of(" \t") != std::string::npos) return std::nullopt;
  return out;
}

}  // namespace tl
