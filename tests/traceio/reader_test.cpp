// The reader on hand-made traces: every format variant and every kind of bad input the issue lists.
#include <sys/stat.h>
#include <unistd.h>
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tests/traceio/helpers.h"
#include "traceio/event_parser.h"
#include "traceio/numbers.h"

using namespace tl::trace;
using namespace tl::trace::testing;

namespace {

// A gz bomb stopped by a cap (`max_bytes`) or by the ratio check (after `ratio_after` bytes): an error.
void CheckBombRefused(const std::string& gz, uint64_t max_bytes, uint64_t ratio_after, std::string_view needle) {
  ReadOptions o;
  if (max_bytes != 0) o.limits.max_decompressed_bytes = max_bytes;
  if (ratio_after != 0) o.limits.ratio_check_after = ratio_after;
  auto r = ReadString(gz, o);
  CHECK_FALSE(r.ok());
  CHECK(r.error.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("timestamps parse exactly to int64 nanoseconds") {
  CHECK(ParseMicrosToNanos("1623142623460111") == 1623142623460111000);
  CHECK(ParseMicrosToNanos("5171750607140.561") == 5171750607140561);
  CHECK(ParseMicrosToNanos("12.5") == 12500);
  CHECK(ParseMicrosToNanos("7.0001") == 7000);
  CHECK(ParseMicrosToNanos("7.0005") == 7001);  // rounds the fourth fractional digit
  CHECK(ParseMicrosToNanos("-3.25") == -3250);
  CHECK(ParseMicrosToNanos("1.5e3") == 1500000);
  CHECK_FALSE(ParseMicrosToNanos("abc").has_value());
  CHECK_FALSE(ParseMicrosToNanos("99999999999999999999").has_value());
  CHECK(ParseInteger("18446744073709551615").has_value());  // uint64 Comms Id
  CHECK(ParseInteger("\"42\"") == 42);
}

TEST_CASE("Kineto trace: string and number timestamps, baseTimeNanoseconds, string pids") {
  std::string json = TraceJson(
      {X("cpu_op", "aten::add", "\"100.250\"", "\"2.000\"", "\"1234\"", "\"1234\""),
       X("cpu_op", "aten::mul", "200.5", "1", "1234", "1234"),
       X("kernel", "k", "300", "4", "0", "\"stream 7\"", R"({"device": 0, "stream": 7, "correlation": 9})")},
      R"("baseTimeNanoseconds": 1000000000, )");
  auto r = ReadString(json);
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  const auto& t = *r.trace;
  REQUIRE(t.size() == 3);
  uint32_t add = Find(t, "aten::add");
  uint32_t mul = Find(t, "aten::mul");
  CHECK(t.ts(add) == 1000000000 + 100250);
  CHECK(t.dur(add) == 2000);
  CHECK(t.ts(mul) == 1000000000 + 200500);
  // "1234" and 1234 are the same thread.
  CHECK(t.track_index(add) == t.track_index(mul));
  uint32_t k = Find(t, "k");
  CHECK(t.track_of(k).gpu);
  CHECK(t.strings().Get(t.track_of(k).tid) == "stream 7");
  CHECK(t.metadata().format == TraceFormat::kKineto);
}

TEST_CASE("bare-list legacy export without categories") {
  std::string json =
      R"([{"name": "ProfilerStep#1", "ph": "X", "ts": 10, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::item", "ph": "X", "ts": 20, "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "aten::_local_scalar_dense", "ph": "X", "ts": 21, "dur": 3, "tid": 1, "pid": "CPU functions", "args": {}}])";
  auto r = ReadString(json);
  REQUIRE(r.ok());
  const auto& t = *r.trace;
  CHECK(t.metadata().format == TraceFormat::kLegacyList);
  REQUIRE(t.size() == 3);
  uint32_t step = Find(t, "ProfilerStep#1");
  CHECK(t.kind(step) == EventKind::kUserAnnotation);
  uint32_t lsd = Find(t, "aten::_local_scalar_dense");
  CHECK(t.name(t.parent(lsd)) == "aten::item");
  CHECK(t.parent(t.parent(lsd)) == step);
}

TEST_CASE("unsorted events are nested by time per thread") {
  std::string json = TraceJson({X("cpu_op", "child", "15", "5"), X("cpu_op", "grandchild", "16", "1"),
                                X("user_annotation", "ProfilerStep#0", "10", "50"),
                                X("cpu_op", "other_thread", "12", "3", "1", "2")});
  auto r = ReadString(json);
  REQUIRE(r.ok());
  const auto& t = *r.trace;
  CHECK(t.name(t.parent(Find(t, "grandchild"))) == "child");
  CHECK(t.name(t.parent(Find(t, "child"))) == "ProfilerStep#0");
  CHECK(t.parent(Find(t, "other_thread")) == kNoIndex);
}

TEST_CASE("null args, big integers, and unknown keys do not cost the event") {
  std::string json = TraceJson({
      X("python_function", "a.py(3): f", "1", "2", "1", "1", R"({"Python parent id": null, "Python id": 5})"),
      X("cpu_op", "aten::x", "1", "1", "1", "1",
        R"({"External id": 18446744073709551615, "Comms Id": 99999999999999999999999})"),
      X("cpu_op", "aten::y", "3", "1", "1", "1", "null"),
  });
  auto r = ReadString(json);
  REQUIRE(r.ok());
  CHECK(r.stats.bad_events == 0);
  CHECK(r.trace->size() == 3);
  const PythonFrame* py = r.trace->python(Find(*r.trace, "a.py(3): f"));
  REQUIRE(py != nullptr);
  CHECK(py->python_id == 5);
  CHECK(py->parent_id == -1);
}

TEST_CASE("invalid UTF-8 and raw control characters are replaced, with a warning") {
  std::string bad_name = "kernel\xff\xfe name\x01";
  std::string json = TraceJson({X("kernel", bad_name, "1", "1", "0", "7"), X("kernel", "fine", "3", "1", "0", "7")});
  auto r = ReadString(json);
  REQUIRE(r.ok());
  CHECK(r.trace->size() == 2);
  CHECK(Find(*r.trace, "kernel?? name?") != kNoIndex);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("invalid UTF-8") != std::string::npos);
}

TEST_CASE("a truncated file keeps the complete events and says where it was cut") {
  std::vector<std::string> events;
  events.reserve(50);
  for (int i = 0; i < 50; ++i) events.push_back(X("cpu_op", fmt::format("op{}", i), std::to_string(i * 10), "5"));
  std::string full = TraceJson(events);
  // Cut in the middle of event 40.
  size_t cut_event = full.find("\"op40\"");
  std::string cut = full.substr(0, cut_event + 3);
  auto r = ReadString(cut);
  REQUIRE(r.ok());
  CHECK(r.trace->size() == 40);
  CHECK(r.stats.truncated);
  CHECK(r.stats.truncated_at == cut.size());
  // The last complete event ends just before ",\n{...op40".
  size_t op39_end = full.rfind('}', full.rfind("\"op40\""));
  CHECK(r.stats.last_complete == op39_end + 1);
  REQUIRE(!r.warnings.empty());
  CHECK(r.warnings[0].find(fmt::format("truncated at byte {}", cut.size())) != std::string::npos);
  CHECK(r.warnings[0].find("40 complete events") != std::string::npos);

  SUBCASE("cut after a complete event, before the closing brackets") {
    std::string cut2 = full.substr(0, op39_end + 1);
    auto r2 = ReadString(cut2);
    REQUIRE(r2.ok());
    CHECK(r2.trace->size() == 40);
    CHECK(r2.stats.truncated);
  }
  SUBCASE("the same cut inside a gzip stream") {
    std::string gz = Gzip(full);
    auto r3 = ReadString(gz.substr(0, gz.size() * 2 / 3));
    REQUIRE(r3.ok());
    CHECK(r3.stats.truncated);
    CHECK(r3.trace->size() > 0);
    CHECK(r3.trace->size() < 50);
  }
}

TEST_CASE("invalid JSON is one line with the byte offset and a snippet") {
  std::string json = R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1}, @@@garbage]})";
  auto r = ReadString(json);
  CHECK_FALSE(r.ok());
  size_t at = json.find('@');
  CHECK(r.error.find(fmt::format("byte {}", at)) != std::string::npos);
  CHECK(r.error.find("@@@garbage") != std::string::npos);
  CHECK(r.error.find('\n') == std::string::npos);
}

