// Interval arithmetic in int64 nanoseconds, shared by the analyses: unions (GPU busy time), clipping to
// step windows, and the priority claiming of the step breakdown.
#pragma once

#include <cstdint>
#include <vector>

namespace tl::trace {

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end > begin ? end - begin : 0; }
};

// Sorts and merges overlapping or touching intervals in place; drops empty ones.
void MergeIntervals(std::vector<Interval>& intervals);
// Total length of merged intervals.
int64_t TotalLength(const std::vector<Interval>& merged);
// Length of the intersection of two merged lists.
int64_t OverlapLength(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Merged intersection of two merged lists.
std::vector<Interval> Intersect(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Length of `merged` inside [begin, end).
int64_t LengthWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end);

}  // namespace tl::trace
