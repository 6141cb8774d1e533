// One Python source file as torchlint sees it: its display path, its exact bytes (never re-encoded,
// so fixes write back byte for byte), and the LineIndex for turning offsets into lines and columns.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "linter/core/line_index.h"

namespace tl {

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  std::string_view text() const { return *text_; }
  const LineIndex& lines() const { return lines_; }

  // A UTF-8 byte order mark at the start (kept in text(); the parser is given the bytes after it).
  bool has_bom() const { return text_->starts_with("\xEF\xBB\xBF"); }
  // True when the text is not valid UTF-8 (it is still analysed; columns then count bytes there).
  bool invalid_utf8() const { return invalid_utf8_; }

 private:
  std::string path_;
  std::unique_ptr<std::string> text_;  // heap-held so LineIndex's views survive moves
  LineIndex lines_;
  bool invalid_utf8_ = false;
};

bool IsValidUtf8(std::string_view text);

}  // namespace tl
