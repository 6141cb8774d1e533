#include "traceio/analyses/intervals.h"

#include <algorithm>

namespace tl::trace {

void MergeIntervals(std::vector<Interval>& v) {
  std::erase_if(v, [](const Interval& i) { return i.end <= i.begin; });
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  size_t out = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (out > 0 && v[i].begin <= v[out - 1].end) {
      v[out - 1].end = std::max(v[out - 1].end, v[i].end);
    } else {
      v[out++] = v[i];
    }
  }
  v.resize(out);
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const auto& i : merged) total += i.length();
  return total;
}

std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].begin, b[j].begin);
    int64_t hi = std::min(a[i].end, b[j].end);
    if (lo < hi) out.push_back({lo, hi});
    if (a[i].end < b[j].end) ++i;
    else ++j;
  }
  return out;
}

int64_t OverlapLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  return TotalLength(Intersect(a, b));
}

int64_t LengthWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end) {
  int64_t total = 0;
  auto it = std::lower_bound(merged.begin(), merged.end(), begin,
                             [](const Interval& i, int64_t t) { return i.end <= t; });
  for (; it != merged.end() && it->begin < end; ++it) {
    int64_t lo = std::max(it->begin, begin);
    int64_t hi = std::min(it->end, end);
    if (lo < hi) total += hi - lo;
  }
  return total;
}

}  // namespace tl::trace
