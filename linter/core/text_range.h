// Byte ranges into a source buffer. Everything inside torchlint speaks byte offsets; lines and columns
// exist only at the output boundary (LineIndex).
#pragma once

#include <cstdint>

namespace tl {

struct TextRange {
  uint32_t begin = 0;  // inclusive byte offset
  uint32_t end = 0;    // exclusive byte offset

  uint32_t size() const { return end - begin; }
  bool empty() const { return begin == end; }
  bool Contains(uint32_t offset) const { return begin <= offset && offset < end; }
  bool Contains(TextRange other) const { return begin <= other.begin && other.end <= end; }
  bool Overlaps(TextRange other) const { return begin < other.end && other.begin < end; }
  friend bool operator==(TextRange, TextRange) = default;
};

}  // namespace tl
