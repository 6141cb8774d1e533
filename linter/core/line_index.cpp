#include "linter/core/line_index.h"

#include <algorithm>

namespace tl {
namespace {

// Length of the UTF-8 sequence starting at text[i], or 1 for an invalid or truncated one.
uint32_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  uint32_t length = 1;
  if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
  } else if (lead >= 0xE0) {
    length = lead <= 0xEF ? 3 : 1;
  } else if (lead >= 0xC2) {
    length = 2;
  }
  if (i + length > text.size()) return 1;
  for (uint32_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 1;
  }
  return length;
}

uint32_t UnitsFor(uint32_t utf8_length, PositionEncoding encoding) {
  switch (encoding) {
    case PositionEncoding::kUtf8: return utf8_length;
    case PositionEncoding::kUtf16: return utf8_length == 4 ? 2 : 1;
    case PositionEncoding::kUtf32: return 1;
  }
  return 1;
}

}  // namespace

LineIndex::LineIndex(std::string_view text) : text_(text) {
  line_starts_.push_back(0);
  // '\r' is rare (old Mac or Windows line ends): each '\n' is found with memchr until the text shows one.
  const bool any_cr = text.find('\r') != std::string_view::npos;
  if (!any_cr) {
    for (size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    }
    return;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    } else if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
}

uint32_t LineIndex::LineOf(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<uint32_t>(std::distance(line_starts_.begin(), it) - 1);
}

uint32_t LineIndex::LineStart(uint32_t line) const {
  if (line >= line_starts_.size()) return static_cast<uint32_t>(text_.size());
  return line_starts_[line];
}

uint32_t LineIndex::LineContentEnd(uint32_t line) const {
  uint32_t end = LineStart(line + 1);
  if (end > LineStart(line) && end <= text_.size() && line + 1 < line_starts_.size()) {
    --end;  // the terminator's last byte
    if (end > LineStart(line) && text_[end] == '\n' && text_[end - 1] == '\r') --end;
  }
  return end;
}

std::string_view LineIndex::LineText(uint32_t line) const {
  if (line >= line_starts_.size()) return {};
  const uint32_t begin = line_starts_[line];
  return text_.substr(begin, LineContentEnd(line) - begin);
}

LineColumn LineIndex::Locate(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  const uint32_t line = LineOf(offset);
  uint32_t column = 1;
  for (size_t i = line_starts_[line]; i < offset;) {
    i += Utf8SequenceLength(text_, i);
    ++column;
  }
  return {line + 1, column};
}

LspPosition LineIndex::ToLsp(uint32_t offset, PositionEncoding encoding) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  const uint32_t line = LineOf(offset);
  uint32_t units = 0;
  for (size_t i = line_starts_[line]; i < offset;) {
    const uint32_t length = Utf8SequenceLength(text_, i);
    units += UnitsFor(length, encoding);
    i += length;
  }
  return {line, units};
}

uint32_t LineIndex::FromLsp(LspPosition position, PositionEncoding encoding) const {
  if (position.line >= line_starts_.size()) return static_cast<uint32_t>(text_.size());
  const uint32_t end = LineContentEnd(position.line);
  uint32_t i = line_starts_[position.line];
  uint32_t units = 0;
  while (i < end && units < position.character) {
    const uint32_t length = Utf8SequenceLength(text_, i);
    units += UnitsFor(length, encoding);
    i += length;
  }
  return std::min(i, end);
}

}  // namespace tl
