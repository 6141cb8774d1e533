// ParallelFor: runs fn(0..count-1) on up to `jobs` threads (the calling thread is one of them) and
// returns when all are done. Indices are claimed in order; fn must not throw.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace tl {

template <typename Fn>
void ParallelFor(size_t count, size_t jobs, Fn&& fn) {
  jobs = std::max<size_t>(1, std::min(jobs, count));
  if (jobs == 1) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1, std::memory_order_relaxed); i < count;
         i = next.fetch_add(1, std::memory_order_relaxed)) {
      fn(i);
    }
  };
  std::vector<std::jthread> threads;
  threads.reserve(jobs - 1);
  for (size_t t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
}

}  // namespace tl
