// Worker threads that parse event batches while the reader reads and splits the next ones. Batches are
// parsed in any order but handed back in the order they were submitted: the reader commits them to the
// store in file order, so a trace reads the same with any number of threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "traceio/event_parser.h"

namespace tl::trace {

class ParsePool {
 public:
  // `fast_events`: as ReadOptions::fast_events, for the workers' parsers.
  ParsePool(unsigned workers, bool fast_events);
  ~ParsePool();
  ParsePool(const ParsePool&) = delete;
  ParsePool& operator=(const ParsePool&) = delete;

  // Queues a batch; the pool parses it unless the caller takes it back in Wait.
  void Submit(EventBatch* batch);
  // Returns once `batch` (a submitted one) is parsed. While it waits, the calling thread parses queued
  // batches itself, newest first, with `parser`: a reader that must wait has nothing better to do.
  void Wait(EventBatch* batch, EventParser& parser);
  bool Done(EventBatch* batch);

 private:
  void Work(bool fast_events);
  // Parses `batch` with the lock released, then marks it done (under the lock again).
  void ParseUnlocked(std::unique_lock<std::mutex>& lock, EventParser& parser, EventBatch* batch);

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable batch_done_;
  std::deque<EventBatch*> queue_;
  std::vector<EventBatch*> done_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tl::trace
