#include "linter/core/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include <fmt/core.h>

namespace tl {

namespace {

constexpr size_t kBarWidth = 20;
// Erases from the cursor to the end of the line; a bar is drawn only on a terminal that is not `dumb`.
constexpr std::string_view kEraseLine = "\r\x1b[K";

std::string Figures(ProgressUnit unit, uint64_t done, uint64_t total) {
  if (unit == ProgressUnit::kBytes) {
    constexpr uint64_t kMb = 1'000'000;
    if (total == 0) return fmt::format("{} MB", done / kMb);
    return fmt::format("{}/{} MB", done / kMb, (total + kMb - 1) / kMb);
  }
  if (total == 0) return fmt::format("{}", done);
  return fmt::format("{}/{}", done, total);
}

}  // namespace

ProgressEnvironment ProgressEnvironment::Current(bool quiet) {
  ProgressEnvironment env;
  env.quiet = quiet;
  env.stderr_is_tty = ::isatty(STDERR_FILENO) != 0;
  const char* ci = std::getenv("CI");
  env.ci = ci != nullptr && *ci != '\0';
  const char* term = std::getenv("TERM");
  env.dumb_term = term != nullptr && std::string_view(term) == "dumb";
  struct winsize size {};
  if (env.stderr_is_tty && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) env.columns = size.ws_col;
  return env;
}

ProgressBar ProgressBar::ForStderr(bool quiet) {
  return ProgressBar(
      ProgressEnvironment::Current(quiet), [] { return std::chrono::steady_clock::now(); },
      [](std::string_view text) {
        std::fwrite(text.data(), 1, text.size(), stderr);
        std::fflush(stderr);
      });
}

ProgressBar::ProgressBar(const ProgressEnvironment& environment, Clock clock, Sink sink)
    : enabled_(environment.allows()),
      columns_(std::max(environment.columns, 20u)),
      clock_(std::move(clock)),
      sink_(std::move(sink)) {}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Start(std::string label, ProgressUnit unit) {
  if (!enabled_) return;
  Clear();
  label_ = std::move(label);
  unit_ = unit;
  started_ = clock_();
  last_draw_ = {};
}

void ProgressBar::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const auto now = clock_();
  if (now - started_ < kDelay) return;
  // Also after a Clear: lines printed in quick succession keep the bar away instead of flickering.
  if (last_draw_ != std::chrono::steady_clock::time_point{} && now - last_draw_ < kInterval) return;
  last_draw_ = now;
  drawn_ = true;
  sink_(std::string(kEraseLine) + Render(label_, unit_, done, total, columns_));
}

void ProgressBar::Clear() {
  if (!drawn_) return;
  drawn_ = false;
  sink_(kEraseLine);
}

void ProgressBar::Finish() { Clear(); }

std::string ProgressBar::Render(std::string_view label, ProgressUnit unit, uint64_t done, uint64_t total,
                                unsigned columns) {
  std::string tail;
  if (total > 0) {
    const uint64_t shown = std::min(done, total);
    const auto filled = static_cast<size_t>(shown * kBarWidth / total);
    tail = fmt::format(" [{}{}] {:3}%  {}", std::string(filled, '#'), std::string(kBarWidth - filled, ' '),
                       shown * 100 / total, Figures(unit, done, total));
  } else {
    tail = "  " + Figures(unit, done, total);
  }
  // One column is left free: a line that fills the last column makes some terminals wrap.
  const size_t width = columns > 1 ? columns - 1 : 1;
  if (tail.size() >= width) return tail.substr(tail.size() - std::min(tail.size(), width));
  const size_t room = width - tail.size();
  if (label.size() <= room) return std::string(label) + tail;
  // A long path keeps its end, the file name.
  if (room <= 3) return tail;
  return "..." + std::string(label.substr(label.size() - (room - 3))) + tail;
}

}  // namespace tl
