// Saturating int64 addition for the analyses' running sums. The reader bounds each duration at 2^48 ns,
// but a hostile file of 2^15 such events (or copies and allocations whose `bytes` nothing bounds) would
// overflow a plain sum, which is undefined behaviour and would print negative totals. Sums that reach
// the int64 limits stay there instead: the figure is absurd, but finite and of the right sign.
#pragma once

#include <cstdint>
#include <limits>

namespace tl::trace {

constexpr int64_t SatAdd(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return out;
}

// `sum += v`, saturating.
constexpr void SatAddTo(int64_t& sum, int64_t v) { sum = SatAdd(sum, v); }

}  // namespace tl::trace
