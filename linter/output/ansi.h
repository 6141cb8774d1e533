// The terminal colours of torchlint's text outputs (check's findings, the trace report), in one place so
// that they look alike; whether to use them at all is the CLI's decision (--color, NO_COLOR, a terminal).
#pragma once

#include <string>
#include <string_view>

namespace tl::ansi {

inline constexpr std::string_view kReset = "\x1b[0m";
inline constexpr std::string_view kBold = "\x1b[1m";
inline constexpr std::string_view kRed = "\x1b[1;31m";
inline constexpr std::string_view kYellow = "\x1b[33m";
inline constexpr std::string_view kBlue = "\x1b[1;34m";
inline constexpr std::string_view kCyan = "\x1b[1;36m";

// `text` in `style` when `on`, else as it is.
inline std::string Styled(std::string_view text, std::string_view style, bool on) {
  if (!on || style.empty()) return std::string(text);
  std::string out;
  out.reserve(style.size() + text.size() + kReset.size());
  out.append(style).append(text).append(kReset);
  return out;
}

}  // namespace tl::ansi
