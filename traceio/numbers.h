// Exact conversion of the profiler's microsecond timestamps to int64 nanoseconds. Kineto writes
// "<us>.<3-digit ns>" (as numbers or strings), older traces write integer epoch microseconds around
// 1.6e15, so going through a double would lose the nanoseconds; this parses the decimal text directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tl::trace {

// "1623142623460111", "5171750607140.561", "-3.5", "1.5e3" -> ns. Nullopt when the text is not a number
// or the value does not fit in int64 nanoseconds.
std::optional<int64_t> ParseMicrosToNanos(std::string_view text);

// Integer text, tolerating a fractional or exponent form and values above int64 (clamped, flagged).
std::optional<int64_t> ParseInteger(std::string_view text);

}  // namespace tl::trace
