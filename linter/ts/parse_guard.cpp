#include "linter/ts/parse_guard.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tl {

size_t UnclosedBrackets(std::string_view text) {
  std::vector<char> open;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '#') {
      while (i < n && text[i] != '\n' && text[i] != '\r') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      // Skip a string literal: triple-quoted ones may span lines, others end at the line's end.
      const bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < n) {
        if (text[i] == '\\') {
          i += 2;
          continue;
        }
        if (!triple && (text[i] == '\n' || text[i] == '\r')) break;
        if (text[i] == c && (!triple || (i + 2 < n && text[i + 1] == c && text[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      open.push_back(c);
    } else if (c == ')' || c == ']' || c == '}') {
      const char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (!open.empty() && open.back() == opener) open.pop_back();
    }
    ++i;
  }
  return open.size();
}

std::optional<std::string> UnparsableReason(std::string_view text) {
  // Cheap pre-check: a file with fewer openers than the limit cannot reach it.
  // Counted in runs of 255 bytes into a byte, bitwise rather than short-circuit, so that the compiler
  // counts many bytes at once (it is asked of every file before its parse).
  size_t openers = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t end = std::min(text.size(), i + 255);
    uint8_t run = 0;
    for (; i < end; ++i) {
      const char c = text[i];
      run = static_cast<uint8_t>(run + ((c == '(') | (c == '[') | (c == '{')));
    }
    openers += run;
  }
  if (openers <= kMaxUnclosedBrackets) return std::nullopt;
  const size_t unclosed = UnclosedBrackets(text);
  if (unclosed <= kMaxUnclosedBrackets) return std::nullopt;
  return fmt::format(
      "{} brackets are still open at the end of the file, more than the {} the parser can recover "
      "from; close them",
      unclosed, kMaxUnclosedBrackets);
}

}  // namespace tl
