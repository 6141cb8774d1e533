#include "linter/instrument/style.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

namespace tl::instrument {

LineTable::LineTable(std::string_view text) : text_size_(static_cast<uint32_t>(text.size())) {
  uint32_t start = 0;
  for (uint32_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    starts_.push_back(start);
    content_ends_.push_back(i);
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < text.size()) {
    starts_.push_back(start);
    content_ends_.push_back(static_cast<uint32_t>(text.size()));
  }
}

uint32_t LineTable::LineOf(uint32_t offset) const {
  if (starts_.empty()) return 0;
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<uint32_t>(std::distance(starts_.begin(), it)) - 1;
}

std::string_view LeadingWhitespace(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return line.substr(0, i);
}

bool IsBlank(std::string_view line) { return line.find_first_not_of(" \t\f\v") == std::string_view::npos; }

Result<ts::Tree> ParsePython(std::string_view text) {
  ts::Parser parser;
  return parser.Parse(text);
}

ts::Node FirstMisindentedStatement(std::string_view text, const LineTable& lines, ts::Node root) {
  // The indentation of a node that begins its line, or nullopt when code precedes it on the line.
  auto indentation = [&](ts::Node node) -> std::optional<std::string_view> {
    const uint32_t line = lines.LineOf(node.StartByte());
    std::string_view before = text.substr(lines.Start(line), node.StartByte() - lines.Start(line));
    if (before.starts_with("\xEF\xBB\xBF")) before.remove_prefix(3);
    if (LeadingWhitespace(before).size() != before.size()) return std::nullopt;
    return before;
  };
  ts::Node found;
  ts::Walk(root, [&](ts::Node node) {
    if (found) return false;
    if (!node.Is("block") && !node.Is("module")) return true;
    std::optional<std::string_view> header;
    if (node.Is("block") && node.Parent()) header = indentation(node.Parent());
    std::optional<std::string_view> common;
    for (ts::Node child : node.NamedChildren()) {
      if (child.Is("comment")) continue;
      const auto own = indentation(child);
      if (!own) continue;
      if (!common) common = own;
      const bool deeper = !header || (own->size() > header->size() && own->starts_with(*header));
      if (*own != *common || !deeper) {
        found = child;
        return false;
      }
    }
    return true;
  });
  return found;
}

SourceStyle DetectStyle(std::string_view text, const LineTable& lines, ts::Node root) {
  SourceStyle style;
  size_t crlf = 0, lf = 0, cr = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') {
        ++crlf;
        ++i;
      } else {
        ++cr;
      }
    } else if (text[i] == '\n') {
      ++lf;
    }
  }
  if (crlf > lf && crlf >= cr) {
    style.eol = "\r\n";
  } else if (cr > lf && cr > crlf) {
    style.eol = "\r";
  }

  // The unit is the most common step from a compound statement's line to its block's first line. Blocks
  // on the header's own line (`if x: y`) say nothing about indentation.
  std::map<std::string, int> votes;
  std::vector<std::string> order;
  auto line_text = [&](uint32_t line) {
    return text.substr(lines.Start(line), lines.ContentEnd(line) - lines.Start(line));
  };
  ts::Walk(root, [&](ts::Node node) {
    if (!node.Is("block") || node.NamedChildCount() == 0) return true;
    ts::Node parent = node.Parent();
    if (parent.IsNull()) return true;
    const uint32_t header_line = lines.LineOf(parent.StartByte());
    const uint32_t body_line = lines.LineOf(node.NamedChild(0).StartByte());
    if (body_line == header_line) return true;
    std::string_view outer = LeadingWhitespace(line_text(header_line));
    std::string_view inner = LeadingWhitespace(line_text(body_line));
    if (inner.size() <= outer.size() || !inner.starts_with(outer)) return true;
    std::string step(inner.substr(outer.size()));
    if (step.find('\t') != std::string::npos) step = "\t";
    if (votes[step]++ == 0) order.push_back(step);
    return true;
  });
  int best = 0;
  for (const auto& step : order) {
    if (votes[step] > best) {
      best = votes[step];
      style.indent_unit = step;
    }
  }
  return style;
}

std::vector<TextRange> StringRanges(ts::Node root) {
  std::vector<TextRange> out;
  ts::Walk(root, [&](ts::Node node) {
    if (node.Is("string") || node.Is("concatenated_string")) {
      out.push_back(node.Range());
      return false;
    }
    return true;
  });
  std::sort(out.begin(), out.end(), [](TextRange a, TextRange b) { return a.begin < b.begin; });
  return out;
}

bool InsideString(const std::vector<TextRange>& ranges, uint32_t offset) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), offset,
                             [](uint32_t value, TextRange range) { return value < range.begin; });
  if (it == ranges.begin()) return false;
  --it;
  return it->begin < offset && offset < it->end;
}

std::string PythonStringLiteral(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace tl::instrument
