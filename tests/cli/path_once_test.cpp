// Error and warning messages name the file they are about once: the readers (traceio, the memory
// snapshot reader, the config loader, ReadFile) start their messages with the path, and the commands
// print them as they are. Each bad input goes through every command that reads it.
#include <fmt/format.h>
#include <zlib.h>

#include "cli_support.h"

using tl::test::CliDir;
using tl::test::ReadText;
using tl::test::RunTorchlint;
using tl::test::TempFolder;

namespace {

size_t Occurrences(std::string_view text, std::string_view needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

// Every line of stderr that names `path` names it once, and at least one does.
void CheckNamedOnce(const tl::test::RunResult& result, std::string_view path) {
  INFO("stderr: " << result.err);
  size_t naming = 0;
  size_t start = 0;
  while (start < result.err.size()) {
    size_t end = result.err.find('\n', start);
    if (end == std::string::npos) end = result.err.size();
    const std::string_view line = std::string_view(result.err).substr(start, end - start);
    const size_t count = Occurrences(line, path);
    CHECK(count <= 1);
    naming += count > 0;
    start = end + 1;
  }
  CHECK(naming >= 1);
}

// A small Kineto trace: ten profiler steps with a kernel each.
std::string Trace() {
  std::string events;
  for (int step = 0; step < 10; ++step) {
    const int ts = step * 1000;
    if (!events.empty()) events += ",\n";
    events += fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": 1, "tid": 1, "ts": {}, "dur": 900}},)"
        "\n"
        R"({{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 1, "tid": 7, "ts": {}, "dur": 500, "args": {{}}}})",
        step, ts, ts + 100);
  }
  return "{\"traceEvents\": [\n" + events + "\n]}\n";
}

std::string Gzip(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// The commands that read a trace, each given `trace` (a name in `dir`).
std::vector<std::vector<std::string>> TraceCommands(const std::string& trace) {
  return {{"trace", trace},
          {"trace", trace, "--format", "json"},
          {"check", "--trace", trace, "train.py"},
          {"report", "train.py", "--trace", trace},
          {"trace", "diff", trace, trace},
          {"trace", "annotate", trace, "-o", "out.json"}};
}

void CheckTraceCommands(const TempFolder& dir, const std::string& trace, bool readable) {
  for (const auto& args : TraceCommands(trace)) {
    CAPTURE(fmt::format("torchlint {}", fmt::join(args, " ")));
    const auto result = RunTorchlint(args, dir.path());
    if (!readable) CHECK(result.exit_code == 2);
    CheckNamedOnce(result, trace);
  }
}

}  // namespace

TEST_CASE("a truncated .json and .json.gz: the warning names the file once") {
  TempFolder dir;
  dir.Write("train.py", ReadText(CliDir() / "inputs" / "demo" / "train.py"));
  const std::string trace = Trace();
  dir.Write("cut.json", trace.substr(0, trace.size() * 2 / 3));
  const std::string gz = Gzip(trace);
  dir.Write("cut.json.gz", gz.substr(0, gz.size() * 2 / 3));
  for (const char* name : {"cut.json", "cut.json.gz"}) {
    CAPTURE(name);
    auto result = RunTorchlint({"trace", name}, dir.path());
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("truncated") != std::string::npos);
    CheckTraceCommands(dir, name, true);
  }
}

TEST_CASE("a garbage .sqlite, a garbage trace and a missing file: one error naming the file once") {
  TempFolder dir;
  dir.Write("train.py", ReadText(CliDir() / "inputs" / "demo" / "train.py"));
  using namespace std::string_literals;
  // SQLite's magic, then bytes that are not a database.
  dir.Write("capture.sqlite", "SQLite format 3\0\x01\x02 not really a database, just bytes\n"s);
  dir.Write("noise.json", "\x89PNG\r\n\x1a\n\x01\x02\x03 binary noise");
  for (const char* name : {"capture.sqlite", "noise.json", "missing.json"}) {
    CAPTURE(name);
    CheckTraceCommands(dir, name, false);
  }
}

TEST_CASE("a bad memory snapshot, a missing one, a missing script and a bad config: the path once") {
  TempFolder dir;
  dir.Write("bad.pickle", "\x80\x04\x95garbage that is not a pickle");
  dir.Write("list.pickle", std::string("\x80\x04]\x94.", 5));  // a pickle of [], not a snapshot
  dir.Write("bad.toml", "select = [\"TL1\"\n");
  for (const char* name : {"bad.pickle", "list.pickle", "missing.pickle"}) {
    CAPTURE(name);
    const auto result = RunTorchlint({"memory", name}, dir.path());
    CHECK(result.exit_code == 2);
    CheckNamedOnce(result, name);
  }
  for (const std::vector<std::string>& args : {std::vector<std::string>{"instrument", "missing.py"},
                                               {"check", "--config", "bad.toml", "."},
                                               {"check", "--config", "missing.toml", "."},
                                               {"check", "missing.py"}}) {
    CAPTURE(fmt::format("torchlint {}", fmt::join(args, " ")));
    const auto result = RunTorchlint(args, dir.path());
    CHECK(result.exit_code == 2);
    CheckNamedOnce(result, args[args.size() - 1] == "." ? args[2] : args.back());
  }
}