TEST_CASE("a malformed event is counted with its offset and the rest is kept") {
  std::string json = TraceJson({X("cpu_op", "good1", "1", "1"), R"({"ph": "X", "name": "bad", "ts": , "dur": 1})",
                                X("cpu_op", "good2", "5", "1"), R"({"ph": "X", "name": "na", "ts": N/A, "dur": 1})"});
  auto r = ReadString(json);
  REQUIRE(r.ok());
  CHECK(r.trace->size() == 2);
  CHECK(r.stats.bad_events == 2);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find(fmt::format("byte {}", json.find("{\"ph\": \"X\", \"name\": \"bad\""))) !=
        std::string::npos);
}

TEST_CASE("an event with an unclosed '[' ends at its own '}' and costs only itself") {
  // Events are cut by their braces alone, so a damaged array inside one does not swallow the rest.
  const std::string bad = R"({"ph": "X", "name": "bad", "ts": 2, "dur": 1, "args": {"Input Dims": [[1, 2}})";
  std::string json = TraceJson({X("cpu_op", "good1", "1", "1"), bad, X("cpu_op", "good2", "5", "1")});
  for (bool runs : {true, false}) {
    INFO("split_runs " << runs);
    ReadOptions o;
    o.split_runs = runs;
    o.chunk_bytes = 4096;
    auto r = ReadString(json, o);
    REQUIRE(r.ok());
    CHECK(r.trace->size() == 2);
    CHECK(Find(*r.trace, "good2") != kNoIndex);
    CHECK(r.stats.bad_events == 1);
    CHECK_FALSE(r.stats.truncated);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find(fmt::format("byte {}", json.find(bad))) != std::string::npos);
  }
}
TEST_CASE("files that are not traces are errors, an empty trace is a warning") {
  CHECK_FALSE(ReadString("").ok());
  CHECK(ReadString("").error.find("empty") != std::string::npos);
  auto not_trace = ReadString(R"({"name": "package.json", "version": 1})");
  CHECK_FALSE(not_trace.ok());
  CHECK(not_trace.error.find("no \"traceEvents\"") != std::string::npos);
  CHECK(not_trace.error.find("name, version") != std::string::npos);
  auto binary = ReadString(
      std::string("\x7f"
                  "ELF\x02\x01\x01",
                  7));
  CHECK_FALSE(binary.ok());
  CHECK(binary.error.find("not a JSON trace") != std::string::npos);
  auto empty = ReadString(R"({"traceEvents": []})");
  REQUIRE(empty.ok());
  CHECK(empty.trace->size() == 0);
  REQUIRE(empty.warnings.size() == 1);
  CHECK(empty.warnings[0].find("no events") != std::string::npos);
  auto analysis = Analyze(*empty.trace);  // never a crash on nothing
  CHECK(analysis.steps.count() == 0);
  CHECK(analysis.bottlenecks.empty());
}

