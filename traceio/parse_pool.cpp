#include "traceio/parse_pool.h"

#include <algorithm>
#include <exception>

namespace tl::trace {

ParsePool::ParsePool(unsigned workers, bool fast_events) {
  threads_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this, fast_events] { Work(fast_events); });
}

ParsePool::~ParsePool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void ParsePool::Submit(EventBatch* batch) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(batch);
  }
  work_ready_.notify_one();
}

bool ParsePool::Done(EventBatch* batch) {
  std::lock_guard lock(mutex_);
  return std::find(done_.begin(), done_.end(), batch) != done_.end();
}

void ParsePool::ParseUnlocked(std::unique_lock<std::mutex>& lock, EventParser& parser, EventBatch* batch) {
  lock.unlock();
  try {
    parser.ParseBatch(*batch);
  } catch (const std::exception& e) {
    // Only allocation can throw here; the reader reports it as an error of the whole read.
    batch->failure = e.what();
  }
  lock.lock();
  done_.push_back(batch);
}

void ParsePool::Wait(EventBatch* batch, EventParser& parser) {
  std::unique_lock lock(mutex_);
  while (true) {
    auto it = std::find(done_.begin(), done_.end(), batch);
    if (it != done_.end()) {
      done_.erase(it);
      return;
    }
    if (!queue_.empty()) {
      EventBatch* mine = queue_.back();
      queue_.pop_back();
      ParseUnlocked(lock, parser, mine);
      continue;
    }
    batch_done_.wait(lock);
  }
}

void ParsePool::Work(bool fast_events) {
  EventParser parser(fast_events);
  std::unique_lock lock(mutex_);
  while (true) {
    work_ready_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    EventBatch* batch = queue_.front();
    queue_.pop_front();
    ParseUnlocked(lock, parser, batch);
    batch_done_.notify_all();
  }
}

}  // namespace tl::trace
