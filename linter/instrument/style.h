// How a script writes itself, so that inserted code looks as if it belonged there and can be taken out
// again byte for byte: its lines with their terminators (\n, \r\n or a lone \r, as Python accepts), the
// line ending it mostly uses, its indentation unit (a tab or N spaces, measured on the blocks tree-sitter
// finds rather than guessed from the first indented line), and which lines begin inside a string
// literal. Those lines are never re-indented: their leading whitespace is part of the string's value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "linter/core/result.h"
#include "linter/core/text_range.h"
#include "linter/ts/ts.h"

namespace tl::instrument {

// The lines of a text. A final empty "line" after the last terminator is not a line.
class LineTable {
 public:
  explicit LineTable(std::string_view text);

  uint32_t size() const { return static_cast<uint32_t>(starts_.size()); }
  uint32_t Start(uint32_t line) const { return line < size() ? starts_[line] : text_size_; }
  // Where the line's content ends (its terminator begins).
  uint32_t ContentEnd(uint32_t line) const { return content_ends_[line]; }
  // Where the next line starts: after the terminator, or the end of the text.
  uint32_t End(uint32_t line) const { return Start(line + 1); }
  bool HasTerminator(uint32_t line) const { return ContentEnd(line) < End(line); }
  // The 0-based line holding `offset` (the last line for the end of the text).
  uint32_t LineOf(uint32_t offset) const;

 private:
  std::vector<uint32_t> starts_;
  std::vector<uint32_t> content_ends_;
  uint32_t text_size_ = 0;
};

struct SourceStyle {
  std::string eol = "\n";
  std::string indent_unit = "    ";
};

// Parses `text` as Python through ts::Parser (a BOM is skipped; node offsets are offsets into `text`).
Result<ts::Tree> ParsePython(std::string_view text);

// tree-sitter-python accepts some indentation CPython rejects (an unexpected indent after a comment
// line parses cleanly), so the result is also checked the way the tokenizer would: the statements of a
// block that begin their lines all begin at one indentation, deeper than their header's. Returns the
// first offending statement, or a null node.
ts::Node FirstMisindentedStatement(std::string_view text, const LineTable& lines, ts::Node root);

SourceStyle DetectStyle(std::string_view text, const LineTable& lines, ts::Node root);

// The leading spaces and tabs of `line`.
std::string_view LeadingWhitespace(std::string_view line);
bool IsBlank(std::string_view line);

// Byte ranges (in text offsets) of every string literal, sorted; nested strings are covered by their
// outer one.
std::vector<TextRange> StringRanges(ts::Node root);
// Whether `offset` lies strictly inside one of `ranges` (a line starting there continues a string).
bool InsideString(const std::vector<TextRange>& ranges, uint32_t offset);

// `text` as a Python string literal in double quotes.
std::string PythonStringLiteral(std::string_view text);

}  // namespace tl::instrument
