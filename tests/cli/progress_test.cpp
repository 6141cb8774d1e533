// The progress bar for real: `torchlint trace` on a generated gzip trace big enough to take more than a
// second to read, once under a pseudo-terminal (script(1) from bsdutils), where the bar must appear, and
// once with stderr to a file, where no `\r` may appear at all. The trace is generated into a temporary
// folder; it grows until a read takes long enough on this machine.
#include <zlib.h>

#include <chrono>

#include "cli_support.h"

using tl::test::ReadText;
using tl::test::ShellQuote;
using tl::test::TempFolder;

namespace {

namespace fs = std::filesystem;

// A Kineto-shaped trace of `events` CPU ops, gzip-compressed. The names carry an escape, so every event
// takes the reader's general parser (the slow path); ids and times vary, so it compresses like a real one.
void WriteTrace(const fs::path& path, size_t events) {
  gzFile out = gzopen(path.c_str(), "wb1");
  REQUIRE(out != nullptr);
  std::string chunk = R"({"schemaVersion": 1, "deviceProperties": [], "traceEvents": [)";
  uint64_t state = 88172645463325252ULL;
  for (size_t i = 0; i < events; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    chunk += fmt::format(
        R"({}{{"ph": "X", "cat": "cpu_op", "name": "aten::op\u005f{}", "pid": 7, "tid": {}, "ts": {}.{:03}, "dur": {}, "args": {{"External id": {}, "Sequence number": {}}}}})",
        i == 0 ? "" : ",\n", state % 97, 100 + state % 3, 1'000'000 + i * 3, state % 1000, 1 + state % 50, i,
        state % 100'000);
    if (chunk.size() > (1u << 20)) {
      REQUIRE(gzwrite(out, chunk.data(), static_cast<unsigned>(chunk.size())) == static_cast<int>(chunk.size()));
      chunk.clear();
    }
  }
  chunk += "]}\n";
  REQUIRE(gzwrite(out, chunk.data(), static_cast<unsigned>(chunk.size())) == static_cast<int>(chunk.size()));
  REQUIRE(gzclose(out) == Z_OK);
}

struct Timed {
  int status = 0;
  double seconds = 0;
};

Timed Run(const std::string& command) {
  const auto start = std::chrono::steady_clock::now();
  Timed timed;
  timed.status = std::system(command.c_str());
  timed.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return timed;
}

}  // namespace

TEST_CASE("trace: a progress bar on a terminal for a read over a second, and none through a pipe") {
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    MESSAGE("skipped: script(1) from bsdutils is not installed");
    return;
  }
  TempFolder io;
  const fs::path trace = io.path() / "big.pt.trace.json.gz";
  const std::string exe = ShellQuote(tl::test::TorchlintExe().string());
  // The bar's conditions hold inside the terminal: no CI variable, a real TERM.
  const std::string env = "env -u CI -u NO_COLOR TERM=xterm";
  const std::string trace_command = fmt::format("{} trace {} --jobs 1 -o /dev/null", exe, ShellQuote(trace.string()));
  std::string tty_output;
  bool long_enough = false;
  for (size_t events = 400'000; events <= 6'400'000 && !long_enough; events *= 2) {
    WriteTrace(trace, events);
    const fs::path typescript = io.path() / "tty.txt";
    const Timed run = Run(fmt::format("{} script -qec {} /dev/null > {} 2>&1 < /dev/null", env,
                                      ShellQuote(trace_command), ShellQuote(typescript.string())));
    REQUIRE(WIFEXITED(run.status));
    tty_output = ReadText(typescript);
    // The bar is drawn once the read has taken a second; 2 s of run leave the read that long.
    long_enough = run.seconds > 2.0;
    if (!long_enough && tty_output.find('\r') == std::string::npos) continue;
    INFO("terminal output: " << tty_output);
    // Drawn with `\r` over its own line; the label (`reading PATH`, cut to the terminal's width) keeps
    // the file's name.
    CHECK(tty_output.find("\r\x1b[K") != std::string::npos);
    CHECK(tty_output.find("big.pt.trace.json.gz [") != std::string::npos);
    CHECK(tty_output.find(" MB") != std::string::npos);
    CHECK(tty_output.find('%') != std::string::npos);
    // The line is erased before the command ends.
    CHECK(tty_output.rfind("\r\x1b[K") != std::string::npos);
    long_enough = true;
  }
  if (!long_enough) {
    MESSAGE("skipped: even the largest generated trace reads in under two seconds here");
    return;
  }

  // The same command with stderr to a file: nothing of the bar.
  const fs::path err = io.path() / "err.txt";
  const Timed piped = Run(fmt::format("{} {} 2> {} < /dev/null", env, trace_command, ShellQuote(err.string())));
  REQUIRE(WIFEXITED(piped.status));
  const std::string errors = ReadText(err);
  CHECK(errors.find('\r') == std::string::npos);
  CHECK(errors.find("reading ") == std::string::npos);

  // On the terminal, but with CI set (as CI runners do): nothing either.
  const fs::path ci = io.path() / "ci.txt";
  const Timed under_ci = Run(fmt::format("{} CI=true script -qec {} /dev/null > {} 2>&1 < /dev/null", env,
                                         ShellQuote(trace_command), ShellQuote(ci.string())));
  REQUIRE(WIFEXITED(under_ci.status));
  CHECK(ReadText(ci).find("reading ") == std::string::npos);
}
