// A progress bar on stderr for the runs that keep a user waiting: `check` over a large folder (files done
// of total) and trace reads (megabytes of the file read). It is drawn only where a person watches: stderr
// is a terminal, the `CI` variable is unset, TERM is not `dumb` and -q/--quiet was not given. It appears
// only once the operation has run for about a second, so fast runs print nothing, is redrawn at most ten
// times a second with `\r`, and erases its line when done, so the normal output is unchanged. The clock
// and the sink are injected, so the decisions are tested without a terminal or a wait.
// Not thread-safe: one thread updates a bar (the driver's reporting thread, the trace reader's thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace tl {

// What decides whether a bar may be drawn at all.
struct ProgressEnvironment {
  bool stderr_is_tty = false;
  bool ci = false;         // the CI variable is set (to anything but empty)
  bool dumb_term = false;  // TERM=dumb
  bool quiet = false;      // -q/--quiet
  unsigned columns = 80;   // the terminal's width; the line is cut to fit, since a wrapped line cannot be erased
  // This process's stderr and environment.
  static ProgressEnvironment Current(bool quiet);
  bool allows() const { return stderr_is_tty && !ci && !dumb_term && !quiet; }
};

enum class ProgressUnit {
  kCount,  // `checking [#####     ] 42%  420/1000`
  kBytes,  // `reading trace.json.gz [###       ] 30%  312/1024 MB`
};

class ProgressBar {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Sink = std::function<void(std::string_view)>;

  // The bar of this process, on stderr: drawn only when ProgressEnvironment::Current allows it.
  static ProgressBar ForStderr(bool quiet);
  // Tests give their own environment, clock and sink.
  ProgressBar(const ProgressEnvironment& environment, Clock clock, Sink sink);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  // Starts (or restarts) an operation: the one-second wait counts from here.
  void Start(std::string label, ProgressUnit unit);
  // `done` of `total` (total 0: unknown, the bar shows the figure alone). Cheap when nothing is drawn.
  void Update(uint64_t done, uint64_t total);
  // Update as a callback, for the readers and the driver (which take no dependency on this class).
  std::function<void(uint64_t done, uint64_t total)> Callback() {
    return [this](uint64_t done, uint64_t total) { Update(done, total); };
  }
  // Erases the line if it is drawn, before other output goes to the terminal; the next Update redraws it.
  void Clear();
  // Erases the line; the operation is over.
  void Finish();

  bool enabled() const { return enabled_; }
  bool drawn() const { return drawn_; }

  static constexpr std::chrono::milliseconds kDelay{1000};
  static constexpr std::chrono::milliseconds kInterval{100};
  // The line for these figures, at most `columns` wide (exposed for tests).
  static std::string Render(std::string_view label, ProgressUnit unit, uint64_t done, uint64_t total, unsigned columns);

 private:
  bool enabled_ = false;
  unsigned columns_ = 80;
  Clock clock_;
  Sink sink_;
  std::string label_;
  ProgressUnit unit_ = ProgressUnit::kCount;
  std::chrono::steady_clock::time_point started_{};
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace tl
