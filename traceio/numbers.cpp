#include "traceio/numbers.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace tl::trace {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r' ||
                        s.back() == ',' || s.back() == '}' || s.back() == ']')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<int64_t> FromDouble(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(v));
}

}  // namespace

std::optional<int64_t> ParseMicrosToNanos(std::string_view text) {
  // Kineto's form first: "<digits>.<3 digits>" or "<digits>", up to 15 integer digits (which cannot
  // overflow int64 nanoseconds). Anything else takes the general path below.
  {
    size_t i = 0;
    int64_t micros = 0;
    while (i < text.size() && i < 15 && text[i] >= '0' && text[i] <= '9') micros = micros * 10 + (text[i++] - '0');
    if (i > 0 && i == text.size()) return micros * 1000;
    if (i > 0 && text.size() == i + 4 && text[i] == '.' && text[i + 1] >= '0' && text[i + 1] <= '9' &&
        text[i + 2] >= '0' && text[i + 2] <= '9' && text[i + 3] >= '0' && text[i + 3] <= '9') {
      return micros * 1000 + (text[i + 1] - '0') * 100 + (text[i + 2] - '0') * 10 + (text[i + 3] - '0');
    }
  }
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    i = 1;
  }
  constexpr int64_t kMaxMicros = std::numeric_limits<int64_t>::max() / 1000 - 1;
  int64_t micros = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    micros = micros * 10 + (text[i] - '0');
    if (micros > kMaxMicros) return std::nullopt;
  }
  int64_t nanos = 0;
  size_t frac_digits = 0;
  bool round_up = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++frac_digits) {
      if (frac_digits < 3) {
        nanos = nanos * 10 + (text[i] - '0');
      } else if (frac_digits == 3) {
        round_up = text[i] >= '5';
      }
    }
    for (size_t k = frac_digits; k < 3; ++k) nanos *= 10;
  }
  if (digits == 0 && frac_digits == 0) return std::nullopt;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return std::nullopt;
    // Exponent notation never comes from Kineto; a double is precise enough for whatever wrote it.
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return FromDouble(v * 1000.0);
  }
  int64_t ns = micros * 1000 + nanos + (round_up ? 1 : 0);
  return negative ? -ns : ns;
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  // The common case first: up to 18 plain digits cannot overflow.
  if (!text.empty() && text.size() <= 18) {
    int64_t v = 0;
    size_t i = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) v = v * 10 + (text[i] - '0');
    if (i == text.size()) return v;
  }
  text = Trim(text);
  if (!text.empty() && text.front() == '"') text.remove_prefix(1);
  if (!text.empty() && text.back() == '"') text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && ptr == text.data() + text.size()) return v;
  if (ec == std::errc::result_out_of_range) {
    // uint64 ids such as `Comms Id`: keep them distinct from small ids by folding into int64.
    uint64_t u = 0;
    auto [p2, e2] = std::from_chars(text.data(), text.data() + text.size(), u);
    if (e2 == std::errc() && p2 == text.data() + text.size()) return static_cast<int64_t>(u);
    return std::nullopt;
  }
  double d = 0;
  auto [p3, e3] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (e3 == std::errc() && p3 == text.data() + text.size()) return FromDouble(d);
  return std::nullopt;
}

}  // namespace tl::trace
