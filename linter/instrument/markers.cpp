#include "linter/instrument/markers.h"

#include <fmt/core.h>

#include "linter/instrument/style.h"

namespace tl::instrument {

std::string IndentSuffix(std::string_view unit) {
  if (unit == "\t") return "indent=tab";
  return fmt::format("indent={}", unit.size());
}

std::optional<MarkerLine> ParseMarkerLine(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  const size_t at = line.rfind(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  // The marker must start the line or follow code after whitespace, so `x = "# torchlint: instrument"`
  // style look-alikes inside code do not count.
  if (at > 0 && line[at - 1] != ' ' && line[at - 1] != '\t') return std::nullopt;
  std::string_view rest = line.substr(at + kMarker.size());
  MarkerLine marker;
  while (!rest.empty()) {
    if (rest.front() != ' ') return std::nullopt;
    rest.remove_prefix(1);
    const size_t space = rest.find(' ');
    std::string_view word = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space);
    if (word == kDedent && !marker.indent) {
      ++marker.dedents;
      continue;
    }
    if (!word.starts_with("indent=") || marker.indent || !rest.empty()) return std::nullopt;
    word.remove_prefix(7);
    if (word == "tab") {
      marker.indent = "\t";
      continue;
    }
    if (word.empty() || word.size() > 2 || word.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    const int width = std::stoi(std::string(word));
    if (width < 1 || width > 16) return std::nullopt;
    marker.indent = std::string(static_cast<size_t>(width), ' ');
  }
  return marker;
}

bool HasMarkers(std::string_view text) {
  LineTable lines(text);
  for (uint32_t i = 0; i < lines.size(); ++i) {
    if (ParseMarkerLine(text.substr(lines.Start(i), lines.ContentEnd(i) - lines.Start(i)))) return true;
  }
  return false;
}

Result<std::vector<Edit>> PlanRemoval(std::string_view text) {
  // The parse is only for string literals: lines starting inside one were never re-indented.
  auto tree = ParsePython(text);
  if (!tree.ok()) return tree.error();
  const std::vector<TextRange> strings = StringRanges(tree->Root());

  LineTable lines(text);
  std::vector<Edit> edits;
  std::vector<std::string> open;  // units of the open regions, outermost first
  std::string prefix;
  std::optional<uint32_t> last_kept;
  bool trailing_marker_without_eol = false;
  for (uint32_t i = 0; i < lines.size(); ++i) {
    const uint32_t start = lines.Start(i);
    std::string_view content = text.substr(start, lines.ContentEnd(i) - start);
    const bool in_string = InsideString(strings, start);
    std::optional<MarkerLine> marker;
    if (!in_string) marker = ParseMarkerLine(content);
    if (marker) {
      for (int k = 0; k < marker->dedents; ++k) {
        if (open.empty()) {
          return Error{
              fmt::format("line {}: a `{} dedent` marker closes no region; was the instrumented code "
                          "edited by hand?",
                          i + 1, kMarker)};
        }
        open.pop_back();
      }
      if (marker->indent) open.push_back(*marker->indent);
      prefix.clear();
      for (const auto& unit : open) prefix += unit;
      edits.push_back(Edit{{start, lines.End(i)}, ""});
      trailing_marker_without_eol = !lines.HasTerminator(i);
      continue;
    }
    last_kept = i;
    trailing_marker_without_eol = false;
    if (prefix.empty() || in_string || IsBlank(content)) continue;
    if (!content.starts_with(prefix)) {
      return Error{
          fmt::format("line {}: expected the indentation the instrumenter added; was the instrumented "
                      "code edited by hand? (remove the marked lines yourself)",
                      i + 1)};
    }
    edits.push_back(Edit{{start, start + static_cast<uint32_t>(prefix.size())}, ""});
  }
  if (!open.empty()) {
    return Error{
        fmt::format("a region opened by `{} {}` is never closed; was the instrumented code edited by "
                    "hand?",
                    kMarker, IndentSuffix(open.back()))};
  }
  // Insertions at the end of a file without a final line break put the break in front of each line.
  if (trailing_marker_without_eol && last_kept) {
    edits.push_back(Edit{{lines.ContentEnd(*last_kept), lines.End(*last_kept)}, ""});
  }
  return edits;
}

}  // namespace tl::instrument