TEST_CASE("gzip input, and a gz bomb stopped by the cap") {
  std::string json = TraceJson({X("cpu_op", "aten::add", "1", "1")});
  auto r = ReadString(Gzip(json));
  REQUIRE(r.ok());
  CHECK(r.trace->size() == 1);
  CHECK(r.stats.bytes == json.size());

  std::string padding(4 << 20, ' ');
  std::string bomb = Gzip(R"({"traceEvents": [)" + padding + "]}");
  CheckBombRefused(bomb, 1 << 20, 0, "past the 1 MiB cap");
  CheckBombRefused(bomb, 0, 1 << 20, "expands more than 100x");
}

TEST_CASE("PyTorch 1.8-1.9 vocabulary and correlation through flows") {
  std::string json = TraceJson({
      X("Operator", "aten::conv2d", "100", "50", "1", "\"1\"",
        R"({"external id": 3, "Call stack": "train.py(42): step;train.py(60): <module>"})"),
      X("Runtime", "cudaLaunchKernel", "110", "5", "1", "\"1\"", R"({"external id": 3})"),
      X("Kernel", "volta_sgemm_128x64", "200", "30", "0", "\"stream 7\"", R"({"device": 0, "stream": 7})"),
      R"({"ph": "s", "id": 77, "pid": 1, "tid": 1, "ts": 110, "cat": "async", "name": "launch"})",
      R"({"ph": "f", "id": 77, "pid": 0, "tid": "stream 7", "ts": 200, "cat": "async", "name": "launch", "bp": "e"})",
  });
  auto r = ReadString(json);
  REQUIRE(r.ok());
  const auto& t = *r.trace;
  CHECK(t.metadata().format == TraceFormat::kKinetoOld);
  uint32_t kernel = Find(t, "volta_sgemm_128x64");
  uint32_t launch = Find(t, "cudaLaunchKernel");
  CHECK(t.link(kernel) == launch);
  CHECK(t.link(launch) == kernel);
  CHECK(t.EnclosingOp(launch) == Find(t, "aten::conv2d"));
  CHECK(t.external_id(launch) == 3);
}

