// What an idle spell costs the machine's next piece of work, apart from torchlint: a fixed task run on a
// worker thread woken through a condition variable, as the language server's worker is woken by its
// reading thread, right after the last task (back to back) and after 50 ms of idling. The tasks: pure
// arithmetic (the clock and the wake), and reads spread over 1, 4 and 16 MB (what the caches still hold).
// docs/server.md reads the figures beside bench_server's keystrokes at typing speed. Prints figures;
// nothing here asserts.
//   bench_idle
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

volatile uint64_t g_sink = 0;  // keeps the tasks' results, so that they are computed

void Arithmetic(uint64_t steps) {
  uint64_t x = 1;
  for (uint64_t i = 0; i < steps; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  g_sink = x;
}

void SpreadReads(const std::vector<uint32_t>& memory) {
  uint64_t sum = 0;
  for (size_t i = 0; i < memory.size(); i += 16) sum += memory[(i * 2654435761U) % memory.size()];
  g_sink = sum;
}

}  // namespace

int main() {
  // About 2 ms of arithmetic on this machine.
  uint64_t steps = 1'000'000;
  const auto start = Clock::now();
  Arithmetic(steps);
  steps = static_cast<uint64_t>(static_cast<double>(steps) * 2.0 / std::max(Ms(Clock::now() - start), 1e-3));
  std::vector<uint32_t> memory;

  std::mutex mu;
  std::condition_variable cv;
  int job = 0;  // 1: run the task; -1: stop
  bool done = false;
  bool reads = false;  // else arithmetic
  double took = 0;
  std::thread worker([&] {
    for (;;) {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return job != 0; });
      if (job < 0) return;
      lock.unlock();
      const auto t0 = Clock::now();
      if (reads) {
        SpreadReads(memory);
      } else {
        Arithmetic(steps);
      }
      const double ms = Ms(Clock::now() - t0);
      lock.lock();
      took = ms;
      job = 0;
      done = true;
      cv.notify_all();
    }
  });
  fmt::print("a task on a worker thread, woken right after the last one or after 50 ms idle, 60 runs each\n");
  fmt::print("{:<28} {:>8} {:>10} {:>10}\n", "task", "idle ms", "p50 ms", "p90 ms");
  for (const size_t megabytes : {0, 1, 4, 16}) {  // 0: arithmetic
    memory.assign((megabytes << 20U) / sizeof(uint32_t), 1);
    for (const int idle_ms : {0, 50, 0, 50}) {
      std::vector<double> times;
      for (int k = 0; k < 60; ++k) {
        if (idle_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
        {
          const std::lock_guard lock(mu);
          reads = megabytes > 0;
          job = 1;
          done = false;
        }
        cv.notify_all();
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return done; });
        times.push_back(took);
      }
      std::sort(times.begin(), times.end());
      const std::string task = megabytes == 0 ? "arithmetic" : fmt::format("reads spread over {} MB", megabytes);
      fmt::print("{:<28} {:>8} {:>10.2f} {:>10.2f}\n", task, idle_ms, times[times.size() / 2],
                 times[times.size() * 9 / 10]);
    }
  }
  {
    const std::lock_guard lock(mu);
    job = -1;
  }
  cv.notify_all();
  worker.join();
  return 0;
}
