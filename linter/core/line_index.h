// Maps byte offsets to 1-based lines and columns, and to LSP positions. Columns for humans count
// Unicode code points (as Ruff does); LSP positions count UTF-16 code units unless another encoding
// was negotiated. Invalid UTF-8 bytes count as one column each, so no input can make it fail.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tl {

struct LineColumn {
  uint32_t line = 1;    // 1-based
  uint32_t column = 1;  // 1-based, in code points
};

enum class PositionEncoding { kUtf8, kUtf16, kUtf32 };

struct LspPosition {
  uint32_t line = 0;       // 0-based
  uint32_t character = 0;  // 0-based, in the negotiated encoding's code units
};

class LineIndex {
 public:
  LineIndex() = default;
  // The index views `text`, which must outlive it; a temporary string is refused at compile time.
  explicit LineIndex(std::string_view text);
  explicit LineIndex(const char* text) : LineIndex(std::string_view(text)) {}
  explicit LineIndex(std::string&& temporary) = delete;

  // Line terminators are \n, \r\n and a lone \r (Python accepts all three).
  LineColumn Locate(uint32_t offset) const;
  LspPosition ToLsp(uint32_t offset, PositionEncoding encoding) const;
  uint32_t FromLsp(LspPosition position, PositionEncoding encoding) const;

  uint32_t LineCount() const { return static_cast<uint32_t>(line_starts_.size()); }
  // Byte offset where 0-based `line` starts; LineCount() maps to the end of the text.
  uint32_t LineStart(uint32_t line) const;
  // The line's text without its terminator.
  std::string_view LineText(uint32_t line) const;

 private:
  std::string_view text_;
  std::vector<uint32_t> line_starts_;
  uint32_t LineOf(uint32_t offset) const;
  uint32_t LineContentEnd(uint32_t line) const;
};

}  // namespace tl