TEST_CASE("chunk boundaries: tiny chunks give the same store as large ones") {
  std::vector<std::string> events;
  for (int i = 0; i < 300; ++i) {
    // Escaped quotes and backslashes across chunk boundaries, and one event larger than a chunk.
    std::string name = fmt::format(R"(op\"{}\\ \\\" {})", i, i == 150 ? std::string(10000, 'x') : "");
    events.push_back(X("cpu_op", name, std::to_string(i * 10), "5"));
  }
  std::string json = TraceJson(events);
  ReadOptions small;
  small.chunk_bytes = 4096;
  auto a = ReadString(json, small);
  auto b = ReadString(json);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a.warnings.empty());
  REQUIRE(a.trace->size() == 300);
  REQUIRE(b.trace->size() == 300);
  for (uint32_t i = 0; i < 300; ++i) {
    CHECK(a.trace->name(i) == b.trace->name(i));
    CHECK(a.trace->ts(i) == b.trace->ts(i));
  }
  CHECK(a.trace->name(0) == "op\"0\\ \\\" ");
}

TEST_CASE("metadata: deviceProperties, distributedInfo and versions around traceEvents") {
  std::string json =
      R"({"deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85018279936, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
 "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}],
 "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}, "cuda_runtime_version": 12080, "record_shapes": 1})";
  auto r = ReadString(json);
  REQUIRE(r.ok());
  const auto& md = r.trace->metadata();
  REQUIRE(md.devices.size() == 1);
  CHECK(md.devices[0].name == "NVIDIA H100");
  CHECK(md.devices[0].compute_major == 9);
  CHECK(md.rank == 3);
  CHECK(md.world_size == 8);
  CHECK(md.cuda_runtime_version == "12.8");
  CHECK(md.record_shapes);
}

TEST_CASE("times outside any real profile are refused per event, so sums of durations cannot overflow") {
  // 9e15 µs is 9e18 ns: a single such duration, or a few summed, would overflow int64 nanoseconds.
  auto r = ReadString(
      TraceJson({X("cpu_op", "aten::huge", "1", "9000000000000000"), X("cpu_op", "aten::negative", "2", "-5"),
                 X("cpu_op", "aten::far", "9000000000000000", "1"), X("cpu_op", "aten::fine", "3", "4")}));
  REQUIRE(r.ok());
  CHECK(r.trace->size() == 1);
  CHECK(r.stats.bad_events == 3);
  CHECK(r.trace->strings().Get(r.trace->name_id(0)) == "aten::fine");
  auto analysis = Analyze(*r.trace);
  CHECK(analysis.top_ops.ops.size() == 1);
}

TEST_CASE("commas: a missing or doubled comma is invalid JSON with its offset; a trailing one is tolerated") {
  const std::string a = X("cpu_op", "aten::add", "1", "1");
  const std::string b = X("cpu_op", "aten::mul", "3", "1");
  for (const auto& [json, expect] : std::vector<std::pair<std::string, std::string>>{
           {R"({"traceEvents": [)" + a + "\n" + b + "]}", "expected ',' or ']' after an event, found '{'"},
           {R"({"traceEvents": [)" + a + ",, " + b + "]}", "expected an event in traceEvents, found ','"},
           {R"({"traceEvents": [, )" + a + "]}", "expected an event in traceEvents, found ','"},
           {R"({"traceEvents": [)" + a + " 5]}", "expected ',' or ']' after an event, found '5'"},
       }) {
    for (bool runs : {true, false}) {
      const std::string& json_text = json;  // clang < 16 cannot capture a structured binding in a lambda
      INFO(json_text);
      ReadOptions o;
      o.split_runs = runs;
      auto r = ReadString(json, o);
      CHECK_FALSE(r.ok());
      CHECK(r.error.find(expect) != std::string::npos);
      CHECK(r.error.find("at byte ") != std::string::npos);
      CHECK(r.error.find('\n') == std::string::npos);
    }
  }
  auto r = ReadString(R"({"traceEvents": [)" + a + ", " + b + ",\n]}");
  REQUIRE(r.ok());
  CHECK(r.trace->size() == 2);
  CHECK(r.warnings.empty());
}

