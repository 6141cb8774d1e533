// Inputs the parser cannot take, refused before parsing with a one-line reason. tree-sitter 0.20.7
// (Debian 12's runtime) frees a subtree twice when a file ends with about 65,535 or more brackets left
// open (its error recovery overflows a 16-bit count), which aborts the process. 100,000 nested brackets
// that are closed parse fine, so only what is still open at the end of the file is counted, with
// brackets in comments and strings left out. ts::Parser::Parse refuses such input for every caller;
// the driver also asks first, to skip the file with a one-line reason instead of a parse-error notice.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tl {

inline constexpr size_t kMaxUnclosedBrackets = 50'000;

// Brackets still open at the end of `text` (a closer only closes the matching opener).
size_t UnclosedBrackets(std::string_view text);

// Why `text` must not be given to the parser, or nullopt when it is fine.
std::optional<std::string> UnparsableReason(std::string_view text);

}  // namespace tl
