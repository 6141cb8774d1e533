// The progress bar's decisions, with an injected clock and a sink that records what would reach stderr:
// only on a terminal, never under CI, TERM=dumb or --quiet, only after about a second, at most ten
// redraws a second, and the line erased when done.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "linter/core/progress.h"

namespace tl {
namespace {

using std::chrono::milliseconds;

struct FakeTerminal {
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
  std::vector<std::string> writes;

  ProgressBar Bar(const ProgressEnvironment& environment) {
    return ProgressBar(
        environment, [this] { return now; }, [this](std::string_view text) { writes.emplace_back(text); });
  }
  std::string All() const {
    std::string out;
    for (const std::string& w : writes) out += w;
    return out;
  }
};

ProgressEnvironment Tty() {
  ProgressEnvironment env;
  env.stderr_is_tty = true;
  return env;
}

// Runs a two-second operation of 100 steps, one every 20 ms.
void RunOperation(FakeTerminal& terminal, ProgressBar& bar) {
  bar.Start("checking", ProgressUnit::kCount);
  for (uint64_t i = 1; i <= 100; ++i) {
    terminal.now += milliseconds(20);
    bar.Update(i, 100);
  }
  bar.Finish();
}

TEST_CASE("progress: drawn on a terminal after a second, at most ten times a second, then erased") {
  FakeTerminal terminal;
  ProgressBar bar = terminal.Bar(Tty());
  CHECK(bar.enabled());
  RunOperation(terminal, bar);
  // Steps 50..100 fall after the first second: 1 s at 20 ms a step, one draw per 100 ms = 5 steps.
  REQUIRE(terminal.writes.size() >= 2);
  CHECK(terminal.writes.size() <= 12);
  CHECK(terminal.writes.front() ==
        std::string("\r\x1b[K") + ProgressBar::Render("checking", ProgressUnit::kCount, 50, 100, 80));
  CHECK(terminal.writes.front().find("checking [##########          ]  50%  50/100") != std::string::npos);
  CHECK(terminal.writes.back() == "\r\x1b[K");
  CHECK(!bar.drawn());
}

TEST_CASE("progress: a run shorter than a second prints nothing") {
  FakeTerminal terminal;
  ProgressBar bar = terminal.Bar(Tty());
  bar.Start("reading trace.json", ProgressUnit::kBytes);
  for (uint64_t i = 1; i <= 9; ++i) {
    terminal.now += milliseconds(100);
    bar.Update(i << 20, 10 << 20);
  }
  bar.Finish();
  CHECK(terminal.writes.empty());
}

TEST_CASE("progress: never drawn off a terminal, under CI, with TERM=dumb or with --quiet") {
  ProgressEnvironment pipe;  // stderr is not a tty
  ProgressEnvironment ci = Tty();
  ci.ci = true;
  ProgressEnvironment dumb = Tty();
  dumb.dumb_term = true;
  ProgressEnvironment quiet = Tty();
  quiet.quiet = true;
  for (const ProgressEnvironment& env : {pipe, ci, dumb, quiet}) {
    FakeTerminal terminal;
    ProgressBar bar = terminal.Bar(env);
    CHECK(!bar.enabled());
    RunOperation(terminal, bar);
    CHECK(terminal.writes.empty());
  }
}

TEST_CASE("progress: Clear erases a drawn line once, and the next update waits out the interval") {
  FakeTerminal terminal;
  ProgressBar bar = terminal.Bar(Tty());
  bar.Start("checking", ProgressUnit::kCount);
  terminal.now += milliseconds(1500);
  bar.Update(1, 10);
  REQUIRE(terminal.writes.size() == 1);
  bar.Clear();
  bar.Clear();
  CHECK(terminal.writes.size() == 2);
  CHECK(terminal.writes.back() == "\r\x1b[K");
  bar.Update(2, 10);  // within 100 ms of the last draw
  CHECK(terminal.writes.size() == 2);
  terminal.now += milliseconds(150);
  bar.Update(3, 10);
  CHECK(terminal.writes.size() == 3);
  CHECK(bar.drawn());
}

TEST_CASE("progress: Start restarts the one-second wait") {
  FakeTerminal terminal;
  ProgressBar bar = terminal.Bar(Tty());
  bar.Start("reading a.json", ProgressUnit::kBytes);
  terminal.now += milliseconds(900);
  bar.Start("reading b.json", ProgressUnit::kBytes);
  terminal.now += milliseconds(900);
  bar.Update(1, 2);
  CHECK(terminal.writes.empty());
  terminal.now += milliseconds(200);
  bar.Update(1, 2);
  CHECK(terminal.writes.size() == 1);
}

TEST_CASE("progress: the line shows megabytes for reads and fits the terminal") {
  CHECK(ProgressBar::Render("reading trace.json.gz", ProgressUnit::kBytes, 312'000'000, 1'024'000'000, 80) ==
        "reading trace.json.gz [######              ]  30%  312/1024 MB");
  CHECK(ProgressBar::Render("reading t.json", ProgressUnit::kBytes, 5'000'000, 0, 80) == "reading t.json  5 MB");
  CHECK(ProgressBar::Render("checking", ProgressUnit::kCount, 7, 7, 80) == "checking [####################] 100%  7/7");
  // Past the end (a file grew while read) the bar stays full.
  CHECK(ProgressBar::Render("checking", ProgressUnit::kCount, 9, 7, 80).find("100%") != std::string::npos);
  const std::string long_label = "reading " + std::string(200, 'x') + "/rank-0.pt.trace.json";
  const std::string cut = ProgressBar::Render(long_label, ProgressUnit::kBytes, 1'000'000, 2'000'000, 60);
  CHECK(cut.size() == 59);
  CHECK(cut.starts_with("..."));
  CHECK(cut.find("rank-0.pt.trace.json [") != std::string::npos);
  CHECK(ProgressBar::Render(long_label, ProgressUnit::kBytes, 1, 2, 20).size() <= 19);
}

}  // namespace
}  // namespace tl