TEST_CASE("data after the trace, a repeated traceEvents, and a byte order mark") {
  const std::string json = TraceJson({X("cpu_op", "aten::add", "1", "1")});
  auto after = ReadString(json + "\n{\"traceEvents\": []}");
  REQUIRE(after.ok());
  CHECK(after.trace->size() == 1);
  REQUIRE(after.warnings.size() == 1);
  CHECK(after.warnings[0].find(fmt::format("data after the end of the trace at byte {}", json.size() + 1)) !=
        std::string::npos);
  auto garbage = ReadString(R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1}] trailing)");
  REQUIRE(garbage.ok());
  REQUIRE(garbage.warnings.size() == 1);
  CHECK(garbage.warnings[0].find("«trailing»") != std::string::npos);

  auto dup = ReadString(
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1}], "traceEvents": [{"ph": "X", "name": "b", "ts": 1, "dur": 1}]})");
  REQUIRE(dup.ok());
  CHECK(dup.trace->size() == 1);
  CHECK(Find(*dup.trace, "a") != kNoIndex);
  REQUIRE(dup.warnings.size() == 1);
  CHECK(dup.warnings[0].find("a second \"traceEvents\" array at byte") != std::string::npos);

  for (const std::string& bytes : {"\xEF\xBB\xBF" + json, Gzip("\xEF\xBB\xBF" + json)}) {
    auto bom = ReadString(bytes);
    REQUIRE_MESSAGE(bom.ok(), bom.error);
    CHECK(bom.trace->size() == 1);
    CHECK(bom.warnings.empty());
  }
}

TEST_CASE("traceEvents that is not an array, a file cut before it, and gzip with no block") {
  for (const auto& [value, what] : std::vector<std::pair<std::string, std::string>>{
           {"5", "a number or a literal"}, {"null", "null"}, {"\"x\"", "a string"}, {"{}", "an object"}}) {
    auto r = ReadString(R"({"traceEvents": )" + value + "}");
    CHECK_FALSE(r.ok());
    CHECK(r.error.find("\"traceEvents\" at byte 16 holds " + what + ", not an array of events") != std::string::npos);
  }
  auto cut = ReadString(R"({"schemaVersion": 1, "traceEvents":)");
  CHECK_FALSE(cut.ok());
  CHECK(cut.error.find("the file ends at byte 35 before any \"traceEvents\"") != std::string::npos);
  auto magic = ReadString(std::string("\x1f\x8b", 2));
  CHECK_FALSE(magic.ok());
  CHECK(magic.error.find("truncated gzip data") != std::string::npos);
}

TEST_CASE("no readable event is an error; no complete event is a warning") {
  auto bad = ReadString(R"({"traceEvents": [{"ph": "X", "ts": }, 7, {"ph": "X", "name": "x"}]})");
  CHECK_FALSE(bad.ok());
  CHECK(bad.error.find("none of the 3 elements of traceEvents could be read; the first at byte 17") !=
        std::string::npos);
  auto meta = ReadString(
      R"({"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]})");
  REQUIRE(meta.ok());
  REQUIRE(meta.warnings.size() == 1);
  CHECK(meta.warnings[0].find("no complete (\"ph\": \"X\") events") != std::string::npos);
}

TEST_CASE("gz bombs of events and of one endless string are errors, not partial analyses") {
  std::string events;
  for (int i = 0; i < 40000; ++i) events += X("cpu_op", "aten::add", "1", "1") + ",";
  const std::string bomb = Gzip(R"({"traceEvents": [)" + events + X("cpu_op", "aten::add", "1", "1") + "]}");
  CheckBombRefused(bomb, 0, 1 << 20, "expands more than 100x");  // the default ratio, checked after 1 MiB
  CheckBombRefused(bomb, 1 << 20, 0, "past the 1 MiB cap");

  ReadOptions small;
  small.max_element_bytes = 1 << 20;
  auto s = ReadString(
      R"({"traceEvents": [{"ph": "X", "name": ")" + std::string(3 << 20, 'a') + R"(", "ts": 1, "dur": 1}]})", small);
  CHECK_FALSE(s.ok());
  CHECK(s.error.find("the element at byte 17 is larger than 1024 KiB") != std::string::npos);
}

TEST_CASE("invalid escapes keep the text as written; binary snippets and metadata stay valid UTF-8") {
  auto r = ReadString(TraceJson({R"({"ph": "X", "cat": "cpu_op", "name": "a\qb", "ts": 1, "dur": 1})",
                                 R"({"ph": "X", "cat": "cpu_op", "name": "lone \ud800", "ts": 2, "dur": 1})"},
                                "\"pytorch_version\": \"2.1\xff\", "));
  REQUIRE(r.ok());
  CHECK(Find(*r.trace, R"(a\qb)") != kNoIndex);
  CHECK(Find(*r.trace, R"(lone \ud800)") != kNoIndex);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("2 events held invalid UTF-8, raw control characters or invalid escapes") !=
        std::string::npos);
  CHECK(r.trace->metadata().pytorch_version == "2.1?");

  auto bin = ReadString(std::string("{\"traceEvents\": [\xff\xfe\x80 binary]}"));
  CHECK_FALSE(bin.ok());
  std::string copy = bin.error;
  CHECK(SanitizeUtf8(copy.data(), copy.size()) == 0);  // the message is valid UTF-8 as it is
}

TEST_CASE("a named pipe or a folder is refused at once, not read") {
  TempDir temp;
  const auto& dir = temp.path;
  const auto fifo = dir / "trace.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto r = ReadTraceFile(fifo.string());  // would block forever if it opened the pipe
  CHECK_FALSE(r.ok());
  CHECK(r.error.find("not a regular file") != std::string::npos);
  auto d = ReadTraceFile(dir.string());
  CHECK_FALSE(d.ok());
  CHECK(d.error.find("is a folder") != std::string::npos);
}

TEST_CASE("GPU work without a correlation id is linked through its External id") {
  // A launch on the CPU and its kernel carry the op's External id but no correlation (nor flow).
  std::string json = TraceJson({
      X("cpu_op", "aten::mm", "100", "50", "1", "1", R"({"External id": 9})"),
      X("cuda_runtime", "cudaLaunchKernel", "110", "5", "1", "1", R"({"External id": 9})"),
      X("cuda_runtime", "cudaLaunchKernel", "130", "5", "1", "1", R"({"External id": 9})"),
      X("kernel", "first", "200", "30", "0", "7", R"({"device": 0, "stream": 7, "External id": 9})"),
      X("kernel", "second", "240", "30", "0", "7", R"({"device": 0, "stream": 7, "External id": 9})"),
      X("kernel", "early", "105", "1", "0", "7", R"({"device": 0, "stream": 7, "External id": 9})"),
  });
  auto r = ReadString(json);
  REQUIRE(r.ok());
  const auto& t = *r.trace;
  const uint32_t second_launch = [&] {
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t.name(i) == "cudaLaunchKernel" && t.ts(i) == 130000) return i;
    }
    return kNoIndex;
  }();
  REQUIRE(second_launch != kNoIndex);
  CHECK(t.link(Find(t, "first")) == second_launch);  // the last launch at or before the kernel
  CHECK(t.link(Find(t, "second")) == second_launch);
  CHECK(t.link(Find(t, "early")) == kNoIndex);  // no launch before it
  CHECK(t.EnclosingOp(t.link(Find(t, "first"))) == Find(t, "aten::mm"));
}

TEST_CASE("malformed metadata is ignored with a warning, not silently") {
  auto r = ReadString(TraceJson({X("cpu_op", "aten::add", "1", "1")},
                                R"("deviceProperties": [{"id": 0, "name": }], "distributedInfo": {"rank": 3}, )"));
  REQUIRE(r.ok());
  CHECK(r.trace->metadata().devices.empty());
  CHECK(r.trace->metadata().rank == 3);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("\"deviceProperties\" is not valid JSON") != std::string::npos);
}
